// One element's state, no DOM: the scenario and what was put aside, the latest good trace and the
// runs shown beside it, the errors (the core's by field; the page's own by control key), the
// (b, h) slice shown. Every action edits the scenario through the property table and recomputes
// with the engine; the element renders what results. What runs off the main thread (the sweep, a
// training, a long run) is its BackgroundRuns' (runs.ts).
import { clone, notANumber, parseNumber } from '../format';
import type { Engine, Estimate, Outcome, Scenario, Trace } from '../engine/compute';
import { normalise, type Stash } from './props';
import { fitSamples, fullComparison, pitfallComparison, SAMPLE_SHAPE_KEYS, type GivenIndexKey, type PitfallComparison } from './prob';
import { fitSharedKeys, get, lensDimensions, qkvEqual, sameShape, pathText, resize, set, setIn, sliceSizes, toggleAllowed, type DimName } from './scenario';
import { hashOf } from './hash';
import { exactIsSmall, exactScenario, flashFull } from './approx';
import { specScenario } from './reference';
import { SPARSE_DEFAULTS, isSparse, sparseKey, sparsePatterns, sparseSignature, type SparseParams, type SparsePatterns } from './sparse';
import { sweepIsSmall } from './performer';
import { algorithm, traits } from '../algorithms/module';
import { runTyped } from '../engine/typed';
import type { BackgroundRunner } from '../worker/background';
import { BackgroundRuns, type Runners } from './runs';

/** The side runs beside a trace (prob's full comparison and reference, exact attention, the sparse
 * patterns). Those only views read are run when one first reads them (`once`): on an edit, a view
 * off screen is drawn in idle time, and its side run with it, not on the edit's path. */
interface Beside { spec: Outcome | null; full: () => Outcome | null; reference: () => PitfallComparison | null; exact: () => Outcome | null;
  sparse: SparsePatterns | null; sparseSignature: string | null }

/** `f`, called once, on the first call. */
function once<T>(f: () => T): () => T {
  let done = false, value: T;
  return () => {
    if (!done) { value = f(); done = true; }
    return value;
  };
}
const NONE = () => null;

/** An error and the path of the field (or the key of the control) it is about. */
export interface FieldError { field: string; message: string }

/** A copy of a scenario to edit one number of: its objects (mask, train, ...) copied, its arrays
 * shared (an edit replaces an array along the path it changes, setIn, and never writes into one;
 * the tensors that did not change keep their typed copies, typed.ts). */
/** SPEC's formulas beside a scenario that names a library (issue 17): run only then, at sizes the exact run takes. */
function specBeside(s: Scenario, run: (s: Scenario) => Outcome): Outcome | null {
  const spec = specScenario(s);
  return spec && exactIsSmall(s) ? run(spec) : null;
}

function editCopy(s: Scenario): Scenario {
  const out: Scenario = {};
  for (const [key, value] of Object.entries(s)) {
    out[key] = value !== null && typeof value === 'object' && !Array.isArray(value) ? clone(value) : value;
  }
  return out;
}

/** The tensors self-attention ties into one X. */
const QKV = ['q', 'k', 'v'];

export class Session {
  scenario: Scenario = {};
  /** The preset the scenario came from ('' for none), and whether it was edited since. */
  preset = '';
  modified = false;
  /** The latest good trace: it stays while the scenario has an error. */
  trace: Trace | null = null;
  /** The scenario the latest good trace is of (its factor, say, while the scenario has an error; el.explain reads its inputs). */
  traced: Scenario = {};
  /** The core's error about the current scenario. */
  error: FieldError | null = null;
  /** What the page could not read, by control key ("k[0][2][0][0]"): never sent to the core. */
  readonly invalid = new Map<string, string>();
  /** Scenario JSON (editor, attribute, URL) or a preset name that could not be used. */
  jsonError: string | null = null;
  /** Beside a prob trace: full attention on the same inputs; the reference's run when a pitfall switch is changed. */
  get full(): Outcome | null { return this.#later.full(); }
  get reference(): PitfallComparison | null { return this.#later.reference(); }
  /** Beside a scenario that names a library (reference, mask.align): the same without it, SPEC's formulas (issue 17). */
  spec: Outcome | null = null;
  /** Beside an approximate algorithm: full attention on the same inputs (for its weights). */
  get exact(): Outcome | null { return this.#later.exact(); }
  /** The side runs of the trace shown, run when first read. */
  #later: Pick<Beside, 'full' | 'reference' | 'exact'> = { full: NONE, reference: NONE, exact: NONE };
  /** Beside `full` with a local, atrous or strided mask: the three patterns on the same inputs. */
  sparse: SparsePatterns | null = null;
  /** The flash view's key block (null: the last, where the context is final). */
  flashStep: number | null = null;
  /** The sparse view's query whose two-layer reach is drawn (null: the view's choice). */
  sparseQuery: number | null = null;
  /** The sparse view's w and k where the scenario's mask has no such field. */
  #sparseKept: SparseParams = { ...SPARSE_DEFAULTS };
  /** The sweep, the training and the long run (off the main thread). */
  readonly runs: BackgroundRuns;
  /** The core's estimate of the scenario's run (its cost, its trace's numbers), made at each recompute. */
  estimate: Estimate | null = null;
  /** Called when a run that waited for the whole WASM module has happened (the element redraws). */
  onLoaded: (() => void) | null = null;
  /** The (b, h) slice shown. */
  b = 0;
  h = 0;
  /** What normalise() and fitSamples() put aside, to bring back when it applies (fits) again. */
  #stash: Stash = {};
  /** The sparse patterns' signature (sparseSignature): run again only when it changes. */
  #sparseSignature: string | null = null;
  /** A preset chosen before its scenario was there (loadPreset); any other scenario cancels it. */
  #pendingPreset: string | null = null;
  #awaitingWhole = false;
  readonly #engine: Engine;
  readonly #onTrace: (trace: Trace) => void;

  constructor(engine: Engine, onTrace: (trace: Trace) => void, runners: Runners | null = null) {
    this.#engine = engine;
    this.#onTrace = onTrace;
    this.runs = new BackgroundRuns(runners);
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
  longRunSettled(): Promise<void> {
    return this.runs.settled();
  }

  /** The URL hash for the scenario, or its JSON to compress (hash.ts); `whole`: a link even for a
   * scenario too large for the address bar ("Copy link"). */
  hashFor(whole = false): ReturnType<typeof hashOf> {
    return hashOf(this.preset, this.modified, this.scenario, whole);
  }

  setInvalid(key: string, message: string | null): void {
    if (message) this.invalid.set(key, message);
    else this.invalid.delete(key);
  }

  // ---- whole scenarios ----

  /** A whole new scenario (preset, setScenario, attribute, URL): nothing put aside carries over.
   * 'values' when it differs from the last in the values of q, k, v only, 'draws' in the seeds,
   * distributions or scales of its seeded draws too (both: no preset, slice 0, 0), else null. */
  replace(scenario: Scenario, preset = ''): 'values' | 'draws' | null {
    const plain = this.preset === '' && preset === '' && this.b === 0 && this.h === 0;
    const values = !plain ? null : sameShape(this.scenario, scenario) ? 'values' : sameShape(this.scenario, scenario, true) ? 'draws' : null;
    this.#pendingPreset = null;
    this.#stash = {};
    this.preset = preset;
    this.tiedQKV = true;
    this.modified = false;
    this.b = 0;
    this.h = 0;
    this.scenario = scenario;
    this.invalid.clear();
    this.jsonError = null;
    this.#recompute();
    return values;
  }

  /** An entry of the undo history (state/history.ts): its scenario, preset and modified mark. */
  restore(snap: { scenario: Scenario; preset: string; modified: boolean }): void {
    this.replace(snap.scenario, snap.preset);
    this.modified = snap.modified;
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
   * starts to apply comes back), sample_index fitted when asked, recomputed. `numbers`: the edit
   * changed numbers in tensors only, which no property's applying reads (props.ts): nothing to
   * normalise. */
  edit(next: Scenario, fitSampleIndex = false, numbers = false): void {
    this.#pendingPreset = null;
    const s = numbers ? next : normalise(next, this.#stash, this.scenario);
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

  /** A size of the size bar; a change of L or H drops sample_index (the core draws a new one); a
   * given top_index is kept while it fits (fitSamples). */
  resize(dim: DimName, n: number): void {
    if (dim === 'B' || dim === 'H' || dim === 'L_Q' || dim === 'L_K') delete this.#stash.sample_index;
    this.edit(resize(this.scenario, dim, n), true);
  }

  /** ProbAttention's given sample_index or top_index (state/prob.ts toggleSample, toggleTop), or
   * undefined: drawn from the seed / ranked by M. Whatever was put aside for it is forgotten. */
  setGivenIndex(key: GivenIndexKey, value: unknown[] | undefined): void {
    const next = clone(this.scenario);
    if (value === undefined) delete next[key];
    else next[key] = value;
    delete this.#stash[key];
    this.edit(next);
  }

  /** A given sample_index or top_index put aside because it does not fit the scenario (fitSamples). */
  putAside(key: GivenIndexKey): unknown {
    return this.#stash[key];
  }

  /** Self-attention: while q, k and v are equal they are one tensor X (one grid; an edit of a cell
   * edits the three) unless the learner unties them (views/panels.ts). */
  tiedQKV = true;
  get tied(): boolean { return this.tiedQKV && qkvEqual(this.scenario); }

  /** Text typed into a tensor's cell. Returns false when it is no number (kept as the cell's error). */
  editCell(name: string, path: number[], text: string): boolean {
    const names = this.tied && QKV.includes(name) ? QKV : [name];
    return this.#typed(pathText(name, path), text, false, (s, n) => { for (const f of names) s[f] = setIn(s[f], path, n); }, true);
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

  selectSparseQuery(i: number): void {
    this.sparseQuery = i;
  }

  // ---- the Performer sweep ----

  /** A sweep is due: a performer trace whose inputs have no sweep yet, small enough to start by itself. */
  get sweepDue(): boolean {
    return this.trace?.algorithm === 'performer' && this.error === null && sweepIsSmall(this.scenario) && !this.sweepCurrent;
  }

  /** Whether the sweep shown is for the current inputs and seed count. */
  get sweepCurrent(): boolean {
    return this.runs.sweepCurrent(this.scenario);
  }

  get sweep() { return this.runs.sweep; }
  get sweepSeeds(): number { return this.runs.sweepSeeds; }
  set sweepSeeds(n: number) { this.runs.sweepSeeds = n; }

  /** Starts the sweep on the current inputs (cancelling one under way); `onChange` after each
   * progress report and at the end. */
  startSweep(onChange: () => void): void {
    this.runs.startSweep(this.scenario, onChange);
  }

  cancelSweep(): void {
    this.runs.cancelSweep();
  }

  #typed(key: string, text: string, count: boolean, apply: (s: Scenario, n: number) => void, numbers = false): boolean {
    const n = parseNumber(text);
    if (n === null || (count && (!Number.isInteger(n) || n < 0))) {
      this.invalid.set(key, n === null ? notANumber(key, text, count ? 'an integer ≥ 0' : 'a number') : `${key}: expected an integer ≥ 0, got "${text}"`);
      return false;
    }
    this.invalid.delete(key);
    const next = editCopy(this.scenario);
    apply(next, n);
    this.edit(next, false, numbers);
    return true;
  }

  // ---- off the main thread: training (issue 9) and long runs (runs.ts); the trace arrives when the worker is done ----

  get background(): BackgroundRunner | null { return this.runs.background; }
  set background(runner: BackgroundRunner | null) { this.runs.background = runner; }
  get onBackground() { return this.runs.onBackground; }
  set onBackground(f: ((final: boolean) => void) | null) { this.runs.onBackground = f; }
  get training() { return this.runs.training; }
  get longRun() { return this.runs.longRun; }

  /** Stops the training or long run under way (its worker is terminated); the last good trace stays. */
  cancelBackground(): void {
    this.runs.cancel();
  }

  /** Stops a training under way (the chapter's Cancel): as cancelBackground. */
  cancelTraining(): void {
    if (this.training?.status === 'running') this.runs.cancel();
  }

  /** Trains the scenario (cancelling what runs in the background) unless it is being or was trained. */
  startTraining(force = false): void {
    this.runs.startTraining(this.scenario, force, (out, run) => this.#show(out, run));
  }

  /** The runs beside the trace of a long run of `s` (in the worker, with it): those #beside asks
   * for when the trace is the one expected (this algorithm; at trace "full", `allowed` and an
   * approximation's exact_context). */
  #besideRuns(s: Scenario): Scenario[] {
    const asked: Scenario[] = [];
    const expected = { algorithm: String(s.algorithm), shapes: {},
      ...(s.trace === 'context' ? {} : { allowed: true, exact_context: true }) } as Trace;
    const beside = this.#beside(s, expected, (x) => { asked.push(x); return { ok: false, error: 'not run', field: '' }; });
    beside.full(); beside.reference(); beside.exact();
    return asked;
  }

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
    if (!this.#engine.has(String(this.scenario.algorithm), this.scenario)) {
      // the page's first-load module does not run this algorithm (compute.ts): the last good trace
      // stays until the whole module is there, then the latest scenario runs
      this.#awaitWhole();
      return;
    }
    const s = this.scenario;
    this.estimate = this.#engine.estimate(s);
    const estimate = (x: Scenario) => (x === s ? this.estimate : this.#engine.estimate(x));
    if (this.runs.take(s, (out, run) => this.#show(out, run), () => this.#besideRuns(s), estimate)) return;
    const run = (s: Scenario) => runTyped(this.#engine, s);
    this.#show(run(this.scenario), run);
  }

  /** The outcome of the scenario's run: its trace and the runs beside it (through `run`), or its error. */
  #show(out: Outcome, run: (s: Scenario) => Outcome): void {
    if (out.ok) {
      this.error = null;
      this.trace = out.trace;
      this.traced = this.scenario;
      const beside = this.#beside(this.scenario, out.trace, run);
      this.#later = { full: beside.full, reference: beside.reference, exact: beside.exact };
      this.spec = beside.spec;
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
    const own = algorithm(trace.algorithm);
    // ProbAttention's own fields (not multihead's inner): full attention and the reference run beside it
    const prob = own?.traits.prob === true;
    const sparse = isSparse(s) && trace.allowed !== undefined ? this.#sparsePatterns(s, run) : null;
    return {
      full: prob ? once(() => fullComparison(s, trace, run)) : NONE,
      spec: specBeside(s, run),
      // the stash as it is now (an edit may put something aside before this is read)
      reference: prob ? once(((stash) => () => pitfallComparison(s, stash, run))({ ...this.#stash })) : NONE,
      exact: own?.exact === 'weights' && trace.exact_weights === undefined && exactIsSmall(s)
        ? once(() => run(exactScenario(s, traits(s).scale === true)))
        // flash: full attention on the very same scenario, whose context it must equal
        : own?.exact === 'full' && exactIsSmall(s) ? once(() => run(flashFull(s))) : NONE,
      sparse: sparse?.patterns ?? null,
      sparseSignature: sparse ? sparse.signature : this.#sparseSignature,
    };
  }
}
