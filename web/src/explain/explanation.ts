// SPEC §1 "Every number explains itself": what `el.explain(field, index)` returns and the page shows
// when a cell is hovered, focused or tapped. Types only: the explainers are one module per
// algorithm (web/src/explain/<name>.ts, lazily loaded through the algorithm's page module), the
// panel that shows them is views/explain-panel.ts.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';

// The explanation's types are the element's public API (web/attention-playground.d.ts): declared
// once there, for the page and for the package's users alike.
import type { CellRef, Explanation, Term } from '../../attention-playground';

export type { CellRef, Explanation, Term };

/** An algorithm's explainer: null for a field or index it has no cell at (the caller says so). */
export type Explainer = (trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang) => Explanation | null;
