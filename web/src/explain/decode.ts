// decode (core/decode_attention.cpp; helper modern-b, issue 16): every row computed as its step did,
// which is full attention's row under the cache's rule, so softmax.ts explains the cells:
//   allowed   j ≤ i (and j < sinks or i − j < window: the cache keeps it)
//   weights   softmax over the held keys of scale · q_i·k_j (the rotated q, k where RoPE is at the tokens' positions)
//   context   Σ_j w·v
// (the view's step row, "decode.step", is the weights row P + t: explain/dispatch.ts's alias).
// With RoPE inside the cache (rope.positions "cache", StreamingLLM) the keys turn by their place in
// the cache at each row: no single rotated k to read, so `weights` is explained here from the
// unrotated q and k (modern-c): row i holds the keys its rule keeps, in order; held key t turns by
// t θ_p, the query by (n − 1) θ_p (n held), θ_p = base^(−2p/E), and the row is the softmax of
// scale · q'·k' over them (core/decode_attention.cpp attend_held).
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells, capped, exactTex, exactText, explained, num, plain, ref, say, sum, sumText } from './common';
import type { CellRef } from './explanation';
import { explainAllowed, explainContext, explainWeight, modernOf, scaleOf, type MaskRule, type SoftmaxSpec } from './softmax';

function spec(c: Cells): SoftmaxSpec {
  const E = c.shape('q')[3] ?? 1;
  const cache = c.scenario.cache as { window?: number; sinks?: number } | undefined;
  const mask: MaskRule = cache
    ? { kind: 'sink', causal: false, window: Number(cache.window), dilation: 1, stride: 1, sinks: Number(cache.sinks ?? 0), fill: -Infinity, at: 'cache' }
    : { kind: 'causal', causal: false, window: 0, dilation: 1, stride: 1, sinks: 0, fill: -Infinity, at: 'mask' };
  return { q: c.has('q_rotated') ? 'q_rotated' : 'q', k: c.has('k_rotated') ? 'k_rotated' : 'k', v: 'v', weights: 'weights',
    context: 'context', allowed: 'allowed', ...scaleOf(c.scenario, E), mask, ...modernOf(c) };
}

/** Vector x (E) turned pair by pair by position m (half: pairs (p, p + E/2); interleaved: (2p, 2p + 1)). */
function turned(x: number[], m: number, base: number, interleaved: boolean): number[] {
  const E = x.length, half = E / 2, out = x.slice();
  for (let p = 0; p < half; p++) {
    const a = m * base ** (-2 * p / E), c = Math.cos(a), s = Math.sin(a);
    const [u, w] = interleaved ? [2 * p, 2 * p + 1] : [p, p + half];
    out[u] = x[u] * c - x[w] * s;
    out[w] = x[w] * c + x[u] * s;
  }
  return out;
}

/** weights[b, h, i, j] with RoPE numbered inside the cache. */
function explainInCacheWeight(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const E = c.shape('q')[3], L = c.shape('q')[1];
  const cache = c.scenario.cache as { window?: number; sinks?: number } | undefined;
  const rope = c.scenario.rope as { base?: number; style?: string };
  const base = Number(rope.base ?? 10000), interleaved = rope.style === 'interleaved';
  const keeps = (k: number) => k <= i && (!cache || i - k < Number(cache.window) || k < Number(cache.sinks ?? 0));
  const held = Array.from({ length: Math.min(i + 1, L) }, (_, k) => k).filter(keeps);
  const slot = held.indexOf(j);
  const hk = c.has('kv_head') ? c.num('kv_head', [h]) : h;
  const { scale } = scaleOf(c.scenario, E);
  const vec = (name: string, row: number, head: number) => Array.from({ length: E }, (_, e) => c.num(name, [b, row, head, e]));
  if (slot < 0) {  // not held: weight 0
    return explained(field, index, value, `w_{${i}${j}} = 0`, say(lang, `key ${j} is not in the cache at row ${i} (evicted or in the future): weight 0`,
      `第 ${i} 行时键 ${j} 不在缓存中（已逐出或在未来）：权重 0`), [], []);
  }
  const n = held.length, q = turned(vec('q', i, h), n - 1, base, interleaved);
  const scores = held.map((k, t) => {
    const kk = turned(vec('k', k, hk), t, base, interleaved);
    return scale * q.reduce((a, x, e) => a + x * kk[e], 0);
  });
  const max = Math.max(...scores), exps = scores.map((x) => Math.exp(x - max)), total = exps.reduce((a, x) => a + x, 0);
  const operands: CellRef[] = [...Array.from({ length: E }, (_, e) => ref('q', [b, i, h, e])),
    ...held.flatMap((k) => Array.from({ length: E }, (_, e) => ref('k', [b, k, hk, e])))];
  const terms = capped(held.map((k, t) => ({ name: `s[${k}] (slot ${t})`, value: scores[t] })), slot);
  return explained(field, index, value,
    `w_{${i}${j}} = \\frac{e^{s_{${j}} - \\max s}}{\\sum_t e^{s_t - \\max s}} = \\frac{${num(exps[slot])}}{${sum(exps.map(num))}} = ${num(value)}${exactTex(value)},\\; s_t = ${num(scale)}\\, R_{${n - 1}} q_{${i}} \\cdot R_t k_t = (${scores.map(num).join(', ')})`,
    say(lang, `RoPE inside the cache: row ${i} holds keys ${held.join(', ')}; key ${j} sits in slot ${slot} and turns by ${slot}·θ, the query by ${n - 1}·θ (the last slot); s = scale · q'·k' = ${sumText(scores.map(plain))}; weight = e^(s_${j} − max) / Σ = ${plain(exps[slot])} / ${plain(total)} = ${plain(value)}${exactText(value)}`,
      `RoPE 在缓存内编号：第 ${i} 行保留键 ${held.join(', ')}；键 ${j} 在第 ${slot} 格，旋转 ${slot}·θ，查询旋转 ${n - 1}·θ（最后一格）；s = scale · q'·k' = ${sumText(scores.map(plain))}；权重 = e^(s_${j} − max) / Σ = ${plain(exps[slot])} / ${plain(total)} = ${plain(value)}${exactText(value)}`),
    terms, operands);
}

export default function explain(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  const inCache = (scenario.rope as { positions?: unknown } | undefined)?.positions === 'cache';
  switch (field) {
    case 'allowed': return explainAllowed(c, spec(c), field, index, lang);
    case 'weights': return inCache ? explainInCacheWeight(c, field, index, lang) : explainWeight(c, spec(c), field, index, lang);
    case 'context': return inCache ? null : explainContext(c, spec(c), field, index, lang);
    default: return null;
  }
}
