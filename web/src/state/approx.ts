// Exact attention beside an approximation (SPEC §3: every approximate algorithm reports
// exact_context and max_abs_error): the trace carries the exact context, and for the maps of
// weights the page runs full attention on the same inputs once more. No DOM.
import type { Scenario, Trace } from '../engine/compute';
import { dims, get } from './scenario';

/** Whether a trace can be shown beside exact attention: it carries exact_context and max_abs_error. */
export const hasExact = (trace: Trace | null) =>
  trace !== null && trace.exact_context !== undefined && typeof trace.max_abs_error === 'number';

/** Full softmax attention on the same inputs: q, k (lsh: the queries), v, the scale where the
 * algorithm reads one (else the default 1/√E, the softmax that linear and FAVOR+ approximate),
 * and the causal mask. */
export function exactScenario(s: Scenario, readsScale: boolean): Scenario {
  const out: Scenario = { algorithm: 'full', q: s.q, k: s.k ?? s.q, v: s.v };
  if (readsScale && s.scale !== undefined) out.scale = s.scale;
  if (get(s, 'mask.kind') === 'causal' || get(s, 'mask.causal') === true) out.mask = { kind: 'causal' };
  if (s.dtype !== undefined) out.dtype = s.dtype;
  return out;
}

/** Small enough to draw L_Q x L_K weights: the exact run is made only then. */
export function exactIsSmall(s: Scenario): boolean {
  const d = dims(s);
  return d.B * d.H * d.L_Q * d.L_K <= 65536;
}

/** flash's scenario as full attention: the same inputs, mask and scale, without the block sizes. */
export function flashFull(s: Scenario): Scenario {
  const out: Scenario = { ...s, algorithm: 'full' };
  delete out.block_q;
  delete out.block_k;
  return out;
}
