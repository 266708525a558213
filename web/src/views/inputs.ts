// The input panels drawn from the Session (views/panels.ts, views/controls.ts): the preset bar, the
// algorithm's and the options' controls, the mask, the slice bar, the tensor grids, ProbAttention's
// controls and the scenario JSON. Each edit goes to the Session; the element is told what it
// changed (`update`) and draws again. Keyboard focus stays where it was. DOM only.
import type { Preset } from '../engine/compute';
import { PITFALL_KEYS, PROP, changedPitfalls, get, isProb, sliceSizes, traits, type Session } from '../state';
import { h } from '../dom';
import { at, prettyJson } from '../format';
import { t, type Lang } from '../i18n';
import { propControls, type ControlContext } from './controls';
import { errorSlot } from './errors';
import { tensorEditor } from './grid-editor';
import { fill, part } from './layout';
import { needModule } from '../lazy';
import { jsonPanel, maskPanel, presetBar, probControls, sliceBar, tensorsPanel } from './panels';

/** What an action changed: only an error message, the results, or the controls too. */
export type Change = 'errors' | 'values' | 'inputs';

export interface InputsOptions {
  session: Session;
  lang: Lang;
  presets: readonly Preset[];
  /** What asked for the redraw ('json': the editor keeps its text and the focus). */
  source: string;
  /** Every panel (else the JSON editor, once made, is kept). */
  all: boolean;
  /** The scenario's algorithm has ProbAttention's panel (its switches; the seed shown there). */
  probPanel: boolean;
  /** The pitfall switches' <details>: null follows the switches (open while one is changed). */
  pitfallsOpen: boolean | null;
  onPitfallsOpen: (open: boolean) => void;
  /** After an edit of the session. */
  update: (change: Change, source?: string) => void;
  /** A control's own error changed (the session is unchanged). */
  showErrors: () => void;
  onPreset: (name: string) => void;
  /** Reset: the preset as it comes. */
  onReset: () => void;
  onLang: (lang: Lang) => void;
  /** The theme switch's value (index.html only: sync-hash); null: no switch. */
  theme: string | null;
  onTheme: (theme: string) => void;
  onCopyLink: ((button: HTMLElement) => void) | null;
  /** Another (b, h) slice was selected. */
  onSlice: () => void;
}

/** The scenario JSON editor, written while it is open (and when it opens). */
export function fillJson(root: ShadowRoot, session: Session): void {
  const details = part(root, 'json') as HTMLDetailsElement | null;
  const area = details?.querySelector<HTMLTextAreaElement>('textarea');
  if (!details || !area || !details.open || root.activeElement === area) return;
  area.value = prettyJson(session.scenario);
}

/** The preset bar each root shows: the presets and the state it was drawn for. */
const bars = new WeakMap<ShadowRoot, { presets: readonly unknown[]; key: string }>();

/** Rebuilds the input panels from the scenario, keeping keyboard focus where it was. */
export function renderInputs(root: ShadowRoot, o: InputsOptions): void {
  const { session, lang } = o;
  const focused = (root.activeElement as HTMLElement | null)?.dataset?.key;
  session.invalid.clear();
  const s = session.scenario;
  const ctx: ControlContext = {
    scenario: s,
    lang,
    set: (key, value, structural) => {
      session.setProp(key, value);
      o.update(structural ? 'inputs' : 'values');
    },
    invalid: (key, message) => {
      session.setInvalid(key, message);
      o.showErrors();
    },
    isInvalid: (key) => session.invalid.has(key),
  };
  const edited = (ok: boolean, change: Change = 'values') => o.update(ok ? change : 'errors');

  // the preset bar (its menu's 55 options) drawn again only when what it shows changes: a resize or
  // another seed (issue 18's L = 4096 runs) redraws the inputs beside a split run's workers
  const top = part(root, 'preset');
  const barKey = `${session.preset}|${session.modified}|${lang}|${o.theme}|${o.onCopyLink !== null}`;
  const drawn = bars.get(root);
  if (top && (!top.firstChild || drawn?.presets !== o.presets || drawn.key !== barKey)) {
    fill(top, presetBar({ presets: o.presets, preset: session.preset, modified: session.modified,
      lang, onPreset: o.onPreset, onReset: o.onReset, onLang: o.onLang, theme: o.theme, onTheme: o.onTheme, onCopyLink: o.onCopyLink }));
    bars.set(root, { presets: o.presets, key: barKey });
  }
  fill(part(root, 'algorithm'), [...propControls('algorithm', ctx), errorSlot('algorithm')]);

  const mask = part(root, 'mask');
  fill(mask, maskPanel({ ctx, invalid: session.invalid,
    onToggle: (i, j) => { session.toggleAllowed(i, j); edited(true, 'inputs'); },
    onLens: (path, text) => edited(session.editLens(path, text)),
    onPerQuery: (twoD) => { session.lensPerQuery(twoD); edited(true, 'inputs'); } }));
  if (mask) mask.hidden = !PROP['mask.kind'].applies(s);

  fill(part(root, 'options'), [h('h2', { class: 'sub', text: t(lang, 'options') }),
    ...propControls('options', ctx, o.probPanel ? ['seed'] : []),
    // ProbAttention inside another algorithm (multihead's inner "prob"): its factor and attn here
    ...(o.probPanel || !isProb(s) ? [] : propControls('prob', ctx, ['sample_index', ...PITFALL_KEYS])), errorSlot('options')]);

  const bar = part(root, 'slice');
  const { B, H } = sliceSizes(s, session.trace);
  fill(bar, sliceBar({ B, H, b: session.b, h: session.h, lang, onSelect: (b, hh) => {
    session.select(b, hh);
    o.onSlice();
  } }));
  if (bar) bar.hidden = !bar.firstChild;

  const tensors = part(root, 'tensors');
  if (tensors) {
    const tr = traits(s);
    tensors.hidden = tr.tensors.length === 0 && !tr.grids;
    const onEdit = (name: string, path: number[], text: string) => edited(session.editCell(name, path, text));
    fill(tensors, tensors.hidden ? [] : tensorsPanel({ scenario: s, lang, b: session.b, h: session.h, invalid: session.invalid,
      onResize: (dim, n) => { session.resize(dim, n); edited(true, 'inputs'); }, onEdit,
      tied: session.tied, onTie: (tie) => { session.tiedQKV = tie; o.update('inputs'); } }).filter((x) => x !== null));
    own.delete(root);
    const mountDraws = () => { // "Random, seeded" and the seeded draws: views/draw-inputs.ts, a chunk
      const mount = (m: typeof import('./draw-inputs')) => m.mountDraws(tensors, { tensorEditor, session, lang, edited });
      const m = needModule(DRAWS, () => void DRAWS().then((loaded) => {
        if (!tensors.isConnected || session.scenario !== s) return;
        mount(loaded);
        o.showErrors(); // beside the draws' controls, now there
        if (focused) root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
      }));
      if (m) mount(m);
    };
    if (!tensors.hidden && (tr.grids || tr.weights)) { // views/own-inputs.ts, a chunk of its own
      const mount = (m: OwnInputs) => {
        own.set(root, m.mountOwnInputs(tensors, { editors, session, lang, onEdit, edited }));
        mountDraws();
      };
      if (ownInputs) mount(ownInputs);
      else void import('./own-inputs').then((m) => {
        ownInputs = m;
        if (!tensors.isConnected || session.scenario !== s) return;
        mount(m);
        if (focused) root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
      });
    } else if (!tensors.hidden) mountDraws();
  }

  const prob = part(root, 'prob');
  if (prob) {
    prob.hidden = !o.probPanel;
    fill(prob.querySelector<HTMLElement>('.prob-controls'), prob.hidden ? [] : probControls({ ctx,
      open: o.pitfallsOpen ?? changedPitfalls(s).length > 0,
      onOpen: o.onPitfallsOpen,
      onResample: () => { session.resample(); edited(true, 'inputs'); } }));
  }

  const json = part(root, 'json');
  if (json && (o.all || !json.firstChild)) {
    fill(json, jsonPanel(lang, (text) => {
      if (session.fromText(text, true)) o.update('inputs', 'json');
      else o.showErrors();
    }));
    if (!json.dataset.watched) {
      json.dataset.watched = '1';
      json.addEventListener('toggle', () => fillJson(root, session));
    }
  }

  if (focused && o.source !== 'json') {
    root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }
}

type OwnInputs = typeof import('./own-inputs');
let ownInputs: OwnInputs | null = null;
const editors = { tensorEditor, errorSlot };
const DRAWS = () => import('./draw-inputs');
/** Each root's own inputs (multihead's, additive's weights): drawn again after a new trace. */
const own = new WeakMap<ShadowRoot, () => void>();

/** After a new trace: the weights the seed drew (the trace's) drawn again; the scenario's own stay. */
export function refreshWeights(root: ShadowRoot): void {
  own.get(root)?.();
}

/** Writes the scenario's numbers into the tensor grids' cells; false when a grid is missing one
 * (a new value of q, k or v only: the grids need not be built again). */
export function refreshCells(root: ShadowRoot, session: Session): boolean {
  const s = session.scenario;
  for (const input of root.querySelectorAll<HTMLInputElement>('.panel-tensors input[data-path]')) {
    const m = /^([a-z_.A-Z]+)((?:\[\d+\])+)$/.exec(input.dataset.path ?? '');
    if (!m) return false;
    const v = at(get(s, m[1]), m[2].slice(1, -1).split('][').map(Number));
    if (typeof v !== 'number') return false;
    if (Number(input.value) !== v || input.value.trim() === '') input.value = String(v);
  }
  return true;
}
