// Entry of dist/attention-playground.js (and of index.html): defines <attention-playground>.
import { AttentionPlayground, define } from './element';

define();

export { AttentionPlayground, define };
