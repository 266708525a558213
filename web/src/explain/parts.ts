// What explain-b's explainers (linear, performer, linformer, lsh, nadaraya_watson,
// positional_encoding, bahdanau) share beyond common.ts: rows of nested arrays, the inputs the
// scenario gives or the trace carries, long sums written by their largest terms. No DOM.
import { at } from '../format';
import { nested, type Scenario, type Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Term } from './explanation';
import { Cells } from './common';
import { explainWeight, type SoftmaxSpec } from './softmax';

/** A number of the nested array `value` at `index`, else NaN. */
export function cell(value: unknown, index: readonly number[]): number {
  const x = at(value, index);
  return typeof x === 'number' ? x : NaN;
}

/** A nested array's row at `index` (the last axis), as numbers. */
export function row(value: unknown, index: readonly number[]): number[] {
  const r = at(value, index);
  return Array.isArray(r) ? (r as number[]) : [];
}

/** An input tensor (q, k, v, ...) as nested arrays: the scenario's (it may be a {shape, data}
 * tensor), else the trace's (drawn from the seed); undefined when neither has it as numbers. */
export function input(scenario: Scenario, trace: Trace, name: string): unknown {
  const v = nested(scenario[name] ?? trace[name]);
  return Array.isArray(v) ? v : undefined;
}

/** Whether `index` is a cell of the trace field `field` (every coordinate within its shape). */
export function inField(trace: Trace, field: string, index: readonly number[]): boolean {
  const shape = trace.shapes?.[field] ?? [];
  return shape.length === index.length && index.every((i, d) => Number.isInteger(i) && i >= 0 && i < shape[d]);
}

/** A term, read from a cell when `field` and `index` are given. */
export const term = (name: string, value: number, field?: string, index?: number[]): Term =>
  field && index ? { name, value, ref: { field, index } } : { name, value };

/** The dot product a · b, summed in order (the core's order: e = 0, 1, ...). */
export function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** A softmax over `scores` (one row; `masked` ones read `fill`) explained by softmax.ts's weight
 * explainer, as the weight of position j in row i: its formula, sentence, terms and operands, the
 * scores' cells given by `refOf` (none where it gives undefined). For the softmaxes that are not
 * laid out as (B, H, L_Q, L_K): NW's kernel, LSH's rounds, Bahdanau's source positions, softmax_qk's features. */
export function softmaxStep(o: { scores: readonly number[]; i: number; j: number; value: number; lang: Lang;
  masked?: readonly boolean[]; fill?: number; refOf?: (j: number) => CellRef | undefined }) {
  const n = o.scores.length;
  const rows = <T>(r: T[]) => Array.from({ length: o.i + 1 }, () => r);
  const w = Array.from({ length: n }, (_, j) => (j === o.j ? o.value : 0));
  const trace = { algorithm: 'softmax', shapes: { s: [1, 1, o.i + 1, n], w: [1, 1, o.i + 1, n], a: [1, 1, o.i + 1, n] },
    s: [[rows([...o.scores])]], w: [[rows(w)]], a: [[rows(o.scores.map((_, j) => !o.masked?.[j]))]] } as Trace;
  const spec: SoftmaxSpec = { q: 'q', k: 'k', v: 'v', scores: 's', weights: 'w', context: 'c', allowed: 'a', scale: 1, scaleTex: '1',
    mask: o.masked?.some(Boolean) ? { kind: 'explicit', causal: false, window: 0, dilation: 1, stride: 1, sinks: 0, fill: o.fill ?? -Infinity, at: 'mask' } : null };
  const e = explainWeight(new Cells(trace, {}), spec, 'w', [0, 0, o.i, o.j], o.lang);
  if (!e) throw new Error(`explain: no softmax at ${o.i}, ${o.j}`);
  const map = (r: CellRef | undefined) => (r && r.field === 's' ? o.refOf?.(r.index[3]) : r);
  const terms = e.terms.map(({ ref: r, ...t }) => {
    const m = map(r);
    return m ? { ...t, ref: m } : t;
  });
  const operands = e.operands.map(map).filter((r): r is CellRef => r !== undefined);
  return { formula: e.formula, text: e.text, terms, operands };
}
