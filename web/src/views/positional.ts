// Positional encoding, explained (seed 003, lines 364-399): the line plot of chosen columns of
// the trace's P (d2l's 6-9 by default), the binary-counting analogy, and the offset δ as a linear
// map: each frequency pair of P_i rotated by δω_j, compared with P_{i+δ}. The rotation is display
// arithmetic on the trace's P (state/chapter.ts). DOM only.
import { h, scrollBox } from '../dom';
import { exact, fmt, range } from '../format';
import type { Scenario, Trace } from '../engine/compute';
import { binary, frequencies, rotateRow, rotation, rotationError } from '../state/chapter';
import type { Lang } from '../i18n';
import { d, df } from '../i18n-d2l';
import { heatmap } from './heatmap';
import { axes } from './axes';
import { lineChart } from './chart';

export interface PositionalParams { columns: number[]; delta: number; row: number }
export const POSITIONAL_DEFAULTS: PositionalParams = { columns: [6, 7, 8, 9], delta: 3, row: 10 };

export interface PositionalViewOptions {
  trace: Trace;
  scenario: Scenario;
  params: PositionalParams;
  lang: Lang;
  onParams: (p: Partial<PositionalParams>) => void;
}

export function positionalView(o: PositionalViewOptions): HTMLElement {
  const { trace, scenario: s, lang } = o;
  const P = trace.P as number[][];
  const n = P.length, dim = P[0]?.length ?? 0;
  const base = Number(s.base ?? 10000);
  const omegas = frequencies(dim, base);
  const root = h('section', { class: 'chapter positional', dataset: { field: 'positional' } },
    h('h3', { text: d(lang, 'peTitle') }), h('p', { class: 'intro', text: d(lang, 'peIntro') }));

  // 1. the columns plot
  const columns = o.params.columns.filter((c) => c >= 0 && c < dim);
  const colInput = h('input', { type: 'text', value: columns.join(' '), dataset: { key: 'pe.columns' }, attrs: { 'aria-label': d(lang, 'peColumns') } });
  colInput.addEventListener('change', () => {
    const list = colInput.value.split(/[\s,]+/).filter(Boolean).map(Number).filter((c) => Number.isInteger(c) && c >= 0 && c < dim);
    o.onParams({ columns: list.slice(0, 8) });
  });
  const xs = range(n);
  const chart = lineChart({
    series: columns.map((c, i) => ({ name: `Col ${c}`, xs, ys: P.map((r) => r[c]), cls: `s${i % 8}`, dashed: c % 2 === 1, field: `pe-col-${c}` })),
    xTitle: d(lang, 'peRow'), yTitle: 'P', field: 'pe-columns', width: 560, height: 240,
    ariaLabel: df(lang, 'peColumnsLabel', { cols: columns.join(', '), n }),
  });
  root.append(h('figure', { class: 'fig' }, h('figcaption', { class: 'fig-title' }, d(lang, 'peColumnsTitle'), ' ',
    h('label', { class: 'inline' }, d(lang, 'peColumns'), ' ', colInput)), chart,
  h('small', { class: 'fig-caption', text: d(lang, 'peColumnsCaption') })));

  // 2. the binary analogy: positions 0-7 in binary beside the high-frequency columns
  const rows8 = Math.min(8, n), cols6 = Math.min(6, dim);
  const bits = h('table', { class: 'binary', dataset: { field: 'pe-binary' } },
    h('thead', null, h('tr', null, h('th', { text: 'i' }), h('th', { text: d(lang, 'peBinary') }))),
    h('tbody', null, ...range(rows8).map((i) => h('tr', null, h('td', { class: 'mono', text: String(i) }),
      h('td', { class: 'mono bits', dataset: { value: binary(i, 3) } }, ...[...binary(i, 3)].map((b) => h('span', { class: `bit b${b}`, text: b })))))));
  const signs = heatmap({ lang, title: d(lang, 'peHighFreq'), caption: d(lang, 'peHighFreqCaption'), field: 'pe-high',
    values: P.slice(0, rows8).map((r) => r.slice(0, cols6)), color: 'diverging', extent: 1, axes: axes(lang, 'axisPos', 'axisDim'),
    rowLabels: range(rows8).map(String), colLabels: range(cols6).map((c) => `Col ${c}`), indexOf: (i, j) => `${i},${j}`,
    cellText: (_i, _j, v) => `${(v as number) >= 0 ? '+' : '−'}${fmt(Math.abs(v as number), 2)}` });
  const periods = range(Math.min(3, omegas.length)).map((j) => df(lang, 'pePeriod', { a: 2 * j, b: 2 * j + 1, p: fmt(2 * Math.PI / omegas[j], 1) }));
  root.append(h('h4', { text: d(lang, 'peBinaryTitle') }), h('div', { class: 'side-by-side' }, bits, signs),
    h('p', { class: 'note', text: `${d(lang, 'peBinaryNote')} ${periods.join('; ')}.` }));

  // 3. the offset δ as a rotation of each pair
  const delta = Math.max(0, Math.min(o.params.delta, n - 1));
  const row = Math.max(0, Math.min(o.params.row, n - 1 - delta));
  const err = rotationError(P, delta, omegas);
  const num = (key: 'delta' | 'row', value: number, max: number) => {
    const input = h('input', { type: 'number', min: '0', max: String(max), step: '1', value: String(value), dataset: { key: `pe.${key}` },
      attrs: { 'aria-label': key === 'delta' ? 'δ' : 'i' } });
    input.addEventListener('change', () => {
      const v = Number(input.value);
      if (Number.isInteger(v) && v >= 0) o.onParams({ [key]: v });
    });
    return input;
  };
  const rotated = rotateRow(P[row] ?? [], delta, omegas);
  const target = P[row + delta] ?? [];
  const pairs = range(Math.min(omegas.length, 8));
  const pairTable = h('table', { class: 'pairs', dataset: { field: 'pe-pairs' } },
    h('thead', null, h('tr', null, ...['j', 'ω_j', 'R(δω_j)', `(p_{i,2j}, p_{i,2j+1})`, d(lang, 'peRotated'), `P_{i+δ}`, '|Δ|'].map((x) => h('th', { text: x })))),
    h('tbody', null, ...pairs.map((j) => {
      const [[a, b], [c, dd]] = rotation(delta, omegas[j]);
      const diff = Math.max(Math.abs(rotated[2 * j] - target[2 * j]), Math.abs(rotated[2 * j + 1] - target[2 * j + 1]));
      return h('tr', null, h('td', { text: String(j) }), h('td', { class: 'mono', text: fmt(omegas[j], 4) }),
        h('td', { class: 'mono', text: `[[${fmt(a, 3)}, ${fmt(b, 3)}], [${fmt(c, 3)}, ${fmt(dd, 3)}]]` }),
        h('td', { class: 'mono', text: `(${fmt(P[row][2 * j], 4)}, ${fmt(P[row][2 * j + 1], 4)})` }),
        h('td', { class: 'mono', text: `(${fmt(rotated[2 * j], 4)}, ${fmt(rotated[2 * j + 1], 4)})` }),
        h('td', { class: 'mono', text: `(${fmt(target[2 * j], 4)}, ${fmt(target[2 * j + 1], 4)})` }),
        h('td', { class: 'mono', dataset: { value: exact(diff) }, text: diff.toExponential(1) }));
    })));
  root.append(h('h4', { text: d(lang, 'peRelTitle') }), h('p', { class: 'intro', text: d(lang, 'peRelIntro') }),
    h('p', { class: 'mono formula', text: '[p_{i+δ,2j}, p_{i+δ,2j+1}] = [[cos δω_j, sin δω_j], [−sin δω_j, cos δω_j]] · [p_{i,2j}, p_{i,2j+1}],  ω_j = 1/base^{2j/d}' }),
    h('div', { class: 'controls-row' }, h('label', { class: 'inline' }, 'δ ', num('delta', delta, n - 1)),
      h('label', { class: 'inline' }, 'i ', num('row', row, Math.max(0, n - 1 - delta)))),
    scrollBox(pairTable),
    omegas.length > pairs.length ? h('small', { class: 'note', text: df(lang, 'peMorePairs', { k: pairs.length, all: omegas.length }) }) : '',
    h('p', { class: 'result', dataset: { field: 'pe-rotation-error', value: exact(err), delta: String(delta) } },
      df(lang, 'peMaxError', { delta, rows: Math.max(0, n - delta), d: dim }), ' ', h('strong', { class: 'mono', text: err.toExponential(2) })));
  return root;
}
