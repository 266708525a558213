// The scenario's properties, declared once. Controls are generated from this table, the
// scenario is normalised with it (a property that does not apply to the current algorithm or
// mask kind is put aside and comes back when it applies again), and later the URL will be
// written from it.
//
// The scenario object itself (SPEC §2) is the state: the table describes how to read, edit and
// clean it, so fields it does not know (a multihead preset's weights, say) pass through intact.
import { clone, shapeOf } from './format';
import { probSizes, type Scenario } from './compute';
import type { Text } from './i18n';

export const ALGORITHMS = ['full', 'prob', 'additive', 'linear', 'performer', 'linformer', 'lsh', 'pooling',
  'multihead', 'nadaraya_watson', 'positional_encoding'] as const;
/** Algorithms whose inputs are q, k, v in the (B, L, H, E) layout. */
export const QKV_ALGORITHMS = new Set(['full', 'prob', 'additive', 'linear', 'performer', 'linformer', 'lsh', 'pooling']);
const MASKED_ALGORITHMS = new Set(['full', 'prob', 'additive', 'linear', 'pooling', 'multihead']);
export const MASK_KINDS = ['none', 'causal', 'valid_lens', 'local', 'atrous', 'strided', 'explicit'] as const;

export type Kind = 'enum' | 'int' | 'number' | 'bool' | 'fill' | 'scale' | 'tensor' | 'lens' | 'allowed' | 'index';
export type Panel = 'algorithm' | 'tensors' | 'mask' | 'prob' | 'options';

export interface Prop {
  /** Dotted path in the scenario. */
  key: string;
  kind: Kind;
  panel: Panel;
  label: Text;
  help?: Text;
  options?: (s: Scenario) => readonly string[];
  /** What each value does, shown as the option's text (an enum, or a bool drawn as a select). */
  choices?: readonly { value: string | boolean; label: Text }[];
  min?: number;
  max?: number;
  step?: number;
  /** 'range' draws a slider for an int. */
  control?: 'range';
  applies: (s: Scenario) => boolean;
  /** Absent means the core's default; `initial` fills it when it starts to apply. */
  optional?: boolean;
  /** The core's default, shown when the property is absent. */
  default?: unknown;
  initial?: (s: Scenario) => unknown;
}

const alg = (s: Scenario) => String(s.algorithm ?? '');
const maskKind = (s: Scenario) => String((s.mask as Scenario | undefined)?.kind ?? 'none');
const isAlg = (...names: string[]) => (s: Scenario) => names.includes(alg(s));
const hasMask = (s: Scenario) => MASKED_ALGORITHMS.has(alg(s));
const maskIs = (...kinds: string[]) => (s: Scenario) => hasMask(s) && kinds.includes(maskKind(s));
/** ProbAttention's fields: the prob algorithm, or multihead with inner "prob". */
export const isProb = (s: Scenario) => alg(s) === 'prob' || (alg(s) === 'multihead' && s.inner === 'prob');

// The algorithms the loaded core implements (set once the core is loaded): the algorithm control
// offers only those, so a learner never picks one this build cannot run.
let implemented: ReadonlySet<string> | null = null;
export function setImplementedAlgorithms(names: readonly string[]): void {
  implemented = new Set(names);
}

export const PROPS: readonly Prop[] = [
  { key: 'algorithm', kind: 'enum', panel: 'algorithm', label: { en: 'Algorithm', zh: '算法' },
    options: () => (implemented ? ALGORITHMS.filter((a) => implemented!.has(a)) : ALGORITHMS),
    applies: () => true, initial: () => 'full' },
  { key: 'q', kind: 'tensor', panel: 'tensors', label: { en: 'Q (queries)', zh: 'Q（查询）' },
    applies: (s) => QKV_ALGORITHMS.has(alg(s)), initial: () => [[[[1, 0]], [[0, 1]]]] },
  { key: 'k', kind: 'tensor', panel: 'tensors', label: { en: 'K (keys)', zh: 'K（键）' },
    applies: (s) => QKV_ALGORITHMS.has(alg(s)), initial: () => [[[[1, 0]], [[0, 1]], [[1, 1]]]] },
  { key: 'v', kind: 'tensor', panel: 'tensors', label: { en: 'V (values)', zh: 'V（值）' },
    applies: (s) => QKV_ALGORITHMS.has(alg(s)), initial: () => [[[[10, 0]], [[0, 10]], [[5, 5]]]] },

  { key: 'mask.kind', kind: 'enum', panel: 'mask', label: { en: 'kind', zh: '类型' },
    options: (s) => (isProb(s) || alg(s) === 'linear' ? ['none', 'causal'] : MASK_KINDS),
    applies: hasMask, optional: true, default: 'none' },
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
    applies: isAlg('full', 'prob', 'linformer', 'lsh', 'pooling'), optional: true },
  { key: 'hidden', kind: 'int', panel: 'options', label: { en: 'hidden h', zh: '隐藏维 h' }, min: 1, max: 64,
    applies: (s) => alg(s) === 'additive' && s.weights === undefined, initial: () => 4 },
  { key: 'feature_map', kind: 'enum', panel: 'options', label: { en: 'feature map', zh: '特征映射' },
    options: () => ['elu1', 'relu', 'softmax_qk', 'cosine1'], applies: isAlg('linear'), initial: () => 'elu1' },
  { key: 'num_features', kind: 'int', panel: 'options', label: { en: 'features m', zh: '特征数 m' }, min: 1, max: 256,
    applies: isAlg('performer'), initial: () => 8 },
  { key: 'orthogonal', kind: 'bool', panel: 'options', label: { en: 'orthogonal', zh: '正交' },
    applies: (s) => alg(s) === 'performer' && s.projection === undefined, optional: true, default: false },
  { key: 'proj_len', kind: 'int', panel: 'options', label: { en: 'projected length k', zh: '投影长度 k' }, min: 1, max: 256,
    applies: isAlg('linformer'), initial: () => 2 },
  { key: 'n_buckets', kind: 'int', panel: 'options', label: { en: 'buckets', zh: '桶数' }, min: 2, max: 64, step: 2,
    applies: isAlg('lsh'), initial: () => 2 },
  { key: 'n_hashes', kind: 'int', panel: 'options', label: { en: 'hash rounds', zh: '哈希轮数' }, min: 1, max: 16,
    applies: isAlg('lsh'), initial: () => 1 },
  { key: 'pool', kind: 'enum', panel: 'options', label: { en: 'pool', zh: '池化' }, options: () => ['avg', 'max'],
    applies: isAlg('pooling'), initial: () => 'avg' },
  { key: 'kernel', kind: 'int', panel: 'options', label: { en: 'kernel', zh: '核大小' }, min: 1, max: 64,
    applies: isAlg('pooling'), initial: () => 2 },
  { key: 'stride', kind: 'int', panel: 'options', label: { en: 'stride', zh: '步长' }, min: 1, max: 64,
    applies: isAlg('pooling'), initial: () => 2 },
  // nadaraya_watson's `kernel` is a name where pooling's is a size: two entries, one key, never both
  // applying (PROP.kernel is the last one; `fits` keeps a stashed value of the wrong type out).
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
    min: 1, max: 1000, applies: (s) => alg(s) === 'nadaraya_watson' && s.x_train === undefined, initial: () => 50,
    help: { en: 'd2l\'s data set: x = 5u sorted, y = 2 sin x + x^0.8 + 0.5z', zh: 'd2l 的数据集：x = 5u 排序，y = 2 sin x + x^0.8 + 0.5z' } },
  { key: 'w', kind: 'number', panel: 'options', label: { en: 'w (kernel width⁻¹)', zh: 'w（核宽度的倒数）' },
    applies: isAlg('nadaraya_watson'), optional: true, default: 1,
    help: { en: 'with train: the starting w', zh: '训练时：w 的初始值' } },
  { key: 'trace', kind: 'enum', panel: 'options', label: { en: 'trace', zh: '追踪' }, options: () => ['full', 'context'],
    applies: () => true, optional: true, default: 'full' },
  { key: 'dtype', kind: 'enum', panel: 'options', label: { en: 'dtype', zh: '数据类型' }, options: () => ['float64', 'float32'],
    applies: () => true, optional: true, default: 'float64' },
];

export const PROP = Object.fromEntries(PROPS.map((p) => [p.key, p])) as Record<string, Prop>;

export function get(s: Scenario, key: string): unknown {
  let cur: unknown = s;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Scenario)[part];
  }
  return cur;
}

/** Value shown for a property: its value, else the core's default. */
export function shown(s: Scenario, prop: Prop): unknown {
  const v = get(s, prop.key);
  return v === undefined ? prop.default : v;
}

/** Sets (or, with undefined, removes) a dotted key in place. */
export function set(s: Scenario, key: string, value: unknown): void {
  const parts = key.split('.');
  let cur = s;
  for (const part of parts.slice(0, -1)) {
    if (cur[part] === null || typeof cur[part] !== 'object' || Array.isArray(cur[part])) {
      if (value === undefined) return;
      cur[part] = {};
    }
    cur = cur[part] as Scenario;
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  if (value === undefined && parts.length > 1 && Object.keys(cur).length === 0) set(s, parts.slice(0, -1).join('.'), undefined);
}

/** Values put aside by normalise(), by key (`kernel#i` for a key entries share), to restore when they apply again. */
export type Stash = Record<string, unknown>;

/**
 * After an edit from `prev` to `s`: the properties that stopped applying (or whose value is no
 * longer one of the options) go into the stash; those that started applying come back from the
 * stash, else get their initial value. Without `prev` (a scenario loaded whole) nothing changes:
 * what the author wrote is what runs, and the core names what is wrong. Mutates s.
 */
export function normalise(s: Scenario, stash: Stash, prev?: Scenario): Scenario {
  if (!prev) return s;
  // A key two entries share (`kernel`): the one that starts applying owns the value it writes,
  // which the one that stops applying must not put aside.
  const owned = new Set<string>();
  for (let pass = 0; pass < 4; pass++) {
    let changed = false;
    for (const prop of PROPS) {
      const value = get(s, prop.key);
      const applies = prop.applies(s);
      const applied = prop.applies(prev);
      const where = stashKey(prop);
      if (!applies && applied && value !== undefined && !owned.has(prop.key)) {
        stash[where] = value;
        set(s, prop.key, undefined);
        changed = true;
      } else if (applies && prop.kind === 'enum' && value !== undefined && prop.options &&
                 !prop.options(s).includes(String(value)) && prop.options(prev).includes(String(value))) {
        stash[where] = value;
        set(s, prop.key, prop.optional ? undefined : prop.initial?.(s));
        changed = true;
      } else if (applies && !applied && value === undefined) {
        const kept = stash[where];
        if (kept !== undefined && fits(s, prop, kept)) {
          set(s, prop.key, kept);
          delete stash[where];
          owned.add(prop.key);
          changed = true;
        } else if (!prop.optional && prop.initial) {
          set(s, prop.key, prop.initial(s));
          owned.add(prop.key);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return s;
}

/** Where a property's value is put aside: its key, with the algorithm when entries share the key. */
function stashKey(prop: Prop): string {
  const shared = PROPS.filter((p) => p.key === prop.key);
  return shared.length > 1 ? `${prop.key}#${shared.indexOf(prop)}` : prop.key;
}

/** Whether a stashed value still fits the scenario's shapes. */
function fits(s: Scenario, prop: Prop, value: unknown): boolean {
  const d = dims(s);
  if (prop.kind === 'allowed') {
    const sh = shapeOf(value);
    return sh[0] === d.L_Q && sh[1] === d.L_K;
  }
  if (prop.kind === 'lens') return shapeOf(value)[0] === d.B;
  if (prop.kind === 'index') return false; // sample_index is managed by the prob view
  if (prop.kind === 'enum' && prop.options) return prop.options(s).includes(String(value));
  if (prop.kind === 'int' || prop.kind === 'number') return typeof value === 'number';
  return true;
}

export interface Dims { B: number; H: number; L_Q: number; L_K: number; E: number; E_k: number; D: number }
export type DimName = keyof Dims;
/** The sizes the page lets you change: additive attention has its own key width. */
export function dimNames(s: Scenario): DimName[] {
  return s.algorithm === 'additive' ? ['B', 'H', 'L_Q', 'L_K', 'E', 'E_k', 'D'] : ['B', 'H', 'L_Q', 'L_K', 'E', 'D'];
}

/** The sizes of q, k, v (each at least 1, for editing). */
export function dims(s: Scenario): Dims {
  const q = shapeOf(s.q), k = shapeOf(s.k), v = shapeOf(s.v);
  const or1 = (x: number | undefined) => (x && x > 0 ? x : 1);
  return { B: or1(q[0]), L_Q: or1(q[1]), H: or1(q[2]), E: or1(q[3]), E_k: or1(k[3]), L_K: or1(k[1] ?? v[1]), D: or1(v[3]) };
}

function resizeArray(a: unknown, n: number, make: (i: number) => unknown): unknown[] {
  const arr = Array.isArray(a) ? a.slice(0, n) : [];
  for (let i = arr.length; i < n; i++) arr.push(make(i));
  return arr;
}

/** Resizes axis `axis` of a nested tensor to n; new entries copy the shape of entry 0, filled with `fill`. */
export function resizeAxis(t: unknown, axis: number, n: number, fill: number | boolean = 0): unknown {
  if (!Array.isArray(t)) return t;
  if (axis > 0) return t.map((x) => resizeAxis(x, axis - 1, n, fill));
  const zeroLike = (x: unknown): unknown => (Array.isArray(x) ? x.map(zeroLike) : fill);
  return resizeArray(t, n, () => zeroLike(clone(t[0])));
}

/**
 * Changes one dimension of q/k/v consistently (and the mask fields that depend on it).
 * Returns a new scenario; sample_index is dropped when L changes (it is drawn again).
 */
export function resize(s0: Scenario, dim: DimName, n: number): Scenario {
  const s = clone(s0);
  const d = dims(s);
  if (n < 1 || n === d[dim]) return s;
  const axes: Record<DimName, [string, number][]> = {
    B: [['q', 0], ['k', 0], ['v', 0]],
    H: [['q', 2], ['k', 2], ['v', 2]],
    L_Q: [['q', 1]],
    L_K: [['k', 1], ['v', 1]],
    E: s.algorithm === 'additive' ? [['q', 3]] : [['q', 3], ['k', 3]],
    E_k: [['k', 3]],
    D: [['v', 3]],
  };
  for (const [name, axis] of axes[dim]) if (s[name] !== undefined) s[name] = resizeAxis(s[name], axis, n);
  const allowed = get(s, 'mask.allowed');
  if (dim === 'L_Q' && allowed) set(s, 'mask.allowed', resizeAxis(allowed, 0, n, true));
  if (dim === 'L_K' && allowed) set(s, 'mask.allowed', resizeAxis(allowed, 1, n, true));
  const lens = get(s, 'mask.valid_lens');
  if (Array.isArray(lens)) {
    const twoD = Array.isArray(lens[0]);
    if (dim === 'B') set(s, 'mask.valid_lens', resizeArray(lens, n, () => (twoD ? Array(d.L_Q).fill(d.L_K) : d.L_K)));
    if (dim === 'L_Q' && twoD) set(s, 'mask.valid_lens', lens.map((row: unknown) => resizeArray(row, n, () => d.L_K)));
  }
  if ((dim === 'L_Q' || dim === 'L_K' || dim === 'H') && s.sample_index !== undefined) delete s.sample_index;
  return s;
}

/** Sets one number of a nested tensor (copy on write along the path). */
export function setIn(t: unknown, path: readonly number[], value: unknown): unknown {
  if (path.length === 0) return value;
  const arr = Array.isArray(t) ? t.slice() : [];
  arr[path[0]] = setIn(arr[path[0]], path.slice(1), value);
  return arr;
}

// ---- ProbAttention's pitfall switches (SPEC §2): each one's default is the reference ----

export const PITFALL_KEYS = ['causal_initial', 'sparsity_divisor', 'sample_per_head', 'squeeze_bug'] as const;
export type PitfallKey = (typeof PITFALL_KEYS)[number];

/** The switches that apply to the scenario and are not at the reference's value. */
export function changedPitfalls(s: Scenario): PitfallKey[] {
  return PITFALL_KEYS.filter((key) => PROP[key].applies(s) && s[key] !== undefined && s[key] !== PROP[key].default);
}

/** The shape sample_index must have: (L_Q, U_part), or (H, L_Q, U_part) with sample_per_head. */
export function sampleShape(s: Scenario): number[] {
  const d = dims(s);
  const { U_part } = probSizes(Number(s.factor ?? PROP.factor.default), d.L_Q, d.L_K);
  return s.sample_per_head === true ? [d.H, d.L_Q, U_part] : [d.L_Q, U_part];
}

export function samplesFit(s: Scenario, index: unknown): boolean {
  const want = sampleShape(s), have = shapeOf(index);
  return have.length === want.length && have.every((n, i) => n === want[i]);
}

/**
 * The same scenario with every pitfall switch at the reference's default. A given sample_index
 * that has the other shape (one per head) is dropped, so the reference draws from the seed.
 */
export function referenceScenario(s: Scenario): { scenario: Scenario; droppedSamples: boolean } {
  const r = clone(s);
  for (const key of PITFALL_KEYS) delete r[key];
  const droppedSamples = r.sample_index !== undefined && shapeOf(s.sample_index).length === 3 && !samplesFit(r, r.sample_index);
  if (droppedSamples) delete r.sample_index;
  return { scenario: r, droppedSamples };
}
