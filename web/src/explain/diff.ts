// diff: differential attention (core/diff_attention.cpp): q = [q1, q2], k = [k1, k2] (halves of E),
//   weights1 = softmax(mask(s q1·k1)), weights2 = softmax(mask(s q2·k2))   (softmax.ts on the halves)
//   weights  = weights1 − λ weights2;  context = Σ_j weights·v
//   normed_context = context / √(mean_d context² + 1e-5) · (1 − λ_init)
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells, capNote, exactTex, exactText, explained, factor, num, plain, ref, say, sum, sumText } from './common';
import { explainAllowed, explainContext, explainWeight, maskOf, type SoftmaxSpec } from './softmax';

function half(c: Cells, n: 1 | 2): SoftmaxSpec {
  const e = (c.shape('q')[3] ?? 2) / 2;
  const given = typeof c.scenario.scale === 'number';
  const scale = given ? (c.scenario.scale as number) : 1 / Math.sqrt(e);
  return { q: 'q', k: 'k', v: 'v', allowed: 'allowed', weights: `weights${n}`, context: 'context', scale,
    scaleTex: given ? num(scale) : `\\tfrac{1}{\\sqrt{${e}}}`, mask: maskOf(c.scenario), dims: [n === 1 ? 0 : e, e] };
}

function explainDiff(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const r1 = ref('weights1', index), r2 = ref('weights2', index);
  const a = c.num('weights1', index), b = c.num('weights2', index), lambda = Number(c.trace.lambda);
  return explained(field, index, value, `w = w_1 - \\lambda w_2 = ${num(a)} - ${num(lambda)} \\cdot ${factor(b)} = ${num(value)}${exactTex(value)}`,
    say(lang, `weight = weights1 − λ·weights2 = ${plain(a)} − ${plain(lambda)} × ${plain(b)} = ${plain(value)}${exactText(value)} (rows sum to 1 − λ; a weight may be negative)`,
      `权重 = weights1 − λ·weights2 = ${plain(a)} − ${plain(lambda)} × ${plain(b)} = ${plain(value)}${exactText(value)}（每行和为 1 − λ；权重可为负）`),
    [{ name: 'weights1', value: a, ref: r1 }, { name: 'λ', value: lambda }, { name: 'weights2', value: b, ref: r2 }], [r1, r2]);
}

function explainNormed(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, h, d] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const D = c.shape('context')[3];
  const refs = Array.from({ length: D }, (_, n) => ref('context', [b, i, h, n]));
  const xs = refs.map((r) => c.num('context', r.index));
  let sq = 0;
  for (const x of xs) sq += x * x;
  const ms = sq / D, rms = Math.sqrt(ms + 1e-5), init = Number(c.trace.lambda_init);
  return explained(field, index, value,
    `\\frac{c_{${d}}}{\\sqrt{\\frac{1}{D}\\sum_d c_d^2 + 10^{-5}}} (1 - \\lambda_{\\text{init}}) = \\frac{${num(xs[d])}}{\\sqrt{(${sum(xs.map((x) => `${factor(x)}^2`))}) / ${D} + 10^{-5}}} (1 - ${num(init)}) = \\frac{${num(xs[d])}}{${num(rms)}} \\cdot ${num(1 - init)} = ${num(value)}${exactTex(value)}`,
    say(lang, `RMSNorm over the ${D} context features, times (1 − λ_init): ${plain(xs[d])} / √(mean(${sumText(xs.map((x) => `${plain(x)}²`))}) + 1e-5) × (1 − ${plain(init)}) = ${plain(xs[d])} / ${plain(rms)} × ${plain(1 - init)} = ${plain(value)}${exactText(value)}`,
      `对 ${D} 个上下文特征做 RMSNorm，再乘 (1 − λ_init)：${plain(xs[d])} / √(mean(${sumText(xs.map((x) => `${plain(x)}²`))}) + 1e-5) × (1 − ${plain(init)}) = ${plain(xs[d])} / ${plain(rms)} × ${plain(1 - init)} = ${plain(value)}${exactText(value)}`) + capNote(lang, D),
    [{ name: `context[${d}]`, value: xs[d], ref: refs[d] }, { name: 'RMS', value: rms }, { name: 'λ_init', value: init }], refs);
}

export default function explain(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  switch (field) {
    case 'weights1': return explainWeight(c, half(c, 1), field, index, lang);
    case 'weights2': return explainWeight(c, half(c, 2), field, index, lang);
    case 'weights': return explainDiff(c, field, index, lang);
    case 'allowed': return explainAllowed(c, half(c, 1), field, index, lang);
    case 'context': return explainContext(c, { ...half(c, 1), weights: 'weights' }, field, index, lang);
    case 'normed_context': return explainNormed(c, field, index, lang);
    default: return null;
  }
}
