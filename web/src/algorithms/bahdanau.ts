// bahdanau: d2l's seq2seq with Bahdanau attention (issue 9): token ids, sizes and train: {...}, no
// q/k/v. The chapter's training view shows above its trace (and before there is one).
import type { Prop } from '../state/props';
import { isAlg, snippet, type PageAlgorithm } from './module';

const props: Prop[] = [
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
];

export default {
  name: 'bahdanau',
  traits: {},
  props,
  chapter: { views: (c, lang) => [c.bahdanau(lang)], first: true },
  pytorch: snippet('bahdanauSnippet'),
} satisfies PageAlgorithm;
