// An algorithm's own inputs (a chunk of its own: no first-load preset needs it): multihead's (B, L, d)
// queries, keys and values as grids of batch item b, and the weights an algorithm declares
// (multihead's W_q .. b_o, additive's W_q, W_k, w_v) up to MAX_WEIGHT_CELLS numbers each, in a
// <details>: the scenario's own, else the ones the seed drew (the trace's; the first edit makes them
// the scenario's, Session.editWeight). DOM only: edits go out through callbacks.
import { h } from '../dom';
import { isDraw, nested, type Scenario, type Trace } from '../engine/compute';
import { clone, notANumber, parseNumber } from '../format';
import { t, tx, type Lang, type Text } from '../i18n';
import { pathText, setIn, traits, type Session } from '../state';
import type { Change } from './inputs';
import type { errorSlot } from './errors';
import type { tensorEditor } from './grid-editor';

/** The page's grid editor and error slot, lent by views/inputs.ts (importing them here would split
 * them off the first load into a chunk of their own). */
export interface Editors { tensorEditor: typeof tensorEditor; errorSlot: typeof errorSlot }

/** Weights are edited as grids up to this many numbers each (else in the scenario JSON). */
export const MAX_WEIGHT_CELLS = 400;

const T = {
  queries: { en: 'queries (B, L_Q, d_q)', zh: '查询 queries (B, L_Q, d_q)' },
  keys: { en: 'keys (B, L_K, d_k)', zh: '键 keys (B, L_K, d_k)' },
  values: { en: 'values (B, L_K, d_v)', zh: '值 values (B, L_K, d_v)' },
  gridsHelp: { en: 'B batch, L_Q queries, L_K keys (and values), d_q d_k d_v their widths; the heads: num_heads in the options. Showing batch item b.',
    zh: 'B 批量，L_Q 查询数，L_K 键（及值）数，d_q d_k d_v 为各自宽度；头数见选项中的 num_heads。显示批次 b。' },
  weights: { en: 'Weights', zh: '权重' },
  drawn: { en: 'Drawn from the seed. Edit a cell to give your own: all of them are then written into the scenario ("weights"), and the seed no longer draws them.',
    zh: '由随机种子生成。编辑任一格即改为自己给定：全部权重随之写入场景（"weights"），不再由种子生成。' },
  given: { en: 'Given in the scenario ("weights"). Delete them in the scenario JSON to draw them from the seed again.',
    zh: '在场景中给定（"weights"）。在场景 JSON 中删去即可重新由种子生成。' },
  later: { en: 'Shown with the next full trace (trace: full).', zh: '下一次完整追踪（trace: full）后显示。' },
  tooLarge: { en: 'More than {n} numbers: edit it in the scenario JSON ("weights").', zh: '超过 {n} 个数：请在场景 JSON 中编辑（"weights"）。' },
} satisfies Record<string, Text>;

export interface GridsOptions {
  editors: Editors;
  scenario: Scenario;
  lang: Lang;
  b: number;
  invalid: ReadonlyMap<string, string>;
  onEdit: (name: string, path: number[], text: string) => void;
}

/** The help of the size bar and a grid per (B, L, d) input of the algorithm, batch item b. */
export function ownGrids(o: GridsOptions): HTMLElement[] {
  const s = o.scenario, lang = o.lang, { tensorEditor, errorSlot } = o.editors;
  const editors = h('div', { class: 'editors' });
  for (const g of traits(s).grids ?? []) {
    if (s[g.key] === undefined) continue;
    const title = g.key in T ? tx(lang, T[g.key as keyof typeof T]) : g.key;
    editors.append(h('div', { class: 'editor-box' }, isDraw(s[g.key]) ? null : tensorEditor({
      name: g.key, title, tensor: s[g.key], b: o.b, h: null, rowPrefix: g.rowPrefix, colPrefix: 'f',
      invalid: o.invalid, tooLarge: t(lang, 'tooLargeEdit'), onEdit: (path, text) => o.onEdit(g.key, path, text),
    }), h('div', { class: 'draw-slot', dataset: { draw: g.key, title } }), errorSlot(g.key)));  // views/draw-inputs.ts
  }
  return [h('p', { class: 'help', text: tx(lang, T.gridsHelp) }), editors];
}

export interface WeightsOptions {
  editors: Editors;
  scenario: Scenario;
  /** The latest trace: the weights drawn from the seed are its. */
  trace: Trace | null;
  lang: Lang;
  invalid: ReadonlyMap<string, string>;
  open: boolean;
  onOpen: (open: boolean) => void;
  onEdit: (name: string, path: number[], text: string) => void;
}

/** The algorithm's weights in a <details> (their grids only while it is open); null when it has none. */
export function weightsPanel(o: WeightsOptions): HTMLElement | null {
  const s = o.scenario, spec = traits(s).weights, lang = o.lang, { tensorEditor, errorSlot } = o.editors;
  if (!spec) return null;
  const own = s.weights !== null && typeof s.weights === 'object' ? s.weights as Scenario : null;
  const drawn = o.trace?.algorithm === s.algorithm ? o.trace : null;
  const valueOf = (name: string) => (own ? own[name] : drawn ? nested(drawnWeight(drawn, spec.group, name) as never) : undefined);
  // which weights there are, without reading them: a drawn weight is nested when first read
  // (wasm/attnplay.mjs), and a closed panel reads none (d2l-multihead: 40,000 numbers an edit)
  const names = spec.names.filter((name) => (own ? own[name] !== undefined : drawn ? hasWeight(drawn, spec.group, name) : false));
  const body: HTMLElement[] = [];
  for (const name of o.open ? names : []) {
    const key = `weights.${name}`;
    body.push(h('div', { class: 'editor-box' }, tensorEditor({
      name: key, title: name, tensor: valueOf(name), b: 0, h: null, matrix: true, max: MAX_WEIGHT_CELLS,
      rowPrefix: Array.isArray(at0(valueOf(name))) ? 'r' : name, colPrefix: 'c', invalid: o.invalid,
      tooLarge: tx(lang, T.tooLarge).replace('{n}', String(MAX_WEIGHT_CELLS)),
      onEdit: (path, text) => o.onEdit(name, path, text),
    }), errorSlot(key)));
  }
  const details = h('details', { class: 'weights', dataset: { panel: 'weights' }, open: o.open },
    h('summary', { text: `${tx(lang, T.weights)}: ${names.join(', ') || '—'}` }),
    h('p', { class: 'help', text: tx(lang, own ? T.given : drawn ? T.drawn : T.later) }),
    h('div', { class: 'editors' }, ...body), errorSlot('weights'));
  details.addEventListener('toggle', () => { if (details.isConnected) o.onOpen(details.open); });
  return details;
}

const at0 = (x: unknown) => (Array.isArray(x) ? x[0] : undefined);

/** Where the trace keeps its drawn weights: itself, or its group (mla's state_dict); null if none. */
function weightsOf(trace: Trace, group: string | undefined): Record<string, unknown> | null {
  const g = group ? trace[group] : trace;
  return g !== null && typeof g === 'object' ? g as Record<string, unknown> : null;
}

/** A weight the seed drew: the trace's field `name`, or `name` in the trace's group. */
const drawnWeight = (trace: Trace, group: string | undefined, name: string): unknown => weightsOf(trace, group)?.[name];

/** Whether the trace has the weight `name` (drawnWeight's), its value left unread. */
function hasWeight(trace: Trace, group: string | undefined, name: string): boolean {
  const d = Object.getOwnPropertyDescriptor(weightsOf(trace, group) ?? {}, name);
  return d !== undefined && (d.get !== undefined || d.value !== undefined);
}

/** Whether each session's weights are open. */
const weightsOpen = new WeakMap<Session, boolean>();

export interface MountOptions {
  editors: Editors;
  session: Session;
  lang: Lang;
  /** A cell of a grid typed (Session.editCell). */
  onEdit: (name: string, path: number[], text: string) => void;
  /** After an edit of the session (views/inputs.ts). */
  edited: (ok: boolean, change?: Change) => void;
}

/**
 * Draws the algorithm's own grids (before the tensors' error slot) and its weights (at the end) into
 * the tensors panel. Returns the redraw for a new trace: the weights the seed drew are the trace's,
 * drawn again when it changed (the scenario's own stay as typed).
 */
export function mountOwnInputs(panel: HTMLElement, o: MountOptions): () => void {
  const { session, lang } = o, s = session.scenario;
  const grids = h('div', { class: 'own-grids' }), slot = h('div', { class: 'weights-slot' });
  panel.insertBefore(grids, panel.querySelector('[data-slot="tensors"]'));
  panel.append(slot);
  if (traits(s).grids) grids.replaceChildren(...ownGrids({ editors: o.editors, scenario: s, lang, b: session.b, invalid: session.invalid, onEdit: o.onEdit }));
  let shown: unknown = undefined, closedAs = '';
  const draw = () => {
    shown = session.trace;
    const open = weightsOpen.get(session) ?? false;
    const details = weightsPanel({ editors: o.editors, scenario: session.scenario, trace: session.trace, lang, invalid: session.invalid,
      open,
      onOpen: (open) => { // a <details> made open reports a toggle too: draw only on a change
        if (open === (weightsOpen.get(session) ?? false)) return;
        weightsOpen.set(session, open);
        if (open) draw();
      },
      onEdit: (name, path, text) => {
        const first = session.scenario.weights === undefined;
        o.edited(editWeight(session, name, path, text), first ? 'inputs' : 'values');
      } });
    // closed, it shows its summary and help only: a new trace of the same weights (every edit of
    // q, k, v) leaves it as it is (a new <details> costs the edit its style and layout)
    const as = details && !open ? details.textContent ?? '' : '';
    if (as && as === closedAs && slot.firstChild) return;
    closedAs = as;
    slot.replaceChildren(...(details ? [details] : []));
  };
  draw();
  return () => { if (shown !== session.trace && session.scenario.weights === undefined && slot.isConnected) draw(); };
}

/** Text typed into a cell of weight `name`. Drawn from the seed the weights are the trace's: the first
 * edit writes them all into the scenario's `weights` and drops the fields that drew them (multihead's
 * num_hiddens and bias, additive's hidden). False when the text is no number (the cell's error). */
function editWeight(session: Session, name: string, path: number[], text: string): boolean {
  const key = pathText('weights.' + name, path), n = parseNumber(text);
  if (n === null) {
    session.setInvalid(key, notANumber(key, text));
    return false;
  }
  session.setInvalid(key, null);
  const next = clone(session.scenario);
  if (next.weights === null || typeof next.weights !== 'object') {
    const spec = traits(next).weights, w: Scenario = {};
    for (const g of spec?.names ?? []) {
      const drawn = session.trace ? drawnWeight(session.trace, spec?.group, g) : undefined;
      if (drawn !== undefined) w[g] = clone(nested(drawn as never));
    }
    for (const field of spec?.drops ?? []) delete next[field];
    next.weights = w;
  }
  const w = next.weights as Scenario;
  w[name] = setIn(w[name], path, n);
  session.edit(next);
  return true;
}
