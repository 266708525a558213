// The 1/√d argument (seed 001, lines 26-49): q and k with unit-variance entries have a dot product
// of variance d; dividing by √d brings it back to 1 and keeps the softmax from saturating. The
// draws are a demonstration of a statistical fact (the core's generator ported to TS, state/chapter.ts);
// the softmax row with and without the scale is the core's `full` (scale 1 against the default). DOM only.
import { h } from '../dom';
import { exact, fmt, range } from '../format';
import type { Outcome } from '../engine/compute';
import type { ScaleParams, ScaleStats } from '../state/chapter';
import type { Lang } from '../i18n';
import { d, df } from '../i18n-d2l';
import { heatmap } from './heatmap';
import { axes } from './axes';
import { svg, label } from './svg';

export interface ScaleViewOptions {
  params: ScaleParams;
  stats: ScaleStats;
  scaled: Outcome;
  unscaled: Outcome;
  lang: Lang;
  onParams: (p: Partial<ScaleParams>) => void;
}

/** Two histograms on one axis: q·k and q·k/√d. */
function histogram(stats: ScaleStats, dim: number, lang: Lang): SVGSVGElement {
  const width = 460, height = 170, left = 30, right = 10, top = 10, bottom = 30;
  const sd = Math.sqrt(Math.max(stats.variance, 1e-12));
  const lo = -4 * Math.max(sd, 1), hi = 4 * Math.max(sd, 1);
  const bins = 60;
  const w = (hi - lo) / bins;
  const count = (xs: Float64Array, scale: number) => {
    const c = new Array<number>(bins).fill(0);
    for (const x of xs) {
      const b = Math.floor((x * scale - lo) / w);
      if (b >= 0 && b < bins) c[b]++;
    }
    return c;
  };
  const raw = count(stats.dots, 1), scaled = count(stats.dots, 1 / Math.sqrt(dim));
  const top1 = Math.max(...raw, ...scaled, 1);
  const px = (x: number) => left + ((x - lo) / (hi - lo)) * (width - left - right);
  const py = (c: number) => height - bottom - (c / top1) * (height - top - bottom);
  const chart = svg('svg', { class: 'chart hist', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-label': df(lang, 'histLabel', { v: fmt(stats.variance, 1), vs: fmt(stats.varianceScaled, 2) }), 'data-field': 'scale-hist' });
  [[raw, 's1'], [scaled, 's0']].forEach(([c, cls]) => {
    const g = svg('g', { class: `series ${cls}` });
    (c as number[]).forEach((n, i) => {
      if (n) g.append(svg('rect', { x: px(lo + i * w).toFixed(1), y: py(n).toFixed(1), width: Math.max(1, px(lo + w) - px(lo) - 1).toFixed(1),
        height: (height - bottom - py(n)).toFixed(1), class: 'bar' }));
    });
    chart.append(g);
  });
  chart.append(svg('line', { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: 'axis' }));
  for (const t of [lo, lo / 2, 0, hi / 2, hi]) chart.append(label(px(t), height - bottom + 14, fmt(t, 1), 'tick-label'));
  chart.append(label(width / 2, height - 2, d(lang, 'histAxis'), 'axis-title'));
  return chart;
}

function weightsRow(out: Outcome, title: string, field: string, lang: Lang): HTMLElement {
  if (!out.ok) return h('p', { class: 'error', text: out.error });
  const w = ((out.trace.weights as number[][][][])[0][0]) as number[][];
  const row = w[0];
  const max = Math.max(...row);
  const entropy = -row.reduce((s, p) => s + (p > 0 ? p * Math.log(p) : 0), 0);
  return h('div', { class: 'scale-row', dataset: { field, max: exact(max), entropy: exact(entropy) } },
    heatmap({ title, field: `${field}.weights`, values: [row], color: 'weights', lang, axes: axes(lang, 'axisQuery', 'axisKey'), rowLabels: ['q'],
      colLabels: range(row.length).map((j) => `k${j}`), indexOf: (_i, j) => `0,0,0,${j}` }),
    h('small', { class: 'note', text: df(lang, 'rowSummary', { max: fmt(max, 3), h: fmt(entropy, 3), hmax: fmt(Math.log(row.length), 3) }) }));
}

export function scaleView(o: ScaleViewOptions): HTMLElement {
  const { params: p, stats, lang } = o;
  const num = (key: keyof ScaleParams, text: string, min: number, max: number) => {
    const input = h('input', { type: 'number', min: String(min), max: String(max), step: '1', value: String(p[key]),
      dataset: { key: `scale.${key}` }, attrs: { 'aria-label': text } });
    input.addEventListener('change', () => {
      const v = Number(input.value);
      if (Number.isInteger(v) && v >= min && v <= max) o.onParams({ [key]: v });
    });
    return h('label', { class: 'inline' }, `${text} `, input);
  };
  const stat = (field: string, text: string, value: number, expect: string) =>
    h('tr', { dataset: { field, value: exact(value) } }, h('td', { text }), h('td', { class: 'mono num', text: fmt(value, 3) }), h('td', { class: 'mono', text: expect }));
  return h('section', { class: 'chapter scale', dataset: { field: 'scale-view' } },
    h('h3', { text: d(lang, 'scaleTitle') }), h('p', { class: 'intro', text: d(lang, 'scaleIntro') }),
    h('div', { class: 'controls-row' }, num('d', 'd', 1, 256), num('draws', d(lang, 'draws'), 10, 20000), num('seed', 'seed', 0, 1e9),
      num('keys', d(lang, 'keys'), 2, 32)),
    h('table', { class: 'stats', dataset: { field: 'scale-stats' } },
      h('thead', null, h('tr', null, h('td'), h('th', { text: df(lang, 'overDraws', { n: p.draws }) }), h('th', { text: d(lang, 'expected') }))),
      h('tbody', null,
        stat('mean', 'mean(q·k)', stats.mean, '0'),
        stat('variance', 'Var(q·k)', stats.variance, `d = ${p.d}`),
        stat('mean-scaled', 'mean(q·k/√d)', stats.meanScaled, '0'),
        stat('variance-scaled', 'Var(q·k/√d)', stats.varianceScaled, '1'))),
    h('figure', { class: 'fig' }, histogram(stats, p.d, lang), h('figcaption', { class: 'fig-caption', text: d(lang, 'histCaption') })),
    h('h4', { text: df(lang, 'softmaxTitle', { keys: p.keys, d: p.d }) }),
    h('div', { class: 'side-by-side' },
      weightsRow(o.scaled, df(lang, 'withScale', { s: fmt(1 / Math.sqrt(p.d), 4) }), 'scale-scaled', lang),
      weightsRow(o.unscaled, d(lang, 'withoutScale'), 'scale-unscaled', lang)),
    h('p', { class: 'note', text: d(lang, 'scaleNote') }));
}
