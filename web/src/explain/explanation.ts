// SPEC §1 "Every number explains itself": what `el.explain(field, index)` returns and the page shows
// when a cell is hovered, focused or tapped. Types only: the explainers are one module per
// algorithm (web/src/explain/<name>.ts, lazily loaded through the algorithm's page module), the
// panel that shows them is views/explain-panel.ts.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';

/** A cell of a trace field or of an input tensor (q, k, v, x, ...): its full index path. */
export interface CellRef {
  field: string;
  index: number[];
}

/** One named partial value a cell is built from (a product of a dot product, the row max, the row sum...). */
export interface Term {
  /** Short name, e.g. "q[0]·k[1] (e=0)", "max_j s", "Σ_j exp(s_j − max)". */
  name: string;
  value: number;
  /** The cell it is read from, when it is one (then highlighted with the operands). */
  ref?: CellRef;
  /** A product's two factors' cells (q and k of a score's product, w and v of a context's). */
  refs?: CellRef[];
}

export interface Explanation extends CellRef {
  /** The cell's value, equal to the trace's (a boolean for `allowed`). */
  value: number | boolean;
  /** LaTeX with the numbers substituted, e.g. "\\frac{e^{2-2}}{e^{0}+e^{-1}+e^{-2}} = \\frac{1}{1.503} = 0.665". */
  formula: string;
  /** The same derivation as one plain sentence (screen readers, and the page before KaTeX is loaded). */
  text: string;
  terms: Term[];
  /** The cells it reads (highlighted in the other maps and grids). */
  operands: CellRef[];
}

/** An algorithm's explainer: null for a field or index it has no cell at (the caller says so). */
export type Explainer = (trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang) => Explanation | null;
