// pooling: the keys and values pooled along L (avg or max, window [l·stride, l·stride + kernel)),
// then softmax attention on the pooled ones (core/pooling_attention.cpp): scores, weights and
// context by softmax.ts on pooled_k, pooled_v; pooled_k / pooled_v as their windows' mean or max.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells, capNote, capped, exactTex, exactText, explained, num, plain, ref, say, sum, sumText } from './common';
import { explainContext, explainScore, explainWeight, scaleOf, type SoftmaxSpec } from './softmax';

const spec = (c: Cells): SoftmaxSpec => ({ q: 'q', k: 'pooled_k', v: 'pooled_v', scores: 'scores', weights: 'weights', context: 'context',
  ...scaleOf(c.scenario, c.shape('q')[3] ?? 1), mask: null });

/** pooled_k / pooled_v [b, l, h, e]: the mean (or max) of its window of k / v. */
function explainPooled(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, l, h, e] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const kernel = Number(c.scenario.kernel ?? 1), stride = Number(c.scenario.stride ?? kernel);
  const max = c.scenario.pool === 'max';
  const src = field === 'pooled_k' ? 'k' : 'v';
  const refs = Array.from({ length: kernel }, (_, n) => ref(src, [b, l * stride + n, h, e]));
  const xs = refs.map((r) => c.num(src, r.index));
  let total = 0;
  for (const x of xs) total += x;
  const terms = [...capped(xs.map((x, n) => ({ name: `${src}[${l * stride + n},${e}]`, value: x, ref: refs[n] }))),
    ...(max ? [] : [{ name: 'Σ', value: total }, { name: 'kernel', value: kernel }])];
  const window = `${l * stride}..${l * stride + kernel - 1}`;
  const formula = max
    ? `\\max_{j \\in [${l * stride}, ${l * stride + kernel})} ${src}_{j${e}} = \\max(${sum(xs.map(num), ', ')}) = ${num(value)}${exactTex(value)}`
    : `\\frac{1}{${kernel}} \\sum_{j = ${l * stride}}^{${l * stride + kernel - 1}} ${src}_{j${e}} = \\frac{${sum(xs.map(num))}}{${kernel}} = \\frac{${num(total)}}{${kernel}} = ${num(value)}${exactTex(value)}`;
  const text = max
    ? say(lang, `pooled ${src === 'k' ? 'key' : 'value'} ${l} = the max of ${src}[${window}, ${e}] = max(${xs.map(plain).join(', ')}) = ${plain(value)}${exactText(value)}`,
      `池化后的${src === 'k' ? '键' : '值'} ${l} = ${src}[${window}, ${e}] 的最大值 = max(${xs.map(plain).join(', ')}) = ${plain(value)}${exactText(value)}`)
    : say(lang, `pooled ${src === 'k' ? 'key' : 'value'} ${l} = the mean of ${src}[${window}, ${e}] = (${sumText(xs.map(plain))}) / ${kernel} = ${plain(value)}${exactText(value)}`,
      `池化后的${src === 'k' ? '键' : '值'} ${l} = ${src}[${window}, ${e}] 的均值 = (${sumText(xs.map(plain))}) / ${kernel} = ${plain(value)}${exactText(value)}`);
  return explained(field, index, value, formula, text + capNote(lang, kernel), terms, refs);
}

export default function explainPooling(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  switch (field) {
    case 'pooled_k':
    case 'pooled_v': return explainPooled(c, field, index, lang);
    case 'scores': return explainScore(c, spec(c), field, index, lang);
    case 'weights': return explainWeight(c, spec(c), field, index, lang);
    case 'context': return explainContext(c, spec(c), field, index, lang);
    default: return null;
  }
}
