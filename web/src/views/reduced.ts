// The note's shortened keys: Linformer projects the L_K keys and values to k (softmax(Q (E K)ᵀ) F V,
// an n × k matrix), pooling averages or maxes them over windows (the note's 下采样), and Reformer's
// LSH attention keeps, per hash round, only the keys in a query's bucket. Each beside exact
// attention on the same inputs, with its error and cost (approx.ts). Every number is the trace's.
// DOM only.
import { schemeTableau10 } from 'd3-scale-chromatic';
import { h, scrollBox } from '../dom';
import { at, exact, range } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { t, type Lang } from '../i18n';
import { approxPanel } from './approx';
import { heatmap } from './heatmap';
import { blhMap, weightsBeside } from './linear';

export interface ReducedViewOptions {
  trace: Trace;
  exact: Outcome | null;
  b: number;
  h: number;
  lang: Lang;
  /** pooling: the scenario's pool, kernel and stride, for the labels. */
  pool?: unknown;
  kernel?: unknown;
  stride?: unknown;
}

const labels = (p: string, n: number) => range(n).map((i) => `${p}${i}`);

function matrixMap(trace: Trace, field: string, title: string, caption: string, rows: string, cols: string): HTMLElement | null {
  const m = trace[field];
  if (!Array.isArray(m) || !Array.isArray(m[0])) return null;
  const values = m as unknown[][];
  return heatmap({ title, caption, field, values, color: 'diverging', rowLabels: labels(rows, values.length),
    colLabels: labels(cols, values[0].length), indexOf: (i, j) => `${i},${j}` });
}

function section(field: string, title: string, intro: string): HTMLElement {
  return h('section', { class: 'algo-view', dataset: { field } }, h('h3', { text: title }), h('p', { class: 'intro', text: intro }));
}

const maps = (...figs: (HTMLElement | null)[]) => h('div', { class: 'maps' }, ...figs);

export function linformerView(o: ReducedViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const k = trace.shapes.E_proj?.[0] ?? trace.shapes.weights?.[3];
  const root = section('linformer-view', t(lang, 'linformerTitle'), t(lang, 'linformerIntro'));
  root.append(h('p', { class: 'formula mono', dataset: { field: 'proj-len', value: String(k ?? '') } },
    `softmax(scale · Q (E_proj K)ᵀ) (F_proj V) · k = ${k ?? '?'}, L_K = ${trace.shapes.E_proj?.[1] ?? '?'}`));
  root.append(maps(
    matrixMap(trace, 'E_proj', t(lang, 'eProj'), t(lang, 'projCaption'), 'p', 'k'),
    matrixMap(trace, 'F_proj', t(lang, 'fProj'), t(lang, 'projCaption'), 'p', 'k')));
  root.append(maps(
    blhMap(trace, 'projected_k', t(lang, 'projectedK'), t(lang, 'projectedCaption'), b, hh, 'p', 'e'),
    blhMap(trace, 'projected_v', t(lang, 'projectedV'), t(lang, 'projectedCaption'), b, hh, 'p', 'd')));
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: `${t(lang, 'linformerWeights')} (L_Q × ${k ?? 'k'})`,
    caption: t(lang, 'linformerWeightsCaption'), colLabels: labels('p', k ?? 0) }));
  root.append(approxPanel({ trace, lang, b, h: hh, name: `linformer (k = ${k ?? '?'})` }));
  return root;
}

export function poolingView(o: ReducedViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const Lp = trace.shapes.pooled_k?.[1] ?? 0;
  const root = section('pooling-view', t(lang, 'poolingTitle'), t(lang, 'poolingIntro'));
  // which keys each pooled row stands for: the scenario's kernel and stride (stride defaults to the kernel)
  const kernel = Number(o.kernel ?? 1), stride = Number(o.stride ?? kernel);
  const windows = range(Lp).map((p) => `p${p} (k${p * stride}${kernel > 1 ? `–${p * stride + kernel - 1}` : ''})`);
  const pooled = (field: string, title: string, cols: string) => {
    return blhMap(trace, field, `${title} (L' = ${Lp})`, t(lang, 'pooledCaption'), b, hh, 'p', cols, windows);
  };
  root.append(h('p', { class: 'formula mono', dataset: { field: 'pool-formula' } },
    `${o.pool ?? 'avg'}_pool1d(kernel = ${kernel}, stride = ${stride}): L_K = ${trace.shapes.k?.[1] ?? '?'} → L' = ⌊(L_K − kernel) / stride⌋ + 1 = ${Lp}`));
  root.append(maps(pooled('pooled_k', t(lang, 'pooledK'), 'e'), pooled('pooled_v', t(lang, 'pooledV'), 'd')));
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: `${t(lang, 'poolingWeights')} (L_Q × ${Lp})`,
    caption: t(lang, 'poolingWeightsCaption'), colLabels: windows.map((w) => w.split(' ')[0]) }));
  root.append(approxPanel({ trace, lang, b, h: hh, name: 'pooling' }));
  return root;
}

/** buckets (n_hashes, B, H, L): one row per round, each position coloured by its bucket. */
function bucketTable(trace: Trace, b: number, hh: number, lang: Lang): HTMLElement | null {
  const rounds = trace.buckets;
  if (!Array.isArray(rounds)) return null;
  const table = h('table', { class: 'grid buckets', dataset: { field: 'buckets' } },
    h('thead', null, h('tr', null, h('th', { class: 'corner', text: t(lang, 'lshRound') }),
      ...labels('q', (at(rounds, [0, b, hh]) as unknown[] | undefined)?.length ?? 0).map((x) => h('th', { attrs: { scope: 'col' }, text: x })))));
  const body = h('tbody');
  rounds.forEach((_, r) => {
    const row = (at(rounds, [r, b, hh]) as unknown[] | undefined) ?? [];
    body.append(h('tr', null, h('th', { attrs: { scope: 'row' }, text: `${t(lang, 'lshRound')} ${r}` }), ...row.map((v, i) => {
      const td = h('td', { dataset: { index: `${r},${b},${hh},${i}`, value: exact(v) }, title: `q${i}: ${exact(v)}`, text: String(v) });
      if (typeof v === 'number') {
        td.style.backgroundColor = schemeTableau10[v % 10];
        td.style.color = '#fff';
      }
      return td;
    })));
  });
  table.append(body);
  return h('figure', { class: 'heatmap' }, h('figcaption', null, h('span', { class: 'fig-title', text: t(lang, 'lshBuckets') }),
    h('span', { class: 'fig-caption', text: t(lang, 'lshBucketsCaption') })), scrollBox(table));
}

export function lshView(o: ReducedViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const root = section('lsh-view', t(lang, 'lshTitle'), t(lang, 'lshIntro'));
  const buckets = bucketTable(trace, b, hh, lang);
  if (buckets) root.append(buckets);
  root.append(weightsBeside({ trace, exact: o.exact, b, h: hh, lang, title: t(lang, 'lshWeights'), caption: t(lang, 'lshWeightsCaption') }));
  const rw = trace.round_weights;
  if (Array.isArray(rw) && trace.shapes.round_weights?.length === 4) {
    const values = rw.map((_, r) => (at(rw, [r, b, hh]) as unknown[] | undefined) ?? []);
    root.append(heatmap({ title: t(lang, 'lshRoundWeights'), caption: t(lang, 'lshRoundWeightsCaption'), field: 'round_weights',
      values, color: 'weights', rowLabels: labels('r', values.length), colLabels: labels('q', values[0]?.length ?? 0),
      indexOf: (r, i) => `${r},${b},${hh},${i}` }));
  }
  root.append(approxPanel({ trace, lang, b, h: hh, name: 'lsh' }));
  return root;
}
