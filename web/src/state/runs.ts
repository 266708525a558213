// The runs of one Session off the main thread (no DOM): the Performer sweep's batches
// (worker/sweep.ts), a training (bahdanau with `train`) and a run expected to be long
// (state/long.ts), both in the worker (worker/background.ts). Each keeps its state for the views
// (progress, mode, status) and can be cancelled; a training's or long run's outcome is handed back
// to the Session, which shows it as it shows a run of its own.
import { after, isCancelled } from '../worker/cancel';
import type { Estimate, Outcome, Scenario } from '../engine/compute';
import type { BatchHandle, BatchJob, Progress, SweepMode } from '../worker/sweep';
import type { BackgroundHandle, BackgroundMode, BackgroundResult, BackgroundRunner } from '../worker/background';
import { SWEEP_SEEDS, firstError, sweepCurves, sweepJob, sweepSignature, type SweepCurve } from './performer';
import { newTrainState, trains, type TrainState } from './train';
import { dims } from './scenario';
import { isLongRun } from './long';

/** Runs a batch of scenarios (off the main thread when it can): worker/sweep.ts's runBatch. */
export type Sweeper = (job: BatchJob, onProgress: Progress) => BatchHandle;

/** The modules that run off the main thread (worker/sweep.ts, worker/background.ts), loaded when
 * their first run starts (lazy chunks). */
export interface Runners {
  sweep: () => Promise<{ runBatch: Sweeper }>;
  background: () => Promise<{ runInBackground: BackgroundRunner }>;
}

/** The Performer sweep: its progress, then the errors averaged over seeds. */
export interface SweepState {
  /** The inputs it is for (sweepSignature). */
  signature: string;
  status: 'running' | 'done' | 'cancelled' | 'failed';
  done: number;
  total: number;
  mode: SweepMode | null;
  curves: SweepCurve[] | null;
  /** Runs the core refused. */
  failed: number;
  /** Time in the core, and from start to the last result. */
  ms: number | null;
  wallMs: number | null;
  message: string | null;
  /** E of the inputs (orthogonal blocks are E rows). */
  E: number;
  /** Seeds per (kind, m). */
  seeds: number;
}

/** A run expected to be long (state/long.ts), in a worker: its status line in the results' head. */
export interface LongRunState {
  status: 'running' | 'done' | 'cancelled' | 'failed';
  /** Where it runs: null until the worker started (or could not). */
  mode: BackgroundMode | null;
  L_Q: number;
  L_K: number;
  /** From the start to the trace (done). */
  ms: number | null;
  message: string | null;
  /** The fraction of its query rows done (a split run's blocks, worker/split.ts), and how many
   * workers compute it; null until known. */
  fraction?: number | null;
  workers?: number | null;
}

/** How the Session shows an outcome: its trace and the runs beside it (made through `run`). */
export type Show = (outcome: Outcome, run: (s: Scenario) => Outcome) => void;

const notRun = (error = 'not run'): Outcome => ({ ok: false, error, field: '' });

/** Whether two scenarios of runs beside a trace are the same run (made from the same scenario: its
 * tensors are the same arrays). */
function sameRun(a: Scenario, b: Scenario): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key] ||
    (typeof a[key] === 'object' && JSON.stringify(a[key]) === JSON.stringify(b[key])));
}

export class BackgroundRuns {
  /** The Performer sweep, once started, and the seeds per point it runs with. */
  sweep: SweepState | null = null;
  sweepSeeds = SWEEP_SEEDS;
  /** Runs one scenario off the main thread (worker/background.ts); null: everything runs on the page. */
  background: BackgroundRunner | null = null;
  training: TrainState | null = null;
  longRun: LongRunState | null = null;
  /** After each epoch's progress or the worker's start, and at the end (final: the trace or the
   * status changed). */
  onBackground: ((final: boolean) => void) | null = null;
  readonly #sweeper: Sweeper | null;
  #sweepHandle: BatchHandle | null = null;
  /** The training or long run under way (one at a time: a new scenario cancels it). */
  #backgroundHandle: BackgroundHandle | null = null;
  /** Resolves when no long run is under way (`settled`); a new one replaces it. */
  #longRunDone: Promise<void> = Promise.resolve();

  /** Without runners, nothing runs off the main thread (no sweep; training and long runs on the page). */
  constructor(runners: Runners | null) {
    this.#sweeper = runners && ((job, onProgress) => after(runners.sweep(), (m) => m.runBatch(job, onProgress)));
    // once its chunk is loaded, a run starts in the call (a split run of draws is posted before the page draws)
    let loaded: { runInBackground: BackgroundRunner } | null = null;
    this.background = runners && ((request, onProgress, onMode) => (loaded ? loaded.runInBackground(request, onProgress, onMode)
      : after(runners.background().then((m) => (loaded = m)), (m) => m.runInBackground(request, onProgress, onMode))));
  }

  // ---- the Performer sweep ----

  /** Whether the sweep shown is for these inputs and the seed count. */
  sweepCurrent(s: Scenario): boolean {
    return this.sweep?.signature === sweepSignature(s, this.sweepSeeds);
  }

  /** Starts the sweep on `s` (cancelling one under way); `onChange` after each progress report
   * and at the end. */
  startSweep(s: Scenario, onChange: () => void): void {
    if (!this.#sweeper) return;
    this.cancelSweep();
    const seeds = this.sweepSeeds;
    const { job, points } = sweepJob(s, seeds);
    const state: SweepState = { signature: sweepSignature(s, seeds), status: 'running', done: 0, total: points.length, mode: null,
      curves: null, failed: 0, ms: null, wallMs: null, message: null, E: dims(s).E, seeds };
    this.sweep = state;
    const start = performance.now();
    const handle = this.#sweeper(job, (done, total, mode) => {
      if (this.sweep !== state) return;
      Object.assign(state, { done, total, mode });
      onChange();
    });
    this.#sweepHandle = handle;
    handle.done.then((result) => {
      if (this.sweep !== state) return;
      const { curves, failed } = sweepCurves(points, result.values);
      Object.assign(state, { status: failed === points.length ? 'failed' : 'done', done: points.length, mode: result.mode,
        curves, failed, ms: result.ms, wallMs: performance.now() - start,
        message: failed ? firstError(result.values) : null });
      this.#sweepHandle = null;
      onChange();
    }, (e: unknown) => {
      if (this.sweep !== state) return;
      const cancelled = isCancelled(e);
      Object.assign(state, { status: cancelled ? 'cancelled' : 'failed', message: cancelled ? null : String((e as Error)?.message ?? e) });
      this.#sweepHandle = null;
      onChange();
    });
  }

  cancelSweep(): void {
    const handle = this.#sweepHandle;
    this.#sweepHandle = null;
    if (this.sweep?.status === 'running') this.sweep.status = 'cancelled';
    handle?.cancel();
  }

  // ---- one scenario in the worker: a training (issue 9), a long run ----

  /** Whether `s` runs here: a training, or a run expected to be long (the runs beside its trace,
   * `beside()`, with it); else what runs here is stopped and the Session runs `s` itself. */
  take(s: Scenario, show: Show, beside: () => Scenario[], estimate: (s: Scenario) => Estimate | null): boolean {
    if (this.background && trains(s)) {
      this.startTraining(s, false, show);
      return true;
    }
    this.cancel();
    // the run and the runs beside it (asked for once), each with the core's estimate (state/long.ts)
    const runs = this.background ? [s, ...beside()] : [];
    if (runs.length && isLongRun(runs.map((scenario) => ({ scenario, estimate: estimate(scenario) })))) {
      this.#startLongRun(s, runs.slice(1), show);
      return true;
    }
    this.longRun = null;
    return false;
  }

  /** Resolves once no long run is under way (the latest one's trace shown, or it ended). */
  async settled(): Promise<void> {
    for (let p = this.#longRunDone; ; ) {
      await p;
      if (p === this.#longRunDone) return;
      p = this.#longRunDone;
    }
  }

  /** Stops the training or long run under way (its worker is terminated); the last good trace stays. */
  cancel(): void {
    const handle = this.#backgroundHandle;
    this.#backgroundHandle = null;
    if (this.training?.status === 'running') this.training.status = 'cancelled';
    if (this.longRun?.status === 'running') this.longRun.status = 'cancelled';
    handle?.cancel();
  }

  /** Trains `s` (cancelling what runs in the background) unless it is being or was trained. */
  startTraining(s: Scenario, force: boolean, show: Show): void {
    if (!this.background) return;
    const state = newTrainState(s);
    const same = this.training?.signature === state.signature;
    if (same && !force && (this.training!.status === 'running' || this.training!.status === 'done')) return;
    this.cancel();
    this.training = state;
    this.longRun = null;
    const start = performance.now();
    void this.#inBackground(s, [], true, () => this.training === state, (fraction, what, detail) => {
      state.fraction = fraction;
      state.what = what;
      if (typeof detail.loss === 'number') state.losses.push(detail.loss);
      if (typeof detail.epochs === 'number') state.epochs = detail.epochs;
      this.onBackground?.(false);
    }, (mode) => { state.mode = mode; this.onBackground?.(false); }, ({ outcome, mode }) => {
      Object.assign(state, { status: outcome.ok ? 'done' : 'failed', mode, fraction: 1, message: outcome.ok ? null : outcome.error });
      if (outcome.ok) state.losses = Array.isArray(outcome.trace.loss) ? (outcome.trace.loss as number[]) : state.losses;
      state.ms = performance.now() - start;
      show(outcome, () => notRun());
      this.onBackground?.(true);
    }, (cancelled, message) => {
      Object.assign(state, { status: cancelled ? 'cancelled' : 'failed', message: cancelled ? null : message });
      this.onBackground?.(true);
    });
  }

  /** A run expected to be long: in the worker with the runs beside its trace (`asked`); the last
   * good trace stays (stale) meanwhile. The Session asks for the same runs again, in the same
   * order, as it shows the outcome: each takes its outcome from the worker's. */
  #startLongRun(s: Scenario, asked: Scenario[], show: Show): void {
    const { L_Q, L_K } = dims(s);
    const state: LongRunState = { status: 'running', mode: null, L_Q, L_K, ms: null, message: null };
    this.longRun = state;
    const start = performance.now();
    this.#longRunDone = this.#inBackground(s, asked, false, () => this.longRun === state, (fraction, _what, detail) => {
      state.fraction = fraction;
      state.workers = detail.workers as number;
      this.onBackground?.(false);
    }, (mode) => { state.mode = mode; this.onBackground?.(false); }, ({ outcome, beside, mode, workers }) => {
        Object.assign(state, { status: outcome.ok ? 'done' : 'failed', mode, ms: performance.now() - start, workers: workers ?? 1,
          message: outcome.ok ? null : outcome.error });
        let i = 0;
        show(outcome, (x) => (i < asked.length && sameRun(x, asked[i]) ? beside[i++] : undefined) ?? notRun('not run in the background'));
        this.onBackground?.(true);
      }, (cancelled, message) => {
        Object.assign(state, { status: cancelled ? 'cancelled' : 'failed', message: cancelled ? null : message });
        this.onBackground?.(true);
      });
  }

  /** Hands the scenario and the runs beside it to the background runner (ending what ran there);
   * `onDone` with the result, `onStop` if it was cancelled or failed, unless something newer
   * replaced it (`current()` false). */
  #inBackground(scenario: Scenario, beside: Scenario[], progress: boolean, current: () => boolean,
    onProgress: Parameters<BackgroundRunner>[1], onMode: (mode: BackgroundMode) => void,
    onDone: (result: BackgroundResult) => void, onStop: (cancelled: boolean, message: string) => void): Promise<void> {
    this.#backgroundHandle?.cancel(); // the callers have marked it cancelled
    const handle = this.background!({ scenario, beside, progress }, (fraction, what, detail) => {
      if (current()) onProgress(fraction, what, detail);
    }, (mode) => { if (current()) onMode(mode); });
    this.#backgroundHandle = handle;
    return handle.done.then((result) => {
      if (!current()) return;
      this.#backgroundHandle = null;
      onDone(result);
    }, (e: unknown) => {
      if (!current()) return;
      this.#backgroundHandle = null;
      onStop(isCancelled(e), String((e as Error)?.message ?? e));
    });
  }
}
