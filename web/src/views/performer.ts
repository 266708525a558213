// Performer (FAVOR+), as the note tells it: exp(q·k) estimated by random features, and the note's
// claim that orthogonal rows (and, going further, quantile lengths) lower the estimate's variance.
// The current run beside exact attention; then the sweep: the error against the number of features
// m, averaged over 20 seeds, for iid, orthogonal and orthogonal + quantile-norm features, run off
// the main thread with progress and a cancel button (state/performer.ts, sweep.ts). Each point is
// the mean of the core's max_abs_error over the seeds. DOM only.
import { scaleLinear, scaleLog } from 'd3-scale';
import { h, newId } from '../dom';
import { exact, fmt } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { FEATURE_KINDS, SWEEP_M, SWEEP_SEED_CHOICES, type CurvePoint, type FeatureKind, type SweepCurve, type SweepState } from '../state';
import { viewText, type Key, type Lang, type Text } from '../i18n';
import { approxPanel } from './approx';
import { blhMap, weightsBeside } from './linear';
import { heatmap } from './heatmap';
import { axes } from './axes';
import { label, svg } from './svg';
import { flushPatches } from './patch';
import type { ViewHost } from '../algorithms/module';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  performerTitle: { en: 'Performer (FAVOR+): random features for exp(q·k)', zh: 'Performer（FAVOR+）：用随机特征估计 exp(q·k)' },
  performerIntro: { en: 'The note: e^{q·k} = E_ω[e^{ω·q − |q|²/2} e^{ω·k − |k|²/2}] with ω ~ N(0, I). Averaging m draws turns the softmax into linear attention with m features; orthogonalising the ω (keeping their lengths) makes the directions more even and lowers the variance of the estimate.', zh: '笔记：e^{q·k} = E_ω[e^{ω·q − |q|²/2} e^{ω·k − |k|²/2}]，ω ~ N(0, I)。对 m 个采样取平均，softmax 就变成 m 个特征的线性 attention；把 ω 正交化（保持模长）让方向更均匀，降低估计的方差。' },
  projectionTitle: { en: 'projection W (m × E): the ω rows', zh: '投影 W（m × E）：每行一个 ω' },
  projectionCaption: { en: 'drawn from the seed (orthogonal blocks of E rows, or iid)', zh: '由随机种子抽取（每 E 行正交一组，或独立同分布）' },
  sweepTitle: { en: 'Error against the number of features m, averaged over seeds', zh: '误差随特征数 m 的变化（对多个随机种子取平均）' },
  sweepIntro: { en: 'The current q, k, v through FAVOR+ with m ∈ {{ms}}, {seeds} seeds each: iid rows, orthogonal rows, and orthogonal rows with the note\'s quantile lengths. Each point is the mean of max |context − exact| over the seeds (bars: ± one standard deviation).', zh: '当前的 q、k、v 用 FAVOR+ 计算，m ∈ {{ms}}，每个 m 用 {seeds} 个随机种子：独立同分布的行、正交的行、正交且模长取笔记中分位数的行。每个点是各种子 max |context − exact| 的平均（竖线：± 一个标准差）。' },
  sweepSeeds: { en: 'seeds per point', zh: '每个点的随机种子数' },
  sweepRun: { en: 'Run the sweep', zh: '开始扫描' },
  sweepRunAgain: { en: 'Run again', zh: '重新扫描' },
  sweepCancel: { en: 'Cancel', zh: '取消' },
  sweepProgress: { en: 'sweep progress', zh: '扫描进度' },
  sweepIdle: { en: 'not run yet', zh: '尚未运行' },
  sweepRuns: { en: 'runs', zh: '次运行' },
  sweepIn: { en: 'in', zh: '用时' },
  sweepInWorker: { en: 'in a Web Worker', zh: '在 Web Worker 中' },
  sweepInSlices: { en: 'on the page, in slices', zh: '在页面主线程分片计算' },
  sweepCancelled: { en: 'cancelled', zh: '已取消' },
  sweepFailed: { en: 'the sweep failed', zh: '扫描失败' },
  sweepRefused: { en: 'runs refused by the core', zh: '次运行被核心拒绝' },
  sweepStale: { en: 'These results are for earlier inputs: run again.', zh: '这些结果对应之前的输入：请重新扫描。' },
  sweepTableCaption: { en: 'mean ± standard deviation of max_abs_error over the seeds', zh: '各随机种子 max_abs_error 的平均 ± 标准差' },
  sweepIid: { en: 'iid', zh: '独立同分布' },
  sweepOrthogonal: { en: 'orthogonal', zh: '正交' },
  sweepQuantile: { en: 'orthogonal + quantile norms', zh: '正交 + 分位数模长' },
  sweepXAxis: { en: 'number of random features m (log scale)', zh: '随机特征数 m（对数坐标）' },
  sweepYAxis: { en: 'mean max |error|', zh: '平均最大误差' },
  sweepChartLabel: { en: 'mean error against m', zh: '平均误差随 m 的变化' },
  sweepVerdict: { en: 'Orthogonal rows against iid ones, on your inputs: a lower mean error at {lower} of {n} values of m ({low} of {of} with m ≤ E = {E}), a smaller spread over the seeds at {tighter} of {n}.', zh: '在你的输入上，正交行与独立同分布的行相比：在 {n} 个 m 中有 {lower} 个平均误差更低（m ≤ E = {E} 的 {of} 个中有 {low} 个），有 {tighter} 个在各随机种子间的波动（标准差）更小。' },
} satisfies Record<string, Text>;
type ViewKey = Key | keyof typeof T;
/** A string of this view's table, else the page's. */
const t = viewText(T);

export interface PerformerViewOptions {
  trace: Trace;
  exact: Outcome | null;
  b: number;
  h: number;
  lang: Lang;
}

const KIND_LABEL: Record<FeatureKind, ViewKey> = { iid: 'sweepIid', orthogonal: 'sweepOrthogonal', quantile: 'sweepQuantile' };

export function performerView(o: PerformerViewOptions, sweepPart: HTMLElement): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const root = h('section', { class: 'algo-view performer', dataset: { field: 'performer-view' } },
    h('h3', { text: t(lang, 'performerTitle') }),
    h('p', { class: 'intro', text: t(lang, 'performerIntro') }));
  const m = trace.shapes.projection?.[0];
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang,
    title: `${t(lang, 'impliedWeights')} (m = ${m ?? '?'})` }));
  const projection = trace.projection as unknown[][] | undefined;
  const maps = h('div', { class: 'maps' });
  if (Array.isArray(projection) && projection.length * (projection[0]?.length ?? 0) <= 2048) {
    maps.append(heatmap({ title: t(lang, 'projectionTitle'), caption: t(lang, 'projectionCaption'), field: 'projection',
      values: projection, color: 'diverging', lang, axes: axes(lang, 'omega', 'featureE'), rowLabels: projection.map((_, i) => `w${i}`),
      colLabels: (projection[0] ?? []).map((_, j) => `e${j}`), indexOf: (i, j) => `${i},${j}` }));
  }
  const fq = blhMap(trace, 'features_q', t(lang, 'featuresQ'), t(lang, 'featuresCaption'), b, hh, lang, axes(lang, 'axisQuery', 'featureF'), 'q', 'f');
  if (fq && (trace.shapes.features_q?.[3] ?? 0) <= 64) maps.append(fq);
  if (maps.childElementCount) root.append(maps);
  root.append(approxPanel({ trace, lang, b, h: hh, name: 'performer' }), sweepPart);
  return root;
}

export interface SweepPartOptions {
  sweep: SweepState | null;
  /** Whether the sweep shown is for the current inputs. */
  current: boolean;
  lang: Lang;
  /** Seeds per point for the next sweep. */
  seeds: number;
  onRun: () => void;
  onCancel: () => void;
  onSeeds: (n: number) => void;
}

/** The sweep: its controls and progress, then the chart and the table of means. */
export function sweepPart(o: SweepPartOptions): HTMLElement[] {
  const { sweep, lang } = o;
  const running = sweep?.status === 'running';
  const run = h('button', { type: 'button', class: 'primary', dataset: { key: 'sweep.run' }, disabled: running,
    text: t(lang, sweep ? 'sweepRunAgain' : 'sweepRun') });
  run.addEventListener('click', o.onRun);
  const cancel = h('button', { type: 'button', dataset: { key: 'sweep.cancel' }, disabled: !running, text: t(lang, 'sweepCancel') });
  cancel.addEventListener('click', o.onCancel);
  const seedsId = newId('seeds');
  const seeds = h('select', { id: seedsId, dataset: { key: 'sweep.seeds' }, disabled: running },
    ...SWEEP_SEED_CHOICES.map((n) => h('option', { value: String(n), text: String(n), selected: n === o.seeds })));
  seeds.addEventListener('change', () => o.onSeeds(Number(seeds.value)));
  const progress = h('progress', { max: sweep?.total ?? 1, value: sweep?.done ?? 0,
    attrs: { 'aria-label': t(lang, 'sweepProgress') } });
  const status = h('span', { class: 'sweep-status', dataset: { status: sweep?.status ?? 'idle' }, attrs: { role: 'status' },
    text: statusText(sweep, lang) });
  const out: HTMLElement[] = [
    h('h4', { text: t(lang, 'sweepTitle') }),
    h('p', { class: 'intro', text: t(lang, 'sweepIntro').replace('{seeds}', String(sweep?.seeds ?? o.seeds)).replace('{ms}', SWEEP_M.join(', ')) }),
    h('div', { class: 'sweep-bar' }, h('span', { class: 'field inline' }, h('label', { attrs: { for: seedsId }, text: t(lang, 'sweepSeeds') }), seeds),
      run, cancel, progress, status),
  ];
  if (sweep && !o.current && sweep.curves) out.push(h('p', { class: 'note', text: t(lang, 'sweepStale') }));
  if (sweep?.message) out.push(h('p', { class: 'error', text: sweep.message }));
  if (sweep?.curves) out.push(h('div', { class: 'sweep-body' }, h('figure', null, chart(sweep.curves, sweep.E, lang), legend(lang)),
    table(sweep.curves, lang)), verdict(sweep.curves, sweep.E, lang));
  return out;
}

/** A progress report while the sweep runs: the bar and the status line updated in place (the
 * buttons stay, so a click on Cancel is never lost to a redraw). False when the part must be redrawn. */
export function sweepProgress(part: HTMLElement, sweep: SweepState | null, lang: Lang): boolean {
  const bar = part.querySelector('progress');
  const status = part.querySelector<HTMLElement>('.sweep-status');
  if (!sweep || sweep.status !== 'running' || status?.dataset.status !== 'running' || !bar) return false;
  bar.max = sweep.total;
  bar.value = sweep.done;
  status.textContent = statusText(sweep, lang);
  return true;
}

function statusText(sweep: SweepState | null, lang: Lang): string {
  if (!sweep) return t(lang, 'sweepIdle');
  const where = sweep.mode ? t(lang, sweep.mode === 'worker' ? 'sweepInWorker' : 'sweepInSlices') : '';
  if (sweep.status === 'running') return `${sweep.done} / ${sweep.total} ${t(lang, 'sweepRuns')}${where ? ` · ${where}` : ''}`;
  if (sweep.status === 'cancelled') return `${t(lang, 'sweepCancelled')} (${sweep.done} / ${sweep.total})`;
  if (sweep.status === 'failed') return t(lang, 'sweepFailed');
  const secs = ((sweep.wallMs ?? 0) / 1000).toFixed(2);
  return `${sweep.total} ${t(lang, 'sweepRuns')} ${t(lang, 'sweepIn')} ${secs} s · ${where}` +
    (sweep.failed ? ` · ${sweep.failed} ${t(lang, 'sweepRefused')}` : '');
}

/** The mean error of a kind at m (the core's max_abs_error averaged over the seeds). */
const meanAt = (curves: SweepCurve[], kind: FeatureKind, m: number) => curves.find((c) => c.kind === kind)?.points.find((p) => p.m === m);

function table(curves: SweepCurve[], lang: Lang): HTMLElement {
  const tbl = h('table', { class: 'sweep-table', dataset: { field: 'sweep-table' } },
    h('caption', { text: t(lang, 'sweepTableCaption') }),
    h('thead', null, h('tr', null, h('th', { text: 'm' }), ...FEATURE_KINDS.map(({ kind }) => h('th', { attrs: { scope: 'col' }, text: t(lang, KIND_LABEL[kind]) })))));
  const body = h('tbody');
  for (const m of SWEEP_M) {
    body.append(h('tr', null, h('th', { attrs: { scope: 'row' }, text: String(m) }), ...FEATURE_KINDS.map(({ kind }) => {
      const p = meanAt(curves, kind, m);
      return h('td', { dataset: { kind, m: String(m), value: exact(p?.mean), sd: exact(p?.sd), runs: String(p?.runs ?? 0) },
        title: p ? `${exact(p.mean)} ± ${exact(p.sd)} (n = ${p.runs})` : '', text: p ? `${fmt(p.mean, 4)} ± ${fmt(p.sd, 3)}` : '—' });
    })));
  }
  tbl.append(body);
  return tbl;
}

/** One sentence from the means and spreads: where orthogonal rows beat iid ones. */
function verdict(curves: SweepCurve[], E: number, lang: Lang): HTMLElement {
  const pairs = SWEEP_M.map((m) => [m, meanAt(curves, 'iid', m), meanAt(curves, 'orthogonal', m)] as const)
    .filter((x): x is readonly [number, CurvePoint, CurvePoint] => x[1] !== undefined && x[2] !== undefined);
  const lower = pairs.filter(([, a, b]) => b.mean < a.mean).length;
  const tighter = pairs.filter(([, a, b]) => b.sd < a.sd).length;
  const low = pairs.filter(([m]) => m <= E);
  const lowWins = low.filter(([, a, b]) => b.mean < a.mean).length;
  const fill = (s: string) => s.replace('{lower}', String(lower)).replace('{tighter}', String(tighter))
    .replace(/\{n\}/g, String(pairs.length)).replace('{low}', String(lowWins)).replace('{of}', String(low.length)).replace('{E}', String(E));
  return h('p', { class: 'sweep-verdict', dataset: { field: 'sweep-verdict', lower: String(lower), tighter: String(tighter),
    n: String(pairs.length), lowWins: String(lowWins), lowOf: String(low.length) }, text: fill(t(lang, 'sweepVerdict')) });
}

function chart(curves: SweepCurve[], E: number, lang: Lang): SVGSVGElement {
  const W = 520, H = 280, left = 56, right = 16, top = 16, bottom = 44;
  const hi = Math.max(1e-12, ...curves.flatMap((c) => c.points.map((p) => p.mean + p.sd)).filter(Number.isFinite));
  const x = scaleLog().base(2).domain([SWEEP_M[0], SWEEP_M[SWEEP_M.length - 1]]).range([left + 12, W - right - 12]);
  const y = scaleLinear().domain([0, hi]).range([H - bottom, top]).nice();
  const summary = curves.map((c) => `${t(lang, KIND_LABEL[c.kind])}: ${c.points.map((p) => `m ${p.m} ${fmt(p.mean, 3)}`).join(', ')}`).join('; ');
  const root = svg('svg', { class: 'sweep-chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img',
    'aria-label': `${t(lang, 'sweepChartLabel')}: ${summary}`, 'data-field': 'sweep-chart' });
  const axes = svg('g', { class: 'axes', 'aria-hidden': 'true' });
  const yText = y.tickFormat(5);
  for (const v of y.ticks(5)) {
    axes.append(svg('line', { x1: left, x2: W - right, y1: y(v), y2: y(v), class: 'grid-line' }),
      label(left - 6, y(v) + 4, yText(v), 'tick-label', 'end'));
  }
  for (const m of SWEEP_M) {
    axes.append(svg('line', { x1: x(m), x2: x(m), y1: H - bottom, y2: H - bottom + 4, class: 'tick' }),
      label(x(m), H - bottom + 16, String(m), 'tick-label'));
  }
  axes.append(svg('line', { x1: left, x2: W - right, y1: H - bottom, y2: H - bottom, class: 'axis' }),
    svg('line', { x1: left, x2: left, y1: top, y2: H - bottom, class: 'axis' }),
    label((left + W - right) / 2, H - 6, t(lang, 'sweepXAxis'), 'axis-title'));
  const yTitle = label(14, (top + H - bottom) / 2, t(lang, 'sweepYAxis'), 'axis-title');
  yTitle.setAttribute('transform', `rotate(-90 14 ${(top + H - bottom) / 2})`);
  axes.append(yTitle);
  if (E >= SWEEP_M[0] && E <= SWEEP_M[SWEEP_M.length - 1]) {
    axes.append(svg('line', { x1: x(E), x2: x(E), y1: top, y2: H - bottom, class: 'e-line' }),
      label(x(E) + 4, top + 8, `m = E = ${E}`, 'e-label', 'start'));
  }
  root.append(axes);
  // a small offset per kind keeps the ± bars apart
  const offset: Record<FeatureKind, number> = { iid: -4, orthogonal: 0, quantile: 4 };
  for (const c of curves) {
    const g = svg('g', { class: `curve ${c.kind}`, 'data-kind': c.kind });
    const px = (m: number) => x(m) + offset[c.kind];
    g.append(svg('path', { d: c.points.map((p, i) => `${i ? 'L' : 'M'}${px(p.m).toFixed(2)},${y(p.mean).toFixed(2)}`).join(''), class: 'line' }));
    for (const p of c.points) {
      g.append(svg('line', { x1: px(p.m), x2: px(p.m), y1: y(Math.max(0, p.mean - p.sd)), y2: y(p.mean + p.sd), class: 'sd' }));
      const dot = svg('circle', { cx: px(p.m).toFixed(2), cy: y(p.mean).toFixed(2), r: 3.5, class: 'dot', 'data-m': p.m, 'data-value': exact(p.mean) });
      dot.append(svg('title'));
      dot.firstChild!.textContent = `${t(lang, KIND_LABEL[c.kind])}, m = ${p.m}: ${exact(p.mean)} ± ${exact(p.sd)}`;
      g.append(dot);
    }
    root.append(g);
  }
  return root;
}

function legend(lang: Lang): HTMLElement {
  return h('p', { class: 'legend sweep-legend', attrs: { 'aria-hidden': 'true' } },
    ...FEATURE_KINDS.flatMap(({ kind }) => [h('span', { class: `key-line ${kind}` }), ` ${t(lang, KIND_LABEL[kind])} `]));
}

// ---- the element's wiring (algorithms/performer.ts) ----

/** One element's sweep: its timer, its part of the view and the session's sweep calls. */
class Sweep {
  #timer: ReturnType<typeof setTimeout> | null = null;
  constructor(readonly host: ViewHost) {}

  part(): HTMLElement[] {
    const { session, lang } = this.host;
    return sweepPart({ sweep: session.sweep, lang, current: session.sweepCurrent, seeds: session.sweepSeeds,
      onRun: () => this.start(), onCancel: () => { session.cancelSweep(); this.redraw(); },
      onSeeds: (n) => { session.sweepSeeds = n; this.start(); } });
  }

  /** Redraws the sweep's part only (a progress report: its bar and status line only). */
  redraw(): void {
    flushPatches(); // a part waiting to be patched must not bring back an older progress
    const { root, session, lang } = this.host;
    const part = root.querySelector<HTMLElement>('[data-part="sweep"]');
    if (!part || sweepProgress(part, session.sweep, lang)) return;
    const focused = (root.activeElement as HTMLElement | null)?.dataset?.key;
    part.replaceChildren(...this.part());
    if (focused?.startsWith('sweep.')) this.host.refocus(focused);
  }

  start(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.host.session.startSweep(() => this.redraw());
    this.redraw();
  }

  /** Starts the sweep once the edits pause (each call while it is due restarts the wait). */
  maybe(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (this.host.session.sweepDue) this.start();
    }, 300);
  }
}

export const sweepOf = (host: ViewHost) => host.own('performer.sweep', () => new Sweep(host));

/** The view of the element's performer trace, its sweep part included. */
export function performerFor(host: ViewHost, trace: Trace): HTMLElement {
  const { session, lang } = host;
  const part = h('div', { class: 'sweep', dataset: { part: 'sweep', field: 'sweep' } }, ...sweepOf(host).part());
  return performerView({ trace, exact: session.exact, b: session.b, h: session.h, lang }, part);
}
