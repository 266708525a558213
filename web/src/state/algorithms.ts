// What the page knows of each algorithm, one row each: which (B, L, H, E) tensors it reads, which
// mask kinds it takes, whether `scale` and ProbAttention's fields apply. The algorithm menu is the
// core's registry (setRegistry); a new algorithm adds its row here (and its own options to the
// property table in props.ts, with `applies: isAlg('its name')`). One the registry lists and this
// table does not still runs: it gets no tensor grids and no mask, and is edited in the JSON.
import type { Algorithm, Scenario } from '../engine/compute';

export const MASK_KINDS = ['none', 'causal', 'valid_lens', 'local', 'atrous', 'strided', 'explicit'] as const;
export type MaskKind = (typeof MASK_KINDS)[number];
export type TensorName = 'q' | 'k' | 'v';

export interface AlgorithmTraits {
  /** The tensors it reads in the (B, L, H, E) layout, edited as grids with the size bar. */
  tensors: readonly TensorName[];
  /** The mask kinds it takes; empty: no mask. */
  masks: readonly MaskKind[];
  /** k has its own width E_k (additive attention). */
  keyWidth?: boolean;
  /** It reads `scale` (default 1/√E). */
  scale?: boolean;
  /** ProbAttention's fields apply: factor, sample_index, output_attention, the pitfall switches. */
  prob?: boolean;
  /** Shared QK (lsh): the keys are the queries; k is not read and L_K is L_Q. */
  sharedQK?: boolean;
  /** Masks, scale and the prob fields are those of the attention named by this field (default its first value). */
  inner?: { key: string; default: string };
}

const QKV: readonly TensorName[] = ['q', 'k', 'v'];

export const ALGORITHMS: Readonly<Record<string, AlgorithmTraits>> = {
  full: { tensors: QKV, masks: MASK_KINDS, scale: true },
  // FlashAttention (issue 8): exact attention tile by tile; the masks of full
  flash: { tensors: QKV, masks: MASK_KINDS, scale: true },
  additive: { tensors: QKV, masks: MASK_KINDS, keyWidth: true },
  prob: { tensors: QKV, masks: ['none', 'causal'], scale: true, prob: true },
  multihead: { tensors: [], masks: [], inner: { key: 'inner', default: 'full' } },
  // the note's sparse and linear attention (issue 7): scale is the exact softmax's for linear
  linear: { tensors: QKV, masks: ['none', 'causal'], scale: true },
  performer: { tensors: QKV, masks: ['none', 'causal'], scale: true },
  linformer: { tensors: QKV, masks: [], scale: true },
  lsh: { tensors: ['q', 'v'], masks: [], scale: true, sharedQK: true },
  pooling: { tensors: QKV, masks: [], scale: true },
  nadaraya_watson: { tensors: [], masks: [] },
  positional_encoding: { tensors: [], masks: [] },
  // d2l's seq2seq with Bahdanau attention (issue 9): token ids, sizes and train: {...}, no q/k/v
  bahdanau: { tensors: [], masks: [] },
};

const NONE: AlgorithmTraits = { tensors: [], masks: [] };

/** The traits of the scenario's algorithm (with an inner attention's masks, scale and prob fields). */
export function traits(s: Scenario): AlgorithmTraits {
  const own = ALGORITHMS[String(s.algorithm ?? '')] ?? NONE;
  if (!own.inner) return own;
  const inner = ALGORITHMS[String(s[own.inner.key] ?? own.inner.default)] ?? NONE;
  return { ...own, masks: inner.masks, scale: inner.scale, prob: inner.prob };
}

/** Whether the scenario's algorithm is one of `names`. */
export const isAlg = (...names: string[]) => (s: Scenario) => names.includes(String(s.algorithm ?? ''));

// The core's algorithm registry, set once the core is loaded (every element shares the core).
let registry: readonly Algorithm[] = [];
export function setRegistry(list: readonly Algorithm[]): void {
  registry = list;
}
export function algorithmRegistry(): readonly Algorithm[] {
  return registry;
}
