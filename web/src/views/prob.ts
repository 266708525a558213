// ProbAttention, step by step, for one (b, h) slice of a prob trace, numbered as SPEC §2 numbers
// the steps (1 sizes, 2 sample_index, 3 q_k_sample, 4 sparsity M, 5 top_index, 6 scores_top and
// ProbMask, 7 initial_context, 8 context, 9 attn), then the comparison with full attention on the
// same q, k, v and mask. Every number is the trace's. DOM only.
import { h, scrollBox } from '../dom';
import { at, exact, fmt, range, sliceBH } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import { heatmap } from './heatmap';
import { contextMap } from './results';
import { axes } from './axes';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  samplesGiven: { en: 'sample_index is given by the scenario (the seed is not used for it)', zh: 'sample_index 由场景给定（不使用随机种子）' },
  samplesDrawn: { en: 'sample_index drawn from the seed', zh: 'sample_index 由随机种子抽取' },
  stepSizes: { en: 'Sizes: U_part keys sampled per query, u queries that get exact attention', zh: '尺寸：每个查询抽样 U_part 个键，u 个查询做精确 attention' },
  stepSamples: { en: 'sample_index: U_part keys for each query, drawn with replacement', zh: 'sample_index：为每个查询有放回地抽样 U_part 个键' },
  stepSamplesCaption: { en: 'highlighted: key j was sampled for query i (×n: n times)', zh: '高亮：查询 i 抽到了键 j（×n 表示 n 次）' },
  stepSampleScores: { en: 'Scores with the sampled keys only: q_k_sample = q_i · k_j (unscaled)', zh: '只和抽到的键算分数：q_k_sample = q_i · k_j（未缩放）' },
  stepSampleScoresCaption: { en: 'column s is the s-th sample; the small label names the key', zh: '第 s 列是第 s 个样本；小字是键的下标' },
  stepSparsity: { en: 'Sparsity M = max − sum / L_K; top_index: the top u queries', zh: '稀疏度 M = max − sum / L_K；top_index：前 u 个查询' },
  stepSparsityDivisor: { en: 'Sparsity M = max − sum / U_part; top_index: the top u queries', zh: '稀疏度 M = max − sum / U_part；top_index：前 u 个查询' },
  stepTop: { en: 'Exact attention for the top queries only: scores_top with ProbMask, and its softmax', zh: '只对入选查询做精确 attention：scores_top（含 ProbMask）及其 softmax' },
  scoresTop: { en: 'scores_top = scale · q_top · Kᵀ', zh: 'scores_top = scale · q_top · Kᵀ' },
  scoresTopCaption: { en: 'before ProbMask; masked cells hatched', zh: 'ProbMask 之前；被遮挡的格子带斜线' },
  weightsTop: { en: 'weights_top = softmax(scores_top)', zh: 'weights_top = softmax(scores_top)' },
  stepContext: { en: 'initial_context (lazy) for every query, then context: the updated rows replaced', zh: '每个查询先取初始（默认）上下文 initial_context，再得到 context：替换被更新的行' },
  initialContext: { en: 'initial_context', zh: '初始上下文 initial_context' },
  initialMean: { en: 'mean of V for every query', zh: '每个查询都取 V 的平均' },
  initialSum: { en: 'cumulative sum of V (the reference, causal)', zh: 'V 的累加和（参考实现，因果）' },
  initialCausalMean: { en: 'cumulative mean of V (causal)', zh: 'V 的累积平均（因果）' },
  finalContext: { en: 'context (updated rows marked ★)', zh: '最终上下文（★ 为被更新的行）' },
  stepAttn: { en: 'attn (output_attention): 1/L_K everywhere but the updated rows', zh: 'attn（output_attention）：除被更新的行外处处为 1/L_K' },
  attnCaption: { en: 'the updated rows (★) hold their softmax weights', zh: '被更新的行（★）是它们的 softmax 权重' },
  attnOff: { en: 'output_attention is off: turn it on under “Reference pitfalls” to get attn.', zh: 'output_attention 未开启：在“参考实现的已知陷阱”中打开即可得到 attn。' },
  compare: { en: 'Compared with full attention on the same q, k, v and mask', zh: '与相同 q、k、v、掩码下的完整 attention 对比' },
  probRow: { en: 'ProbAttention', zh: 'ProbAttention' },
  fullRow: { en: 'full attention', zh: '完整 attention' },
  probMissing: { en: 'This trace has no ProbAttention fields (the core may not implement prob yet).', zh: '此追踪没有 ProbAttention 字段（核心可能尚未实现 prob）。' },
  samplesClick: { en: 'Click a cell to sample that key for the query, or to drop it: the row keeps its U_part draws (a repeated draw, else the oldest, gives way; a dropped key leaves its draws to the row\'s first other key).', zh: '点击格子：为该查询抽到这个键，或去掉它。每行保持 U_part 次抽样（先替换重复的抽样，否则替换最早的一次；去掉的键把它的抽样让给该行的第一个其他键）。' },
  exactM: { en: 'exact M', zh: '精确 M' },
  sparsityColumns: { en: 'M from the sampled keys ranks the queries; exact M = max_j − sum_j / L_K over all L_K keys (sparsity_exact) is shown beside it, not used by the algorithm.', zh: '用抽样的键算出的 M 决定查询的排名；旁边是对全部 L_K 个键计算的精确 M = max_j − sum_j / L_K（sparsity_exact），算法本身不用它。' },
  topGiven: { en: 'given', zh: '给定' },
  topGivenNote: { en: 'top_index is given by the scenario, not ranked: these queries get exact attention whatever their M, in every batch item and head.', zh: 'top_index 由场景给定，而不是排出来的：无论 M 多大，这些查询都做精确 attention，每个批次、每个头都一样。' },
  topRankedWouldBe: { en: 'ranked by M it would be', zh: '按 M 排名则为' },
  topRankedNote: { en: 'top_index: the u queries of largest M (ties to the lower index).', zh: 'top_index：M 最大的 u 个查询（并列时下标小的优先）。' },
  topClick: { en: 'Click a query to put it into top_index (the selected query of least M gives way) or to take it out (the next query by M takes its place).', zh: '点击一个查询：把它放进 top_index（M 最小的入选查询让出位置），或把它移出（按 M 排下一个的查询补上）。' },
  rankByM: { en: 'Rank by M', zh: '按 M 排名' },
  drawFromSeed: { en: 'Draw from the seed', zh: '由随机种子抽取' },
  topToggle: { en: 'put q{i} into or out of top_index', zh: '把 q{i} 放进或移出 top_index' },
  samplesAside: { en: 'The given sample_index ({shape}) does not fit the shape drawn now ({want}, U_part = {U}): it is put aside, and the samples are drawn from the seed; it comes back when its shape fits again.', zh: '给定的 sample_index（{shape}）不符合现在抽样的形状（{want}，U_part = {U}）：暂不使用，改由随机种子抽样；形状再次符合时自动恢复。' },
  topAside: { en: 'The given top_index {top} does not fit u = {u}: it is put aside, and the queries are ranked by M; it comes back when u fits again.', zh: '给定的 top_index {top} 不符合 u = {u}：暂不使用，改为按 M 排名；u 再次符合时自动恢复。' },
  squeezeUnion: { en: 'updated although not in this item\'s top_index: the reference\'s .squeeze() at H = 1 makes every batch item update the union of all items\' top rows', zh: '虽不在本批次的 top_index 中也被更新：参考实现在 H = 1 时的 .squeeze() 让每个批次都更新所有批次入选行的并集' },
} satisfies Record<string, Text>;
/** A string of this view's table, else the page's. */
export const t = viewText(T);
/** A string of this view's table with its {name}s filled in. */
export const tf = (lang: Lang, key: keyof typeof T, values: Record<string, string>): string =>
  t(lang, key).replace(/\{(\w+)\}/g, (m, name: string) => values[name] ?? m);

export interface ProbViewOptions {
  trace: Trace;
  full: Outcome | null;
  b: number;
  h: number;
  lang: Lang;
  /** The factor of the scenario the trace is of. */
  factor: number;
  causal: boolean;
  causalInitial: string;
  divisor: string;
  /** Whether the scenario gives top_index (else the core ranked the queries by M). */
  topGiven?: boolean;
  /** Clicks: key j toggled for query i (sample_index), query i put into or out of top_index. */
  onSample?: (i: number, j: number) => void;
  onTop?: (i: number) => void;
  /** Back to the core's ranking by M (top_index dropped). */
  onRank?: () => void;
}

/** Clicking (or Enter / Space on) a cell (i, j) of map `figure` calls `act`; `index` reads the cell's i, j
 * from its data-index. */
function clickable(figure: HTMLElement, index: (path: number[]) => [number, number], act: (i: number, j: number) => void): HTMLElement {
  figure.classList.add('clickable');
  const hit = (e: Event) => {
    const td = (e.target as Element | null)?.closest?.('td[data-index]') as HTMLElement | null;
    if (!td) return;
    const [i, j] = index(String(td.dataset.index).split(',').map(Number));
    act(i, j);
  };
  figure.addEventListener('click', hit);
  figure.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    hit(e);
  });
  return figure;
}

const num = (x: unknown) => (typeof x === 'number' ? x : NaN);
const labels = (prefix: string, n: number) => range(n).map((i) => `${prefix}${i}`);

/** A section for SPEC's steps `steps` (one, or a run such as 4-5): its heading starts with their numbers. */
function step(steps: readonly number[], title: string, ...body: (Node | null)[]): HTMLElement {
  const numbers = steps.length > 1 ? `${steps[0]}–${steps[steps.length - 1]}` : String(steps[0]);
  return h('section', { class: 'step', dataset: { steps: steps.join(' ') } }, h('h3', { text: `${numbers} · ${title}` }), ...body);
}

/** The rows of (b, h) that got exact attention: the trace's updated_rows (the core applies the
 * reference's .squeeze() rule at H = 1, B > 1). */
export function updatedRows(trace: Trace, b: number, hh: number): Set<number> {
  const flags = at(trace.updated_rows, [b, hh]);
  return new Set(Array.isArray(flags) ? flags.flatMap((f, i) => (f === true || f === 1 ? [i] : [])) : []);
}

/** The sampled keys of each query for head hh: sample_index is (L_Q, U_part) or, per head, (H, L_Q, U_part). */
export function samplesOf(trace: Trace, hh: number): number[][] {
  const si = trace.sample_index as unknown;
  const perHead = Array.isArray(at(si, [0, 0]));
  return ((perHead ? at(si, [hh]) : si) as number[][] | undefined) ?? [];
}

export function probView(o: ProbViewOptions): HTMLElement {
  const { trace, b, lang } = o;
  const hh = o.h;
  const root = h('div', { class: 'prob-steps' });
  if (trace.sparsity === undefined || trace.top_index === undefined) {
    root.append(h('p', { class: 'note', text: t(lang, 'probMissing') }));
    return root;
  }
  const U = num(trace.U_part), u = num(trace.u);
  const L_Q = trace.shapes.context?.[1] ?? sliceBH(trace.sparsity, 0, 0).length;
  const L_K = trace.shapes.scores_top?.[3] ?? trace.shapes.k?.[1] ?? 0;
  const c = o.factor;

  // 1. U_part and u, as the core computed them
  root.append(step([1], t(lang, 'stepSizes'), h('p', { class: 'sizes' },
    'U_part = min(c·⌈ln L_K⌉, L_K) = ', `min(${c}·⌈ln ${L_K}⌉, ${L_K}) = `,
    h('strong', { dataset: { field: 'U_part' }, text: exact(U) }),
    ' · u = min(c·⌈ln L_Q⌉, L_Q) = ', `min(${c}·⌈ln ${L_Q}⌉, ${L_Q}) = `,
    h('strong', { dataset: { field: 'u' }, text: exact(u) }))));

  // 2. sample_index
  const samples = samplesOf(trace, hh);
  const counts = range(L_Q).map((i) => range(L_K).map((j) => (samples[i] ?? []).filter((x) => x === j).length));
  const samplesMap = heatmap({
    title: 'sample_index', caption: t(lang, 'stepSamplesCaption'), field: 'samples', values: counts, color: 'count',
    lang, axes: axes(lang, 'axisQuery', 'axisKey'),
    rowLabels: labels('q', L_Q), colLabels: labels('k', L_K),
    cellText: (_i, _j, v) => (v ? `×${v}` : '·'), cellClass: (i, j) => (counts[i][j] ? 'sampled' : undefined),
    indexOf: (i, j) => `${i},${j}`,
  });
  if (o.onSample) clickable(samplesMap, ([i, j]) => [i, j], o.onSample);
  root.append(step([2], t(lang, 'stepSamples'), samplesMap,
    h('p', { class: 'mono small', dataset: { field: 'sample-rows' } }, samples.map((row, i) => `q${i} → [${row.join(', ')}]`).join('   ')),
    o.onSample ? h('p', { class: 'help small', text: t(lang, 'samplesClick') }) : null));

  // 3. q_k_sample
  const qks = sliceBH(trace.q_k_sample, b, hh);
  root.append(step([3], t(lang, 'stepSampleScores'), heatmap({
    title: 'q_k_sample', caption: t(lang, 'stepSampleScoresCaption'), field: 'q_k_sample', values: qks, color: 'diverging',
    lang, axes: axes(lang, 'axisQuery', 'sample'),
    rowLabels: labels('q', qks.length), colLabels: labels('s', qks[0]?.length ?? 0),
    cellNote: (i, s) => (samples[i]?.[s] !== undefined ? `k${samples[i][s]}` : undefined),
    indexOf: (i, j) => `${b},${hh},${i},${j}`,
  })));

  // 4. sparsity M (with the exact M beside it) and 5. top_index, given or ranked
  const M = (at(trace.sparsity, [b, hh]) as number[] | undefined) ?? [];
  const Mexact = (at(trace.sparsity_exact, [b, hh]) as number[] | undefined) ?? [];
  const top = (at(trace.top_index, [b, hh]) as number[] | undefined) ?? [];
  const maxAbs = Math.max(1e-12, ...M.map((x) => Math.abs(num(x))).filter(Number.isFinite));
  const divisor = o.divisor === 'U_part' ? 'U_part' : 'L_K';
  const list = h('ol', { class: 'sparsity' + (Mexact.length ? ' with-exact' : ''), dataset: { field: 'sparsity' } });
  M.forEach((m, i) => {
    const rank = top.indexOf(i);
    const row = qks[i] as number[] | undefined ?? [];
    const mx = row.length ? Math.max(...row) : NaN;
    const sum = row.reduce((a, x) => a + x, 0);
    const bar = h('span', { class: 'mbar' + (m < 0 ? ' neg' : '') });
    bar.style.width = `${(100 * Math.abs(num(m))) / maxAbs}%`;
    const q = o.onTop
      ? h('button', { type: 'button', class: 'q', dataset: { key: `top_index.${i}` }, text: `q${i}`,
        attrs: { 'aria-pressed': String(rank >= 0), 'aria-label': tf(lang, 'topToggle', { i: String(i) }) },
        on: { click: () => o.onTop!(i) } })
      : h('span', { class: 'q', text: `q${i}` });
    const me = Mexact[i];
    list.append(h('li', { class: rank >= 0 ? 'top' : 'rest', dataset: { query: String(i), value: exact(m) } },
      q,
      h('span', { class: 'track' }, bar),
      h('span', { class: 'm', text: fmt(m) }),
      // the formula spelled out with this row's sampled scores (M itself is the trace's)
      h('span', { class: 'calc', text: `= ${fmt(mx)} − ${fmt(sum)}/${divisor === 'U_part' ? U : L_K}` }),
      me !== undefined ? h('span', { class: 'exact', dataset: { field: 'sparsity_exact', value: exact(me) } },
        `${t(lang, 'exactM')} `, h('strong', { text: fmt(me) })) : null,
      rank >= 0 ? h('span', { class: 'badge', text: o.topGiven ? `★ ${t(lang, 'topGiven')}` : `${t(lang, 'top')} ${rank + 1}` }) : null));
  });
  // what ranking by M would pick (the core's rule: largest M first, ties to the lower index)
  const ranked = M.map((_, i) => i).sort((a, c) => num(M[c]) - num(M[a]) || a - c).slice(0, top.length);
  const topLine = h('p', { class: 'mono small top-line' }, 'top_index = ',
    h('span', { dataset: { field: 'top_index' }, text: `[${top.join(', ')}]` }));
  const source = h('p', { class: 'top-source small', dataset: { field: 'top-source', given: String(o.topGiven === true) } },
    o.topGiven ? `${t(lang, 'topGivenNote')} ` : t(lang, 'topRankedNote'),
    o.topGiven ? h('span', { class: 'mono', dataset: { field: 'top-ranked' } }, `(${t(lang, 'topRankedWouldBe')} [${ranked.join(', ')}])`) : null,
    o.topGiven && o.onRank ? ' ' : null,
    o.topGiven && o.onRank ? h('button', { type: 'button', class: 'link', dataset: { key: 'top_index.rank' }, text: t(lang, 'rankByM'),
      on: { click: o.onRank } }) : null);
  root.append(step([4, 5], t(lang, divisor === 'U_part' ? 'stepSparsityDivisor' : 'stepSparsity'),
    Mexact.length ? h('p', { class: 'help small', text: t(lang, 'sparsityColumns') }) : null,
    list, topLine, source,
    o.onTop ? h('p', { class: 'help small', text: t(lang, 'topClick') }) : null));

  // 6. scores_top with ProbMask (from allowed_top), and their softmax
  const allowedTop = at(trace.allowed_top, [b, hh]);
  const maskedTop = (r: number, j: number) => at(allowedTop, [r, j]) === false;
  const st = sliceBH(trace.scores_top, b, hh), wt = sliceBH(trace.weights_top, b, hh);
  const topLabels = top.map((i) => `q${i}`);
  root.append(step([6], t(lang, 'stepTop'), h('div', { class: 'maps' },
    heatmap({ title: t(lang, 'scoresTop'), caption: t(lang, 'scoresTopCaption'), field: 'scores_top', values: st,
      color: 'diverging', lang, axes: axes(lang, 'topQuery', 'axisKey'), rowLabels: topLabels, colLabels: labels('k', L_K), masked: maskedTop,
      indexOf: (i, j) => `${b},${hh},${i},${j}` }),
    heatmap({ title: t(lang, 'weightsTop'), field: 'weights_top', values: wt, color: 'weights', lang, axes: axes(lang, 'topQuery', 'axisKey'),
      rowLabels: topLabels, colLabels: labels('k', L_K), masked: maskedTop,
      indexOf: (i, j) => `${b},${hh},${i},${j}` }))));

  // 7. initial_context and 8. context, the updated rows (updated_rows) replaced
  const upd = updatedRows(trace, b, hh);
  const rowClass = (i: number) => (upd.has(i) ? 'updated' : 'lazy');
  const rowLabels = range(L_Q).map((i) => (upd.has(i) ? `q${i} ★` : `q${i}`));
  const initialCaption = !o.causal ? t(lang, 'initialMean')
    : o.causalInitial === 'mean' ? t(lang, 'initialCausalMean') : t(lang, 'initialSum');
  const contextStep = step([7, 8], t(lang, 'stepContext'), h('div', { class: 'maps' },
    contextMap(trace, 'initial_context', t(lang, 'initialContext'), initialCaption, b, hh, lang, { rowClass }),
    h('div', { class: 'arrow', attrs: { 'aria-hidden': 'true' }, text: '→' }),
    contextMap(trace, 'context', t(lang, 'finalContext'), `${t(lang, 'updated')}: ${[...upd].sort((x, y) => x - y).map((i) => 'q' + i).join(', ')}`,
      b, hh, lang, { rowClass, rowLabels })));
  const extra = [...upd].filter((i) => !top.includes(i)).sort((x, y) => x - y);
  if (extra.length) {
    contextStep.append(h('p', { class: 'note', dataset: { field: 'squeeze-union' },
      text: `${extra.map((i) => 'q' + i).join(', ')}: ${t(lang, 'squeezeUnion')}` }));
  }
  root.append(contextStep);

  // 9. attn (with output_attention)
  const attn = sliceBH(trace.attn, b, hh);
  root.append(step([9], t(lang, 'stepAttn'), trace.attn === undefined
    ? h('p', { class: 'note', dataset: { field: 'attn-off' }, text: t(lang, 'attnOff') })
    : heatmap({ title: 'attn', caption: t(lang, 'attnCaption'), field: 'attn', values: attn, color: 'weights', lang, axes: axes(lang, 'axisQuery', 'axisKey'),
      rowLabels, colLabels: labels('k', L_K), rowClass, indexOf: (i, j) => `${b},${hh},${i},${j}` })));

  root.append(compare(o, upd, L_Q));
  return root;
}

function compare(o: ProbViewOptions, upd: Set<number>, L_Q: number): HTMLElement {
  const { lang, b } = o;
  const hh = o.h;
  const sec = h('section', { class: 'step compare', dataset: { field: 'compare' } }, h('h3', { text: t(lang, 'compare') }));
  if (!o.full) return sec;
  if (!o.full.ok) {
    sec.append(h('p', { class: 'error', text: `${t(lang, 'fullFailed')}: ${o.full.error}` }));
    return sec;
  }
  const full = o.full.trace;
  const table = h('table', { class: 'compare-table' },
    h('thead', null, h('tr', null, ...[t(lang, 'query'), '', t(lang, 'probRow'), t(lang, 'fullRow'), t(lang, 'maxDiff'), '']
      .map((x) => (x ? h('th', { attrs: { scope: 'col' }, text: x }) : h('td'))))));
  const body = h('tbody');
  for (const i of range(L_Q)) {
    const p = (at(o.trace.context, [b, i, hh]) as number[] | undefined) ?? [];
    const f = (at(full.context, [b, i, hh]) as number[] | undefined) ?? [];
    const d = Math.max(0, ...p.map((x, j) => Math.abs(x - (f[j] ?? NaN))));
    const same = Number.isFinite(d) && d <= 1e-9 * Math.max(1, ...f.map(Math.abs));
    body.append(h('tr', { class: (upd.has(i) ? 'updated' : 'lazy') + (same ? ' same' : ' differs'), dataset: { query: String(i) } },
      h('th', { attrs: { scope: 'row' }, text: `q${i}` }),
      h('td', { class: 'status', text: upd.has(i) ? `★ ${t(lang, 'updated')}` : t(lang, 'lazy') }),
      h('td', { class: 'mono', text: `[${p.map((x) => fmt(x)).join(', ')}]` }),
      h('td', { class: 'mono', text: `[${f.map((x) => fmt(x)).join(', ')}]` }),
      h('td', { class: 'mono diff', dataset: { value: exact(d) }, text: fmt(d) }),
      h('td', { class: 'verdict', text: same ? t(lang, 'same') : t(lang, 'differs') })));
  }
  table.append(body);
  sec.append(scrollBox(table));
  return sec;
}
