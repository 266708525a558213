// One element's state, no DOM: the scenario and what was put aside, the latest good trace and the
// runs shown beside it, the errors (the core's by field; the page's own by control key), the
// (b, h) slice shown. Every action edits the scenario through the property table and recomputes
// with the engine; the element renders what results.
import { clone, parseNumber } from '../format';
import { isCancelled } from '../cancel';
import type { Engine, Estimate, Outcome, Scenario, Trace } from '../compute';
import { normalise, type Stash } from './props';
import { fitSamples, fullComparison, pitfallComparison, SAMPLE_SHAPE_KEYS, type PitfallComparison } from './prob';
import { dims, fitSharedKeys, get, lensDimensions, pathText, resize, set, setIn, sliceSizes, toggleAllowed, type DimName } from './scenario';
import { hashOf } from './hash';
import { WITH_EXACT_WEIGHTS, exactIsSmall, exactScenario, flashFull } from './approx';
import { SPARSE_DEFAULTS, isSparse, sparseKey, sparsePatterns, sparseSignature, type SparseParams, type SparsePatterns } from './sparse';
import { SWEEP_SEEDS, firstError, sweepCurves, sweepIsSmall, sweepJob, sweepSignature, type SweepCurve } from './performer';
import { traits } from './algorithms';
import { runTyped } from './typed';
import type { BatchHandle, BatchJob, Progress, SweepMode } from '../sweep';
import type { BackgroundHandle, BackgroundMode, BackgroundResult, BackgroundRunner } from '../background';
import { newTrainState, trains, type TrainState } from './chapter';
import { dims as sizes } from './scenario';
import { isLongRun } from './long';

/** Runs a batch of scenarios (off the main thread when it can): sweep.ts's runBatch. */
export type Sweeper = (job: BatchJob, onProgress: Progress) => BatchHandle;

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
}

/** The side runs beside a trace (prob's full comparison and reference, exact attention, the sparse patterns). */
interface Beside { full: Outcome | null; reference: PitfallComparison | null; exact: Outcome | null; sparse: SparsePatterns | null;
  sparseSignature: string | null }

/** An error and the path of the field (or the key of the control) it is about. */
export interface FieldError { field: string; message: string }

/** A copy of a scenario to edit one number of: its objects (mask, train, ...) copied, its arrays
 * shared (an edit replaces an array along the path it changes, setIn, and never writes into one;
 * the tensors that did not change keep their typed copies, typed.ts). */
function editCopy(s: Scenario): Scenario {
  const out: Scenario = {};
  for (const [key, value] of Object.entries(s)) {
    out[key] = value !== null && typeof value === 'object' && !Array.isArray(value) ? clone(value) : value;
  }
  return out;
}

/** Whether two scenarios of runs beside a trace are the same run (made from the same scenario: its
 * tensors are the same arrays). */
function sameRun(a: Scenario, b: Scenario): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key] ||
    (typeof a[key] === 'object' && JSON.stringify(a[key]) === JSON.stringify(b[key])));
}

export class Session {
  scenario: Scenario = {};
  /** The preset the scenario came from ('' for none), and whether it was edited since. */
  preset = '';
  modified = false;
  /** The latest good trace: it stays while the scenario has an error. */
  trace: Trace | null = null;
  /** The core's error about the current scenario. */
  error: FieldError | null = null;
  /** What the page could not read, by control key ("k[0][2][0][0]"): never sent to the core. */
  readonly invalid = new Map<string, string>();
  /** Scenario JSON (editor, attribute, URL) or a preset name that could not be used. */
  jsonError: string | null = null;
  /** Beside a prob trace: full attention on the same inputs; the reference's run when a pitfall switch is changed. */
  full: Outcome | null = null;
  reference: PitfallComparison | null = null;
  /** Beside an approximate algorithm: full attention on the same inputs (for its weights). */
  exact: Outcome | null = null;
  /** Beside `full` with a local, atrous or strided mask: the three patterns on the same inputs. */
  sparse: SparsePatterns | null = null;
  /** The flash view's key block (null: the last, where the context is final). */
  flashStep: number | null = null;
  /** The sparse view's query whose two-layer reach is drawn (null: the view's choice). */
  sparseQuery: number | null = null;
  /** The Performer sweep, once started, and the seeds per point it runs with. */
  sweep: SweepState | null = null;
  sweepSeeds = SWEEP_SEEDS;
  #sweepHandle: BatchHandle | null = null;
  /** The sparse view's w and k where the scenario's mask has no such field. */
  #sparseKept: SparseParams = { ...SPARSE_DEFAULTS };
  readonly #sweeper: Sweeper | null;
  /** Runs off the main thread (background.ts): training (bahdanau with `train`) and a run expected
   * to be long (state/long.ts). `onBackground(final)` after each epoch's progress or the worker's
   * start, and at the end (final: the trace or the status changed). */
  background: BackgroundRunner | null = null;
  training: TrainState | null = null;
  longRun: LongRunState | null = null;
  onBackground: ((final: boolean) => void) | null = null;
  /** The training or long run under way (one at a time: a new scenario cancels it). */
  #backgroundHandle: BackgroundHandle | null = null;
  /** Resolves when no long run is under way (`settled`); a new one replaces it. */
  #longRunDone: Promise<void> = Promise.resolve();
  /** The core's estimate of the scenario's run (its cost, its trace's numbers), made at each recompute. */
  estimate: Estimate | null = null;
  /** The (b, h) slice shown. */
  b = 0;
  h = 0;
  /** What normalise() and fitSamples() put aside, to bring back when it applies (fits) again. */
  #stash: Stash = {};
  readonly #engine: Engine;
  readonly #onTrace: (trace: Trace) => void;

  constructor(engine: Engine, onTrace: (trace: Trace) => void, sweeper: Sweeper | null = null) {
    this.#engine = engine;
    this.#onTrace = onTrace;
    this.#sweeper = sweeper;
  }

  /** Every error to show: the page's own and the core's, each with its field; the JSON's under "json". */
  errors(): FieldError[] {
    const list = [...this.invalid].map(([field, message]) => ({ field, message }));
    if (this.error) list.push(this.error);
    if (this.jsonError) list.push({ field: 'json', message: this.jsonError });
    return list;
  }

  /** Whether the results shown are the last good ones of an earlier scenario (an error, or a long
   * run under way, cancelled or failed). */
  get stale(): boolean {
    return this.trace !== null && (this.errors().length > 0 || (this.longRun !== null && this.longRun.status !== 'done'));
  }

  /** Resolves once no long run is under way (the latest one's trace shown, or it ended). */
  async longRunSettled(): Promise<void> {
    for (let p = this.#longRunDone; ; ) {
      await p;
      if (p === this.#longRunDone) return;
      p = this.#longRunDone;
    }
  }

  /** The URL hash for the scenario, or its JSON to compress (hash.ts). */
  get hash(): ReturnType<typeof hashOf> {
    return hashOf(this.preset, this.modified, this.scenario);
  }

  setInvalid(key: string, message: string | null): void {
    if (message) this.invalid.set(key, message);
    else this.invalid.delete(key);
  }

  // ---- whole scenarios ----

  /** A whole new scenario (preset, setScenario, attribute, URL): nothing put aside carries over. */
  replace(scenario: Scenario, preset = ''): void {
    this.#pendingPreset = null;
    this.#stash = {};
    this.preset = preset;
    this.modified = false;
    this.b = 0;
    this.h = 0;
    this.scenario = scenario;
    this.invalid.clear();
    this.jsonError = null;
    this.#recompute();
  }

  /** Returns false (and names the problem) when the core has no such preset. */
  loadPreset(name: string): boolean {
    const preset = this.#engine.presets().find((p) => p.name === name);
    if (!preset) {
      this.jsonError = `preset: no preset named "${name}"`;
      return false;
    }
    if (!preset.scenario) {
      // its scenario comes with the whole WASM module (compute.ts: the first load carries only the
      // presets the first-load module runs); the last good trace stays meanwhile
      this.#pendingPreset = name;
      this.#awaitWhole();
      return true;
    }
    this.replace(clone(preset.scenario), name);
    return true;
  }

  /** Scenario JSON: a whole new scenario, or (from the JSON editor) an edit of this one. Returns
   * false (and names the problem) when it is not a JSON object. */
  fromText(text: string, asEdit = false): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      this.jsonError = `scenario: invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
      return false;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      this.jsonError = 'scenario: expected an object';
      return false;
    }
    if (asEdit) {
      this.jsonError = null;
      this.edit(parsed as Scenario);
    } else {
      this.replace(parsed as Scenario);
    }
    return true;
  }

  // ---- edits ----

  /** An edit: normalised against the current scenario (what stops applying is put aside, what
   * starts to apply comes back), sample_index fitted when asked, recomputed. */
  edit(next: Scenario, fitSampleIndex = false): void {
    this.#pendingPreset = null;
    const s = normalise(next, this.#stash, this.scenario);
    if (s.algorithm !== this.scenario.algorithm) fitSharedKeys(s);
    if (fitSampleIndex) fitSamples(s, this.#stash, (x) => this.#engine.estimate(x));
    this.scenario = s;
    this.modified = true;
    this.#recompute();
  }

  setProp(key: string, value: unknown): void {
    const next = clone(this.scenario);
    set(next, key, value);
    this.edit(next, SAMPLE_SHAPE_KEYS.includes(key));
  }

  /** ProbAttention's Resample: drops sample_index (and one put aside), seed + 1: the core draws. */
  resample(): void {
    const next = clone(this.scenario);
    delete next.sample_index;
    delete this.#stash.sample_index;
    next.seed = (Number(next.seed) || 0) + 1;
    this.edit(next);
  }

  /** A size of the size bar; a change of L or H drops sample_index (the core draws a new one). */
  resize(dim: DimName, n: number): void {
    if (dim === 'B' || dim === 'H' || dim === 'L_Q' || dim === 'L_K') delete this.#stash.sample_index;
    this.edit(resize(this.scenario, dim, n));
  }

  /** Text typed into a tensor's cell. Returns false when it is no number (kept as the cell's error). */
  editCell(name: string, path: number[], text: string): boolean {
    return this.#typed(pathText(name, path), text, false, (s, n) => { s[name] = setIn(s[name], path, n); });
  }

  /** Text typed into a valid_lens cell (an integer ≥ 0). */
  editLens(path: number[], text: string): boolean {
    return this.#typed(pathText('mask.valid_lens', path), text, true,
      (s, n) => set(s, 'mask.valid_lens', setIn(get(s, 'mask.valid_lens'), path, n)));
  }

  toggleAllowed(i: number, j: number): void {
    this.edit(toggleAllowed(this.scenario, i, j));
  }

  /** valid_lens one per batch item (1-D) or one per query (2-D). */
  lensPerQuery(twoD: boolean): void {
    this.edit(lensDimensions(this.scenario, twoD));
  }

  /** Selects the (b, h) slice shown. */
  select(b: number, h: number): void {
    this.b = b;
    this.h = h;
  }

  // ---- the sparse patterns' view ----

  /** The view's window w or dilation k: the mask's own field when it has one (an edit of the
   * scenario), else kept by the view (only the patterns beside are run again). */
  setSparseParam(param: keyof SparseParams, value: number): void {
    const key = sparseKey(this.scenario, param);
    if (key) {
      this.setProp(key, value);
      return;
    }
    this.#sparseKept[param] = value;
    if (this.trace && isSparse(this.scenario)) {
      const { patterns, signature } = this.#sparsePatterns(this.scenario, (x) => runTyped(this.#engine, x));
      this.sparse = patterns;
      this.#sparseSignature = signature;
    }
  }

  /** The patterns beside a sparse `full` trace: run again only when what they depend on changed
   * (an edit of a value of q, k or v keeps them: the same allowed cells and costs). */
  #sparsePatterns(s: Scenario, run: (s: Scenario) => Outcome): { patterns: SparsePatterns; signature: string | null } {
    const signature = sparseSignature(s, this.#sparseKept);
    if (this.sparse && signature !== null && signature === this.#sparseSignature) return { patterns: this.sparse, signature };
    return { patterns: sparsePatterns(s, this.#sparseKept, run), signature };
  }

  #sparseSignature: string | null = null;

  selectSparseQuery(i: number): void {
    this.sparseQuery = i;
  }

  // ---- the Performer sweep ----

  /** A sweep is due: a performer trace whose inputs have no sweep yet, small enough to start by itself. */
  get sweepDue(): boolean {
    return this.trace?.algorithm === 'performer' && this.error === null && sweepIsSmall(this.scenario) &&
      this.sweep?.signature !== sweepSignature(this.scenario, this.sweepSeeds);
  }

  /** Whether the sweep shown is for the current inputs and seed count. */
  get sweepCurrent(): boolean {
    return this.sweep?.signature === sweepSignature(this.scenario, this.sweepSeeds);
  }

  /** Starts the sweep on the current inputs (cancelling one under way); `onChange` after each
   * progress report and at the end. */
  startSweep(onChange: () => void): void {
    if (!this.#sweeper) return;
    this.cancelSweep();
    const s = this.scenario;
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

  #typed(key: string, text: string, count: boolean, apply: (s: Scenario, n: number) => void): boolean {
    const n = parseNumber(text);
    if (n === null || (count && (!Number.isInteger(n) || n < 0))) {
      this.invalid.set(key, `${key}: expected ${count ? 'an integer ≥ 0' : 'a number'}, got "${text}"`);
      return false;
    }
    this.invalid.delete(key);
    const next = editCopy(this.scenario);
    apply(next, n);
    this.edit(next);
    return true;
  }

  // ---- off the main thread: training (issue 9) and long runs; the trace arrives when the worker is done ----

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

  /** Stops the training or long run under way (its worker is terminated); the last good trace stays. */
  cancelBackground(): void {
    const handle = this.#backgroundHandle;
    this.#backgroundHandle = null;
    if (this.training?.status === 'running') this.training.status = 'cancelled';
    if (this.longRun?.status === 'running') this.longRun.status = 'cancelled';
    handle?.cancel();
  }

  /** Stops a training under way (the chapter's Cancel): as cancelBackground. */
  cancelTraining(): void {
    if (this.training?.status === 'running') this.cancelBackground();
  }

  /** Trains the scenario (cancelling what runs in the background) unless it is being or was trained. */
  startTraining(force = false): void {
    if (!this.background) return;
    const s = this.scenario;
    const state = newTrainState(s);
    const same = this.training?.signature === state.signature;
    if (same && !force && (this.training!.status === 'running' || this.training!.status === 'done')) return;
    this.cancelBackground();
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
      this.#show(outcome, () => ({ ok: false, error: 'not run', field: '' }));
      this.onBackground?.(true);
    }, (cancelled, message) => {
      Object.assign(state, { status: cancelled ? 'cancelled' : 'failed', message: cancelled ? null : message });
      this.onBackground?.(true);
    });
  }

  /** A run expected to be long: in the worker with the runs beside its trace; the last good trace
   * stays (stale) meanwhile. The runs beside are those #beside asks for when the trace is the one
   * expected (this algorithm; `allowed` at trace "full"); run again in the same order, #beside
   * takes their outcomes. */
  #startLongRun(): void {
    const s = this.scenario;
    const asked = this.#besideRuns(s);
    const { L_Q, L_K } = sizes(s);
    const state: LongRunState = { status: 'running', mode: null, L_Q, L_K, ms: null, message: null };
    this.longRun = state;
    const start = performance.now();
    this.#longRunDone = this.#inBackground(s, asked, false, () => this.longRun === state, () => {},
      (mode) => { state.mode = mode; this.onBackground?.(false); }, ({ outcome, beside, mode }) => {
        Object.assign(state, { status: outcome.ok ? 'done' : 'failed', mode, ms: performance.now() - start,
          message: outcome.ok ? null : outcome.error });
        let i = 0;
        this.#show(outcome, (x) => (i < asked.length && sameRun(x, asked[i]) ? beside[i++] : undefined) ??
          { ok: false, error: 'not run in the background', field: '' });
        this.onBackground?.(true);
      }, (cancelled, message) => {
        Object.assign(state, { status: cancelled ? 'cancelled' : 'failed', message: cancelled ? null : message });
        this.onBackground?.(true);
      });
  }

  /** The runs #beside will ask for beside a trace of `s`, when the trace is the one expected (this
   * algorithm; at trace "full", `allowed` and an approximation's exact_context). */
  #besideRuns(s: Scenario): Scenario[] {
    const asked: Scenario[] = [];
    const expected = { algorithm: String(s.algorithm), shapes: {},
      ...(s.trace === 'context' ? {} : { allowed: true, exact_context: true }) } as Trace;
    this.#beside(s, expected, (x) => { asked.push(x); return { ok: false, error: 'not run', field: '' }; });
    return asked;
  }

  /** Called when a run that waited for the whole WASM module has happened (the element redraws). */
  onLoaded: (() => void) | null = null;
  /** A preset chosen before its scenario was there (loadPreset); any other scenario cancels it. */
  #pendingPreset: string | null = null;
  #awaitingWhole = false;

  /** Once the whole module is there, the preset or the run that waited for it happens. */
  #awaitWhole(): void {
    if (this.#awaitingWhole) return;
    this.#awaitingWhole = true;
    this.#engine.whole().then(() => {
      this.#awaitingWhole = false;
      if (this.#pendingPreset !== null) this.loadPreset(this.#pendingPreset);
      else this.#recompute();
      this.onLoaded?.();
    }, (e: unknown) => {
      this.#awaitingWhole = false;
      this.error = { field: '', message: `the WASM module did not load: ${e instanceof Error ? e.message : String(e)}` };
      this.onLoaded?.();
    });
  }

  #recompute(): void {
    if (!this.#engine.has(String(this.scenario.algorithm))) {
      // the page's first-load module does not run this algorithm (compute.ts): the last good trace
      // stays until the whole module is there, then the latest scenario runs
      this.#awaitWhole();
      return;
    }
    this.estimate = this.#engine.estimate(this.scenario);
    if (this.background && trains(this.scenario)) {
      this.startTraining();
      return;
    }
    this.cancelBackground();
    if (this.background && isLongRun([{ scenario: this.scenario, estimate: this.estimate }, ...this.#besideRuns(this.scenario)
      .map((scenario) => ({ scenario, estimate: this.#engine.estimate(scenario) }))])) {
      this.#startLongRun();
      return;
    }
    this.longRun = null;
    const run = (s: Scenario) => runTyped(this.#engine, s);
    this.#show(run(this.scenario), run);
  }

  /** The outcome of the scenario's run: its trace and the runs beside it (through `run`), or its error. */
  #show(out: Outcome, run: (s: Scenario) => Outcome): void {
    if (out.ok) {
      this.error = null;
      this.trace = out.trace;
      const beside = this.#beside(this.scenario, out.trace, run);
      this.full = beside.full;
      this.reference = beside.reference;
      this.exact = beside.exact;
      this.sparse = beside.sparse;
      this.#sparseSignature = beside.sparseSignature;
    } else {
      this.error = { field: out.field, message: out.error };
    }
    const { B, H } = sliceSizes(this.scenario, this.trace);
    this.b = Math.min(this.b, Math.max(0, B - 1));
    this.h = Math.min(this.h, Math.max(0, H - 1));
    if (out.ok) this.#onTrace(out.trace);
  }

  /** The runs beside a trace of `s`, each made through `run`. */
  #beside(s: Scenario, trace: Trace, run: (s: Scenario) => Outcome): Beside {
    const prob = trace.algorithm === 'prob';
    const sparse = isSparse(s) && trace.allowed !== undefined ? this.#sparsePatterns(s, run) : null;
    return {
      full: prob ? fullComparison(s, trace, run) : null,
      reference: prob ? pitfallComparison(s, this.#stash, run) : null,
      exact: WITH_EXACT_WEIGHTS.includes(trace.algorithm) && trace.exact_weights === undefined && exactIsSmall(s)
        ? run(exactScenario(s, traits(s).scale === true))
        // flash: full attention on the very same scenario, whose context it must equal
        : trace.algorithm === 'flash' && exactIsSmall(s) ? run(flashFull(s)) : null,
      sparse: sparse?.patterns ?? null,
      sparseSignature: sparse ? sparse.signature : this.#sparseSignature,
    };
  }
}
