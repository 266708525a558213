// Which runs go to a background worker (SPEC §1: long work never freezes the page): the work of a
// run from the core's estimate of it (engine.estimate: its flops and the float numbers of its
// trace, from the scenario's shapes, nothing run), in units of about one multiply-add of the core.
// Calibrated against full attention in headless Chromium (bench/long_runs.mjs, docs/performance.md,
// "Long runs off the main thread"): the core does about 3 units per ns; a number of a trace "full"
// costs about 230 units on the main thread (the core writes it, the boundary makes nested arrays
// of it), and full attention's L_Q x L_K pictures carry 3 numbers per pair of which the estimate
// counts the 2 floats (scores, weights; `allowed` is booleans). A run above LONG_RUN_UNITS (about
// 30 ms) is long. No DOM.
import type { Estimate, Scenario } from '../engine/compute';

/** A run estimated above this many units takes more than about 30 ms on the main thread. */
export const LONG_RUN_UNITS = 1e8;

/** Units per float number of a trace "full": 230 per number measured, 3 numbers per 2 floats. */
const PER_NUMBER = 345;

/** The estimated work of one run of `s` from its estimate: its multiply-adds (the exact comparison
 * of an approximation's trace "full" included) and the numbers its trace carries. */
export function runUnits(s: Scenario, e: Estimate): number {
  const exact = Number(e.sizes.exact_flops ?? 0);
  return (e.cost.flops + exact) / 2 + (s.trace === 'context' ? 0 : e.numbers * PER_NUMBER);
}

/** A run and the core's estimate of it (null: no module estimates it yet, or it is invalid). */
export interface EstimatedRun { scenario: Scenario; estimate: Estimate | null }

/** Whether a recompute of `s` (its run and `beside`, the runs the page shows beside its trace,
 * each with its estimate) is expected to take more than about 30 ms: it runs in a worker. A run
 * the core cannot estimate (an invalid scenario: its error comes at once) counts for nothing. */
export function isLongRun(runs: EstimatedRun[]): boolean {
  let units = 0;
  for (const { scenario, estimate } of runs) if (estimate) units += runUnits(scenario, estimate);
  return units > LONG_RUN_UNITS;
}
