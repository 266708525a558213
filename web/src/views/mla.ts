// mla's view (helper modern-b, issue 16): what one token costs the KV cache, MLA against multi-head,
// grouped and multi-query attention, for the learner's sizes and for DeepSeek-V2's; and the textbook
// and absorbed paths' outputs side by side (their largest difference). DOM only.
// modern-c: what the cache holds drawn as maps: the trace's latent (L × kv_lora_rank) and k_rope
// (L × qk_rope_head_dim) of batch item b, with their legends, explained (explain/mla.ts).
import { h } from '../dom';
import { fromNested, isFlat, type Scenario, type Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import { fillTemplate as fill } from './template';
import { heatmap } from './heatmap';
import { range } from '../format';

const T = {
  mlaTitle: { en: 'The KV cache of one token, one layer', zh: '一个词元、一层的 KV 缓存' },
  mlaCaption: { en: 'MLA caches the latent (kv_lora_rank C) and one rotary key (r) per token, shared by every head; multi-head attention caches every head\'s key (n + r) and value (v); GQA one key and value per group; MQA one for all. Bytes in bf16 (2 per number).', zh: 'MLA 每个词元只缓存潜向量（kv_lora_rank C）和一个旋转键（r），所有头共享；多头注意力缓存每个头的键（n + r）和值（v）；GQA 每组一份；MQA 全部共用一份。字节按 bf16（每个数 2 字节）。' },
  mlaKind: { en: 'attention', zh: '注意力' },
  mlaFormula: { en: 'numbers per token', zh: '每词元的数' },
  mlaNumbers: { en: 'numbers', zh: '数' },
  mlaBytes: { en: 'bytes (bf16)', zh: '字节（bf16）' },
  mlaRatio: { en: '× MLA', zh: '× MLA' },
  mlaYours: { en: 'Your sizes: H = {H}, n = {n}, r = {r}, v = {v}, C = {C}', zh: '你的尺寸：H = {H}，n = {n}，r = {r}，v = {v}，C = {C}' },
  mlaV2: { en: 'DeepSeek-V2: H = 128, n = 128, r = 64, v = 128, C = 512 (GQA with 8 groups for comparison)', zh: 'DeepSeek-V2：H = 128，n = 128，r = 64，v = 128，C = 512（GQA 取 8 组作对比）' },
  mlaPaths: { en: 'Both paths', zh: '两条路径' },
  mlaPathsText: { en: 'output (textbook: per-head keys and values from kv_b_proj) and output_absorbed (kv_b_proj folded into the query and the output: attention over the latent alone) differ by at most {d} (SPEC: 1e-12).', zh: 'output（教科书路径：由 kv_b_proj 得到每个头的键和值）与 output_absorbed（把 kv_b_proj 吸收进查询和输出：只对潜向量做注意力）最大相差 {d}（SPEC：1e-12）。' },
  mlaCacheMaps: { en: 'What the cache holds, token by token (batch item {b})', zh: '缓存中逐词元保存的内容（批次 {b}）' },
  mlaCacheMapsHelp: { en: 'latent = RMSNorm(the first kv_lora_rank outputs of kv_a_proj_with_mqa x), shared by every head; k_rope = RoPE(its last qk_rope_head_dim outputs) at the token\'s position, one rotary key for every head. Per-head keys and values are never cached: the absorbed path reads these two alone.', zh: 'latent = RMSNorm(kv_a_proj_with_mqa x 的前 kv_lora_rank 个输出)，所有头共享；k_rope = 在词元位置上对其后 qk_rope_head_dim 个输出做 RoPE，所有头共用一个旋转键。逐头的键和值从不缓存：吸收路径只读取这两者。' },
  mlaLatent: { en: 'latent c_kv: L × kv_lora_rank', zh: '潜向量 c_kv：L × kv_lora_rank' },
  mlaKRope: { en: 'k_rope: L × qk_rope_head_dim', zh: 'k_rope：L × qk_rope_head_dim' },
  axisToken: { en: 'token i', zh: '词元 i' },
  axisC: { en: 'latent entry c', zh: '潜向量分量 c' },
  axisR: { en: 'rope entry', zh: 'rope 分量' },
  mlaContextOnly: { en: 'Trace "context": only the absorbed path ran (no per-head key was formed).', zh: 'trace 为 "context"：只运行了吸收路径（没有形成任何逐头的键）。' },
} satisfies Record<string, Text>;
const t = viewText(T);

export interface MlaSizes { H: number; n: number; r: number; v: number; C: number }

/** The numbers a token puts in the cache of one layer: [label, formula, numbers]. */
export function cacheRows(s: MlaSizes, groups: number | null): [string, string, number][] {
  const kv = s.n + s.r + s.v;
  const rows: [string, string, number][] = [['MHA', `H (n + r + v) = ${s.H} × ${kv}`, s.H * kv]];
  if (groups !== null) rows.push([`GQA (${groups})`, `G (n + r + v) = ${groups} × ${kv}`, groups * kv]);
  rows.push(['MQA', `n + r + v = ${kv}`, kv], ['MLA', `C + r = ${s.C} + ${s.r}`, s.C + s.r]);
  return rows;
}

function table(lang: Lang, caption: string, rows: [string, string, number][]): HTMLElement {
  const mla = rows[rows.length - 1][2];
  return h('table', { class: 'mla-cache' },
    h('caption', { text: caption }),
    h('thead', null, h('tr', null, ...[t(lang, 'mlaKind'), t(lang, 'mlaFormula'), t(lang, 'mlaNumbers'), t(lang, 'mlaBytes'), t(lang, 'mlaRatio')]
      .map((x) => h('th', { scope: 'col', text: x })))),
    h('tbody', null, ...rows.map(([name, formula, n]) => h('tr', null, h('th', { scope: 'row', text: name }), h('td', { text: formula }),
      h('td', { text: String(n) }), h('td', { text: String(2 * n) }), h('td', { text: (n / mla).toFixed(2) })))));
}

function flat(x: unknown): ArrayLike<number> | null {
  if (isFlat(x)) return (x as { data: ArrayLike<number> }).data;
  return fromNested(x)?.data ?? null;
}

/** The largest |output − output_absorbed|; null when the trace has only one of them. */
export function pathsDiff(trace: Trace): number | null {
  const a = flat(trace.output), b = flat(trace.output_absorbed);
  if (!a || !b || a.length !== b.length) return null;
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

/** The trace's (B, L, w) field at batch item b as L rows, or null where the trace has none. */
function rowsOf(trace: Trace, field: string, b: number): number[][] | null {
  const x = trace[field];
  if (x === undefined) return null;
  const f = isFlat(x) ? (x as { shape: number[]; data: ArrayLike<number> }) : fromNested(x);
  if (!f || f.shape.length !== 3) return null;
  const [, L, w] = f.shape, bb = Math.min(b, f.shape[0] - 1);
  return range(L).map((i) => range(w).map((c) => f.data[(bb * L + i) * w + c]));
}

function cacheMaps(trace: Trace, lang: Lang, b: number): HTMLElement | null {
  const latent = rowsOf(trace, 'latent', b), kRope = rowsOf(trace, 'k_rope', b);
  if (!latent || !kRope) return null;
  const bb = Math.min(b, (trace.shapes.latent?.[0] ?? 1) - 1);
  const map = (title: string, field: string, values: number[][], axis: string, prefix: string) => heatmap({ title, field, values, color: 'diverging', lang,
    axes: [t(lang, 'axisToken'), axis], rowLabels: values.map((_, i) => `x${i}`), colLabels: (values[0] ?? []).map((_, c) => `${prefix}${c}`),
    indexOf: (i, c) => `${bb},${i},${c}` });
  return h('div', { class: 'mla-cache-maps', dataset: { field: 'mla-cache' } },
    h('h3', { text: fill(t(lang, 'mlaCacheMaps'), { b: bb }) }), h('p', { class: 'help', text: t(lang, 'mlaCacheMapsHelp') }),
    h('div', { class: 'maps' }, map(t(lang, 'mlaLatent'), 'latent', latent, t(lang, 'axisC'), 'c'),
      map(t(lang, 'mlaKRope'), 'k_rope', kRope, t(lang, 'axisR'), 'r')));
}

export function mlaView(o: { trace: Trace; scenario: Scenario; lang: Lang; b?: number;
  /** The element's memo: the two cache tables, the same while the sizes and the language are, are drawn once */
  memo?: (name: string, deps: unknown[], build: () => HTMLElement) => HTMLElement }): HTMLElement {
  const s = o.scenario, lang = o.lang;
  const sizes: MlaSizes = { H: Number(s.num_heads), n: Number(s.qk_nope_head_dim), r: Number(s.qk_rope_head_dim),
    v: Number(s.v_head_dim), C: Number(s.kv_lora_rank) };
  const d = pathsDiff(o.trace);
  const memo = o.memo ?? ((_name: string, _deps: unknown[], build: () => HTMLElement) => build());
  return h('section', { class: 'mla-view' },
    h('h3', { text: t(lang, 'mlaTitle') }),
    h('p', { class: 'help', text: t(lang, 'mlaCaption') }),
    memo('mla-yours', [lang, JSON.stringify(sizes)], () => table(lang, fill(t(lang, 'mlaYours'), { ...sizes }), cacheRows(sizes, null))),
    memo('mla-v2', [lang], () => table(lang, t(lang, 'mlaV2'), cacheRows({ H: 128, n: 128, r: 64, v: 128, C: 512 }, 8))),
    cacheMaps(o.trace, lang, o.b ?? 0),
    h('h3', { text: t(lang, 'mlaPaths') }),
    h('p', { class: 'mla-paths', text: d === null ? t(lang, 'mlaContextOnly') : fill(t(lang, 'mlaPathsText'), { d: d.toExponential(2) }) }));
}
