// The trace of one recompute, for one (b, h) slice: cost, warnings, scores, mask, weights,
// context (an algorithm's module may title its scores and weights). DOM only.
import { h } from '../dom';
import { at, range, shapeOf, sliceBH } from '../format';
import type { Trace } from '../engine/compute';
import { t, tx, type Key, type Lang } from '../i18n';
import { algorithm, MASK, type FlowStep } from '../algorithms/module';
import { heatmap, type ColorKind, type HeatmapOptions } from './heatmap';

export interface ResultsOptions {
  trace: Trace;
  b: number;
  h: number;
  lang: Lang;
  /** A step's formula (views/step-formulas.ts, lazy: none until it is loaded). */
  formula?: (algorithm: string, field: string, lang: Lang) => Node | null;
  /** The algorithm's own flow (views/flows.ts, once loaded); default full attention's. */
  steps?: FlowStep[];
}

const labels = (prefix: string, n: number) => range(n).map((i) => `${prefix}${i}`);

/** A long run's large fields, kept typed (worker/packed.ts lazyTrace): `trace[TYPED][field]`, and
 * `trace[TYPED][TYPED](field, b, h, rowAxis)` their rows at (b, h) as views into the data. */
const TYPED = Symbol.for('attnplay.typed');
type Typed = Record<string, { shape: number[] }> & { [TYPED]: (field: string, b: number, h: number, rowAxis: number) => unknown[][] };
const typedOf = (trace: Trace) => (trace as { [TYPED]?: Typed })[TYPED];

/** Trace field `field` (rank 4) at (b, h), one row per query: rows on axis `rowAxis` (2: (B, H, R,
 * C); 1: (B, R, H, C)), of the typed data where the trace keeps it so (reading trace[field] would
 * build its nested arrays). */
function rowsOf(trace: Trace, field: string, b: number, h: number, rowAxis = 2): unknown[][] {
  const typed = typedOf(trace);
  if (typed?.[field]) return typed[TYPED](field, b, h, rowAxis);
  return rowAxis === 2 ? sliceBH(trace[field], b, h) : ((at(trace[field], [b]) as unknown[][] | undefined) ?? []).map((r) => (Array.isArray(r[h]) ? (r[h] as unknown[]) : []));
}

export function costLine(trace: Trace, lang: Lang): HTMLElement {
  const c = trace.cost;
  const box = h('div', { class: 'cost', dataset: { field: 'cost' } });
  // positional encoding computes no attention: no cost line (Bahdanau's is per attention step: chapter.ts)
  if (!c || algorithm(trace.algorithm)?.cost) return box;
  const pct = c.dense_dot_products > 0 ? Math.round((100 * c.dot_products) / c.dense_dot_products) : 100;
  box.append(
    h('span', { class: 'cost-label', text: t(lang, 'cost') + ':' }), ' ',
    h('strong', { dataset: { field: 'cost.dot_products' }, text: String(c.dot_products) }), ' ',
    `${t(lang, 'dotProducts')} / `,
    h('span', { dataset: { field: 'cost.dense_dot_products' }, text: String(c.dense_dot_products) }), ` ${t(lang, 'ofDense')} `,
    h('span', { class: 'pct', text: `(${pct}%)` }),
    h('span', { class: 'bar', attrs: { 'aria-hidden': 'true' } }, h('span', { class: 'bar-fill' })),
    ` · ${t(lang, 'flops')} `, h('span', { dataset: { field: 'cost.flops' }, text: String(c.flops) }));
  (box.querySelector('.bar-fill') as HTMLElement).style.width = `${Math.min(100, pct)}%`;
  return box;
}

export function warningList(trace: Trace, lang: Lang): HTMLElement | null {
  const w = trace.warnings ?? [];
  if (!w.length) return null;
  return h('div', { class: 'warnings', attrs: { role: 'status' } },
    h('strong', { text: t(lang, 'warnings') + ':' }),
    h('ul', null, ...w.map((x) => h('li', { text: x }))));
}

/** The names of the axes of `field`'s map: the algorithm's own (Bahdanau's target and source, ...)
 * or `row` and `col`. */
const axesOf = (trace: Trace, field: string, lang: Lang, row: Key, col: Key): [string, string] =>
  (algorithm(trace.algorithm)?.maps?.axes?.[field] ?? [row, col]).map((k) => t(lang, k)) as [string, string];

/** A (B, L, H, D) tensor at (b, h) as a map with one row per query. */
export function contextSpec(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang): HeatmapOptions {
  const values = rowsOf(trace, field, b, hh, 1);
  return {
    title, caption, field, values, color: 'diverging', lang, axes: [t(lang, 'axisQuery'), t(lang, 'axisFeat')],
    rowLabels: labels('q', values.length), colLabels: labels('d', values[0]?.length ?? 0),
    indexOf: (i, j) => `${b},${i},${hh},${j}`, indexKey: `${b},${hh}`,
  };
}

/** A (B, L, H, D) tensor at (b, h) as a heatmap with one row per query. */
export function contextMap(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang,
  extra: Partial<HeatmapOptions> = {}): HTMLElement {
  return heatmap({ ...contextSpec(trace, field, title, caption, b, hh, lang), ...extra });
}

function bhSpec(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang,
  color: 'weights' | 'diverging' | 'bool', masked?: (i: number, j: number) => boolean, colLabels?: string[]): HeatmapOptions {
  const values = rowsOf(trace, field, b, hh);
  return {
    title, caption, field, values, color, masked, lang, axes: axesOf(trace, field, lang, 'axisQuery', 'axisKey'),
    rowLabels: labels('q', values.length), colLabels: colLabels ?? labels('k', values[0]?.length ?? 0),
    indexOf: (i, j) => `${b},${hh},${i},${j}`, indexKey: `${b},${hh}`,
  };
}

export function bhMap(...args: Parameters<typeof bhSpec>): HTMLElement {
  return heatmap(bhSpec(...args));
}

/** Any other output tensor (multihead's output, y_hat, P, bahdanau's weights): drawn as 2-D, its axes
 * query i and feature d (multihead's output) unless the algorithm names them. */
function genericSpec(trace: Trace, field: string, b: number, lang: Lang, color: ColorKind = 'diverging', caption?: string): HeatmapOptions {
  const v = trace[field];
  const sh = shapeOf(v);
  let values: unknown[][];
  let index: (i: number, j: number) => string;
  if (sh.length >= 3) { values = (at(v, [b]) ?? []) as unknown[][]; index = (i, j) => `${b},${i},${j}`; }
  else if (sh.length === 2) { values = v as unknown[][]; index = (i, j) => `${i},${j}`; }
  else { values = [Array.isArray(v) ? v : [v]]; index = (_i, j) => `${j}`; }
  return { title: field, caption, field, values, color, indexOf: index, lang, axes: axesOf(trace, field, lang, 'axisQuery', 'axisFeat'),
    rowLabels: labels('', values.length), colLabels: labels('', values[0]?.length ?? 0) };
}

/** The maps the results draw, in order: those the trace has are drawn. */
export const MAPS = ['scores', 'allowed', 'weights', 'head_weights', 'attn', 'context', 'output', 'y_hat', 'P'];

/** The map the results draw for trace field `field` at (b, h): which 2-D slice, its labels and
 * colours (also what export.ts writes); null for a field the results do not draw. */
export function mapSpec(trace: Trace, field: string, b: number, hh: number, lang: Lang): HeatmapOptions | null {
  const typed = typedOf(trace) ?? {} as Partial<Typed>;
  if (!MAPS.includes(field) || (!typed[field] && trace[field] === undefined)) return null;
  const allowedSlice = typed.allowed || trace.allowed !== undefined ? rowsOf(trace, 'allowed', b, hh) : null;
  // typed rows of `allowed` (worker/packed.ts) say at once that no key is masked: their range is [1, 1]
  const allowedAt = (allowedSlice as { range?: number[] } | null)?.range?.[0] === 1 ? undefined
    : (i: number, j: number) => { const a = allowedSlice?.[i]?.[j]; return a === false || a === 0; };
  const four = (typed[field]?.shape ?? shapeOf(trace[field])).length === 4;
  switch (field) {
    case 'scores': return bhSpec(trace, field, algorithm(trace.algorithm)?.maps?.scores ?? t(lang, 'scores'), t(lang, 'scoresCaption'), b, hh, lang, 'diverging', allowedAt);
    case 'allowed': return bhSpec(trace, field, t(lang, 'allowed'), t(lang, 'allowedCaption'), b, hh, lang, 'bool');
    case 'weights': return four // bahdanau's (B, T_tgt, T_src): the selected item; nadaraya's (queries, keys)
      ? bhSpec(trace, field, tx(lang, algorithm(trace.algorithm)?.maps?.weights) || t(lang, 'weights'),
        tx(lang, algorithm(trace.algorithm)?.maps?.weightsCaption) || t(lang, 'weightsCaption'), b, hh, lang, 'weights', allowedAt)
      : genericSpec(trace, field, b, lang, 'weights', t(lang, 'weightsCaption'));
    case 'head_weights': return bhSpec(trace, field, `head_weights (head ${hh})`, t(lang, 'weightsCaption'), b, hh, lang, 'weights');
    case 'attn': return bhSpec(trace, field, t(lang, 'attn'), '', b, hh, lang, 'weights');
    case 'context': return contextSpec(trace, field, t(lang, 'context'), t(lang, 'contextCaption'), b, hh, lang);
    default: return genericSpec(trace, field, b, lang);
  }
}

/** The generic flow (the basic-operations seed's two einsums, FullAttention): each step's field,
 * the fields it is computed from, its operation and the shape change. */
const FLOW: FlowStep[] = [
  { field: 'scores', from: ['q', 'k'], op: 'einsum blhe,bshe→bhls · scale', shape: '(B, L_Q, H, E) × (B, L_K, H, E) → (B, H, L_Q, L_K)' },
  { field: 'allowed', op: MASK, shape: '→ (B, H, L_Q, L_K)' },
  { field: 'weights', from: ['scores'], op: 'softmax(dim=-1)', shape: '(B, H, L_Q, L_K) → (B, H, L_Q, L_K)' },
  { field: 'context', from: ['weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '(B, H, L_Q, L_K) × (B, L_K, H, D) → (B, L_Q, H, D)' },
];

/** A shape as written, broken only between tuples (never inside one); kept by its text, as every
 * edit writes the same few again (a new string per step and edit otherwise: issue 14's garbage). */
const tuples = new Map<string, string>();
function tuple(s: string): string {
  let out = tuples.get(s);
  if (out === undefined) {
    if (tuples.size > 256) tuples.clear();
    tuples.set(s, out = s.replace(/, /g, ',\u00a0'));
  }
  return out;
}

/** The results: the algorithm's flow left to right, each step its operation and shape change (the
 * symbols and this trace's sizes; `.step-formula`, an empty slot for the step's formula) above its
 * map, or the field's shape where the step has no map; then the maps no step names. */
export function results(o: ResultsOptions): HTMLElement {
  const { trace } = o;
  const shapes = trace.shapes ?? {};
  const dims = (f: string) => shapes[f] && tuple(`(${shapes[f].join(', ')})`);
  const steps = (o.steps ?? FLOW).filter((s) => shapes[s.field] || trace[s.field] !== undefined);
  const flow = h('div', { class: 'maps flow' });
  const inputs = (steps[0]?.inputs ?? ['q', 'k', 'v']).filter(dims);
  if (inputs.length) flow.append(h('div', { class: 'flow-step flow-in', dataset: { step: 'inputs' } }, ...inputs.map((f) => h('div', { class: 'chip', text: `${f} ${dims(f)}` }))));
  for (const f of [...steps, ...MAPS.filter((m) => !steps.some((s) => s.field === m)).map((field) => ({ field }) as FlowStep)]) {
    const spec = mapSpec(trace, f.field, o.b, o.h, o.lang);
    if (!spec && !shapes[f.field]) continue;
    const sizes = f.from?.every(dims) ? `${f.from.map(dims).join(' × ')} → ${dims(f.field)}` : '';
    flow.append(h('div', { class: 'flow-step', dataset: { step: f.field } },
      f.op ? h('div', { class: 'step-op' }, h('code', { text: tuple(`→ ${typeof f.op === 'string' ? f.op : f.op[o.lang]}`) }), h('span', { text: tuple(f.shape ?? '') }),
        h('span', { class: 'muted', text: sizes }), h('span', { class: 'step-formula' }, o.formula?.(trace.algorithm, f.field, o.lang))) : null,
      spec ? heatmap({ ...spec, lang: o.lang }) : h('div', { class: 'chip', text: `${f.field} ${dims(f.field)}` })));
  }
  return flow;
}
