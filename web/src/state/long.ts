// Which runs go to a background worker (SPEC §1: long work never freezes the page): an estimate of
// a run's work from the scenario alone (SPEC §2's shapes and the algorithm), in units of about one
// multiply-add of the core, plus what the trace carries. Calibrated against full attention in
// headless Chromium (bench/long_runs.mjs, docs/performance.md, "Long runs off the main thread"):
// the core does about 3 units per ns; a number of an L_Q x L_K field of a trace "full" (scores,
// allowed, weights, ...) costs about 230 units on the main thread (the core writes it, the boundary
// makes nested arrays of it). A run above LONG_RUN_UNITS (about 30 ms) is long. No DOM.
import type { Scenario } from '../engine/compute';
import { shapeOf } from '../format';
import { WITH_EXACT_WEIGHTS, exactIsSmall } from './approx';
import { dims, get } from './scenario';
import { isSparse } from './sparse';

/** A run estimated above this many units takes more than about 30 ms on the main thread. */
export const LONG_RUN_UNITS = 1e8;

/** Units per number of an L_Q x L_K (or larger) field of a trace "full". */
const PER_NUMBER = 230;

const num = (s: Scenario, key: string, fallback: number): number => {
  const x = Number(get(s, key));
  return Number.isFinite(x) && x > 0 ? x : fallback;
};
const lnCeil = (L: number) => Math.max(1, Math.ceil(Math.log(L)));

/** The estimated work of one run of `s` (the runs the page makes beside its trace not included). */
export function runUnits(s: Scenario): number {
  const { B, H, L_Q, L_K, E, D } = dims(s);
  const full = s.trace !== 'context';
  const bh = B * H;
  const pairs = bh * L_Q * L_K;
  const exact = pairs * (E + D); // softmax attention: the q·k products and weights·v
  const out = (numbers: number) => (full ? numbers * PER_NUMBER : 0);
  switch (String(s.algorithm)) {
    case 'full':
      return exact + out(3 * pairs);
    case 'flash': { // the running max, sum and unnormalised output after each key block
      const blocks = Math.ceil(L_K / num(s, 'block_k', 2));
      return exact + out(3 * pairs + bh * blocks * L_Q * (D + 2));
    }
    case 'prob': {
      const U = Math.min(num(s, 'factor', 5) * lnCeil(L_K), L_K), u = Math.min(num(s, 'factor', 5) * lnCeil(L_Q), L_Q);
      // the exact comparison of trace "full" is softmax attention on every query
      return bh * (L_Q * U * E + u * L_K * (E + D)) + (full ? exact : 0) + out(bh * L_Q * U + (s.output_attention ? pairs : u * L_K * 2));
    }
    case 'linear':
      return bh * (L_Q + L_K) * E * D + (full ? exact : 0) + out(pairs);
    case 'performer': {
      const m = num(s, 'num_features', E);
      return bh * ((L_Q + L_K) * m * E + (L_Q + L_K) * m * D) + (full ? exact : 0) + out(bh * (L_Q + L_K) * m);
    }
    case 'linformer': {
      const k = num(s, 'proj_len', 4);
      return bh * k * (L_K + L_Q) * (E + D) + (full ? exact : 0) + out(2 * bh * L_Q * k);
    }
    case 'lsh': {
      const rounds = num(s, 'n_hashes', 1), buckets = num(s, 'n_buckets', 4);
      return rounds * bh * L_Q * (E * buckets / 2 + (L_Q / buckets) * (E + D)) + (full ? exact : 0) + out(pairs * (rounds + 1));
    }
    case 'pooling': {
      const kernel = num(s, 'kernel', 2), pooled = Math.max(1, Math.floor((L_K - kernel) / num(s, 'stride', kernel)) + 1);
      return bh * (L_Q * pooled + L_K) * (E + D) + (full ? exact : 0) + out(2 * bh * L_Q * pooled);
    }
    case 'additive': {
      const hidden = num(s, 'hidden', shapeOf(get(s, 'weights.w_v'))[0] ?? 8);
      return pairs * (3 * hidden + D) + out(pairs * (hidden + 3));
    }
    case 'multihead': {
      const [Bq = 1, Lq = 1, dq = 1] = shapeOf(s.queries), Lk = shapeOf(s.keys)[1] ?? 1;
      const hiddens = num(s, 'num_hiddens', shapeOf(get(s, 'weights.W_q'))[0] ?? dq);
      const heads = num(s, 'num_heads', 1);
      return Bq * ((Lq + 2 * Lk) * dq * hiddens + 2 * Lq * Lk * hiddens) + out(2 * Bq * heads * Lq * Lk);
    }
    case 'nadaraya_watson': {
      const n = Math.max(shapeOf(s.x_train)[0] ?? 0, num(s, 'dataset.n_train', 50));
      const m = shapeOf(s.x_query)[0] ?? n;
      return n * m * 10 + out(n * m);
    }
    case 'positional_encoding':
      return num(s, 'num_steps', 60) * num(s, 'encoding_dim', 32) * 20;
    default: // bahdanau without training (a training always runs in the background) and the rest: small
      return exact;
  }
}

/** The estimated work of a recompute: the run and the runs the page shows beside its trace
 * (session.ts: prob's full comparison and reference, exact attention's weights, the sparse patterns). */
export function recomputeUnits(s: Scenario): number {
  const d = dims(s);
  const pairs = d.B * d.H * d.L_Q * d.L_K;
  const fullRun = pairs * (d.E + d.D) + 3 * pairs * PER_NUMBER;
  let units = runUnits(s);
  if (s.algorithm === 'prob') units += pairs * (d.E + d.D) * 2; // full attention beside it; a reference run
  if (WITH_EXACT_WEIGHTS.includes(String(s.algorithm)) && exactIsSmall(s)) units += fullRun;
  if (s.algorithm === 'flash' && exactIsSmall(s)) units += fullRun;
  if (isSparse(s) && s.trace !== 'context') units += 3 * fullRun;
  return units;
}

/** Whether a recompute of `s` is expected to take more than about 30 ms: it runs in a worker. */
export const isLongRun = (s: Scenario): boolean => recomputeUnits(s) > LONG_RUN_UNITS;
