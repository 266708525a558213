// What the Web Worker (worker/worker.ts) runs, shared with its main-thread fallbacks: many runs of
// the core on variants of one scenario, keeping a few scalar fields of each trace (the sweep,
// worker/sweep.ts); one scenario and the runs beside it (a training, a long run:
// worker/background.ts). No DOM. Every number is the core's; nothing here computes one.
import type { Engine, Outcome, RunProgress, Scenario } from './compute';
import { runTyped } from './typed';

/** A batch: each variant's fields are written over `base`, run, and `fields` of its trace kept. */
export interface BatchJob {
  base: Scenario;
  variants: Scenario[];
  /** Trace fields to keep (scalars: max_abs_error, cost...). */
  fields: string[];
}

/** One variant's kept fields, or the core's message. */
export type BatchValue = { ok: true; fields: Record<string, unknown> } | { ok: false; error: string; field: string };

/** Runs variant i of the job. */
export function runVariant(engine: Engine, job: BatchJob, i: number): BatchValue {
  const out = engine.run({ ...job.base, ...job.variants[i] });
  if (!out.ok) return { ok: false, error: out.error, field: out.field };
  const fields: Record<string, unknown> = {};
  for (const f of job.fields) fields[f] = out.trace[f];
  return { ok: true, fields };
}

export type BackgroundMode = 'worker' | 'main';
/** The scenario and the runs beside its trace; `progress`: report training epochs. */
export interface BackgroundRequest { scenario: Scenario; beside?: Scenario[]; progress?: boolean }
/** The outcomes of the scenario and of each run beside it (none when the scenario failed); ms: time in the core;
 * workers: how many computed it (a split run, worker/split.ts). */
export interface BackgroundResult { outcome: Outcome; beside: Outcome[]; ms: number; mode: BackgroundMode; workers?: number }

/** Runs a request where it is (the worker, or the page's fallback): q, k and v typed (typed.ts). */
export function runRequest(engine: Engine, request: BackgroundRequest, onProgress: RunProgress): Omit<BackgroundResult, 'mode'> {
  const start = performance.now();
  const outcome = runTyped(engine, request.scenario, request.progress === true ? onProgress : undefined);
  const beside = outcome.ok ? (request.beside ?? []).map((s) => runTyped(engine, s)) : [];
  return { outcome, beside, ms: performance.now() - start };
}
