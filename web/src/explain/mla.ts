// mla (core/mla_attention.cpp; helper modern-b, issue 16): the textbook path's cells.
//   allowed, weights   softmax(mask(scale · q·k)) over the trace's q, k (B, L, H, n + r), causal by default
//   head_context       Σ_j w·v (the trace's v, per head)
//   output             Σ_c head_context[c] · o_proj[o, c] (o_proj: the scenario's weights or the drawn state_dict)
//   latent  (modern-c) w_c · a_c / √(mean_k a_k² + 1e-6), a = the first kv_lora_rank rows of kv_a_proj_with_mqa · x_i
//   k_rope  (modern-c) the last qk_rope_head_dim rows of kv_a_proj_with_mqa · x_i turned pair by pair (half style:
//                      pair p = entries (p, p + r/2)) by the angle i · 10000^(−2p/r)
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

/** A weight: given in the scenario's weights, else drawn (the trace's state_dict). */
function weight(c: Cells, name: string): unknown {
  const given = c.scenario.weights as Record<string, unknown> | undefined;
  return given?.[name] ?? (c.trace.state_dict as Record<string, unknown> | undefined)?.[name];
}
const oProj = (c: Cells) => weight(c, 'o_proj.weight');

/** Row `row` of kv_a_proj_with_mqa · x[b, i] (the compressed kv before the norm and the rotation). */
function compressed(c: Cells, b: number, i: number, row: number) {
  const W = weight(c, 'kv_a_proj_with_mqa.weight');
  const d_model = c.shape('x')[2] ?? 0;
  return dotSum(d_model, (e) => `W[${row},${e}]·x[${i},${e}]`, (e) => {
    const rx = ref('x', [b, i, e]);
    return [Number(cellAt(W, [row, e])), c.num('x', rx.index), null, rx];
  });
}

function explainLatent(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, k] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number' || weight(c, 'kv_a_proj_with_mqa.weight') === undefined) return null;
  const C = c.shape('latent')[2];
  const a = Array.from({ length: C }, (_, r) => compressed(c, b, i, r).total);
  const own = compressed(c, b, i, k);
  const ms = a.reduce((s, x) => s + x * x, 0) / C;
  const w = Number(cellAt(weight(c, 'kv_a_layernorm.weight'), [k]) ?? 1);
  return explained(field, index, value,
    `\\text{latent}_{${i}${k}} = w_{${k}} \\frac{a_{${k}}}{\\sqrt{\\tfrac{1}{${C}}\\sum_c a_c^2 + 10^{-6}}} = ${num(w)} \\cdot \\frac{${num(a[k])}}{\\sqrt{${num(ms)} + 10^{-6}}} = ${num(value)}${exactTex(value)},\\; a_{${k}} = ${own.tex}`,
    say(lang, `latent = RMSNorm: kv_a_layernorm[${k}] · a[${k}] / √(mean of a² + 1e-6) = ${plain(w)} · ${plain(a[k])} / √(${plain(ms)} + 1e-6) = ${plain(value)}${exactText(value)}, where a = kv_a_proj_with_mqa · x[${i}] (its first ${C} rows), a[${k}] = ${own.text}`,
      `latent = RMSNorm：kv_a_layernorm[${k}] · a[${k}] / √(a² 的均值 + 1e-6) = ${plain(w)} · ${plain(a[k])} / √(${plain(ms)} + 1e-6) = ${plain(value)}${exactText(value)}，其中 a = kv_a_proj_with_mqa · x[${i}]（前 ${C} 行），a[${k}] = ${own.text}`) + capNote(lang, own.n),
    [{ name: `a[${k}]`, value: a[k] }, { name: 'mean a²', value: ms }, { name: `kv_a_layernorm[${k}]`, value: w }], own.operands);
}

function explainKRope(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, p] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number' || weight(c, 'kv_a_proj_with_mqa.weight') === undefined) return null;
  const C = c.shape('latent')[2], r = c.shape('k_rope')[2], half = r / 2;
  const pair = p % half, first = p < half;
  const x0 = compressed(c, b, i, C + pair), x1 = compressed(c, b, i, C + pair + half);
  const angle = i * 10000 ** (-2 * pair / r), cs = Math.cos(angle), sn = Math.sin(angle);
  const formula = first ? `${num(x0.total)} \\cdot ${num(cs)} - ${num(x1.total)} \\cdot ${num(sn)}`
    : `${num(x1.total)} \\cdot ${num(cs)} + ${num(x0.total)} \\cdot ${num(sn)}`;
  const text = first ? `${plain(x0.total)}·cos ${plain(angle)} − ${plain(x1.total)}·sin ${plain(angle)}`
    : `${plain(x1.total)}·cos ${plain(angle)} + ${plain(x0.total)}·sin ${plain(angle)}`;
  return explained(field, index, value,
    `k^{\\text{rope}}_{${i},${p}} = ${formula} = ${num(value)}${exactTex(value)},\\; (\\cos, \\sin)\\ \\text{of}\\ \\theta = ${i} \\cdot 10000^{-${2 * pair}/${r}} = ${num(angle)}`,
    say(lang, `k_rope: pair ${pair} (entries ${pair}, ${pair + half}) of the rope part of kv_a_proj_with_mqa · x[${i}] turned by ${i} · 10000^(−${2 * pair}/${r}) = ${plain(angle)}: ${text} = ${plain(value)}${exactText(value)}`,
      `k_rope：kv_a_proj_with_mqa · x[${i}] 的 rope 部分第 ${pair} 对（分量 ${pair}、${pair + half}）旋转 ${i} · 10000^(−${2 * pair}/${r}) = ${plain(angle)}：${text} = ${plain(value)}${exactText(value)}`),
    [{ name: `a[${C + pair}]`, value: x0.total }, { name: `a[${C + pair + half}]`, value: x1.total }, { name: 'cos', value: cs }, { name: 'sin', value: sn }],
    [...x0.operands, ...x1.operands]);
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
    case 'latent': return explainLatent(c, field, index, lang);
    case 'k_rope': return explainKRope(c, field, index, lang);
    default: return null;
  }
}
