// multihead: d2l's multi-head attention (or TSLib's AttentionLayer around ProbAttention): its own
// queries, keys and values; the masks, scale and prob fields are those of its inner attention.
import { snippet, type PageAlgorithm } from './module';

export default {
  name: 'multihead',
  traits: {},
  pytorch: snippet('multiheadSnippet'),
} satisfies PageAlgorithm;
