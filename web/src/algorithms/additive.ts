// additive: d2l's additive (Bahdanau) scoring, k with its own width; the chapter's feature view.
import type { Prop } from '../state/props';
import { isAlg, snippet, type PageAlgorithm } from './module';

const props: Prop[] = [
  { key: 'hidden', kind: 'int', panel: 'options', label: { en: 'hidden h', zh: '隐藏维 h' }, min: 1, max: 64,
    applies: (s) => isAlg('additive')(s) && s.weights === undefined, initial: () => 4 },
];

export default {
  name: 'additive',
  traits: { keyWidth: true },
  props,
  maps: { scores: 'scores = w_vᵀ tanh(W_q q + W_k k)' },
  chapter: { views: (c, lang) => c.additive(lang) },
  pytorch: snippet('additiveSnippet'),
} satisfies PageAlgorithm;
