// mla (core/mla_attention.cpp; helper modern-b, issue 16): the textbook path's cells.
//   allowed, weights   softmax(mask(scale · q·k)) over the trace's q, k (B, L, H, n + r), causal by default
//   head_context       Σ_j w·v (the trace's v, per head)
//   output             Σ_c head_context[c] · o_proj[o, c] (o_proj: the scenario's weights or the drawn state_dict)
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells, capNote, cellAt, dotSum, exactTex, exactText, explained, num, plain, ref, say } from './common';
import { explainAllowed, explainContext, explainWeight, maskOf, scaleOf, type SoftmaxSpec } from './softmax';

function spec(c: Cells): SoftmaxSpec {
  const E = c.shape('q')[3] ?? 1;
  const causal = { kind: 'causal', causal: false, window: 0, dilation: 1, stride: 1, sinks: 0, fill: -Infinity, at: 'mask' };
  return { q: 'q', k: 'k', v: 'v', weights: 'weights', context: 'head_context', allowed: 'allowed', ...scaleOf(c.scenario, E),
    mask: c.scenario.mask === undefined ? causal : maskOf(c.scenario) };
}

/** o_proj.weight: given in the scenario's weights, else drawn (the trace's state_dict). */
function oProj(c: Cells): unknown {
  const given = c.scenario.weights as Record<string, unknown> | undefined;
  return given?.['o_proj.weight'] ?? (c.trace.state_dict as Record<string, unknown> | undefined)?.['o_proj.weight'];
}

function explainOutput(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, o] = index;
  const value = c.value(field, index);
  const W = oProj(c);
  if (typeof value !== 'number' || W === undefined) return null;
  const [, , H, dv] = c.shape('head_context');
  const p = dotSum(H * dv, (n) => `o_proj[${o},${n}]·head_context[${i},${Math.floor(n / dv)},${n % dv}]`, (n) => {
    const rc = ref('head_context', [b, i, Math.floor(n / dv), n % dv]);
    return [Number(cellAt(W, [o, n])), c.num(rc.field, rc.index), null, rc];
  });
  return explained(field, index, value,
    `\\text{out}_{${i}${o}} = \\sum_c W_o[${o}, c]\\, \\text{concat}_{${i}c} = ${p.tex} = ${num(value)}${exactTex(value)}`,
    say(lang, `output = row ${o} of o_proj times the ${H} heads' contexts concatenated (${H} × ${dv}) = ${p.text} = ${plain(value)}${exactText(value)}`,
      `输出 = o_proj 的第 ${o} 行乘以 ${H} 个头拼接后的上下文（${H} × ${dv}）= ${p.text} = ${plain(value)}${exactText(value)}`) + capNote(lang, p.n),
    p.terms, p.operands);
}

export default function explain(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  switch (field) {
    case 'allowed': return explainAllowed(c, spec(c), field, index, lang);
    case 'weights': return explainWeight(c, spec(c), field, index, lang);
    case 'head_context': return explainContext(c, spec(c), field, index, lang);
    case 'output': return explainOutput(c, field, index, lang);
    default: return null;
  }
}
