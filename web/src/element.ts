// <attention-playground>: the playground as a custom element (SPEC §1). Its attributes
// (preset, scenario, lang, controls, sync-hash, theme), properties (trace, scenario, presets, ready,
// settled), methods (setScenario, setPreset, export) and events (trace, scenario-error):
// docs/page.md, "Element API".
//
// The element wires views to state: its Session (state/, no DOM) holds the scenario, the traces
// and the errors and does every edit, its runs off the main thread with it (state/runs.ts); views/
// build the DOM (layout.ts the panels, inputs.ts the inputs, results-head.ts the results' head);
// UrlSync (url-sync.ts) keeps location.hash; the element says what to re-render.
// Each element has its own shadow root and state; the WASM core is shared (it keeps no state).
import { firstRunsPreset, getEngine, type Engine, type Preset, type Scenario, type Trace } from './engine/compute';
import { PROP, Session, hasExact, setRegistry, sparseKey } from './state';
import { idle, load, need, preloadAll, releaseViews } from './lazy';
import type { ChapterViews } from './chapter';
import { clear, h } from './dom';
import { clone } from './format';
import { loadLanguage, t, type Lang } from './i18n';
import { showErrors } from './views/errors';
import { resultsHead, showLongRun } from './views/results-head';
import { UrlSync, openingPreset } from './url-sync';
import { fillJson, refreshCells, renderInputs, type Change } from './views/inputs';
import { adoptStyles, fill, layout, part } from './views/layout';
import { costLine, results, warningList } from './views/results';
import { flushPatches, keep, lazyPart, render, type LazyPart } from './views/patch';

/** The algorithms with a view of d2l's chapter (chapter.ts). */
const CHAPTER_ALGORITHMS = ['bahdanau', 'positional_encoding', 'additive', 'full'];

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes(): string[] {
    return ['preset', 'scenario', 'lang', 'controls', 'theme'];
  }

  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  readonly #root: ShadowRoot;
  readonly #app: HTMLElement;
  #engine: Engine | null = null;
  #session: Session | null = null;
  /** The URL hash kept in sync with the scenario (`sync-hash`), else null. */
  #url: UrlSync | null = null;
  #started = false;
  /** The trace of the last recompute, until its `trace` event is dispatched. */
  #pendingTrace: Trace | null = null;
  /** The errors last reported by a `scenario-error` event (JSON; '' none, null report again). */
  #reported: string | null = '';
  /** The pitfall switches' <details>: null follows the switches (open while one is changed). */
  #pitfallsOpen: boolean | null = null;
  /** The results' heading, stale note and general error slot: made once per panel (the error
   * slot and the note are shown and hidden by showErrors, not by a render). */
  #resultsHead: { panel: HTMLElement; nodes: Node[] } | null = null;
  /** Views kept as they are drawn while what they show stays the same (by name). */
  #memos = new Map<string, { deps: unknown[]; el: HTMLElement }>();
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

  get #lang(): Lang { return this.getAttribute('lang') === 'zh' ? 'zh' : 'en'; }
  get trace() { return this.#session?.trace ?? null; }
  get scenario(): Scenario { return clone(this.#session?.scenario ?? {}); }
  get presets(): Preset[] { return this.#engine ? this.#engine.presets() : []; }

  setScenario(scenario: object): void {
    if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario)) {
      throw new TypeError('setScenario: expected a scenario object');
    }
    const copy = clone(scenario) as Scenario;
    this.#url?.replaced();
    this.#reported = null;  // a new scenario's errors are reported again, even the same ones
    if (!this.#session) {
      this.ready.then(() => this.setScenario(copy));
      return;
    }
    if (this.#session.replace(copy) && refreshCells(this.#root, this.#session)) {
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
    // the first-load module where it runs the first scenario (engine/compute.ts): a third of the
    // bytes; a page that opens on a preset it does not run fetches the whole module alone
    const preset = openingPreset(this);
    Promise.all([getEngine({ first: preset === null || firstRunsPreset(preset) }), loadLanguage(this.#lang)]).then(
      ([engine]) => this.#start(engine),
      (e: unknown) => {
        clear(this.#app);
        this.#app.append(h('p', { class: 'error', attrs: { role: 'alert' },
          text: `${t(this.#lang, 'loadFailed')}: ${e instanceof Error ? e.message : String(e)}` }));
      });
  }

  /** The core is there: the Session and its runners, the URL's sync, the first scenario. */
  #start(engine: Engine): void {
    this.#engine = engine;
    setRegistry(engine.algorithms());
    const session = new Session(engine, (trace) => {
      // dispatched once the results show it (the end of the update that follows), else in a microtask
      this.#pendingTrace = trace;
      queueMicrotask(() => this.#dispatchTrace());
    }, { sweep: () => load('sweep'), background: () => load('background') });  // lazy chunks
    this.#session = session;
    session.onLoaded = () => this.#renderAll();
    session.onBackground = (final) => {
      const long = session.longRun !== null;
      if (final) this.#update(long ? 'values' : 'inputs', long ? 'background' : 'train');
      else if (long) this.#renderLongRun();
      else {
        flushPatches(); // a part waiting to be patched must not bring back an older progress
        this.#chapter?.progress(this.#root, this.#lang);
      }
    };
    if (this.hasAttribute('sync-hash')) {
      this.#url = new UrlSync(session, { preset: (name) => this.#loadPreset(name, 'hash'),
        applying: () => { this.#reported = null; }, whole: () => this.#renderWhole('hash'), fallback: () => this.#presetWithError(),
        failed: () => { (this.#part('json') as HTMLDetailsElement | null)?.setAttribute('open', ''); this.#renderErrors(); } });
    }
    const first = this.#initialScenario();
    setTimeout(releaseViews, 2000);  // a first scenario that fails shows no trace: its views load anyway
    preloadAll();  // the other views' modules, in the background once the first trace is shown
    void Promise.resolve(first).then(() => this.#resolveReady());
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
    const fromHash = this.#url?.read();
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
    this.#url?.replaced();
    this.#reported = null;
    if (this.#session!.fromText(text)) this.#renderWhole(source);
    else if (Object.keys(this.#session!.scenario).length) this.#renderErrors();
  }

  #loadPreset(name: string, source: string): boolean {
    this.#url?.replaced();
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

  /** The `trace` event, after the results were updated to show the trace. */
  #dispatchTrace(): void {
    const trace = this.#pendingTrace;
    if (!trace) return;
    this.#pendingTrace = null;
    this.dispatchEvent(new CustomEvent('trace', { detail: trace, bubbles: true }));
    // lazy.ts: the views asked for before the first trace was on screen load once it is painted
    requestAnimationFrame(() => setTimeout(releaseViews, 0));
  }

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
    if (source === 'control' || source === 'api') this.#url?.edited();
    this.#renderErrors();
    if (source !== 'json') fillJson(this.#root, this.#session!);
    this.#url?.write();
  }

  #renderAll(source = 'render'): void {
    if (!this.#session) return;
    layout(this.#app, this.getAttribute('controls'));
    this.#memos.clear();
    this.#app.setAttribute('lang', this.#lang);
    this.#renderInputs(source, true);
    this.#renderOutputs();
    this.#afterChange(source);
    this.#dispatchTrace();
  }

  #part(name: string): HTMLElement | null {
    return part(this.#root, name);
  }

  /** Rebuilds the input panels from the scenario (views/inputs.ts). */
  #renderInputs(source: string, all = false): void {
    const session = this.#session!;
    renderInputs(this.#root, { session, lang: this.#lang, presets: this.#engine!.presets(), source, all,
      probPanel: session.scenario.algorithm === 'prob',
      pitfallsOpen: this.#pitfallsOpen, onPitfallsOpen: (open) => { this.#pitfallsOpen = open; },
      update: (change, from) => this.#update(change, from), showErrors: () => this.#renderErrors(),
      onPreset: (name) => this.#loadPreset(name, 'control'), onLang: (l) => this.setAttribute('lang', l),
      onCopyLink: this.#url ? (button) => void this.#url!.copyLink(button, this.#lang, this.#root) : null,
      onSlice: () => { this.#renderInputs('slice'); this.#renderOutputs(); } });
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
        this.#resultsHead = { panel, nodes: resultsHead(session, lang, this.#root, () => { session.cancelBackground(); this.#renderErrors(); }) };
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
      return m ? m.flashView({ trace, b, h: hh, lang, step: session.flashStep, full: session.exact, blockK: Number(s.block_k ?? PROP.block_k.default),
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

  #renderLongRun(): void {
    showLongRun(this.#root, this.#session?.longRun ?? null, this.#lang, (this.#session?.errors().length ?? 0) > 0);
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
