// A map's legend (item 4): the colour bar over its scale's domain, labelled at its ends (and at 0,
// the centre of a diverging scale), the map's smallest and largest values as text, and the hatch
// of its masked cells. Loaded after the first maps are drawn (views/heatmap.ts fillLegend).
import { h } from '../dom';
import { colorFor, domainOf, textColorOf } from './colors';
import { exact, fmt, range } from '../format';
import { viewText, type Lang } from '../i18n';
import type { HeatmapOptions } from './heatmap';

const t = viewText({
  colourScale: { en: 'colour scale', zh: '色标' },
  min: { en: 'min', zh: '最小' },
  max: { en: 'max', zh: '最大' },
});

/** The smallest and the largest finite number of `values` (null: none). */
export function spanOf(values: unknown[][]): [number, number] | null {
  // a long run's typed rows know their range (worker/packed.ts)
  const r = (values as { range?: [number, number] | null }).range;
  if (r !== undefined) return r;
  let lo = Infinity, hi = -Infinity;
  for (const row of values) {
    for (const x of row) if (typeof x === 'number' && Number.isFinite(x)) { if (x < lo) lo = x; if (x > hi) hi = x; }
  }
  return lo <= hi ? [lo, hi] : null;
}

export function anyMasked(o: HeatmapOptions, rows: number, cols: number): boolean {
  if (o.masked) for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) if (o.masked(i, j)) return true;
  return false;
}

/** A swatch of the legend (its layout here, not in styles.css: this module is not in the first load). */
function swatch(cls: string, text: string): HTMLElement {
  const sw = h('span', { class: `lg-swatch ${cls}`, text });
  sw.style.cssText = 'display:inline-block;min-width:16px;height:14px;margin-right:4px;text-align:center;line-height:14px';
  return sw;
}

/** The categories (distinct integers) of a map, in order. */
function categoriesOf(values: unknown[][]): number[] {
  const seen = new Set<number>();
  for (const row of values) for (const v of row) if (typeof v === 'number') seen.add(v);
  return [...seen].sort((a, b) => a - b);
}

/** The map's range as the legend writes it (export.ts too): "min −1.2 · max 3". */
export const rangeText = (lang: Lang, [lo, hi]: [number, number]): string => `${t(lang, 'min')} ${fmt(lo)} · ${t(lang, 'max')} ${fmt(hi)}`;

/** What each legend shows, by its element: its structure's key, and the elements of its numbers
 * (an edit rewrites the numbers that changed, not the legend: issue 14's edit latency). */
interface Shown { key: string; ticks: HTMLElement[]; scale: HTMLElement | null; range: HTMLElement | null }
const SHOWN = new WeakMap<Element, Shown>();

// a lone text node's data rewritten rather than the node replaced: its layout object stays
const setText = (el: HTMLElement | null, text: string) => {
  if (!el || el.textContent === text) return;
  const only = el.firstChild;
  if (only instanceof Text && only === el.lastChild) only.data = text;
  else el.textContent = text;
};

/** Fills `box` (a map's div.map-legend) for the map `o` as drawn (`compact`: on a canvas). Its
 * scale is colors.ts's, as the map's: the legend imports nothing of the maps' (no import cycle). */
export function fillLegend(box: HTMLElement, o: HeatmapOptions, compact: boolean, rows: number, cols: number): void {
  const domain = domainOf(o.color, o.values, compact, o.extent);
  const span = spanOf(o.values);
  const masked = anyMasked(o, rows, cols);
  // the ramp's colours are the scale's at 9 even steps of its domain: the same for any domain
  const categories = o.color === 'category' ? categoriesOf(o.values) : [];
  const key = `${o.lang}|${o.color}|${!!domain}|${!!span}|${masked}|${categories}|${o.category}`;
  let shown = SHOWN.get(box);
  if (shown?.key !== key) {
    shown = build(box, o, compact, domain, span, masked, key, categories);
    SHOWN.set(box, shown);
  }
  if (domain) {
    const ticks = [domain[0], ...(o.color === 'diverging' ? [0] : []), domain[1]].map((x) => fmt(x));
    shown.ticks.forEach((el, k) => setText(el, ticks[k]));
    const label = `${t(o.lang, 'colourScale')} ${ticks.join(' … ')}`;
    if (shown.scale && shown.scale.getAttribute('aria-label') !== label) shown.scale.setAttribute('aria-label', label);
  }
  if (span) {
    setText(shown.range, rangeText(o.lang, span));
    const [lo, hi] = [exact(span[0]), exact(span[1])];
    if (box.dataset.min !== lo) box.dataset.min = lo;
    if (box.dataset.max !== hi) box.dataset.max = hi;
  } else if (box.dataset.min !== undefined) { delete box.dataset.min; delete box.dataset.max; }
}

/** Builds the legend's elements (its numbers are filled by fillLegend). */
function build(box: HTMLElement, o: HeatmapOptions, compact: boolean, domain: [number, number] | null,
  span: [number, number] | null, masked: boolean, key: string, categories: readonly unknown[]): Shown {
  const color = colorFor(o.color, o.values, compact, o.extent);
  const parts: HTMLElement[] = [];
  const shown: Shown = { key, ticks: [], scale: null, range: null };
  if (domain) {
    const [lo, hi] = domain;
    const ramp = h('span', { class: 'lg-ramp' });
    ramp.style.cssText = `height:9px;border:1px solid var(--line);background:linear-gradient(to right,${
      range(9).map((k) => color(lo + ((hi - lo) * k) / 8) ?? 'transparent')})`;
    shown.ticks = range(o.color === 'diverging' ? 3 : 2).map(() => h('span'));
    const tickRow = h('span', null, ...shown.ticks);
    tickRow.style.cssText = 'display:flex;justify-content:space-between';
    shown.scale = h('span', { class: 'lg-scale', attrs: { role: 'img' } }, ramp, tickRow);
    shown.scale.style.cssText = 'display:grid;width:min(120px,100%)';
    parts.push(shown.scale);
  } else if (o.color === 'category') {  // one swatch per category the map holds
    for (const v of categories) {
      const bg = color(v)!, sw = swatch('', '');
      sw.style.background = bg;
      sw.style.color = textColorOf(bg);
      parts.push(h('span', { dataset: { category: String(v) } }, sw, `${o.category ?? ''} ${v}`.trim()));
    }
  } else if (o.color === 'bool') {
    for (const v of [true, false]) {
      const bg = color(v)!, sw = swatch('', fmt(v));
      sw.style.background = bg;
      sw.style.color = textColorOf(bg);
      parts.push(h('span', null, sw, String(v)));
    }
  }
  if (span) parts.push(shown.range = h('span', { class: 'lg-range' }));
  if (masked) parts.push(h('span', null, swatch('masked', ''), t(o.lang, 'masked')));
  for (const p of parts) p.style.cssText ||= 'display:inline-flex;align-items:center';
  box.replaceChildren(...parts);
  box.style.cssText = 'display:flex;flex-wrap:wrap;align-items:center;gap:2px 12px';
  box.dataset.kind = o.color;
  return shown;
}
