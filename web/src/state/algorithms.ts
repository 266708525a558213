// What the page knows of each algorithm, one row each: whether `scale` and ProbAttention's fields
// apply. Which (B, L, H, E) tensors it reads, which mask kinds it takes and its inner attention are
// the core's (the catalog, catalogEntry). The algorithm menu is the core's registry (setRegistry);
// a new algorithm adds its row here (and its own options to the property table in props.ts, with
// `applies: isAlg('its name')`). One the registry lists and this table does not still runs.
import { catalogEntry, type Algorithm, type Scenario } from '../compute';

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
}

type PageTraits = Omit<AlgorithmTraits, 'tensors' | 'masks'>;

const ALGORITHMS: Readonly<Record<string, PageTraits>> = {
  full: { scale: true },
  flash: { scale: true },
  additive: { keyWidth: true },
  prob: { scale: true, prob: true },
  // the note's sparse and linear attention (issue 7): scale is the exact softmax's for linear
  linear: { scale: true },
  performer: { scale: true },
  linformer: { scale: true },
  lsh: { scale: true, sharedQK: true },
  pooling: { scale: true },
};

/** An algorithm's traits: the page's row and the catalog's tensors and masks. */
function traitsOf(name: string): AlgorithmTraits {
  const entry = catalogEntry(name);
  return { ...ALGORITHMS[name], tensors: (entry?.tensors ?? []) as TensorName[], masks: (entry?.masks ?? []) as MaskKind[] };
}

/** The traits of the scenario's algorithm (with an inner attention's masks, scale and prob fields:
 * the catalog's `inner` names the field that chooses it). */
export function traits(s: Scenario): AlgorithmTraits {
  const name = String(s.algorithm ?? '');
  const own = traitsOf(name);
  const innerField = catalogEntry(name)?.inner;
  if (!innerField) return own;
  const inner = traitsOf(String(s[innerField.field] ?? innerField.default));
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
