// lsh: Reformer's LSH attention (shared QK: the keys are the queries), its buckets and rounds.
import type { Prop } from '../state/props';
import { flow, isAlg, snippet, type PageAlgorithm } from './module';
import { reducedView } from './linformer';
import { referenceProp } from '../state/reference';

const props: Prop[] = [
  { key: 'n_buckets', kind: 'int', panel: 'options', label: { en: 'buckets (even)', zh: '桶数（偶数）' }, min: 2, max: 64, step: 2,
    applies: (s) => isAlg('lsh')(s) && s.rotations === undefined, initial: () => 4,
    help: { en: 'bucket = argmax([qR, −qR]), R (E, buckets/2) random', zh: '桶 = argmax([qR, −qR])，R 为随机的 (E, 桶数/2)' } },
  { key: 'n_hashes', kind: 'int', panel: 'options', label: { en: 'hash rounds', zh: '哈希轮数' }, min: 1, max: 8,
    applies: (s) => isAlg('lsh')(s) && s.rotations === undefined, optional: true, default: 1 },
  referenceProp('lsh', ['reformer-pytorch']),
  { key: 'attend_across_buckets', kind: 'bool', panel: 'options', label: { en: 'attend across buckets', zh: '跨桶注意' },
    applies: (s) => isAlg('lsh')(s) && s.reference === 'reformer-pytorch', optional: true, default: true },
];

export default {
  name: 'lsh',
  traits: { scale: true, sharedQK: true },
  props,
  maps: { scores: 'scores = scale · q_i · q_j (same bucket)', weights: { en: 'weights: the hash rounds combined', zh: '权重：各轮哈希合并后' } },
  approximates: true,
  exact: 'weights',
  view: reducedView('lshView'),
  measured: [{ name: 'lsh', fields: () => ({ algorithm: 'lsh', n_buckets: 8, k: undefined }) }], // shared QK: no k
  flow: flow('lsh'),
  pytorch: snippet('lshSnippet'),
} satisfies PageAlgorithm;
