// "Approximation beside exact": for a trace with exact_context and max_abs_error (SPEC §3), the
// algorithm's context beside exact softmax attention's on the same inputs (one colour scale), the
// max abs error, and the cost bar: cost.dot_products against cost.dense_dot_products. Every number
// is the trace's; the percentage is their ratio. DOM only.
import { append, h } from '../dom';
import { at, exact, fmt } from '../format';
import type { Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import { contextMap } from './results';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  approxTitle: { en: 'Beside exact attention on the same inputs', zh: '与相同输入上的精确 attention 并排' },
  maxAbsError: { en: 'max |context − exact_context|', zh: '最大误差 max |context − exact_context|' },
  maxAbsErrorHelp: { en: 'the largest error of any context entry', zh: '所有上下文元素中的最大绝对误差' },
  products: { en: 'q·k products', zh: '次 q·k 乘积' },
  costOfThis: { en: 'cost', zh: '计算量' },
  costAboveDense: { en: 'More products than dense attention at this size: the cost grows with L, not L², so the saving comes when L is much larger than the feature width.', zh: '在这个尺寸下乘积次数比稠密 attention 还多：它的计算量随 L 而不是 L² 增长，只有当 L 远大于特征维度时才会节省。' },
  contextOf: { en: 'context of', zh: '上下文：' },
  exactContext: { en: 'exact_context (full softmax attention)', zh: 'exact_context（完整 softmax attention）' },
  exactContextCaption: { en: 'what the approximation aims at', zh: '近似所要逼近的结果' },
} satisfies Record<string, Text>;
/** A string of this view's table, else the page's. */
const t = viewText(T);

type Cost = NonNullable<Trace['cost']>;

/** a / b as a percentage with at most one decimal ("37.5%", "100%"). */
export function percent(a: number, b: number): string {
  if (!(b > 0)) return '—';
  return `${Number(((100 * a) / b).toFixed(1))}%`;
}

/** "24 / 64 q·k products (37.5%)" with a bar; `field` names it (data-field) for tests and styles. */
export function costBar(cost: Cost | undefined, lang: Lang, field = 'cost-bar', label?: string): HTMLElement {
  const box = h('div', { class: 'cost-bar', dataset: { field } });
  if (!cost) return box;
  const { dot_products: n, dense_dot_products: dense } = cost;
  box.dataset.dotProducts = String(n);
  box.dataset.dense = String(dense);
  const fill = h('span', { class: 'bar-fill' });
  fill.style.width = `${dense > 0 ? Math.min(100, (100 * n) / dense) : 100}%`;
  append(box, [
    label ? h('span', { class: 'cost-bar-label', text: label }) : null,
    h('span', { class: 'bar', attrs: { role: 'img', 'aria-label': `${n} / ${dense} (${percent(n, dense)})` } }, fill),
    h('span', { class: 'cost-bar-text' },
      h('strong', { class: 'n', text: String(n) }), ` / ${dense} ${t(lang, 'products')} `,
      h('span', { class: 'pct', text: `(${percent(n, dense)})` }))]);
  return box;
}

export interface ApproxPanelOptions {
  trace: Trace;
  lang: Lang;
  b: number;
  h: number;
  /** The algorithm's name for the left map's title (default trace.algorithm). */
  name?: string;
}

/** The largest |x| of the (b, ·, h, ·) slice of a (B, L, H, D) tensor. */
function sliceExtent(t4: unknown, b: number, hh: number): number {
  const rows = (at(t4, [b]) as unknown[][] | undefined) ?? [];
  let m = 0;
  for (const r of rows) {
    const row = r[hh];
    if (Array.isArray(row)) for (const x of row) if (typeof x === 'number' && Number.isFinite(x)) m = Math.max(m, Math.abs(x));
  }
  return m;
}

export function approxPanel(o: ApproxPanelOptions): HTMLElement {
  const { trace, lang, b } = o;
  const hh = o.h;
  const err = trace.max_abs_error;
  const root = h('section', { class: 'approx', dataset: { field: 'approx' } },
    h('h3', { text: t(lang, 'approxTitle') }),
    h('p', { class: 'approx-error' }, `${t(lang, 'maxAbsError')} = `,
      h('strong', { dataset: { field: 'max_abs_error', value: exact(err) }, title: exact(err), text: fmt(err, 4) }),
      h('span', { class: 'muted', text: ` · ${t(lang, 'maxAbsErrorHelp')}` })),
    costBar(trace.cost, lang, 'approx-cost', t(lang, 'costOfThis')));
  const c = trace.cost;
  if (c && c.dot_products > c.dense_dot_products) root.append(h('p', { class: 'help', dataset: { field: 'cost-note' }, text: t(lang, 'costAboveDense') }));
  if (trace.exact_context !== undefined && trace.context !== undefined) {
    const extent = Math.max(1e-12, sliceExtent(trace.context, b, hh), sliceExtent(trace.exact_context, b, hh));
    root.append(h('div', { class: 'maps' },
      contextMap(trace, 'context', `${t(lang, 'contextOf')} ${o.name ?? trace.algorithm}`, t(lang, 'contextCaption'), b, hh, lang,
        { field: 'approx.context', extent }),
      h('span', { class: 'arrow', attrs: { 'aria-hidden': 'true' }, text: '≈' }),
      contextMap(trace, 'exact_context', t(lang, 'exactContext'), t(lang, 'exactContextCaption'), b, hh, lang, { extent })));
  }
  return root;
}
