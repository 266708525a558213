// The scenario's properties, declared once. Controls are generated from this table, and the
// scenario is normalised with it: a property that does not apply to the current algorithm or mask
// kind is put aside and comes back when it applies again.
//
// The scenario object itself (SPEC §2) is the state: the table describes how to read, edit and
// clean it, so fields it does not know (a multihead preset's weights, say) pass through intact.
// Which algorithm a property applies to comes from the algorithm table (algorithms.ts) or, for an
// algorithm's own options, `isAlg('name')`.
import { shapeOf } from '../format';
import { flashBlock, type Scenario } from '../compute';
import type { Text } from '../i18n';
import { algorithmRegistry, isAlg, traits } from './algorithms';
import { dims, get, set } from './scenario';

export type Kind = 'enum' | 'int' | 'number' | 'bool' | 'fill' | 'scale' | 'tensor' | 'lens' | 'allowed' | 'index';
export type Panel = 'algorithm' | 'tensors' | 'mask' | 'prob' | 'options';
export interface Choice { value: string | boolean; label: Text }

export interface Prop {
  /** Dotted path in the scenario. */
  key: string;
  kind: Kind;
  panel: Panel;
  label: Text;
  help?: Text;
  options?: (s: Scenario) => readonly string[];
  /** What each value does, shown as the option's text (an enum, or a bool drawn as a select). */
  choices?: readonly Choice[] | (() => readonly Choice[]);
  min?: number;
  max?: number;
  /** A bound that follows the scenario (a slider up to L_K). */
  maxOf?: (s: Scenario) => number;
  step?: number;
  /** 'range' draws a slider for an int. */
  control?: 'range';
  /** Whether the property applies; it may read only the properties above it in the table
   * (normalise goes through the table once, in order). */
  applies: (s: Scenario) => boolean;
  /** Absent means the core's default; `initial` fills it when it starts to apply. */
  optional?: boolean;
  /** The core's default, shown when the property is absent. */
  default?: unknown;
  /** A default that depends on the scenario (flash's block sizes), from the catalog. */
  defaultOf?: (s: Scenario) => unknown;
  initial?: (s: Scenario) => unknown;
}

const maskKind = (s: Scenario) => String((s.mask as Scenario | undefined)?.kind ?? 'none');
const hasMask = (s: Scenario) => traits(s).masks.length > 0;
const maskIs = (...kinds: string[]) => (s: Scenario) => hasMask(s) && kinds.includes(maskKind(s));
const reads = (tensor: 'q' | 'k' | 'v') => (s: Scenario) => traits(s).tensors.includes(tensor);
/** An algorithm's menu entry: its name and the registry's title. */
const titled = (name: string, title: string) => (title && title !== name ? `${name} — ${title}` : name);
/** ProbAttention's fields: the prob algorithm, or multihead with inner "prob". */
export const isProb = (s: Scenario) => traits(s).prob === true;

export const PROPS: readonly Prop[] = [
  { key: 'algorithm', kind: 'enum', panel: 'algorithm', label: { en: 'Algorithm', zh: '算法' },
    options: () => algorithmRegistry().map((a) => a.name),
    choices: () => algorithmRegistry().map((a) => ({ value: a.name,
      label: { en: titled(a.name, a.title), zh: titled(a.name, a.title_zh || a.title) } })),
    applies: () => true, initial: () => 'full' },
  { key: 'q', kind: 'tensor', panel: 'tensors', label: { en: 'Q (queries)', zh: 'Q（查询）' },
    applies: reads('q'), initial: () => [[[[1, 0]], [[0, 1]]]] },
  { key: 'k', kind: 'tensor', panel: 'tensors', label: { en: 'K (keys)', zh: 'K（键）' },
    applies: reads('k'), initial: () => [[[[1, 0]], [[0, 1]], [[1, 1]]]] },
  { key: 'v', kind: 'tensor', panel: 'tensors', label: { en: 'V (values)', zh: 'V（值）' },
    applies: reads('v'), initial: () => [[[[10, 0]], [[0, 10]], [[5, 5]]]] },

  { key: 'mask.kind', kind: 'enum', panel: 'mask', label: { en: 'kind', zh: '类型' },
    options: (s) => traits(s).masks, applies: hasMask, optional: true, default: 'none' },
  { key: 'mask.window', kind: 'int', panel: 'mask', label: { en: 'window w', zh: '窗口 w' }, min: 0, max: 64,
    help: { en: 'allowed iff |i−j| ≤ w', zh: '当 |i−j| ≤ w 时允许' },
    applies: maskIs('local', 'strided'), initial: () => 1 },
  { key: 'mask.dilation', kind: 'int', panel: 'mask', label: { en: 'dilation k', zh: '膨胀 k' }, min: 1, max: 64,
    help: { en: 'allowed iff |i−j| mod k = 0', zh: '当 |i−j| mod k = 0 时允许' },
    applies: maskIs('atrous'), initial: () => 2 },
  { key: 'mask.stride', kind: 'int', panel: 'mask', label: { en: 'stride s', zh: '步长 s' }, min: 1, max: 64,
    help: { en: 'also allowed iff |i−j| mod s = 0', zh: '|i−j| mod s = 0 时也允许' },
    applies: maskIs('strided'), initial: () => 2 },
  { key: 'mask.causal', kind: 'bool', panel: 'mask', label: { en: 'also causal (j ≤ i)', zh: '同时因果（j ≤ i）' },
    applies: maskIs('local', 'atrous', 'strided'), optional: true, default: false },
  { key: 'mask.valid_lens', kind: 'lens', panel: 'mask', label: { en: 'valid_lens', zh: 'valid_lens（有效长度）' },
    help: { en: 'key j allowed iff j < valid_len', zh: '当 j < valid_len 时允许键 j' },
    applies: maskIs('valid_lens'), initial: (s) => Array(dims(s).B).fill(dims(s).L_K) },
  { key: 'mask.allowed', kind: 'allowed', panel: 'mask', label: { en: 'allowed (click to toggle)', zh: '允许（点击切换）' },
    applies: maskIs('explicit'),
    initial: (s) => Array.from({ length: dims(s).L_Q }, () => Array(dims(s).L_K).fill(true)) },
  { key: 'mask.fill', kind: 'fill', panel: 'mask', label: { en: 'fill', zh: '填充值' },
    help: { en: 'written into masked scores before softmax', zh: 'softmax 前写入被遮挡的分数' },
    applies: (s) => hasMask(s) && maskKind(s) !== 'none', optional: true },

  { key: 'factor', kind: 'int', panel: 'prob', label: { en: 'factor c', zh: '因子 c' }, min: 1, max: 10,
    control: 'range', applies: isProb, optional: true, default: 5,
    help: { en: 'U_part = min(c·⌈ln L_K⌉, L_K), u = min(c·⌈ln L_Q⌉, L_Q)', zh: 'U_part = min(c·⌈ln L_K⌉, L_K)，u = min(c·⌈ln L_Q⌉, L_Q)' } },
  { key: 'seed', kind: 'int', panel: 'options', label: { en: 'seed', zh: '随机种子' }, min: 0,
    applies: () => true, optional: true, default: 0 },
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

  { key: 'scale', kind: 'scale', panel: 'options', label: { en: 'scale', zh: '缩放 scale' },
    applies: (s) => traits(s).scale === true, optional: true },
  { key: 'hidden', kind: 'int', panel: 'options', label: { en: 'hidden h', zh: '隐藏维 h' }, min: 1, max: 64,
    applies: (s) => isAlg('additive')(s) && s.weights === undefined, initial: () => 4 },
  { key: 'kernel', kind: 'enum', panel: 'options', label: { en: 'kernel K(u)', zh: '核函数 K(u)' },
    options: () => ['gaussian', 'boxcar', 'constant', 'epanechnikov'],
    applies: isAlg('nadaraya_watson'), optional: true, default: 'gaussian',
    choices: [
      { value: 'gaussian', label: { en: 'gaussian exp(−u²/2)', zh: '高斯 exp(−u²/2)' } },
      { value: 'boxcar', label: { en: 'boxcar [|u| < 1]', zh: '矩形 [|u| < 1]' } },
      { value: 'constant', label: { en: 'constant 1 (average pooling)', zh: '常数 1（平均汇聚）' } },
      { value: 'epanechnikov', label: { en: 'epanechnikov max(0, 1 − |u|)', zh: 'Epanechnikov max(0, 1 − |u|)' } },
    ],
    help: { en: 'u = (x_query − x_train) · w; weights = K(u) / Σ K(u)', zh: 'u = (x_query − x_train) · w；权重 = K(u) / Σ K(u)' } },
  { key: 'dataset.n_train', kind: 'int', panel: 'options', label: { en: 'training points n_train', zh: '训练样本数 n_train' },
    min: 1, max: 1000, applies: (s) => isAlg('nadaraya_watson')(s) && s.x_train === undefined, initial: () => 50,
    help: { en: 'd2l\'s data set: x = 5u sorted, y = 2 sin x + x^0.8 + 0.5z', zh: 'd2l 的数据集：x = 5u 排序，y = 2 sin x + x^0.8 + 0.5z' } },
  { key: 'w', kind: 'number', panel: 'options', label: { en: 'w (kernel width⁻¹)', zh: 'w（核宽度的倒数）' },
    applies: isAlg('nadaraya_watson'), optional: true, default: 1,
    help: { en: 'with train: the starting w', zh: '训练时：w 的初始值' } },
  // the note's linear attention and its relatives (issue 7)
  { key: 'feature_map', kind: 'enum', panel: 'options', label: { en: 'feature map φ', zh: '特征映射 φ' },
    options: () => ['elu1', 'relu', 'softmax_qk', 'cosine1'], applies: isAlg('linear'), optional: true, default: 'elu1',
    choices: [
      { value: 'elu1', label: { en: 'elu1: φ(x) = elu(x) + 1', zh: 'elu1：φ(x) = elu(x) + 1' } },
      { value: 'relu', label: { en: 'relu: φ(x) = max(x, 0)', zh: 'relu：φ(x) = max(x, 0)' } },
      { value: 'softmax_qk', label: { en: 'softmax_qk: softmax₁(Q) softmax₂(K)ᵀ (the note\'s trick)', zh: 'softmax_qk：softmax₁(Q) softmax₂(K)ᵀ（笔记中的 softmax 妙用）' } },
      { value: 'cosine1', label: { en: 'cosine1: sim = 1 + cos(q, k) (the author\'s idea)', zh: 'cosine1：sim = 1 + cos(q, k)（作者自己的构思）' } },
    ],
    help: { en: 'sim(q_i, k_j) = φ(q_i)·φ(k_j) ≥ 0; context_i = Σ_j sim v_j / Σ_j sim', zh: 'sim(q_i, k_j) = φ(q_i)·φ(k_j) ≥ 0；context_i = Σ_j sim v_j / Σ_j sim' } },
  { key: 'num_features', kind: 'int', panel: 'options', label: { en: 'random features m', zh: '随机特征数 m' }, min: 1, max: 512,
    applies: (s) => isAlg('performer')(s) && s.projection === undefined, initial: (s) => dims(s).E,
    help: { en: 'φ(x) = exp(W x̃ − |x̃|²/2) / √m, W (m, E)', zh: 'φ(x) = exp(W x̃ − |x̃|²/2) / √m，W 为 (m, E)' } },
  { key: 'orthogonal', kind: 'bool', panel: 'options', label: { en: 'directions of the rows of W', zh: 'W 各行的方向' },
    applies: (s) => isAlg('performer')(s) && s.projection === undefined, optional: true, default: true,
    choices: [
      { value: true, label: { en: 'orthogonal (blocks of E rows)', zh: '正交化（每 E 行一组）' } },
      { value: false, label: { en: 'iid normal', zh: '独立同分布（正态）' } },
    ] },
  { key: 'norms', kind: 'enum', panel: 'options', label: { en: 'lengths of the rows of W', zh: 'W 各行的模长' },
    options: () => ['chi', 'sqrt_d', 'quantile'], applies: (s) => isAlg('performer')(s) && s.projection === undefined,
    optional: true, default: 'chi',
    choices: [
      { value: 'chi', label: { en: 'chi: drawn, as a normal vector\'s', zh: 'chi：随机抽取（同正态向量）' } },
      { value: 'sqrt_d', label: { en: 'sqrt_d: all √E', zh: 'sqrt_d：全部为 √E' } },
      { value: 'quantile', label: { en: 'quantile: the i/(m+1) quantiles of χ_E (the note)', zh: 'quantile：χ_E 分布的 i/(m+1) 分位数（笔记）' } },
    ] },
  { key: 'block_q', kind: 'int', panel: 'options', label: { en: 'query block size block_q', zh: '查询块大小 block_q' }, min: 1,
    maxOf: (s) => dims(s).L_Q, control: 'range', applies: isAlg('flash'), optional: true, defaultOf: (s) => flashBlock('block_q', dims(s).L_Q),
    help: { en: 'queries per tile (FlashAttention)', zh: '每个分块的查询数（FlashAttention）' } },
  { key: 'block_k', kind: 'int', panel: 'options', label: { en: 'key block size block_k', zh: '键块大小 block_k' }, min: 1,
    maxOf: (s) => dims(s).L_K, control: 'range', applies: isAlg('flash'), optional: true, defaultOf: (s) => flashBlock('block_k', dims(s).L_K),
    help: { en: 'keys per block: the running max and sum are updated once per key block', zh: '每块的键数：每个键块更新一次运行最大值与运行和' } },
  { key: 'proj_len', kind: 'int', panel: 'options', label: { en: 'projected length k', zh: '投影长度 k' }, min: 1,
    maxOf: (s) => dims(s).L_K, control: 'range',
    applies: (s) => isAlg('linformer')(s) && s.E_proj === undefined && s.F_proj === undefined,
    initial: (s) => Math.max(1, Math.floor(dims(s).L_K / 4)),
    help: { en: 'E_proj, F_proj (k, L_K) drawn from the seed: L_K keys and values become k', zh: 'E_proj、F_proj (k, L_K) 由随机种子抽取：L_K 个键和值变为 k 个' } },
  { key: 'n_buckets', kind: 'int', panel: 'options', label: { en: 'buckets (even)', zh: '桶数（偶数）' }, min: 2, max: 64, step: 2,
    applies: (s) => isAlg('lsh')(s) && s.rotations === undefined, initial: () => 4,
    help: { en: 'bucket = argmax([qR, −qR]), R (E, buckets/2) random', zh: '桶 = argmax([qR, −qR])，R 为随机的 (E, 桶数/2)' } },
  { key: 'n_hashes', kind: 'int', panel: 'options', label: { en: 'hash rounds', zh: '哈希轮数' }, min: 1, max: 8,
    applies: (s) => isAlg('lsh')(s) && s.rotations === undefined, optional: true, default: 1 },
  { key: 'pool', kind: 'enum', panel: 'options', label: { en: 'pool', zh: '池化' }, options: () => ['avg', 'max'],
    applies: isAlg('pooling'), optional: true, default: 'avg',
    choices: [
      { value: 'avg', label: { en: 'avg (avg_pool1d)', zh: '平均（avg_pool1d）' } },
      { value: 'max', label: { en: 'max (max_pool1d)', zh: '最大（max_pool1d）' } },
    ] },
  { key: 'kernel', kind: 'int', panel: 'options', label: { en: 'kernel (keys per pooled key)', zh: '窗口 kernel（每个池化键覆盖的键数）' },
    min: 1, maxOf: (s) => dims(s).L_K, control: 'range', applies: isAlg('pooling'), initial: (s) => Math.min(2, dims(s).L_K) },
  { key: 'stride', kind: 'int', panel: 'options', label: { en: 'stride', zh: '步长 stride' }, min: 1,
    maxOf: (s) => dims(s).L_K, applies: isAlg('pooling'), optional: true,
    help: { en: 'default: the kernel (no overlap); L\' = ⌊(L_K − kernel) / stride⌋ + 1', zh: '默认等于 kernel（不重叠）；L\' = ⌊(L_K − kernel) / stride⌋ + 1' } },
  // positional encoding (issue 9)
  { key: 'num_steps', kind: 'int', panel: 'options', label: { en: 'positions num_steps', zh: '位置数 num_steps' }, min: 1, max: 1000,
    applies: isAlg('positional_encoding'), initial: () => 60 },
  { key: 'encoding_dim', kind: 'int', panel: 'options', label: { en: 'encoding_dim d (even)', zh: '编码维度 d（偶数）' }, min: 2, max: 512, step: 2,
    applies: isAlg('positional_encoding'), initial: () => 32 },
  { key: 'base', kind: 'number', panel: 'options', label: { en: 'base', zh: '底数 base' }, min: 1,
    applies: isAlg('positional_encoding'), optional: true, default: 10000,
    help: { en: 'P[i, 2j] = sin(i / base^(2j/d)), P[i, 2j+1] = cos(same)', zh: 'P[i, 2j] = sin(i / base^(2j/d))，P[i, 2j+1] = cos(同上)' } },
  // Bahdanau's training (issue 9): a bahdanau scenario without a batch of its own trains
  { key: 'train.task', kind: 'enum', panel: 'options', label: { en: 'training task', zh: '训练任务' },
    options: () => ['reverse', 'copy'], applies: (s) => isAlg('bahdanau')(s) && (s.src === undefined || s.train !== undefined),
    initial: () => 'reverse',
    choices: [
      { value: 'reverse', label: { en: 'reverse: the target is the source backwards', zh: 'reverse：目标是倒序的源序列' } },
      { value: 'copy', label: { en: 'copy: the target is the source', zh: 'copy：目标与源序列相同' } },
    ] },
  { key: 'train.epochs', kind: 'int', panel: 'options', label: { en: 'epochs', zh: '训练轮数 epochs' }, min: 1, max: 500,
    applies: (s) => isAlg('bahdanau')(s) && s.train !== undefined, optional: true, default: 20 },
  { key: 'train.lr', kind: 'number', panel: 'options', label: { en: 'learning rate lr (Adam)', zh: '学习率 lr（Adam）' }, min: 0, step: 0.001,
    applies: (s) => isAlg('bahdanau')(s) && s.train !== undefined, optional: true, default: 0.01 },
  { key: 'train.n_examples', kind: 'int', panel: 'options', label: { en: 'training sentences n_examples', zh: '训练句子数 n_examples' },
    min: 1, max: 5000, applies: (s) => isAlg('bahdanau')(s) && s.train !== undefined, optional: true, default: 500 },
  { key: 'train.seed', kind: 'int', panel: 'options', label: { en: 'data seed (train.seed)', zh: '数据种子 train.seed' }, min: 0,
    applies: (s) => isAlg('bahdanau')(s) && s.train !== undefined, optional: true, default: 0,
    help: { en: 'the sentences, the held-out one and the shuffles; default: the scenario\'s seed', zh: '训练句子、留出样例和打乱顺序；默认等于场景的 seed' } },
  { key: 'trace', kind: 'enum', panel: 'options', label: { en: 'trace', zh: '追踪' }, options: () => ['full', 'context'],
    applies: () => true, optional: true, default: 'full' },
  { key: 'dtype', kind: 'enum', panel: 'options', label: { en: 'dtype', zh: '数据类型' }, options: () => ['float64', 'float32'],
    applies: () => true, optional: true, default: 'float64' },
];

export const PROP = Object.fromEntries(PROPS.map((p) => [p.key, p])) as Record<string, Prop>;

/** A property's choices (the algorithm's come from the core's registry). */
export function choicesOf(prop: Prop): readonly Choice[] {
  return typeof prop.choices === 'function' ? prop.choices() : prop.choices ?? [];
}

/** Value shown for a property: its value, else the core's default. */
export function shown(s: Scenario, prop: Prop): unknown {
  const v = get(s, prop.key);
  return v === undefined ? (prop.defaultOf ? prop.defaultOf(s) : prop.default) : v;
}

/** Values put aside by normalise() (and sample_index by fitSamples), by key, to restore when they apply again. */
export type Stash = Record<string, unknown>;

/**
 * After an edit from `prev` to `s`: the properties that stopped applying (or whose value is no
 * longer one of the options) go into the stash; those that started applying come back from the
 * stash, else get their initial value. One pass in table order, so a property sees the ones above
 * it already settled. Without `prev` (a scenario loaded whole) nothing changes: what the author
 * wrote is what runs, and the core names what is wrong. Mutates s.
 */
export function normalise(s: Scenario, stash: Stash, prev?: Scenario): Scenario {
  if (!prev) return s;
  for (const prop of PROPS) {
    const value = get(s, prop.key);
    const applies = prop.applies(s);
    const applied = prop.applies(prev);
    if (!applies && applied && value !== undefined) {
      stash[prop.key] = value;
      set(s, prop.key, undefined);
    } else if (applies && prop.kind === 'enum' && value !== undefined && prop.options &&
               !prop.options(s).includes(String(value)) && prop.options(prev).includes(String(value))) {
      stash[prop.key] = value;
      set(s, prop.key, prop.optional ? undefined : prop.initial?.(s));
    } else if (applies && !applied && value === undefined) {
      const kept = stash[prop.key];
      if (kept !== undefined && fits(s, prop, kept)) {
        set(s, prop.key, kept);
        delete stash[prop.key];
      } else if (!prop.optional && prop.initial) {
        set(s, prop.key, prop.initial(s));
      }
    }
  }
  return s;
}

/** Whether a stashed value still fits the scenario's shapes. */
function fits(s: Scenario, prop: Prop, value: unknown): boolean {
  const d = dims(s);
  if (prop.kind === 'allowed') {
    const sh = shapeOf(value);
    return sh[0] === d.L_Q && sh[1] === d.L_K;
  }
  if (prop.kind === 'lens') return shapeOf(value)[0] === d.B;
  if (prop.kind === 'index') return false; // sample_index: its shape is the core's (fitSamples)
  if (prop.kind === 'enum' && prop.options) return prop.options(s).includes(String(value));
  if (prop.kind === 'int' || prop.kind === 'number') return typeof value === 'number';
  return true;
}
