// FlashAttention's online softmax, one key block at a time (issue 8, SPEC §3 `flash`): for the
// selected (b, h), step t shows each query's running max before and after key block t, the factor
// exp(m_old − m_new) that rescales the old running sum and the old unnormalised output, the running
// sum, and the output so far (partial_context[t] / running_sum[t]) beside full attention's context,
// which it reaches exactly at the last block. Every number is the trace's, except the rescale factor
// and the division o_t = partial / ℓ, computed here from the trace's numbers and labelled so.
// DOM only.
import { h, scrollBox } from '../dom';
import { at, exact, fmt, range } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { tx, type Lang, type Text } from '../i18n';
import { heatmap } from './heatmap';
import { axes } from './axes';

export interface FlashViewOptions {
  trace: Trace;
  b: number;
  h: number;
  lang: Lang;
  /** The key block shown (null: the last). */
  step: number | null;
  /** Full attention on the same scenario (its context), when it was run. */
  full: Outcome | null;
  onStep: (step: number) => void;
}

const L: Record<string, Text> = {
  title: { en: 'FlashAttention: the online softmax, one key block at a time', zh: 'FlashAttention：在线 softmax，一次一个键块' },
  intro: {
    en: 'The keys arrive in blocks. For each query the running max m and the running sum ℓ = Σ exp(s − m) are kept, with the unnormalised output Õ = Σ exp(s − m) v. When a block raises the max, everything summed so far is rescaled by exp(m_old − m_new). After the last block, Õ / ℓ is exactly full attention\'s context: no L × L matrix is ever stored.',
    zh: '键按块到来。对每个查询保存运行最大值 m、运行和 ℓ = Σ exp(s − m) 以及未归一化输出 Õ = Σ exp(s − m) v。当某块抬高了最大值时，之前累加的一切都乘以 exp(m_old − m_new) 重新缩放。最后一块之后，Õ / ℓ 恰好等于完整 attention 的 context：从不存储 L × L 矩阵。',
  },
  step: { en: 'key block', zh: '键块' },
  prev: { en: '◀ previous block', zh: '◀ 上一块' },
  next: { en: 'next block ▶', zh: '下一块 ▶' },
  keys: { en: 'keys', zh: '键' },
  query: { en: 'query', zh: '查询' },
  mOld: { en: 'm before', zh: '之前的 m' },
  mNew: { en: 'm after (running_max)', zh: '之后的 m（running_max）' },
  factor: { en: 'rescale exp(m_old − m_new)', zh: '缩放因子 exp(m_old − m_new)' },
  lOld: { en: 'ℓ before', zh: '之前的 ℓ' },
  lNew: { en: 'ℓ after (running_sum)', zh: '之后的 ℓ（running_sum）' },
  rises: { en: 'max rose', zh: '最大值上升' },
  partial: { en: 'partial_context Õ (unnormalised), after this block', zh: 'partial_context Õ（未归一化），本块之后' },
  soFar: { en: 'output so far Õ / ℓ', zh: '目前的输出 Õ / ℓ' },
  soFarCaption: { en: 'computed here from the trace\'s partial_context and running_sum', zh: '由 trace 的 partial_context 与 running_sum 在页面中算出' },
  fullContext: { en: 'full attention\'s context', zh: '完整 attention 的 context' },
  fullCaption: { en: 'algorithm full on the same scenario', zh: '同一场景下的 full 算法' },
  gap: { en: 'max |Õ/ℓ − full context| after this block', zh: '本块之后 max |Õ/ℓ − 完整 context|' },
  exactNow: { en: 'equal to full attention\'s context (to 1e-12): the last block is in', zh: '与完整 attention 的 context 相等（误差 1e-12 内）：最后一块已加入' },
  notYet: { en: 'not there yet: later blocks still change the max, the sum and the output', zh: '尚未到达：后面的块仍会改变最大值、和与输出' },
  none: { en: 'no key allowed yet (m = −∞)', zh: '尚无允许的键（m = −∞）' },
};

const num = (x: unknown): number => (typeof x === 'number' ? x : NaN);

/** A small table cell carrying its exact value (data-value) for tests and tooltips. */
function valueCell(field: string, index: string, v: unknown, cls = ''): HTMLElement {
  const td = h('td', { class: cls || undefined, title: exact(v), text: fmt(v, 4) });
  td.dataset.field = field;
  td.dataset.index = index;
  td.dataset.value = exact(v);
  return td;
}

export function flashView(o: FlashViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const box = h('section', { class: 'flash-view', dataset: { field: 'flash' } },
    h('h3', { text: tx(lang, L.title) }), h('p', { class: 'intro', text: tx(lang, L.intro) }));
  const maxes = at(trace.running_max, [b, hh]) as unknown[][] | undefined;
  const sums = at(trace.running_sum, [b, hh]) as unknown[][] | undefined;
  const partial = at(trace.partial_context, [b, hh]) as unknown[][][] | undefined;
  if (!maxes || !sums || !partial) {
    box.append(h('p', { class: 'note', text: 'running_max, running_sum or partial_context missing from the trace' }));
    return box;
  }
  const Lq = maxes.length;
  const T = partial.length;
  const D = (partial[0]?.[0] as unknown[] | undefined)?.length ?? 0;
  const t = Math.max(0, Math.min(T - 1, o.step ?? T - 1));
  // the block size the core used (the trace's block_k: the scenario's, else the core's default)
  const Lk = trace.shapes?.k?.[1] ?? 0;
  const blockK = typeof trace.block_k === 'number' ? trace.block_k : 0;
  const k0 = t * blockK, k1 = Math.min(Lk, (t + 1) * blockK) - 1;

  // step controls
  const slider = h('input', { type: 'range', min: '0', max: String(Math.max(0, T - 1)), step: '1', value: String(t),
    dataset: { key: 'flash.step' }, attrs: { 'aria-label': tx(lang, L.step) } });
  slider.addEventListener('input', () => o.onStep(Number(slider.value)));
  const prev = h('button', { type: 'button', text: tx(lang, L.prev), disabled: t === 0, dataset: { key: 'flash.prev' } });
  prev.addEventListener('click', () => o.onStep(t - 1));
  const next = h('button', { type: 'button', text: tx(lang, L.next), disabled: t >= T - 1, dataset: { key: 'flash.next' } });
  next.addEventListener('click', () => o.onStep(t + 1));
  box.append(h('div', { class: 'flash-steps row' }, prev, slider, next,
    h('output', { dataset: { field: 'flash.step' }, text: `${tx(lang, L.step)} ${t + 1} / ${T}` +
      (blockK ? ` · ${tx(lang, L.keys)} k${k0}–k${k1}` : '') })));

  // the running max and sum, per query
  const table = h('table', { class: 'grid flash-table' });
  table.append(h('thead', null, h('tr', null, ...[L.query, L.mOld, L.mNew, L.factor, L.lOld, L.lNew]
    .map((x) => h('th', { attrs: { scope: 'col' }, text: tx(lang, x) })))));
  const body = h('tbody');
  for (const i of range(Lq)) {
    const mNew = num(maxes[i][t]);
    const mOld = t > 0 ? num(maxes[i][t - 1]) : -Infinity;
    const lNew = sums[i][t];
    const lOld = t > 0 ? sums[i][t - 1] : 0;
    // exp(m_old − m_new): 0 at the first block that has a key (nothing to rescale), 1 when the max stays
    const factor = mOld === -Infinity ? (mNew === -Infinity ? 1 : 0) : Math.exp(mOld - mNew);
    const rose = mNew > mOld;
    const tr = h('tr', { class: rose ? 'rose' : undefined },
      h('th', { attrs: { scope: 'row' }, text: `q${i}` }),
      valueCell('flash.m_old', `${i}`, t > 0 ? maxes[i][t - 1] : -Infinity),
      valueCell('running_max', `${b},${hh},${i},${t}`, maxes[i][t], rose ? 'rose' : ''),
      valueCell('flash.factor', `${i}`, factor, factor < 1 ? 'rescaled' : ''),
      valueCell('flash.l_old', `${i}`, lOld),
      valueCell('running_sum', `${b},${hh},${i},${t}`, lNew));
    if (rose && t > 0 && mOld !== -Infinity) tr.lastChild!.appendChild(h('small', { text: ` ${tx(lang, L.rises)}` }));
    if (mNew === -Infinity) tr.append(h('td', { class: 'note', text: tx(lang, L.none) }));
    body.append(tr);
  }
  table.append(body);
  box.append(scrollBox(table));

  // the unnormalised output, the output so far, and full attention's context
  const part = partial[t] as unknown[][];
  const soFar = part.map((row, i) => (row as unknown[]).map((v) => num(v) / num(sums[i][t])));
  const fullTrace = o.full?.ok ? o.full.trace : null;
  const fullRows = range(Lq).map((i) => (at(fullTrace?.context ?? trace.context, [b, i, hh]) as unknown[] | undefined) ?? []);
  let extent = 1e-12;
  for (const r of [...soFar, ...fullRows]) for (const v of r) if (Number.isFinite(num(v))) extent = Math.max(extent, Math.abs(num(v)));
  const labels = (p: string, n: number) => range(n).map((x) => `${p}${x}`);
  const maps = h('div', { class: 'maps' });
  const names = axes(lang, 'axisQuery', 'axisFeat');
  maps.append(heatmap({ title: tx(lang, L.partial), field: 'partial_context', values: part, color: 'diverging', lang, axes: names,
    rowLabels: labels('q', Lq), colLabels: labels('d', D), indexOf: (i, j) => `${b},${hh},${t},${i},${j}` }));
  maps.append(heatmap({ title: tx(lang, L.soFar), caption: tx(lang, L.soFarCaption), field: 'flash.output', values: soFar,
    color: 'diverging', extent, lang, axes: names, rowLabels: labels('q', Lq), colLabels: labels('d', D), indexOf: (i, j) => `${i},${j}` }));
  const fullFig = heatmap({ title: tx(lang, L.fullContext), caption: fullTrace ? tx(lang, L.fullCaption) : 'context', field: 'flash.full',
    values: fullRows, color: 'diverging', extent, lang, axes: names, rowLabels: labels('q', Lq), colLabels: labels('d', D),
    indexOf: (i, j) => `${b},${i},${hh},${j}` });
  maps.append(fullFig);
  box.append(maps);

  let gap = 0;
  soFar.forEach((r, i) => r.forEach((v, j) => {
    const d = Math.abs(v - num(fullRows[i][j]));
    if (Number.isFinite(d)) gap = Math.max(gap, d);
  }));
  box.append(h('p', { class: t === T - 1 && gap <= 1e-12 ? 'flash-gap exact' : 'flash-gap' },
    `${tx(lang, L.gap)}: `, h('strong', { dataset: { field: 'flash.gap', value: String(gap) }, text: gap === 0 ? '0' : gap.toExponential(2) }),
    ' — ', t === T - 1 && gap <= 1e-12 ? tx(lang, L.exactNow) : tx(lang, L.notYet)));
  return box;
}
