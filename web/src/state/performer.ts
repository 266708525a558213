// The Performer sweep (the note: orthogonal random features lower the estimate's variance): the
// current q, k, v through FAVOR+ for m in {2, ..., 64} random features, 20 seeds each, with iid
// features, orthogonal ones, and orthogonal ones with quantile norms; each run's max_abs_error is
// the core's, and the page averages them over the seeds. No DOM.
import type { Scenario } from '../engine/compute';
import type { BatchJob, BatchValue } from '../engine/batch';
import { clone } from '../format';
import { dims } from './scenario';

export const SWEEP_M: readonly number[] = [2, 4, 8, 16, 32, 64];
export const SWEEP_SEEDS = 20;
/** The seed counts the view offers (more seeds: steadier means, a longer sweep). */
export const SWEEP_SEED_CHOICES: readonly number[] = [20, 50, 100];

export const FEATURE_KINDS = [
  { kind: 'iid', fields: { orthogonal: false, norms: 'chi' } },
  { kind: 'orthogonal', fields: { orthogonal: true, norms: 'chi' } },
  { kind: 'quantile', fields: { orthogonal: true, norms: 'quantile' } },
] as const;
export type FeatureKind = (typeof FEATURE_KINDS)[number]['kind'];

export interface SweepPoint { kind: FeatureKind; m: number; seed: number }

/** What the sweep depends on: a new sweep is due when it changes. */
export function sweepSignature(s: Scenario, seeds = SWEEP_SEEDS): string {
  return JSON.stringify([s.q, s.k, s.v, s.scale, s.mask, s.dtype, s.seed ?? 0, seeds]);
}

/** Whether the sweep is small enough to start by itself (it always can be started by hand). */
export function sweepIsSmall(s: Scenario): boolean {
  const d = dims(s);
  return d.B * d.H * Math.max(d.L_Q, d.L_K) * Math.max(d.E, d.D) <= 4096;
}

/** The batch: seeds seed0, seed0 + 1, ..., drawn by the core (a given projection is dropped). */
export function sweepJob(s: Scenario, seeds = SWEEP_SEEDS): { job: BatchJob; points: SweepPoint[] } {
  const base = clone(s);
  for (const key of ['projection', 'num_features', 'orthogonal', 'norms', 'seed']) delete base[key];
  base.algorithm = 'performer';
  base.trace = 'full'; // max_abs_error comes with the full trace (its exact_context)
  const seed0 = Number(s.seed ?? 0);
  const points: SweepPoint[] = [];
  const variants: Scenario[] = [];
  for (const { kind, fields } of FEATURE_KINDS) {
    for (const m of SWEEP_M) {
      for (let i = 0; i < seeds; i++) {
        points.push({ kind, m, seed: seed0 + i });
        variants.push({ ...fields, num_features: m, seed: seed0 + i });
      }
    }
  }
  return { job: { base, variants, fields: ['max_abs_error'] }, points };
}

export interface CurvePoint {
  m: number;
  /** Mean and standard deviation over the seeds of the trace's max_abs_error. */
  mean: number;
  sd: number;
  runs: number;
}
export interface SweepCurve { kind: FeatureKind; points: CurvePoint[] }

/** The errors averaged over seeds, one curve per feature kind (runs the core refused are left out). */
export function sweepCurves(points: readonly SweepPoint[], values: readonly BatchValue[]): { curves: SweepCurve[]; failed: number } {
  let failed = 0;
  const errors = new Map<string, number[]>();
  points.forEach((p, i) => {
    const v = values[i];
    const e = v?.ok ? v.fields.max_abs_error : undefined;
    if (typeof e !== 'number' || !Number.isFinite(e)) { failed++; return; }
    const key = `${p.kind}/${p.m}`;
    errors.set(key, [...(errors.get(key) ?? []), e]);
  });
  const curves = FEATURE_KINDS.map(({ kind }) => ({ kind, points: SWEEP_M.flatMap((m) => {
    const list = errors.get(`${kind}/${m}`) ?? [];
    if (!list.length) return [];
    const mean = list.reduce((a, x) => a + x, 0) / list.length;
    const sd = Math.sqrt(list.reduce((a, x) => a + (x - mean) ** 2, 0) / list.length);
    return [{ m, mean, sd, runs: list.length }];
  }) }));
  return { curves, failed };
}

/** The first core error of a batch, if every run failed the same way. */
export function firstError(values: readonly BatchValue[]): string | null {
  const bad = values.find((v) => !v.ok);
  return bad && !bad.ok ? bad.error : null;
}
