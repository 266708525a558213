// <attention-playground>: the playground as a custom element (SPEC §1). Its attributes
// (preset, scenario, lang, controls, sync-hash, theme), properties (trace, scenario, presets, ready,
// settled), methods (setScenario, setPreset, export, explain) and events (trace, scenario-error):
// docs/page.md, "Element API".
//
// The element wires views to state: its Session (state/, no DOM) holds the scenario, the traces
// and the errors and does every edit, its runs off the main thread with it (state/runs.ts); views/
// build the DOM (layout.ts the panels, inputs.ts the inputs, results-head.ts the results' head);
// UrlSync (url-sync.ts) keeps location.hash; the element says what to re-render.
// Each element has its own shadow root and state; the WASM core is shared (it keeps no state).
import { firstRunsPreset, getEngine, type Engine, type Estimate, type Preset, type Scenario, type Trace } from './engine/compute';
import { Session, hasExact, setRegistry, sliceSizes } from './state';
import type { Recorded, Snapshot, Undo } from './undo';
import { PAGE_ALGORITHMS, algorithm, type ViewHost } from './algorithms';
import { idle, load, need, needModule, preloadAll, releaseViews } from './lazy';
import type { ChapterViews } from './chapter';
import type { Explanation } from './explain/explanation';
import { clear, h } from './dom';
import { clone } from './format';
import { loadLanguage, t, type Lang } from './i18n';
import { showErrors } from './views/errors';
import { resultsHead, showLongRun } from './views/results-head';
import { UrlSync, openingPreset, openingPrefs, remember } from './url-sync';
import { prefsTail } from './state/hash';
import { fillJson, refreshCells, refreshWeights, renderInputs, type Change } from './views/inputs';
import { adoptStyles, isOpen, layout, part, section } from './views/layout';
import { costLine, results, warningList } from './views/results';
import { painting } from './engine/typed';
import { flushPatches, keep, lazyPart, render, type LazyPart } from './views/patch';
import { explainHook } from './views/explain-hook';

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
  /** What the algorithms' views (web/src/algorithms/) get of this element; their state by key. */
  readonly #host: ViewHost;
  #owned = new Map<string, unknown>();
  /** d2l's chapter views (issue 9; chapter.ts, loaded on demand): Bahdanau training, complexity,
   * positional encoding, the 1/√d argument, additive features. */
  #chapter: ChapterViews | null = null;
  /** The results' sections opened or closed by the user (by controls word), until another preset. */
  #open = new Map<string, boolean>();
  /** Undo and redo, Back and Forward, paste and drop (issue 15; undo.ts, loaded after the first
   * trace); the states recorded until then. */
  #undo: Undo | null = null;
  #queued: Recorded[] = [];

  constructor() {
    super();
    this.ready = new Promise((resolve) => { this.#resolveReady = resolve; });
    this.#root = this.attachShadow({ mode: 'open' });
    adoptStyles(this.#root);
    this.#app = h('div', { class: 'app' }, h('p', { class: 'loading', text: t(this.#lang, 'loading') }));
    this.#root.append(this.#app);
    explainHook(this.#root);  // a cell hovered, focused or tapped explains itself (views/explain-panel.ts, lazy)
    // toggle does not bubble: caught on its way down
    this.#root.addEventListener('toggle', (e) => {
      const d = e.target as HTMLElement;
      if (!d.dataset?.dive) return;
      this.#open.set(d.dataset.dive, (d as HTMLDetailsElement).open);
      // a section whose view waits until it is opened (chapter.ts: the 1/√d draws) is drawn now
      if ((d as HTMLDetailsElement).open && d.querySelector(':scope > [data-unbuilt]')) this.#renderOutputs();
    }, true);
    const self = this;
    this.#host = {
      get session() { return self.#session!; },
      get lang() { return self.#lang; },
      root: this.#root,
      redraw: () => this.#renderOutputs(),
      update: () => this.#update('inputs'),
      refocus: (key) => this.#refocus(key),
      memo: (name, deps, build) => this.#memo(name, deps, build),
      own: <T>(key: string, make: () => T): T => {
        if (!this.#owned.has(key)) this.#owned.set(key, make());
        return this.#owned.get(key) as T;
      },
      need: (loader) => needModule(loader, () => { if (this.#session) this.#renderOutputs(); }),
    };
  }

  get #lang(): Lang { return this.getAttribute('lang') === 'zh' ? 'zh' : 'en'; }
  get trace() { return this.#session?.trace ?? null; }
  /** The core's estimate of the scenario's run: {cost, numbers, sizes, exact} (engine/compute.ts). */
  get estimate(): Estimate | null { return this.#session?.estimate ?? null; }
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
    const alike = this.#session.replace(copy);
    if (alike === 'values' && refreshCells(this.#root, this.#session)) {
      // only tensor values changed: the grids' cells take the new numbers, the results are drawn again
      this.#update('values', 'api');
      return;
    }
    if (alike === 'draws') {
      // another seed of the same draws (a tutorial's script, issue 18's L = 4096 runs): the inputs
      // drawn again, the results patched, the page's layout and its open sections kept
      this.#update('inputs', 'api');
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
   * PNG (default field: `weights`, else the main output), as a Blob (export.ts, a lazy chunk);
   * `{slices: "all"}`: the CSV of every (b, h) slice. */
  async export(kind: string, field?: string, options?: { slices?: 'all' | 'shown' }): Promise<Blob> {
    await this.ready;
    const s = this.#session!;
    const all = kind === 'csv' && options?.slices === 'all' ? sliceSizes(s.traced, s.trace) : null;
    return (await load('export')).exportTrace(s.trace, kind, field, s.b, s.h, this.#lang, s.stale ? null : s.scenario, all);
  }

  /** SPEC §1: how the cell `index` of trace field `field` (or of a map the page draws beside the
   * trace: "exact.weights", "flash.output", ...) is computed, with its numbers; rejects with an
   * Error naming the field and index when there is no such cell or no trace (explain/, lazy chunks). */
  async explain(field: string, index: number[]): Promise<Explanation> {
    await this.ready;
    const s = this.#session!;
    const exact = s.exact?.ok ? s.exact.trace : null;
    return (await load('explain')).explainCell({ trace: s.trace, scenario: s.traced, exact, b: s.b, h: s.h, flashStep: s.flashStep },
      field, index, this.#lang);
  }

  /** Resolves once a long run under way (in a worker) is done, the views the current trace needs
   * are loaded and drawn (lazy chunks), every part of the results off screen shows the latest
   * trace (they are patched in idle time) and the large maps are painted (in slices). A training is not waited for (its `trace` event is). */
  get settled(): Promise<void> {
    flushPatches();
    const running = this.#session?.longRunSettled() ?? Promise.resolve();
    return running.then(() => Promise.all([idle(), loadLanguage(this.#lang)])).then(() => idle()).then(() => flushPatches()).then(() => Promise.all(painting)) as Promise<unknown> as Promise<void>;
  }

  connectedCallback(): void {
    if (this.#started) return;
    this.#started = true;
    // the first-load module where it runs the first scenario (engine/compute.ts): a third of the
    // bytes; a page that opens on a preset it does not run fetches the whole module alone
    if (this.hasAttribute('sync-hash')) openingPrefs(this);  // the link's, remembered or the browser's language and theme
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
        failed: () => { (this.#part('json') as HTMLDetailsElement | null)?.setAttribute('open', ''); this.#renderErrors(); },
        prefs: () => prefsTail(this.#lang, this.getAttribute('theme') ?? 'light') });
    }
    const attach = () => {  // once the first trace is shown (lazy.ts holds it until then)
      const m = need('undo', attach);
      if (!m || this.#undo) return;
      this.#undo = new m.Undo({ root: this.#root, url: this.#url, session: this.#session!, restore: (snap) => this.#restore(snap),
        update: (ok) => this.#update(ok ? 'inputs' : 'errors') }, this.#queued);
      this.#queued = [];
    };
    attach();
    const first = this.#initialScenario();
    setTimeout(releaseViews, 2000);  // a first scenario that fails shows no trace: its views load anyway
    // the other views' modules, in the background once the first trace is shown
    preloadAll(PAGE_ALGORITHMS.flatMap((a) => [a.view, a.panelView].flatMap((v) => (v ? [v.load] : []))));
    void Promise.resolve(first).then(() => this.#resolveReady());
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (!this.#session || old === value) return;
    if (name === 'preset' && value) this.#loadPreset(value, 'attribute');
    else if (name === 'scenario' && value) this.#scenarioText(value, 'attribute');
    else if (name === 'lang') void loadLanguage(this.#lang).then(() => this.#renderAll());  // never drawn half-translated
    if (name === 'lang' || name === 'theme') this.#url?.write();  // the link keeps them
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
    this.#open.clear();
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

  #restore(snap: Snapshot): void {
    const focused = (this.#root.activeElement as HTMLElement | null)?.dataset?.key;
    this.#url?.replaced();
    this.#reported = null;
    this.#session!.restore(snap);
    this.#renderWhole('history');
    if (focused) this.#refocus(focused);  // drawn anew: the focus (and the next Ctrl+Z) stays where it was
  }

  /** Reset: the preset as it comes (an edit: undo brings the changes back). */
  #reset(): void {
    if (this.#session?.preset) this.#loadPreset(this.#session.preset, 'control');
  }

  /** The state after a change into the undo history (undo.ts): an edit (a control, a paste, the
   * API, the JSON; a number typed into one field within a second is one entry), or the state shown
   * (the first scenario, a link, a redraw, an undo). References only. */
  #record(source: string): void {
    const s = this.#session!;
    const active = this.#root.activeElement as HTMLElement | null;
    const r: Recorded = { snap: { scenario: s.scenario, preset: s.preset, modified: s.modified },
      key: active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA') ? active.dataset.key ?? '' : '',
      edit: source === 'control' || source === 'api' || source === 'json' || source === 'attribute', time: performance.now() };
    if (this.#undo) this.#undo.record(r);
    else if (this.#queued.push(r) > 50) this.#queued.shift();
  }

  #afterChange(source: string): void {
    this.#record(source);
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
      probPanel: algorithm(session.scenario.algorithm)?.panelView !== undefined,
      pitfallsOpen: this.#pitfallsOpen, onPitfallsOpen: (open) => { this.#pitfallsOpen = open; },
      update: (change, from) => this.#update(change, from), showErrors: () => this.#renderErrors(),
      onPreset: (name) => this.#loadPreset(name, 'control'), onReset: () => this.#reset(),
      onLang: (l) => { if (this.#url) remember('lang', l); this.setAttribute('lang', l); },
      theme: this.#url ? this.getAttribute('theme') ?? 'auto' : null,
      onTheme: (th) => { remember('theme', th); this.setAttribute('theme', th); },
      onCopyLink: this.#url ? (button) => void this.#url!.copyLink(button, this.#lang, this.#root) : null,
      onSlice: () => { this.#renderInputs('slice'); this.#renderOutputs(); } });
  }

  /** A view's module once loaded; until then null, and the outputs are drawn again when it is. */
  #view<K extends Parameters<typeof need>[0]>(name: K) {
    return need(name, () => { if (this.#session) this.#renderOutputs(); });
  }

  /** The chapter's views that go with the scenario's algorithm (none while chapter.ts loads). */
  #chapterViews(): HTMLElement[] {
    const { trace, scenario: s } = this.#session!;
    const chapter = algorithm(s.algorithm)?.chapter;
    // a view of the trace's numbers waits for a trace of the scenario's algorithm
    if (!chapter || (!chapter.first && trace?.algorithm !== s.algorithm)) return [];
    const m = this.#view('chapter');
    if (!m || !this.#engine || !this.#session) return [];
    this.#chapter ??= new m.ChapterViews(this.#engine, this.#session, () => this.#renderOutputs(), (name) => isOpen(name, this.#open));
    return chapter.views(this.#chapter, this.#lang);
  }

  /** Draws the results: the views are built from the state (their maps deferred) and patched into
   * what is drawn, so an edit touches the cells that changed only (views/patch.ts). */
  #renderOutputs(): void {
    const session = this.#session!;
    const { trace, b } = session;
    const hh = session.h;
    const lang = this.#lang;
    const own = trace ? algorithm(trace.algorithm) : undefined;
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
        // the flow first (one screen of computation), then the deep dives as named sections
        const controls = this.getAttribute('controls');
        const sec = (el: HTMLElement | null) => el && section(el, controls, this.#open);
        if (trace) {
          const stepCost = own?.cost === 'step' ? this.#view('chapter') : null;  // Bahdanau's: chapter.ts
          nodes.push(lazyPart('cost', () => (stepCost && this.#chapter ? this.#chapter.costLine(trace, lang) : costLine(trace, lang))), lazyPart('warnings', () => warningList(trace, lang)));
          // a library chosen (reference, mask.align): its distance from SPEC's formulas (issue 17)
          if (session.spec !== null) nodes.push(lazyPart('reference', () => this.#view('reference')?.referenceLine(session.traced, trace, session.spec, lang) ?? null));
          // an algorithm's own flow once its chunk is there (its maps without the operations until then)
          const steps = own?.flow ? this.#host.need(own.flow) ?? [] : undefined;
          nodes.push(lazyPart('maps', () => results({ trace, b, h: hh, lang, steps, formula: this.#formulas() })));
          const v = own?.view && (own.view.when?.(this.#host) ?? true) ? own.view : null;
          if (v?.part) nodes.push(lazyPart(v.part, () => sec(v.render(this.#host.need(v.load), this.#host, trace))));
          nodes.push(lazyPart('algorithm', () => {
            const mine = v && !v.part ? v.render(this.#host.need(v.load), this.#host, trace) : null;
            if (mine || !hasExact(trace)) return sec(mine);
            const m = this.#view('approx');
            return m ? sec(m.approxPanel({ trace, lang, b, h: hh })) : null;
          }));
        }
        nodes.push(...this.#chapterViews().map(sec));
        return nodes;
      });
    }
    const body = this.#part('prob')?.querySelector<HTMLElement>('.prob-body') ?? null;
    if (body && !body.parentElement!.hidden) {
      const v = own?.panelView;
      render(body, () => (trace && v ? v.render(this.#host.need(v.load), this.#host, trace) : []));
    }
    // (looked for in the header and the results' head: a selector over the whole page walks every node)
    const top = this.#app.querySelector<HTMLElement>(':scope > header.top');
    for (const el of top?.querySelectorAll<HTMLElement>('.modified, [data-key="reset"]') ?? []) el.hidden = !(session.preset && session.modified);
    // "CSV, every (b, h)" only where there is more than one (b, h) (else it is the CSV)
    const csvAll = panel?.querySelector<HTMLElement>('[data-key="export.csv-all"]');
    if (csvAll && trace) { const { B, H } = sliceSizes(session.traced, trace); csvAll.hidden = B * H <= 1; }
    own?.afterRender?.(this.#host);  // the shown trace's algorithm only (performer's sweep timer)
    refreshWeights(this.#root);  // the weights the seed drew are the new trace's
  }

  /** The flow steps' formulas of this element (views/step-formulas.ts: null until loaded). */
  #formula: ((algorithm: string, field: string, lang: Lang) => Node | null) | undefined;
  #formulas() {
    const m = this.#view('formulas');
    return m ? (this.#formula ??= m.formulas()) : undefined;
  }

  /** The view `name` as built last time when `deps` are the same (Object.is), else built anew. */
  #memo(name: string, deps: unknown[], build: () => HTMLElement): HTMLElement {
    const m = this.#memos.get(name);
    if (m && m.deps.length === deps.length && m.deps.every((d, i) => Object.is(d, deps[i]))) return m.el;
    const el = keep(build());
    this.#memos.set(name, { deps, el });
    return el;
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
