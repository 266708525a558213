// Nadaraya-Watson kernel regression (d2l's attention chapter), as d2l draws it: the training
// points, the truth curve and the prediction over the queries; with training, the loss per epoch
// and the history of w. SVG built element by element (no innerHTML), scales from d3-scale. DOM only.
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { h } from '../dom';
import { exact, fmt, range } from '../format';
import type { Scenario, Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import { label, svg, textWidth } from './svg';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  nwTitle: { en: 'Nadaraya-Watson kernel regression', zh: 'Nadaraya-Watson 核回归' },
  nwCaption: { en: 'y_hat(x) = Σ_i α(x, x_i) · y_i with α = K((x − x_i) · w) normalised over i: each query attends to the training points near it.', zh: 'y_hat(x) = Σ_i α(x, x_i) · y_i，α = K((x − x_i) · w) 对 i 归一化：每个查询关注离它近的训练点。' },
  nwTruth: { en: 'Truth', zh: '真实函数' },
  nwPred: { en: 'Pred', zh: '预测' },
  nwTrainingPoints: { en: 'training points', zh: '训练样本' },
  nwSummary: { en: 'Nadaraya-Watson regression: {n} training points as dots{truth}, the prediction y_hat over {m} queries, x from {lo} to {hi}; kernel {k}, w = {w}', zh: 'Nadaraya-Watson 回归：{n} 个训练样本（圆点）{truth}，{m} 个查询上的预测 y_hat，x 从 {lo} 到 {hi}；核函数 {k}，w = {w}' },
  nwSummaryTruth: { en: ', the truth curve', zh: '、真实函数曲线' },
  nwNoData: { en: 'No x_train, y_train, x_query or y_hat to plot.', zh: '没有可绘制的 x_train、y_train、x_query 或 y_hat。' },
  nwLossTitle: { en: 'Training loss per epoch', zh: '每轮训练损失' },
  nwLossCaption: { en: 'leave-one-out Σ (y_hat_i − y_i)², before each step', zh: '留一法 Σ (y_hat_i − y_i)²，每步更新之前' },
  nwEpoch: { en: 'epoch', zh: '轮次' },
  nwWHistory: { en: 'w per epoch', zh: '每轮的 w' },
} satisfies Record<string, Text>;
/** A string of this view's table, else the page's. */
const t = viewText(T);

export interface NadarayaViewOptions {
  trace: Trace;
  /** The scenario, for x_train / y_train / x_query when they are given rather than drawn. */
  scenario: Scenario;
  lang: Lang;
}

/** Past this many epochs the loss is a line without a dot per epoch. */
const MAX_LOSS_POINTS = 200;

/** A string with {name} placeholders filled. */
const fill = (s: string, v: Record<string, string | number>) => s.replace(/\{(\w+)\}/g, (m, k: string) => (k in v ? String(v[k]) : m));

/** Finite numbers of a 1-D array, else null. */
function numbers(v: unknown): number[] | null {
  return Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : null;
}

/** [min, max] of the values, widened when degenerate so a scale never divides by 0. */
function extent(...lists: (number[] | null)[]): [number, number] {
  const all = lists.flatMap((l) => l ?? []);
  if (!all.length) return [0, 1];
  let lo = Math.min(...all), hi = Math.max(...all);
  if (lo === hi) { lo -= 1; hi += 1; }
  return [lo, hi];
}

/** A polyline through (xs[i], ys[i]) as a path's d. */
function line(xs: number[], ys: number[], x: ScaleLinear<number, number>, y: ScaleLinear<number, number>): string {
  return range(Math.min(xs.length, ys.length)).map((i) => `${i ? 'L' : 'M'}${x(xs[i]).toFixed(2)},${y(ys[i]).toFixed(2)}`).join('');
}

interface Frame { width: number; height: number; left: number; right: number; top: number; bottom: number }

/** Axes, ticks, tick labels and faint grid lines; the scales' ranges are set from the frame. */
function axes(frame: Frame, x: ScaleLinear<number, number>, y: ScaleLinear<number, number>,
  xTitle: string, yTitle: string, xTicks: number[], yTicks: number[]): SVGGElement {
  const { width, height, left, right, top, bottom } = frame;
  const g = svg('g', { class: 'axes', 'aria-hidden': 'true' });
  const x0 = left, x1 = width - right, y0 = height - bottom, y1 = top;
  const xText = x.tickFormat(Math.max(2, xTicks.length)), yText = y.tickFormat(Math.max(2, yTicks.length));
  for (const v of yTicks) {
    const py = y(v);
    g.append(svg('line', { x1: x0, x2: x1, y1: py, y2: py, class: 'grid-line' }),
      svg('line', { x1: x0 - 4, x2: x0, y1: py, y2: py, class: 'tick' }),
      label(x0 - 7, py + 4, yText(v), 'tick-label', 'end'));
  }
  for (const v of xTicks) {
    const px = x(v);
    g.append(svg('line', { x1: px, x2: px, y1: y0, y2: y0 + 4, class: 'tick' }),
      label(px, y0 + 16, xText(v), 'tick-label'));
  }
  g.append(svg('line', { x1: x0, x2: x1, y1: y0, y2: y0, class: 'axis' }),
    svg('line', { x1: x0, x2: x0, y1: y0, y2: y1, class: 'axis' }),
    label((x0 + x1) / 2, height - 4, xTitle, 'axis-title'),
    label(12, (y0 + y1) / 2, yTitle, 'axis-title'));
  (g.lastChild as SVGTextElement).setAttribute('transform', `rotate(-90 12 ${(y0 + y1) / 2})`);
  return g;
}

function regressionPlot(o: NadarayaViewOptions): SVGSVGElement | HTMLElement {
  const { trace, scenario, lang } = o;
  const xTrain = numbers(trace.x_train ?? scenario.x_train);
  const yTrain = numbers(trace.y_train ?? scenario.y_train);
  const xQuery = numbers(trace.x_query ?? scenario.x_query);
  const yHat = numbers(trace.y_hat);
  const yTruth = numbers(trace.y_truth);
  if (!xTrain || !yTrain || !xQuery || !yHat) return h('p', { class: 'note', text: t(lang, 'nwNoData') });
  const truth = yTruth && yTruth.length === xQuery.length ? yTruth : null;
  const frame: Frame = { width: 560, height: 320, left: 44, right: 12, top: 12, bottom: 36 };
  const x = scaleLinear().domain(extent(xTrain, xQuery)).range([frame.left, frame.width - frame.right]).nice();
  const y = scaleLinear().domain(extent(yTrain, yHat, truth)).range([frame.height - frame.bottom, frame.top]).nice();

  const [xlo, xhi] = x.domain();
  const summary = fill(t(lang, 'nwSummary'), { n: xTrain.length, truth: truth ? t(lang, 'nwSummaryTruth') : '',
    m: xQuery.length, lo: fmt(xlo, 1), hi: fmt(xhi, 1), k: String(scenario.kernel ?? 'gaussian'), w: fmt(trace.w) });
  const plot = svg('svg', { class: 'nw-plot', viewBox: `0 0 ${frame.width} ${frame.height}`, width: frame.width,
    height: frame.height, role: 'img', 'aria-label': summary, 'data-field': 'nw-plot' });
  plot.append(axes(frame, x, y, 'x', 'y', x.ticks(6), y.ticks(5)));

  const points = svg('g', { class: 'train-points', 'data-field': 'x_train' });
  for (const i of range(Math.min(xTrain.length, yTrain.length))) {
    const c = svg('circle', { cx: x(xTrain[i]).toFixed(2), cy: y(yTrain[i]).toFixed(2), r: 3.2, class: 'train-point',
      'data-x': exact(xTrain[i]), 'data-y': exact(yTrain[i]) });
    c.append(svg('title'));
    c.firstChild!.textContent = `(${fmt(xTrain[i])}, ${fmt(yTrain[i])})`;
    points.append(c);
  }
  if (truth) plot.append(svg('path', { d: line(xQuery, truth, x, y), class: 'truth', 'data-field': 'y_truth' }));
  plot.append(points, svg('path', { d: line(xQuery, yHat, x, y), class: 'pred', 'data-field': 'y_hat' }));

  // legend, top left, on a white card
  const entries: [string, string][] = [
    ...(truth ? [['truth', t(lang, 'nwTruth')] as [string, string]] : []),
    ['pred', t(lang, 'nwPred')], ['point', t(lang, 'nwTrainingPoints')]];
  const lx = frame.left + 10, ly = frame.top + 6;
  const legend = svg('g', { class: 'legend', 'aria-hidden': 'true' },
    svg('rect', { x: lx - 6, y: ly - 2, width: 40 + Math.max(...entries.map(([, s]) => textWidth(s))), height: entries.length * 18 + 6, rx: 4, class: 'legend-box' }));
  entries.forEach(([kind, text], i) => {
    const cy = ly + 11 + i * 18;
    legend.append(kind === 'point'
      ? svg('circle', { cx: lx + 10, cy, r: 3.2, class: 'train-point' })
      : svg('line', { x1: lx, x2: lx + 20, y1: cy, y2: cy, class: kind }),
    label(lx + 28, cy + 4, text, 'legend-text', 'start'));
  });
  plot.append(legend);
  return plot;
}

function lossChart(loss: number[], lang: Lang): SVGSVGElement {
  const frame: Frame = { width: 280, height: 170, left: 44, right: 12, top: 10, bottom: 34 };
  const epochs = loss.map((_, i) => i + 1);
  const x = scaleLinear().domain(loss.length > 1 ? [1, loss.length] : [0, 2]).range([frame.left + 6, frame.width - frame.right - 6]);
  const y = scaleLinear().domain(extent(loss)).range([frame.height - frame.bottom, frame.top]).nice();
  const summary = `${t(lang, 'nwLossTitle')}: ${loss.map((l, i) => `${i + 1}: ${fmt(l)}`).join(', ')}`;
  const chart = svg('svg', { class: 'nw-loss', viewBox: `0 0 ${frame.width} ${frame.height}`, width: frame.width,
    height: frame.height, role: 'img', 'aria-label': summary, 'data-field': 'nw-loss' });
  // epochs are whole numbers
  const xTicks = x.ticks(Math.min(loss.length, 8)).filter(Number.isInteger);
  chart.append(axes(frame, x, y, t(lang, 'nwEpoch'), 'loss', xTicks, y.ticks(4)),
    svg('path', { d: line(epochs, loss, x, y), class: 'loss-line' }));
  if (loss.length <= MAX_LOSS_POINTS) loss.forEach((l, i) => {
    const c = svg('circle', { cx: x(i + 1).toFixed(2), cy: y(l).toFixed(2), r: 3, class: 'loss-point', 'data-value': exact(l) });
    c.append(svg('title'));
    c.firstChild!.textContent = `${t(lang, 'nwEpoch')} ${i + 1}: ${exact(l)}`;
    chart.append(c);
  });
  return chart;
}

export function nadarayaView(o: NadarayaViewOptions): HTMLElement {
  const { trace, lang } = o;
  const root = h('section', { class: 'nw', dataset: { field: 'nadaraya-watson' } },
    h('h3', { text: t(lang, 'nwTitle') }));
  root.append(h('figure', { class: 'nw-figure' }, regressionPlot(o),
    h('figcaption', { class: 'fig-caption' }, t(lang, 'nwCaption'), ' ',
      h('span', { class: 'mono', dataset: { field: 'w', value: exact(trace.w) }, text: `w = ${fmt(trace.w, 4)}` }))));
  const loss = numbers(trace.loss);
  if (loss && loss.length) {
    const history = numbers(trace.w_history) ?? [];
    root.append(h('figure', { class: 'nw-figure nw-training' },
      h('figcaption', { class: 'fig-title', text: t(lang, 'nwLossTitle') }),
      lossChart(loss, lang),
      h('span', { class: 'fig-caption', text: t(lang, 'nwLossCaption') }),
      history.length ? h('p', { class: 'mono small w-history', dataset: { field: 'w_history' } },
        `${t(lang, 'nwWHistory')}: `, history.map((v) => fmt(v, 4)).join(' → ')) : null));
  }
  return root;
}
