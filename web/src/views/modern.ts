// Why today's models attend the way they do (issue 16), for full's trace: GQA/MQA (which query
// heads share which kv head; the KV cache of MHA, GQA and MQA for the learner's sizes and for
// Llama-2-70B, in numbers and bytes per token), RoPE (each pair's angle at each position, why the
// scores depend on m − n only, the half/interleaved permutation a checkpoint conversion applies),
// ALiBi (the slopes and each head's bias for the last query) and the sink mask (the weight each
// query puts on the sink tokens). Tables of the trace's own numbers; lazily loaded. DOM only.
// modern-c (issue 16's rest): DeepSeek-V2's MLA beside Llama-2-70B in the real configurations' cache
// table; RoPE's long-range decay of the score bound (the trace's rope_decay, RoFormer §3.4.3) as a
// chart; ALiBi past a trained length (the last query's bias over distance per head, and its weights);
// StreamingLLM's eviction (the trace's sink_mass and evicted_context beside context) as maps.
import { h } from '../dom';
import { at, grouped, range } from '../format';
import { isFlat, nested, type Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import type { ViewHost } from '../algorithms/module';
import { lineChart } from './chart';
import { heatmap } from './heatmap';
import { fillTemplate as fill } from './template';

const T = {
  gqaTitle: { en: 'Grouped-query attention: who shares which keys and values', zh: '分组查询注意力：谁共享哪组键和值' },
  gqaIntro: { en: 'Query head h reads kv head h // (H / H_kv): the group shares one copy of k and v (Llama\'s repeat_kv, done here as an index). The heads still attend differently, because their queries differ; the KV cache shrinks by H / H_kv.', zh: '查询头 h 读取键值头 h // (H / H_kv)：一组查询头共享同一份 k 和 v（Llama 的 repeat_kv，此处以索引实现）。各头的查询不同，因此注意力仍然不同；KV 缓存缩小为 H_kv / H。' },
  gqaKv: { en: 'kv head', zh: '键值头' },
  gqaQueries: { en: 'query heads', zh: '查询头' },
  gqaGroups: { en: 'Groups: each kv head and the query heads that read it', zh: '分组：每个键值头及读取它的查询头' },
  cacheTitle: { en: 'KV cache per token (keys and values of every head)', zh: '每个词元的 KV 缓存（所有头的键和值）' },
  cacheForm: { en: 'form', zh: '形式' },
  cacheHeads: { en: 'kv heads', zh: '键值头数' },
  cacheNumbers: { en: 'numbers / token', zh: '数值 / 词元' },
  cacheBytes64: { en: 'bytes / token (float64)', zh: '字节 / 词元（float64）' },
  cacheYours: { en: 'This scenario (one layer): H_kv (E + D) numbers per token; the trace\'s cost.kv_cache_numbers = B · L_K · H_kv · (E + D) =', zh: '本场景（一层）：每个词元 H_kv (E + D) 个数；trace 的 cost.kv_cache_numbers = B · L_K · H_kv · (E + D) =' },
  cache4k: { en: 'a 4096-token context', zh: '4096 词元的上下文' },
  ropeTitle: { en: 'RoPE: each pair of entries turns by m · θ_p', zh: 'RoPE：每对分量旋转 m · θ_p' },
  ropeIntro: { en: 'The query at position m and the key at position n are rotated pair by pair, θ_p = base^(−2p/E). A rotation keeps lengths, and q_m · k_n = q · R((n − m) θ) k: the score depends on m − n only, so shifting every position (the preset rope-shift) changes no score. Low pairs turn fast, high pairs slowly.', zh: '位置 m 的查询与位置 n 的键逐对旋转，θ_p = base^(−2p/E)。旋转不改变长度，且 q_m · k_n = q · R((n − m) θ) k：分数只取决于 m − n，所以整体平移所有位置（预设 rope-shift）不改变任何分数。低位分量转得快，高位分量转得慢。' },
  ropePosition: { en: 'position m', zh: '位置 m' },
  ropePair: { en: 'pair', zh: '对' },
  ropeStyle: { en: 'Style', zh: '风格' },
  ropeHalf: { en: 'half (Hugging Face\'s rotate_half): pair p = entries (p, p + E/2)', zh: 'half（Hugging Face 的 rotate_half）：第 p 对 = 分量 (p, p + E/2)' },
  ropeInterleaved: { en: 'interleaved (RoFormer, Meta\'s Llama): pair p = entries (2p, 2p + 1)', zh: 'interleaved（RoFormer、Meta 的 Llama）：第 p 对 = 分量 (2p, 2p + 1)' },
  ropePermutation: { en: 'Converting a Meta checkpoint to Hugging Face\'s layout permutes the output rows of W_q and W_k (per head) into half\'s order:', zh: '把 Meta 的检查点转换为 Hugging Face 的布局时，要把 W_q 和 W_k 的输出行（每个头）重排为 half 的顺序：' },
  alibiTitle: { en: 'ALiBi: a linear penalty on distance, one slope per head', zh: 'ALiBi：按距离线性惩罚，每个头一个斜率' },
  alibiIntro: { en: 'Head h adds −slope_h · |i − j| to its scores: steep heads look nearby, flat heads far. No position embedding is added to q or k, and the bias keeps growing past the trained length (the paper\'s extrapolation).', zh: '头 h 在分数上加 −slope_h · |i − j|：斜率大的头看近处，斜率小的头看远处。q、k 上不加位置编码，偏置在超过训练长度后继续线性增长（论文中的外推）。' },
  alibiHead: { en: 'head', zh: '头' },
  alibiSlope: { en: 'slope', zh: '斜率' },
  alibiRow: { en: 'bias of the last query', zh: '最后一个查询的偏置' },
  sinkTitle: { en: 'Attention sinks: the weight each query keeps on the first tokens', zh: '注意力汇点：每个查询留在开头词元上的权重' },
  sinkIntro: { en: 'StreamingLLM found that trained models pour much of their softmax weight onto the first tokens, whatever they say. A sliding window that evicts them leaves that weight nowhere to go; keeping s sinks beside the window keeps it. Here: the weight of each query (selected b, h) on the sink keys.', zh: 'StreamingLLM 发现训练好的模型会把大量 softmax 权重放在最开始的几个词元上，无论其内容。滑动窗口若把它们移出，这部分权重就无处可去；在窗口旁保留 s 个汇点即可保住它。此处为每个查询（所选 b、h）放在汇点键上的权重。' },
  sinkQuery: { en: 'query', zh: '查询' },
  sinkMass: { en: 'weight on sinks', zh: '汇点上的权重' },
  // modern-c: the real configurations, RoPE's decay, ALiBi past the trained length, the sinks evicted
  realTitle: { en: 'Real models: the KV cache of one token (every layer, 16-bit numbers)', zh: '真实模型：一个词元的 KV 缓存（全部层，16 位数）' },
  realModel: { en: 'model · form', zh: '模型 · 形式' },
  realLayers: { en: 'layers', zh: '层数' },
  realPerLayer: { en: 'numbers / token / layer', zh: '数值 / 词元 / 层' },
  realNumbers: { en: 'numbers / token', zh: '数值 / 词元' },
  realBytes: { en: 'bytes / token (2 each)', zh: '字节 / 词元（每个 2 字节）' },
  realNote: { en: 'Per layer, as the core\'s cost.kv_cache_numbers counts one token: B · L_K · H_kv · (E + D) for MHA/GQA/MQA, B · L · (kv_lora_rank + qk_rope_head_dim) for MLA. Llama-2-70B: 80 layers, 64 query heads of 128, 8 kv heads (MHA and MQA: the same model with 64 or 1). DeepSeek-V2: 60 layers, 128 heads, kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128 (MHA: every head\'s key of 128 + 64 and value of 128).', zh: '每层按核心的 cost.kv_cache_numbers 计一个词元：MHA/GQA/MQA 为 B · L_K · H_kv · (E + D)，MLA 为 B · L · (kv_lora_rank + qk_rope_head_dim)。Llama-2-70B：80 层，64 个 128 维查询头，8 个键值头（MHA 与 MQA：同一模型取 64 或 1 个）。DeepSeek-V2：60 层，128 个头，kv_lora_rank 512，qk_rope_head_dim 64，qk_nope_head_dim 128，v_head_dim 128（MHA：每个头缓存 128 + 64 的键和 128 的值）。' },
  decayTitle: { en: 'RoPE\'s long-range decay: the bound on a score over the relative distance', zh: 'RoPE 的远程衰减：分数上界随相对距离的变化' },
  decayIntro: { en: 'RoFormer §3.4.3: writing pair i of q_m and k_n as complex numbers h_i, the score is Re Σ_i h_i e^{i(m−n)θ_i}, and Abel summation bounds it by max_i |h_{i+1} − h_i| · Σ_j |S_j| with S_j = Σ_{k<j} e^{i(m−n)θ_k}. The curve is the trace\'s rope_decay, (1 / (E/2)) Σ_j |S_j|, for this scenario\'s E = {E} and base = {base}: distant tokens can only score less. Markers: the distances |m − n| this scenario has.', zh: 'RoFormer §3.4.3：把 q_m 与 k_n 的第 i 对分量写成复数 h_i，分数为 Re Σ_i h_i e^{i(m−n)θ_i}，Abel 求和给出上界 max_i |h_{i+1} − h_i| · Σ_j |S_j|，其中 S_j = Σ_{k<j} e^{i(m−n)θ_k}。曲线是 trace 的 rope_decay，即 (1 / (E/2)) Σ_j |S_j|，取本场景的 E = {E}、base = {base}：距离越远，分数上界越小。标记：本场景出现的距离 |m − n|。' },
  decayX: { en: 'relative distance m − n', zh: '相对距离 m − n' },
  decayY: { en: 'bound / max |Δh|', zh: '上界 / max |Δh|' },
  decayAt: { en: 'At distance 0: {d0}; at {r}: {dr}; mean over 256..511: {far}.', zh: '距离 0 处：{d0}；距离 {r} 处：{dr}；256..511 的平均：{far}。' },
  extraTitle: { en: 'ALiBi past the trained length', zh: 'ALiBi 超出训练长度' },
  extraIntro: { en: 'ALiBi is trained on short inputs and run on longer ones (Press et al.: "train short, test long"). The bias is a rule, −slope_h · |i − j|, so it has a value at every distance: the last query\'s bias below keeps falling on the same line past the trained length, and each row of weights is still a softmax over finite scores. The trained length is a setting of this view (the core computes the same at any length).', zh: 'ALiBi 在短输入上训练、在长输入上运行（Press 等：“短训练，长测试”）。偏置是规则 −slope_h · |i − j|，任何距离都有定义：下图中最后一个查询的偏置越过训练长度后仍沿同一直线下降，每行权重仍是对有限分数的 softmax。训练长度是本视图的设置（核心在任何长度上的计算都相同）。' },
  extraTrained: { en: 'trained length', zh: '训练长度' },
  extraX: { en: 'distance i − j (last query)', zh: '距离 i − j（最后一个查询）' },
  extraY: { en: 'bias', zh: '偏置' },
  extraHead: { en: 'head {h}', zh: '头 {h}' },
  extraTableCaption: { en: 'The last query (i = {i}) of batch item {b}: its bias and weights beyond the trained length {L}', zh: '批次 {b} 的最后一个查询（i = {i}）：超出训练长度 {L} 的偏置与权重' },
  extraAtTrained: { en: 'bias at distance {d}', zh: '距离 {d} 处的偏置' },
  extraAtFar: { en: 'bias at distance {d}', zh: '距离 {d} 处的偏置' },
  extraSum: { en: 'Σ weights', zh: 'Σ 权重' },
  extraBeyond: { en: 'weight beyond {L}', zh: '超出 {L} 的权重' },
  evictTitle: { en: 'Evict the sinks: the window alone (StreamingLLM)', zh: '逐出汇点：只剩窗口（StreamingLLM）' },
  evictIntro: { en: 'The core ran the same queries under the window alone (sinks 0, Mistral\'s sliding window): evicted_context. Once a query\'s window has passed the first tokens, the weight it put on the sinks (sink_mass) is spread over the window instead, and its context moves; a query whose window still covers the sinks is unchanged.', zh: '核心在只有窗口（sinks 0，Mistral 的滑动窗口）的掩码下对同样的查询再算一次：evicted_context。查询的窗口一旦越过开头的词元，它原先放在汇点上的权重（sink_mass）就被摊到窗口内，上下文随之改变；窗口仍覆盖汇点的查询不变。' },
  evictMass: { en: 'sink_mass: weight on the sinks (b {b}, h {h})', zh: 'sink_mass：汇点上的权重（b {b}，h {h}）' },
  evictMassCaption: { en: 'Σ_{j < sinks} weights[i, j]', zh: 'Σ_{j < sinks} weights[i, j]' },
  evictWith: { en: 'context with the sinks', zh: '保留汇点的上下文' },
  evictWithout: { en: 'evicted_context: the window alone', zh: 'evicted_context：只剩窗口' },
  evictDelta: { en: 'Largest change of the context: {d} at query {i} (its weight on the sinks: {m}).', zh: '上下文的最大变化：{d}，在查询 {i}（它在汇点上的权重：{m}）。' },
  axisQuery: { en: 'query i', zh: '查询 i' },
  axisD: { en: 'd', zh: 'd' },
  axisSinks: { en: 'sinks', zh: '汇点' },
} satisfies Record<string, Text>;
const t = viewText(T);

const cell = (text: string, head = false) => h(head ? 'th' : 'td', { text, ...(head ? { attrs: { scope: 'col' } } : {}) });
const row = (...cells: HTMLElement[]) => h('tr', null, ...cells);
const table = (caption: string, head: string[], rows: HTMLElement[]) =>
  h('div', { class: 'table-scroll', attrs: { tabindex: '0', role: 'region', 'aria-label': caption } }, h('table', { class: 'modern-table' }, h('caption', { text: caption }),
    h('thead', null, row(...head.map((x) => cell(x, true)))), h('tbody', null, ...rows)));
const fmt = (x: number) => (Number.isInteger(x) ? grouped(x) : Number(x.toPrecision(4)).toString());
const bytes = (n: number) => (n >= 1024 * 1024 ? `${fmt(n / (1024 * 1024))} MiB` : n >= 1024 ? `${fmt(n / 1024)} KiB` : `${fmt(n)} B`);
const section = (title: string, intro: string, ...body: (HTMLElement | null)[]) =>
  h('section', { class: 'modern' }, h('h3', { text: title }), h('p', { class: 'intro', text: intro }), ...body);

function gqa(trace: Trace, lang: Lang): HTMLElement | null {
  const q = trace.shapes?.q, k = trace.shapes?.k, v = trace.shapes?.v;
  if (!q || !k || !v) return null;
  const [, , H, E] = q, [, L_K, Hk] = k, D = v[3];
  const kvHead = (trace.kv_head as number[] | undefined) ?? range(H);
  const groups = range(Hk).map((g) => row(cell(String(g)), cell(range(H).filter((x) => kvHead[x] === g).join(', '))));
  const forms: [string, number][] = [['MHA', H], ...(Hk !== H && Hk !== 1 ? [['GQA', Hk] as [string, number]] : []), ['MQA', 1]];
  const mine = forms.map(([name, n]) => row(cell(name + (n === Hk ? ' ←' : '')), cell(String(n)), cell(fmt(n * (E + D))), cell(bytes(8 * n * (E + D)))));
  return section(t(lang, 'gqaTitle'), t(lang, 'gqaIntro'),
    table(t(lang, 'gqaGroups'), [t(lang, 'gqaKv'), t(lang, 'gqaQueries')], groups),
    table(t(lang, 'cacheTitle'), [t(lang, 'cacheForm'), t(lang, 'cacheHeads'), t(lang, 'cacheNumbers'), t(lang, 'cacheBytes64')], mine),
    h('p', { class: 'help', text: `${t(lang, 'cacheYours')} ${fmt(trace.cost?.kv_cache_numbers ?? 0)} (L_K = ${L_K})` }),
    realTable(lang));
}

/** A real model's cache line: per layer, the numbers one token adds, as the core's
 * cost.kv_cache_numbers counts them at B = L = 1 (tests/web/modern-c.test.mjs checks each against
 * the core's estimate at these sizes). Sources of the sizes: Llama-2-70B, Hugging Face's
 * meta-llama/Llama-2-70b-hf config (num_hidden_layers 80, num_attention_heads 64,
 * num_key_value_heads 8, hidden_size 8192); DeepSeek-V2, the tech report (arXiv 2405.04434 §3.1.2:
 * 60 layers, 128 heads, d_c 512, d_h^R 64, d_h 128), as in huggingface/transformers
 * configuration_deepseek_v2.py (commit 43e8548f: kv_lora_rank 512, qk_rope_head_dim 64,
 * qk_nope_head_dim 128, v_head_dim 128). */
export interface RealLine { model: string; form: string; layers: number; formula: string; perLayer: number }
export const REAL_LINES: readonly RealLine[] = [
  { model: 'Llama-2-70B', form: 'MHA (64 kv heads)', layers: 80, formula: '64 × (128 + 128)', perLayer: 64 * (128 + 128) },
  { model: 'Llama-2-70B', form: 'GQA (8 kv heads)', layers: 80, formula: '8 × (128 + 128)', perLayer: 8 * (128 + 128) },
  { model: 'Llama-2-70B', form: 'MQA (1 kv head)', layers: 80, formula: '1 × (128 + 128)', perLayer: 128 + 128 },
  { model: 'DeepSeek-V2', form: 'MHA (128 heads)', layers: 60, formula: '128 × (128 + 64 + 128)', perLayer: 128 * (128 + 64 + 128) },
  { model: 'DeepSeek-V2', form: 'MLA', layers: 60, formula: '512 + 64', perLayer: 512 + 64 },
];

function realTable(lang: Lang): HTMLElement {
  const rows = REAL_LINES.map((l) => {
    const n = l.layers * l.perLayer;
    const r = row(cell(`${l.model} · ${l.form}`), cell(String(l.layers)), cell(`${l.formula} = ${fmt(l.perLayer)}`), cell(fmt(n)),
      cell(bytes(2 * n)), cell(bytes(2 * n * 4096)));
    r.dataset.line = `${l.model} ${l.form}`;
    r.dataset.numbers = String(n);
    return r;
  });
  return h('div', { class: 'modern-real', dataset: { field: 'modern.real' } },
    table(t(lang, 'realTitle'), [t(lang, 'realModel'), t(lang, 'realLayers'), t(lang, 'realPerLayer'), t(lang, 'realNumbers'),
      t(lang, 'realBytes'), t(lang, 'cache4k')], rows),
    h('p', { class: 'help', text: t(lang, 'realNote') }));
}

/** A trace tensor as nested arrays (flat typed results from the worker, or nested). */
const tree = (x: unknown): unknown => (isFlat(x) ? nested(x as never) : x);
const num = (x: unknown, path: number[]) => Number(at(x, path));

/** RoFormer §3.4.3's bound over the relative distance (the trace's rope_decay), with the
 * scenario's own distances marked. */
function ropeDecay(trace: Trace, scenario: Record<string, unknown>, E: number, lang: Lang): HTMLElement | null {
  const decay = tree(trace.rope_decay);
  if (!Array.isArray(decay)) return null;
  const ys = decay.map(Number), xs = range(ys.length);
  const r = (scenario.rope ?? {}) as Record<string, unknown>;
  const base = Number(r.base ?? 10000);
  const pq = Array.isArray(r.positions_q) ? r.positions_q as number[] : range(trace.shapes?.q?.[1] ?? 0);
  const pk = Array.isArray(r.positions_k) ? r.positions_k as number[] : range(trace.shapes?.k?.[1] ?? 0);
  const seen = [...new Set(pq.flatMap((m) => pk.map((n) => Math.abs(m - n))))].filter((d) => d < ys.length).sort((a, b) => a - b);
  const markers = seen.slice(0, 24).map((d) => ({ name: `|m − n| = ${d}`, x: d, y: ys[d], cls: 's1', field: 'rope_decay' }));
  const far = ys.slice(256).reduce((a, y) => a + y, 0) / Math.max(1, ys.length - 256);
  const last = seen.length ? seen[seen.length - 1] : 0;
  const chart = lineChart({ series: [{ name: 'rope_decay', xs, ys, cls: 's0' }], markers, xTitle: t(lang, 'decayX'), yTitle: t(lang, 'decayY'),
    field: 'rope-decay', width: 420, height: 220, xDomain: [0, ys.length - 1], yDomain: [0, Math.max(...ys)],
    ariaLabel: `${t(lang, 'decayTitle')}: ${[0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 511].filter((d) => d < ys.length).map((d) => `${d}: ${fmt(ys[d])}`).join(', ')}` });
  chart.querySelectorAll('circle.marker').forEach((c, i) => c.setAttribute('data-index', String(markers[i].x)));
  return h('div', { class: 'rope-decay' }, h('h4', { text: t(lang, 'decayTitle') }),
    h('p', { class: 'help', text: fill(t(lang, 'decayIntro'), { E, base }) }), chart,
    h('p', { class: 'help legend-note', dataset: { field: 'rope-decay.summary' },
      text: fill(t(lang, 'decayAt'), { d0: fmt(ys[0]), r: last, dr: fmt(ys[last]), far: fmt(far) }) }));
}


function rope(trace: Trace, scenario: Record<string, unknown>, lang: Lang): HTMLElement | null {
  const angles = trace.rope_angles as number[][] | undefined;
  if (!angles) return null;
  const r = (scenario.rope ?? {}) as Record<string, unknown>;
  const E = (trace.shapes?.q ?? [])[3] ?? 2 * (angles[0]?.length ?? 1);
  const positions = [...new Set([...(Array.isArray(r.positions_q) ? r.positions_q as number[] : range(trace.shapes?.q?.[1] ?? 0)),
    ...(Array.isArray(r.positions_k) ? r.positions_k as number[] : range(trace.shapes?.k?.[1] ?? 0))])].sort((a, b) => a - b).slice(0, 24);
  const pairs = range(angles[0]?.length ?? 0);
  const rows = positions.map((m) => row(cell(String(m)), ...pairs.map((p) => cell(fmt(angles[m]?.[p] ?? 0)))));
  const perm = [...range(E / 2).map((p) => 2 * p), ...range(E / 2).map((p) => 2 * p + 1)];
  return section(t(lang, 'ropeTitle'), t(lang, 'ropeIntro'),
    table(t(lang, 'ropeTitle'), [t(lang, 'ropePosition'), ...pairs.map((p) => `${t(lang, 'ropePair')} ${p}`)], rows),
    h('p', { class: 'help', text: `${t(lang, 'ropeStyle')}: ${t(lang, r.style === 'interleaved' ? 'ropeInterleaved' : 'ropeHalf')}` }),
    h('p', { class: 'help', text: `${t(lang, 'ropePermutation')} [${perm.join(', ')}]` }),
    ropeDecay(trace, scenario, E, lang));
}

function alibi(trace: Trace, lang: Lang, b: number, trained: number, onTrained: (n: number) => void): HTMLElement | null {
  const bias = tree(trace.bias) as number[][][] | undefined;
  if (!bias) return null;
  const L_Q = bias[0]?.length ?? 0, L_K = bias[0]?.[0]?.length ?? 0;
  // slope_h = −bias[h][i][j] / |i − j| at a pair one apart
  const slope = (hh: number) => (L_K > 1 ? -(bias[hh][0][1] as number) : L_Q > 1 ? -(bias[hh][1][0] as number) : 0);
  const rows = range(bias.length).map((hh) => row(cell(String(hh)), cell(fmt(slope(hh))), cell((bias[hh][L_Q - 1] ?? []).map(fmt).join('  '))));
  return section(t(lang, 'alibiTitle'), t(lang, 'alibiIntro'),
    table(t(lang, 'alibiTitle'), [t(lang, 'alibiHead'), t(lang, 'alibiSlope'), t(lang, 'alibiRow')], rows),
    alibiExtrapolation(trace, bias, lang, b, trained, onTrained));
}

/** The default trained length of the view: a third of the keys (alibi-extrapolate: 8 of 24). */
export const defaultTrained = (L_K: number) => Math.max(1, Math.ceil(L_K / 3));

/** ALiBi past the trained length: the last query's bias over distance per head (the trace's bias row),
 * the trained length marked; per head the bias at the trained length and at the farthest key, and
 * the last row of weights (its sum, its weight beyond the trained length). */
function alibiExtrapolation(trace: Trace, bias: number[][][], lang: Lang, b: number, trained: number, onTrained: (n: number) => void): HTMLElement | null {
  const H = bias.length, L_Q = bias[0]?.length ?? 0, L_K = bias[0]?.[0]?.length ?? 0;
  if (!L_Q || L_K < 2) return null;
  const i = L_Q - 1, Lt = Math.max(1, Math.min(L_K, trained));
  const keys = range(L_K).filter((j) => j <= i);  // the last query's keys at distance i − j >= 0
  const series = range(H).map((hh) => ({ name: fill(t(lang, 'extraHead'), { h: hh }), xs: keys.map((j) => i - j),
    ys: keys.map((j) => bias[hh][i][j]), cls: `s${hh % 8}` }));
  const lowest = Math.min(...series.flatMap((s) => s.ys));
  const chart = lineChart({ series, xTitle: t(lang, 'extraX'), yTitle: t(lang, 'extraY'), field: 'alibi-extrapolation',
    width: 420, height: 220, xDomain: [0, Math.max(1, i)], yDomain: [Math.min(-1e-9, lowest), 0],
    markers: range(H).filter(() => Lt - 1 <= i).map((hh) => ({ name: `${t(lang, 'extraTrained')} ${Lt}: ${fill(t(lang, 'extraHead'), { h: hh })}`,
      x: Lt - 1, y: bias[hh][i][i - (Lt - 1)], cls: `s${hh % 8}`, field: 'bias' })),
    ariaLabel: `${t(lang, 'extraTitle')}: ${series.map((s) => `${s.name}: ${fmt(s.ys[0])} … ${fmt(s.ys[s.ys.length - 1])}`).join('; ')}` });
  const weights = tree(trace.weights);
  const far = i;  // the farthest key of the last query: j = 0
  const head = (hh: number) => {
    const w = range(L_K).map((j) => num(weights, [b, hh, i, j]));
    const beyond = range(L_K).filter((j) => i - j >= Lt).reduce((a, j) => a + w[j], 0);
    const r = row(cell(String(hh)), cell(fmt(bias[hh][i][i - (Lt - 1)] ?? NaN)), cell(fmt(bias[hh][i][0])),
      cell(fmt(w.reduce((a, x) => a + x, 0))), cell(fmt(beyond)));
    r.dataset.head = String(hh);
    return r;
  };
  const slider = h('input', { type: 'range', min: '1', max: String(L_K), step: '1', value: String(Lt),
    dataset: { key: 'alibi.trained' }, attrs: { 'aria-label': t(lang, 'extraTrained') } });
  slider.addEventListener('change', () => onTrained(Number(slider.value)));
  return h('div', { class: 'alibi-extrapolation', dataset: { field: 'alibi-extrapolation-view' } },
    h('h4', { text: t(lang, 'extraTitle') }), h('p', { class: 'help', text: t(lang, 'extraIntro') }),
    h('label', { class: 'step-controls' }, h('span', { text: `${t(lang, 'extraTrained')}: ` }), slider,
      h('output', { dataset: { field: 'alibi.trained' }, text: String(Lt) })),
    chart,
    table(fill(t(lang, 'extraTableCaption'), { i, b, L: Lt }), [t(lang, 'alibiHead'), fill(t(lang, 'extraAtTrained'), { d: Lt - 1 }),
      fill(t(lang, 'extraAtFar'), { d: far }), t(lang, 'extraSum'), fill(t(lang, 'extraBeyond'), { L: Lt })], range(H).map(head)));
}

function sinks(trace: Trace, scenario: Record<string, unknown>, b: number, hh: number, lang: Lang): HTMLElement | null {
  const mask = (scenario.mask ?? {}) as Record<string, unknown>;
  if (mask.kind !== 'sink' || !trace.weights) return null;
  const s = Number(mask.sinks ?? 0);
  const w = (at(tree(trace.weights), [b, hh]) ?? []) as number[][];
  const rows = w.map((r, i) => row(cell(`q${i}`), cell(fmt(r.slice(0, s).reduce((a, x) => a + x, 0)))));
  return section(t(lang, 'sinkTitle'), t(lang, 'sinkIntro'),
    trace.sink_mass === undefined ? table(`${t(lang, 'sinkTitle')} (sinks = ${s}, window = ${String(mask.window)})`, [t(lang, 'sinkQuery'), t(lang, 'sinkMass')], rows) : null,
    eviction(trace, b, hh, lang));
}

/** StreamingLLM's eviction on the learner's tensors: the trace's sink_mass (the weight each query puts
 * on the sinks), its context and evicted_context (the core's run under the window alone) as maps. */
function eviction(trace: Trace, b: number, hh: number, lang: Lang): HTMLElement | null {
  const mass = tree(trace.sink_mass), evicted = tree(trace.evicted_context), context = tree(trace.context);
  if (mass === undefined || evicted === undefined) return null;
  const [, L_Q, , D] = trace.shapes.evicted_context ?? [1, 0, 1, 1];
  const qs = range(L_Q), ds = range(D);
  const massMap = heatmap({ title: fill(t(lang, 'evictMass'), { b, h: hh }), caption: t(lang, 'evictMassCaption'), field: 'sink_mass',
    values: qs.map((i) => [num(mass, [b, hh, i])]), color: 'weights', lang, axes: [t(lang, 'axisQuery'), t(lang, 'axisSinks')],
    rowLabels: qs.map((i) => `q${i}`), colLabels: ['Σ'], indexOf: (i) => `${b},${hh},${i}` });
  const ctx = (x: unknown) => qs.map((i) => ds.map((d) => num(x, [b, i, hh, d])));
  const withSinks = ctx(context), without = ctx(evicted);
  const extent = Math.max(1e-12, ...withSinks.flat().map(Math.abs), ...without.flat().map(Math.abs));
  const map = (title: string, field: string, values: number[][]) => heatmap({ title, field, values, color: 'diverging', extent, lang,
    axes: [t(lang, 'axisQuery'), t(lang, 'axisD')], rowLabels: qs.map((i) => `q${i}`), colLabels: ds.map((d) => `d${d}`),
    indexOf: (i, d) => `${b},${i},${hh},${d}` });
  let worst = 0, at_ = 0;
  for (const i of qs) {
    const d = Math.max(...ds.map((k) => Math.abs(withSinks[i][k] - without[i][k])));
    if (d > worst) { worst = d; at_ = i; }
  }
  return h('div', { class: 'sink-eviction', dataset: { field: 'sink-eviction' } },
    h('h4', { text: t(lang, 'evictTitle') }), h('p', { class: 'help', text: t(lang, 'evictIntro') }),
    h('div', { class: 'maps' }, massMap, map(t(lang, 'evictWith'), 'context', withSinks), map(t(lang, 'evictWithout'), 'evicted_context', without)),
    h('p', { class: 'help evict-delta', dataset: { field: 'sink-eviction.delta' },
      text: fill(t(lang, 'evictDelta'), { d: worst.toExponential(2), i: at_, m: fmt(num(mass, [b, hh, at_])) }) }));
}

/** Whether the trace shows any of the forms (the view is drawn only then). */
export function hasModern(trace: Trace | null, scenario: Record<string, unknown>): boolean {
  if (!trace) return false;
  const mask = (scenario.mask ?? {}) as Record<string, unknown>;
  return trace.kv_head !== undefined || trace.rope_angles !== undefined || trace.bias !== undefined || mask.kind === 'sink';
}

const TITLE = { en: "Today's models' forms: GQA/MQA, RoPE, ALiBi, sinks", zh: '当今模型的注意力形式：GQA/MQA、RoPE、ALiBi、sink' };

export function modernFor(host: ViewHost, trace: Trace): HTMLElement | null {
  const { session, lang } = host;
  const s = session.scenario as Record<string, unknown>;
  if (!hasModern(trace, s)) return null;
  // ALiBi's trained length: this element's setting of the view (a third of L_K until moved)
  const state = host.own('modern.trained', () => ({ trained: 0 }));
  const L_K = trace.shapes?.k?.[1] ?? 1;
  const trained = state.trained > 0 ? Math.min(state.trained, L_K) : defaultTrained(L_K);
  const onTrained = (n: number) => { state.trained = n; host.redraw(); host.refocus('alibi.trained'); };
  // a named deep dive of its own (layout.ts section(): data-field and its h3). Built anew, not kept
  // (host.memo): each edit's trace is new, and a kept view would be replaced whole (300 nodes and
  // their maps drawn again, garbage for the next GC) where the patch updates its cells in place
  return h('div', { class: 'modern-view', dataset: { view: 'modern', field: 'modern-view' } },
    h('h3', { text: TITLE[lang] }),
    gqa(trace, lang), rope(trace, s, lang), alibi(trace, lang, session.b, trained, onTrained), sinks(trace, s, session.b, session.h, lang));
}
