// decode's view (helper modern-b, issue 16): generation token by token. A step control walks the
// decode steps t = 0..T-1 (position P + t); for the selected one it shows what the cache holds (the
// new token, the kept ones, the evicted ones), its numbers against a cache that keeps everything,
// the step's row of weights over the held keys (the `weights` row P + t at those keys: data-field
// "decode.step", explained as `weights`), and that row's context against full attention under the
// cache's mask (full_context). DOM only.
import { h } from '../dom';
import { isFlat, nested, type Trace } from '../engine/compute';
import { at, exact, range } from '../format';
import { viewText, type Lang, type Text } from '../i18n';
import { heatmap } from './heatmap';
import { fillTemplate as fill } from './template';

const T = {
  decTitle: { en: 'Generation, one token a step', zh: '逐词元生成' },
  decIntro: { en: 'The prompt (positions 0..{last}) was processed at once; then each step appends one token\'s key and value to the cache and its query attends over what the cache holds.', zh: '提示（位置 0..{last}）一次处理完；之后每一步把一个词元的键和值追加到缓存，并用它的查询对缓存中的内容做注意力。' },
  decStep: { en: 'step', zh: '步' },
  decPrev: { en: 'Previous step', zh: '上一步' },
  decNext: { en: 'Next step', zh: '下一步' },
  decAt: { en: 'step {t} / {T}: the token at position {i}', zh: '第 {t} / {T} 步：位置 {i} 的词元' },
  decHeld: { en: 'The cache holds {n} tokens: positions {held} (new: {i}).', zh: '缓存中有 {n} 个词元：位置 {held}（新：{i}）。' },
  decEvicted: { en: 'Evicted so far: {gone} (kept: the first {sinks} as sinks and the last {window}).', zh: '至今被逐出：{gone}（保留：前 {sinks} 个汇点和最近 {window} 个）。' },
  decNoEviction: { en: 'Nothing is evicted: the cache keeps every token.', zh: '不逐出任何词元：缓存保留全部。' },
  decNumbers: { en: 'Cache: {numbers} numbers (B · n · H_kv · (E + D)); keeping every token it would hold {all}.', zh: '缓存：{numbers} 个数（B · n · H_kv · (E + D)）；若保留全部词元则为 {all}。' },
  decRow: { en: 'Step {t}\'s weights over the cache', zh: '第 {t} 步对缓存的权重' },
  decRowCaption: { en: 'row {i} of the weights at the held keys; they sum to 1', zh: '权重第 {i} 行在保留的键上的值；和为 1' },
  decEqual: { en: 'Its context against full attention under the cache\'s mask: max |Δ| = {d} over this row, {all} over every row (SPEC: 1e-12).', zh: '它的上下文与在缓存掩码下的完整注意力相比：本行最大 |Δ| = {d}，所有行 {all}（SPEC：1e-12）。' },
  decInCache: { en: 'RoPE inside the cache (StreamingLLM): the keys are numbered by their place in the cache, so once a token is evicted the rows differ from full attention at the tokens\' own positions (max |Δ| = {all}).', zh: 'RoPE 在缓存内编号（StreamingLLM）：键按其在缓存中的位置编号，所以一旦有词元被逐出，各行就与按词元原始位置的完整注意力不同（最大 |Δ| = {all}）。' },
  decNoSteps: { en: 'The prompt is the whole sequence: there is no decode step (make prompt smaller than L).', zh: '提示就是整个序列：没有解码步（把 prompt 设得小于 L）。' },
  axisSlot: { en: 'key held (its position)', zh: '保留的键（其位置）' },
  axisRow: { en: 'query', zh: '查询' },
} satisfies Record<string, Text>;
const t = viewText(T);

const tree = (x: unknown): unknown => (isFlat(x) ? nested(x as never) : x);

/** The positions the cache holds after step t (the trace's row without its -1 padding). */
export function heldAt(trace: Trace, step: number): number[] {
  const row = at(tree(trace.cache_positions), [step]);
  return Array.isArray(row) ? row.map(Number).filter((p) => p >= 0) : [];
}

export interface DecodeViewOptions {
  trace: Trace;
  scenario: Record<string, unknown>;
  b: number;
  h: number;
  lang: Lang;
  step: number;
  onStep: (step: number) => void;
}

export function decodeView(o: DecodeViewOptions): HTMLElement | null {
  const { trace, lang } = o;
  if (trace.cache_positions === undefined || trace.weights === undefined) return null;
  const P = Number(trace.prompt), shape = trace.shapes.context ?? [1, 1, 1, 1];
  const [B, L, H, D] = shape;
  const Tn = L - P, b = Math.min(o.b, B - 1), hh = Math.min(o.h, H - 1);
  const parts: HTMLElement[] = [h('h3', { text: t(lang, 'decTitle') }),
    h('p', { class: 'help', text: fill(t(lang, 'decIntro'), { last: P - 1 }) })];
  if (Tn <= 0) return h('section', { class: 'decode-view' }, ...parts, h('p', { text: t(lang, 'decNoSteps') }));
  const step = Math.max(0, Math.min(Tn - 1, o.step)), i = P + step;
  const held = heldAt(trace, step);
  const slider = h('input', { type: 'range', min: '0', max: String(Tn - 1), step: '1', value: String(step),
    dataset: { key: 'decode.step' }, attrs: { 'aria-label': t(lang, 'decStep') } });
  slider.addEventListener('input', () => o.onStep(Number(slider.value)));
  const prev = h('button', { type: 'button', text: t(lang, 'decPrev'), disabled: step === 0, dataset: { key: 'decode.prev' } });
  prev.addEventListener('click', () => o.onStep(step - 1));
  const next = h('button', { type: 'button', text: t(lang, 'decNext'), disabled: step >= Tn - 1, dataset: { key: 'decode.next' } });
  next.addEventListener('click', () => o.onStep(step + 1));
  parts.push(h('div', { class: 'step-controls' }, prev, slider, next,
    h('output', { dataset: { field: 'decode.at' }, text: fill(t(lang, 'decAt'), { t: step + 1, T: Tn, i }) })));

  // the cache: held, new, evicted
  const cache = o.scenario.cache as { window?: number; sinks?: number } | undefined;
  const gone = range(i + 1).filter((p) => !held.includes(p));
  parts.push(h('p', { class: 'decode-held', text: fill(t(lang, 'decHeld'), { n: held.length, held: held.join(', '), i }) }),
    h('p', { class: 'decode-evicted', text: cache ? fill(t(lang, 'decEvicted'), { gone: gone.length ? gone.join(', ') : '—',
      sinks: Number(cache.sinks ?? 0), window: Number(cache.window) }) : t(lang, 'decNoEviction') }));
  const numbers = Number(at(tree(trace.cache_numbers), [step]));
  const perToken = held.length ? numbers / held.length : 0;
  parts.push(h('p', { class: 'decode-numbers', text: fill(t(lang, 'decNumbers'), { numbers, all: perToken * (i + 1) }) }));

  // the step's row of weights over the held keys: weights[b, hh, i, held]
  const weights = tree(trace.weights);
  const row = held.map((p) => at(weights, [b, hh, i, p]));
  parts.push(heatmap({ title: fill(t(lang, 'decRow'), { t: step + 1 }), caption: fill(t(lang, 'decRowCaption'), { i }),
    field: 'decode.step', values: [row], color: 'weights', lang, axes: [t(lang, 'axisRow'), t(lang, 'axisSlot')],
    rowLabels: [`q${i}`], colLabels: held.map((p) => `k${p}`), indexOf: (_r, s) => `${b},${hh},${i},${held[s]}` }));

  // this row's context against full attention under the cache's mask
  const ctx = tree(trace.context), full = tree(trace.full_context);
  let d = 0;
  for (const k of range(D)) d = Math.max(d, Math.abs(Number(at(ctx, [b, i, hh, k])) - Number(at(full, [b, i, hh, k]))));
  const all = Number(trace.max_abs_diff);
  const inCache = (o.scenario.rope as { positions?: unknown } | undefined)?.positions === 'cache';
  parts.push(h('p', { class: 'decode-equal', dataset: { field: 'decode.diff', value: exact(all) },
    text: inCache ? fill(t(lang, 'decInCache'), { all: all.toExponential(2) })
      : fill(t(lang, 'decEqual'), { d: d.toExponential(2), all: all.toExponential(2) }) }));
  return h('section', { class: 'decode-view' }, ...parts);
}
