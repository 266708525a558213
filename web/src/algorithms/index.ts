// The page's registry: one module per algorithm the core registers (web/src/algorithms/<name>.ts),
// in the core's order. Everything the page knows of an algorithm is looked up here by name
// (`algorithm(name)`): its inputs, its property rows, its maps' titles, its views, its chapter
// views and its PyTorch snippet. tests/node/registry.test.mjs checks it against the core's list.
import full from './full';
import flash from './flash';
import additive from './additive';
import nadaraya_watson from './nadaraya_watson';
import positional_encoding from './positional_encoding';
import prob from './prob';
import multihead from './multihead';
import bahdanau from './bahdanau';
import linear from './linear';
import performer from './performer';
import linformer from './linformer';
import lsh from './lsh';
import pooling from './pooling';
import diff from './diff';
import mla from './mla';  // modern-b (issue 16)
import decode from './decode';  // modern-b (issue 16)
import { register, type PageAlgorithm } from './module';

export const PAGE_ALGORITHMS: readonly PageAlgorithm[] = [full, flash, additive, nadaraya_watson, positional_encoding, prob,
  multihead, bahdanau, linear, performer, linformer, lsh, pooling, diff,
  mla, decode];
register(PAGE_ALGORITHMS);

export { algorithm, traits, type PageAlgorithm, type ViewHost } from './module';
