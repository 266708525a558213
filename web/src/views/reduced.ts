// The note's shortened keys: Linformer projects the L_K keys and values to k (softmax(Q (E K)ᵀ) F V,
// an n × k matrix), pooling averages or maxes them over windows (the note's 下采样), and Reformer's
// LSH attention keeps, per hash round, only the keys in a query's bucket. Each beside exact
// attention on the same inputs, with its error and cost (approx.ts). Every number is the trace's.
// DOM only.
import { h } from '../dom';
import { at, range } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import { approxPanel } from './approx';
import { heatmap } from './heatmap';
import { blhMap, weightsBeside } from './linear';
import { axes } from './axes';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  linformerTitle: { en: 'Linformer: L_K keys and values projected to k', zh: 'Linformer：把 L_K 个键和值投影为 k 个' },
  linformerIntro: { en: 'The note: before attention, two k × n matrices E and F project K and V, so Q (E K)ᵀ is only n × k. Move the slider “projected length k” (Options) and watch the error fall as k nears L_K.', zh: '笔记：在 attention 之前，用两个 k × n 的矩阵 E、F 分别投影 K 和 V，于是 Q (E K)ᵀ 只是 n × k 的矩阵。拖动“投影长度 k”滑块（选项），观察 k 接近 L_K 时误差如何下降。' },
  eProj: { en: 'E_proj (k × L_K): projects the keys', zh: 'E_proj（k × L_K）：投影键' },
  fProj: { en: 'F_proj (k × L_K): projects the values', zh: 'F_proj（k × L_K）：投影值' },
  projCaption: { en: 'each projected row mixes all L_K positions', zh: '每个投影行混合全部 L_K 个位置' },
  projectedK: { en: 'E_proj K: the projected keys', zh: 'E_proj K：投影后的键' },
  projectedV: { en: 'F_proj V: the projected values', zh: 'F_proj V：投影后的值' },
  projectedCaption: { en: 'k rows instead of L_K', zh: 'k 行，而不是 L_K 行' },
  linformerWeights: { en: 'weights = softmax(scale · Q (E_proj K)ᵀ)', zh: '权重 = softmax(scale · Q (E_proj K)ᵀ)' },
  poolingTitle: { en: 'Pooling: shorter keys and values (the note\'s down-sampling)', zh: '池化：更短的键和值（笔记中的下采样）' },
  poolingIntro: { en: 'The note: Linformer\'s E K shortens the sequence; the plainest way to do that is pooling. Keys and values are pooled over windows of kernel positions every stride (no padding), then full attention runs over the L\' pooled keys.', zh: '笔记：Linformer 的 E K 本质是把序列变短（下采样），最朴素的做法就是 Pooling。键和值按 kernel 大小、stride 步长池化（无填充），然后对 L\' 个池化后的键做完整 attention。' },
  pooledK: { en: 'pooled_k', zh: '池化后的键 pooled_k' },
  pooledV: { en: 'pooled_v', zh: '池化后的值 pooled_v' },
  pooledCaption: { en: 'one row per window of kernel keys', zh: '每行对应一个 kernel 窗口' },
  linformerWeightsCaption: { en: 'each query over the k projected keys', zh: '每个查询对 k 个投影键的权重' },
  poolingWeightsCaption: { en: 'each query over the pooled keys', zh: '每个查询对池化键的权重' },
  lshWeightsCaption: { en: 'zero outside the query\'s buckets; the rounds combined', zh: '查询所在桶之外为 0；各轮合并' },
  poolingWeights: { en: 'weights over the pooled keys', zh: '对池化键的权重' },
  lshTitle: { en: 'LSH attention (Reformer): attend within your bucket', zh: 'LSH Attention（Reformer）：只在自己的桶内做 attention' },
  lshIntro: { en: 'The note: Reformer finds the largest attention values approximately by locality-sensitive hashing and computes only those. Queries and keys are shared; each round hashes them into buckets (argmax of [qR, −qR]); a query attends to the keys of its own bucket; the rounds are combined by the softmax of their logsumexp.', zh: '笔记：Reformer 用局部敏感哈希（LSH）近似地找出最大的若干个注意力值，只计算这些。查询和键共享；每轮哈希把它们分到桶里（[qR, −qR] 的 argmax）；查询只关注同桶的键；各轮按其 logsumexp 的 softmax 加权合并。' },
  lshRound: { en: 'round', zh: '轮' },
  lshBucket: { en: 'bucket', zh: '桶' },
  lshBuckets: { en: 'buckets of each hash round', zh: '每轮哈希的分桶' },
  lshBucketsCaption: { en: 'same colour, same bucket: those positions see each other in that round', zh: '颜色相同即同桶：这一轮中它们互相可见' },
  lshWeights: { en: 'who attends to whom: the combined weights', zh: '谁关注谁：合并后的权重' },
  lshRoundWeights: { en: 'round_weights: how much each round counts', zh: 'round_weights：每轮所占的权重' },
  lshRoundWeightsCaption: { en: 'softmax over rounds of each round\'s logsumexp, per query', zh: '对每个查询，各轮 logsumexp 在轮之间的 softmax' },
} satisfies Record<string, Text>;
/** A string of this view's table, else the page's. */
const t = viewText(T);

export interface ReducedViewOptions {
  trace: Trace;
  exact: Outcome | null;
  b: number;
  h: number;
  lang: Lang;
  /** pooling: the scenario's pool, kernel and stride, for the labels. */
  pool?: unknown;
  kernel?: unknown;
  stride?: unknown;
}

const labels = (p: string, n: number) => range(n).map((i) => `${p}${i}`);

function matrixMap(trace: Trace, field: string, title: string, caption: string, lang: Lang, rows: string, cols: string): HTMLElement | null {
  const m = trace[field];
  if (!Array.isArray(m) || !Array.isArray(m[0])) return null;
  const values = m as unknown[][];
  return heatmap({ title, caption, field, values, color: 'diverging', lang, axes: axes(lang, 'axisProj', 'axisKey'), rowLabels: labels(rows, values.length),
    colLabels: labels(cols, values[0].length), indexOf: (i, j) => `${i},${j}` });
}

function section(field: string, title: string, intro: string): HTMLElement {
  return h('section', { class: 'algo-view', dataset: { field } }, h('h3', { text: title }), h('p', { class: 'intro', text: intro }));
}

const maps = (...figs: (HTMLElement | null)[]) => h('div', { class: 'maps' }, ...figs);

export function linformerView(o: ReducedViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const k = trace.shapes.E_proj?.[0] ?? trace.shapes.weights?.[3];
  const root = section('linformer-view', t(lang, 'linformerTitle'), t(lang, 'linformerIntro'));
  root.append(h('p', { class: 'formula mono', dataset: { field: 'proj-len', value: String(k ?? '') } },
    `softmax(scale · Q (E_proj K)ᵀ) (F_proj V) · k = ${k ?? '?'}, L_K = ${trace.shapes.E_proj?.[1] ?? '?'}`));
  root.append(maps(
    matrixMap(trace, 'E_proj', t(lang, 'eProj'), t(lang, 'projCaption'), lang, 'p', 'k'),
    matrixMap(trace, 'F_proj', t(lang, 'fProj'), t(lang, 'projCaption'), lang, 'p', 'k')));
  root.append(maps(
    blhMap(trace, 'projected_k', t(lang, 'projectedK'), t(lang, 'projectedCaption'), b, hh, lang, axes(lang, 'axisProj', 'featureE'), 'p', 'e'),
    blhMap(trace, 'projected_v', t(lang, 'projectedV'), t(lang, 'projectedCaption'), b, hh, lang, axes(lang, 'axisProj', 'axisFeat'), 'p', 'd')));
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: `${t(lang, 'linformerWeights')} (L_Q × ${k ?? 'k'})`,
    caption: t(lang, 'linformerWeightsCaption'), colLabels: labels('p', k ?? 0) }));
  root.append(approxPanel({ trace, lang, b, h: hh, name: `linformer (k = ${k ?? '?'})` }));
  return root;
}

export function poolingView(o: ReducedViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const Lp = trace.shapes.pooled_k?.[1] ?? 0;
  const root = section('pooling-view', t(lang, 'poolingTitle'), t(lang, 'poolingIntro'));
  // which keys each pooled row stands for: the scenario's kernel and stride (stride defaults to the kernel)
  const kernel = Number(o.kernel ?? 1), stride = Number(o.stride ?? kernel);
  const windows = range(Lp).map((p) => `p${p} (k${p * stride}${kernel > 1 ? `–${p * stride + kernel - 1}` : ''})`);
  const pooled = (field: string, title: string, cols: string) => {
    return blhMap(trace, field, `${title} (L' = ${Lp})`, t(lang, 'pooledCaption'), b, hh, lang,
      axes(lang, 'axisPooled', cols === 'e' ? 'featureE' : 'axisFeat'), 'p', cols, windows);
  };
  root.append(h('p', { class: 'formula mono', dataset: { field: 'pool-formula' } },
    `${o.pool ?? 'avg'}_pool1d(kernel = ${kernel}, stride = ${stride}): L_K = ${trace.shapes.k?.[1] ?? '?'} → L' = ⌊(L_K − kernel) / stride⌋ + 1 = ${Lp}`));
  root.append(maps(pooled('pooled_k', t(lang, 'pooledK'), 'e'), pooled('pooled_v', t(lang, 'pooledV'), 'd')));
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: `${t(lang, 'poolingWeights')} (L_Q × ${Lp})`,
    caption: t(lang, 'poolingWeightsCaption'), colLabels: windows.map((w) => w.split(' ')[0]) }));
  root.append(approxPanel({ trace, lang, b, h: hh, name: 'pooling' }));
  return root;
}

/** buckets (n_hashes, B, H, L): one row per round, each position coloured by its bucket (a map
 * like the others: hover, focus and the legend; web/src/explain/lsh.ts explains a cell). */
function bucketMap(trace: Trace, b: number, hh: number, lang: Lang): HTMLElement | null {
  const rounds = trace.buckets;
  if (!Array.isArray(rounds)) return null;
  const values = rounds.map((_, r) => (at(rounds, [r, b, hh]) as unknown[] | undefined) ?? []);
  return heatmap({ title: t(lang, 'lshBuckets'), caption: t(lang, 'lshBucketsCaption'), field: 'buckets', values,
    color: 'category', category: t(lang, 'lshBucket'), lang, axes: axes(lang, 'round', 'axisQuery'),
    rowLabels: values.map((_, r) => `${t(lang, 'lshRound')} ${r}`), colLabels: labels('q', values[0]?.length ?? 0),
    rowHeader: t(lang, 'lshRound'), indexOf: (r, i) => `${r},${b},${hh},${i}`, cellText: (_i, _j, v) => String(v) });
}

export function lshView(o: ReducedViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const root = section('lsh-view', t(lang, 'lshTitle'), t(lang, 'lshIntro'));
  const buckets = bucketMap(trace, b, hh, lang);
  if (buckets) root.append(buckets);
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: t(lang, 'lshWeights'), caption: t(lang, 'lshWeightsCaption') }));
  const rw = trace.round_weights;
  if (Array.isArray(rw) && trace.shapes.round_weights?.length === 4) {
    const values = rw.map((_, r) => (at(rw, [r, b, hh]) as unknown[] | undefined) ?? []);
    root.append(heatmap({ title: t(lang, 'lshRoundWeights'), caption: t(lang, 'lshRoundWeightsCaption'), field: 'round_weights',
      values, color: 'weights', lang, axes: axes(lang, 'round', 'axisQuery'), rowLabels: labels('r', values.length), colLabels: labels('q', values[0]?.length ?? 0),
      indexOf: (r, i) => `${r},${b},${hh},${i}` }));
  }
  root.append(approxPanel({ trace, lang, b, h: hh, name: 'lsh' }));
  return root;
}
