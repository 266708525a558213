// The results' head: the heading with the Export row (export.ts, a lazy chunk), the status line of
// a long run (state/long.ts: it runs in a worker), the note that the results are stale, and the
// general error slot. Made once per results panel; the status line is updated in place. DOM only.
import { h } from '../dom';
import { load } from '../lazy';
import { t, tx, type Lang } from '../i18n';
import { sliceSizes } from '../state/scenario';
import type { LongRunState } from '../state/runs';
import type { Session } from '../state/session';
import { errorSlot } from './errors';

/** The CSV of every (b, h) slice (the CSV button's is the shown slice). */
const CSV_ALL = { en: 'CSV, every (b, h)', zh: 'CSV（全部 b, h）' };

/** The results' Export buttons (the default field's file downloaded) and Copy as PyTorch. */
function exportRow(session: Session, lang: Lang, root: ShadowRoot): HTMLElement {
  const button = (kind: string) => h('button', { text: kind === 'csv-all' ? tx(lang, CSV_ALL) : kind.toUpperCase(), dataset: { key: `export.${kind}` },
    attrs: { type: 'button', title: t(lang, kind === 'json' ? 'exportJson' : 'exportMap') },
    on: { click: () => {
      const trace = session.trace;
      const { B, H } = sliceSizes(session.traced, trace);
      if (trace) load('export').then((m) => m.download(trace, kind, session.b, session.h, B, H, lang, root)).catch(console.error);
    } } });
  const status = h('span', { class: 'muted', attrs: { role: 'status' } });
  const copy = h('button', { text: t(lang, 'copyPytorch'), dataset: { key: 'export.pytorch' }, attrs: { type: 'button' }, on: { click: () => {
    const trace = session.trace;
    if (trace) load('export').then((m) => m.copyPytorch(trace, session.stale ? null : session.scenario, lang, root, status)).catch(console.error);
  } } });
  return h('div', { class: 'export', attrs: { role: 'group', 'aria-label': t(lang, 'export') } },
    h('span', { class: 'muted', text: t(lang, 'export') }), ...['json', 'csv', 'csv-all', 'svg', 'png'].map(button), copy, status);
}

/** The head's nodes; `onCancel`: the long run's Cancel button. */
export function resultsHead(session: Session, lang: Lang, root: ShadowRoot, onCancel: () => void): Node[] {
  const longRun = h('p', { class: 'long-run', hidden: true, dataset: { field: 'long-run' }, attrs: { role: 'status' } },
    h('span', { class: 'long-run-text' }), ' ',
    h('button', { text: t(lang, 'longRunCancel'), dataset: { key: 'long-run.cancel' }, attrs: { type: 'button' },
      on: { click: onCancel } }));
  return [h('div', { class: 'panel-head' }, h('h2', { text: t(lang, 'results') }), exportRow(session, lang, root)),
    longRun, h('p', { class: 'stale-note', hidden: true, text: t(lang, 'stale') }), errorSlot('general')];
}

/** The long run's status line as `run` is (hidden when there is none); the stale note is hidden
 * while there is no error (it asks to fix one). */
export function showLongRun(root: ShadowRoot, run: LongRunState | null, lang: Lang, hasErrors: boolean): void {
  const line = root.querySelector<HTMLElement>('[data-field="long-run"]');
  if (!line) return;
  line.hidden = run === null;
  if (!run) return;
  line.dataset.status = run.status;
  line.dataset.mode = run.mode ?? '';
  line.dataset.workers = String(run.workers ?? '');
  const sizes = `L_Q = ${run.L_Q}, L_K = ${run.L_K}`;
  const text = run.status === 'running'  // a split run's progress: the fraction of its rows done (worker/split.ts)
    ? `${t(lang, run.mode === 'worker' ? 'longRunWorker' : run.mode === 'main' ? 'longRunMain' : 'longRunStarting')}: ${sizes} …${run.fraction != null ? ` ${Math.floor(run.fraction * 100)}%` : ''}`
    : run.status === 'done' ? `${t(lang, run.mode === 'main' ? 'longRunDoneMain' : 'longRunDone')}: ${sizes}, ${((run.ms ?? 0) / 1000).toFixed(2)} s`
      : run.status === 'cancelled' ? t(lang, 'longRunCancelled') : `${t(lang, 'longRunFailed')}: ${run.message ?? ''}`;
  line.querySelector('.long-run-text')!.textContent = text;
  (line.querySelector('button') as HTMLButtonElement).hidden = run.status !== 'running';
  const note = root.querySelector<HTMLElement>('.stale-note');
  if (note && !hasErrors) note.hidden = true;
}
