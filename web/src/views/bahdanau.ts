// d2l's seq2seq with Bahdanau attention (issue 9): training in the tab (progress bar, cancel, the
// loss per epoch, the held-out example's attention weights) and the shape test's shapes. Every
// number is the trace's (or, while training, the loss the core reports after each epoch). DOM only.
import { h, scrollBox } from '../dom';
import { fmt, range, shapeOf } from '../format';
import type { Scenario, Trace } from '../engine/compute';
import { type TrainState } from '../state';
import { argmaxRows, d2lShapes, mirrored, tokenName } from '../state/chapter';
import type { Lang } from '../i18n';
import { d, df } from '../i18n-d2l';
import { heatmap } from './heatmap';
import { axes } from './axes';
import { lineChart } from './chart';

export interface BahdanauViewOptions {
  trace: Trace | null;
  scenario: Scenario;
  training: TrainState | null;
  b: number;
  lang: Lang;
  onCancel: () => void;
  onRetrain: () => void;
}

const ids = (v: unknown): number[] => (Array.isArray(v) ? (v as number[]) : []);

function lossChart(losses: number[], epochs: number, lang: Lang): SVGSVGElement {
  const xs = losses.map((_, i) => i + 1);
  const chart = lineChart({
    series: [{ name: 'loss', xs, ys: losses, cls: 's0', dots: true, field: 'loss-points' }],
    xTitle: d(lang, 'epoch'), yTitle: 'loss', field: 'bahdanau-loss', width: 380, height: 200,
    xDomain: [1, Math.max(2, epochs, losses.length)], yDomain: [0, Math.max(...losses)],
    ariaLabel: `${d(lang, 'lossTitle')}: ${losses.map((l, i) => `${i + 1}: ${fmt(l, 4)}`).join(', ')}`,
  });
  chart.dataset.epochs = String(epochs);
  return chart;
}

/** The training part: redrawn in place on each progress report (trainProgress). */
export function trainingPart(o: BahdanauViewOptions): HTMLElement {
  const { training: st, lang } = o;
  const part = h('div', { class: 'training', dataset: { part: 'training', field: 'training' } });
  fillTraining(part, o);
  if (!st) part.append(h('p', { class: 'note', text: d(lang, 'trainIdle') }));
  return part;
}

function fillTraining(part: HTMLElement, o: BahdanauViewOptions): void {
  const { training: st, lang, trace } = o;
  part.replaceChildren();
  if (!st) return;
  part.dataset.status = st.status;
  const pct = Math.round(100 * st.fraction);
  const status = st.status === 'running'
    ? df(lang, st.mode === 'main' ? 'trainingMain' : 'trainingWorker', { what: st.what || '…', pct })
    : st.status === 'done' ? df(lang, 'trained', { epochs: st.losses.length, s: ((st.ms ?? 0) / 1000).toFixed(2), mode: d(lang, st.mode === 'main' ? 'modeMain' : 'modeWorker') })
    : st.status === 'cancelled' ? d(lang, 'trainCancelled') : `${d(lang, 'trainFailed')}: ${st.message ?? ''}`;
  const bar = h('div', { class: 'progress', attrs: { role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': pct,
    'aria-label': d(lang, 'trainProgress') } }, h('span', { class: 'progress-fill' }));
  (bar.firstChild as HTMLElement).style.width = `${pct}%`;
  part.append(h('div', { class: 'train-row' }, bar,
    st.status === 'running'
      ? h('button', { type: 'button', class: 'cancel', dataset: { key: 'train.cancel' }, text: d(lang, 'cancel'), on: { click: o.onCancel } })
      : h('button', { type: 'button', dataset: { key: 'train.again' }, text: d(lang, 'trainAgain'), on: { click: o.onRetrain } })),
  h('p', { class: 'status', attrs: { role: 'status' }, dataset: { field: 'train-status' }, text: status }));
  // while running: the losses reported so far; then the trace's
  const losses = st.status === 'running' || trace?.algorithm !== 'bahdanau' || !Array.isArray(trace.loss) ? st.losses : (trace.loss as number[]);
  if (losses.length) {
    part.append(h('figure', { class: 'fig' }, h('figcaption', { class: 'fig-title', text: d(lang, 'lossTitle') }),
      lossChart(losses, st.epochs, lang), h('small', { class: 'fig-caption', text: d(lang, 'lossCaption') })));
  }
  if (st.status !== 'running' && trace?.algorithm === 'bahdanau' && trace.loss !== undefined && st.status !== 'done') {
    part.append(h('p', { class: 'note', text: d(lang, 'lastGood') }));
  }
}

/** A progress report: the training part's bar, status and loss only (while it runs, the bar and
 * the Cancel button stay the same nodes: a report per epoch must not pull the button away from a
 * pointer about to click it). */
export function trainProgress(part: HTMLElement, o: BahdanauViewOptions): void {
  const st = o.training;
  const bar = part.querySelector<HTMLElement>('.train-row [role="progressbar"]');
  const status = part.querySelector<HTMLElement>('[data-field="train-status"]');
  if (!st || st.status !== 'running' || part.dataset.status !== 'running' || !bar || !status) {
    fillTraining(part, o);
    return;
  }
  const fresh = h('div');
  fillTraining(fresh, o);
  const pct = String(Math.round(100 * st.fraction));
  bar.setAttribute('aria-valuenow', pct);
  (bar.firstChild as HTMLElement).style.width = `${pct}%`;
  status.textContent = fresh.querySelector('[data-field="train-status"]')?.textContent ?? '';
  // the loss chart: the new one in place of the old
  const chart = fresh.querySelector('figure.fig');
  const old = part.querySelector('figure.fig');
  if (chart && old) old.replaceWith(chart);
  else if (chart) part.append(chart);
}

function heldOut(trace: Trace, task: string, lang: Lang): HTMLElement | null {
  const w = trace.heldout_weights as number[][] | undefined;
  if (!Array.isArray(w)) return null;
  const src = ids(trace.heldout_src), target = ids(trace.heldout_target), predicted = ids(trace.predicted);
  const validLen = Number(trace.heldout_valid_len ?? src.length);
  const words = validLen - 1;
  const best = argmaxRows(w);
  const expected = (t: number) => (task === 'copy' ? t : mirrored(t, words));
  const rows = Math.min(best.length, words); // the word steps (the <eos> step has no source word)
  const hits = best.filter((j, t) => t < rows && j === expected(t)).length;
  const stepLabel = (t: number) => (t < predicted.length ? tokenName(predicted[t]) : '<eos>');
  const map = heatmap({
    title: d(lang, 'heldoutWeights'), caption: d(lang, task === 'copy' ? 'heldoutCaptionCopy' : 'heldoutCaption'),
    field: 'heldout_weights', values: w, color: 'weights', lang, axes: axes(lang, 'axisTgt', 'axisSrc'),
    rowLabels: range(w.length).map((t) => `${t}: ${stepLabel(t)}`), colLabels: src.map((x, j) => `${j}: ${tokenName(x)}`),
    indexOf: (i, j) => `${i},${j}`, rowHeader: d(lang, 'stepHeader'),
    cellClass: (i, j) => (i < rows && best[i] === j ? 'argmax' : undefined),
  });
  const seq = (list: number[], field: string) => h('span', { class: 'mono tokens', dataset: { field, value: list.join(' ') },
    text: list.length ? list.map(tokenName).join(' ') : '∅' });
  const correct = predicted.length === target.length - 1 && predicted.every((x, i) => x === target[i]);
  return h('section', { class: 'heldout', dataset: { field: 'heldout' } },
    h('h4', { text: d(lang, 'heldoutTitle') }),
    h('dl', { class: 'kv' },
      h('dt', { text: d(lang, 'heldoutSrc') }), h('dd', null, seq(src.slice(0, validLen), 'heldout_src')),
      h('dt', { text: d(lang, 'heldoutTarget') }), h('dd', null, seq(target, 'heldout_target')),
      // the held-out sentence is no palindrome (docs/semantics.md): the other task answers otherwise
      h('dt', { text: d(lang, task === 'copy' ? 'otherReverse' : 'otherCopy') }),
      h('dd', null, seq([...(task === 'copy' ? [...src.slice(0, words)].reverse() : src.slice(0, words)), ...target.slice(words)], 'heldout_other')),
      h('dt', { text: d(lang, 'predicted') }), h('dd', null, seq(predicted, 'predicted'), ' ',
        h('span', { class: correct ? 'ok' : 'warn', text: d(lang, correct ? 'correct' : 'wrong') }))),
    map,
    h('p', { class: 'note', dataset: { field: 'heldout-argmax', hits: String(hits), rows: String(rows) },
      text: df(lang, task === 'copy' ? 'argmaxDiagonal' : 'argmaxMirrored', { hits, rows }) }));
}

/** The trained weights (trace `trained_weights`, keyed by state_dict name): each parameter's shape
 * and mean |w|, and a button that copies them as the scenario's `weights` JSON. */
function trainedPart(trace: Trace, lang: Lang): HTMLElement | null {
  const w = trace.trained_weights as Record<string, unknown> | undefined;
  if (!w || typeof w !== 'object') return null;
  const rows = Object.entries(w).map(([name, value]) => {
    const flat = [value].flat(Infinity as 1) as number[];
    return { name, shape: shapeOf(value), mean: flat.reduce((a, x) => a + Math.abs(x), 0) / Math.max(1, flat.length), n: flat.length };
  });
  const status = h('span', { class: 'muted', attrs: { role: 'status' } });
  const part = h('section', { class: 'trained', dataset: { field: 'trained_weights' } }, h('h4', { text: d(lang, 'trainedTitle') }));
  // the status and section found from the button when clicked: a later render patches the drawn
  // ones and replaces only the button (views/patch.ts), so this build's `status` may not be shown
  const copy = h('button', { type: 'button', dataset: { key: 'train.copy-weights' }, text: d(lang, 'trainedCopy'), on: { click: (e: Event) => {
    const button = e.currentTarget as HTMLElement;
    const shown = button.parentElement?.querySelector<HTMLElement>('[role=status]') ?? status;
    import('../export').then((m) => m.copyOrSave(JSON.stringify(w), 'trained_weights.json', 'application/json', lang, button.closest('section') ?? part, shown)).catch(console.error);
  } } });
  part.append(
    h('p', { class: 'note', text: df(lang, 'trainedNote', { n: rows.reduce((a, r) => a + r.n, 0) }) }),
    h('p', null, copy, ' ', status),
    scrollBox(h('table', { class: 'shapes' },
      h('thead', null, h('tr', null, h('th', { attrs: { scope: 'col' }, text: d(lang, 'parameter') }), h('th', { attrs: { scope: 'col' }, text: d(lang, 'shape') }),
        h('th', { attrs: { scope: 'col' }, text: d(lang, 'meanAbs') }))),
      h('tbody', null, ...rows.map((r) => h('tr', null, h('td', { class: 'mono', text: r.name }), h('td', { class: 'mono', text: `(${r.shape.join(', ')})` }),
        h('td', { class: 'mono', text: fmt(r.mean) })))))));
  return part;
}

function shapesPart(trace: Trace, lang: Lang): HTMLElement {
  const rows = d2lShapes(trace);
  const table = h('table', { class: 'shapes', dataset: { field: 'd2l-shapes' } },
    h('thead', null, h('tr', null, h('th', { text: d(lang, 'd2lPrints') }), h('th', { text: d(lang, 'value') }))),
    h('tbody', null, ...rows.map((r) => h('tr', { dataset: { label: r.label } }, h('td', { class: 'mono', text: r.label }),
      h('td', { class: 'mono', dataset: { value: r.shape }, text: r.shape })))));
  const names = ['enc_outputs', 'enc_state', 'dec_queries', 'weights', 'dec_context', 'output', 'dec_state'].filter((n) => trace.shapes[n]);
  const ours = h('table', { class: 'shapes', dataset: { field: 'trace-shapes' } },
    h('thead', null, h('tr', null, h('th', { text: d(lang, 'traceField') }), h('th', { text: d(lang, 'shape') }))),
    h('tbody', null, ...names.map((n) => h('tr', null, h('td', { class: 'mono', text: n }),
      h('td', { class: 'mono', text: `(${trace.shapes[n].join(', ')})` })))));
  return h('section', { class: 'bahdanau-shapes' }, h('h4', { text: d(lang, 'shapesTitle') }),
    h('div', { class: 'side-by-side' }, table, ours), h('p', { class: 'note', text: d(lang, 'shapesNote') }));
}

export function bahdanauView(o: BahdanauViewOptions): HTMLElement {
  const { trace, scenario: s, lang } = o;
  const root = h('section', { class: 'chapter bahdanau', dataset: { field: 'bahdanau' } },
    h('h3', { text: d(lang, 'bahdanauTitle') }), h('p', { class: 'intro', text: d(lang, 'bahdanauIntro') }));
  const train = s.train as Scenario | undefined;
  if (train) root.append(trainingPart(o));
  const ours = trace?.algorithm === 'bahdanau' ? trace : null;
  if (ours && train && (o.training?.status !== 'running')) {
    const part = heldOut(ours, String(train.task ?? 'reverse'), lang);
    if (part) root.append(part);
    const trained = trainedPart(ours, lang);
    if (trained) root.append(trained);
  }
  if (ours) root.append(shapesPart(ours, lang));
  return root;
}
