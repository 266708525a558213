// d2l's table comparing CNN, RNN and self-attention (seed 003, lines 359-363) at the learner's n,
// d and k: the three rows with their values, the cost curves over n (log axes), and beside them
// the q·k products the product's own attention algorithms computed at that n (their traces'
// cost.dot_products, run in the worker). DOM only.
import { h } from '../dom';
import { fmt } from '../format';
import { COMPLEXITY_DEFAULTS, complexityRows, costAt, type ComplexityParams, type Measured } from '../state/chapter';
import type { Lang } from '../i18n';
import { d, df } from '../i18n-d2l';
import { lineChart } from './chart';

export interface ComplexityViewOptions {
  params: ComplexityParams;
  measured: Measured[] | null;
  status: 'idle' | 'running' | 'done' | 'cancelled' | 'failed';
  message: string | null;
  lang: Lang;
  onParam: (key: keyof ComplexityParams, value: number) => void;
  onCancel: () => void;
}

const LOG_N = { min: 3, max: 12 }; // n = 8 .. 4096
const ARCHS = ['cnn', 'rnn', 'self'] as const;

function slider(key: keyof ComplexityParams, label: string, value: number, min: number, max: number, o: ComplexityViewOptions,
  log2 = false): HTMLElement {
  const input = h('input', { type: 'range', min: String(min), max: String(max), step: '1',
    value: String(log2 ? Math.round(Math.log2(value)) : value), dataset: { key: `complexity.${key}` },
    attrs: { 'aria-label': label } });
  const out = h('output', { class: 'range-value', text: String(value) });
  input.addEventListener('change', () => o.onParam(key, log2 ? 2 ** Number(input.value) : Number(input.value)));
  input.addEventListener('input', () => { out.textContent = String(log2 ? 2 ** Number(input.value) : Number(input.value)); });
  return h('label', { class: 'field inline' }, `${label} `, input, out);
}

export function complexityView(o: ComplexityViewOptions): HTMLElement {
  const { params: p, lang } = o;
  const rows = complexityRows(p);
  const table = h('table', { class: 'complexity-table', dataset: { field: 'complexity-table' } },
    h('thead', null, h('tr', null, h('td'), ...ARCHS.map((a) => h('th', { text: d(lang, `arch_${a}`) })))),
    h('tbody', null,
      ...([['cost', 'rowCost'], ['sequential', 'rowSequential'], ['path', 'rowPath']] as const).map(([kind, key]) =>
        h('tr', { dataset: { row: kind } }, h('th', { text: d(lang, key) }),
          ...rows.map((r) => {
            const value = r[`${kind}Value` as const];
            return h('td', { dataset: { arch: r.arch, value: String(value) } },
              h('span', { class: 'mono', text: r[kind] }), h('br'), h('strong', { class: 'mono', text: `= ${fmt(value, 2)}` }));
          })))));

  // the cost curves over n, with the measured q·k multiply-adds at the learner's n
  const ns: number[] = [];
  for (let e = LOG_N.min; e <= LOG_N.max + 1; e++) ns.push(2 ** e);
  const series = ARCHS.map((a, i) => ({ name: d(lang, `arch_${a}`), xs: ns, ys: ns.map((n) => costAt(a, n, p.d, p.k)), cls: `s${i}` }));
  const markers = (o.measured ?? []).filter((m) => m.dotProducts !== null && m.dotProducts > 0)
    .map((m) => ({ name: `${m.name} (dot_products × d)`, x: p.n, y: m.dotProducts! * p.d, cls: m.name === 'full' ? 'm-full' : 'm-other', field: `measured.${m.name}` }));
  const chart = lineChart({ series, markers, logX: true, logY: true, xTitle: 'n', yTitle: d(lang, 'costAxis'),
    field: 'complexity-chart', width: 460, height: 260,
    ariaLabel: df(lang, 'chartLabel', { d: p.d, k: p.k, n: p.n }) });

  const measured = h('div', { class: 'measured', dataset: { field: 'complexity-measured', status: o.status } },
    h('h4', { text: df(lang, 'measuredTitle', { n: p.n, d: p.d }) }));
  if (o.status === 'running') {
    measured.append(h('p', { class: 'status', attrs: { role: 'status' } }, d(lang, 'measuring'), ' ',
      h('button', { type: 'button', dataset: { key: 'complexity.cancel' }, text: d(lang, 'cancel'), on: { click: o.onCancel } })));
  } else if (o.status === 'failed' || o.status === 'cancelled') {
    measured.append(h('p', { class: 'status', text: o.status === 'cancelled' ? d(lang, 'measureCancelled') : `${d(lang, 'trainFailed')}: ${o.message ?? ''}` }));
  }
  if (o.measured) {
    const full = o.measured.find((m) => m.name === 'full')?.dotProducts ?? null;
    measured.append(h('table', { class: 'measured-table' },
      h('thead', null, h('tr', null, h('th', { text: d(lang, 'algorithm') }), h('th', { text: 'cost.dot_products' }),
        h('th', { text: d(lang, 'ofFull') }), h('th', { text: '× d' }))),
      h('tbody', null, ...o.measured.map((m) => h('tr', { dataset: { algorithm: m.name, dotProducts: String(m.dotProducts ?? '') } },
        h('td', { class: 'mono', text: m.name === 'local' ? `full + local (w = ${Math.floor(p.k / 2)})` : m.name }),
        h('td', { class: 'mono num', text: m.dotProducts === null ? `— ${m.error ?? ''}` : String(m.dotProducts) }),
        h('td', { class: 'num', text: m.dotProducts !== null && full ? `${fmt((100 * m.dotProducts) / full, 1)}%` : '—' }),
        h('td', { class: 'mono num', text: m.dotProducts === null ? '—' : fmt(m.dotProducts * p.d, 2) }))))));
  }
  return h('section', { class: 'chapter complexity', dataset: { field: 'complexity' } },
    h('h3', { text: d(lang, 'complexityTitle') }), h('p', { class: 'intro', text: d(lang, 'complexityIntro') }),
    h('div', { class: 'controls-row' },
      slider('n', 'n', p.n, LOG_N.min, LOG_N.max, o, true),
      slider('d', 'd', p.d, 0, 9, o, true),
      slider('k', 'k', p.k, 1, 15, o)),
    table, h('p', { class: 'note', text: d(lang, 'complexityNote') }),
    h('div', { class: 'side-by-side' }, h('figure', { class: 'fig' }, chart, h('figcaption', { class: 'fig-caption', text: d(lang, 'chartCaption') })), measured));
}

export { COMPLEXITY_DEFAULTS };
