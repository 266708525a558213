// Small SVG line charts shared by the chapter's views (loss per epoch, positional encoding's
// columns, the complexity curves): d3-scale scales, axes drawn element by element. DOM only.
import { scaleLinear, scaleLog } from 'd3-scale';
import { exact, fmt } from '../format';
import { label, svg, textWidth } from './svg';

export interface Series {
  name: string;
  xs: readonly number[];
  ys: readonly number[];
  /** CSS class of the line (its colour); dots for each point when `dots`. */
  cls: string;
  dots?: boolean;
  /** data-field of the series' <g>; each dot carries data-x, data-value. */
  field?: string;
  dashed?: boolean;
}

export interface ChartOptions {
  series: Series[];
  /** Extra points drawn as larger markers (measured values). */
  markers?: { name: string; x: number; y: number; cls: string; field: string }[];
  width?: number;
  height?: number;
  xTitle: string;
  yTitle: string;
  logX?: boolean;
  logY?: boolean;
  field: string;
  ariaLabel: string;
  legend?: boolean;
  /** Fixed domains (a loss curve that grows into its epochs); default: the data's extent. */
  xDomain?: [number, number];
  yDomain?: [number, number];
}

const finite = (x: number) => Number.isFinite(x);

export function lineChart(o: ChartOptions): SVGSVGElement {
  const width = o.width ?? 420, height = o.height ?? 220;
  const left = 56, right = 12, top = 10, bottom = 36;
  const xsAll = o.series.flatMap((s) => s.xs as number[]).concat((o.markers ?? []).map((m) => m.x)).filter(finite);
  const ysAll = o.series.flatMap((s) => s.ys as number[]).concat((o.markers ?? []).map((m) => m.y))
    .filter((y) => finite(y) && (!o.logY || y > 0));
  let [x0, x1] = xsAll.length ? [Math.min(...xsAll), Math.max(...xsAll)] : [0, 1];
  let [y0, y1] = ysAll.length ? [Math.min(...ysAll), Math.max(...ysAll)] : [0, 1];
  if (o.xDomain) [x0, x1] = o.xDomain;
  if (o.yDomain) [y0, y1] = o.yDomain;
  if (x0 === x1) { x0 = o.logX ? x0 / 2 : x0 - 1; x1 = o.logX ? x1 * 2 : x1 + 1; }
  if (y0 === y1) { y0 = o.logY ? y0 / 2 : y0 - 1; y1 = o.logY ? y1 * 2 : y1 + 1; }
  const x = (o.logX ? scaleLog() : scaleLinear()).domain([x0, x1]).range([left, width - right]);
  const y = (o.logY ? scaleLog() : scaleLinear()).domain([y0, y1]).range([height - bottom, top]);
  if (!o.logY) (y as ReturnType<typeof scaleLinear>).nice();
  const chart = svg('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-label': o.ariaLabel, 'data-field': o.field });
  const axes = svg('g', { class: 'axes', 'aria-hidden': 'true' });
  const yTicks = o.logY ? (y.ticks(6) as number[]).filter((v) => Number.isInteger(Math.log10(v))) : (y.ticks(5) as number[]);
  const xTicks = o.logX ? (x.ticks(6) as number[]).filter((v) => Number.isInteger(Math.log2(v)) || Number.isInteger(Math.log10(v))) : (x.ticks(6) as number[]);
  const yText = (v: number) => (o.logY ? `1e${Math.round(Math.log10(v))}` : fmt(v, 2));
  const xText = (v: number) => (o.logX ? String(v) : fmt(v, 2));
  for (const v of yTicks) {
    const py = y(v);
    axes.append(svg('line', { x1: left, x2: width - right, y1: py, y2: py, class: 'grid-line' }),
      label(left - 6, py + 4, yText(v), 'tick-label', 'end'));
  }
  const xShown = xTicks.length > 10 ? xTicks.filter((_, i) => i % 2 === 0) : xTicks;
  for (const v of xShown) {
    const px = x(v);
    axes.append(svg('line', { x1: px, x2: px, y1: height - bottom, y2: height - bottom + 4, class: 'tick' }),
      label(px, height - bottom + 16, xText(v), 'tick-label'));
  }
  axes.append(svg('line', { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: 'axis' }),
    svg('line', { x1: left, x2: left, y1: height - bottom, y2: top, class: 'axis' }),
    label((left + width - right) / 2, height - 4, o.xTitle, 'axis-title'),
    label(12, (top + height - bottom) / 2, o.yTitle, 'axis-title'));
  (axes.lastChild as SVGTextElement).setAttribute('transform', `rotate(-90 12 ${(top + height - bottom) / 2})`);
  chart.append(axes);
  for (const s of o.series) {
    const pts: string[] = [];
    s.xs.forEach((xv, i) => {
      const yv = s.ys[i];
      if (!finite(xv) || !finite(yv) || (o.logY && yv <= 0)) return;
      pts.push(`${pts.length ? 'L' : 'M'}${x(xv).toFixed(2)},${y(yv).toFixed(2)}`);
    });
    const g = svg('g', { class: `series ${s.cls}`, ...(s.field ? { 'data-field': s.field } : {}) });
    g.append(svg('path', { d: pts.join(''), class: `line${s.dashed ? ' dashed' : ''}` }));
    if (s.dots) s.xs.forEach((xv, i) => {
      const yv = s.ys[i];
      if (!finite(yv) || (o.logY && yv <= 0)) return;
      const c = svg('circle', { cx: x(xv).toFixed(2), cy: y(yv).toFixed(2), r: 2.6, class: 'dot', 'data-x': exact(xv), 'data-value': exact(yv) });
      c.append(svg('title'));
      c.firstChild!.textContent = `${s.name}: ${xText(xv)} → ${exact(yv)}`;
      g.append(c);
    });
    chart.append(g);
  }
  for (const m of o.markers ?? []) {
    if (!finite(m.y) || (o.logY && m.y <= 0)) continue;
    const c = svg('circle', { cx: x(m.x).toFixed(2), cy: y(m.y).toFixed(2), r: 4.5, class: `marker ${m.cls}`, 'data-field': m.field,
      'data-value': exact(m.y) });
    c.append(svg('title'));
    c.firstChild!.textContent = `${m.name}: ${exact(m.y)}`;
    chart.append(c);
  }
  if (o.legend !== false && o.series.length > 1) {
    const lx = left + 8;
    const g = svg('g', { class: 'legend', 'aria-hidden': 'true' },
      svg('rect', { x: lx - 4, y: top, width: 34 + Math.max(...o.series.map((s) => textWidth(s.name))), height: o.series.length * 15 + 6, rx: 3, class: 'legend-box' }));
    o.series.forEach((s, i) => {
      const cy = top + 11 + i * 15;
      g.append(svg('line', { x1: lx, x2: lx + 18, y1: cy, y2: cy, class: `legend-line ${s.cls}${s.dashed ? ' dashed' : ''}` }),
        label(lx + 24, cy + 4, s.name, 'legend-text', 'start'));
    });
    chart.append(g);
  }
  return chart;
}
