// Writes tests/bad-inputs/corpus.json: the bad-input corpus of tests/node/bad-inputs.test.mjs.
//
//   node tests/bad-inputs/make-corpus.mjs
//
// Every case is written by hand below: a small valid scenario of one algorithm, one thing broken,
// and the field path the error message must start with (`field`). The expected field is never
// taken from what the program says. Cases:
//   bad:   {name, scenario, field}   a JSON scenario that must fail
//          {name, text, field}       raw text (not JSON, or JSON a JS object cannot hold)
//   valid: {name, scenario}          extreme but valid: must run, with no NaN / Infinity / null
// Re-running writes byte-identical output; commit both files.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const clone = (x) => JSON.parse(JSON.stringify(x));

// ---- base scenarios (all valid) ----
// full: B = 1, L_Q = 2, L_K = 3, H = 1, E = 2, D = 2
const FULL = {
  algorithm: 'full',
  q: [[[[1, 0]], [[0, 1]]]],
  k: [[[[1, 0]], [[0, 1]], [[1, 1]]]],
  v: [[[[1, 2]], [[3, 4]], [[5, 6]]]],
};
// prob: B = 1, L = 4, H = 1, E = D = 2, factor 1 -> U_part = u = 2 (the seed's toy)
const PROB = {
  algorithm: 'prob',
  factor: 1,
  q: [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]],
  k: [[[[1, 0]], [[0, 1]], [[1, 1]], [[1, -1]]]],
  v: [[[[10, 11]], [[20, 21]], [[30, 31]], [[40, 41]]]],
  sample_index: [[0, 2], [1, 3], [0, 2], [2, 3]],
};
// additive: B = 1, L_Q = 1, L_K = 2, E_q = 3, E_k = 2, h = 2
const ADDITIVE = {
  algorithm: 'additive',
  q: [[[[1, 2, 3]]]],
  k: [[[[1, 0]], [[0, 1]]]],
  v: [[[[1]], [[2]]]],
  weights: { W_q: [[1, 0, 0], [0, 1, 0]], W_k: [[1, 0], [0, 1]], w_v: [1, -1] },
};
// multihead: B = 1, L_Q = 2, L_K = 3, d = 2, 2 heads of 1 (num_hiddens 2, seeded)
const MULTIHEAD = {
  algorithm: 'multihead',
  queries: [[[1, 0], [0, 1]]],
  keys: [[[1, 0], [0, 1], [1, 1]]],
  values: [[[1, 2], [3, 4], [5, 6]]],
  num_heads: 2,
  num_hiddens: 2,
};
const MULTIHEAD_W = {
  algorithm: 'multihead',
  queries: [[[1, 0], [0, 1]]],
  keys: [[[1, 0], [0, 1], [1, 1]]],
  values: [[[1, 2], [3, 4], [5, 6]]],
  num_heads: 2,
  weights: { W_q: [[1, 0], [0, 1]], W_k: [[1, 0], [0, 1]], W_v: [[1, 0], [0, 1]], W_o: [[1, 0], [0, 1]] },
};
const NW = { algorithm: 'nadaraya_watson', x_train: [0, 1, 2], y_train: [1, 2, 3], x_query: [0.5, 1.5] };
const PE = { algorithm: 'positional_encoding', num_steps: 4, encoding_dim: 6 };

// with(base, {a: 1, 'mask.kind': 'x'}): a copy with the paths set (undefined deletes)
function withFields(base, changes) {
  const s = clone(base);
  for (const [key, value] of Object.entries(changes)) {
    const parts = key.split('.');
    let o = s;
    for (const p of parts.slice(0, -1)) o = o[p] ??= {};
    if (value === undefined) delete o[parts.at(-1)];
    else o[parts.at(-1)] = value;
  }
  return s;
}

const bad = [];
const B = (name, scenario, field) => bad.push({ name, scenario, field });
const T = (name, text, field) => bad.push({ name, text, field });

// ---- not a scenario at all ----
T('text: not JSON', 'nope', 'scenario');
T('text: empty', '', 'scenario');
T('text: truncated object', '{"algorithm": "full", "q": [[[[1', 'scenario');
T('text: NaN literal', '{"algorithm": "full", "q": NaN}', 'scenario');
T('text: number beyond double range (1e400)', '{"algorithm": "full", "q": [[[[1e400]]]], "k": [[[[1]]]], "v": [[[[1]]]]}', 'scenario');
T('text: trailing garbage', '{"algorithm": "full"} x', 'scenario');
B('top-level array', [FULL], 'scenario');
T('text: a JSON string', '"full"', 'scenario');
B('top-level number', 42, 'scenario');
B('top-level null', null, 'scenario');

// ---- algorithm and common fields ----
B('algorithm missing', withFields(FULL, { algorithm: undefined }), 'algorithm');
B('algorithm unknown', withFields(FULL, { algorithm: 'linformer_typo' }), 'algorithm');
B('algorithm wrong case', withFields(FULL, { algorithm: 'FULL' }), 'algorithm');
B('algorithm a number', withFields(FULL, { algorithm: 1 }), 'algorithm');
B('algorithm null', withFields(FULL, { algorithm: null }), 'algorithm');
B('algorithm an object', withFields(FULL, { algorithm: { name: 'full' } }), 'algorithm');
B('seed negative', withFields(FULL, { seed: -1 }), 'seed');
B('seed fractional', withFields(FULL, { seed: 1.5 }), 'seed');
B('seed a string', withFields(FULL, { seed: '7' }), 'seed');
B('seed above 2^63', withFields(FULL, { seed: 1e19 }), 'seed');
B('trace unknown level', withFields(FULL, { trace: 'everything' }), 'trace');
B('dtype float16', withFields(FULL, { dtype: 'float16' }), 'dtype');
B('dtype a boolean', withFields(FULL, { dtype: true }), 'dtype');

// ---- q / k / v (full) ----
B('q missing', withFields(FULL, { q: undefined }), 'q');
B('q null', withFields(FULL, { q: null }), 'q');
B('q a string', withFields(FULL, { q: '[[1]]' }), 'q');
B('q a number', withFields(FULL, { q: 3 }), 'q');
B('q an object without shape', withFields(FULL, { q: { data: [1, 0, 0, 1] } }), 'q');
B('q empty', withFields(FULL, { q: [] }), 'q');
B('q empty inner (L_Q = 0)', withFields(FULL, { q: [[]] }), 'q[0]');
B('q empty E', withFields(FULL, { q: [[[[]], [[]]]] }), 'q[0][0][0]');
B('q rank 3', withFields(FULL, { q: [[[1, 0], [0, 1]]] }), 'q[0][0][0]');
B('q rank 5', withFields(FULL, { q: [[[[[1], [0]]], [[[0], [1]]]]] }), 'q[0][0][0][0]');
B('q leaf a boolean', withFields(FULL, { q: [[[[1, 0]], [[0, true]]]] }), 'q[0][1][0][1]');
B('q leaf a string', withFields(FULL, { q: [[[[1, '0']], [[0, 1]]]] }), 'q[0][0][0][1]');
B('q leaf null', withFields(FULL, { q: [[[[1, 0]], [[null, 1]]]] }), 'q[0][1][0][0]');
B('q leaf an object', withFields(FULL, { q: [[[[1, 0]], [[{ x: 1 }, 1]]]] }), 'q[0][1][0][0]');
B('q ragged E', withFields(FULL, { q: [[[[1, 0]], [[0, 1, 2]]]] }), 'q[0][1][0]');
B('q ragged H', withFields(FULL, { q: [[[[1, 0]], [[0, 1], [1, 1]]]] }), 'q[0][1]');
B('k E differs from q', withFields(FULL, { k: [[[[1]], [[0]], [[1]]]] }), 'k[0][0][0]');
B('k B differs from q', withFields(FULL, { k: [FULL.k[0], FULL.k[0]] }), 'k');
B('k H differs from q', withFields(FULL, { k: [[[[1, 0], [1, 0]], [[0, 1], [0, 1]], [[1, 1], [1, 1]]]] }), 'k[0][0]');
B('k ragged L_K across batch', withFields(FULL, { q: [FULL.q[0], FULL.q[0]], k: [FULL.k[0], FULL.k[0].slice(0, 2)], v: [FULL.v[0], FULL.v[0]] }), 'k[1]');
B('v L_K differs from k', withFields(FULL, { v: [FULL.v[0].slice(0, 2)] }), 'v[0]');
B('v ragged D', withFields(FULL, { v: [[[[1, 2]], [[3, 4]], [[5]]]] }), 'v[0][2][0]');
B('v missing', withFields(FULL, { v: undefined }), 'v');
B('scale a string', withFields(FULL, { scale: '0.5' }), 'scale');
B('scale a boolean', withFields(FULL, { scale: true }), 'scale');
B('scale an array', withFields(FULL, { scale: [1] }), 'scale');

// ---- {shape, data} tensors ----
B('flat q: data too short', withFields(FULL, { q: { shape: [1, 2, 1, 2], data: [1, 0, 0] } }), 'q.data');
B('flat q: shape of rank 3', withFields(FULL, { q: { shape: [2, 1, 2], data: [1, 0, 0, 1] } }), 'q.shape');
B('flat q: shape entry 0', withFields(FULL, { q: { shape: [0, 2, 1, 2], data: [] } }), 'q.shape[0]');
B('flat q: shape entry negative', withFields(FULL, { q: { shape: [1, -2, 1, 2], data: [1, 0, 0, 1] } }), 'q.shape[1]');
B('flat q: shape entry fractional', withFields(FULL, { q: { shape: [1, 2, 1, 2.5], data: [1, 0, 0, 1] } }), 'q.shape[3]');
B('flat q: data entry a string', withFields(FULL, { q: { shape: [1, 2, 1, 2], data: [1, 'x', 0, 1] } }), 'q.data[1]');
B('flat q: data not an array', withFields(FULL, { q: { shape: [1, 2, 1, 2], data: 'abcd' } }), 'q.data');
B('flat q: dimension above the limit', withFields(FULL, { q: { shape: [1, 100000, 1, 1], data: [] } }), 'q.shape[1]');
B('flat q: 2^32 numbers', withFields(FULL, { q: { shape: [65536, 65536, 1, 1], data: [] } }), 'q');
B('flat k: E differs from q', withFields(FULL, { k: { shape: [1, 3, 1, 3], data: [1, 0, 0, 0, 1, 0, 1, 1, 0] } }), 'k.shape[3]');
B('flat v: $buffer without buffers', withFields(FULL, { v: { shape: [1, 3, 1, 2], $buffer: 0 } }), 'v');

// ---- masks ----
B('mask a string', withFields(FULL, { mask: 'causal' }), 'mask');
B('mask an array', withFields(FULL, { mask: [{ kind: 'causal' }] }), 'mask');
B('mask.kind unknown', withFields(FULL, { mask: { kind: 'diagonal' } }), 'mask.kind');
B('mask.kind a number', withFields(FULL, { mask: { kind: 1 } }), 'mask.kind');
B('mask.causal a string', withFields(FULL, { mask: { kind: 'local', window: 1, causal: 'yes' } }), 'mask.causal');
B('mask.causal a number', withFields(FULL, { mask: { kind: 'none', causal: 1 } }), 'mask.causal');
B('mask.fill "inf"', withFields(FULL, { mask: { kind: 'causal', fill: 'inf' } }), 'mask.fill');
B('mask.fill "-Infinity"', withFields(FULL, { mask: { kind: 'causal', fill: '-Infinity' } }), 'mask.fill');
B('mask.fill a boolean', withFields(FULL, { mask: { kind: 'causal', fill: false } }), 'mask.fill');
B('mask.fill an object', withFields(FULL, { mask: { kind: 'causal', fill: { value: -1 } } }), 'mask.fill');
B('valid_lens missing', withFields(FULL, { mask: { kind: 'valid_lens' } }), 'mask.valid_lens');
B('valid_lens a number', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: 2 } }), 'mask.valid_lens');
B('valid_lens one per batch, two given (B = 1)', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [1, 2] } }), 'mask.valid_lens');
B('valid_lens empty', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [] } }), 'mask.valid_lens');
B('valid_lens negative', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [-1] } }), 'mask.valid_lens[0]');
B('valid_lens fractional', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [1.5] } }), 'mask.valid_lens[0]');
B('valid_lens a string entry', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: ['2'] } }), 'mask.valid_lens[0]');
B('valid_lens 2-D with 3 queries (L_Q = 2)', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [[1, 2, 3]] } }), 'mask.valid_lens[0]');
B('valid_lens 2-D huge entry', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [[1, 1e12]] } }), 'mask.valid_lens[0][1]');
B('local: window missing', withFields(FULL, { mask: { kind: 'local' } }), 'mask.window');
B('local: window negative', withFields(FULL, { mask: { kind: 'local', window: -1 } }), 'mask.window');
B('local: window a string', withFields(FULL, { mask: { kind: 'local', window: '2' } }), 'mask.window');
B('local: window 1e12', withFields(FULL, { mask: { kind: 'local', window: 1e12 } }), 'mask.window');
B('local: window fractional', withFields(FULL, { mask: { kind: 'local', window: 0.5 } }), 'mask.window');
B('atrous: dilation 0', withFields(FULL, { mask: { kind: 'atrous', dilation: 0 } }), 'mask.dilation');
B('atrous: dilation missing', withFields(FULL, { mask: { kind: 'atrous' } }), 'mask.dilation');
B('atrous: dilation null', withFields(FULL, { mask: { kind: 'atrous', dilation: null } }), 'mask.dilation');
B('strided: stride 0', withFields(FULL, { mask: { kind: 'strided', window: 1, stride: 0 } }), 'mask.stride');
B('strided: window missing', withFields(FULL, { mask: { kind: 'strided', stride: 2 } }), 'mask.window');
B('strided: stride an object', withFields(FULL, { mask: { kind: 'strided', window: 1, stride: {} } }), 'mask.stride');
B('explicit: allowed missing', withFields(FULL, { mask: { kind: 'explicit' } }), 'mask.allowed');
B('explicit: 3 rows (L_Q = 2)', withFields(FULL, { mask: { kind: 'explicit', allowed: [[1, 1, 1], [1, 1, 1], [1, 1, 1]] } }), 'mask.allowed');
B('explicit: 2 columns (L_K = 3)', withFields(FULL, { mask: { kind: 'explicit', allowed: [[true, true], [true, true]] } }), 'mask.allowed[0]');
B('explicit: entry 2', withFields(FULL, { mask: { kind: 'explicit', allowed: [[1, 2, 1], [1, 1, 1]] } }), 'mask.allowed[0][1]');
B('explicit: entry "true"', withFields(FULL, { mask: { kind: 'explicit', allowed: [[true, true, true], [true, 'true', true]] } }), 'mask.allowed[1][1]');
B('explicit: ragged', withFields(FULL, { mask: { kind: 'explicit', allowed: [[true, true, true], [true]] } }), 'mask.allowed[1]');

// ---- numbers that overflow inside (finite inputs) ----
B('full: q.k overflows (1e200 * 1e200)', withFields(FULL, { q: [[[[1e200, 0]], [[0, 1]]]], k: [[[[1e200, 0]], [[0, 1]], [[1, 1]]]] }), 'q');
B('full: q.k is inf - inf', withFields(FULL, { q: [[[[1e200, 1e200]], [[0, 1]]]], k: [[[[1e200, -1e200]], [[0, 1]], [[1, 1]]]] }), 'q');
B('full: scale * q.k overflows (scale 1e308)', withFields(FULL, { scale: 1e308, q: [[[[10, 0]], [[0, 1]]]] }), 'scale');
B('prob: sampled q.k overflows', withFields(PROB, { q: [[[[1e200, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]], k: [[[[1e200, 0]], [[0, 1]], [[1, 1]], [[1, -1]]]] }), 'q');
B('prob: the mean of v overflows', withFields(PROB, { v: [[[[1e308, 1]], [[1e308, 1]], [[1, 1]], [[1, 1]]]] }), 'v');
B('prob: the causal sum of v overflows', withFields(PROB, { mask: { kind: 'causal' }, v: [[[[1e308, 1]], [[1e308, 1]], [[1, 1]], [[1, 1]]]] }), 'v');
B('additive: W_q q + W_k k is inf - inf', withFields(ADDITIVE, { q: [[[[1e308, 0, 0]]]], k: [[[[-1e308, 0]], [[0, 1]]]], 'weights.W_q': [[10, 0, 0], [0, 1, 0]], 'weights.W_k': [[10, 0], [0, 1]] }), 'q');
B('additive: w_v overflows the score', withFields(ADDITIVE, { 'weights.w_v': [1e308, 1e308], q: [[[[10, 10, 3]]]], k: [[[[10, 10]], [[0, 1]]]] }), 'weights.w_v');
B('multihead: queries W_q overflows', withFields(MULTIHEAD_W, { queries: [[[1e308, 1e308], [0, 1]]], 'weights.W_q': [[1, 1], [0, 1]] }), 'queries');
B('multihead: projected q.k overflows', withFields(MULTIHEAD_W, { queries: [[[1e200, 0], [0, 1]]], keys: [[[1e200, 0], [0, 1], [1, 1]]] }), 'queries');
B('multihead: output projection overflows', withFields(MULTIHEAD_W, { values: [[[1e308, 1e308], [1e308, 1e308], [1e308, 1e308]]], 'weights.W_o': [[1, 1], [0, 1]] }), 'weights.W_o');
B('nadaraya_watson: x_query - x_train overflows', withFields(NW, { x_train: [1e308, 0, 1], x_query: [-1e308] }), 'x_query');
B('nadaraya_watson: loss overflows', withFields(NW, { y_train: [1e308, -1e308, 1e308], kernel: 'constant', train: { epochs: 1 } }), 'y_train');
B('nadaraya_watson: training diverges', withFields(NW, { y_train: [0, 10, 0], train: { epochs: 5, lr: 1e308 } }), 'train.lr');
B('positional_encoding: base too small (1e-320)', withFields(PE, { encoding_dim: 64, base: 1e-320 }), 'base');

// ---- sizes the run would make (each tensor at most 2^24 numbers, as inputs) ----
const zeros = (n) => new Array(n).fill(0);
const long = (L, d) => ({ shape: [1, L, 1, d], data: zeros(L * d) });
B('full: 8192 x 8192 scores at trace full', { algorithm: 'full', q: long(8192, 1), k: long(8192, 1), v: long(8192, 1) }, 'k');
B('full: context (1, 8192, 1, 4096)', { algorithm: 'full', trace: 'context', q: long(8192, 1), k: long(1, 1), v: long(1, 4096) }, 'v');
B('prob: output_attention 8192 x 8192', { algorithm: 'prob', trace: 'context', output_attention: true, q: long(8192, 1), k: long(8192, 1), v: long(8192, 1) }, 'output_attention');
B('prob: factor 65536 at trace full (u = L_Q)', { algorithm: 'prob', factor: 65536, q: long(8192, 1), k: long(8192, 1), v: long(8192, 1) }, 'factor');
B('prob: factor 65536 at trace context (sample_index 8192 x 8192)', { algorithm: 'prob', trace: 'context', factor: 65536, q: long(8192, 1), k: long(8192, 1), v: long(8192, 1) }, 'factor');
B('additive: hidden 65536 with E_q 4096', { algorithm: 'additive', hidden: 65536, q: long(1, 4096), k: long(1, 1), v: long(1, 1) }, 'hidden');
B('additive: W_q with 8192 rows on 8192 queries', { algorithm: 'additive', q: long(8192, 1), k: long(1, 1), v: long(1, 1), weights: { W_q: zeros(8192).map(() => [0]), W_k: zeros(8192).map(() => [0]), w_v: zeros(8192) } }, 'weights.W_q');
B('multihead: W_o with 65536 rows on 300 queries', { ...MULTIHEAD_W, num_heads: 1, queries: [zeros(300).map(() => [0, 0])], weights: { ...MULTIHEAD_W.weights, W_v: [[1, 0]], W_o: { shape: [65536, 1], data: zeros(65536) } } }, 'weights.W_o');
B('multihead: 8192 x 8192 head weights at trace full', { algorithm: 'multihead', num_heads: 1, num_hiddens: 1, queries: { shape: [1, 8192, 1], data: zeros(8192) }, keys: { shape: [1, 8192, 1], data: zeros(8192) }, values: { shape: [1, 8192, 1], data: zeros(8192) } }, 'keys');

// ---- additive ----
B('additive: q with H = 2', withFields(ADDITIVE, { q: [[[[1, 2, 3], [1, 2, 3]]]] }), 'q');
B('additive: k with H = 2', withFields(ADDITIVE, { k: [[[[1, 0], [1, 0]], [[0, 1], [0, 1]]]] }), 'k[0][0]');
B('additive: neither hidden nor weights', withFields(ADDITIVE, { weights: undefined }), 'hidden');
B('additive: hidden 0', withFields(ADDITIVE, { weights: undefined, hidden: 0 }), 'hidden');
B('additive: hidden a string', withFields(ADDITIVE, { weights: undefined, hidden: '8' }), 'hidden');
B('additive: weights a string', withFields(ADDITIVE, { weights: 'random' }), 'weights');
B('additive: W_q columns != E_q', withFields(ADDITIVE, { 'weights.W_q': [[1, 0], [0, 1]] }), 'weights.W_q[0]');
B('additive: W_k rows != rows of W_q', withFields(ADDITIVE, { 'weights.W_k': [[1, 0], [0, 1], [1, 1]] }), 'weights.W_k');
B('additive: w_v (h, 1) instead of (h) or (1, h)', withFields(ADDITIVE, { 'weights.w_v': [[1], [-1]] }), 'weights.w_v');
B('additive: w_v missing', withFields(ADDITIVE, { 'weights.w_v': undefined }), 'weights.w_v');
B('additive: W_q rows != hidden', withFields(ADDITIVE, { hidden: 3 }), 'weights.W_q');
B('additive: valid_lens wrong length', withFields(ADDITIVE, { mask: { kind: 'valid_lens', valid_lens: [1, 1] } }), 'mask.valid_lens');

// ---- multihead ----
B('multihead: num_heads missing', withFields(MULTIHEAD, { num_heads: undefined }), 'num_heads');
B('multihead: num_heads 0', withFields(MULTIHEAD, { num_heads: 0 }), 'num_heads');
B('multihead: num_heads does not divide num_hiddens', withFields(MULTIHEAD, { num_heads: 3 }), 'num_heads');
B('multihead: num_heads 2.5', withFields(MULTIHEAD, { num_heads: 2.5 }), 'num_heads');
B('multihead: num_hiddens missing', withFields(MULTIHEAD, { num_hiddens: undefined }), 'num_hiddens');
B('multihead: num_hiddens 1e6', withFields(MULTIHEAD, { num_hiddens: 1e6 }), 'num_hiddens');
B('multihead: num_hiddens 65536 (weights too big)', withFields(MULTIHEAD, { num_hiddens: 65536 }), 'num_hiddens');
B('multihead: queries of rank 4', withFields(MULTIHEAD, { queries: [[[[1, 0]], [[0, 1]]]] }), 'queries[0][0][0]');
B('multihead: keys B differs', withFields(MULTIHEAD, { keys: [MULTIHEAD.keys[0], MULTIHEAD.keys[0]] }), 'keys');
B('multihead: values L_K differs', withFields(MULTIHEAD, { values: [[[1, 2], [3, 4]]] }), 'values[0]');
B('multihead: inner unknown', withFields(MULTIHEAD, { inner: 'linear' }), 'inner');
B('multihead: bias a string', withFields(MULTIHEAD, { bias: 'yes' }), 'bias');
B('multihead: b_q with num_hiddens', withFields(MULTIHEAD, { b_q: [0, 0] }), 'b_q');
B('multihead: W_q columns != d_q', withFields(MULTIHEAD_W, { 'weights.W_q': [[1, 0, 0], [0, 1, 0]] }), 'weights.W_q[0]');
B('multihead: W_k rows != rows of W_q', withFields(MULTIHEAD_W, { 'weights.W_k': [[1, 0]] }), 'weights.W_k');
B('multihead: W_o columns != rows of W_v', withFields(MULTIHEAD_W, { 'weights.W_o': [[1, 0, 0]] }), 'weights.W_o[0]');
B('multihead: W_v missing', withFields(MULTIHEAD_W, { 'weights.W_v': undefined }), 'weights.W_v');
B('multihead: num_heads does not divide W_q rows', withFields(MULTIHEAD_W, { num_heads: 4 }), 'num_heads');
B('multihead: b_q wrong length', withFields(MULTIHEAD_W, { 'weights.b_q': [0, 0, 0] }), 'weights.b_q');
B('multihead: b_o both top-level and in weights', withFields(MULTIHEAD_W, { 'weights.b_o': [0, 0], b_o: [0, 0] }), 'b_o');
B('multihead: num_hiddens disagrees with W_q', withFields(MULTIHEAD_W, { num_hiddens: 4 }), 'num_hiddens');
B('multihead: inner prob with a local mask', withFields(MULTIHEAD, { inner: 'prob', mask: { kind: 'local', window: 1 } }), 'mask.kind');
B('multihead: inner prob, factor 0', withFields(MULTIHEAD, { inner: 'prob', factor: 0 }), 'factor');
B('multihead: inner prob, sample_index too wide', withFields(MULTIHEAD, { inner: 'prob', factor: 1, sample_index: [[0, 1, 2], [0, 1, 2]] }), 'sample_index[0]');

// ---- prob ----
B('prob: factor 0', withFields(PROB, { factor: 0 }), 'factor');
B('prob: factor -1', withFields(PROB, { factor: -1 }), 'factor');
B('prob: factor a string', withFields(PROB, { factor: '5' }), 'factor');
B('prob: factor 1e12', withFields(PROB, { factor: 1e12 }), 'factor');
B('prob: sample_index out of range', withFields(PROB, { sample_index: [[0, 2], [1, 3], [0, 4], [2, 3]] }), 'sample_index[2][1]');
B('prob: sample_index negative', withFields(PROB, { sample_index: [[0, 2], [-1, 3], [0, 2], [2, 3]] }), 'sample_index[1][0]');
B('prob: sample_index a float', withFields(PROB, { sample_index: [[0, 2], [1, 3], [0, 2], [2, 3.5]] }), 'sample_index[3][1]');
B('prob: sample_index 3 rows (L_Q = 4)', withFields(PROB, { sample_index: [[0, 2], [1, 3], [0, 2]] }), 'sample_index');
B('prob: sample_index 3 per row (U_part = 2)', withFields(PROB, { sample_index: [[0, 2, 1], [1, 3, 1], [0, 2, 1], [2, 3, 1]] }), 'sample_index[0]');
B('prob: sample_index flat', withFields(PROB, { sample_index: [0, 2, 1, 3, 0, 2, 2, 3] }), 'sample_index');
B('prob: sample_per_head with 2-D sample_index', withFields(PROB, { sample_per_head: true }), 'sample_index');
B('prob: local mask', withFields(PROB, { mask: { kind: 'local', window: 1 } }), 'mask.kind');
B('prob: explicit mask', withFields(PROB, { mask: { kind: 'explicit', allowed: [[1]] } }), 'mask.kind');
B('prob: causal with L_Q != L_K', withFields(PROB, { mask: { kind: 'causal' }, q: [[[[1, 0]], [[0, 1]], [[1, 1]]]], sample_index: [[0, 2], [1, 3], [0, 2]] }), 'mask');
B('prob: output_attention a string', withFields(PROB, { output_attention: 'yes' }), 'output_attention');
B('prob: causal_initial unknown', withFields(PROB, { causal_initial: 'max' }), 'causal_initial');
B('prob: sparsity_divisor unknown', withFields(PROB, { sparsity_divisor: 'L_Q' }), 'sparsity_divisor');
B('prob: squeeze_bug a number', withFields(PROB, { squeeze_bug: 0 }), 'squeeze_bug');
B('prob: k E differs', withFields(PROB, { k: [[[[1]], [[0]], [[1]], [[1]]]] }), 'k[0][0][0]');

// ---- nadaraya_watson ----
B('nw: x_train missing', withFields(NW, { x_train: undefined }), 'x_train');
B('nw: x_train 2-D', withFields(NW, { x_train: [[0], [1], [2]] }), 'x_train[0]');
B('nw: x_train empty', withFields(NW, { x_train: [] }), 'x_train');
B('nw: y_train shorter', withFields(NW, { y_train: [1, 2] }), 'y_train');
B('nw: y_train entry null', withFields(NW, { y_train: [1, null, 3] }), 'y_train[1]');
B('nw: x_query a number', withFields(NW, { x_query: 0.5 }), 'x_query');
B('nw: kernel unknown', withFields(NW, { kernel: 'triangle' }), 'kernel');
B('nw: w a string', withFields(NW, { w: 'one' }), 'w');
B('nw: dataset with x_train', withFields(NW, { dataset: { n_train: 10 } }), 'x_train');
B('nw: dataset a number', { algorithm: 'nadaraya_watson', dataset: 50 }, 'dataset');
B('nw: dataset.n_train 0', { algorithm: 'nadaraya_watson', dataset: { n_train: 0 } }, 'dataset.n_train');
B('nw: dataset.n_train 1e12', { algorithm: 'nadaraya_watson', dataset: { n_train: 1e12 } }, 'dataset.n_train');
B('nw: dataset.seed negative', { algorithm: 'nadaraya_watson', dataset: { seed: -1 } }, 'dataset.seed');
B('nw: train a boolean', withFields(NW, { train: true }), 'train');
B('nw: train.epochs 0', withFields(NW, { train: { epochs: 0 } }), 'train.epochs');
B('nw: train.epochs 1e6', withFields(NW, { train: { epochs: 1e6 } }), 'train.epochs');
B('nw: train.epochs too much work', { algorithm: 'nadaraya_watson', dataset: { n_train: 4000 }, train: { epochs: 100 } }, 'train.epochs');
B('nw: train.lr a string', withFields(NW, { train: { lr: 'fast' } }), 'train.lr');
B('nw: train with 1 point', withFields(NW, { x_train: [0], y_train: [1], train: {} }), 'train');

// ---- positional_encoding ----
B('pe: num_steps missing', withFields(PE, { num_steps: undefined }), 'num_steps');
B('pe: num_steps 0', withFields(PE, { num_steps: 0 }), 'num_steps');
B('pe: num_steps 1e12', withFields(PE, { num_steps: 1e12 }), 'num_steps');
B('pe: num_steps 2.5', withFields(PE, { num_steps: 2.5 }), 'num_steps');
B('pe: num_steps a string', withFields(PE, { num_steps: '4' }), 'num_steps');
B('pe: encoding_dim odd', withFields(PE, { encoding_dim: 5 }), 'encoding_dim');
B('pe: encoding_dim 0', withFields(PE, { encoding_dim: 0 }), 'encoding_dim');
B('pe: encoding_dim missing', withFields(PE, { encoding_dim: undefined }), 'encoding_dim');
B('pe: 65536 x 65536', withFields(PE, { num_steps: 65536, encoding_dim: 65536 }), 'num_steps');
B('pe: base 0', withFields(PE, { base: 0 }), 'base');
B('pe: base negative', withFields(PE, { base: -10000 }), 'base');
B('pe: base a string', withFields(PE, { base: '10000' }), 'base');

// ---- extreme but valid ----
const valid = [];
const V = (name, scenario) => valid.push({ name, scenario });
V('full: scores +-1e300 (exp overflows if not shifted)', withFields(FULL, { q: [[[[1e300, 0]], [[-1e300, 1]]]], k: [[[[1, 0]], [[-1, 0]], [[0.5, 1]]]] }));
V('full: scores 1e300 apart, L_K = 2', { algorithm: 'full', scale: 1, q: [[[[1e300]]]], k: [[[[1]], [[-1]]]], v: [[[[1]], [[2]]]] });
V('full: v at 1e308', withFields(FULL, { v: [[[[1e308, -1e308]], [[1e308, -1e308]], [[1e308, -1e308]]]] }));
V('full: subnormal inputs (1e-320)', withFields(FULL, { q: [[[[1e-320, 0]], [[0, -1e-320]]]] }));
V('full: explicit mask with an empty row, fill -inf', withFields(FULL, { mask: { kind: 'explicit', allowed: [[false, false, false], [true, false, true]] } }));
V('full: valid_lens 0 with fill "-inf"', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [0], fill: '-inf' } }));
V('full: valid_lens 0 with the default fill (uniform)', withFields(FULL, { mask: { kind: 'valid_lens', valid_lens: [0] } }));
V('full: causal with L_Q > L_K', withFields(FULL, { q: [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 2]]]], mask: { kind: 'causal' } }));
V('full: atrous + causal, empty rows impossible, fill 0', withFields(FULL, { mask: { kind: 'atrous', dilation: 5, causal: true, fill: 0 } }));
V('full: local window 0, fill -1e308 against scores 1e300', withFields(FULL, { q: [[[[1e300, 0]], [[0, 1]]]], mask: { kind: 'local', window: 0, fill: -1e308 } }));
V('full: fill 1e308 (masked keys win)', withFields(FULL, { mask: { kind: 'causal', fill: 1e308 } }));
V('full: scale 0 (uniform)', withFields(FULL, { scale: 0 }));
V('full: trace context', withFields(FULL, { trace: 'context', mask: { kind: 'strided', window: 0, stride: 2 } }));
V('full: seed 2^53 - 1', withFields(FULL, { seed: 9007199254740991 }));
V('prob: L = 1', { algorithm: 'prob', q: [[[[1, 2]]]], k: [[[[3, 4]]]], v: [[[[5, 6]]]] });
V('prob: L = 1, causal', { algorithm: 'prob', q: [[[[1, 2]]]], k: [[[[3, 4]]]], v: [[[[5, 6]]]], mask: { kind: 'causal' } });
V('prob: L_Q = 1, L_K = 3, output_attention', { algorithm: 'prob', output_attention: true, q: [[[[1, 2]]]], k: [[[[3, 4]], [[1, 0]], [[0, 1]]]], v: [[[[5]], [[6]], [[7]]]] });
V('prob: huge scores 1e300', withFields(PROB, { q: [[[[1e300, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]], scale: 1e-10 }));
V('prob: L = 65536 at trace context (dense cost 2^32: 64-bit in wasm32 too)', { algorithm: 'prob', trace: 'context', factor: 1, q: long(65536, 1), k: long(65536, 1), v: long(65536, 1) });
V('prob: all q equal (ties in M)', withFields(PROB, { q: [[[[1, 1]], [[1, 1]], [[1, 1]], [[1, 1]]]] }));
V('additive: huge projections saturate tanh', withFields(ADDITIVE, { q: [[[[1e300, 0, 0]]]], k: [[[[1e300, 0]], [[0, 1]]]] }));
V('additive: explicit mask with an empty row', withFields(ADDITIVE, { mask: { kind: 'explicit', allowed: [[false, false]] } }));
V('multihead: valid_lens 0 and "-inf"', withFields(MULTIHEAD, { mask: { kind: 'valid_lens', valid_lens: [0], fill: '-inf' } }));
V('multihead: inner prob, L_Q = 1', withFields(MULTIHEAD, { inner: 'prob', queries: [[[1, 0]]] }));
V('nw: gaussian with w = 1e10 (u^2 overflows)', withFields(NW, { x_train: [0, 1e150, 2], x_query: [1e150, 1], w: 1e10 }));
V('nw: gaussian with w = 0', withFields(NW, { w: 0 }));
V('nw: boxcar with no point in reach', withFields(NW, { kernel: 'boxcar', x_query: [100, 1] }));
V('nw: epanechnikov trained, n_train 2', withFields(NW, { kernel: 'epanechnikov', x_train: [0, 0.5], y_train: [1, 2], w: 1, train: { epochs: 3, lr: 0.1 } }));
V('nw: y_train at 1e300', withFields(NW, { y_train: [1e300, -1e300, 1e300] }));
V('pe: base 1e-300, encoding_dim 4', withFields(PE, { base: 1e-300, encoding_dim: 4 }));
V('pe: base 1e308', withFields(PE, { base: 1e308 }));
V('pe: num_steps 1, encoding_dim 2', withFields(PE, { num_steps: 1, encoding_dim: 2 }));

const names = new Set();
for (const c of [...bad, ...valid]) {
  if (names.has(c.name)) throw new Error(`duplicate case name: ${c.name}`);
  names.add(c.name);
}
// one case per line
const list = (cases) => cases.map((c) => '  ' + JSON.stringify(c)).join(',\n');
writeFileSync(path.join(here, 'corpus.json'), `{"bad": [\n${list(bad)}\n], "valid": [\n${list(valid)}\n]}\n`);
console.log(`tests/bad-inputs/corpus.json: ${bad.length} bad, ${valid.length} valid`);
