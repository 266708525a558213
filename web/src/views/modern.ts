// Why today's models attend the way they do (issue 16), for full's trace: GQA/MQA (which query
// heads share which kv head; the KV cache of MHA, GQA and MQA for the learner's sizes and for
// Llama-2-70B, in numbers and bytes per token), RoPE (each pair's angle at each position, why the
// scores depend on m − n only, the half/interleaved permutation a checkpoint conversion applies),
// ALiBi (the slopes and each head's bias for the last query) and the sink mask (the weight each
// query puts on the sink tokens). Tables of the trace's own numbers; lazily loaded. DOM only.
import { h } from '../dom';
import { at, range } from '../format';
import type { Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import type { ViewHost } from '../algorithms/module';

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
  llamaTitle: { en: 'Llama-2-70B: 80 layers, 64 query heads, head size 128, fp16 (2 bytes)', zh: 'Llama-2-70B：80 层，64 个查询头，头维度 128，fp16（2 字节）' },
  cacheBytes16: { en: 'bytes / token (all layers, fp16)', zh: '字节 / 词元（全部层，fp16）' },
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
} satisfies Record<string, Text>;
const t = viewText(T);

const cell = (text: string, head = false) => h(head ? 'th' : 'td', { text, ...(head ? { attrs: { scope: 'col' } } : {}) });
const row = (...cells: HTMLElement[]) => h('tr', null, ...cells);
const table = (caption: string, head: string[], rows: HTMLElement[]) =>
  h('div', { class: 'table-scroll' }, h('table', { class: 'modern-table' }, h('caption', { text: caption }),
    h('thead', null, row(...head.map((x) => cell(x, true)))), h('tbody', null, ...rows)));
const fmt = (x: number) => (Number.isInteger(x) ? x.toLocaleString('en-US') : Number(x.toPrecision(4)).toString());
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
  const llama = ([['MHA', 64], ['GQA (Llama-2-70B)', 8], ['MQA', 1]] as [string, number][]).map(([name, n]) => {
    const perToken = 2 * 80 * n * 128 * 2;
    return row(cell(name), cell(String(n)), cell(bytes(perToken)), cell(bytes(perToken * 4096)));
  });
  return section(t(lang, 'gqaTitle'), t(lang, 'gqaIntro'),
    table(t(lang, 'gqaGroups'), [t(lang, 'gqaKv'), t(lang, 'gqaQueries')], groups),
    table(t(lang, 'cacheTitle'), [t(lang, 'cacheForm'), t(lang, 'cacheHeads'), t(lang, 'cacheNumbers'), t(lang, 'cacheBytes64')], mine),
    h('p', { class: 'help', text: `${t(lang, 'cacheYours')} ${fmt(trace.cost?.kv_cache_numbers ?? 0)} (L_K = ${L_K})` }),
    table(t(lang, 'llamaTitle'), [t(lang, 'cacheForm'), t(lang, 'cacheHeads'), t(lang, 'cacheBytes16'), t(lang, 'cache4k')], llama));
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
    h('p', { class: 'help', text: `${t(lang, 'ropePermutation')} [${perm.join(', ')}]` }));
}

function alibi(trace: Trace, lang: Lang): HTMLElement | null {
  const bias = trace.bias as number[][][] | undefined;
  if (!bias) return null;
  const L_Q = bias[0]?.length ?? 0, L_K = bias[0]?.[0]?.length ?? 0;
  // slope_h = −bias[h][i][j] / |i − j| at a pair one apart
  const slope = (hh: number) => (L_K > 1 ? -(bias[hh][0][1] as number) : L_Q > 1 ? -(bias[hh][1][0] as number) : 0);
  const rows = range(bias.length).map((hh) => row(cell(String(hh)), cell(fmt(slope(hh))), cell((bias[hh][L_Q - 1] ?? []).map(fmt).join('  '))));
  return section(t(lang, 'alibiTitle'), t(lang, 'alibiIntro'),
    table(t(lang, 'alibiTitle'), [t(lang, 'alibiHead'), t(lang, 'alibiSlope'), t(lang, 'alibiRow')], rows));
}

function sinks(trace: Trace, scenario: Record<string, unknown>, b: number, hh: number, lang: Lang): HTMLElement | null {
  const mask = (scenario.mask ?? {}) as Record<string, unknown>;
  if (mask.kind !== 'sink' || !trace.weights) return null;
  const s = Number(mask.sinks ?? 0);
  const w = (at(trace.weights, [b, hh]) ?? []) as number[][];
  const rows = w.map((r, i) => row(cell(`q${i}`), cell(fmt(r.slice(0, s).reduce((a, x) => a + x, 0)))));
  return section(t(lang, 'sinkTitle'), t(lang, 'sinkIntro'),
    table(`${t(lang, 'sinkTitle')} (sinks = ${s}, window = ${String(mask.window)})`, [t(lang, 'sinkQuery'), t(lang, 'sinkMass')], rows));
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
  // a named deep dive of its own (layout.ts section(): data-field and its h3)
  return host.memo('modern', [trace, session.b, session.h, lang], () => h('div', { class: 'modern-view', dataset: { view: 'modern', field: 'modern-view' } },
    h('h3', { text: TITLE[lang] }),
    gqa(trace, lang), rope(trace, s, lang), alibi(trace, lang), sinks(trace, s, session.b, session.h, lang)));
}
