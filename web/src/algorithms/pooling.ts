// pooling: keys and values pooled along the sequence (avg or max), then softmax attention.
import type { Prop } from '../state/props';
import { isAlg, snippet, type PageAlgorithm } from './module';
import { reducedView } from './linformer';
import { dims } from '../state/scenario';

const props: Prop[] = [
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
];

export default {
  name: 'pooling',
  traits: { scale: true },
  props,
  maps: { weights: { en: 'weights over the pooled keys: L_Q × L\'', zh: '对池化键的权重：L_Q × L\'' } },
  approximates: true,
  exact: 'weights',
  view: reducedView('poolingView'),
  measured: [{ name: 'pooling', fields: (p) => ({ algorithm: 'pooling', kernel: Math.max(1, Math.min(p.k, p.n)) }) }],
  pytorch: snippet('poolingSnippet'),
} satisfies PageAlgorithm;
