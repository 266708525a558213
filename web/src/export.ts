// Export (SPEC §1): `el.export(kind, field)` gives a Blob: the trace as JSON, the map of a trace
// field at the shown (b, h) slice as CSV, SVG or PNG, or "copy as PyTorch" (pytorch.ts, a chunk of
// its own loaded by this one). A chunk of its own (lazy.ts), loaded when an
// export is first asked for (or in the background after the first trace): the first load stays small.
//
// The map is the one the results draw (views/results.ts `mapSpec`: the same 2-D slice, labels and
// colour scale); a field the results do not draw is sliced by `genericSpec` below. No innerHTML:
// the SVG is built with createElementNS and serialised, so its text is escaped by the serialiser.
import type { Trace } from './engine/compute';
import { fmt, shapeOf } from './format';
import { t, type Lang } from './i18n';
import { cellScale, type ColorKind, type HeatmapOptions } from './views/heatmap';
import { textColorOf } from './views/colors';
import { anyMasked, rangeText, spanOf } from './views/legend';
import { contextSpec, mapSpec } from './views/results';
import { written } from './engine/draws';

export const KINDS = ['json', 'csv', 'svg', 'png', 'pytorch'] as const;
export type ExportKind = (typeof KINDS)[number];

/** The trace's main output (SPEC §3), the default map where the trace has no `weights`. */
const MAIN = ['context', 'output', 'y_hat', 'P'];

/** An Error naming the argument at fault (`field`: 'kind' or 'field'), as the core's errors do. */
function fail(message: string, field: 'kind' | 'field'): never {
  throw Object.assign(new Error(`export: ${message}`), { field });
}

/** Whether `v` is a non-empty nested array of numbers or booleans (a map). */
function isMap(v: unknown): boolean {
  if (!Array.isArray(v) || v.length === 0) return false;
  const leaves = (x: unknown): boolean => (Array.isArray(x) ? x.length > 0 && x.every(leaves) : typeof x === 'number' || typeof x === 'boolean');
  return leaves(v);
}

/** The trace's fields that can be exported as a map, in the trace's order. */
export const mapFields = (trace: Trace): string[] => Object.keys(trace).filter((k) => isMap(trace[k]));

/** `weights` where the trace has it, else its main output (`context`, `output`, `y_hat`, `P`). */
export function defaultField(trace: Trace): string {
  return isMap(trace.weights) ? 'weights' : MAIN.find((f) => isMap(trace[f])) ?? mapFields(trace)[0] ?? 'weights';
}

// ---- the 2-D map of a field ----

/** (B, L, H, D) fields (the context's layout), sliced at b and h as the results slice `context`. */
const BLHD = new Set(['context', 'exact_context', 'initial_context', 'head_context', 'features_q', 'features_k',
  'projected_k', 'projected_v', 'pooled_k', 'pooled_v', 'q', 'k', 'v']);
/** 3-D fields laid out (B, H, L): one row at (b, h). */
const BH3 = new Set(['sparsity', 'sparsity_exact', 'top_index', 'updated_rows']);

/** The axes of a field of `n` dimensions fixed at b (and h): the rest is the map, its last axis the
 * columns and the others flattened into rows (labelled by their indices, "i,j"). */
function slicedAxes(field: string, n: number): number[] {
  if (n <= 2) return [];
  if (field.startsWith('round_') || field === 'buckets') return n >= 5 ? [1, 3] : [1, 2]; // (rounds, B, H, ...), (rounds, B, L, H, D)
  if (field.endsWith('_state')) return [1]; // bahdanau's (layers, B, h)
  if (n === 3 && !BH3.has(field)) return [0]; // (B, T, h)
  return [0, 1]; // (B, H, ...)
}

/** A field the results do not draw, sliced at (b, h) by its layout. */
function genericSpec(trace: Trace, field: string, b: number, hh: number, lang: Lang): HeatmapOptions {
  const v = trace[field];
  const shape = shapeOf(v);
  if (BLHD.has(field) && shape.length === 4) return contextSpec(trace, field, field, '', Math.min(b, shape[0] - 1), Math.min(hh, shape[2] - 1), lang);
  const fixed = slicedAxes(field, shape.length);
  const at = [b, hh];
  const values: unknown[][] = [], rowLabels: string[] = [], paths: number[][] = [];
  let bools = true;
  const walk = (x: unknown, axis: number, path: number[], free: number[]): void => {
    if (axis >= shape.length - 1 || !Array.isArray(x) || !Array.isArray(x[0])) {
      const row = Array.isArray(x) ? x : [x];
      if (!row.every((y) => typeof y === 'boolean')) bools = false;
      values.push(row); rowLabels.push(free.join(',')); paths.push(path);
      return;
    }
    const k = fixed.indexOf(axis);
    if (k >= 0) { const i = Math.min(at[k], (x as unknown[]).length - 1); walk((x as unknown[])[i], axis + 1, [...path, i], free); }
    else (x as unknown[]).forEach((y, i) => walk(y, axis + 1, [...path, i], [...free, i]));
  };
  walk(v as unknown[], 0, [], []);
  const color: ColorKind = bools ? 'bool' : /weights|attn/.test(field) ? 'weights' : 'diverging';
  const cols = values.reduce((m, r) => Math.max(m, r.length), 0);
  return { title: field, field, values, color, lang, axes: [t(lang, 'row'), t(lang, 'col')], rowLabels, colLabels: Array.from({ length: cols }, (_, j) => String(j)),
    indexOf: (i, j) => [...paths[i], j].join(',') };
}

/** The map of trace field `field` at (b, h): the results' own (mapSpec) or the generic slice. */
export function mapOf(trace: Trace, field: string, b: number, hh: number, lang: Lang): HeatmapOptions {
  const fields = mapFields(trace);
  const list = `(fields: ${fields.join(', ')})`;
  if (!(field in trace)) fail(`field "${field}" is not in the trace ${list}`, 'field');
  if (!fields.includes(field)) fail(`field "${field}" is not a map of numbers ${list}`, 'field');
  const spec = mapSpec(trace, field, b, hh, lang) ?? genericSpec(trace, field, b, hh, lang);
  if (!spec.values.length || !spec.values[0]?.length) fail(`field "${field}" has no cells at b = ${b}, h = ${hh}`, 'field');
  return spec;
}

// ---- CSV ----

/** A number with full precision (String round-trips a float64); a boolean as 1 or 0. */
const csvValue = (v: unknown): string => (typeof v === 'boolean' ? (v ? '1' : '0') : typeof v === 'number' ? String(v) : '');
const csvQuote = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

const csvText = (lines: string[][]) => lines.map((l) => l.map(csvQuote).join(',')).join('\n') + '\n';
const csvCols = (o: HeatmapOptions) => o.values.reduce((m, r) => Math.max(m, r.length), 0);
const csvHead = (o: HeatmapOptions) => Array.from({ length: csvCols(o) }, (_, j) => o.colLabels[j] ?? String(j));
const csvRows = (o: HeatmapOptions, lead: string[]) =>
  o.values.map((row, i) => [...lead, o.rowLabels[i] ?? String(i), ...Array.from({ length: csvCols(o) }, (_, j) => csvValue(row[j]))]);

/** One slice as CSV; its corner cell says which slice it is ("b = 1, h = 3"; '' for an unsliced field). */
export function toCsv(o: HeatmapOptions, where = ''): string {
  return csvText([[where, ...csvHead(o)], ...csvRows(o, [])]);
}

/** Which of b and h a field's map is sliced at (the SVG's title says the same). */
function slicedBy(trace: Trace, name: string): { b: boolean; h: boolean } {
  const n = shapeOf(trace[name]).length;
  return { b: n >= 3, h: n >= 4 || BH3.has(name) };
}

/** Every (b, h) slice of `name` in one CSV: columns b, h (blank where the field has no such axis), the
 * row label, then the map's columns; B and H are the trace's batch and head counts. */
export function csvAll(trace: Trace, name: string, B: number, H: number, lang: Lang): string {
  const by = slicedBy(trace, name), lines: string[][] = [];
  for (let b = 0; b < (by.b ? B : 1); b++) {
    for (let hh = 0; hh < (by.h ? H : 1); hh++) {
      const map = mapOf(trace, name, b, hh, lang);
      if (!lines.length) lines.push(['b', 'h', '', ...csvHead(map)]);
      lines.push(...csvRows(map, [by.b ? String(b) : '', by.h ? String(hh) : '']));
    }
  }
  return csvText(lines);
}

// ---- SVG and PNG: one layout, drawn twice ----

interface Rect { x: number; y: number; w: number; h: number; fill: string; masked: boolean; index: string }
interface Label { x: number; y: number; text: string; size: number; anchor: 'start' | 'middle' | 'end'; fill: string; bold?: boolean; up?: boolean }
/** `legend`: the colour bar's steps and the masked swatch, drawn as the page's legend is. */
interface Scene { width: number; height: number; rects: Rect[]; legend: Rect[]; labels: Label[]; title: string }

/** Values shown in the cells up to this many rows and columns; colours only beyond. */
const TEXT_SIDE = 16;
/** Past this many cells along a side, cells are averaged in blocks (as the page's canvas maps are). */
const MAX_SIDE = 256;
const EMPTY = '#f6f7f9';
const INK = '#1b1f24';
const MUTED = '#57606a';
const charWidth = (size: number) => size * 0.6;
/** About how wide a text is drawn (CJK and other wide characters a full em). */
const textWidth = (text: string, size: number) => [...text].reduce((w, c) => w + (c.codePointAt(0)! >= 0x2e80 ? size : charWidth(size)), 0);

/** The value a block of cells is drawn with: the mean of its numbers (booleans: the majority). */
function blockValue(o: HeatmapOptions, i0: number, j0: number, block: number): { v: unknown; masked: boolean } {
  if (block === 1) return { v: o.values[i0][j0], masked: o.masked?.(i0, j0) ?? false };
  let sum = 0, n = 0, masked = 0, cells = 0, bools = 0;
  for (let i = i0; i < Math.min(o.values.length, i0 + block); i++) {
    for (let j = j0; j < Math.min(o.values[i].length, j0 + block); j++) {
      const v = o.values[i][j];
      cells++;
      if (o.masked?.(i, j)) masked++;
      if (typeof v === 'boolean') { sum += v ? 1 : 0; n++; bools++; }
      else if (typeof v === 'number' && Number.isFinite(v)) { sum += v; n++; }
    }
  }
  if (n === 0) return { v: null, masked: masked === cells };
  return { v: bools === n ? sum / n >= 0.5 : sum / n, masked: masked === cells };
}

function layout(o: HeatmapOptions, field: string, shape: number[], where: string, lang: Lang): Scene {
  const rows = o.values.length;
  const cols = o.values.reduce((m, r) => Math.max(m, r.length), 0);
  const block = Math.max(1, Math.ceil(Math.max(rows, cols) / MAX_SIDE));
  const gr = Math.ceil(rows / block), gc = Math.ceil(cols / block);
  const withText = rows <= TEXT_SIDE && cols <= TEXT_SIDE;
  const { color, domain, kind } = cellScale(o);
  const texts = withText ? o.values.map((r, i) => r.map((v, j) => (o.cellText ? o.cellText(i, j, v) : fmt(v)))) : [];
  const widest = texts.flat().reduce((m, s) => Math.max(m, s.length), 0);
  const cw = withText ? Math.max(36, Math.ceil(widest * charWidth(11)) + 12) : Math.max(2, Math.min(24, Math.floor(640 / Math.max(gr, gc))));
  const ch = withText ? 26 : cw;
  const size = withText ? 12 : Math.max(8, Math.min(11, cw));
  const rowStep = Math.max(1, Math.ceil((size + 2) / ch));
  const colLabel = (j: number) => o.colLabels[j * block] ?? String(j * block);
  const rowLabel = (i: number) => o.rowLabels[i * block] ?? String(i * block);
  const colText = Math.max(1, ...Array.from({ length: gc }, (_, j) => colLabel(j).length));
  const colStep = Math.max(1, Math.ceil((colText * charWidth(size) + 6) / cw));
  const rowText = Math.max(1, ...Array.from({ length: gr }, (_, i) => rowLabel(i).length));
  const title = `${field} (${shape.join(' × ')})`;
  const sub = [o.title !== field ? o.title : '', where, block > 1 ? `each cell the mean of ${block} × ${block}` : ''].filter(Boolean).join(' · ');
  // the axis names: the rows' written upwards at the left, the columns' above their labels
  const left = 12 + 16 + Math.ceil(rowText * charWidth(size)) + 8;
  const top = 12 + 20 + (sub ? 18 : 0) + 16 + size + 8;
  const span = spanOf(o.values);
  const range = span ? rangeText(lang, span) : '';
  const width = Math.max(left + gc * cw + 12, 24 + Math.ceil(Math.max(textWidth(title, 15), textWidth(sub, 12))), left + 180 + textWidth(range, 11) + 90);
  const bottom = top + gr * ch;
  const height = bottom + 12 + 40;
  const labels: Label[] = [{ x: 12, y: 12 + 15, text: title, size: 15, anchor: 'start', fill: INK, bold: true }];
  if (sub) labels.push({ x: 12, y: 12 + 20 + 13, text: sub, size: 12, anchor: 'start', fill: MUTED });
  labels.push({ x: left + (gc * cw) / 2, y: top - size - 10, text: `${o.axes[1]} →`, size: 11, anchor: 'middle', fill: MUTED },
    { x: 12 + 11, y: top + (gr * ch) / 2, text: `${o.axes[0]} →`, size: 11, anchor: 'middle', fill: MUTED, up: true });
  // the legend below the map: the colour bar over the scale's domain (0 at a diverging one's centre), the range, the hatch
  const legend: Rect[] = [];
  const ly = bottom + 14;
  if (domain) {
    const [lo, hi] = domain, steps = 40, w = 160 / steps;
    for (let k = 0; k < steps; k++) {
      legend.push({ x: left + k * w, y: ly, w: w + 0.5, h: 10, fill: color(lo + ((hi - lo) * (k + 0.5)) / steps) ?? EMPTY, masked: false, index: '' });
    }
    const tick = (x: number, v: number, anchor: Label['anchor']) => labels.push({ x, y: ly + 23, text: fmt(v), size: 10, anchor, fill: MUTED });
    tick(left, lo, 'start');
    if (kind === 'diverging') tick(left + 80, 0, 'middle');
    tick(left + 160, hi, 'end');
  }
  if (range) labels.push({ x: left + (domain ? 172 : 0), y: ly + 9, text: range, size: 11, anchor: 'start', fill: MUTED });
  if (anyMasked(o, rows, cols)) {
    const x = left + (domain ? 172 : 0) + textWidth(range, 11) + 16;
    legend.push({ x, y: ly, w: 14, h: 10, fill: EMPTY, masked: true, index: '' });
    labels.push({ x: x + 18, y: ly + 9, text: t(lang, 'masked'), size: 11, anchor: 'start', fill: MUTED });
  }
  for (let j = 0; j < gc; j += colStep) labels.push({ x: left + j * cw + cw / 2, y: top - 6, text: colLabel(j), size, anchor: 'middle', fill: MUTED });
  for (let i = 0; i < gr; i += rowStep) labels.push({ x: left - 6, y: top + i * ch + ch / 2 + size * 0.35, text: rowLabel(i), size, anchor: 'end', fill: MUTED });
  const rects: Rect[] = [];
  for (let i = 0; i < gr; i++) {
    for (let j = 0; j < gc; j++) {
      if (block === 1 && j >= o.values[i].length) continue;
      const { v, masked } = blockValue(o, i * block, j * block, block);
      const fill = color(v) ?? EMPTY;
      const x = left + j * cw, y = top + i * ch;
      rects.push({ x, y, w: cw, h: ch, fill, masked, index: o.indexOf?.(i * block, j * block) ?? `${i},${j}` });
      if (withText) labels.push({ x: x + cw / 2, y: y + ch / 2 + 4, text: texts[i][j], size: 11, anchor: 'middle', fill: textColorOf(fill) });
    }
  }
  return { width, height, rects, legend, labels, title };
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif';

export function toSvg(scene: Scene): string {
  const doc = document.implementation.createDocument(SVG_NS, 'svg', null);
  const svg = doc.documentElement;
  const el = (tag: string, attrs: Record<string, string | number>, parent: Element = svg): Element => {
    const e = doc.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    parent.appendChild(e);
    return e;
  };
  svg.setAttribute('width', String(scene.width));
  svg.setAttribute('height', String(scene.height));
  svg.setAttribute('viewBox', `0 0 ${scene.width} ${scene.height}`);
  svg.setAttribute('font-family', FONT);
  el('title', {}).textContent = scene.title;
  if (scene.rects.some((r) => r.masked) || scene.legend.some((r) => r.masked)) {
    const pattern = el('pattern', { id: 'masked', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, el('defs', {}));
    el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#8c959f', 'stroke-width': 1.5 }, pattern);
  }
  el('rect', { width: scene.width, height: scene.height, fill: '#ffffff' });
  const cells = el('g', { class: 'cells' });
  for (const r of scene.rects) {
    el('rect', { x: r.x, y: r.y, width: r.w, height: r.h, fill: r.fill, 'data-index': r.index }, cells);
    if (r.masked) el('rect', { x: r.x, y: r.y, width: r.w, height: r.h, fill: 'url(#masked)', class: 'masked' }, svg);
  }
  const legend = el('g', { class: 'legend' });
  for (const r of scene.legend) {
    el('rect', { x: r.x, y: r.y, width: r.w, height: r.h, fill: r.fill }, legend);
    if (r.masked) el('rect', { x: r.x, y: r.y, width: r.w, height: r.h, fill: 'url(#masked)', stroke: MUTED, 'stroke-width': 0.5 }, legend);
  }
  const text = el('g', { class: 'labels' });
  for (const l of scene.labels) {
    const attrs: Record<string, string | number> = { x: l.x, y: l.y, 'font-size': l.size, 'text-anchor': l.anchor, fill: l.fill };
    if (l.bold) attrs['font-weight'] = 700;
    if (l.up) attrs.transform = `rotate(-90 ${l.x} ${l.y})`;
    el('text', attrs, text).textContent = l.text;
  }
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(doc) + '\n';
}

/** The scene on a canvas (drawn directly: no image is loaded, so the CSP's img-src is not asked). */
export function toPng(scene: Scene): Promise<Blob> {
  const scale = scene.width * scene.height <= 2_000_000 ? 2 : 1;
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(scene.width * scale);
  canvas.height = Math.ceil(scene.height * scale);
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('export: no 2-D canvas in this browser'));
  ctx.scale(scale, scale);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, scene.width, scene.height);
  for (const r of [...scene.rects, ...scene.legend]) {
    ctx.fillStyle = r.fill;
    ctx.fillRect(r.x, r.y, r.w, r.h);
    if (r.masked) {
      ctx.save();
      ctx.beginPath();
      ctx.rect(r.x, r.y, r.w, r.h);
      ctx.clip();
      ctx.strokeStyle = '#8c959f';
      ctx.lineWidth = 1.2;
      for (let d = -r.h; d < r.w; d += 6) { ctx.moveTo(r.x + d, r.y + r.h); ctx.lineTo(r.x + d + r.h, r.y); }
      ctx.stroke();
      ctx.restore();
    }
  }
  for (const l of scene.labels) {
    ctx.font = `${l.bold ? '700 ' : ''}${l.size}px ${FONT}`;
    ctx.fillStyle = l.fill;
    ctx.textAlign = l.anchor === 'middle' ? 'center' : l.anchor === 'end' ? 'right' : 'left';
    ctx.save();
    ctx.translate(l.x, l.y);
    if (l.up) ctx.rotate(-Math.PI / 2);
    ctx.fillText(l.text, 0, 0);
    ctx.restore();
  }
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('export: the canvas gave no PNG'))), 'image/png'));
}

// ---- the element's export() ----

/** `el.export(kind, field)`: the trace as JSON, or the map of `field` (default: `defaultField`)
 * at (b, h) as CSV, SVG or PNG. Rejects with an Error whose `field` is 'kind' or 'field'. */
export async function exportTrace(trace: Trace | null, kind: unknown, field: unknown, b: number, hh: number, lang: Lang,
  scenario: Record<string, unknown> | null = null, all: { B: number; H: number } | null = null): Promise<Blob> {
  if (!(KINDS as readonly unknown[]).includes(kind)) fail(`kind "${String(kind)}" is not one of ${KINDS.map((k) => `"${k}"`).join(', ')}`, 'kind');
  if (!trace) fail('there is no trace yet (the scenario has not run)', 'kind');
  if (kind === 'pytorch') {
    // the snippet rebuilds the trace's scenario: not while the scenario shown has an error (the
    // trace is then an earlier scenario's)
    if (!scenario) fail('the scenario has an error (the trace shown is an earlier one\'s): fix it first', 'kind');
    const { pytorchSnippet } = await import('./pytorch');
    return new Blob([await pytorchSnippet(await written(scenario), trace)], { type: 'text/x-python' });
  }
  if (kind === 'json') return new Blob([JSON.stringify(trace) + '\n'], { type: 'application/json' });
  if (field !== undefined && typeof field !== 'string') fail(`field must be a string, got ${typeof field}`, 'field');
  const name = (field as string | undefined) ?? defaultField(trace);
  const map = mapOf(trace, name, b, hh, lang);
  const shape = shapeOf(trace[name]), by = slicedBy(trace, name);
  const where = by.h ? `b = ${b}, h = ${hh}` : by.b ? `b = ${b}` : '';
  if (kind === 'csv') return new Blob([all ? csvAll(trace, name, all.B, all.H, lang) : toCsv(map, where)], { type: 'text/csv' });
  const scene = layout(map, name, shape, where, lang);
  if (kind === 'svg') return new Blob([toSvg(scene)], { type: 'image/svg+xml' });
  return toPng(scene);
}

/** The file a download of `kind` is saved as: attention-<algorithm>-<field>[-<slice>].<ext>, the
 * slice ("b1-h3", "all") named where the trace has more than one. */
export function fileName(trace: Trace, kind: string, field?: string, slice = ''): string {
  const safe = (s: string) => s.replace(/[^\w.-]+/g, '_');
  return `attention-${safe(String(trace.algorithm))}-${safe(kind === 'json' ? 'trace' : field ?? defaultField(trace))}${slice && kind !== 'json' ? '-' + slice : ''}.${kind}`;
}

/** `blob` downloaded as `name` through an <a download> (its URL revoked after). */
function saveBlob(blob: Blob, name: string, parent: Node): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  parent.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The page's Export buttons: the blob downloaded ('csv-all': the CSV of every (b, h) slice). The
 * name says the slice where the trace has more than one (B, H: the trace's counts). */
export async function download(trace: Trace, kind: string, b: number, hh: number, B: number, H: number, lang: Lang, parent: Node): Promise<void> {
  const all = kind === 'csv-all', k = all ? 'csv' : kind, field = defaultField(trace), by = slicedBy(trace, field);
  const many = (by.b && B > 1) || (by.h && H > 1);
  const slice = !many ? '' : all ? 'all' : [by.b ? `b${b}` : '', by.h ? `h${hh}` : ''].filter(Boolean).join('-');
  saveBlob(await exportTrace(trace, k, undefined, b, hh, lang, null, all ? { B, H } : null), fileName(trace, k, field, slice), parent);
}

/** The status line's words (here, not in i18n.ts: the first load stays small). */
const COPY_TEXT = {
  copied: { en: 'copied to the clipboard', zh: '已复制到剪贴板' },
  saved: { en: 'the clipboard is not available: saved as', zh: '剪贴板不可用：已保存为' },
} as const;

/** `text` onto the clipboard or, where the clipboard is not available or refused, downloaded as
 * `name`; the outcome in `status` (a role=status element). */
export async function copyOrSave(text: string, name: string, type: string, lang: Lang, parent: Node, status: HTMLElement): Promise<void> {
  try {
    if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
    status.textContent = COPY_TEXT.copied[lang];
  } catch {
    saveBlob(new Blob([text], { type }), name, parent);
    status.textContent = `${COPY_TEXT.saved[lang]} ${name}`;
  }
}

/** The page's "Copy as PyTorch" button: the snippet (copyOrSave: attention-<algorithm>.py). */
export async function copyPytorch(trace: Trace, scenario: Record<string, unknown> | null, lang: Lang, parent: Node, status: HTMLElement): Promise<void> {
  status.textContent = '';
  let text: string;
  try {
    text = await (await exportTrace(trace, 'pytorch', undefined, 0, 0, lang, scenario)).text();
  } catch (e) {
    status.textContent = e instanceof Error ? e.message : String(e);
    return;
  }
  await copyOrSave(text, `attention-${String(trace.algorithm).replace(/[^\w.-]+/g, '_')}.py`, 'text/x-python', lang, parent, status);
}
