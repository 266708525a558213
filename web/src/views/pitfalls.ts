// The reference's pitfalls side by side: the scenario with its switches beside the same scenario
// with every switch at the reference's default, for one (b, h). DOM only.
import { h, scrollBox } from '../dom';
import { at, exact, fmt, range } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import type { PitfallKey } from '../state';
import { viewText, type Key, type Lang, type Text } from '../i18n';
import { samplesOf, updatedRows } from './prob';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  pitfallsHint: { en: 'Every switch is at the reference (Informer). Its known pitfalls (cumulative sum, ÷ L_K, one sample for all heads, .squeeze() at H = 1) are switches: change one to see it beside the reference.', zh: '所有开关都是参考实现（Informer）的取值。它的已知陷阱（累加和、÷ L_K、所有头共用一份抽样、H = 1 时的 .squeeze()）都是开关：切换一个，即可与参考实现并排对比。' },
  pitfallsShow: { en: 'Show the switches', zh: '显示开关' },
  pitfallsTitle: { en: 'Your switches beside the reference', zh: '你的开关与参考实现并排对比' },
  referenceSide: { en: 'reference (defaults)', zh: '参考实现（默认）' },
  yoursSide: { en: 'your switches', zh: '你的开关' },
  sparsityM: { en: 'M', zh: 'M' },
  contextRow: { en: 'context', zh: '上下文' },
  rowsDiffer: { en: 'rows differ', zh: '行不同' },
  noRowDiffers: { en: 'No row differs for this (b, h).', zh: '此 (b, h) 没有不同的行。' },
  referenceDrew: { en: 'The scenario\'s sample_index has one sample per head (H × L_Q × U_part); the reference shares one (L_Q × U_part), so that one is dropped for the reference, which draws its samples from the seed', zh: '场景的 sample_index 是每个头一份（H × L_Q × U_part）；参考实现共用一份（L_Q × U_part），因此参考实现不用它，改由随机种子抽样' },
  samplesSetAside: { en: 'The given sample_index (L_Q × U_part) is one sample for all heads: it does not fit samples per head, so it is set aside while this switch is on (it comes back when switched off) and both sides draw from the seed', zh: '给定的 sample_index（L_Q × U_part）是所有头共用的一份：不符合每个头单独抽样的形状，因此在此开关打开期间暂不使用（关闭后恢复），两边都由随机种子抽样' },
  pitfallLegend: { en: '★ a top row (exact attention); the other rows keep the initial context. Highlighted: the rows whose context differs.', zh: '★ 入选行（精确 attention）；其余行保留初始上下文。高亮：上下文不同的行。' },
  referenceFailed: { en: 'the reference could not run', zh: '参考实现无法运行' },
} satisfies Record<string, Text>;
/** A string of this view's table, else the page's. */
const t = viewText(T);

export interface PitfallViewOptions {
  /** The trace with the scenario's switches. */
  trace: Trace;
  /** The same scenario with the switches at the reference's defaults. */
  reference: Outcome;
  /** The switches away from the reference, with their values. */
  changed: { key: PitfallKey; value: unknown }[];
  b: number;
  h: number;
  lang: Lang;
  /** 'reference': a per-head sample_index was dropped for the reference; 'set-aside': a shared
   * one is set aside while samples are per head (both sides draw). */
  samples: 'reference' | 'set-aside' | null;
  seed: number;
}

/** Two rows are the same when every entry agrees to 1e-9 relative. */
const TOL = 1e-9;

/** When every switch is at the reference: a short hint that they exist. */
export function pitfallHint(lang: Lang, onShow: () => void): HTMLElement {
  const button = h('button', { type: 'button', class: 'link', dataset: { key: 'pitfalls.show' }, text: t(lang, 'pitfallsShow') });
  button.addEventListener('click', onShow);
  return h('p', { class: 'pitfall-hint', dataset: { field: 'pitfall-hint' } }, t(lang, 'pitfallsHint'), ' ', button);
}

interface Side {
  trace: Trace;
  M: number[];
  top: number[];
  upd: Set<number>;
  ctx: number[][];
}

function side(trace: Trace, b: number, hh: number, L_Q: number): Side {
  return {
    trace,
    M: (at(trace.sparsity, [b, hh]) as number[] | undefined) ?? [],
    top: (at(trace.top_index, [b, hh]) as number[] | undefined) ?? [],
    upd: updatedRows(trace, b, hh),
    ctx: range(L_Q).map((i) => (at(trace.context, [b, i, hh]) as number[] | undefined) ?? []),
  };
}

export function pitfallView(o: PitfallViewOptions): HTMLElement {
  const { lang, b } = o;
  const hh = o.h;
  const sec = h('section', { class: 'step pitfalls-compare', dataset: { field: 'pitfalls' } },
    h('h4', { text: t(lang, 'pitfallsTitle') }));
  const why = h('ul', { class: 'pitfall-why' });
  for (const { key, value } of o.changed) {
    why.append(h('li', { dataset: { pitfall: key } },
      h('code', { text: `${key} = ${String(value)}` }), ': ', t(lang, `pitfall_${key}` as Key)));
  }
  sec.append(why);
  if (o.samples) {
    sec.append(h('p', { class: 'note', dataset: { field: 'pitfall-samples' },
      text: `${t(lang, o.samples === 'reference' ? 'referenceDrew' : 'samplesSetAside')} (seed = ${o.seed}).` }));
  }
  if (!o.reference.ok) {
    sec.append(h('p', { class: 'error', text: `${t(lang, 'referenceFailed')}: ${o.reference.error}` }));
    return sec;
  }

  const L_Q = o.trace.shapes.context?.[1] ?? 0;
  const ref = side(o.reference.trace, b, hh, L_Q);
  const mine = side(o.trace, b, hh, L_Q);

  const th = (text: string, attrs: Record<string, string | number> = {}, cls?: string) =>
    h('th', { class: cls, attrs: { scope: 'col', ...attrs }, text });
  const table = h('table', { class: 'compare-table pitfall-table' },
    h('thead', null,
      h('tr', null, th(t(lang, 'query'), { rowspan: 2 }),
        th(t(lang, 'referenceSide'), { colspan: 2, scope: 'colgroup' }, 'pair side-ref group'),
        th(t(lang, 'yoursSide'), { colspan: 2, scope: 'colgroup' }, 'pair side-mine group'),
        th(t(lang, 'maxDiff'), { rowspan: 2 }, 'group'), th('', { rowspan: 2 })),
      h('tr', null, th(t(lang, 'sparsityM'), {}, 'side-ref group'), th(t(lang, 'contextRow'), {}, 'side-ref'),
        th(t(lang, 'sparsityM'), {}, 'side-mine group'), th(t(lang, 'contextRow'), {}, 'side-mine'))));

  const mCell = (s: Side, i: number, cls: string, differs: boolean) => {
    const rank = s.top.indexOf(i);
    return h('td', { class: `m group ${cls}${rank >= 0 ? ' top' : ''}${differs ? ' m-differs' : ''}`, dataset: { value: exact(s.M[i]) } },
      h('span', { class: 'mono', text: fmt(s.M[i]) }),
      rank >= 0 ? h('span', { class: 'badge', text: `${t(lang, 'top')} ${rank + 1}` }) : null);
  };
  const ctxCell = (s: Side, i: number, cls: string) => {
    const updated = s.upd.has(i);
    const cell = h('td', { class: `ctx mono ${cls} ${updated ? 'updated' : 'lazy'}`,
      attrs: { title: updated ? t(lang, 'updated') : t(lang, 'lazy') } }, updated ? '★ [' : '[');
    s.ctx[i].forEach((x, j) => {
      if (j) cell.append(', ');
      cell.append(h('span', { class: 'num', dataset: { index: `${b},${i},${hh},${j}`, value: exact(x) }, text: fmt(x) }));
    });
    cell.append(']');
    return cell;
  };

  const body = h('tbody');
  const differing: number[] = [];
  for (const i of range(L_Q)) {
    const p = mine.ctx[i], r = ref.ctx[i];
    const d = Math.max(0, ...p.map((x, j) => Math.abs(x - (r[j] ?? NaN))));
    const same = Number.isFinite(d) && d <= TOL * Math.max(1, ...r.map(Math.abs)) && p.length === r.length;
    if (!same) differing.push(i);
    const [mm, mr] = [mine.M[i], ref.M[i]];
    const mDiffers = typeof mm === 'number' && typeof mr === 'number' && !(Math.abs(mm - mr) <= TOL * Math.max(1, Math.abs(mr)));
    body.append(h('tr', { class: (same ? 'same' : 'differs') + (mine.upd.has(i) ? ' updated' : ' lazy'), dataset: { query: String(i) } },
      h('th', { attrs: { scope: 'row' }, text: `q${i}` }),
      mCell(ref, i, 'side-ref', mDiffers), ctxCell(ref, i, 'side-ref'),
      mCell(mine, i, 'side-mine', mDiffers), ctxCell(mine, i, 'side-mine'),
      h('td', { class: 'mono diff group', dataset: { value: exact(d) }, text: fmt(d) }),
      h('td', { class: 'verdict', text: same ? t(lang, 'same') : t(lang, 'differs') })));
  }
  table.append(body);
  sec.append(scrollBox(table));

  const list = (xs: number[]) => `[${xs.join(', ')}]`;
  const foot = h('p', { class: 'mono small pitfall-foot' },
    'top_index: ', h('span', { class: 'side-ref-text', text: `${t(lang, 'referenceSide')} ` }),
    h('span', { dataset: { field: 'top_index.reference' }, text: list(ref.top) }), '  ·  ',
    h('span', { class: 'side-mine-text', text: `${t(lang, 'yoursSide')} ` }),
    h('span', { dataset: { field: 'top_index.mine' }, text: list(mine.top) }));
  sec.append(foot);
  if (o.changed.some((c) => c.key === 'sample_per_head')) {
    const rows = (s: Side) => samplesOf(s.trace, hh).map((row, i) => `q${i}→[${row.join(',')}]`).join(' ');
    sec.append(h('p', { class: 'mono small pitfall-foot' }, `sample_index (h = ${hh}): `,
      h('span', { class: 'side-ref-text', text: `${t(lang, 'referenceSide')} ` }), rows(ref), '  ·  ',
      h('span', { class: 'side-mine-text', text: `${t(lang, 'yoursSide')} ` }), rows(mine)));
  }
  sec.append(h('p', { class: 'help', text: t(lang, 'pitfallLegend') }));
  sec.append(h('p', { class: 'pitfall-summary', dataset: { field: 'pitfall-summary' },
    text: differing.length ? `${differing.length} / ${L_Q} ${t(lang, 'rowsDiffer')}: ${differing.map((i) => 'q' + i).join(', ')}`
      : t(lang, 'noRowDiffers') }));
  return sec;
}
