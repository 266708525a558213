// The trace of one recompute, for one (b, h) slice: cost, warnings, scores, mask, weights,
// context. DOM only.
import { h } from '../dom';
import { at, range, shapeOf, sliceBH } from '../format';
import type { Trace } from '../compute';
import { t, type Key, type Lang } from '../i18n';
import { heatmap } from './heatmap';

export interface ResultsOptions {
  trace: Trace;
  b: number;
  h: number;
  lang: Lang;
}

const labels = (prefix: string, n: number) => range(n).map((i) => `${prefix}${i}`);

export function costLine(trace: Trace, lang: Lang): HTMLElement {
  const c = trace.cost;
  const box = h('div', { class: 'cost', dataset: { field: 'cost' } });
  if (!c) return box;
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

/** A (B, L, H, D) tensor at (b, h) as a heatmap with one row per query. */
export function contextMap(trace: Trace, field: string, title: string, caption: string, b: number, hh: number,
  extra: Partial<Parameters<typeof heatmap>[0]> = {}): HTMLElement {
  const t4 = trace[field];
  const rows = (at(t4, [b]) as unknown[][] | undefined) ?? [];
  const values = rows.map((r) => (Array.isArray(r[hh]) ? (r[hh] as unknown[]) : []));
  return heatmap({
    title, caption, field, values, color: 'diverging',
    rowLabels: labels('q', values.length), colLabels: labels('d', values[0]?.length ?? 0),
    indexOf: (i, j) => `${b},${i},${hh},${j}`, ...extra,
  });
}

export function bhMap(trace: Trace, field: string, title: string, caption: string, b: number, hh: number,
  color: 'weights' | 'diverging' | 'bool', masked?: (i: number, j: number) => boolean, colLabels?: string[]): HTMLElement {
  const values = sliceBH(trace[field], b, hh);
  return heatmap({
    title, caption, field, values, color, masked,
    rowLabels: labels('q', values.length), colLabels: colLabels ?? labels('k', values[0]?.length ?? 0),
    indexOf: (i, j) => `${b},${hh},${i},${j}`,
  });
}

/** Any other output tensor (multihead's output, y_hat, P): drawn as 2-D. */
function genericMap(trace: Trace, field: string, b: number): HTMLElement {
  const v = trace[field];
  const sh = shapeOf(v);
  let values: unknown[][];
  let index: (i: number, j: number) => string;
  if (sh.length >= 3) { values = at(v, [b]) as unknown[][]; index = (i, j) => `${b},${i},${j}`; }
  else if (sh.length === 2) { values = v as unknown[][]; index = (i, j) => `${i},${j}`; }
  else { values = [Array.isArray(v) ? v : [v]]; index = (_i, j) => `${j}`; }
  return heatmap({ title: field, field, values, color: 'diverging', indexOf: index,
    rowLabels: labels('', values.length), colLabels: labels('', values[0]?.length ?? 0) });
}

/** The formula of `scores` for each algorithm. */
const SCORES: Record<string, string> = {
  additive: 'scores = w_vᵀ tanh(W_q q + W_k k)',
  linformer: 'scores = scale · Q (E_proj K)ᵀ',
  lsh: 'scores = scale · q_i · q_j (same bucket)',
};

/** The title of `weights` where it is not softmax(masked scores) over the keys. */
const WEIGHTS: Record<string, Key> = {
  linear: 'weightsImplied', performer: 'weightsImplied', linformer: 'weightsLinformer', pooling: 'weightsPooled', lsh: 'weightsLsh',
};

export function results(o: ResultsOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const maps = h('div', { class: 'maps' });
  const allowedSlice = trace.allowed !== undefined ? sliceBH(trace.allowed, b, hh) : null;
  const allowedAt = (i: number, j: number) => allowedSlice?.[i]?.[j] === false;
  const scoresTitle = SCORES[trace.algorithm] ?? t(lang, 'scores');
  if (trace.scores !== undefined) maps.append(bhMap(trace, 'scores', scoresTitle, t(lang, 'scoresCaption'), b, hh, 'diverging', allowedAt));
  if (trace.allowed !== undefined) maps.append(bhMap(trace, 'allowed', t(lang, 'allowed'), t(lang, 'allowedCaption'), b, hh, 'bool'));
  if (trace.weights !== undefined && shapeOf(trace.weights).length === 4) {
    maps.append(bhMap(trace, 'weights', t(lang, WEIGHTS[trace.algorithm] ?? 'weights'), t(lang, 'weightsCaption'), b, hh, 'weights', allowedAt));
  } else if (trace.weights !== undefined) {
    const three = shapeOf(trace.weights).length === 3; // bahdanau's (B, T_tgt, T_src): the selected item
    const w = (three ? at(trace.weights, [b]) ?? [] : trace.weights) as unknown[][];
    maps.append(heatmap({ title: 'weights', caption: t(lang, 'weightsCaption'), field: 'weights', values: w, color: 'weights',
      rowLabels: labels('', w.length), colLabels: labels('', w[0]?.length ?? 0), indexOf: (i, j) => (three ? `${b},${i},${j}` : `${i},${j}`) }));
  }
  if (trace.head_weights !== undefined) {
    maps.append(bhMap(trace, 'head_weights', `head_weights (head ${hh})`, t(lang, 'weightsCaption'), b, hh, 'weights'));
  }
  if (trace.attn !== undefined) maps.append(bhMap(trace, 'attn', t(lang, 'attn'), '', b, hh, 'weights'));
  if (trace.context !== undefined) {
    maps.append(contextMap(trace, 'context', t(lang, 'context'), t(lang, 'contextCaption'), b, hh));
  }
  for (const f of ['output', 'y_hat', 'P']) if (trace[f] !== undefined) maps.append(genericMap(trace, f, b));
  return maps;
}
