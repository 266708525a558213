// <attention-playground>: the playground as a custom element (SPEC §1).
//
//   attributes  preset="softmax-toy"  scenario='{"algorithm":"full",...}'  lang="en|zh"
//               controls="preset algorithm tensors mask options prob json" (which panels; default all)
//               sync-hash (index.html: keep location.hash in sync with the scenario)
//   property    trace (latest good trace, as the CLI prints it), scenario (a copy), ready (Promise)
//   method      setScenario(object)
//   event       "trace" (detail = trace) after each successful recompute
//
// Each element has its own shadow root and state; the WASM core is shared (it keeps no state).
import css from './styles.css?inline';
import { getEngine, type Engine, type Outcome, type Preset, type Scenario, type Trace } from './compute';
import { PITFALL_KEYS, PROP, PROPS, changedPitfalls, setImplementedAlgorithms, dimNames, QKV_ALGORITHMS, dims, get, normalise, referenceScenario, resize, samplesFit, set, setIn,
  type DimName, type Panel, type PitfallKey, type Stash } from './state';
import { append, clear, h } from './dom';
import { clone, parseNumber, prettyJson, range, shapeOf } from './format';
import { t, type Lang } from './i18n';
import { propControl, type ControlContext } from './views/controls';
import { allowedEditor, lensEditor, pathText, tensorEditor } from './views/grid-editor';
import { costLine, results, warningList } from './views/results';
import { probView } from './views/prob';
import { nadarayaView } from './views/nadaraya';
import { pitfallHint, pitfallView } from './views/pitfalls';

const PANELS = ['preset', 'algorithm', 'tensors', 'mask', 'options', 'prob', 'json'] as const;
type PanelName = (typeof PANELS)[number];
type Slot = 'algorithm' | 'q' | 'k' | 'v' | 'tensors' | 'mask' | 'options' | 'prob' | 'json' | 'general';
const DIM_MAX: Record<DimName, number> = { B: 8, H: 8, L_Q: 32, L_K: 32, E: 32, E_k: 32, D: 32 };

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

/** Which error slot shows a message about `field` ("k[0][3]", "mask.window", "factor"). */
function slotOf(field: string): Slot {
  const root = field.split(/[.[]/)[0];
  if (root === 'q' || root === 'k' || root === 'v') return root;
  if (root === 'mask') return 'mask';
  if (root === 'algorithm') return 'algorithm';
  const prop = PROP[root];
  if (prop) return prop.panel === 'tensors' ? 'tensors' : (prop.panel as Slot);
  return 'general';
}

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes(): string[] {
    return ['preset', 'scenario', 'lang', 'controls'];
  }

  readonly ready: Promise<void>;
  #resolveReady!: () => void;
  #root: ShadowRoot;
  #engine: Engine | null = null;
  #started = false;
  #scenario: Scenario = {};
  #stash: Stash = {};
  #sampleStash: unknown = undefined;
  #preset = '';
  #modified = false;
  #trace: Trace | null = null;
  #full: Outcome | null = null;
  /** With a pitfall switch away from the reference: the same scenario with the switches at their defaults. */
  #reference: { outcome: Outcome; changed: { key: PitfallKey; value: unknown }[]; samples: 'reference' | 'set-aside' | null } | null = null;
  /** The pitfall switches' <details>: null follows the switches (open while one is changed). */
  #pitfallsOpen: boolean | null = null;
  #error: { message: string; field: string } | null = null;
  #invalid = new Map<string, string>();
  #jsonError: string | null = null;
  #b = 0;
  #h = 0;
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

  get trace(): Trace | null {
    return this.#trace;
  }

  get scenario(): Scenario {
    return clone(this.#scenario);
  }

  get presets(): Preset[] {
    return this.#engine ? this.#engine.presets() : [];
  }

  setScenario(scenario: object): void {
    if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario)) {
      throw new TypeError('setScenario: expected a scenario object');
    }
    const copy = clone(scenario) as Scenario;
    if (!this.#engine) {
      this.ready.then(() => this.setScenario(copy));
      return;
    }
    this.#replace(copy, '', 'api');
  }

  connectedCallback(): void {
    if (this.#started) return;
    this.#started = true;
    getEngine().then((engine) => {
      this.#engine = engine;
      setImplementedAlgorithms(engine.algorithms());
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
    if (!this.#engine || old === value) return;
    if (name === 'preset' && value) this.#loadPreset(value, 'attribute');
    else if (name === 'scenario' && value) this.#scenarioText(value);
    else if (name === 'lang' || name === 'controls') this.#renderAll();
  }

  // ---- state changes ----

  #initialScenario(): void {
    if (this.hasAttribute('sync-hash') && this.#fromHash()) return;
    const text = this.getAttribute('scenario');
    if (text) {
      this.#scenarioText(text);
      if (Object.keys(this.#scenario).length) return;
    }
    const presets = this.#engine!.presets();
    const name = this.getAttribute('preset');
    this.#loadPreset(presets.some((p) => p.name === name) ? name! : presets[0]?.name ?? '', 'init');
  }

  #scenarioText(text: string): void {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected an object');
      this.#jsonError = null;
      this.#replace(parsed as Scenario, '', 'attribute');
    } catch (e) {
      this.#jsonError = `scenario: invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
      if (Object.keys(this.#scenario).length) this.#renderErrors();
    }
  }

  #loadPreset(name: string, source: string): void {
    const preset = this.#engine!.presets().find((p) => p.name === name);
    if (!preset) {
      this.#jsonError = `preset: no preset named "${name}"`;
      this.#renderErrors();
      return;
    }
    this.#jsonError = null;
    this.#replace(clone(preset.scenario) as Scenario, name, source);
  }

  /** A whole new scenario (preset, setScenario, attribute, URL, JSON editor). */
  #replace(scenario: Scenario, preset: string, source: string): void {
    this.#stash = {};
    this.#sampleStash = undefined;
    this.#pitfallsOpen = null;
    this.#preset = preset;
    this.#modified = false;
    this.#b = 0;
    this.#h = 0;
    this.#scenario = scenario;
    this.#invalid.clear();
    this.#recompute();
    this.#renderAll(source);
  }

  /** An edit of the current scenario. */
  #commit(next: Scenario, structural: boolean, source = 'control'): void {
    this.#scenario = normalise(next, this.#stash, this.#scenario);
    this.#modified = true;
    this.#recompute();
    if (structural) this.#renderInputs(source);
    this.#renderOutputs();
    this.#afterChange(source);
  }

  #setProp(key: string, value: unknown, structural: boolean): void {
    const next = clone(this.#scenario);
    set(next, key, value);
    if (key === 'factor' || key === 'algorithm' || key === 'sample_per_head') this.#fitSamples(next);
    this.#commit(next, structural);
  }

  /** Keeps a given sample_index only while its shape fits (width U_part; one per head with
   * sample_per_head); brings it back when it fits again. */
  #fitSamples(s: Scenario): void {
    if (s.algorithm !== 'prob') return;
    if (s.sample_index !== undefined && !samplesFit(s, s.sample_index)) {
      this.#sampleStash = s.sample_index;
      delete s.sample_index;
    } else if (s.sample_index === undefined && this.#sampleStash !== undefined && samplesFit(s, this.#sampleStash)) {
      s.sample_index = this.#sampleStash;
      this.#sampleStash = undefined;
    }
  }

  #resample(): void {
    const next = clone(this.#scenario);
    delete next.sample_index;
    this.#sampleStash = undefined;
    next.seed = (Number(next.seed) || 0) + 1;
    this.#commit(next, true);
  }

  #editCell(name: string, path: number[], text: string): void {
    const key = pathText(name, path);
    const n = parseNumber(text);
    if (n === null) {
      this.#invalid.set(key, `${key}: expected a number, got "${text}"`);
      this.#renderErrors();
      return;
    }
    this.#invalid.delete(key);
    const next = clone(this.#scenario);
    next[name] = setIn(next[name], path, n);
    this.#commit(next, false);
  }

  #recompute(): void {
    const engine = this.#engine!;
    const out = engine.run(this.#scenario);
    if (!out.ok) {
      this.#error = { message: out.error, field: out.field };
      return;
    }
    this.#error = null;
    this.#trace = out.trace;
    this.#full = null;
    this.#reference = null;
    if (out.trace.algorithm === 'prob') {
      const s = this.#scenario;
      const full: Scenario = { algorithm: 'full', q: s.q, k: s.k, v: s.v, trace: 'context' };
      if (s.scale !== undefined) full.scale = s.scale;
      if (get(s, 'mask.kind') === 'causal') full.mask = { kind: 'causal' };
      this.#full = engine.run(full);
      const changed = changedPitfalls(s);
      if (changed.length) {
        const { scenario, droppedSamples } = referenceScenario(s);
        const setAside = s.sample_per_head === true && s.sample_index === undefined && shapeOf(this.#sampleStash).length === 2;
        this.#reference = { outcome: engine.run(scenario), changed: changed.map((key) => ({ key, value: s[key] })),
          samples: droppedSamples ? 'reference' : setAside ? 'set-aside' : null };
      }
    }
    const sh = out.trace.shapes;
    const B = sh.q?.[0] ?? sh.context?.[0] ?? sh.output?.[0] ?? 1;
    const H = sh.q?.[2] ?? sh.head_weights?.[1] ?? sh.context?.[2] ?? 1;
    this.#b = Math.min(this.#b, Math.max(0, B - 1));
    this.#h = Math.min(this.#h, Math.max(0, H - 1));
    this.dispatchEvent(new CustomEvent('trace', { detail: out.trace, bubbles: true }));
  }

  #afterChange(source: string): void {
    this.#renderErrors();
    this.#syncJson(source);
    this.#syncHash();
  }

  // ---- URL hash (index.html only) ----

  #hashText(): string {
    if (this.#preset && !this.#modified) return '#preset=' + encodeURIComponent(this.#preset);
    return '#scenario=' + encodeURIComponent(JSON.stringify(this.#scenario));
  }

  #syncHash(): void {
    if (!this.hasAttribute('sync-hash')) return;
    const text = this.#hashText();
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
    const params = new URLSearchParams(hash.slice(1));
    const preset = params.get('preset');
    const text = params.get('scenario');
    if (preset) this.#loadPreset(preset, 'hash');
    else if (text) this.#scenarioText(text);
    else return false;
    return true;
  }

  // ---- rendering ----

  #panels(): Set<PanelName> {
    const attr = this.getAttribute('controls');
    if (attr === null || attr.trim() === '' || attr.trim() === 'all') return new Set(PANELS);
    const words = attr.split(/[\s,]+/);
    return new Set(PANELS.filter((p) => words.includes(p)));
  }

  #renderAll(source = 'render'): void {
    if (!this.#engine) return;
    const lang = this.#lang;
    const shown = this.#panels();
    clear(this.#app);
    this.#app.setAttribute('lang', lang);
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
    const body = h('div', { class: side.childElementCount ? 'body' : 'body single' }, side.childElementCount ? side : null, main);
    this.#app.append(body);
    this.#renderInputs(source, true);
    this.#renderOutputs();
    this.#afterChange(source);
  }

  #part(name: string): HTMLElement | null {
    return this.#root.querySelector(`[data-panel="${name}"]`);
  }

  #ctx(): ControlContext {
    return {
      scenario: this.#scenario,
      lang: this.#lang,
      set: (key, value, structural) => this.#setProp(key, value, structural),
      invalid: (key, message) => {
        if (message) this.#invalid.set(key, message);
        else this.#invalid.delete(key);
        this.#renderErrors();
      },
      isInvalid: (key) => this.#invalid.has(key),
    };
  }

  #slot(name: Slot): HTMLElement {
    return h('p', { class: 'error', hidden: true, dataset: { slot: name }, attrs: { role: 'alert' } });
  }

  #propsOf(panel: Panel, except: string[] = []): HTMLElement[] {
    const ctx = this.#ctx();
    return PROPS.filter((p) => p.panel === panel && !except.includes(p.key) && p.applies(this.#scenario))
      .map((p) => propControl(p, ctx)).filter((x): x is HTMLElement => x !== null);
  }

  /** Rebuilds the input panels from the scenario, keeping keyboard focus where it was. */
  #renderInputs(source: string, all = false): void {
    const focused = (this.#root.activeElement as HTMLElement | null)?.dataset?.key;
    this.#invalid.clear();
    const lang = this.#lang;
    const s = this.#scenario;
    const alg = String(s.algorithm ?? '');

    const top = this.#part('preset');
    if (top) {
      clear(top);
      const presets = this.#engine!.presets();
      const select = h('select', { id: 'preset-select', dataset: { key: 'preset' } },
        this.#preset ? null : h('option', { value: '', text: t(lang, 'custom'), selected: true }),
        ...presets.map((p) => h('option', { value: p.name, selected: p.name === this.#preset,
          text: `${p.name} — ${lang === 'zh' ? p.title_zh || p.title : p.title}` })));
      select.addEventListener('change', () => { if (select.value) this.#loadPreset(select.value, 'control'); });
      const preset = presets.find((p) => p.name === this.#preset);
      const langButton = h('button', { type: 'button', class: 'lang', dataset: { key: 'lang' },
        text: lang === 'zh' ? 'English' : '中文 (zh)', attrs: { 'aria-label': t(lang, 'language') } });
      langButton.addEventListener('click', () => this.setAttribute('lang', lang === 'zh' ? 'en' : 'zh'));
      append(top, [h('div', { class: 'top-row' },
        h('label', { attrs: { for: 'preset-select' }, text: t(lang, 'preset') }), select,
        h('span', { class: 'modified', hidden: !(this.#preset && this.#modified), text: t(lang, 'modified') }),
        h('span', { class: 'spacer' }), langButton),
        preset ? h('p', { class: 'description', dataset: { field: 'description' },
          text: (lang === 'zh' ? preset.description_zh : undefined) ?? preset.description }) : null]);
    }

    const algPanel = this.#part('algorithm');
    if (algPanel) {
      clear(algPanel);
      algPanel.append(...this.#propsOf('algorithm'), this.#slot('algorithm'));
    }

    const mask = this.#part('mask');
    if (mask) {
      clear(mask);
      if (PROP['mask.kind'].applies(s)) {
        mask.append(h('h3', { text: t(lang, 'mask') }), ...this.#propsOf('mask', ['mask.allowed', 'mask.valid_lens']));
        if (PROP['mask.allowed'].applies(s)) {
          mask.append(allowedEditor({ allowed: get(s, 'mask.allowed'), title: PROP['mask.allowed'].label[lang],
            onToggle: (i, j) => {
              const next = clone(this.#scenario);
              const allowed = get(next, 'mask.allowed') as boolean[][];
              allowed[i][j] = !allowed[i][j];
              this.#commit(next, true);
            } }));
        }
        if (PROP['mask.valid_lens'].applies(s)) {
          mask.append(lensEditor({ lens: get(s, 'mask.valid_lens'), title: PROP['mask.valid_lens'].label[lang],
            L_K: dims(s).L_K, perQueryLabel: t(lang, 'perQuery'), invalid: this.#invalid,
            onEdit: (path, text) => {
              const key = pathText('mask.valid_lens', path);
              const n = parseNumber(text);
              if (n === null || !Number.isInteger(n) || n < 0) {
                this.#invalid.set(key, `${key}: expected an integer ≥ 0, got "${text}"`);
                this.#renderErrors();
                return;
              }
              this.#invalid.delete(key);
              const next = clone(this.#scenario);
              set(next, 'mask.valid_lens', setIn(get(next, 'mask.valid_lens'), path, n));
              this.#commit(next, false);
            },
            onTwoD: (twoD) => {
              const next = clone(this.#scenario);
              const lens = get(next, 'mask.valid_lens') as unknown[];
              const d = dims(next);
              set(next, 'mask.valid_lens', twoD ? lens.map((l) => Array(d.L_Q).fill(l))
                : lens.map((row) => (Array.isArray(row) ? row[0] : row)));
              this.#commit(next, true);
            } }));
        }
        mask.append(this.#slot('mask'));
      }
      mask.hidden = !PROP['mask.kind'].applies(s);
    }

    const options = this.#part('options');
    if (options) {
      clear(options);
      options.append(h('h3', { text: t(lang, 'options') }),
        ...this.#propsOf('options', alg === 'prob' ? ['seed'] : []), this.#slot('options'));
    }

    this.#renderSliceBar();

    const tensors = this.#part('tensors');
    if (tensors) {
      clear(tensors);
      tensors.hidden = !QKV_ALGORITHMS.has(alg);
      if (!tensors.hidden) this.#renderTensors(tensors);
    }

    const prob = this.#part('prob');
    if (prob) {
      prob.hidden = alg !== 'prob';
      const controls = prob.querySelector('.prob-controls') as HTMLElement;
      clear(controls);
      if (alg === 'prob') {
        const ctx = this.#ctx();
        const resample = h('button', { type: 'button', class: 'resample', dataset: { key: 'resample' },
          text: t(lang, 'resample'), title: t(lang, 'resampleHelp'), attrs: { 'aria-describedby': 'resample-help' } });
        resample.addEventListener('click', () => this.#resample());
        controls.append(h('h2', { text: t(lang, 'probTitle') }), h('p', { class: 'intro', text: t(lang, 'probIntro') }),
          h('div', { class: 'row' }, propControl(PROP.factor, ctx), propControl(PROP.seed, ctx),
            h('div', { class: 'field' }, resample, h('small', { class: 'help', id: 'resample-help', text: t(lang, 'resampleHelp') }))),
          this.#pitfallDetails(),
          this.#slot('prob'));
      }
    }

    const json = this.#part('json') as HTMLDetailsElement | null;
    if (json && (all || !json.firstChild)) {
      clear(json);
      const area = h('textarea', { spellcheck: false, rows: 14, dataset: { key: 'json' },
        attrs: { 'aria-label': t(lang, 'scenarioJson'), 'aria-describedby': 'json-help' } });
      area.addEventListener('input', () => this.#jsonInput(area.value));
      json.append(h('summary', { text: t(lang, 'scenarioJson') }),
        h('p', { class: 'help', id: 'json-help', text: t(lang, 'scenarioJsonHelp') }), area, this.#slot('json'));
    }

    if (focused && source !== 'json') {
      const el = this.#root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`);
      el?.focus();
    }
  }

  #pitfallDetails(): HTMLDetailsElement {
    const lang = this.#lang;
    const details = h('details', { class: 'pitfalls', dataset: { field: 'pitfall-switches' },
      open: this.#pitfallsOpen ?? changedPitfalls(this.#scenario).length > 0 },
    h('summary', { text: t(lang, 'pitfallsSummary') }),
    h('div', { class: 'pitfall-switches' }, ...this.#propsOf('prob', ['factor', 'sample_index', 'output_attention'])),
    h('div', { class: 'prob-options' }, ...this.#propsOf('prob', ['factor', 'sample_index', ...PITFALL_KEYS])));
    details.addEventListener('toggle', () => { if (details.isConnected) this.#pitfallsOpen = details.open; });
    return details;
  }

  /** The hint's button: opens the switches and moves the focus to the first one. */
  #showPitfalls(): void {
    const details = this.#root.querySelector<HTMLDetailsElement>('details.pitfalls');
    if (!details) return;
    details.open = true;
    this.#pitfallsOpen = true;
    details.querySelector<HTMLElement>('select, input')?.focus();
  }

  #renderSliceBar(): void {
    const bar = this.#part('slice');
    if (!bar) return;
    clear(bar);
    const sh = this.#trace?.shapes;
    const d = dims(this.#scenario);
    const B = QKV_ALGORITHMS.has(String(this.#scenario.algorithm)) ? d.B : sh?.context?.[0] ?? 1;
    const H = QKV_ALGORITHMS.has(String(this.#scenario.algorithm)) ? d.H : sh?.head_weights?.[1] ?? sh?.context?.[2] ?? 1;
    bar.hidden = B <= 1 && H <= 1;
    if (bar.hidden) return;
    const lang = this.#lang;
    const sel = (label: string, key: string, n: number, value: number, onChange: (v: number) => void) => {
      const id = `slice-${key}`;
      const select = h('select', { id, dataset: { key: `slice.${key}` } },
        ...range(n).map((i) => h('option', { value: String(i), text: String(i), selected: i === value })));
      select.addEventListener('change', () => onChange(Number(select.value)));
      return h('span', { class: 'field inline' }, h('label', { attrs: { for: id }, text: label }), select);
    };
    append(bar, [h('span', { class: 'muted', text: t(lang, 'showing') + ':' }),
      B > 1 ? sel(t(lang, 'batch'), 'b', B, this.#b, (v) => { this.#b = v; this.#renderInputs('slice'); this.#renderOutputs(); }) : null,
      H > 1 ? sel(t(lang, 'head'), 'h', H, this.#h, (v) => { this.#h = v; this.#renderInputs('slice'); this.#renderOutputs(); }) : null]);
  }

  #renderTensors(panel: HTMLElement): void {
    const lang = this.#lang;
    const s = this.#scenario;
    const d = dims(s);
    const dimBar = h('div', { class: 'dims', attrs: { role: 'group', 'aria-label': t(lang, 'sizes') } });
    for (const name of dimNames(s)) {
      const minus = h('button', { type: 'button', text: '−', disabled: d[name] <= 1, dataset: { key: `dim.${name}.minus` },
        attrs: { 'aria-label': `${t(lang, 'decrease')} ${name}` } });
      const plus = h('button', { type: 'button', text: '+', disabled: d[name] >= DIM_MAX[name], dataset: { key: `dim.${name}.plus` },
        attrs: { 'aria-label': `${t(lang, 'increase')} ${name}` } });
      minus.addEventListener('click', () => this.#resize(name, d[name] - 1));
      plus.addEventListener('click', () => this.#resize(name, d[name] + 1));
      dimBar.append(h('span', { class: 'dim', dataset: { dim: name } },
        h('span', { class: 'dim-name', text: name }), minus, h('output', { text: String(d[name]) }), plus));
    }
    const editors = h('div', { class: 'editors' });
    const spec: [string, string, string][] = [['q', 'q', 'e'], ['k', 'k', 'e'], ['v', 'v', 'd']];
    for (const [name, rowPrefix, colPrefix] of spec) {
      if (s[name] === undefined) continue;
      editors.append(h('div', { class: 'editor-box' }, tensorEditor({
        name, title: PROP[name].label[lang], tensor: s[name], b: this.#b, h: this.#h, rowPrefix, colPrefix,
        invalid: this.#invalid, tooLarge: t(lang, 'tooLargeEdit'),
        onEdit: (path, text) => this.#editCell(name, path, text),
      }), this.#slot(name as Slot)));
    }
    panel.append(h('div', { class: 'panel-head' }, h('h2', { text: t(lang, 'inputs') }), dimBar),
      h('p', { class: 'help', text: t(lang, 'dimHelp') }), editors, this.#slot('tensors'));
  }

  #resize(dim: DimName, n: number): void {
    if (dim !== 'E' && dim !== 'E_k' && dim !== 'D') this.#sampleStash = undefined;
    const next = resize(this.#scenario, dim, n);
    this.#fitSamples(next);
    this.#commit(next, true);
  }

  #jsonInput(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      this.#jsonError = `scenario: invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
      this.#renderErrors();
      return;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      this.#jsonError = 'scenario: expected an object';
      this.#renderErrors();
      return;
    }
    this.#jsonError = null;
    this.#commit(parsed as Scenario, true, 'json');
  }

  #renderOutputs(): void {
    const lang = this.#lang;
    const panel = this.#part('results');
    if (panel) {
      clear(panel);
      panel.append(h('div', { class: 'panel-head' }, h('h2', { text: t(lang, 'results') })),
        h('p', { class: 'stale-note', hidden: true, text: t(lang, 'stale') }), this.#slot('general'));
      if (this.#trace) {
        panel.append(costLine(this.#trace, lang));
        const w = warningList(this.#trace, lang);
        if (w) panel.append(w);
        if (this.#trace.algorithm === 'nadaraya_watson') panel.append(nadarayaView({ trace: this.#trace, scenario: this.#scenario, lang }));
        panel.append(results({ trace: this.#trace, b: this.#b, h: this.#h, lang }));
      }
    }
    const prob = this.#part('prob');
    if (prob && !prob.hidden) {
      const body = prob.querySelector('.prob-body') as HTMLElement;
      clear(body);
      const s = this.#scenario;
      if (this.#trace?.algorithm === 'prob') {
        body.append(h('p', { class: 'samples-source', dataset: { field: 'samples-source' },
          text: s.sample_index !== undefined ? t(lang, 'samplesGiven') : `${t(lang, 'samplesDrawn')} (seed = ${Number(s.seed ?? 0)})` }));
        const ref = this.#reference;
        if (ref) {
          body.append(pitfallView({
            trace: this.#trace, reference: ref.outcome, changed: ref.changed, samples: ref.samples, b: this.#b, h: this.#h, lang,
            squeezeBug: !ref.changed.some((c) => c.key === 'squeeze_bug'), seed: Number(s.seed ?? 0),
          }));
        } else {
          body.append(pitfallHint(lang, () => this.#showPitfalls()));
        }
        body.append(probView({
          trace: this.#trace, full: this.#full, b: this.#b, h: this.#h, lang,
          factor: Number(s.factor ?? PROP.factor.default),
          causal: get(s, 'mask.kind') === 'causal',
          causalInitial: String(s.causal_initial ?? 'sum'),
          divisor: String(s.sparsity_divisor ?? 'L_K'),
          squeezeBug: s.squeeze_bug !== false,
        }));
      }
    }
    const modified = this.#root.querySelector<HTMLElement>('.modified');
    if (modified) modified.hidden = !(this.#preset && this.#modified);
  }

  /** Shows every error beside its control (the field, else its panel's slot); marks the results stale. */
  #renderErrors(): void {
    for (const el of this.#root.querySelectorAll('[data-slot^="field:"]')) el.remove();
    const messages = new Map<string, string[]>();
    const add = (key: string, message: string) => {
      const field = this.#root.querySelector<HTMLElement>(`.field[data-field="${CSS.escape(key)}"]`);
      let target: string = slotOf(key);
      if (field && !field.closest('[hidden]')) {
        target = 'field:' + key;
        if (!this.#root.querySelector(`[data-slot="${CSS.escape(target)}"]`)) {
          field.after(h('p', { class: 'error', hidden: true, dataset: { slot: target }, attrs: { role: 'alert' } }));
        }
      } else {
        const el = this.#root.querySelector<HTMLElement>(`[data-slot="${target}"]`);
        if (!el || el.parentElement?.closest('[hidden]')) target = 'general';
      }
      messages.set(target, [...(messages.get(target) ?? []), message]);
    };
    for (const [key, message] of this.#invalid) add(key, message);
    if (this.#error) add(this.#error.field, this.#error.message);
    if (this.#jsonError) {
      const target = this.#part('json') ? 'json' : 'general';
      messages.set(target, [...(messages.get(target) ?? []), this.#jsonError]);
    }
    for (const el of this.#root.querySelectorAll<HTMLElement>('[data-slot]')) {
      const list = messages.get(el.dataset.slot!);
      el.hidden = !list;
      el.textContent = list ? list.join('\n') : '';
    }
    const field = this.#error?.field;
    for (const el of this.#root.querySelectorAll<HTMLElement>('input[data-key], select[data-key]')) {
      const key = el.dataset.key!;
      const bad = this.#invalid.has(key) || (field !== undefined && (key === field || key.startsWith(field + '[')));
      if (bad) el.setAttribute('aria-invalid', 'true');
      else el.removeAttribute('aria-invalid');
    }
    const stale = this.#invalid.size > 0 || this.#error !== null || this.#jsonError !== null;
    this.#root.querySelector('[data-panel="results"]')?.classList.toggle('stale', stale && this.#trace !== null);
    this.#root.querySelector('[data-panel="prob"]')?.classList.toggle('stale', stale && this.#trace !== null);
    const note = this.#root.querySelector<HTMLElement>('.stale-note');
    if (note) note.hidden = !(stale && this.#trace !== null);
  }

  #syncJson(source: string): void {
    if (source === 'json') return;
    const area = this.#root.querySelector<HTMLTextAreaElement>('[data-panel="json"] textarea');
    if (area && this.#root.activeElement !== area) area.value = prettyJson(this.#scenario);
  }
}

export function define(name = 'attention-playground'): void {
  if (!customElements.get(name)) customElements.define(name, AttentionPlayground);
}
