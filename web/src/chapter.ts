// The views of d2l's attention chapter (issue 9) for one element: each view,
// the state each view keeps for itself (the complexity table's n, d, k and its measured
// runs, positional encoding's columns and δ, the scale argument's d and draws), and the Bahdanau
// training's wiring to the Session. An algorithm's module names the views that go with it.
import { isCancelled } from './worker/cancel';
import type { Engine, Outcome, Scenario, Trace } from './engine/compute';
import { h } from './dom';
import { d, df } from './i18n-d2l';
import { type Session } from './state';
import { COMPLEXITY_DEFAULTS, SCALE_DEFAULTS, complexityJob, complexityKey, measuredCosts, scaleScenarios, scaleStats, type ComplexityParams, type Measured, type ScaleParams, type ScaleStats } from './state/chapter';
import { runBatch, type BatchHandle } from './worker/sweep';
import type { Lang } from './i18n';
import { bahdanauView, trainProgress } from './views/bahdanau';
import { complexityView } from './views/complexity';
import { POSITIONAL_DEFAULTS, positionalView, type PositionalParams } from './views/positional';
import { scaleView } from './views/scale';
import { additiveView } from './views/additive';
import { keep } from './views/patch';

export class ChapterViews {
  readonly #engine: Engine;
  readonly #session: Session;
  /** Redraws the results (after a view's own control changed or its runs finished). */
  readonly #redraw: () => void;
  #complexity: ComplexityParams = { ...COMPLEXITY_DEFAULTS };
  #measured: { key: string; values: Measured[] | null; status: 'idle' | 'running' | 'done' | 'cancelled' | 'failed'; message: string | null } =
    { key: '', values: null, status: 'idle', message: null };
  #batch: BatchHandle | null = null;
  #positional: PositionalParams = { ...POSITIONAL_DEFAULTS, columns: [...POSITIONAL_DEFAULTS.columns] };
  #scale: ScaleParams = { ...SCALE_DEFAULTS };
  #scaleCache: { key: string; stats: ScaleStats; scaled: Outcome; unscaled: Outcome } | null = null;

  /** Whether the named section (a <details> below the flow, views/layout.ts) is open. */
  readonly #isOpen: (name: string) => boolean;

  constructor(engine: Engine, session: Session, redraw: () => void, isOpen: (name: string) => boolean = () => true) {
    this.#engine = engine;
    this.#session = session;
    this.#isOpen = isOpen;
    // deferred and coalesced: a view's control may fire again (change on blur) while the redraw
    // removes it, and a nested redraw would remove nodes twice
    let due = false;
    this.#redraw = () => {
      if (due) return;
      due = true;
      queueMicrotask(() => { due = false; redraw(); });
    };
  }

  /** A training progress report: redraws the training part only (the end redraws everything). */
  progress(root: ShadowRoot, lang: Lang): void {
    const part = root.querySelector<HTMLElement>('[data-part="training"]');
    if (part) trainProgress(part, this.#bahdanauOptions(lang));
  }

  #bahdanauOptions(lang: Lang) {
    const s = this.#session;
    return { trace: s.trace, scenario: s.scenario, training: s.training, b: s.b, lang,
      onCancel: () => { s.cancelTraining(); this.#redraw(); },
      onRetrain: () => { s.startTraining(true); this.#redraw(); } };
  }

  // The views of one algorithm each (its module, web/src/algorithms/<name>.ts, says which): the
  // element asks for them while the trace is of the scenario's algorithm (bahdanau's: always).

  /** Bahdanau's training and its attention (views/bahdanau.ts). */
  bahdanau(lang: Lang): HTMLElement {
    return bahdanauView(this.#bahdanauOptions(lang));
  }

  /** Bahdanau's cost line: per attention step (each decoder step scores every source position), and
   * the training's on top (its steps are many: a percentage of one forward pass says nothing). */
  costLine(trace: Trace, lang: Lang): HTMLElement {
    const c = trace.cost as { dot_products: number; dense_dot_products: number; flops: number };
    const n = trace.shapes.enc_outputs?.[1] ?? 0;
    return h('div', { class: 'cost', dataset: { field: 'cost' } },
      h('span', { dataset: { field: 'cost.step' }, text: df(lang, 'costStep', { n, steps: n && c.dense_dot_products / n }) }),
      c.dot_products > c.dense_dot_products ? ` · ${df(lang, 'costTrain', { n: c.dot_products - c.dense_dot_products })}` : '',
      ` · flops ${c.flops}`);
  }

  /** Positional encoding's columns and δ, and the complexity table. */
  positional(lang: Lang): HTMLElement[] {
    const { trace, scenario: s } = this.#session;
    if (!trace || !Array.isArray(trace.P)) return [];
    return [positionalView({ trace, scenario: s, params: this.#positional, lang,
      onParams: (p) => { Object.assign(this.#positional, p); this.#redraw(); } }), this.#complexityView(lang)];
  }

  /** Additive attention's features. */
  additive(lang: Lang): HTMLElement[] {
    const { trace, b } = this.#session;
    const v = trace ? additiveView(trace, b, lang) : null;
    return v ? [v] : [];
  }

  // ---- the complexity table: measured in the worker when n, d or k change ----

  #complexityView(lang: Lang): HTMLElement {
    const key = complexityKey(this.#complexity);
    if (this.#measured.key !== key) this.#measure();
    return complexityView({ params: this.#complexity, measured: this.#measured.values, status: this.#measured.status,
      message: this.#measured.message, lang,
      onParam: (k, v) => { this.#complexity = { ...this.#complexity, [k]: v }; this.#redraw(); },
      onCancel: () => { this.#batch?.cancel(); this.#batch = null; this.#measured.status = 'cancelled'; this.#redraw(); } });
  }

  #measure(): void {
    this.#batch?.cancel();
    const params = { ...this.#complexity };
    const key = complexityKey(params);
    const state = { key, values: null as Measured[] | null, status: 'running' as const, message: null as string | null };
    this.#measured = state;
    const handle = runBatch(complexityJob(params), () => {});
    this.#batch = handle;
    handle.done.then((result) => {
      if (this.#measured !== state) return;
      Object.assign(state, { values: measuredCosts(result.values), status: 'done' });
      this.#batch = null;
      this.#redraw();
    }, (e: unknown) => {
      if (this.#measured !== state) return;
      const cancelled = isCancelled(e);
      Object.assign(state, { status: cancelled ? 'cancelled' : 'failed', message: cancelled ? null : String((e as Error)?.message ?? e) });
      this.#batch = null;
      this.#redraw();
    });
  }

  // ---- the scale argument: draws in TS, the softmax rows by the core ----

  /** The 1/√d argument (beside full attention). */
  scale(lang: Lang): HTMLElement {
    // d is the scenario's own E until the view's d is changed
    const E = this.#session.trace?.shapes?.q?.[3];
    const p = this.#scaleOwnD || !E ? this.#scale : { ...this.#scale, d: Math.min(E, 256) };
    const key = JSON.stringify(p);
    // closed (its default), nothing is drawn: its draws (2000 pairs of d normals, 50-200 ms on the
    // main thread for d = 64-256) wait until it is opened (the element redraws then)
    if (this.#scaleCache?.key !== key && !this.#isOpen('scale')) {
      return h('section', { class: 'chapter scale', dataset: { field: 'scale-view', unbuilt: '' } }, h('h3', { text: d(lang, 'scaleTitle') }));
    }
    if (this.#scaleCache?.key !== key) {
      const { scaled, unscaled } = scaleScenarios(p);
      this.#scaleCache = { key, stats: scaleStats(p), scaled: this.#engine.run(scaled as Scenario), unscaled: this.#engine.run(unscaled as Scenario) };
    }
    const c = this.#scaleCache;
    // the same element while d, the draws, the seed and the language stay (an edit of q, k or v does
    // not change it): the results keep it as it is drawn
    if (this.#scaleView_?.key !== key || this.#scaleView_.lang !== lang) {
      this.#scaleView_ = { key, lang, el: keep(scaleView({ params: p, stats: c.stats, scaled: c.scaled, unscaled: c.unscaled, lang,
        onParams: (q) => { this.#scaleOwnD ||= 'd' in q; this.#scale = { ...p, ...q }; this.#redraw(); } })) };
    }
    return this.#scaleView_.el;
  }

  #scaleView_: { key: string; lang: Lang; el: HTMLElement } | null = null;
  #scaleOwnD = false;

  /** Stops what runs in the background (the element left the page). */
  dispose(): void {
    this.#batch?.cancel();
    this.#session.cancelTraining();
  }
}
