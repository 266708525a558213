// The trace of one recompute, for one (b, h) slice: cost, warnings, scores, mask, weights,
// context (an algorithm's module may title its scores and weights). DOM only.
import { h } from '../dom';
import { at, range, shapeOf, sliceBH } from '../format';
import type { Trace } from '../engine/compute';
import { t, tx, type Key, type Lang } from '../i18n';
import { algorithm } from '../algorithms/module';
import { heatmap, type ColorKind, type HeatmapOptions } from './heatmap';

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

/** The names of the axes of `field`'s map: the algorithm's own (Bahdanau's target and source, ...)
 * or `row` and `col`. */
const axesOf = (trace: Trace, field: string, lang: Lang, row: Key, col: Key): [string, string] =>
  (algorithm(trace.algorithm)?.maps?.axes?.[field] ?? [row, col]).map((k) => t(lang, k)) as [string, string];

/** A (B, L, H, D) tensor at (b, h) as a map with one row per query. */
export function contextSpec(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang): HeatmapOptions {
  const rows = (at(trace[field], [b]) as unknown[][] | undefined) ?? [];
  const values = rows.map((r) => (Array.isArray(r[hh]) ? (r[hh] as unknown[]) : []));
  return {
    title, caption, field, values, color: 'diverging', lang, axes: [t(lang, 'axisQuery'), t(lang, 'axisFeat')],
    rowLabels: labels('q', values.length), colLabels: labels('d', values[0]?.length ?? 0),
    indexOf: (i, j) => `${b},${i},${hh},${j}`,
  };
}

/** A (B, L, H, D) tensor at (b, h) as a heatmap with one row per query. */
export function contextMap(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang,
  extra: Partial<HeatmapOptions> = {}): HTMLElement {
  return heatmap({ ...contextSpec(trace, field, title, caption, b, hh, lang), ...extra });
}

function bhSpec(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang,
  color: 'weights' | 'diverging' | 'bool', masked?: (i: number, j: number) => boolean, colLabels?: string[]): HeatmapOptions {
  const values = sliceBH(trace[field], b, hh);
  return {
    title, caption, field, values, color, masked, lang, axes: axesOf(trace, field, lang, 'axisQuery', 'axisKey'),
    rowLabels: labels('q', values.length), colLabels: colLabels ?? labels('k', values[0]?.length ?? 0),
    indexOf: (i, j) => `${b},${hh},${i},${j}`,
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
  if (trace[field] === undefined || !MAPS.includes(field)) return null;
  const allowedSlice = trace.allowed !== undefined ? sliceBH(trace.allowed, b, hh) : null;
  const allowedAt = (i: number, j: number) => allowedSlice?.[i]?.[j] === false;
  const four = shapeOf(trace[field]).length === 4;
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

export function results(o: ResultsOptions): HTMLElement {
  const maps = h('div', { class: 'maps' });
  for (const f of MAPS) {
    const spec = mapSpec(o.trace, f, o.b, o.h, o.lang);
    if (spec) maps.append(heatmap(spec));
  }
  return maps;
}
