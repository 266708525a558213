// positional_encoding: d2l's sinusoidal positional encoding (issue 9); the chapter's positional
// and complexity views.
import type { Prop } from '../state/props';
import { isAlg, snippet, type PageAlgorithm } from './module';

const props: Prop[] = [
  { key: 'num_steps', kind: 'int', panel: 'options', label: { en: 'positions num_steps', zh: '位置数 num_steps' }, min: 1, max: 1000,
    applies: isAlg('positional_encoding'), initial: () => 60 },
  { key: 'encoding_dim', kind: 'int', panel: 'options', label: { en: 'encoding_dim d (even)', zh: '编码维度 d（偶数）' }, min: 2, max: 512, step: 2,
    applies: isAlg('positional_encoding'), initial: () => 32 },
  { key: 'base', kind: 'number', panel: 'options', label: { en: 'base', zh: '底数 base' }, min: 1,
    applies: isAlg('positional_encoding'), optional: true, default: 10000,
    help: { en: 'P[i, 2j] = sin(i / base^(2j/d)), P[i, 2j+1] = cos(same)', zh: 'P[i, 2j] = sin(i / base^(2j/d))，P[i, 2j+1] = cos(同上)' } },
];

export default {
  name: 'positional_encoding',
  traits: {},
  props,
  chapter: { views: (c, lang) => c.positional(lang) },
  pytorch: snippet('positionalSnippet'),
} satisfies PageAlgorithm;
