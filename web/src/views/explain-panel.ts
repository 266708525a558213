// "Every number explains itself" (SPEC §1, issue 14 item 2), the page's side: hovering, focusing
// or tapping a map cell shows its derivation (`el.explain(field, index)`) in a panel beside the
// map: the formula (KaTeX, MathML output: no fonts, no CSS; loaded on first show), the same as one
// sentence (read by screen readers), the terms, the value; the operands are lit in the other maps
// and in the input grids. Arrow keys walk a map (roving tabindex: one tab stop per map), canvas
// maps through a cursor. Loaded on the first hover, focus or tap by views/explain-hook.ts; nothing
// here runs on an edit unless the panel is open (then the new trace's numbers are shown).
import css from './explain-panel.css?inline';
import { h, clear, newId } from '../dom';
import { exact, fmt } from '../format';
import { viewText, type Lang } from '../i18n';
import { pathText } from '../state/scenario';
import { canvasCell } from './heatmap';
import type { CellRef, Explanation, Term } from '../explain/explanation';

const tt = viewText({
  explanation: { en: 'Explanation', zh: '推导' },
  close: { en: 'Close the explanation (Escape)', zh: '关闭推导（Esc）' },
  terms: { en: 'Terms', zh: '各项' },
  term: { en: 'term', zh: '项' },
  value: { en: 'value', zh: '值' },
  more: { en: '… and {n} more', zh: '……另有 {n} 项' },
  none: { en: 'No explanation for this cell', zh: '这个单元没有推导' },
  keys: { en: 'Arrow keys: the next cell · Escape: close', zh: '方向键：相邻单元 · Esc：关闭' },
});

/** Terms shown in the table (a context cell over L_K keys has 2 L_K of them). */
const MAX_TERMS = 12;

type Explains = HTMLElement & { explain?: (field: string, index: number[]) => Promise<Explanation> };

/** Where a cell is: a table cell, or (i, j) of a canvas map (its scroll box is the tab stop). */
interface Target {
  fig: HTMLElement;
  field: string;
  index: number[];
  /** The focusable element: the td, or the canvas map's scroll box. */
  el: HTMLElement;
  canvas?: { i: number; j: number };
}

interface State {
  panel: HTMLElement;
  title: HTMLElement;
  value: HTMLElement;
  formula: HTMLElement;
  text: HTMLElement;
  terms: HTMLElement;
  shown: Target | null;
  /** The cell that keeps the panel open (focused or tapped); hovering shows others meanwhile. */
  pinned: Target | null;
  seq: number;
  lit: Element[];
  /** The terms in the table (their rows' data-term). */
  shownTerms: Term[];
  /** Outlines drawn over canvas maps. */
  marks: Element[];
  /** The canvas maps' cursors, by figure. */
  cursors: WeakMap<Element, { i: number; j: number }>;
  leave: ReturnType<typeof setTimeout> | undefined;
  /** A press on a canvas map: the focus it gives the map's scroll box pins nothing, the click
   * that follows pins the cell pressed (pinned first, the cursor's cell put the panel, no longer
   * passive, under the pointer before the click: the click then missed the canvas). */
  tapping?: boolean;
}

const STATES = new WeakMap<ShadowRoot, State>();

let katexLoad: Promise<typeof import('katex').default | null> | null = null;
/** KaTeX, loaded on the first show (null if it could not be: the sentence stands in). */
const katex = () => (katexLoad ??= import('katex').then((m) => m.default, () => null));

let sheet: CSSStyleSheet | null = null;
function adopt(root: ShadowRoot): void {
  try {
    sheet ??= new CSSStyleSheet();
    if (sheet.cssRules.length === 0) sheet.replaceSync(css);
    if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch { /* no constructable sheets (old Safari/Firefox): the panel unstyled */ }
}

const langOf = (root: ShadowRoot): Lang => ((root.host as HTMLElement).getAttribute('lang') === 'zh' ? 'zh' : 'en');

function stateOf(root: ShadowRoot): State {
  let st = STATES.get(root);
  if (st) return st;
  adopt(root);
  const title = h('span', { class: 'xp-title' });
  const value = h('output', { class: 'xp-value' });
  const formula = h('div', { class: 'xp-formula' });
  const text = h('p', { class: 'xp-text', id: newId('xp-text'), attrs: { role: 'status' } });
  const terms = h('div', { class: 'xp-terms' });
  const close = h('button', { type: 'button', class: 'xp-close', text: '×' });
  // its words are set by each show, in the element's language then
  const panel = h('div', { class: 'xp-panel', hidden: true, attrs: { role: 'region' } },
    h('div', { class: 'xp-head' }, title, ' = ', value, close), formula, text, terms, h('p', { class: 'xp-keys' }));
  st = { panel, title, value, formula, text, terms, shown: null, pinned: null, seq: 0, lit: [], shownTerms: [], marks: [], cursors: new WeakMap(), leave: undefined };
  const s = st;
  close.addEventListener('click', () => {
    const back = s.pinned?.el;
    hide(s);
    back?.focus({ preventScroll: true });
  });
  // a new trace (an edit) while the panel is open: the same cell's new numbers
  root.host.addEventListener('trace', () => {
    const host = root.host as Explains & { settled?: Promise<void> };
    if (!s.panel.hidden && s.shown) void Promise.resolve(host.settled).then(() => refresh(root, s));
  });
  const place = () => { if (!s.panel.hidden && s.shown) placePanel(s, s.shown); };
  window.addEventListener('scroll', place, { capture: true, passive: true });
  window.addEventListener('resize', place, { passive: true });
  STATES.set(root, st);
  return st;
}

// ---- finding cells ----

const MAP_CELL = 'figure[data-field] td[data-index]';
const parseIndex = (s: string) => s.split(',').map(Number);

function tableTarget(td: HTMLElement): Target | null {
  const fig = td.closest<HTMLElement>('figure[data-field]');
  if (!fig || !td.dataset.index) return null;
  return { fig, field: fig.dataset.field!, index: parseIndex(td.dataset.index), el: td };
}

/** A canvas map's scroll box (its tab stop) and figure, from anything inside it. */
function canvasBox(el: Element): { fig: HTMLElement; box: HTMLElement; canvas: HTMLCanvasElement } | null {
  const fig = el.closest<HTMLElement>('figure[data-field]');
  const canvas = fig?.querySelector<HTMLCanvasElement>('canvas.map-canvas');
  const box = canvas?.closest<HTMLElement>('.scroll');
  return fig && canvas && box && box.contains(el) ? { fig, box, canvas } : null;
}

function canvasTarget(fig: HTMLElement, box: HTMLElement, i: number, j: number): Target | null {
  const index = canvasCell(fig, i, j);
  return index === undefined ? null : { fig, field: fig.dataset.field!, index: parseIndex(index), el: box, canvas: { i, j } };
}

const dims = (fig: HTMLElement) => ({ rows: Number(fig.dataset.rows), cols: Number(fig.dataset.cols) });

/** The cell under the pointer on a canvas map. */
function canvasAt(e: MouseEvent, c: { fig: HTMLElement; box: HTMLElement; canvas: HTMLCanvasElement }): Target | null {
  const r = c.canvas.getBoundingClientRect();
  const { rows, cols } = dims(c.fig);
  if (r.width === 0 || r.height === 0 || !(rows > 0)) return null;
  const i = Math.floor(((e.clientY - r.top) / r.height) * rows), j = Math.floor(((e.clientX - r.left) / r.width) * cols);
  if (i < 0 || j < 0 || i >= rows || j >= cols) return null;
  return canvasTarget(c.fig, c.box, i, j);
}

const same = (a: Target | null, b: Target | null) =>
  !!a && !!b && a.el === b.el && a.field === b.field && a.index.join() === b.index.join();

// ---- the events (all delegated from the shadow root by the hook) ----

export function handle(root: ShadowRoot, e: Event, target: EventTarget | null = e.target): void {
  const t = target instanceof Element ? target : null;
  if (!t) return;
  const st = stateOf(root);
  const inPanel = st.panel.contains(t);
  switch (e.type) {
    case 'pointerover': {
      if (t instanceof HTMLCanvasElement) return canvasHover(root, st, e as MouseEvent, t);
      if (inPanel) { clearTimeout(st.leave); pointTerm(root, st, t.closest('tr[data-term]')); return; }
      const td = t.closest<HTMLElement>(MAP_CELL);
      const target = td && tableTarget(td);
      if (target) { clearTimeout(st.leave); show(root, st, target); }
      return;
    }
    case 'mousemove':
      if (t instanceof HTMLCanvasElement) canvasHover(root, st, e as MouseEvent, t);
      return;
    case 'pointerout': {
      const to = (e as PointerEvent).relatedTarget;
      if (to instanceof Element && (st.panel.contains(to) || to.closest(MAP_CELL) || to.closest('canvas.map-canvas'))) return;
      if (!t.closest(MAP_CELL) && !t.closest('canvas.map-canvas') && !inPanel) return;
      clearTimeout(st.leave);
      st.leave = setTimeout(() => {
        // still over a cell or the panel (an update redrew what was under the pointer): stay
        if (root.querySelector(`${MAP_CELL}:hover, canvas.map-canvas:hover, .xp-panel:hover`)) return;
        if (st.pinned) show(root, st, st.pinned); else hide(st);
      }, 150);
      return;
    }
    case 'pointerdown':
      st.tapping = t instanceof HTMLCanvasElement;
      return;
    case 'click': {
      st.tapping = false;
      const c = t instanceof HTMLCanvasElement ? canvasBox(t) : null;
      const target = c && canvasAt(e as MouseEvent, c);
      if (target) { st.cursors.set(target.fig, target.canvas!); pin(root, st, target); target.el.focus({ preventScroll: true }); return; }
      const td = t.closest<HTMLElement>(MAP_CELL);
      if (td && root.activeElement !== td) { rove(td); td.focus({ preventScroll: true }); }
      return;
    }
    case 'focusin': {
      const td = t.closest<HTMLElement>(MAP_CELL);
      if (td) { const target = tableTarget(td); if (target) { rove(td); pin(root, st, target); } return; }
      if (!t.matches('figure[data-field] .scroll')) return;
      const c = canvasBox(t);
      const tapped = st.tapping;
      st.tapping = false;
      if (c && !tapped) {
        const at = st.cursors.get(c.fig) ?? { i: 0, j: 0 };
        const target = canvasTarget(c.fig, c.box, at.i, at.j);
        if (target) pin(root, st, target);
      }
      return;
    }
    case 'focusout': {
      const to = (e as FocusEvent).relatedTarget;
      if (to instanceof Element && (st.panel.contains(to) || to.closest(MAP_CELL) || canvasBox(to))) return;
      if (inPanel || t.closest(MAP_CELL) || canvasBox(t)) { st.pinned = null; hide(st); }
      return;
    }
    case 'keydown':
      key(root, st, e as KeyboardEvent, t);
  }
}

/** The pointer over a canvas map: its cell under the pointer. */
let lastX = NaN, lastY = NaN;
function canvasHover(root: ShadowRoot, st: State, e: MouseEvent, canvas: HTMLCanvasElement): void {
  // the browser's own moves after a layout change (the pointer still): the keyboard's cell stays
  if (e.type === 'mousemove' && e.clientX === lastX && e.clientY === lastY) return;
  lastX = e.clientX;
  lastY = e.clientY;
  const c = canvasBox(canvas);
  const target = c && canvasAt(e, c);
  if (target && !same(target, st.shown)) { clearTimeout(st.leave); show(root, st, target); }
}

function key(root: ShadowRoot, st: State, e: KeyboardEvent, t: Element): void {
  if (e.key === 'Escape') {
    if (st.panel.hidden) return;
    const back = st.panel.contains(t) ? st.pinned?.el : null;
    st.pinned = null;
    hide(st);
    back?.focus({ preventScroll: true });
    e.preventDefault();
    return;
  }
  const step: Record<string, [number, number]> = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  const d = step[e.key];
  const far = e.key === 'Home' || e.key === 'End';
  if ((!d && !far) || e.altKey || e.metaKey) return;
  const td = t.closest<HTMLElement>(MAP_CELL);
  if (td) {
    const next = neighbour(td, d, e.key, e.ctrlKey);
    if (next) { rove(next); next.focus(); }
    e.preventDefault();
    return;
  }
  const c = t.matches('figure[data-field] .scroll') ? canvasBox(t) : null;
  if (!c) return;
  const { rows, cols } = dims(c.fig);
  const at = st.cursors.get(c.fig) ?? { i: 0, j: 0 };
  let { i, j } = at;
  if (d) { i += d[0]; j += d[1]; } else if (e.key === 'Home') { j = 0; if (e.ctrlKey) i = 0; } else { j = cols - 1; if (e.ctrlKey) i = rows - 1; }
  i = Math.max(0, Math.min(rows - 1, i));
  j = Math.max(0, Math.min(cols - 1, j));
  st.cursors.set(c.fig, { i, j });
  const target = canvasTarget(c.fig, c.box, i, j);
  if (target) pin(root, st, target);
  e.preventDefault();
}

/** The cell next to `td` in its table (Home/End: the row's ends; with Ctrl the map's corners). */
function neighbour(td: HTMLElement, d: [number, number] | undefined, key: string, ctrl: boolean): HTMLElement | null {
  const table = td.closest('table');
  const tr = td.parentElement as HTMLTableRowElement | null;
  if (!table || !tr) return null;
  const rows = [...table.tBodies].flatMap((b) => [...b.rows]);
  const r = rows.indexOf(tr);
  const cellsOf = (row: HTMLTableRowElement) => [...row.cells].filter((c) => c.hasAttribute('data-index')) as HTMLElement[];
  const here = cellsOf(tr);
  const c = here.indexOf(td);
  if (!d) {
    const row = ctrl ? rows[key === 'Home' ? 0 : rows.length - 1] : tr;
    const cells = cellsOf(row);
    return (key === 'Home' ? cells[0] : cells[cells.length - 1]) ?? null;
  }
  const row = rows[r + d[0]];
  if (!row) return null;
  return cellsOf(row)[c + d[1]] ?? null;
}

/** Roving tabindex: `td` becomes its map's one tab stop (heatmap.ts makes the first cell it). */
function rove(td: HTMLElement): void {
  const table = td.closest('table');
  if (!table || td.getAttribute('tabindex') === '0') return;
  for (const other of table.querySelectorAll<HTMLElement>('td[tabindex="0"]')) other.setAttribute('tabindex', '-1');
  td.setAttribute('tabindex', '0');
}

// ---- showing ----

function pin(root: ShadowRoot, st: State, target: Target): void {
  st.pinned = target;
  clearTimeout(st.leave);
  show(root, st, target);
}

function hide(st: State): void {
  clearTimeout(st.leave);
  st.seq++;
  st.panel.hidden = true;
  unlight(st);
  st.shown?.el.removeAttribute('aria-describedby');
  st.shown = null;
}

async function show(root: ShadowRoot, st: State, target: Target): Promise<void> {
  // shown by a hover, the panel lets the pointer through to the maps it may lie over (a tooltip);
  // pinned (focused or tapped), its terms can be pointed at
  st.panel.classList.toggle('xp-passive', !same(target, st.pinned));
  if (same(target, st.shown) && !st.panel.hidden) return;
  const seq = ++st.seq;
  if (st.shown && st.shown.el !== target.el) st.shown.el.removeAttribute('aria-describedby');
  st.shown = target;
  await explainInto(root, st, target, seq);
}

/** The same cell again after a new trace (its element may have been drawn anew). */
async function refresh(root: ShadowRoot, st: State): Promise<void> {
  const old = st.shown;
  if (!old || st.panel.hidden) return;
  let target: Target | null = old;
  if (!old.el.isConnected) {
    const figs = root.querySelectorAll<HTMLElement>(`figure[data-field="${CSS.escape(old.field)}"]`);
    target = null;
    for (const fig of figs) {
      if (old.canvas) {
        const c = canvasBox(fig.querySelector('canvas.map-canvas') ?? fig);
        target = c && canvasTarget(c.fig, c.box, old.canvas.i, old.canvas.j);
      } else {
        const td = fig.querySelector<HTMLElement>(`td[data-index="${old.index.join(',')}"]`);
        target = td && tableTarget(td);
      }
      if (target) break;
    }
    if (!target) { st.pinned = null; hide(st); return; }
    if (st.pinned === old) st.pinned = target;
    st.shown = target;
  }
  await explainInto(root, st, target, ++st.seq);
}

async function explainInto(root: ShadowRoot, st: State, target: Target, seq: number): Promise<void> {
  const host = root.host as Explains;
  const lang = langOf(root);
  let x: Explanation | null = null, error = '';
  const [k] = await Promise.all([katex(), (async () => {
    try { x = host.explain ? await host.explain(target.field, target.index) : null; } catch (e) { error = e instanceof Error ? e.message : String(e); }
  })()]);
  if (seq !== st.seq) return;  // another cell was asked for meanwhile
  const app = root.querySelector('.app') ?? root;
  if (st.panel.parentNode !== app) app.append(st.panel);
  render(st, target, x, error, k, lang);
  st.panel.hidden = false;
  // a formula wider than the panel scrolls: by keyboard too
  if (st.formula.scrollWidth > st.formula.clientWidth + 1) st.formula.tabIndex = 0;
  else st.formula.removeAttribute('tabindex');
  target.el.setAttribute('aria-describedby', st.text.id);
  unlight(st);
  if (x) light(root, st, x, target);
  placePanel(st, target);
}

function render(st: State, target: Target, x: Explanation | null, error: string,
  k: typeof import('katex').default | null, lang: Lang): void {
  if (st.panel.lang !== lang) {
    st.panel.lang = lang;
    st.panel.setAttribute('aria-label', tt(lang, 'explanation'));
    st.panel.querySelector('.xp-close')!.setAttribute('aria-label', tt(lang, 'close'));
    st.panel.querySelector('.xp-keys')!.textContent = tt(lang, 'keys');
  }
  st.title.textContent = `${target.field}[${target.index.join(', ')}]`;
  st.value.textContent = x ? exact(x.value) : '';
  clear(st.formula);
  clear(st.terms);
  if (!x) {
    st.text.textContent = error || tt(lang, 'none');
    return;
  }
  st.text.textContent = x.text;
  st.shownTerms = x.terms;
  if (k) {
    // MathML: Chromium, Firefox and Safari draw it with the page's fonts (no KaTeX CSS or fonts)
    for (const [n, line] of steps(x.formula).entries()) {
      const div = h('div', { class: n ? 'xp-step' : 'xp-step xp-first' });
      k.render(`\\displaystyle ${line}`, div, { output: 'mathml', throwOnError: false, strict: 'ignore' });
      st.formula.append(div);
    }
  }
  if (x.terms.length) {
    const body = h('tbody');
    for (const [n, term] of x.terms.slice(0, MAX_TERMS).entries()) {
      body.append(h('tr', { dataset: termRefs(term).length ? { term: String(n) } : undefined }, h('th', { attrs: { scope: 'row' }, text: term.name }), h('td', { text: fmt(term.value, 4) })));
    }
    const table = h('table', null,
      h('caption', { text: tt(lang, 'terms') }),
      h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' }, text: tt(lang, 'term') }),
        h('th', { attrs: { scope: 'col' }, text: tt(lang, 'value') }))),
      body);
    st.terms.append(table);
    if (x.terms.length > MAX_TERMS) st.terms.append(h('p', { text: tt(lang, 'more').replace('{n}', String(x.terms.length - MAX_TERMS)) }));
  }
}

/** A chain a = b = c = d as one step a line ("a = b", "= c", "= d"): a panel's width holds each
 * step, and a learner reads the derivation top down. */
export function steps(tex: string): string[] {
  const parts: string[] = [];
  let depth = 0, from = 0;
  for (let i = 0; i < tex.length; i++) {
    const c = tex[i];
    if (c === '\\') { i++; continue; }
    if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === '=' && depth === 0) { parts.push(tex.slice(from, i).trim()); from = i + 1; }
  }
  parts.push(tex.slice(from).trim());
  if (parts.length < 3 || /\\begin\{/.test(tex)) return [tex];
  return [`${parts[0]} = ${parts[1]}`, ...parts.slice(2).map((p) => `= ${p}`)];
}

// ---- the operands, lit ----

const termRefs = (term: Term): CellRef[] => [...(term.ref ? [term.ref] : []), ...(term.refs ?? [])];

function unlight(st: State): void {
  for (const el of st.lit) el.classList.remove('xp-operand', 'xp-cell', 'xp-term');
  for (const el of st.marks) el.remove();
  st.lit = [];
  st.marks = [];
}

function light(root: ShadowRoot, st: State, x: Explanation, target: Target): void {
  const refs: CellRef[] = [...x.operands];
  for (const term of x.terms) refs.push(...termRefs(term));
  if (!target.canvas) { target.el.classList.add('xp-cell'); st.lit.push(target.el); }
  st.lit.push(...cellsOf(root, refs, (set, fig) => markCanvas(st, fig, set)));
  for (const el of st.lit) if (el !== target.el) el.classList.add('xp-operand');
  if (target.canvas) markCanvas(st, target.fig, new Set([target.index.join(',')]), true);
}

/** The drawn cells of `refs`: in the maps (td[data-index]) and the input grids (their cells carry
 * the path as data-key); a canvas map's set goes to `canvas`. */
function cellsOf(root: ShadowRoot, refs: readonly CellRef[], canvas?: (set: Set<string>, fig: HTMLElement) => void): Element[] {
  const byField = new Map<string, Set<string>>();
  for (const r of refs) {
    let set = byField.get(r.field);
    if (!set) byField.set(r.field, set = new Set());
    set.add(r.index.join(','));
  }
  const out: Element[] = [];
  for (const [field, set] of byField) {
    for (const fig of root.querySelectorAll<HTMLElement>(`figure[data-field="${CSS.escape(field)}"]`)) {
      const tds = fig.querySelectorAll<HTMLElement>('td[data-index]');
      for (const td of tds) if (set.has(td.dataset.index!)) out.push(td);
      if (!tds.length) canvas?.(set, fig);
    }
    // a tied grid (self-attention's X, views/panels.ts) stands for k and v too: its keys are q's
    for (const fig of root.querySelectorAll<HTMLElement>(`figure.editor[data-tensor="${CSS.escape(field)}"], figure.editor[data-tied~="${CSS.escape(field)}"]`)) {
      for (const s of set) {
        const td = fig.querySelector(`[data-key="${CSS.escape(pathText(fig.dataset.tensor!, parseIndex(s)))}"]`)?.closest('td');
        if (td) out.push(td);
      }
    }
  }
  return out;
}

/** A term's row pointed at in the panel: its cells stand out among the operands. */
function pointTerm(root: ShadowRoot, st: State, row: Element | null): void {
  for (const el of root.querySelectorAll('.xp-term')) el.classList.remove('xp-term');
  const n = row ? Number((row as HTMLElement).dataset.term) : NaN;
  const term = st.terms.isConnected && Number.isInteger(n) ? st.shownTerms[n] : undefined;
  if (term) for (const el of cellsOf(root, termRefs(term))) el.classList.add('xp-term');
}

/** Outlines over a canvas map's cells (at most a few hundred: a row or a column of a big map). */
function markCanvas(st: State, fig: HTMLElement, set: Set<string>, cursor = false): void {
  const canvas = fig.querySelector<HTMLCanvasElement>('canvas.map-canvas');
  const box = canvas?.closest<HTMLElement>('.scroll');
  const { rows, cols } = dims(fig);
  if (!canvas || !box || !(rows > 0) || set.size > 512) return;
  const want = new Map<string, [number, number]>();
  // the cells' (i, j) from their index paths: a canvas knows the path of each (i, j), so search
  // the rows and columns that the paths can be at (the last two components for every 2-D map)
  for (const s of set) {
    const p = parseIndex(s);
    const i = p[p.length - 2], j = p[p.length - 1];
    if (i < rows && j < cols && canvasCell(fig, i, j, false) === s) want.set(s, [i, j]);
  }
  if (!want.size) return;
  const marks = h('div', { class: cursor ? 'xp-marks xp-cursor' : 'xp-marks', attrs: { 'aria-hidden': 'true' } });
  const cw = canvas.offsetWidth / cols, ch = canvas.offsetHeight / rows;
  for (const [i, j] of want.values()) {
    const m = h('span');
    m.style.left = `${canvas.offsetLeft + j * cw}px`;
    m.style.top = `${canvas.offsetTop + i * ch}px`;
    m.style.width = `${Math.max(cw, 3)}px`;
    m.style.height = `${Math.max(ch, 3)}px`;
    marks.append(m);
  }
  box.append(marks);
  st.marks.push(marks);
}

// ---- placing the panel beside the map, never over the cell ----

function placePanel(st: State, target: Target): void {
  const p = st.panel;
  if (!target.el.isConnected) return;
  const vw = document.documentElement.clientWidth || innerWidth, vh = innerHeight;
  const cell = target.canvas ? cursorRect(target) : target.el.getBoundingClientRect();
  const fig = target.fig.getBoundingClientRect();
  p.style.maxHeight = '';
  p.style.left = '0px';
  p.style.top = '0px';
  const pw = p.offsetWidth, ph = p.offsetHeight, gap = 8;
  const x = Math.max(gap, Math.min(vw - pw - gap, cell.left - 24));
  const fits = (y: number) => y >= gap && y + ph <= vh - gap;
  // below the map, else above it, else beside the cell, else below/above the cell (scrolling)
  let left = x, top: number;
  if (fits(fig.bottom + gap) && fig.bottom + gap < vh) top = fig.bottom + gap;
  else if (fits(fig.top - gap - ph) && fig.top > 0) top = fig.top - gap - ph;
  else if (cell.right + gap + pw <= vw - gap) { left = cell.right + gap; top = Math.max(gap, Math.min(vh - ph - gap, cell.top - 20)); }
  else if (cell.left - gap - pw >= gap) { left = cell.left - gap - pw; top = Math.max(gap, Math.min(vh - ph - gap, cell.top - 20)); }
  else if (fits(cell.bottom + gap)) top = cell.bottom + gap;
  else if (fits(cell.top - gap - ph)) top = cell.top - gap - ph;
  else {
    const below = vh - cell.bottom - 2 * gap, above = cell.top - 2 * gap;
    const room = Math.max(below, above, 120);
    p.style.maxHeight = `${room}px`;
    top = below >= above ? cell.bottom + gap : Math.max(gap, cell.top - gap - Math.min(ph, room));
  }
  p.style.left = `${Math.round(left)}px`;
  p.style.top = `${Math.round(top)}px`;
}

function cursorRect(target: Target): DOMRect {
  const canvas = target.fig.querySelector('canvas.map-canvas') as HTMLCanvasElement;
  const r = canvas.getBoundingClientRect();
  const { rows, cols } = dims(target.fig);
  const cw = r.width / cols, ch = r.height / rows;
  return new DOMRect(r.left + target.canvas!.j * cw, r.top + target.canvas!.i * ch, Math.max(cw, 1), Math.max(ch, 1));
}
