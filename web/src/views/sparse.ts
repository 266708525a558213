// The note's sparse attention, drawn as it draws it: the allowed cells of local, atrous and their
// union (OpenAI's strided pattern) side by side for the learner's L, w and k, each with its cost
// (the core computes only the allowed pairs), and the note's alternating layers: which inputs a
// query reaches after one layer of local and then one of atrous attention — every pair, with far
// fewer products. The patterns and costs are the core's (three runs of `full` on the same inputs);
// the reach is their boolean product (state/sparse.ts). DOM only.
import { h, newId } from '../dom';
import { range } from '../format';
import type { Outcome, Trace } from '../engine/compute';
import { SPARSE_KINDS, allowedOf, countTrue, reach, type SparseKind, type SparseParams, type SparsePatterns } from '../state';
import { viewText, type Key, type Lang, type Text } from '../i18n';
import { costBar, percent } from './approx';
import { label as svgText, svg } from './svg';
import { sparseKey } from '../state/sparse';
import type { ViewHost } from '../algorithms/module';

/** This view's strings (English and Chinese; the page's shared ones are i18n.ts's). */
const T = {
  tooLargeDraw: { en: 'Too large to draw', zh: '太大，无法绘制' },
  sparseTitle: { en: 'Sparse attention, as the note draws it', zh: '稀疏 Attention（笔记中的图）' },
  sparseIntro: { en: 'Each query attends only to some keys: local keeps the neighbours within w, atrous every k-th key, and OpenAI\'s Sparse Transformer their union. Coloured cells are the pairs the core computes; the bar counts them against dense attention.', zh: '每个查询只关注一部分键：Local 保留距离 w 以内的邻居，Atrous（膨胀）保留每隔 k 个的键，OpenAI 的 Sparse Transformer 取两者的并集。有颜色的格子就是核心实际计算的配对；条形图把它们与稠密 attention 对比。' },
  sparseWindow: { en: 'window w (local)', zh: '窗口 w（Local）' },
  sparseDilation: { en: 'dilation k (atrous; the stride of strided)', zh: '膨胀 k（Atrous；strided 的步长）' },
  sparseEdits: { en: 'edits the scenario\'s', zh: '修改场景的' },
  sparseKept: { en: 'for the pictures only (your mask has no such field)', zh: '只用于示意图（当前掩码没有这个字段）' },
  sparseCausal: { en: 'causal: j ≤ i as well, as your mask says', zh: '因果：同时要求 j ≤ i（与当前掩码一致）' },
  sparseLocal: { en: 'Local self-attention', zh: 'Local Self Attention（局部）' },
  sparseAtrous: { en: 'Atrous (dilated) self-attention', zh: 'Atrous Self Attention（膨胀）' },
  sparseStrided: { en: 'Sparse Transformer: local ∪ atrous', zh: 'Sparse Self Attention：Local ∪ Atrous' },
  sparseYours: { en: 'your mask', zh: '当前掩码' },
  sparseLegendLocal: { en: 'local', zh: '局部' },
  sparseLegendAtrous: { en: 'atrous', zh: '膨胀' },
  sparseLegendBoth: { en: 'both', zh: '两者' },
  sparseLayersTitle: { en: 'Two layers: local, then atrous', zh: '两层交替：先 Local，再 Atrous' },
  sparseLayersIntro: { en: 'The note: atrous attention has holes that local attention fills. Stack one layer of each: every output of layer 1 mixes its neighbours, so a query of layer 2 reaches every input, with far fewer products than one dense layer.', zh: '笔记：Atrous 有“洞”，Local 正好填补。两种各叠一层：第一层的每个输出融合了邻居，于是第二层的查询理论上可以和任意输入相关，而乘积次数远少于一层稠密 attention。' },
  sparseGrow: { en: 'At small L the saving is small: raise L_Q and L_K (the size bar) and watch it grow — local costs about (2w + 1)·L products, atrous about L²/k, dense L².', zh: 'L 较小时节省不多：用尺寸栏增大 L_Q 和 L_K，观察节省如何增长——Local 约 (2w + 1)·L 次乘积，Atrous 约 L²/k，稠密为 L²。' },
  sparseLayersSquare: { en: 'Two layers need L_Q = L_K (self-attention).', zh: '两层叠加需要 L_Q = L_K（自注意力）。' },
  sparseReached: { en: 'pairs reached after the two layers', zh: '两层之后可达的配对' },
  sparsePairs: { en: 'pairs', zh: '对' },
  sparseEveryPair: { en: 'every pair', zh: '全部可达' },
  sparseNotEvery: { en: 'not every pair: widen w or shrink k (every pair needs 2w + 1 ≥ k)', zh: '并非全部：增大 w 或减小 k（全部可达需要 2w + 1 ≥ k）' },
  sparseProducts: { en: 'q·k products of the two layers', zh: '两层的 q·k 乘积' },
  sparseLocalShort: { en: 'local', zh: '局部' },
  sparseAtrousShort: { en: 'atrous', zh: '膨胀' },
  sparseAgainst: { en: 'against', zh: '对比' },
  sparseOneDense: { en: 'for one dense layer', zh: '（一层稠密 attention）' },
  sparseReachTitle: { en: 'reach = atrous · local (boolean product)', zh: '可达 = atrous · local（布尔矩阵乘积）' },
  sparseReachCaption: { en: 'row i: the inputs query i of layer 2 depends on', zh: '第 i 行：第二层的查询 i 依赖的输入' },
  sparseQuery: { en: 'query', zh: '查询' },
  sparseDiagramCaption: { en: 'its atrous links into layer 1, and their local links to the inputs', zh: '它到第一层的 atrous 连接，以及这些节点到输入的 local 连接' },
  sparseDiagramLabel: { en: 'two layers from query', zh: '两层连接，查询' },
  sparseLayer2: { en: 'layer 2 atrous', zh: '第 2 层 atrous' },
  sparseLayer1: { en: 'layer 1 local', zh: '第 1 层 local' },
  sparseInputs: { en: 'inputs', zh: '输入' },
} satisfies Record<string, Text>;
type ViewKey = Key | keyof typeof T;
/** A string of this view's table, else the page's. */
const t = viewText(T);

export interface SparseViewOptions {
  patterns: SparsePatterns;
  b: number;
  h: number;
  lang: Lang;
  /** The query whose two-layer reach is drawn; null: the last one under a causal mask (it reaches
   * the most), else the middle one. */
  query: number | null;
  /** Which of w and k are the scenario's mask fields (the others the view keeps). */
  keys: Record<keyof SparseParams, string | null>;
  onParam: (param: keyof SparseParams, value: number) => void;
  onQuery: (i: number) => void;
}

/** Past this L the patterns are not drawn (their costs still are). */
const MAX_DRAWN = 64;

const TITLES: Record<SparseKind, ViewKey> = { local: 'sparseLocal', atrous: 'sparseAtrous', strided: 'sparseStrided' };
const RULES: Record<SparseKind, (p: SparseParams) => string> = {
  local: (p) => `|i − j| ≤ ${p.window}`,
  atrous: (p) => `|i − j| mod ${p.dilation} = 0`,
  strided: (p) => `|i − j| ≤ ${p.window}  or  |i − j| mod ${p.dilation} = 0`,
};

/** A boolean pattern as a grid of small squares; `cls(i, j)` names each cell's colour. */
function patternGrid(field: string, values: boolean[][], cls: (i: number, j: number) => string, label: string,
  rowClass?: (i: number) => string | undefined): HTMLElement {
  const L = values.length, M = values[0]?.length ?? 0;
  const size = Math.max(L, M) <= 16 ? 'big' : Math.max(L, M) <= 40 ? 'mid' : 'small';
  const every = size === 'big' ? 1 : size === 'mid' ? 4 : 8;
  const table = h('table', { class: `pattern ${size}`, dataset: { field }, attrs: { role: 'img', 'aria-label': label } });
  const head = h('tr', null, h('td')); // the corner (a header cell is never empty)
  // a column's label may be wider than its cell: it hangs over its neighbours instead of widening it
  for (let j = 0; j < M; j++) head.append(j % every ? h('td', { class: 'col' }) : h('th', { class: 'col' }, h('span', { text: String(j) })));
  table.append(h('thead', null, head));
  const body = h('tbody');
  for (let i = 0; i < L; i++) {
    const tr = h('tr', { class: rowClass?.(i) }, i % every ? h('td', { class: 'row' }) : h('th', { text: String(i) }));
    for (let j = 0; j < M; j++) {
      tr.append(h('td', { class: cls(i, j), title: `q${i} · k${j}`, dataset: { index: `${i},${j}`, value: String(values[i][j]) } }));
    }
    body.append(tr);
  }
  table.append(body);
  return table;
}

function traceOf(o: Outcome | undefined): Trace | null {
  return o && o.ok ? o.trace : null;
}

/** The w and k controls: a slider each, naming the mask field it edits (or that the view keeps it). */
function paramControl(o: SparseViewOptions, param: keyof SparseParams, L: number): HTMLElement {
  const { lang } = o;
  const value = o.patterns.params[param];
  const id = newId('sp');
  const min = param === 'window' ? 0 : 1;
  const max = Math.max(min + 1, param === 'window' ? L - 1 : L);
  const input = h('input', { type: 'range', id, min: String(min), max: String(max), step: '1', value: String(value),
    dataset: { key: `sparse.${param}` } });
  const out = h('output', { class: 'range-value', text: String(value) });
  input.addEventListener('input', () => { out.textContent = input.value; });
  input.addEventListener('change', () => o.onParam(param, Number(input.value)));
  const key = o.keys[param];
  return h('div', { class: 'field' },
    h('label', { attrs: { for: id }, text: t(lang, param === 'window' ? 'sparseWindow' : 'sparseDilation') }),
    h('span', { class: 'range-row' }, input, out),
    h('small', { class: 'help', text: key ? `${t(lang, 'sparseEdits')} ${key}` : t(lang, 'sparseKept') }));
}

/** The two-layer picture for query i: its atrous links to layer 1, their local links to the inputs. */
function layerDiagram(second: boolean[][], first: boolean[][], i: number, lang: Lang): SVGSVGElement {
  const L = second.length;
  const step = Math.max(9, Math.min(28, 560 / Math.max(1, L)));
  const left = 92, width = left + step * L + 10, rows = [22, 92, 162], height = 186;
  const x = (j: number) => left + step * j + step / 2;
  const via = range(L).filter((m) => second[i]?.[m]);
  const reached = new Set(via.flatMap((m) => range(L).filter((j) => first[m]?.[j])));
  const root = svg('svg', { class: 'layers-diagram', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
    'aria-label': `${t(lang, 'sparseDiagramLabel')} q${i}: ${via.length} → ${reached.size} / ${L}` });
  root.dataset.field = 'layers-diagram';
  root.dataset.reached = String(reached.size);
  const names: [number, string][] = [[rows[0], t(lang, 'sparseLayer2')], [rows[1], t(lang, 'sparseLayer1')], [rows[2], t(lang, 'sparseInputs')]];
  for (const [y, name] of names) {
    root.append(svgText(4, y + 4, name, 'row-label', 'start'));
  }
  for (const m of via) {
    root.append(svg('line', { x1: x(i), y1: rows[0], x2: x(m), y2: rows[1], class: 'edge atrous' }));
    for (const j of range(L)) if (first[m]?.[j]) root.append(svg('line', { x1: x(m), y1: rows[1], x2: x(j), y2: rows[2], class: 'edge local' }));
  }
  for (const j of range(L)) {
    root.append(svg('circle', { cx: x(j), cy: rows[0], r: 4, class: j === i ? 'node query' : 'node' }),
      svg('circle', { cx: x(j), cy: rows[1], r: 4, class: via.includes(j) ? 'node via' : 'node' }),
      svg('circle', { cx: x(j), cy: rows[2], r: 4, class: reached.has(j) ? 'node reached' : 'node' }));
  }
  return root;
}

export function sparseView(o: SparseViewOptions): HTMLElement {
  const { patterns, lang, b } = o;
  const hh = o.h;
  const p = patterns.params;
  const root = h('section', { class: 'sparse', dataset: { field: 'sparse' } },
    h('h3', { text: t(lang, 'sparseTitle') }),
    h('p', { class: 'intro', text: t(lang, 'sparseIntro') }));
  const traces = Object.fromEntries(SPARSE_KINDS.map((k) => [k, traceOf(patterns.runs[k])])) as Record<SparseKind, Trace | null>;
  const allowed = Object.fromEntries(SPARSE_KINDS.map((k) => [k, traces[k] ? allowedOf(traces[k]!, b, hh) : []])) as Record<SparseKind, boolean[][]>;
  const L = allowed.local.length || allowed.atrous.length;
  root.append(h('div', { class: 'row sparse-controls' }, paramControl(o, 'window', L), paramControl(o, 'dilation', L)));
  if (patterns.causal) root.append(h('p', { class: 'help', text: t(lang, 'sparseCausal') }));

  const figures = h('div', { class: 'patterns' });
  for (const kind of SPARSE_KINDS) {
    const run = patterns.runs[kind];
    const fig = h('figure', { class: `pattern-figure${kind === patterns.current ? ' current' : ''}`, dataset: { kind } },
      h('figcaption', null,
        h('span', { class: 'fig-title' }, t(lang, TITLES[kind]),
          kind === patterns.current ? h('span', { class: 'badge', text: t(lang, 'sparseYours') }) : null),
        h('span', { class: 'fig-caption mono', text: RULES[kind](p) + (patterns.causal ? ', j ≤ i' : '') })));
    if (!run.ok) fig.append(h('p', { class: 'error', text: run.error }));
    else if (allowed[kind].length > MAX_DRAWN) fig.append(h('p', { class: 'note', text: t(lang, 'tooLargeDraw') }));
    else {
      const a = allowed[kind];
      const cls = kind === 'strided'
        ? (i: number, j: number) => !a[i][j] ? 'off' : allowed.local[i]?.[j] && allowed.atrous[i]?.[j] ? 'both'
          : allowed.local[i]?.[j] ? 'local' : allowed.atrous[i]?.[j] ? 'atrous' : 'on'
        : (i: number, j: number) => (a[i][j] ? kind : 'off');
      fig.append(patternGrid(`pattern-${kind}`, a, cls, `${t(lang, TITLES[kind])}: ${countTrue(a)} / ${a.length * (a[0]?.length ?? 0)}`));
    }
    fig.append(costBar(run.ok ? run.trace.cost : undefined, lang, `cost-${kind}`));
    figures.append(fig);
  }
  root.append(figures, h('p', { class: 'legend' },
    h('span', { class: 'swatch local' }), ` ${t(lang, 'sparseLegendLocal')} `,
    h('span', { class: 'swatch atrous' }), ` ${t(lang, 'sparseLegendAtrous')} `,
    h('span', { class: 'swatch both' }), ` ${t(lang, 'sparseLegendBoth')}`),
    h('p', { class: 'help', text: t(lang, 'sparseGrow') }));

  // the note's alternating layers: local first, then atrous
  const layers = h('section', { class: 'layers', dataset: { field: 'layers' } }, h('h4', { text: t(lang, 'sparseLayersTitle') }),
    h('p', { class: 'intro', text: t(lang, 'sparseLayersIntro') }));
  root.append(layers);
  const local = traces.local, atrous = traces.atrous;
  const first = allowed.local, second = allowed.atrous;
  if (!local || !atrous || !first.length || !second.length) return root;
  if (first.length !== (first[0]?.length ?? 0)) {
    layers.append(h('p', { class: 'note', text: t(lang, 'sparseLayersSquare') }));
    return root;
  }
  if (L > MAX_DRAWN) {
    layers.append(h('p', { class: 'note', text: t(lang, 'tooLargeDraw') }));
    return root;
  }
  const r = reach(second, first);
  const reachedPairs = countTrue(r);
  const pairs = L * L;
  const causalPairs = (L * (L + 1)) / 2;
  const i = Math.min(Math.max(0, o.query ?? (patterns.causal ? L - 1 : Math.floor(L / 2))), L - 1);
  const n1 = local.cost?.dot_products ?? 0, n2 = atrous.cost?.dot_products ?? 0;
  const dense = local.cost?.dense_dot_products ?? 0;
  const all = patterns.causal ? reachedPairs === causalPairs : reachedPairs === pairs;

  const select = h('select', { id: newId('sq'), dataset: { key: 'sparse.query' } },
    ...range(L).map((q) => h('option', { value: String(q), text: `q${q}`, selected: q === i })));
  select.addEventListener('change', () => o.onQuery(Number(select.value)));

  layers.append(
    h('p', { class: 'layers-numbers' },
      `${t(lang, 'sparseReached')}: `,
      h('strong', { dataset: { field: 'reach-count', value: String(reachedPairs) }, text: String(reachedPairs) }),
      ` / ${patterns.causal ? `${causalPairs} (j ≤ i)` : `${pairs} (L²)`} ${t(lang, 'sparsePairs')}`,
      h('span', { class: all ? 'verdict yes' : 'verdict no', text: ` — ${t(lang, all ? 'sparseEveryPair' : 'sparseNotEvery')}` }),
      h('br'),
      `${t(lang, 'sparseProducts')}: `,
      h('span', { dataset: { field: 'layer-products', value: String(n1 + n2) } },
        `${n1} (${t(lang, 'sparseLocalShort')}) + ${n2} (${t(lang, 'sparseAtrousShort')}) = `, h('strong', { text: String(n1 + n2) })),
      ` ${t(lang, 'sparseAgainst')} `, h('span', { dataset: { field: 'dense-products', value: String(dense) }, text: String(dense) }),
      ` ${t(lang, 'sparseOneDense')} `, h('span', { class: 'pct', text: `(${percent(n1 + n2, dense)})` })),
    h('div', { class: 'layers-body' },
      h('figure', null, h('figcaption', null, h('span', { class: 'fig-title', text: t(lang, 'sparseReachTitle') }),
        h('span', { class: 'fig-caption', text: t(lang, 'sparseReachCaption') })),
      patternGrid('reach', r, (a, j) => (r[a][j] ? 'reached' : 'off'), `${t(lang, 'sparseReachTitle')}: ${reachedPairs} / ${pairs}`,
        (q) => (q === i ? 'selected' : undefined))),
      h('figure', null, h('figcaption', null,
        h('span', { class: 'field inline' }, h('label', { attrs: { for: select.id }, text: t(lang, 'sparseQuery') }), select),
        h('span', { class: 'fig-caption', text: t(lang, 'sparseDiagramCaption') })),
      layerDiagram(second, first, i, lang))));
  return root;
}

/** The element's sparse view (algorithms/full.ts): the same view while the patterns are the same
 * (an edit of a value of q, k or v keeps them). */
export function sparseFor(host: ViewHost): HTMLElement | null {
  const { session, lang } = host;
  const { scenario: s, b, sparse: patterns } = session;
  if (!patterns) return null;
  const keys = { window: sparseKey(s, 'window'), dilation: sparseKey(s, 'dilation') };
  return host.memo('sparse', [patterns, b, session.h, lang, session.sparseQuery, keys.window, keys.dilation], () => sparseView({
    patterns, b, h: session.h, lang, query: session.sparseQuery, keys,
    onParam: (param, value) => {
      const structural = sparseKey(s, param) !== null;
      session.setSparseParam(param, value);
      if (structural) host.update();
      else host.redraw();
      host.refocus(`sparse.${param}`);
    },
    onQuery: (i) => { session.selectSparseQuery(i); host.redraw(); host.refocus('sparse.query'); } }));
}
