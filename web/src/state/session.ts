// One element's state, no DOM: the scenario and what was put aside, the latest good trace and the
// runs shown beside it, the errors (the core's by field; the page's own by control key), the
// (b, h) slice shown. Every action edits the scenario through the property table and recomputes
// with the engine; the element renders what results.
import { clone, parseNumber } from '../format';
import type { Engine, Outcome, Scenario, Trace } from '../compute';
import { normalise, type Stash } from './props';
import { fitSamples, fullComparison, pitfallComparison, SAMPLE_SHAPE_KEYS, type PitfallComparison } from './prob';
import { get, lensDimensions, pathText, resize, set, setIn, sliceSizes, toggleAllowed, type DimName } from './scenario';
import { hashOf } from './hash';

/** An error and the path of the field (or the key of the control) it is about. */
export interface FieldError { field: string; message: string }

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
  /** The (b, h) slice shown. */
  b = 0;
  h = 0;
  /** What normalise() and fitSamples() put aside, to bring back when it applies (fits) again. */
  #stash: Stash = {};
  readonly #engine: Engine;
  readonly #onTrace: (trace: Trace) => void;

  constructor(engine: Engine, onTrace: (trace: Trace) => void) {
    this.#engine = engine;
    this.#onTrace = onTrace;
  }

  /** Every error to show: the page's own and the core's, each with its field; the JSON's under "json". */
  errors(): FieldError[] {
    const list = [...this.invalid].map(([field, message]) => ({ field, message }));
    if (this.error) list.push(this.error);
    if (this.jsonError) list.push({ field: 'json', message: this.jsonError });
    return list;
  }

  /** Whether the results shown are the last good ones of an earlier scenario. */
  get stale(): boolean {
    return this.trace !== null && this.errors().length > 0;
  }

  /** The URL hash for the scenario (hash.ts). */
  get hash(): string {
    return hashOf(this.preset, this.modified, this.scenario);
  }

  setInvalid(key: string, message: string | null): void {
    if (message) this.invalid.set(key, message);
    else this.invalid.delete(key);
  }

  // ---- whole scenarios ----

  /** A whole new scenario (preset, setScenario, attribute, URL): nothing put aside carries over. */
  replace(scenario: Scenario, preset = ''): void {
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
    const s = normalise(next, this.#stash, this.scenario);
    if (fitSampleIndex) fitSamples(s, this.#stash, (x) => this.#engine.run(x));
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

  #typed(key: string, text: string, count: boolean, apply: (s: Scenario, n: number) => void): boolean {
    const n = parseNumber(text);
    if (n === null || (count && (!Number.isInteger(n) || n < 0))) {
      this.invalid.set(key, `${key}: expected ${count ? 'an integer ≥ 0' : 'a number'}, got "${text}"`);
      return false;
    }
    this.invalid.delete(key);
    const next = clone(this.scenario);
    apply(next, n);
    this.edit(next);
    return true;
  }

  #recompute(): void {
    const run = (s: Scenario) => this.#engine.run(s);
    const out = run(this.scenario);
    if (out.ok) {
      this.error = null;
      this.trace = out.trace;
      const prob = out.trace.algorithm === 'prob';
      this.full = prob ? run(fullComparison(this.scenario)) : null;
      this.reference = prob ? pitfallComparison(this.scenario, this.#stash, run) : null;
    } else {
      this.error = { field: out.field, message: out.error };
    }
    const { B, H } = sliceSizes(this.scenario, this.trace);
    this.b = Math.min(this.b, Math.max(0, B - 1));
    this.h = Math.min(this.h, Math.max(0, H - 1));
    if (out.ok) this.#onTrace(out.trace);
  }
}
