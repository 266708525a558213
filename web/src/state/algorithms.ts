// The core's algorithm registry (the menu), set once the core is loaded (every element shares the
// core). What the page knows of each algorithm is in its module, web/src/algorithms/<name>.ts.
import type { Algorithm } from '../engine/compute';

export { isAlg, traits, type AlgorithmTraits, type MaskKind, type TensorName } from '../algorithms/module';

let registry: readonly Algorithm[] = [];
export function setRegistry(list: readonly Algorithm[]): void {
  registry = list;
}
export function algorithmRegistry(): readonly Algorithm[] {
  return registry;
}
