// multihead: d2l's multi-head attention (or TSLib's AttentionLayer around ProbAttention): its own
// queries, keys and values; the masks, scale and prob fields are those of its inner attention.
import type { Scenario } from '../engine/compute';
import type { Prop } from '../state/props';
import { isAlg, snippet, type PageAlgorithm } from './module';

const isMh = isAlg('multihead');
const given = (s: Scenario) => s.weights !== null && typeof s.weights === 'object';
const wq = (s: Scenario) => (given(s) ? ((s.weights as Scenario).W_q as unknown[] | undefined)?.length : undefined);
/** The projections' width: the rows of W_q when the weights are given, else num_hiddens. */
const hiddens = (s: Scenario) => Number(wq(s) ?? s.num_hiddens ?? 0);

const props: Prop[] = [
  { key: 'inner', kind: 'enum', panel: 'options', label: { en: 'inner attention', zh: '内部注意力' },
    options: () => ['full', 'prob'], applies: isMh, optional: true, default: 'full',
    choices: [
      { value: 'full', label: { en: 'full: scaled dot-product (d2l)', zh: 'full：缩放点积（d2l）' } },
      { value: 'prob', label: { en: 'prob: ProbAttention (Informer\'s AttentionLayer)', zh: 'prob：ProbAttention（Informer 的 AttentionLayer）' } },
    ] },
  { key: 'num_heads', kind: 'int', panel: 'options', label: { en: 'num_heads', zh: '头数 num_heads' }, min: 1, max: 64,
    applies: isMh, initial: () => 1, structural: true,
    help: { en: 'divides num_hiddens; each head has d_head = num_hiddens / num_heads', zh: '须整除 num_hiddens；每个头 d_head = num_hiddens / num_heads' } },
  { key: 'num_hiddens', kind: 'int', panel: 'options', label: { en: 'num_hiddens', zh: '隐藏维 num_hiddens' }, min: 1, max: 1024,
    applies: (s) => isMh(s) && !given(s), initial: () => 16, structural: true,
    help: { en: 'the width of the projections W_q, W_k, W_v, W_o (drawn from the seed)', zh: '投影 W_q、W_k、W_v、W_o 的宽度（由随机种子生成）' } },
  { key: 'bias', kind: 'bool', panel: 'options', label: { en: 'bias (b_q, b_k, b_v, b_o)', zh: '偏置（b_q、b_k、b_v、b_o）' },
    applies: (s) => isMh(s) && !given(s), optional: true, defaultOf: (s) => s.inner === 'prob',
    help: { en: 'default: off for d2l (bias=False), on for TSLib\'s nn.Linear', zh: '默认：d2l 关闭（bias=False），TSLib 的 nn.Linear 打开' } },
];

export default {
  name: 'multihead',
  traits: {
    scaleWidth: (s) => hiddens(s) / Math.max(1, Number(s.num_heads) || 1),
    dimHelp: { en: 'B batch, L_Q queries, L_K keys (and values), d_q d_k d_v their widths; the heads are num_heads below',
      zh: 'B 批量，L_Q 查询数，L_K 键（及值）数，d_q d_k d_v 为它们的宽度；头数见下方 num_heads' },
    dimLabels: { E: 'd_q', E_k: 'd_k', D: 'd_v' },
    grids: [
      { key: 'queries', label: { en: 'queries (B, L_Q, d_q)', zh: '查询 queries (B, L_Q, d_q)' }, axes: ['B', 'L_Q', 'E'], rowPrefix: 'q', colPrefix: 'f' },
      { key: 'keys', label: { en: 'keys (B, L_K, d_k)', zh: '键 keys (B, L_K, d_k)' }, axes: ['B', 'L_K', 'E_k'], rowPrefix: 'k', colPrefix: 'f' },
      { key: 'values', label: { en: 'values (B, L_K, d_v)', zh: '值 values (B, L_K, d_v)' }, axes: ['B', 'L_K', 'D'], rowPrefix: 'v', colPrefix: 'f' },
    ],
    weights: {
      grids: [
        { name: 'W_q', label: { en: 'W_q (num_hiddens, d_q)', zh: 'W_q (num_hiddens, d_q)' } },
        { name: 'W_k', label: { en: 'W_k (num_hiddens, d_k)', zh: 'W_k (num_hiddens, d_k)' } },
        { name: 'W_v', label: { en: 'W_v (num_hiddens, d_v)', zh: 'W_v (num_hiddens, d_v)' } },
        { name: 'W_o', label: { en: 'W_o (out, num_hiddens)', zh: 'W_o (out, num_hiddens)' } },
        { name: 'b_q', label: { en: 'b_q', zh: 'b_q' } },
        { name: 'b_k', label: { en: 'b_k', zh: 'b_k' } },
        { name: 'b_v', label: { en: 'b_v', zh: 'b_v' } },
        { name: 'b_o', label: { en: 'b_o', zh: 'b_o' } },
      ],
      drops: ['num_hiddens', 'bias'],
      follow: { E: 'W_q', E_k: 'W_k', D: 'W_v' },
    },
  },
  props,
  pytorch: snippet('multiheadSnippet'),
} satisfies PageAlgorithm;
