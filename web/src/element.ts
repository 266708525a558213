// <attention-playground>: the playground as a custom element (SPEC §1).
//
//   attributes  preset="softmax-toy"  scenario='{"algorithm":"full",...}'  lang="en|zh"
//               controls="preset algorithm tensors mask options prob json" (which panels; default all)
//               sync-hash (index.html: keep location.hash in sync with the scenario)
//               theme="light|dark|auto" (styles.css only; auto follows prefers-color-scheme)
//   property    trace (latest good trace, as the CLI prints it), scenario (a copy), ready (Promise)
//   method      setScenario(object), setPreset(name), export(kind, field) (a Blob: json, csv, svg,
//               png, pytorch; export.ts)
//   event       "trace" (detail = trace) after each successful recompute; "scenario-error"
//               (detail = [{field, message}]) when the errors shown change to a new non-empty list
//
// The element wires views to state: its Session (state/, no DOM) holds the scenario, the traces
// and the errors and does every edit; views/ build the DOM; the element says what to re-render.
// Each element has its own shadow root and state; the WASM core is shared (it keeps no state).
import css from './styles.css?inline';
import { firstRunsPreset, getEngine, type Engine, type Estimate, type Preset, type Scenario, type Trace } from './compute';
import { PROP, Session, changedPitfalls, hasExact, parseHash, setRegistry, sliceSizes, sparseKey, traits } from './state';
import type { Sweeper } from './state/session';
import { after } from './cancel';
import { idle, load, need, preloadAll, releaseViews } from './lazy';
import type { BackgroundRunner } from './background';
import type { ChapterViews } from './chapter';
import { clear, h } from './dom';
import { clone, prettyJson } from './format';
import { loadLanguage, t, type Lang } from './i18n';
import { propControls, type ControlContext } from './views/controls';
import { errorSlot, showErrors } from './views/errors';
import { jsonPanel, maskPanel, presetBar, probControls, sliceBar, tensorsPanel } from './views/panels';
import { costLine, results, warningList } from './views/results';
import { flushPatches, keep, lazyPart, render, type LazyPart } from './views/patch';

const PANELS = ['preset', 'algorithm', 'tensors', 'mask', 'options', 'prob', 'json'] as const;
type PanelName = (typeof PANELS)[number];
/** What an action changed: only an error message, the results, or the controls too. */
type Change = 'errors' | 'values' | 'inputs';

let sharedSheet: CSSStyleSheet | null = null;
function adoptStyles(root: ShadowRoot): void {
  try {
    sharedSheet ??= new CSSStyleSheet();
    if (sharedSheet.cssRules.length === 0) sharedSheet.replaceSync(css);
    root.adoptedStyleSheets = [sharedSheet];
  } catch {
    root.append(h('style', { text: css }));
  }
}

/** The Performer sweep's batches (sweep.ts, loaded when the first batch starts). */
const lazySweeper: Sweeper = (job, onProgress) => after(load('sweep'), (m) => m.runBatch(job, onProgress));

/** Training and long runs in a worker (background.ts, loaded when the first one starts). */
const lazyBackground: BackgroundRunner = (request, onProgress, onMode) =>
  after(load('background'), (m) => m.runInBackground(request, onProgress, onMode));

/** The algorithms with a view of d2l's chapter (chapter.ts). */
const CHAPTER_ALGORITHMS = ['bahdanau', 'positional_encoding', 'additive', 'full'];

/** A scenario whose URL hash is longer than this is always written a moment later (encoding it
 * and replaceState with a long URL cost more than a frame's budget). */
const LONG_HASH = 4096;

/** Replaces an element's children. */
function fill(el: HTMLElement | null, children: readonly Node[]): void {
  if (!el) return;
  clear(el);
  el.append(...children);
}

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes(): string[] {
    return ['preset', 'scenario', 'lang', 'controls', 'theme'];
  }

  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #root: ShadowRoot;
  #engine: Engine | null = null;
  #session: Session | null = null;
  #started = false;
  /** The pitfall switches' <details>: null follows the switches (open while one is changed). */
  #pitfallsOpen: boolean | null = null;
  #lastHash = '';
  #app: HTMLElement;
  /** The Performer sweep starts by itself a moment after the inputs settle. */
  #sweepTimer: ReturnType<typeof setTimeout> | null = null;
  /** d2l's chapter views (issue 9; chapter.ts, loaded on demand): Bahdanau training, complexity,
   * positional encoding, the 1/√d argument, additive features. */
  #chapter: ChapterViews | null = null;

  constructor() {
    super();
    this.ready = new Promise((resolve) => { this.#resolveReady = resolve; });
    this.#root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.#root);
    this.#app = h('div', { class: 'app' }, h('p', { class: 'loading', text: t(this.#lang, 'loading') }));
    this.#root.append(this.#app);
  }

  get #lang(): Lang {
    return this.getAttribute('lang') === 'zh' ? 'zh' : 'en';
  }

  get trace() {
    return this.#session?.trace ?? null;
  }

  /** The core's estimate of the scenario's run: {cost, numbers, sizes, exact} (compute.ts). */
  get estimate(): Estimate | null {
    return this.#session?.estimate ?? null;
  }

  get scenario(): Scenario {
    return clone(this.#session?.scenario ?? {});
  }

  get presets(): Preset[] {
    return this.#engine ? this.#engine.presets() : [];
  }

  setScenario(scenario: object): void {
    if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario)) {
      throw new TypeError('setScenario: expected a scenario object');
    }
    const copy = clone(scenario) as Scenario;
    this.#gen++;
    this.#reported = null;  // a new scenario's errors are reported again, even the same ones
    if (!this.#session) {
      this.ready.then(() => this.setScenario(copy));
      return;
    }
    const session = this.#session;
    const sameShape = session.preset === '' && session.b === 0 && session.h === 0 && this.#sameShape(session.scenario, copy);
    this.#session.replace(copy);
    if (sameShape && this.#refreshCells()) {
      // only tensor values changed: the grids' cells take the new numbers, the results are drawn again
      this.#update('values', 'api');
      return;
    }
    this.#renderWhole('api');
  }

  /** Loads the preset `name` (as picking it does; queued until the core is loaded); false when
   * the core has no such preset (the element then shows the error). */
  setPreset(name: string): boolean {
    if (!this.#session) {
      this.ready.then(() => this.setPreset(name));
      return this.presets.length === 0 || this.presets.some((p) => p.name === name);
    }
    return this.#loadPreset(String(name), 'api');
  }

  /** SPEC §1: the trace as JSON, or trace field `field`'s map at the shown (b, h) as CSV, SVG or
   * PNG (default field: `weights`, else the main output), as a Blob (export.ts, a lazy chunk). */
  async export(kind: string, field?: string): Promise<Blob> {
    await this.ready;
    const s = this.#session!;
    return (await load('export')).exportTrace(s.trace, kind, field, s.b, s.h, this.#lang, s.stale ? null : s.scenario);
  }

  /** The results' Export buttons: the default field's file downloaded. */
  #exportRow(lang: Lang): HTMLElement {
    const button = (kind: string) => h('button', { text: kind.toUpperCase(), dataset: { key: `export.${kind}` },
      attrs: { type: 'button', title: t(lang, kind === 'json' ? 'exportJson' : 'exportMap') },
      on: { click: () => {
        const s = this.#session;
        if (s?.trace) load('export').then((m) => m.download(s.trace!, kind, s.b, s.h, this.#lang, this.#root)).catch(console.error);
      } } });
    const status = h('span', { class: 'muted', attrs: { role: 'status' } });
    const copy = h('button', { text: t(lang, 'copyPytorch'), dataset: { key: 'export.pytorch' }, attrs: { type: 'button' }, on: { click: () => {
      const s = this.#session;
      if (s?.trace) load('export').then((m) => m.copyPytorch(s.trace!, s.stale ? null : s.scenario, this.#lang, this.#root, status)).catch(console.error);
    } } });
    return h('div', { class: 'export', attrs: { role: 'group', 'aria-label': t(lang, 'export') } },
      h('span', { class: 'muted', text: t(lang, 'export') }), ...['json', 'csv', 'svg', 'png'].map(button), copy, status);
  }

  /** Whether two scenarios differ in the values of their q, k, v only (same shapes, same rest). */
  #sameShape(a: Scenario, b: Scenario): boolean {
    const shape = (x: unknown): unknown => (Array.isArray(x) ? [x.length, shape(x[0])] : typeof x);
    const rest = (s: Scenario) => JSON.stringify({ ...s, q: shape(s.q), k: shape(s.k), v: shape(s.v) });
    return rest(a) === rest(b);
  }

  /** Writes the scenario's numbers into the tensor grids' cells; false when a grid is missing one. */
  #refreshCells(): boolean {
    const s = this.#session!.scenario;
    for (const input of this.#root.querySelectorAll<HTMLInputElement>('.panel-tensors input[data-path]')) {
      const m = /^([a-z]+)\[(\d+)\]\[(\d+)\]\[(\d+)\]\[(\d+)\]$/.exec(input.dataset.path ?? '');
      if (!m) return false;
      const v = (s[m[1]] as number[][][][] | undefined)?.[+m[2]]?.[+m[3]]?.[+m[4]]?.[+m[5]];
      if (typeof v !== 'number') return false;
      if (Number(input.value) !== v || input.value.trim() === '') input.value = String(v);
    }
    return true;
  }

  /** Resolves once a long run under way (in a worker) is done, the views the current trace needs
   * are loaded and drawn (lazy chunks), and every part of the results off screen shows the latest
   * trace (they are patched in idle time). A training is not waited for (its `trace` event is). */
  get settled(): Promise<void> {
    flushPatches();
    const running = this.#session?.longRunSettled() ?? Promise.resolve();
    return running.then(() => Promise.all([idle(), loadLanguage(this.#lang)])).then(() => idle()).then(() => flushPatches());
  }

  connectedCallback(): void {
    if (this.#started) return;
    this.#started = true;
    // the first-load module where it runs the first scenario (compute.ts): a third of the bytes;
    // a page that opens on a preset it does not run fetches the whole module alone
    const preset = this.#openingPreset();
    Promise.all([getEngine({ first: preset === null || firstRunsPreset(preset) }), loadLanguage(this.#lang)]).then(([engine]) => {
      this.#engine = engine;
      setRegistry(engine.algorithms());
      this.#session = new Session(engine, (trace) => {
        // dispatched once the results show it (the end of the update that follows), else in a microtask
        this.#pendingTrace = trace;
        queueMicrotask(() => this.#dispatchTrace());
      }, lazySweeper);
      this.#session.background = lazyBackground;
      this.#session.onLoaded = () => this.#renderAll();
      this.#session.onBackground = (final) => {
        const long = this.#session!.longRun !== null;
        if (final) this.#update(long ? 'values' : 'inputs', long ? 'background' : 'train');
        else if (long) this.#renderLongRun();
        else {
          flushPatches(); // a part waiting to be patched must not bring back an older progress
          this.#chapter?.progress(this.#root, this.#lang);
        }
      };
      const first = this.#initialScenario();
      setTimeout(releaseViews, 2000);  // a first scenario that fails shows no trace: its views load anyway
      preloadAll();  // the other views' modules, in the background once the first trace is shown
      if (this.hasAttribute('sync-hash')) window.addEventListener('hashchange', () => this.#fromHash());
      void Promise.resolve(first).then(() => this.#resolveReady());
    }, (e: unknown) => {
      clear(this.#app);
      this.#app.append(h('p', { class: 'error', attrs: { role: 'alert' },
        text: `${t(this.#lang, 'loadFailed')}: ${e instanceof Error ? e.message : String(e)}` }));
    });
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (!this.#session || old === value) return;
    if (name === 'preset' && value) this.#loadPreset(value, 'attribute');
    else if (name === 'scenario' && value) this.#scenarioText(value, 'attribute');
    else if (name === 'lang') void loadLanguage(this.#lang).then(() => this.#renderAll());  // never drawn half-translated
    else if (name === 'controls') this.#renderAll();
  }

  // ---- whole scenarios ----

  /** The first scenario: the URL's (sync-hash), else the attributes'; a promise while a `#z=`
   * link is inflated (`ready` waits for it). */
  #initialScenario(): void | Promise<void> {
    const fromHash = this.hasAttribute('sync-hash') && this.#fromHash();
    if (fromHash) return fromHash;
    const text = this.getAttribute('scenario');
    if (text) {
      this.#scenarioText(text, 'attribute');
      if (Object.keys(this.#session!.scenario).length) return;
    }
    this.#presetWithError();
  }

  /** The preset attribute's scenario (else the first preset's), keeping the error of the scenario
   * that could not be read (an invalid scenario attribute or link) beside it. */
  #presetWithError(): void {
    const bad = this.#session!.jsonError;
    const presets = this.#engine!.presets();
    const name = this.getAttribute('preset');
    this.#loadPreset(presets.some((p) => p.name === name) ? name! : presets[0]?.name ?? '', 'init');
    if (bad) {
      this.#session!.jsonError = bad;
      this.#renderErrors();
    }
  }

  #scenarioText(text: string, source: string): void {
    this.#gen++;
    this.#reported = null;
    if (this.#session!.fromText(text)) this.#renderWhole(source);
    else if (Object.keys(this.#session!.scenario).length) this.#renderErrors();
  }

  #loadPreset(name: string, source: string): boolean {
    this.#gen++;
    if (this.#session!.loadPreset(name)) {
      this.#renderWhole(source);
      return true;
    }
    this.#reported = null;
    this.#renderErrors();
    return false;
  }

  #renderWhole(source: string): void {
    this.#pitfallsOpen = null;
    this.#renderAll(source);
  }

  /** The trace of the last recompute, until its `trace` event is dispatched. */
  #pendingTrace: Trace | null = null;

  /** The `trace` event, after the results were updated to show the trace. */
  #dispatchTrace(): void {
    const trace = this.#pendingTrace;
    if (!trace) return;
    this.#pendingTrace = null;
    this.dispatchEvent(new CustomEvent('trace', { detail: trace, bubbles: true }));
    // lazy.ts: the views asked for before the first trace was on screen load once it is painted
    requestAnimationFrame(() => setTimeout(releaseViews, 0));
  }

  // ---- URL hash (index.html only) ----

  #hashTimer: ReturnType<typeof setTimeout> | null = null;

  /** When the URL was last written (performance.now()). */
  #hashWritten = -Infinity;

  /** The hash write in flight (a `#z=` link is compressed first, off the edit's path). */
  #hashDone: Promise<void> = Promise.resolve();

  /** Bumped by every hash write asked for: a compression that ends after a later one began is dropped. */
  #hashSeq = 0;

  /** The last JSON compressed and its `#z=` hash. */
  #zCache = ['', ''];

  /** Bumped by every whole scenario (preset, setScenario, attribute, URL): a `#z=` link read from
   * the URL applies only if nothing replaced the scenario while it was inflated. */
  #gen = 0;

  /** Writes the scenario to the URL: just after the edit (a task of its own, off the edit's path)
   * after a pause, else at most once per 250 ms (the last edit wins). history.replaceState costs a
   * few ms and Chromium throttles a stream of them, so a stream of edits (typing, a slider) must
   * not write it each time; a long scenario waits the full 250 ms (encoding it costs more). */
  #syncHash(): void {
    if (!this.hasAttribute('sync-hash') || this.#hashTimer) return;
    const since = performance.now() - this.#hashWritten;
    this.#hashTimer = setTimeout(() => this.#hashNow(false), Math.max(0, 250 - since));
  }

  /** The hash write due now (`force`: even a long one written less than 250 ms ago). */
  #hashNow(force: boolean): void {
    if (this.#hashTimer) clearTimeout(this.#hashTimer);
    this.#hashTimer = null;
    const now = performance.now();
    // no scenario yet (a preset waiting for the whole module): the URL keeps asking for it
    if (!this.#session || !Object.keys(this.#session.scenario).length) return;
    const want = this.#session.hash;
    if (!force && ('hash' in want ? want.hash : want.json).length > LONG_HASH && now - this.#hashWritten < 250) {
      this.#hashTimer = setTimeout(() => this.#hashNow(false), 250 - (now - this.#hashWritten));
      return;
    }
    this.#hashWritten = now;
    const seq = ++this.#hashSeq;
    if ('hash' in want) {
      this.#writeHash(want.hash);
      return;
    }
    const { json } = want;
    this.#hashDone = (this.#zCache[0] === json ? Promise.resolve(this.#zCache[1])
      : load('link').then((m) => m.deflate(json)).then((z) => { this.#zCache = [json, '#z=' + z]; return this.#zCache[1]; }))
      .catch(() => '#scenario=' + encodeURIComponent(json))
      .then((hash) => { if (seq === this.#hashSeq) this.#writeHash(hash); });
  }

  #writeHash(text: string): void {
    if (text === this.#lastHash) return;
    this.#lastHash = text;
    try {
      history.replaceState(history.state, '', text);
    } catch {
      // a URL too long for this browser: the hash keeps the last scenario that fitted
    }
  }

  /** The "Copy link" button: the URL (its hash written now) to the clipboard. */
  async #copyLink(button: HTMLElement): Promise<void> {
    this.#hashNow(true);
    await this.#hashDone;
    const url = location.href;
    let ok = true;
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      // no clipboard API (an insecure origin, no permission): the selection's copy
      const area = h('textarea', { text: url });
      this.#root.append(area);
      area.select();
      ok = document.execCommand('copy');
      area.remove();
    }
    button.textContent = t(this.#lang, ok ? 'linkCopied' : 'copyFailed');
    setTimeout(() => { button.textContent = t(this.#lang, 'copyLink'); }, 2000);
  }

  /** The preset the element opens on (the link's, else the attribute's), or null when it opens on
   * a scenario (a link's or the attribute's) or on the first preset. */
  #openingPreset(): string | null {
    const wanted = this.hasAttribute('sync-hash') ? parseHash(location.hash) : null;
    if (wanted) return 'preset' in wanted ? wanted.preset : null;
    return this.getAttribute('scenario') ? null : this.getAttribute('preset');
  }

  /** Applies the URL hash; false when it asks for nothing (or is the one last written). A `#z=`
   * link is inflated first (link.ts): the promise settles once it is applied or refused. */
  #fromHash(): false | Promise<void> {
    const hash = location.hash;
    if (!hash || hash === this.#lastHash) return false;
    const wanted = parseHash(hash);
    if (!wanted) return false;
    const gen = ++this.#gen;
    if ('preset' in wanted) this.#loadPreset(wanted.preset, 'hash');
    else if ('scenario' in wanted) this.#hashScenario(wanted.scenario);
    else {
      return load('link').then((m) => m.inflate(wanted.z)).then(
        (text) => { if (gen === this.#gen) this.#hashScenario(text); },
        (e: unknown) => { if (gen === this.#gen) this.#hashScenario(null, e instanceof Error ? e.message : String(e)); });
    }
    return Promise.resolve();
  }

  /** A scenario's JSON from the URL, or (null) the error of a link that could not be read: the
   * error is shown beside the scenario JSON (opened), and the last scenario stays (on the first
   * load, the preset attribute's). */
  #hashScenario(text: string | null, error = ''): void {
    this.#reported = null;
    const s = this.#session!;
    if (text !== null && s.fromText(text)) {
      this.#renderWhole('hash');
      return;
    }
    if (error) s.jsonError = error;
    if (!Object.keys(s.scenario).length) this.#presetWithError();
    this.#linkError = s.jsonError;
    const json = this.#part('json') as HTMLDetailsElement | null;
    if (json) json.open = true;
    this.#renderErrors();
  }

  /** The error of a link that could not be read, shown until the next change of the scenario. */
  #linkError: string | null = null;

  // ---- rendering ----

  /** After an edit: re-renders what it changed, then the errors, the JSON and the hash. */
  #update(change: Change, source = 'control'): void {
    if (change === 'errors') {
      this.#renderErrors();
      return;
    }
    if (change === 'inputs') this.#renderInputs(source);
    this.#renderOutputs();
    this.#afterChange(source);
    this.#dispatchTrace();
  }

  #afterChange(source: string): void {
    if (this.#linkError !== null && (source === 'control' || source === 'api')) {
      // an edit after a link that could not be read: its error is old news
      if (this.#session!.jsonError === this.#linkError) this.#session!.jsonError = null;
      this.#linkError = null;
    }
    this.#renderErrors();
    if (source !== 'json') this.#fillJson();
    this.#syncHash();
  }

  /** The scenario JSON editor, written while it is open (and when it opens). */
  #fillJson(): void {
    const details = this.#root.querySelector<HTMLDetailsElement>('[data-panel="json"]');
    const area = details?.querySelector<HTMLTextAreaElement>('textarea');
    if (!details || !area || !details.open || this.#root.activeElement === area) return;
    area.value = prettyJson(this.#session!.scenario);
  }

  #panels(): Set<PanelName> {
    const attr = this.getAttribute('controls');
    if (attr === null || attr.trim() === '' || attr.trim() === 'all') return new Set(PANELS);
    const words = attr.split(/[\s,]+/);
    return new Set(PANELS.filter((p) => words.includes(p)));
  }

  #renderAll(source = 'render'): void {
    if (!this.#session) return;
    const shown = this.#panels();
    clear(this.#app);
    this.#memos.clear();
    this.#app.setAttribute('lang', this.#lang);
    if (shown.has('preset')) this.#app.append(h('header', { class: 'top', dataset: { panel: 'preset' } }));
    const side = h('aside', { class: 'side' });
    const main = h('div', { class: 'main' });
    for (const p of ['algorithm', 'mask', 'options'] as const) {
      if (shown.has(p)) side.append(h('section', { class: `panel panel-${p}`, dataset: { panel: p } }));
    }
    main.append(h('div', { class: 'slicebar', dataset: { panel: 'slice' } }));
    if (shown.has('tensors')) main.append(h('section', { class: 'panel panel-tensors', dataset: { panel: 'tensors' } }));
    main.append(h('section', { class: 'panel panel-results', dataset: { panel: 'results' },
      attrs: { 'aria-live': 'polite' } }));
    if (shown.has('prob')) main.append(h('section', { class: 'panel panel-prob', dataset: { panel: 'prob' } },
      h('div', { class: 'prob-controls' }), h('div', { class: 'prob-body' })));
    if (shown.has('json')) main.append(h('details', { class: 'panel panel-json', dataset: { panel: 'json' } }));
    this.#app.append(h('div', { class: side.childElementCount ? 'body' : 'body single' }, side.childElementCount ? side : null, main));
    this.#renderInputs(source, true);
    this.#renderOutputs();
    this.#afterChange(source);
    this.#dispatchTrace();
  }

  #part(name: string): HTMLElement | null {
    return this.#root.querySelector(`[data-panel="${name}"]`);
  }

  #ctx(): ControlContext {
    const session = this.#session!;
    return {
      scenario: session.scenario,
      lang: this.#lang,
      set: (key, value, structural) => {
        session.setProp(key, value);
        this.#update(structural ? 'inputs' : 'values');
      },
      invalid: (key, message) => {
        session.setInvalid(key, message);
        this.#renderErrors();
      },
      isInvalid: (key) => session.invalid.has(key),
    };
  }

  /** Rebuilds the input panels from the scenario, keeping keyboard focus where it was. */
  #renderInputs(source: string, all = false): void {
    const session = this.#session!;
    const focused = (this.#root.activeElement as HTMLElement | null)?.dataset?.key;
    session.invalid.clear();
    const lang = this.#lang;
    const s = session.scenario;
    const ctx = this.#ctx();
    const edited = (ok: boolean, change: Change = 'values') => this.#update(ok ? change : 'errors');

    fill(this.#part('preset'), presetBar({ presets: this.#engine!.presets(), preset: session.preset, modified: session.modified,
      lang, onPreset: (name) => this.#loadPreset(name, 'control'), onLang: (l) => this.setAttribute('lang', l),
      onCopyLink: this.hasAttribute('sync-hash') ? (button) => void this.#copyLink(button) : null }));
    fill(this.#part('algorithm'), [...propControls('algorithm', ctx), errorSlot('algorithm')]);

    const mask = this.#part('mask');
    fill(mask, maskPanel({ ctx, invalid: session.invalid,
      onToggle: (i, j) => { session.toggleAllowed(i, j); edited(true, 'inputs'); },
      onLens: (path, text) => edited(session.editLens(path, text)),
      onPerQuery: (twoD) => { session.lensPerQuery(twoD); edited(true, 'inputs'); } }));
    if (mask) mask.hidden = !PROP['mask.kind'].applies(s);

    fill(this.#part('options'), [h('h2', { class: 'sub', text: t(lang, 'options') }),
      ...propControls('options', ctx, s.algorithm === 'prob' ? ['seed'] : []), errorSlot('options')]);

    const bar = this.#part('slice');
    const { B, H } = sliceSizes(s, session.trace);
    fill(bar, sliceBar({ B, H, b: session.b, h: session.h, lang, onSelect: (b, hh) => {
      session.select(b, hh);
      this.#renderInputs('slice');
      this.#renderOutputs();
    } }));
    if (bar) bar.hidden = !bar.firstChild;

    const tensors = this.#part('tensors');
    if (tensors) {
      tensors.hidden = traits(s).tensors.length === 0;
      fill(tensors, tensors.hidden ? [] : tensorsPanel({ scenario: s, lang, b: session.b, h: session.h, invalid: session.invalid,
        onResize: (dim, n) => { session.resize(dim, n); edited(true, 'inputs'); },
        onEdit: (name, path, text) => edited(session.editCell(name, path, text)) }));
    }

    const prob = this.#part('prob');
    if (prob) {
      prob.hidden = s.algorithm !== 'prob';
      fill(prob.querySelector<HTMLElement>('.prob-controls'), prob.hidden ? [] : probControls({ ctx,
        open: this.#pitfallsOpen ?? changedPitfalls(s).length > 0,
        onOpen: (open) => { this.#pitfallsOpen = open; },
        onResample: () => { session.resample(); edited(true, 'inputs'); } }));
    }

    const json = this.#part('json');
    if (json && (all || !json.firstChild)) {
      fill(json, jsonPanel(lang, (text) => {
        if (session.fromText(text, true)) this.#update('inputs', 'json');
        else this.#renderErrors();
      }));
      if (!json.dataset.watched) {
        json.dataset.watched = '1';
        json.addEventListener('toggle', () => this.#fillJson());
      }
    }

    if (focused && source !== 'json') {
      this.#root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
    }
  }

  /** The hint's button: opens the switches and moves the focus to the first one. */
  #showPitfalls(): void {
    const details = this.#root.querySelector<HTMLDetailsElement>('details.pitfalls');
    if (!details) return;
    details.open = true;
    this.#pitfallsOpen = true;
    details.querySelector<HTMLElement>('select, input')?.focus();
  }

  /** A view's module once loaded; until then null, and the outputs are drawn again when it is. */
  #view<K extends Parameters<typeof need>[0]>(name: K) {
    return need(name, () => { if (this.#session) this.#renderOutputs(); });
  }

  /** The chapter's views for the scenario and trace (none while chapter.ts loads). */
  #chapterViews(): HTMLElement[] {
    const m = this.#view('chapter');
    if (!m || !this.#engine || !this.#session) return [];
    this.#chapter ??= new m.ChapterViews(this.#engine, this.#session, () => this.#renderOutputs());
    return this.#chapter.views(this.#lang);
  }

  /** The results' heading, stale note and general error slot: made once per panel (the error
   * slot and the note are shown and hidden by showErrors, not by a render). */
  #resultsHead: { panel: HTMLElement; nodes: Node[] } | null = null;

  /** Draws the results: the views are built from the state (their maps deferred) and patched into
   * what is drawn, so an edit touches the cells that changed only (views/patch.ts). */
  #renderOutputs(): void {
    const session = this.#session!;
    const { trace, scenario: s, b } = session;
    const hh = session.h;
    const lang = this.#lang;
    const panel = this.#part('results');
    if (panel) {
      if (this.#resultsHead?.panel !== panel) {
        this.#resultsHead = { panel, nodes: [h('div', { class: 'panel-head' }, h('h2', { text: t(lang, 'results') }), this.#exportRow(lang)),
          this.#longRunLine(lang), h('p', { class: 'stale-note', hidden: true, text: t(lang, 'stale') }), errorSlot('general')] };
        this.#renderLongRun();
      }
      const head = this.#resultsHead.nodes;
      // each part built only when it is drawn: a part off screen is built and patched in idle time
      render(panel, () => {
        const nodes: (Node | LazyPart | null)[] = [...head];
        const chapter = s.algorithm === 'bahdanau' || (trace && CHAPTER_ALGORITHMS.includes(trace.algorithm)) ? this.#chapterViews() : [];
        if (s.algorithm === 'bahdanau') nodes.push(...chapter); // training shows before its trace
        if (trace) {
          nodes.push(lazyPart('cost', () => costLine(trace, lang)), lazyPart('warnings', () => warningList(trace, lang)));
          if (trace.algorithm === 'nadaraya_watson') {
            const m = this.#view('nadaraya');
            if (m) nodes.push(lazyPart('nadaraya', () => m.nadarayaView({ trace, scenario: s, lang })));
          }
          if (s.algorithm !== 'bahdanau') nodes.push(...chapter);
          nodes.push(lazyPart('algorithm', () => {
            const own = this.#algorithmView();
            if (own || !hasExact(trace)) return own;
            const m = this.#view('approx');
            return m ? m.approxPanel({ trace, lang, b, h: hh }) : null;
          }));
          nodes.push(lazyPart('maps', () => results({ trace, b, h: hh, lang })));
        }
        return nodes;
      });
    }
    const body = this.#part('prob')?.querySelector<HTMLElement>('.prob-body') ?? null;
    if (body && !body.parentElement!.hidden) {
      const prob = this.#view('prob');
      const pitfalls = this.#view('pitfalls');
      render(body, () => {
        if (trace?.algorithm !== 'prob' || !prob || !pitfalls) return [];
        const ref = session.reference;
        return [
          h('p', { class: 'samples-source', dataset: { field: 'samples-source' },
            text: s.sample_index !== undefined ? t(lang, 'samplesGiven') : `${t(lang, 'samplesDrawn')} (seed = ${Number(s.seed ?? 0)})` }),
          lazyPart('pitfalls', () => (ref
            ? pitfalls.pitfallView({ trace, reference: ref.outcome, changed: ref.changed, samples: ref.samples, b, h: hh, lang, seed: Number(s.seed ?? 0) })
            : pitfalls.pitfallHint(lang, () => this.#showPitfalls()))),
          lazyPart('steps', () => prob.probView({
            trace, full: session.full, b, h: hh, lang,
            factor: Number(s.factor ?? PROP.factor.default),
            causal: (s.mask as Scenario | undefined)?.kind === 'causal',
            causalInitial: String(s.causal_initial ?? PROP.causal_initial.default),
            divisor: String(s.sparsity_divisor ?? PROP.sparsity_divisor.default),
          }))];
      });
    }
    const modified = this.#root.querySelector<HTMLElement>('.modified');
    if (modified) modified.hidden = !(session.preset && session.modified);
    this.#maybeSweep();
  }

  /** Views kept as they are drawn while what they show stays the same (by name). */
  #memos = new Map<string, { deps: unknown[]; el: HTMLElement }>();

  /** The view `name` as built last time when `deps` are the same (Object.is), else built anew. */
  #memo(name: string, deps: unknown[], build: () => HTMLElement): HTMLElement {
    const m = this.#memos.get(name);
    if (m && m.deps.length === deps.length && m.deps.every((d, i) => Object.is(d, deps[i]))) return m.el;
    const el = keep(build());
    this.#memos.set(name, { deps, el });
    return el;
  }

  /** The view of the algorithm's own story (sparse patterns, linear, Performer, ...), which shows
   * its error against exact attention and its cost; null for the others (and while its module loads). */
  #algorithmView(): HTMLElement | null {
    const session = this.#session!;
    const { trace, scenario: s, b } = session;
    const lang = this.#lang;
    if (!trace) return null;
    if (trace.algorithm === 'full' && session.sparse) {
      const m = this.#view('sparse');
      if (!m) return h('p', { class: 'loading', text: t(lang, 'loading') });
      const keys = { window: sparseKey(s, 'window'), dilation: sparseKey(s, 'dilation') };
      // the same view while the patterns are the same (an edit of a value of q, k or v keeps them)
      const patterns = session.sparse;
      return this.#memo('sparse', [patterns, b, session.h, lang, session.sparseQuery, keys.window, keys.dilation], () => m.sparseView({
        patterns, b, h: session.h, lang, query: session.sparseQuery, keys,
        onParam: (param, value) => {
          const structural = sparseKey(s, param) !== null;
          session.setSparseParam(param, value);
          if (structural) this.#update('inputs');
          else this.#renderOutputs();
          this.#refocus(`sparse.${param}`);
        },
        onQuery: (i) => { session.selectSparseQuery(i); this.#renderOutputs(); this.#refocus('sparse.query'); } }));
    }
    const hh = session.h;
    if (trace.algorithm === 'flash') {
      const m = this.#view('flash');
      return m ? m.flashView({ trace, b, h: hh, lang, step: session.flashStep, full: session.exact,
        onStep: (step) => { session.flashStep = step; this.#renderOutputs(); this.#refocus('flash.step'); } }) : null;
    }
    if (trace.algorithm === 'linear') {
      const m = this.#view('linear');
      return m ? m.linearView({ trace, exact: session.exact, featureMap: String(s.feature_map ?? PROP.feature_map.default), b, h: hh, lang }) : null;
    }
    if (trace.algorithm === 'performer') {
      const m = this.#view('performer');
      if (!m) return null;
      const part = h('div', { class: 'sweep', dataset: { part: 'sweep', field: 'sweep' } }, ...this.#sweepPart(m));
      return m.performerView({ trace, exact: session.exact, b, h: hh, lang }, part);
    }
    if (trace.algorithm === 'linformer' || trace.algorithm === 'lsh' || trace.algorithm === 'pooling') {
      const m = this.#view('reduced');
      if (!m) return null;
      const view = { linformer: m.linformerView, lsh: m.lshView, pooling: m.poolingView }[trace.algorithm];
      return view({ trace, exact: session.exact, b, h: hh, lang, pool: s.pool, kernel: s.kernel, stride: s.stride });
    }
    return null;
  }

  // ---- the Performer sweep ----

  #sweepPart(m: NonNullable<ReturnType<typeof need<'performer'>>>): HTMLElement[] {
    const session = this.#session!;
    return m.sweepPart({ sweep: session.sweep, lang: this.#lang, current: session.sweepCurrent, seeds: session.sweepSeeds,
      onRun: () => this.#startSweep(), onCancel: () => { session.cancelSweep(); this.#renderSweep(); },
      onSeeds: (n) => { session.sweepSeeds = n; this.#startSweep(); } });
  }

  /** Redraws the sweep's part only (a progress report: its bar and status line only). */
  #renderSweep(): void {
    flushPatches(); // a part waiting to be patched must not bring back an older progress
    const part = this.#root.querySelector<HTMLElement>('[data-part="sweep"]');
    const m = this.#view('performer');
    if (!part || !m || m.sweepProgress(part, this.#session!.sweep, this.#lang)) return;
    const focused = (this.#root.activeElement as HTMLElement | null)?.dataset?.key;
    fill(part, this.#sweepPart(m));
    if (focused?.startsWith('sweep.')) this.#refocus(focused);
  }

  #startSweep(): void {
    if (this.#sweepTimer) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = null;
    this.#session!.startSweep(() => this.#renderSweep());
    this.#renderSweep();
  }

  /** A sweep is due (new inputs of a small performer scenario): starts it once the edits pause. */
  #maybeSweep(): void {
    if (this.#sweepTimer) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = this.#session?.sweepDue ? setTimeout(() => {
      this.#sweepTimer = null;
      if (this.#session?.sweepDue) this.#startSweep();
    }, 300) : null;
  }

  /** Keyboard focus back on a control of the results after they were drawn anew. */
  #refocus(key: string): void {
    this.#root.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)?.focus();
  }

  /** The errors last reported by a `scenario-error` event (JSON; '' none, null report again). */
  #reported: string | null = '';

  /** The status line of a long run (state/long.ts: it runs in a worker), in the results' head. */
  #longRunLine(lang: Lang): HTMLElement {
    return h('p', { class: 'long-run', hidden: true, dataset: { field: 'long-run' }, attrs: { role: 'status' } },
      h('span', { class: 'long-run-text' }), ' ',
      h('button', { text: t(lang, 'longRunCancel'), dataset: { key: 'long-run.cancel' }, attrs: { type: 'button' },
        on: { click: () => { this.#session?.cancelBackground(); this.#renderErrors(); } } }));
  }

  #renderLongRun(): void {
    const line = this.#root.querySelector<HTMLElement>('[data-field="long-run"]');
    const run = this.#session?.longRun ?? null;
    if (!line) return;
    line.hidden = run === null;
    if (!run) return;
    const lang = this.#lang;
    line.dataset.status = run.status;
    line.dataset.mode = run.mode ?? '';
    const sizes = `L_Q = ${run.L_Q}, L_K = ${run.L_K}`;
    const text = run.status === 'running'
      ? `${t(lang, run.mode === 'worker' ? 'longRunWorker' : run.mode === 'main' ? 'longRunMain' : 'longRunStarting')}: ${sizes} …`
      : run.status === 'done' ? `${t(lang, run.mode === 'main' ? 'longRunDoneMain' : 'longRunDone')}: ${sizes}, ${((run.ms ?? 0) / 1000).toFixed(2)} s`
        : run.status === 'cancelled' ? t(lang, 'longRunCancelled') : `${t(lang, 'longRunFailed')}: ${run.message ?? ''}`;
    line.querySelector('.long-run-text')!.textContent = text;
    (line.querySelector('button') as HTMLButtonElement).hidden = run.status !== 'running';
    // the note that asks to fix an error is for errors only
    const note = this.#root.querySelector<HTMLElement>('.stale-note');
    if (note && this.#session!.errors().length === 0) note.hidden = true;
  }

  #renderErrors(): void {
    const errors = this.#session!.errors();
    showErrors(this.#root, errors, this.#session!.stale);
    this.#renderLongRun();
    const key = errors.length ? JSON.stringify(errors) : '';
    if (key === this.#reported) return;
    this.#reported = key;
    if (key) this.dispatchEvent(new CustomEvent('scenario-error', { detail: errors, bubbles: true }));
  }
}

export function define(name = 'attention-playground'): void {
  if (!customElements.get(name)) customElements.define(name, AttentionPlayground);
}
