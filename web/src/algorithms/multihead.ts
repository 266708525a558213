// multihead: d2l's multi-head attention (or TSLib's AttentionLayer around ProbAttention): its own
// queries, keys and values; the masks, scale and prob fields are those of its inner attention.
import type { Scenario } from '../engine/compute';
import type { Prop } from '../state/props';
import { flow, isAlg, snippet, type PageAlgorithm } from './module';
import { referenceProp } from '../state/reference';

const isMh = isAlg('multihead');
const given = (s: Scenario) => s.weights !== null && typeof s.weights === 'object';
const wq = (s: Scenario) => (given(s) ? ((s.weights as Scenario).W_q as unknown[] | undefined)?.length : undefined);
/** The projections' width: the rows of W_q when the weights are given, else num_hiddens. */
const hiddens = (s: Scenario) => Number(wq(s) ?? s.num_hiddens ?? 0);

/** Its inputs when it is picked from the menu (the page's q, k, v are (B, L, H, E); put aside meanwhile). */
const input = (key: string, value: number[][]): Prop => ({ key, kind: 'tensor', panel: 'tensors', label: { en: key, zh: key },
  applies: isMh, initial: () => [value] });

const props: Prop[] = [
  input('queries', [[1, 0], [0, 1]]), input('keys', [[1, 0], [0, 1], [1, 1]]), input('values', [[10, 0], [0, 10], [5, 5]]),
  { key: 'inner', kind: 'enum', panel: 'options', label: { en: 'inner attention', zh: '内部注意力' },
    options: () => ['full', 'prob'], applies: isMh, optional: true, default: 'full',
    choices: [
      { value: 'full', label: { en: 'full (d2l)', zh: 'full（d2l）' } },
      { value: 'prob', label: { en: 'prob (Informer)', zh: 'prob（Informer）' } },
    ] },
  { key: 'num_heads', kind: 'int', panel: 'options', label: { en: 'num_heads', zh: '头数 num_heads' }, min: 1, max: 64,
    applies: isMh, initial: () => 1, structural: true,
    help: { en: 'd_head = num_hiddens / num_heads', zh: 'd_head = num_hiddens / num_heads' } },
  { key: 'num_hiddens', kind: 'int', panel: 'options', label: { en: 'num_hiddens', zh: '隐藏维 num_hiddens' }, min: 1, max: 1024,
    applies: (s) => isMh(s) && !given(s), initial: () => 16, structural: true,
    help: { en: 'rows of W_q, W_k, W_v (drawn from the seed)', zh: 'W_q、W_k、W_v 的行数（由种子生成）' } },
  { key: 'bias', kind: 'bool', panel: 'options', label: { en: 'bias (b_q, b_k, b_v, b_o)', zh: '偏置（b_q、b_k、b_v、b_o）' },
    applies: (s) => isMh(s) && !given(s), optional: true, defaultOf: (s) => s.inner === 'prob',
    help: { en: 'default: d2l\'s off, TSLib\'s (inner prob) on', zh: '默认：d2l 关，TSLib（inner prob）开' } },
  referenceProp('multihead', ['informer-mix']),
];

export default {
  name: 'multihead',
  traits: {
    scaleWidth: (s) => hiddens(s) / Math.max(1, Number(s.num_heads) || 1),
    dimLabels: { E: 'd_q', E_k: 'd_k', D: 'd_v' },
    grids: [{ key: 'queries', axes: ['B', 'L_Q', 'E'], rowPrefix: 'q' }, { key: 'keys', axes: ['B', 'L_K', 'E_k'], rowPrefix: 'k' },
      { key: 'values', axes: ['B', 'L_K', 'D'], rowPrefix: 'v' }],
    weights: {
      names: ['W_q', 'W_k', 'W_v', 'W_o', 'b_q', 'b_k', 'b_v', 'b_o'],
      drops: ['num_hiddens', 'bias'],
      follow: { E: 'W_q', E_k: 'W_k', D: 'W_v' },
    },
  },
  props,
  flow: flow('multihead'),
  pytorch: snippet('multiheadSnippet'),
} satisfies PageAlgorithm;
