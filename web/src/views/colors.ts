// The maps' colour scales (views/heatmap.ts draws them; views/legend.ts and export.ts explain and
// export them): one module, so that the lazily loaded legend imports no view (no import cycle).
import { interpolateBlues, interpolateRdBu, interpolateGreens, schemeTableau10 } from 'd3-scale-chromatic';
import { rgb } from 'd3-color';

/** 'category': small non-negative integers named, not measured (LSH's buckets), one colour each. */
export type ColorKind = 'weights' | 'diverging' | 'bool' | 'count' | 'category' | 'none';

/** A category's colour (Tableau 10, cycling). */
export const categoryColor = (v: number): string => schemeTableau10[v % schemeTableau10.length];

/** Black or white text, whichever contrasts more with the cell (WCAG relative luminance): the
 * better of the two is at least 4.58:1 on any background (WCAG AA asks 4.5), which no softer dark
 * grey guarantees. */
const textColor = (bg: string) => {
  const c = rgb(bg);
  const lin = (v: number) => { const x = v / 255; return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  return (L + 0.05) / 0.05 >= 1.05 / (L + 0.05) ? '#000000' : '#ffffff';
};

/** The largest of `init` and f(x) over the finite numbers x of `values` (no spread: maps can
 * hold more numbers than a call takes arguments). */
export function largest(values: unknown[][], init: number, f: (x: number) => number = (x) => x): number {
  // a long run's typed rows carry their range (worker/packed.ts); every f here (x, |x|, -x) is convex
  const r = (values as { range?: [number, number] | null }).range;
  if (r !== undefined) return r ? Math.max(init, f(r[0]), f(r[1])) : init;
  let m = init;
  for (let i = 0; i < values.length; i++) {  // index loops: no iterator garbage at each edit (issue 14)
    const row = values[i];
    for (let j = 0; j < row.length; j++) { const x = row[j]; if (typeof x === 'number' && Number.isFinite(x)) { const y = f(x); if (y > m) m = y; } }
  }
  return m;
}

/** An interpolator read from 1,024 of its colours, made on first use: d3's ramps compute a basis
 * spline and format a string per call, which every cell of every map paid on every edit. The
 * nearest of 1,024 steps is within 1/2046 of t, below what a screen's 8 bits per channel show. */
function sampled(interpolate: (t: number) => string): (t: number) => string {
  let table: string[] | null = null;
  return (t) => {
    table ??= Array.from({ length: 1024 }, (_, i) => interpolate(i / 1023));
    return table[Math.round((t < 0 ? 0 : t > 1 ? 1 : t) * 1023)] ?? table[0];
  };
}
const blues = sampled(interpolateBlues), greens = sampled(interpolateGreens), rdBu = sampled(interpolateRdBu);

// The maps' colours are d3-scale-chromatic's interpolators at t, the value mapped linearly as
// d3-scale's scaleSequential([0, top]) and scaleDiverging([-m, 0, m]) map it (the same arithmetic;
// t clamped to [0, 1], as the interpolators clamp it). d3-scale itself stays with the charts: on the first load it
// brought d3-format's locale, which no tree-shaking drops (issue 8's 150 KB).
export function colorFor(kind: ColorKind, values: unknown[][], compact: boolean, extent?: number): ((v: unknown) => string | null) {
  if (kind === 'weights') {
    // Weights are in [0, 1]; a large map's weights are small, so it is scaled to its largest one.
    const k = 1 / (compact ? largest(values, 1e-12) : 1);
    return (v) => (typeof v === 'number' && Number.isFinite(v) ? blues(v * 0.85 * k) : null);
  }
  if (kind === 'count') {
    const max = largest(values, 1), k = 1 / max;
    return (v) => (typeof v === 'number' && v > 0 ? greens((0.25 * max + 0.6 * v) * k) : null);
  }
  if (kind === 'bool') return (v) => (v === true ? '#d7ecd9' : v === false ? '#eceef1' : null);
  if (kind === 'category') return (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? categoryColor(v) : null);
  if (kind === 'diverging') {
    const m = extent ?? largest(values, 1e-12, Math.abs), k = 0.5 / m;
    const color = (t: number) => rdBu(1 - (0.5 + (t - 0.5) * 0.8));
    return (v) => (typeof v === 'number' && Number.isFinite(v) ? color(0.5 + v * k) : null);
  }
  return () => null;
}

/** What a scale's colours span (the legend's ramp): diverging [-m, m] centred at 0; weights [0, 1]
 * (a canvas: [0, its largest]); counts [0, the largest]; null for booleans and categories. */
export function domainOf(kind: ColorKind, values: unknown[][], compact: boolean, extent?: number): [number, number] | null {
  if (kind === 'diverging') { const m = extent ?? largest(values, 1e-12, Math.abs); return [-m, m]; }
  if (kind === 'weights') return [0, compact ? largest(values, 1e-12) : 1];
  return kind === 'count' ? [0, largest(values, 1)] : null;
}

/** The text colour for a background, remembered (a map's colours repeat from edit to edit). */
const TEXT_COLORS = new Map<string, string>();
export function textColorOf(bg: string): string {
  let c = TEXT_COLORS.get(bg);
  if (c === undefined) {
    c = textColor(bg);
    if (TEXT_COLORS.size > 4096) TEXT_COLORS.clear();
    TEXT_COLORS.set(bg, c);
  }
  return c;
}
