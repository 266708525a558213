// decode (core/decode_attention.cpp; helper modern-b, issue 16): every row computed as its step did,
// which is full attention's row under the cache's rule, so softmax.ts explains the cells:
//   allowed   j ≤ i (and j < sinks or i − j < window: the cache keeps it)
//   weights   softmax over the held keys of scale · q_i·k_j (the rotated q, k where RoPE is at the tokens' positions)
//   context   Σ_j w·v
// (the view's step row, "decode.step", is the weights row P + t: explain/dispatch.ts's alias).
// With RoPE inside the cache (rope.positions "cache") the keys turn by their place in the cache at
// each step: no single rotated k to read, so those cells are not explained.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells } from './common';
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

export default function explain(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  const inCache = (scenario.rope as { positions?: unknown } | undefined)?.positions === 'cache';
  switch (field) {
    case 'allowed': return explainAllowed(c, spec(c), field, index, lang);
    case 'weights': return inCache ? null : explainWeight(c, spec(c), field, index, lang);
    case 'context': return inCache ? null : explainContext(c, spec(c), field, index, lang);
    default: return null;
  }
}
