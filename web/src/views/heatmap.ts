// A matrix drawn as a table of coloured cells, each showing its value (DOM only).
import { scaleDiverging, scaleSequential } from 'd3-scale';
import { interpolateBlues, interpolateRdBu, interpolateGreens } from 'd3-scale-chromatic';
import { rgb } from 'd3-color';
import { h, scrollBox } from '../dom';
import { exact, fmt } from '../format';

export type ColorKind = 'weights' | 'diverging' | 'bool' | 'count' | 'none';

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
}

/** Above this many cells a map is drawn on a canvas (values on hover), not as a table. */
export const TEXT_CELLS = 400;

/** Dark or white text, whichever contrasts more with the cell (WCAG relative luminance). */
const textColor = (bg: string) => {
  const c = rgb(bg);
  const lin = (v: number) => { const x = v / 255; return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  const DARK = 0.0135; // relative luminance of #1b1f24
  return (L + 0.05) / (DARK + 0.05) >= 1.05 / (L + 0.05) ? '#1b1f24' : '#ffffff';
};

/** The largest of `init` and f(x) over the finite numbers x of `values` (no spread: maps can
 * hold more numbers than a call takes arguments). */
function largest(values: unknown[][], init: number, f: (x: number) => number = (x) => x): number {
  let m = init;
  for (const row of values) {
    for (const x of row) if (typeof x === 'number' && Number.isFinite(x)) { const y = f(x); if (y > m) m = y; }
  }
  return m;
}

function colorFor(kind: ColorKind, values: unknown[][], compact: boolean, extent?: number): ((v: unknown) => string | null) {
  if (kind === 'weights') {
    // Weights are in [0, 1]; a large map's weights are small, so it is scaled to its largest one.
    const top = compact ? largest(values, 1e-12) : 1;
    const s = scaleSequential(interpolateBlues).domain([0, top]).clamp(true);
    return (v) => (typeof v === 'number' && Number.isFinite(v) ? s(v * 0.85) : null);
  }
  if (kind === 'count') {
    const max = largest(values, 1);
    const s = scaleSequential(interpolateGreens).domain([0, max]);
    return (v) => (typeof v === 'number' && v > 0 ? s(0.25 * max + 0.6 * v) : null);
  }
  if (kind === 'bool') return (v) => (v === true ? '#d7ecd9' : v === false ? '#eceef1' : null);
  if (kind === 'diverging') {
    const m = extent ?? largest(values, 1e-12, Math.abs);
    const s = scaleDiverging((t: number) => interpolateRdBu(1 - (0.5 + (t - 0.5) * 0.8))).domain([-m, 0, m]);
    return (v) => (typeof v === 'number' && Number.isFinite(v) ? s(v) : null);
  }
  return () => null;
}

/** Above this many cells a map is drawn on a canvas, one pixel per cell, scaled up; above
 * MAX_PIXELS cells along a side it is downsampled (each pixel the mean of a block of cells). */
const CANVAS_SIDE = 480;
const MAX_PIXELS = 640;

/** Colour of a value as r, g, b (the same scale as the tables'), through a 256-step table. */
function rgbLookup(kind: ColorKind, values: unknown[][], extent?: number): (v: unknown) => [number, number, number] | null {
  const color = colorFor(kind, values, true, extent);
  const cache = new Map<string, [number, number, number]>();
  const toRgb = (css: string | null): [number, number, number] | null => {
    if (!css) return null;
    let c = cache.get(css);
    if (!c) { const x = rgb(css); c = [x.r, x.g, x.b]; cache.set(css, c); }
    return c;
  };
  if (kind === 'bool' || kind === 'none') return (v) => toRgb(color(v));
  let lo = 0, hi = 1;
  if (kind === 'diverging') { hi = extent ?? largest(values, 1e-12, Math.abs); lo = -hi; }
  else { hi = largest(values, kind === 'count' ? 1 : 1e-12); lo = 0; }
  const steps = 256;
  const table = Array.from({ length: steps }, (_, k) => toRgb(color(lo + ((hi - lo) * k) / (steps - 1))));
  return (v) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return null;
    if (kind === 'count' && v <= 0) return null;
    const k = Math.round(((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * (steps - 1));
    return table[k];
  };
}

/** A large map on a canvas: one pixel per cell (or per block of cells past MAX_PIXELS), scaled up;
 * hovering a pixel shows the exact value of the cell under the pointer (data-index, data-value). */
function canvasMap(o: HeatmapOptions, fig: HTMLElement, rows: number, cols: number): void {
  const block = Math.max(1, Math.ceil(Math.max(rows, cols) / MAX_PIXELS));
  const gw = Math.ceil(cols / block), gh = Math.ceil(rows / block);
  const canvas = h('canvas', { class: 'map-canvas', attrs: { width: String(gw), height: String(gh), role: 'img',
    'aria-label': `${o.title}: ${rows} × ${cols}` } }) as HTMLCanvasElement;
  const scale = Math.max(1, Math.floor(CANVAS_SIDE / Math.max(gw, gh)));
  canvas.style.width = `${gw * scale}px`;
  canvas.style.height = `${gh * scale}px`;
  const lookup = rgbLookup(o.color, o.values, o.extent);
  const ctx = canvas.getContext('2d');
  if (ctx) {
    const img = ctx.createImageData(gw, gh);
    const px = img.data;
    for (let gi = 0; gi < gh; gi++) {
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
        let c: [number, number, number] | null;
        if (masked === cells) c = [226, 228, 232];
        else if (o.color === 'bool') c = lookup(block === 1 ? last : n > 0 && sum / n >= 0.5);
        else c = n > 0 ? lookup(sum / n) : null;
        const [r, g, b] = c ?? [246, 247, 249];
        px[k] = r; px[k + 1] = g; px[k + 2] = b; px[k + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
  }
  const hover = h('output', { class: 'map-hover', text: ' ' });
  const at = (e: MouseEvent): [number, number] | null => {
    const box = canvas.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return null;
    const i = Math.floor(((e.clientY - box.top) / box.height) * rows);
    const j = Math.floor(((e.clientX - box.left) / box.width) * cols);
    return i >= 0 && i < rows && j >= 0 && j < cols ? [i, j] : null;
  };
  canvas.addEventListener('mousemove', (e) => {
    const ij = at(e);
    if (!ij) return;
    const [i, j] = ij;
    const v = o.values[i]?.[j];
    hover.textContent = `${o.rowLabels[i] ?? i}, ${o.colLabels[j] ?? j}  [${i}, ${j}] = ${exact(v)}${o.masked?.(i, j) ? ' (masked)' : ''}`;
    hover.dataset.value = exact(v);
    hover.dataset.row = String(i);
    hover.dataset.col = String(j);
    if (o.indexOf) hover.dataset.index = o.indexOf(i, j);
  });
  const notes = [`${rows} × ${cols}: ${block > 1 ? `downsampled, each pixel the mean of ${block} × ${block} cells; ` : ''}hover for the exact value`];
  fig.querySelector('.fig-title')!.append(h('span', { class: 'dims-note', text: ` (${notes[0]})` }));
  if (block > 1) fig.dataset.downsampled = String(block);
  fig.dataset.rows = String(rows);
  fig.dataset.cols = String(cols);
  fig.append(h('div', { class: 'scroll canvas-box' }, canvas), hover);
}

export function heatmap(o: HeatmapOptions): HTMLElement {
  const rows = o.values.length;
  const cols = o.values.reduce((m, r) => Math.max(m, r.length), 0);
  const fig = h('figure', { class: 'heatmap', dataset: { field: o.field } },
    h('figcaption', null, h('span', { class: 'fig-title', text: o.title }),
      o.caption ? h('span', { class: 'fig-caption', text: o.caption }) : null));
  if (rows * cols > TEXT_CELLS) {
    canvasMap(o, fig, rows, cols);
    return fig;
  }
  const compact = false;
  const color = colorFor(o.color, o.values, compact, o.extent);
  const table = h('table', { class: `grid color-${o.color}` });
  const head = h('tr', null, h('th', { class: 'corner', attrs: { scope: 'col' }, text: o.rowHeader ?? '' }));
  for (let j = 0; j < cols; j++) {
    head.append(h('th', { attrs: { scope: 'col' }, text: o.colLabels[j] ?? String(j) }));
  }
  table.append(h('thead', null, head));
  const body = h('tbody');
  for (let i = 0; i < rows; i++) {
    const tr = h('tr', { class: o.rowClass?.(i) });
    tr.append(h('th', { attrs: { scope: 'row' }, text: o.rowLabels[i] ?? String(i) }));
    for (let j = 0; j < cols; j++) {
      const v = o.values[i][j];
      const td = h('td', { title: exact(v) });
      td.dataset.value = exact(v);
      if (o.indexOf) td.dataset.index = o.indexOf(i, j);
      const bg = color(v);
      if (bg) {
        td.style.backgroundColor = bg;
        td.style.color = textColor(bg);
      }
      const cls = [o.masked?.(i, j) ? 'masked' : '', o.cellClass?.(i, j) ?? ''].filter(Boolean).join(' ');
      if (cls) td.className = cls;
      td.append(h('span', { class: 'v', text: o.cellText ? o.cellText(i, j, v) : fmt(v) }));
      const note = o.cellNote?.(i, j);
      if (note) td.append(h('small', { text: note }));
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  fig.append(scrollBox(table));
  return fig;
}
