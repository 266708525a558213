// <attention-playground>: the playground as a custom element (SPEC §1).
//
//   attributes  preset="softmax-toy"  scenario='{"algorithm":"full",...}'  lang="en|zh"
//               controls="preset algorithm tensors mask options prob json" (which panels; default all)
//               sync-hash (index.html: keep location.hash in sync with the scenario)
//   property    trace (latest good trace, as the CLI prints it), scenario (a copy), ready (Promise)
//   method      setScenario(object)
//   event       "trace" (detail = trace) after each successful recompute
//
// The element wires views to state: its Session (state/, no DOM) holds the scenario, the traces
// and the errors and does every edit; views/ build the DOM; the element says what to re-render.
// Each element has its own shadow root and state; the WASM core is shared (it keeps no state).
import css from './styles.css?inline';
import { getEngine, type Engine, type Preset, type Scenario } from './compute';
import { PROP, Session, changedPitfalls, parseHash, setRegistry, sliceSizes, traits } from './state';
import { clear, h } from './dom';
import { clone, prettyJson } from './format';
import { t, type Lang } from './i18n';
import { propControls, type ControlContext } from './views/controls';
import { errorSlot, showErrors } from './views/errors';
import { jsonPanel, maskPanel, presetBar, probControls, sliceBar, tensorsPanel } from './views/panels';
import { costLine, results, warningList } from './views/results';
import { probView } from './views/prob';
import { nadarayaView } from './views/nadaraya';
import { pitfallHint, pitfallView } from './views/pitfalls';

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

/** Replaces an element's children. */
function fill(el: HTMLElement | null, children: readonly Node[]): void {
  if (!el) return;
  clear(el);
  el.append(...children);
}

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes(): string[] {
    return ['preset', 'scenario', 'lang', 'controls'];
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
    if (!this.#session) {
      this.ready.then(() => this.setScenario(copy));
      return;
    }
    this.#session.replace(copy);
    this.#renderWhole('api');
  }

  connectedCallback(): void {
    if (this.#started) return;
    this.#started = true;
    getEngine().then((engine) => {
      this.#engine = engine;
      setRegistry(engine.algorithms());
      this.#session = new Session(engine, (trace) => this.dispatchEvent(new CustomEvent('trace', { detail: trace, bubbles: true })));
      this.#initialScenario();
      if (this.hasAttribute('sync-hash')) window.addEventListener('hashchange', () => this.#fromHash());
      this.#resolveReady();
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
    else if (name === 'lang' || name === 'controls') this.#renderAll();
  }

  // ---- whole scenarios ----

  #initialScenario(): void {
    if (this.hasAttribute('sync-hash') && this.#fromHash()) return;
    const text = this.getAttribute('scenario');
    if (text) {
      this.#scenarioText(text, 'attribute');
      if (Object.keys(this.#session!.scenario).length) return;
    }
    const presets = this.#engine!.presets();
    const name = this.getAttribute('preset');
    this.#loadPreset(presets.some((p) => p.name === name) ? name! : presets[0]?.name ?? '', 'init');
  }

  #scenarioText(text: string, source: string): void {
    if (this.#session!.fromText(text)) this.#renderWhole(source);
    else if (Object.keys(this.#session!.scenario).length) this.#renderErrors();
  }

  #loadPreset(name: string, source: string): void {
    if (this.#session!.loadPreset(name)) this.#renderWhole(source);
    else this.#renderErrors();
  }

  #renderWhole(source: string): void {
    this.#pitfallsOpen = null;
    this.#renderAll(source);
  }

  // ---- URL hash (index.html only) ----

  #syncHash(): void {
    if (!this.hasAttribute('sync-hash')) return;
    const text = this.#session!.hash;
    if (text === this.#lastHash) return;
    this.#lastHash = text;
    try {
      history.replaceState(history.state, '', text);
    } catch {
      // a URL too long for this browser: the hash keeps the last scenario that fitted
    }
  }

  #fromHash(): boolean {
    const hash = location.hash;
    if (!hash || hash === this.#lastHash) return false;
    const wanted = parseHash(hash);
    if (!wanted) return false;
    if ('preset' in wanted) this.#loadPreset(wanted.preset, 'hash');
    else this.#scenarioText(wanted.scenario, 'hash');
    return true;
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
  }

  #afterChange(source: string): void {
    this.#renderErrors();
    if (source !== 'json') {
      const area = this.#root.querySelector<HTMLTextAreaElement>('[data-panel="json"] textarea');
      if (area && this.#root.activeElement !== area) area.value = prettyJson(this.#session!.scenario);
    }
    this.#syncHash();
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
      lang, onPreset: (name) => this.#loadPreset(name, 'control'), onLang: (l) => this.setAttribute('lang', l) }));
    fill(this.#part('algorithm'), [...propControls('algorithm', ctx), errorSlot('algorithm')]);

    const mask = this.#part('mask');
    fill(mask, maskPanel({ ctx, invalid: session.invalid,
      onToggle: (i, j) => { session.toggleAllowed(i, j); edited(true, 'inputs'); },
      onLens: (path, text) => edited(session.editLens(path, text)),
      onPerQuery: (twoD) => { session.lensPerQuery(twoD); edited(true, 'inputs'); } }));
    if (mask) mask.hidden = !PROP['mask.kind'].applies(s);

    fill(this.#part('options'), [h('h3', { text: t(lang, 'options') }),
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

  #renderOutputs(): void {
    const session = this.#session!;
    const { trace, scenario: s, b } = session;
    const hh = session.h;
    const lang = this.#lang;
    const panel = this.#part('results');
    if (panel) {
      fill(panel, [h('div', { class: 'panel-head' }, h('h2', { text: t(lang, 'results') })),
        h('p', { class: 'stale-note', hidden: true, text: t(lang, 'stale') }), errorSlot('general')]);
      if (trace) {
        panel.append(costLine(trace, lang));
        const w = warningList(trace, lang);
        if (w) panel.append(w);
        if (trace.algorithm === 'nadaraya_watson') panel.append(nadarayaView({ trace, scenario: s, lang }));
        panel.append(results({ trace, b, h: hh, lang }));
      }
    }
    const body = this.#part('prob')?.querySelector<HTMLElement>('.prob-body') ?? null;
    if (body && !body.parentElement!.hidden) {
      clear(body);
      if (trace?.algorithm === 'prob') {
        body.append(h('p', { class: 'samples-source', dataset: { field: 'samples-source' },
          text: s.sample_index !== undefined ? t(lang, 'samplesGiven') : `${t(lang, 'samplesDrawn')} (seed = ${Number(s.seed ?? 0)})` }));
        const ref = session.reference;
        body.append(ref
          ? pitfallView({ trace, reference: ref.outcome, changed: ref.changed, samples: ref.samples, b, h: hh, lang, seed: Number(s.seed ?? 0) })
          : pitfallHint(lang, () => this.#showPitfalls()));
        body.append(probView({
          trace, full: session.full, b, h: hh, lang,
          factor: Number(s.factor ?? PROP.factor.default),
          causal: (s.mask as Scenario | undefined)?.kind === 'causal',
          causalInitial: String(s.causal_initial ?? PROP.causal_initial.default),
          divisor: String(s.sparsity_divisor ?? PROP.sparsity_divisor.default),
        }));
      }
    }
    const modified = this.#root.querySelector<HTMLElement>('.modified');
    if (modified) modified.hidden = !(session.preset && session.modified);
  }

  #renderErrors(): void {
    showErrors(this.#root, this.#session!.errors(), this.#session!.stale);
  }
}

export function define(name = 'attention-playground'): void {
  if (!customElements.get(name)) customElements.define(name, AttentionPlayground);
}
