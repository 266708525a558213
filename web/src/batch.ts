// Many runs of the core on variants of one scenario, keeping a few scalar fields of each trace: the
// loop shared by the sweep's Web Worker (sweep-worker.ts) and its main-thread fallback (sweep.ts).
// No DOM. Every number is the core's; nothing here computes one.
import type { Engine, Outcome, Scenario } from './compute';

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

/** Messages between the page and the worker. */
export type ToWorker = { type: 'run'; id: number; job: BatchJob }
  | { type: 'train'; id: number; scenario: Scenario };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'trainProgress'; id: number; fraction: number; what: string; detail: Record<string, unknown> }
  | { type: 'trained'; id: number; outcome: Outcome; ms: number }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'done'; id: number; values: BatchValue[]; ms: number }
  | { type: 'failed'; id?: number; message: string };
