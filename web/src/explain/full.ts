// full: softmax attention's scores, allowed, weights and context (softmax.ts as it is); and the
// modern forms' own fields (modern-c, issue 16; views/modern.ts draws them):
//   bias[h, i, j]                 −slope_h · |i − j|                               (ALiBi)
//   rope_decay[r]                 (2/E) Σ_{j=1}^{E/2} |Σ_{k<j} e^{i r θ_k}|, θ_k = base^(−2k/E)   (RoFormer §3.4.3)
//   sink_mass[b, h, i]            Σ_{j < sinks} weights[b, h, i, j]
//   evicted_context[b, i, h, d]   Σ_j w'_j v_j, w' = softmax over the window alone (the sinks evicted)
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells, capNote, capped, exactTex, exactText, explained, num, plain, ref, say, sum, sumText } from './common';
import { explainContext, fullSpec, softmaxExplainer, type SoftmaxSpec } from './softmax';

const softmax = softmaxExplainer(fullSpec);

function explainBias(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [h, i, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  // the slope as the core used it: −bias at a pair one apart (the scenario's slopes or get_slopes)
  const given = (c.scenario.alibi as { slopes?: number[] } | undefined)?.slopes;
  const [, L_Q, L_K] = c.shape(field);
  const slope = Array.isArray(given) ? given[h] : L_K > 1 ? -c.num(field, [h, 0, 1]) : L_Q > 1 ? -c.num(field, [h, 1, 0]) : 0;
  const d = Math.abs(i - j);
  return explained(field, index, value,
    `\\text{bias}_{${h},${i}${j}} = -m_{${h}} \\cdot |${i} - ${j}| = -${num(slope)} \\cdot ${d} = ${num(value)}${exactTex(value)}`,
    say(lang, `bias = −slope of head ${h} · |i − j| = −${plain(slope)} · ${d} = ${plain(value)}${exactText(value)} (a rule: defined at every distance, past any trained length)`,
      `偏置 = −头 ${h} 的斜率 · |i − j| = −${plain(slope)} · ${d} = ${plain(value)}${exactText(value)}（规则：在任何距离都有定义，超出训练长度亦然）`),
    [{ name: `slope_${h}`, value: slope }, { name: '|i − j|', value: d }], []);
}

function explainDecay(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [r] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const E = c.shape('q')[3] ?? 2, half = E / 2;
  const base = Number((c.scenario.rope as { base?: number } | undefined)?.base ?? 10000);
  let re = 0, im = 0;
  const sizes: number[] = [];
  for (let k = 0; k < half; k++) {
    const a = r * base ** (-2 * k / E);
    re += Math.cos(a);
    im += Math.sin(a);
    sizes.push(Math.hypot(re, im));
  }
  const terms = capped(sizes.map((s, j) => ({ name: `|S_${j + 1}|`, value: s })));
  const parts = sizes.map((s) => num(s));
  return explained(field, index, value,
    `\\tfrac{1}{${half}} \\sum_{j=1}^{${half}} \\Big|\\sum_{k<j} e^{\\mathrm{i} \\cdot ${r} \\theta_k}\\Big| = \\tfrac{1}{${half}} (${sum(parts)}) = ${num(value)}${exactTex(value)}`,
    say(lang, `the bound at relative distance ${r}: (1/${half}) Σ_j |S_j|, S_j = Σ_{k<j} e^{i·${r}·θ_k}, θ_k = ${plain(base)}^(−2k/${E}): (1/${half})(${sumText(sizes.map(plain))}) = ${plain(value)}${exactText(value)}`,
      `相对距离 ${r} 处的上界：(1/${half}) Σ_j |S_j|，S_j = Σ_{k<j} e^{i·${r}·θ_k}，θ_k = ${plain(base)}^(−2k/${E})：(1/${half})(${sumText(sizes.map(plain))}) = ${plain(value)}${exactText(value)}`) + capNote(lang, half),
    terms, []);
}

function explainSinkMass(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const s = Number((c.scenario.mask as { sinks?: number } | undefined)?.sinks ?? 0);
  const refs = Array.from({ length: s }, (_, j) => ref('weights', [b, h, i, j]));
  const ws = refs.map((r) => c.num(r.field, r.index));
  return explained(field, index, value,
    `\\sum_{j<${s}} w_{${i}j} = ${sum(ws.map(num))} = ${num(value)}${exactTex(value)}`,
    say(lang, `the weight query ${i} puts on the ${s} sink keys: Σ_{j<${s}} weight[${i}, j] = ${sumText(ws.map(plain))} = ${plain(value)}${exactText(value)}`,
      `查询 ${i} 放在 ${s} 个汇点键上的权重：Σ_{j<${s}} 权重[${i}, j] = ${sumText(ws.map(plain))} = ${plain(value)}${exactText(value)}`),
    capped(ws.map((w, j) => ({ name: `w[${i},${j}]`, value: w, ref: refs[j] }))), refs);
}

/** The context under the window alone: full's spec with the sinks evicted (weights computed here
 * from the trace's scores, over the window's keys). */
function evictedSpec(c: Cells): SoftmaxSpec {
  const s = fullSpec(c);
  return { ...s, weights: 'evicted_weights', context: 'evicted_context', allowed: undefined, mask: s.mask ? { ...s.mask, sinks: 0 } : null };
}

export default function explain(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  switch (field) {
    case 'bias': return explainBias(c, field, index, lang);
    case 'rope_decay': return explainDecay(c, field, index, lang);
    case 'sink_mass': return explainSinkMass(c, field, index, lang);
    case 'evicted_context': return explainContext(c, evictedSpec(c), field, index, lang);
    default: return softmax(trace, scenario, field, index, lang);
  }
}
