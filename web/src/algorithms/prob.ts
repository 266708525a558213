// prob: Informer's ProbAttention (the seed), its pitfall switches and sample index. Its steps and
// pitfalls are drawn in the ProbAttention panel, beside full attention and the reference run.
import type { Prop } from '../state/props';
import { isProb, maskKind, panelView, snippet, type PageAlgorithm } from './module';

const props: Prop[] = [
  { key: 'factor', kind: 'int', panel: 'prob', label: { en: 'factor c', zh: '因子 c' }, min: 1, max: 10,
    control: 'range', applies: isProb, optional: true, default: 5,
    help: { en: 'U_part = min(c·⌈ln L_K⌉, L_K), u = min(c·⌈ln L_Q⌉, L_Q)', zh: 'U_part = min(c·⌈ln L_K⌉, L_K)，u = min(c·⌈ln L_Q⌉, L_Q)' } },
  // kept or put aside by its shape, which only the core knows (prob.ts fitSamples), never by normalise
  { key: 'sample_index', kind: 'index', panel: 'prob', label: { en: 'sample_index', zh: 'sample_index（抽样下标）' },
    applies: isProb, optional: true },
  { key: 'output_attention', kind: 'bool', panel: 'prob', label: { en: 'output_attention (attn)', zh: 'output_attention（输出 attn）' },
    applies: isProb, optional: true, default: false },
  { key: 'causal_initial', kind: 'enum', panel: 'prob',
    label: { en: 'initial context under the causal mask', zh: '因果掩码下的初始上下文' },
    options: () => ['sum', 'mean'], applies: (s) => isProb(s) && maskKind(s) === 'causal', optional: true, default: 'sum',
    choices: [
      { value: 'sum', label: { en: 'cumulative sum (reference)', zh: '累加和（参考实现）' } },
      { value: 'mean', label: { en: 'cumulative mean', zh: '累积平均' } },
    ],
    help: { en: 'row i of a lazy query: Σ_{j≤i} v_j, or the same divided by i + 1',
      zh: '默认查询的第 i 行：Σ_{j≤i} v_j，或再除以 i + 1' } },
  { key: 'sparsity_divisor', kind: 'enum', panel: 'prob',
    label: { en: 'sparsity M = max − sum / …', zh: '稀疏度 M = 最大值 − 和 / …' },
    options: () => ['L_K', 'U_part'], applies: isProb, optional: true, default: 'L_K',
    choices: [
      { value: 'L_K', label: { en: 'L_K (reference)', zh: 'L_K（参考实现）' } },
      { value: 'U_part', label: { en: 'U_part (max − mean, the paper)', zh: 'U_part（最大值 − 平均，论文）' } },
    ] },
  { key: 'sample_per_head', kind: 'bool', panel: 'prob', label: { en: 'sampled keys', zh: '抽样的键' },
    applies: isProb, optional: true, default: false,
    choices: [
      { value: false, label: { en: 'one sample for all heads (reference)', zh: '所有头共用一份（参考实现）' } },
      { value: true, label: { en: 'one sample per head', zh: '每个头一份' } },
    ] },
  { key: 'squeeze_bug', kind: 'bool', panel: 'prob', label: { en: '.squeeze() at H = 1, B > 1: each item updates', zh: 'H = 1、B > 1 时的 .squeeze()：每个批次更新' },
    applies: isProb, optional: true, default: true,
    choices: [
      { value: true, label: { en: 'all items\' top rows (reference)', zh: '所有批次的入选行（参考实现）' } },
      { value: false, label: { en: 'its own top rows', zh: '自己的入选行' } },
    ] },
];

export default {
  name: 'prob',
  traits: { scale: true, prob: true },
  props,
  approximates: true,
  panelView: panelView(() => import('../views/prob-panel'), (m, host, trace) => (m ? m.probPanel(host, trace, (key) => props.find((p) => p.key === key)!.default) : [])),
  measured: [{ name: 'prob', fields: () => ({ algorithm: 'prob' }) }],
  pytorch: snippet('probSnippet'),
} satisfies PageAlgorithm;
