// Additive attention's hidden features (SPEC §3 `features`, (B, L_Q, L_K, h) = tanh(W_q q + W_k k)):
// for the selected batch item one row per (query, key) pair, h columns, and beside it the pair's
// score = features · w_v (the trace's `scores`, and the product recomputed from the trace's w_v as
// a check). DOM only.
import { h } from '../dom';
import { exact, fmt } from '../format';
import type { Trace } from '../engine/compute';
import { featureRows, featureScores } from '../state/chapter';
import type { Lang } from '../i18n';
import { d, df } from '../i18n-d2l';
import { heatmap } from './heatmap';
import { axes } from './axes';

export function additiveView(trace: Trace, b: number, lang: Lang): HTMLElement | null {
  if (!Array.isArray(trace.features)) return null;
  const { rows, labels, pairs } = featureRows(trace, b);
  const hidden = rows[0]?.length ?? 0;
  const scores = pairs.map(([i, j]) => Number((trace.scores as number[][][][] | undefined)?.[b]?.[0]?.[i]?.[j]));
  const wv = Array.isArray(trace.w_v) ? (trace.w_v as number[]) : null;
  const recomputed = wv ? featureScores(rows, wv) : null;
  const maxDiff = recomputed ? Math.max(0, ...recomputed.map((x, r) => Math.abs(x - scores[r]))) : null;
  const feat = heatmap({
    title: d(lang, 'featuresTitle'), caption: df(lang, 'featuresCaption', { rows: rows.length, h: hidden }), field: 'additive.features',
    values: rows, color: 'diverging', extent: 1, lang, axes: axes(lang, 'pair', 'hidden'), rowLabels: labels, colLabels: Array.from({ length: hidden }, (_, c) => `h${c}`),
    indexOf: (r, c) => `${b},${pairs[r][0]},${pairs[r][1]},${c}`,
  });
  const sc = heatmap({
    title: d(lang, 'featureScoresTitle'), caption: d(lang, 'featureScoresCaption'), field: 'additive.scores',
    values: scores.map((x) => [x]), color: 'diverging', lang, axes: axes(lang, 'pair', 'score'), rowLabels: labels, colLabels: ['score'],
    indexOf: (r) => `${b},0,${pairs[r][0]},${pairs[r][1]}`,
  });
  const wvMap = wv ? heatmap({ title: 'w_v', field: 'additive.w_v', values: [wv], color: 'diverging', rowLabels: ['w_v'],
    lang, axes: axes(lang, { en: 'w_v', zh: 'w_v' }, 'hidden'),
    colLabels: wv.map((_, c) => `h${c}`), indexOf: (_r, c) => `${c}` }) : null;
  return h('section', { class: 'chapter additive', dataset: { field: 'additive' } },
    h('h3', { text: d(lang, 'additiveTitle') }), h('p', { class: 'intro', text: d(lang, 'additiveIntro') }),
    h('div', { class: 'side-by-side' }, feat, sc), wvMap,
    maxDiff !== null ? h('p', { class: 'note', dataset: { field: 'additive-check', value: exact(maxDiff) },
      text: df(lang, 'featureCheck', { e: fmt(maxDiff, 2) }) }) : null);
}
