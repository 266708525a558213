// A matrix drawn as a table of coloured cells, each showing its value (DOM only).
import { scaleDiverging, scaleSequential } from 'd3-scale';
import { interpolateBlues, interpolateRdBu, interpolateGreens } from 'd3-scale-chromatic';
import { rgb } from 'd3-color';
import { h } from '../dom';
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
}

/** Above this many cells a map is drawn compact: small squares, values in their tooltips. */
export const TEXT_CELLS = 400;

const textColor = (bg: string) => {
  const c = rgb(bg);
  const lum = (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255;
  return lum > 0.55 ? '#1b1f24' : '#ffffff';
};

function colorFor(kind: ColorKind, values: unknown[][], compact: boolean): ((v: unknown) => string | null) {
  const nums = values.flat().filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  if (kind === 'weights') {
    // Weights are in [0, 1]; a large map's weights are small, so it is scaled to its largest one.
    const top = compact ? Math.max(1e-12, ...nums) : 1;
    const s = scaleSequential(interpolateBlues).domain([0, top]).clamp(true);
    return (v) => (typeof v === 'number' && Number.isFinite(v) ? s(v * 0.85) : null);
  }
  if (kind === 'count') {
    const max = Math.max(1, ...nums);
    const s = scaleSequential(interpolateGreens).domain([0, max]);
    return (v) => (typeof v === 'number' && v > 0 ? s(0.25 * max + 0.6 * v) : null);
  }
  if (kind === 'bool') return (v) => (v === true ? '#d7ecd9' : v === false ? '#eceef1' : null);
  if (kind === 'diverging') {
    const m = Math.max(1e-12, ...nums.map(Math.abs));
    const s = scaleDiverging((t: number) => interpolateRdBu(1 - (0.5 + (t - 0.5) * 0.8))).domain([-m, 0, m]);
    return (v) => (typeof v === 'number' && Number.isFinite(v) ? s(v) : null);
  }
  return () => null;
}

export function heatmap(o: HeatmapOptions): HTMLElement {
  const rows = o.values.length;
  const cols = rows ? Math.max(...o.values.map((r) => r.length)) : 0;
  const fig = h('figure', { class: 'heatmap', dataset: { field: o.field } },
    h('figcaption', null, h('span', { class: 'fig-title', text: o.title }),
      o.caption ? h('span', { class: 'fig-caption', text: o.caption }) : null));
  if (rows * cols > (o.maxCells ?? 20000)) {
    fig.append(h('p', { class: 'note', text: `${rows} × ${cols}: too large to draw` }));
    return fig;
  }
  const compact = rows * cols > TEXT_CELLS;
  const color = colorFor(o.color, o.values, compact);
  const table = h('table', { class: `grid color-${o.color}${compact ? ' compact' : ''}` });
  if (compact) fig.querySelector('.fig-title')!.append(h('span', { class: 'dims-note', text: ` (${rows} × ${cols}; hover a cell for its value)` }));
  const head = h('tr', null, h('th', { class: 'corner', attrs: { scope: 'col' }, text: o.rowHeader ?? '' }));
  for (let j = 0; j < cols; j++) {
    head.append(h('th', { attrs: { scope: 'col' }, text: compact && j % 5 ? '' : o.colLabels[j] ?? String(j) }));
  }
  table.append(h('thead', null, head));
  const body = h('tbody');
  for (let i = 0; i < rows; i++) {
    const tr = h('tr', { class: o.rowClass?.(i) });
    tr.append(h('th', { attrs: { scope: 'row' }, text: compact && i % 5 ? '' : o.rowLabels[i] ?? String(i) }));
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
      if (compact) td.title = `[${i}, ${j}] = ${exact(v)}`;
      else {
        td.append(h('span', { class: 'v', text: o.cellText ? o.cellText(i, j, v) : fmt(v) }));
        const note = o.cellNote?.(i, j);
        if (note) td.append(h('small', { text: note }));
      }
      tr.append(td);
    }
    body.append(tr);
  }
  table.append(body);
  fig.append(h('div', { class: 'scroll' }, table));
  return fig;
}
