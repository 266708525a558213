// What the Web Worker (sweep-worker.ts) runs, shared with its main-thread fallbacks: many runs of
// the core on variants of one scenario, keeping a few scalar fields of each trace (the sweep,
// sweep.ts); one scenario and the runs beside it (a training, a long run: background.ts). The
// messages between the page and the worker. No DOM. Every number is the core's; nothing here
// computes one.
import type { Engine, Outcome, RunProgress, Scenario } from './compute';
import { untyped } from './typed';

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
/** The outcomes of the scenario and of each run beside it (none when the scenario failed); ms: time in the core. */
export interface BackgroundResult { outcome: Outcome; beside: Outcome[]; ms: number; mode: BackgroundMode }

/** Runs a request where it is (the worker, or the page's fallback): q, k and v typed (typed.ts);
 * a run that fails is run again as written, so every error is the core's own. */
export function runRequest(engine: Engine, request: BackgroundRequest, onProgress: RunProgress): Omit<BackgroundResult, 'mode'> {
  const start = performance.now();
  const one = (s: Scenario, progress: boolean): Outcome => {
    const out = progress ? engine.runWithProgress(s, onProgress) : engine.run(s);
    const plain = out.ok ? s : untyped(s);
    return plain === s ? out : (progress ? engine.runWithProgress(plain, onProgress) : engine.run(plain));
  };
  const outcome = one(request.scenario, request.progress === true);
  const beside = outcome.ok ? (request.beside ?? []).map((s) => one(s, false)) : [];
  return { outcome, beside, ms: performance.now() - start };
}

/** Messages between the page and the worker. */
export type ToWorker = { type: 'run'; id: number; job: BatchJob }
  | { type: 'scenario'; id: number; request: BackgroundRequest };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'scenarioProgress'; id: number; fraction: number; what: string; detail: Record<string, unknown> }
  | { type: 'scenarioDone'; id: number; outcome: Outcome; beside: Outcome[]; ms: number }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'done'; id: number; values: BatchValue[]; ms: number }
  | { type: 'failed'; id?: number; message: string };
