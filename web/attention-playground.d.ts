// Types of the package's one module, dist/attention-playground.js: the <attention-playground>
// element (SPEC §1; docs/embedding.md). Importing the module defines the element.
// tests/web/package.test.mjs checks these against the element itself (web/src/element.ts).

/** A scenario (SPEC §2): `algorithm`, tensors as nested arrays, {shape, data} or seeded draws
 * {shape, random: "normal" | "uniform", seed, scale}, and the algorithm's options. */
export type Scenario = Record<string, unknown>;

/** A trace (SPEC §3): the same fields as the CLI's, tensors as nested arrays. */
export type Trace = Record<string, unknown> & {
  algorithm: string;
  shapes: Record<string, number[]>;
  cost?: { dot_products: number; dense_dot_products: number; flops: number };
  warnings?: string[];
};

/** A built-in scenario (`attnplay presets`); `scenario` is there once the element's core is. */
export interface Preset {
  name: string;
  title: string;
  title_zh: string;
  description: string;
  scenario?: Scenario;
}

/** What a run will cost and carry, from the scenario's shapes (the core's estimate). */
export interface Estimate {
  cost: { dot_products: number; dense_dot_products: number; flops: number };
  numbers: number;
  sizes: Record<string, unknown>;
  exact: boolean;
}

/** A cell of a trace field or of an input tensor: its full index path. */
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

/** `el.explain(field, index)`: the cell's value, its formula (LaTeX, numbers substituted), the same
 * as a sentence, the terms it is built from and the cells it reads. */
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

/** `el.export(kind)`: the trace as JSON, a map as CSV, SVG or PNG, or "copy as PyTorch". */
export type ExportKind = 'json' | 'csv' | 'svg' | 'png' | 'pytorch';

/** An error of the scenario, with the path of the field it is about ("q[0][2][0]", "" for the whole). */
export interface ScenarioError {
  field: string;
  message: string;
}

/** The element's attributes (strings, as HTML gives them). */
export interface AttentionPlaygroundAttributes {
  /** A preset's name (`el.presets`). */
  preset?: string;
  /** A scenario as JSON text. */
  scenario?: string;
  lang?: 'en' | 'zh';
  /** Which panels to show, space-separated (docs/page.md "controls"). */
  controls?: string;
  theme?: 'light' | 'dark' | 'auto';
  /** Keep the page's URL hash in sync with the scenario (index.html; an embed leaves it alone). */
  'sync-hash'?: '' | boolean;
}

export interface AttentionPlaygroundEventMap extends HTMLElementEventMap {
  /** After each recompute: the latest trace. */
  trace: CustomEvent<Trace>;
  /** When the scenario's errors change: every error, each naming its field. */
  'scenario-error': CustomEvent<ScenarioError[]>;
}

export declare class AttentionPlayground extends HTMLElement {
  static readonly observedAttributes: string[];
  /** Resolves once the core is loaded and the first scenario has run. */
  readonly ready: Promise<void>;
  /** The latest trace (null before the first). */
  readonly trace: Trace | null;
  /** A copy of the current scenario. */
  readonly scenario: Scenario;
  readonly presets: Preset[];
  readonly estimate: Estimate | null;
  /** Resolves once every view shows the latest trace. */
  readonly settled: Promise<void>;
  setScenario(scenario: object): void;
  /** False when there is no such preset. */
  setPreset(name: string): boolean;
  /** The trace as JSON, copy-as-PyTorch code, or `field`'s map at the shown (b, h) as CSV, SVG or
   * PNG; `{slices: "all"}`: the CSV of every (b, h) slice (its corner cells name each). */
  export(kind: ExportKind, field?: string, options?: { slices?: 'all' | 'shown' }): Promise<Blob>;
  explain(field: string, index: number[]): Promise<Explanation>;
  addEventListener<K extends keyof AttentionPlaygroundEventMap>(type: K,
    listener: (this: AttentionPlayground, ev: AttentionPlaygroundEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof AttentionPlaygroundEventMap>(type: K,
    listener: (this: AttentionPlayground, ev: AttentionPlaygroundEventMap[K]) => unknown, options?: boolean | EventListenerOptions): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
  /** Custom-element lifecycle (the browser calls these). */
  connectedCallback(): void;
  attributeChangedCallback(name: string, old: string | null, value: string | null): void;
}

/** Defines the element under `name` (default "attention-playground"; done on import). */
export declare function define(name?: string): void;

declare global {
  interface HTMLElementTagNameMap {
    'attention-playground': AttentionPlayground;
  }
}
