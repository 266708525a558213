// A matrix drawn as a table of coloured cells, each showing its value (DOM only), between its
// axis names, above its legend (views/legend.ts, loaded after the first maps are drawn).
import { rgb } from 'd3-color';
import { h, scrollBox } from '../dom';
import { exact, fmt } from '../format';
import { t, type Lang } from '../i18n';
import { colorFor, domainOf, largest, textColorOf, type ColorKind } from './colors';

export type { ColorKind } from './colors';

export interface HeatmapOptions {
  title: string;
  caption?: string;
  /** data-field of the figure; cells carry data-index (the full index path in the trace). */
  field: string;
  values: unknown[][];
  rowLabels: string[];
  colLabels: string[];
  color: ColorKind;
  /** Full index path of cell (i, j), e.g. "0,1,0,1". */
  indexOf?: (i: number, j: number) => string;
  /** What indexOf's answers depend on beside (i, j) (the slice (b, h)): a drawn table given the same
   * key keeps its cells' index paths without asking for each again (an edit's garbage, issue 14). */
  indexKey?: string;
  /** Cells drawn hatched (masked out). */
  masked?: (i: number, j: number) => boolean;
  /** Extra class of a row ('updated', 'lazy', 'top'). */
  rowClass?: (i: number) => string | undefined;
  /** Extra class of a cell ('sampled'). */
  cellClass?: (i: number, j: number) => string | undefined;
  /** Small second line in a cell. */
  cellNote?: (i: number, j: number) => string | undefined;
  /** Text of a cell instead of the formatted value. */
  cellText?: (i: number, j: number, v: unknown) => string;
  maxCells?: number;
  rowHeader?: string;
  /** Diverging maps: the largest |value| of the colour scale (maps drawn side by side share one). */
  extent?: number;
  /** The names of the row and the column axis ('query i', 'key j'): every map names its axes. */
  axes: readonly [string, string];
  /** color 'category': the legend's name of a category ('bucket': "bucket 0", "bucket 1"). */
  category?: string;
  /** The language of the legend and of a canvas map's note. */
  lang: Lang;
}

/** Above this many cells a map is drawn on a canvas (values on hover), not as a table. */
export const TEXT_CELLS = 400;

/** Above this many cells a map is drawn on a canvas, one pixel per cell, scaled up; above
 * MAX_PIXELS cells along a side it is downsampled (each pixel the mean of a block of cells). */
const CANVAS_SIDE = 480;
const MAX_PIXELS = 640;

/** The 256-step colour tables of the canvas maps, by colour kind and domain (an edit that keeps a
 * map's domain reuses its table). */
const TABLES = new Map<string, ([number, number, number] | null)[]>();

/** Colour of a value as r, g, b (the same scale as the tables'), through a 256-step table. */
function rgbLookup(kind: ColorKind, values: unknown[][], extent?: number): (v: unknown) => [number, number, number] | null {
  if (kind === 'bool' || kind === 'category' || kind === 'none') {
    const color = colorFor(kind, values, true, extent);
    return (v) => { const css = color(v); if (!css) return null; const x = rgb(css); return [x.r, x.g, x.b]; };
  }
  const [lo, hi] = domainOf(kind, values, true, extent)!;
  const steps = 256;
  const key = `${kind}:${lo}:${hi}`;
  let table = TABLES.get(key);
  if (!table) {
    const color = colorFor(kind, values, true, extent);
    table = Array.from({ length: steps }, (_, k) => {
      const css = color(lo + ((hi - lo) * k) / (steps - 1));
      if (!css) return null;
      const x = rgb(css);
      return [x.r, x.g, x.b] as [number, number, number];
    });
    if (TABLES.size > 64) TABLES.clear();
    TABLES.set(key, table);
  }
  const t = table;
  return (v) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return null;
    if (kind === 'count' && v <= 0) return null;
    const k = Math.round(((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * (steps - 1));
    return t[k];
  };
}


// ---- a map's body, kept with its figure so that the next trace updates it in place ----

/** What a drawn map keeps to update itself: its options and, for a table, each cell's element and
 * what it shows; for a canvas, the canvas and the hover line. */
/** What every drawn map keeps: its axis names and its legend (views/legend.ts fills it). */
interface Frame {
  body: HTMLElement;
  axes: HTMLElement[];
  legend: HTMLElement;
}

interface TableState extends Frame {
  mode: 'table';
  o: HeatmapOptions;
  rows: number;
  cols: number;
  table: HTMLTableElement;
  corner: HTMLTableCellElement;
  colTh: HTMLTableCellElement[];
  rowTh: HTMLTableCellElement[];
  trs: HTMLTableRowElement[];
  tds: HTMLTableCellElement[][];
  spans: HTMLSpanElement[][];
  notes: (HTMLElement | null)[][];
  /** Per cell: the value, its text, background, class and note as last drawn; the index. */
  vals: unknown[][];
  texts: string[][];
  bgs: (string | null)[][];
  classes: string[][];
  noteTexts: (string | undefined)[][];
  indexes: (string | undefined)[][];
  indexKey: string | undefined;
  rowClasses: (string | undefined)[];
  /** The colour scale's kind and domain the cells were coloured with. */
  scaleKey: string;
}

interface CanvasState extends Frame {
  mode: 'canvas';
  o: HeatmapOptions;
  rows: number;
  cols: number;
  block: number;
  canvas: HTMLCanvasElement;
  ctx: CanvasRenderingContext2D | null;
  hover: HTMLOutputElement;
}

type MapState = TableState | CanvasState;
/** A map's body as built, before its frame (axis names, legend) is added. */
type Part<S extends MapState> = Omit<S, Exclude<keyof Frame, 'body'>>;

/** The state of each drawn map, by its figure. */
const STATES = new WeakMap<Element, MapState>();
/** The maps built while deferred (views built to update a drawn page): their body is drawn only
 * when the figure is inserted, or it updates a drawn figure's body instead. */
const PENDING = new WeakMap<Element, HeatmapOptions>();
let deferring = 0;

/** Builds `build()` with the maps' bodies deferred: each heatmap is a figure with its caption only,
 * whose body `drawMaps` draws, or `updateMap` draws into a figure already on the page. */
export function deferMaps<T>(build: () => T): T {
  deferring++;
  try {
    return build();
  } finally {
    deferring--;
  }
}

/** Draws the bodies of the deferred maps in `node` (about to be inserted). */
export function drawMaps(node: Node): void {
  if (!(node instanceof Element)) return;
  const draw = (fig: Element) => {
    const o = PENDING.get(fig);
    if (!o) return;
    PENDING.delete(fig);
    drawBody(fig as HTMLElement, o);
  };
  draw(node);
  for (const fig of node.querySelectorAll('figure.heatmap')) draw(fig);
}

/** Whether `fig` is a deferred map. */
export const isPendingMap = (fig: Element): boolean => PENDING.has(fig);
/** Whether `fig` is a drawn map that can take a new trace in place. */
export const isDrawnMap = (fig: Element): boolean => STATES.has(fig);

/** Updates the drawn map `old` to show the deferred map `next` (its options): only the cells whose
 * value, colour, class or text changed are touched. False when the shapes differ (no update made). */
export function updateMap(old: Element, next: Element): boolean {
  const st = STATES.get(old);
  const o = PENDING.get(next);
  if (!st || !o) return false;
  const { rows, cols } = dimsOf(o);
  if (rows !== st.rows || cols !== st.cols || mode(rows, cols) !== st.mode) return false;
  if (st.mode === 'canvas') {
    if (blockOf(rows, cols) !== st.block) return false;
    // the same rows (a long run's typed rows: the same objects while its trace is shown, as each
    // edit and progress report draws the results again), colours and mask: the same picture, not
    // painted again (a 2048 x 2048 map's millions of cells, issue 18)
    const same = o.values === st.o.values && o.color === st.o.color && o.extent === st.o.extent && o.masked === st.o.masked;
    st.o = o;
    if (!same) paint(st);
    refreshHover(st);
  } else {
    if (o.color !== st.o.color) return false;
    updateTable(st, o);
  }
  o.axes.forEach((a, k) => { if (st.axes[k].textContent !== a) st.axes[k].textContent = a; });
  fillLegend(st);
  PENDING.delete(next);
  return true;
}

const dimsOf = (o: HeatmapOptions) => ({ rows: o.values.length, cols: o.values.reduce((m, r) => Math.max(m, r.length), 0) });
const mode = (rows: number, cols: number): 'table' | 'canvas' => (rows * cols > TEXT_CELLS ? 'canvas' : 'table');
const blockOf = (rows: number, cols: number) => Math.max(1, Math.ceil(Math.max(rows, cols) / MAX_PIXELS));

/** Paints a canvas map's pixels from its options' values. */
function paint(st: Part<CanvasState>): void {
  const { o, rows, cols, block, ctx } = st;
  if (!ctx) return;
  const gw = Math.ceil(cols / block), gh = Math.ceil(rows / block);
  const lookup = rgbLookup(o.color, o.values, o.extent);
  const img = ctx.createImageData(gw, gh);
  const px = img.data;
  const paintRow = (gi: number) => {
    for (let gj = 0; gj < gw; gj++) {
      let sum = 0, n = 0, masked = 0, cells = 0, last: unknown = null;
      for (let i = gi * block; i < Math.min(rows, (gi + 1) * block); i++) {
        const row = o.values[i];
        for (let j = gj * block; j < Math.min(cols, (gj + 1) * block); j++) {
          const v = row[j];
          cells++;
          last = v;
          if (o.masked?.(i, j)) masked++;
          if (typeof v === 'number' && Number.isFinite(v)) { sum += v; n++; }
          else if (typeof v === 'boolean') { sum += v ? 1 : 0; n++; }
        }
      }
      const k = 4 * (gi * gw + gj);
      // a masked block is left transparent: the canvas's background hatches it, as the tables do
      if (masked === cells) continue;
      const c = o.color === 'bool' ? lookup(block === 1 ? last : n > 0 && sum / n >= 0.5) : n > 0 ? lookup(sum / n) : null;
      const [r, g, b] = c ?? [246, 247, 249];
      px[k] = r; px[k + 1] = g; px[k + 2] = b; px[k + 3] = 255;
    }
  };
  // a long run's typed rows paint themselves in slices, a task each (worker/packed.ts)
  const sliced = (o.values as { sliced?: (rows: number, paintRow: (gi: number) => void, done: () => void, map: object) => void }).sliced;
  if (sliced) sliced(gh, paintRow, () => ctx.putImageData(img, 0, 0), st);
  else {
    for (let gi = 0; gi < gh; gi++) paintRow(gi);
    ctx.putImageData(img, 0, 0);
  }
}

/** The hover line of a canvas map for cell (i, j) of its current values. */
function showHover(st: Part<CanvasState>, i: number, j: number): void {
  const { o, hover } = st;
  const v = o.values[i]?.[j];
  hover.textContent = `${o.axes[0]}: ${o.rowLabels[i] ?? i}, ${o.axes[1]}: ${o.colLabels[j] ?? j}  [${i}, ${j}] = ${exact(v)}${o.masked?.(i, j) ? ` (${t(o.lang, 'masked')})` : ''}`;
  hover.dataset.value = exact(v);
  hover.dataset.row = String(i);
  hover.dataset.col = String(j);
  if (o.indexOf) hover.dataset.index = o.indexOf(i, j);
}

/** A canvas map's cell (i, j), shown on its hover line if `hover`: its index path (views/explain-panel.ts). */
export function canvasCell(fig: Element, i: number, j: number, hover = true): string | undefined {
  const st = STATES.get(fig);
  if (st?.mode !== 'canvas') return undefined;
  if (hover) showHover(st, i, j);
  return st.o.indexOf?.(i, j);
}

/** After an update: the hover line shows the new value of the cell it showed. */
function refreshHover(st: CanvasState): void {
  const { row, col } = st.hover.dataset;
  if (row !== undefined && col !== undefined) showHover(st, Number(row), Number(col));
}

/** A large map on a canvas: one pixel per cell (or per block of cells past MAX_PIXELS), scaled up;
 * hovering a pixel shows the exact value of the cell under the pointer (data-index, data-value). */
function canvasBody(o: HeatmapOptions, rows: number, cols: number): Part<CanvasState> {
  const block = blockOf(rows, cols);
  const gw = Math.ceil(cols / block), gh = Math.ceil(rows / block);
  const canvas = h('canvas', { class: 'map-canvas', attrs: { width: String(gw), height: String(gh), role: 'img',
    'aria-label': `${o.title}: ${rows} × ${cols}` } }) as HTMLCanvasElement;
  const scale = Math.max(1, Math.floor(CANVAS_SIDE / Math.max(gw, gh)));
  canvas.style.width = `${gw * scale}px`;
  canvas.style.height = `${gh * scale}px`;
  const hover = h('output', { class: 'map-hover', text: ' ' });
  const box = scrollBox(canvas);  // a map wider than the page scrolls, by keyboard too
  box.classList.add('canvas-box');
  const st: Part<CanvasState> = { mode: 'canvas', o, rows, cols, block, canvas, ctx: canvas.getContext('2d'), hover, body: box };
  paint(st);
  canvas.addEventListener('mousemove', (e) => {
    const box = canvas.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    const i = Math.floor(((e.clientY - box.top) / box.height) * st.rows);
    const j = Math.floor(((e.clientX - box.left) / box.width) * st.cols);
    if (i >= 0 && i < st.rows && j >= 0 && j < st.cols) showHover(st, i, j);
  });
  return st;
}

/** The class of cell (i, j): masked (hatched) and the view's own. */
function cellClassOf(o: HeatmapOptions, i: number, j: number): string {
  const masked = o.masked?.(i, j) ? 'masked' : '';
  const own = o.cellClass?.(i, j) ?? '';
  return masked && own ? `${masked} ${own}` : masked || own;
}

/** The key of a table's colour scale: a new key recolours every cell. */
const scaleKeyOf = (o: HeatmapOptions): string => o.color + domainOf(o.color, o.values, false, o.extent);

function tableBody(o: HeatmapOptions, rows: number, cols: number): Part<TableState> {
  const color = colorFor(o.color, o.values, false, o.extent);
  const table = h('table', { class: `grid color-${o.color}` });
  // an empty corner is no header (a header cell needs a name)
  const corner = o.rowHeader ? h('th', { class: 'corner', attrs: { scope: 'col' }, text: o.rowHeader }) : h('td', { class: 'corner' });
  const head = h('tr', null, corner);
  const colTh: HTMLTableCellElement[] = [];
  for (let j = 0; j < cols; j++) {
    const th = h('th', { attrs: { scope: 'col' }, text: o.colLabels[j] ?? String(j) });
    colTh.push(th);
    head.append(th);
  }
  table.append(h('thead', null, head));
  const body = h('tbody');
  const st: Part<TableState> = { mode: 'table', o, rows, cols, table, body: scrollBox(table), corner, colTh, rowTh: [], trs: [], tds: [], spans: [], notes: [],
    vals: [], texts: [], bgs: [], classes: [], noteTexts: [], indexes: [], indexKey: o.indexKey, rowClasses: [], scaleKey: scaleKeyOf(o) };
  st.body.tabIndex = -1;  // its cells are the tab stop
  for (let i = 0; i < rows; i++) {
    const rowClass = o.rowClass?.(i);
    const tr = h('tr', { class: rowClass });
    const th = h('th', { attrs: { scope: 'row' }, text: o.rowLabels[i] ?? String(i) });
    tr.append(th);
    const tds: HTMLTableCellElement[] = [], spans: HTMLSpanElement[] = [], notes: (HTMLElement | null)[] = [];
    const vals: unknown[] = [], texts: string[] = [], bgs: (string | null)[] = [], classes: string[] = [];
    const noteTexts: (string | undefined)[] = [], indexes: (string | undefined)[] = [];
    for (let j = 0; j < cols; j++) {
      const v = o.values[i][j];
      const td = document.createElement('td');
      td.tabIndex = i || j ? -1 : 0;  // a map is one tab stop; arrow keys walk it (views/explain-panel.ts)
      td.dataset.value = exact(v);  // no title: the explain panel shows the value (views/explain-panel.ts)
      const index = o.indexOf?.(i, j);
      if (index !== undefined) td.dataset.index = index;
      const bg = color(v);
      if (bg) {
        td.style.backgroundColor = bg;
        td.style.color = textColorOf(bg);
      }
      const cls = cellClassOf(o, i, j);
      if (cls) td.className = cls;
      const text = o.cellText ? o.cellText(i, j, v) : fmt(v);
      const span = h('span', { class: 'v', text });
      td.append(span);
      const note = o.cellNote?.(i, j);
      const small = note ? h('small', { text: note }) : null;
      if (small) td.append(small);
      tr.append(td);
      tds.push(td); spans.push(span); notes.push(small);
      vals.push(v); texts.push(text); bgs.push(bg); classes.push(cls); noteTexts.push(note || undefined); indexes.push(index);
    }
    body.append(tr);
    st.rowTh.push(th); st.trs.push(tr); st.rowClasses.push(rowClass);
    st.tds.push(tds); st.spans.push(spans); st.notes.push(notes);
    st.vals.push(vals); st.texts.push(texts); st.bgs.push(bgs); st.classes.push(classes); st.noteTexts.push(noteTexts); st.indexes.push(indexes);
  }
  table.append(body);
  return st;
}

/** A drawn table takes new options: labels, row classes and the cells that changed. */
function updateTable(st: TableState, o: HeatmapOptions): void {
  const { rows, cols } = st;
  const setText = (el: HTMLElement, text: string) => { if (el.textContent !== text) el.textContent = text; };
  setText(st.corner, o.rowHeader ?? '');
  for (let j = 0; j < cols; j++) setText(st.colTh[j], o.colLabels[j] ?? String(j));
  const scaleKey = scaleKeyOf(o);
  const recolour = scaleKey !== st.scaleKey;
  const sameIndex = o.indexKey !== undefined && o.indexKey === st.indexKey;
  st.indexKey = o.indexKey;
  st.scaleKey = scaleKey;
  let color: ((v: unknown) => string | null) | null = null;
  for (let i = 0; i < rows; i++) {
    setText(st.rowTh[i], o.rowLabels[i] ?? String(i));
    const rowClass = o.rowClass?.(i);
    if (rowClass !== st.rowClasses[i]) {
      st.rowClasses[i] = rowClass;
      if (rowClass) st.trs[i].className = rowClass;
      else st.trs[i].removeAttribute('class');
    }
    const row = o.values[i];
    const vals = st.vals[i], tds = st.tds[i];
    for (let j = 0; j < cols; j++) {
      const v = row[j];
      const td = tds[j];
      const same = Object.is(v, vals[j]);
      if (!same) {
        vals[j] = v;
        td.setAttribute('data-value', exact(v));
      }
      if (!same || recolour) {
        color ??= colorFor(o.color, o.values, false, o.extent);
        const bg = color(v);
        if (bg !== st.bgs[i][j]) {
          st.bgs[i][j] = bg;
          td.style.backgroundColor = bg ?? '';
          td.style.color = bg ? textColorOf(bg) : '';
        }
      }
      const index = sameIndex ? st.indexes[i][j] : o.indexOf?.(i, j);
      if (index !== st.indexes[i][j]) {
        st.indexes[i][j] = index;
        if (index === undefined) td.removeAttribute('data-index');
        else td.setAttribute('data-index', index);
      }
      const cls = cellClassOf(o, i, j);
      if (cls !== st.classes[i][j]) {
        st.classes[i][j] = cls;
        td.className = cls;
      }
      const text = o.cellText ? o.cellText(i, j, v) : same ? st.texts[i][j] : fmt(v);
      if (text !== st.texts[i][j]) {
        st.texts[i][j] = text;
        const node = st.spans[i][j].firstChild;
        if (node instanceof Text) node.data = text;
        else st.spans[i][j].textContent = text;
      }
      const note = o.cellNote?.(i, j) || undefined;
      if (note !== st.noteTexts[i][j]) {
        st.noteTexts[i][j] = note;
        const small = st.notes[i][j];
        if (note === undefined) { small?.remove(); st.notes[i][j] = null; }
        else if (small) small.textContent = note;
        else { const s = h('small', { text: note }); td.append(s); st.notes[i][j] = s; }
      }
    }
  }
  st.o = o;
  held((m) => m.holdCells(st.table, st.spans));  // a number that outgrew its block: measured again
}

/** Draws a map's body (a table of cells, or a canvas above TEXT_CELLS cells) into its figure,
 * between its axis names, with its legend below. */
function drawBody(fig: HTMLElement, o: HeatmapOptions): void {
  const { rows, cols } = dimsOf(o);
  const part = mode(rows, cols) === 'canvas' ? canvasBody(o, rows, cols) : tableBody(o, rows, cols);
  const axes = axisNames(o.axes);
  const st: MapState = Object.assign(part, { axes, legend: h('div', { class: 'map-legend' }) });
  fig.append(framed(part.body, axes), st.legend, st.mode === 'canvas' ? st.hover : '');
  STATES.set(fig, st);
  if (st.mode === 'table') held((m) => m.holdCells(st.table, st.spans));  // its numbers change inside blocks of fixed size
  fillLegend(st);
}

/** The elements of a map's axis names, rows' and columns'. */
export const axisNames = (names: readonly string[]): HTMLElement[] => names.map((text, k) => h('span', { class: k ? 'axis-x' : 'axis-y', text }));
/** A map's body between its axis names: the rows' at its left, the columns' above it. */
export const framed = (body: HTMLElement, [y, x]: HTMLElement[]): HTMLElement => h('div', { class: 'map-frame' }, x, y, body);

/** `f` with the module `load` gives, at once where it is loaded (`load` runs once): a module the
 * maps need after they are drawn, not part of the first load. */
function withModule<M>(load: () => Promise<M>): (f: (m: M) => void) => void {
  let module: M | undefined, loading: Promise<unknown> | undefined;
  return (f) => {
    if (module) f(module);
    else void (loading ??= load().then((m) => { module = m; })).then(() => f(module!));
  };
}

/** views/held-size.ts: numbers in boxes of fixed size, fitted in idle time. */
const held = withModule(() => import('./held-size'));
/** The legends' module, loaded a task after the first maps are drawn. */
const legends = withModule(() => new Promise((r) => setTimeout(r)).then(() => import('./legend')));

/** Fills a map's legend (when its module is there), and again at each update. */
function fillLegend(st: MapState): void {
  legends((m) => {
    m.fillLegend(st.legend, st.o, st.mode === 'canvas', st.rows, st.cols);
    held((k) => k.holdHeight(st.legend));  // its numbers change inside a box of fixed height
  });
}

/** Weights below 0 (diff's weights1 − λ weights2) take the diverging scale: Blues starts at 0 and
 * would clip them to white. */
const signedWeights = (o: HeatmapOptions): HeatmapOptions =>
  (o.color === 'weights' && largest(o.values, 0, (x) => -x) > 0 ? { ...o, color: 'diverging' } : o);

/** The colour of a cell's value as the page draws the map (a canvas's scale unquantised), and the
 * scale's domain (its legend's); export.ts. */
export const cellScale = (given: HeatmapOptions) => {
  const o = signedWeights(given);
  const { rows, cols } = dimsOf(o), compact = mode(rows, cols) === 'canvas';
  return { color: colorFor(o.color, o.values, compact, o.extent), domain: domainOf(o.color, o.values, compact, o.extent), kind: o.color };
};

export function heatmap(given: HeatmapOptions): HTMLElement {
  const o = signedWeights(given);
  const { rows, cols } = dimsOf(o);
  const title = h('span', { class: 'fig-title', text: o.title });
  const fig = h('figure', { class: 'heatmap', dataset: { field: o.field } },
    h('figcaption', null, title, o.caption ? h('span', { class: 'fig-caption', text: o.caption }) : null));
  if (mode(rows, cols) === 'canvas') {
    const block = blockOf(rows, cols);
    const lang = o.lang;
    const note = (block > 1 ? t(lang, 'mapDownsampled').replaceAll('{n}', String(block)) : '') + t(lang, 'mapHover');
    title.append(h('span', { class: 'dims-note', text: ` (${rows} × ${cols}: ${note})` }));
    if (block > 1) fig.dataset.downsampled = String(block);
    fig.dataset.rows = String(rows);
    fig.dataset.cols = String(cols);
  }
  if (deferring > 0) PENDING.set(fig, o);
  else drawBody(fig, o);
  return fig;
}
