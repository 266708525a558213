// Linear (kernel) attention, as the note builds it: sim(q_i, k_j) = φ(q_i)·φ(k_j) ≥ 0 in place of
// exp(q_i·k_j), so the context is φ(Q) (φ(K)ᵀ V) in O(L·E·D). The implied attention matrix (the
// trace's `weights`, drawn only for the picture) beside softmax's (full attention on the same
// inputs), the features φ(Q), φ(K), and the error and cost beside exact attention. DOM only.
import { h } from '../dom';
import { at } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { viewText, tx, type Lang, type Text } from '../i18n';
import { approxPanel } from './approx';
import { bhMap, contextMap } from './results';
import { axes } from './axes';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  linearTitle: { en: 'Linear attention: the implied matrix beside softmax\'s', zh: '线性 Attention：隐含的注意力矩阵与 softmax 的对比' },
  linearIntro: { en: 'The note: any sim(q_i, k_j) ≥ 0 can replace exp(q_i·k_j). With sim = φ(q)·φ(k), context = φ(Q) (φ(K)ᵀ V) / φ(Q) (φ(K)ᵀ 1): computed in O(L·E·D), never as an L × L matrix. The matrix it implies is drawn here only to compare it with softmax\'s.', zh: '笔记：任何 sim(q_i, k_j) ≥ 0 都可以代替 exp(q_i·k_j)。取 sim = φ(q)·φ(k)，则 context = φ(Q) (φ(K)ᵀ V) / φ(Q) (φ(K)ᵀ 1)：复杂度 O(L·E·D)，从不构造 L × L 矩阵。这里画出它隐含的矩阵，只为与 softmax 的矩阵对比。' },
  impliedCaption: { en: 'sim(q_i, k_j) / Σ_j sim(q_i, k_j): what the context weighs V with', zh: 'sim(q_i, k_j) / Σ_j sim(q_i, k_j)：context 对 V 的加权' },
  softmaxWeights: { en: 'softmax weights (exact)', zh: 'softmax 权重（精确）' },
  softmaxCaption: { en: 'full attention on the same inputs', zh: '相同输入上的完整 attention' },
  featuresK: { en: 'φ(K): features of the keys', zh: 'φ(K)：键的特征' },
} satisfies Record<string, Text>;

/** What the features of each map are, and why sim ≥ 0 (cosine1's features themselves can be negative). */
const FEATURES: Record<string, Text> = {
  elu1: { en: 'elu(x) + 1 > 0: positive, so every sim > 0', zh: 'elu(x) + 1 > 0：全为正，因此 sim 恒 > 0' },
  relu: { en: 'max(x, 0) ≥ 0: non-negative, so every sim ≥ 0', zh: 'max(x, 0) ≥ 0：非负，因此 sim 恒 ≥ 0' },
  softmax_qk: { en: 'softmax rows: positive, so every sim > 0', zh: 'softmax 的行：全为正，因此 sim 恒 > 0' },
  cosine1: { en: '[1, x / |x|]: entries may be negative; sim = 1 + cos(q, k) ≥ 0 all the same', zh: '[1, x / |x|]：分量可以为负；但 sim = 1 + cos(q, k) 仍 ≥ 0' },
};
/** A string of this view's table, else the page's. */
const t = viewText(T);

export interface LinearViewOptions {
  trace: Trace;
  /** Full attention on the same inputs (its weights), when the trace carries none. */
  exact: Outcome | null;
  featureMap: string;
  b: number;
  h: number;
  lang: Lang;
}

/** sim(q, k) of each feature map, as the note writes it. */
const SIM: Record<string, Text> = {
  elu1: { en: 'sim(q, k) = (elu(q) + 1)·(elu(k) + 1)', zh: 'sim(q, k) = (elu(q) + 1)·(elu(k) + 1)' },
  relu: { en: 'sim(q, k) = relu(q)·relu(k)', zh: 'sim(q, k) = relu(q)·relu(k)' },
  softmax_qk: { en: 'softmax₁(Q) softmax₂(K)ᵀ V: softmax₁ over E for each q, softmax₂ over L_K for each column of K',
    zh: 'softmax₁(Q) softmax₂(K)ᵀ V：softmax₁ 对每个 q 沿 E 归一化，softmax₂ 对 K 的每一列沿 L_K 归一化' },
  cosine1: { en: 'sim(q, k) = 1 + (q/‖q‖)·(k/‖k‖)', zh: 'sim(q, k) = 1 + (q/‖q‖)·(k/‖k‖)' },
};

export interface WeightsBesideOptions {
  trace: Trace;
  /** Full attention on the same inputs, when the trace carries no exact_weights. */
  exact: Outcome | null;
  b: number;
  h: number;
  lang: Lang;
  title: string;
  /** What the algorithm's weights are (default: the implied sim / Σ sim). */
  caption?: string;
  /** Labels of their columns when they are not the keys (Linformer's k, pooling's L'). */
  colLabels?: string[];
}

/** The algorithm's weights beside exact softmax's (the trace's exact_weights, or the exact run's). */
export function weightsBeside(o: WeightsBesideOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const exactTrace = o.exact?.ok ? o.exact.trace : null;
  const row = h('div', { class: 'maps' });
  const allowed = exactTrace?.allowed !== undefined ? (at(exactTrace.allowed, [b, hh]) as unknown[][] | undefined) ?? [] : null;
  const masked = allowed ? (i: number, j: number) => allowed[i]?.[j] === false : undefined;
  if (trace.weights !== undefined) {
    const fig = bhMap(trace, 'weights', o.title, o.caption ?? t(lang, 'impliedCaption'), b, hh, lang, 'weights',
      o.colLabels ? undefined : masked, o.colLabels);
    fig.dataset.field = 'implied.weights';
    row.append(fig);
  }
  const source = trace.exact_weights !== undefined ? trace : exactTrace?.weights !== undefined ? exactTrace : null;
  if (source) {
    const fig = bhMap(source, source === trace ? 'exact_weights' : 'weights', t(lang, 'softmaxWeights'), t(lang, 'softmaxCaption'),
      b, hh, lang, 'weights', masked);
    fig.dataset.field = 'exact.weights';
    row.append(fig);
  } else if (o.exact && !o.exact.ok) {
    row.append(h('p', { class: 'error', text: `${t(lang, 'fullFailed')}: ${o.exact.error}` }));
  }
  return row;
}

/** A (B, L, H, X) tensor's (b, ·, h, ·) slice as a map: rows `rows`0.., columns `cols`0.. */
export function blhMap(trace: Trace, field: string, title: string, caption: string, b: number, hh: number, lang: Lang,
  names: [string, string], rows: string, cols: string, rowLabels?: string[]): HTMLElement | null {
  const shape = trace.shapes[field];
  if (!shape || shape.length !== 4) return null;
  const labels = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`);
  const own = labels(rows, shape[1]);
  return contextMap(trace, field, title, caption, b, hh, lang,
    { rowLabels: rowLabels ? own.map((x, i) => rowLabels[i] ?? x) : own, colLabels: labels(cols, shape[3]), axes: names });
}

export function linearView(o: LinearViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const map = o.featureMap;
  const root = h('section', { class: 'algo-view linear', dataset: { field: 'linear-view', featureMap: map } },
    h('h3', { text: t(lang, 'linearTitle') }),
    h('p', { class: 'intro', text: t(lang, 'linearIntro') }),
    h('p', { class: 'formula mono', dataset: { field: 'sim' }, text: SIM[map] ? tx(lang, SIM[map]) : map }));
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: `${t(lang, 'impliedWeights')} (${map})` }));
  const featuresCaption = FEATURES[map] ? tx(lang, FEATURES[map]) : t(lang, 'featuresCaption');
  const features = h('div', { class: 'maps' },
    blhMap(trace, 'features_q', t(lang, 'featuresQ'), featuresCaption, b, hh, lang, axes(lang, 'axisQuery', 'featureF'), 'q', 'f'),
    blhMap(trace, 'features_k', t(lang, 'featuresK'), featuresCaption, b, hh, lang, axes(lang, 'axisKey', 'featureF'), 'k', 'f'));
  if (features.childElementCount) root.append(features);
  root.append(approxPanel({ trace, lang, b, h: hh, name: `linear (${map})` }));
  return root;
}
