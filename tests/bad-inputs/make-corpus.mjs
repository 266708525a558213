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
// the parser names the path where it stopped (issue 18): the array left open, the literal's entry
T('text: truncated object', '{"algorithm": "full", "q": [[[[1', 'q[0][0][0]');
T('text: NaN literal', '{"algorithm": "full", "q": NaN}', 'q');
T('text: number beyond double range (1e400)', '{"algorithm": "full", "q": [[[[1e400]]]], "k": [[[[1]]]], "v": [[[[1]]]]}', 'q[0][0][0][0]');
T('text: -Infinity as a mask fill', '{"algorithm": "full", "q": [[[[1]]]], "k": [[[[1]]]], "v": [[[[1]]]], "mask": {"kind": "causal", "fill": -Infinity}}', 'mask.fill');
T('text: Infinity in v', '{"algorithm": "full", "q": [[[[1]]]], "k": [[[[1]]]], "v": [[[[1, Infinity]]]]}', 'v[0][0][0][1]');
T('text: nested 100 deep', '{"algorithm": "full", "q": ' + '['.repeat(100) + ']'.repeat(100) + '}', 'q' + '[0]'.repeat(63));
T('text: a missing comma in the mask', '{"algorithm": "full", "q": [[[[1]]]], "k": [[[[1]]]], "v": [[[[1]]]], "mask": {"kind": "local" "window": 1}}', 'mask');
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
B('k H differs from q', withFields(FULL, { k: [[[[1, 0], [1, 0]], [[0, 1], [0, 1]], [[1, 1], [1, 1]]]] }), 'k');  // 2 kv heads cannot serve 1 query head (GQA: H_kv divides H)
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

// ---- linear and performer (the kernel family) ----
// linear: FULL's inputs (B = 1, L_Q = 2, L_K = 3, H = 1, E = D = 2), elu1
const LINEAR = { ...clone(FULL), algorithm: 'linear', feature_map: 'elu1' };
// performer: the same inputs, a given projection (m = 3, E = 2)
const PERFORMER = { ...clone(FULL), algorithm: 'performer', projection: [[1, 0], [0, 1], [1, 1]] };
const PERFORMER_SEEDED = { ...clone(FULL), algorithm: 'performer', num_features: 4 };
B('linear: feature_map unknown', withFields(LINEAR, { feature_map: 'gelu' }), 'feature_map');
B('linear: feature_map a number', withFields(LINEAR, { feature_map: 1 }), 'feature_map');
B('linear: local mask', withFields(LINEAR, { mask: { kind: 'local', window: 1 } }), 'mask.kind');
B('linear: local mask without its window (the kind is named)', withFields(LINEAR, { mask: { kind: 'local' } }), 'mask.kind');
B('linear: causal mask with a finite fill', withFields(LINEAR, { mask: { kind: 'causal', fill: -1e6 } }), 'mask.fill');
B('linear: cosine1 of a zero query', withFields(LINEAR, { feature_map: 'cosine1', q: [[[[1, 0]], [[0, 0]]]] }), 'q[0][1][0]');
B('linear: k E differs', withFields(LINEAR, { k: [[[[1]], [[0]], [[1]]]] }), 'k[0][0][0]');
B('linear: sum of phi(k) v overflows', withFields(LINEAR, { v: [[[[1e308, 1]], [[1e308, 1]], [[1, 1]]]] }), 'v');
B('linear: 8192 x 8192 weights at trace full', { algorithm: 'linear', q: long(8192, 1), k: long(8192, 1), v: long(8192, 1) }, 'k');
B('performer: num_features 0', withFields(PERFORMER_SEEDED, { num_features: 0 }), 'num_features');
B('performer: num_features 2.5', withFields(PERFORMER_SEEDED, { num_features: 2.5 }), 'num_features');
B('performer: projection row of 3 numbers (E = 2)', withFields(PERFORMER, { projection: [[1, 0], [0, 1, 2], [1, 1]] }), 'projection[1]');
B('performer: projection rows differ from num_features', withFields(PERFORMER, { num_features: 4 }), 'projection');
B('performer: projection flat', withFields(PERFORMER, { projection: [1, 0, 0, 1] }), 'projection[0]');
B('performer: norms unknown', withFields(PERFORMER_SEEDED, { norms: 'unit' }), 'norms');
B('performer: orthogonal a string', withFields(PERFORMER_SEEDED, { orthogonal: 'yes' }), 'orthogonal');
B('performer: explicit mask', withFields(PERFORMER, { mask: { kind: 'explicit', allowed: [[true, true, true], [true, false, true]] } }), 'mask.kind');
B('performer: scale negative', withFields(PERFORMER, { scale: -1 }), 'scale');
B('performer: exp(w.x~ - |x~|^2/2) overflows', withFields(PERFORMER, { projection: [[1e3, 1e3], [0, 1], [1, 1]], q: [[[[3, 3]], [[0, 1]]]] }), 'q[0][0][0]');
B('performer: projection 65536 x 4096', { algorithm: 'performer', num_features: 65536, orthogonal: false, q: long(1, 4096), k: long(1, 4096), v: long(1, 1) }, 'num_features');
B('performer: 4096 orthogonal rows of E = 4096 (Gram-Schmidt too long)', { algorithm: 'performer', num_features: 4096, q: long(1, 4096), k: long(1, 4096), v: long(1, 1) }, 'num_features');

// ---- linformer, lsh, pooling (the shortened keys) ----
// linformer: FULL's inputs (B = 1, L_Q = 2, L_K = 3, H = 1, E = D = 2), k = 2 seeded, or E_proj / F_proj (2, 3)
const LINFORMER = { ...clone(FULL), algorithm: 'linformer', proj_len: 2 };
const LINFORMER_EF = { ...clone(FULL), algorithm: 'linformer', E_proj: [[1, 0, 0], [0, 0.5, 0.5]], F_proj: [[0, 1, 0], [0.5, 0, 0.5]] };
// pooling: FULL's inputs, kernel 2 (L' = 2)
const POOLING = { ...clone(FULL), algorithm: 'pooling', kernel: 2 };
// lsh: B = 1, L = 4, H = 1, E = D = 2, 2 buckets, one round seeded
const LSH = { algorithm: 'lsh', n_buckets: 2, q: [[[[1, 0]], [[0, 1]], [[-1, 0.5]], [[2, 2]]]], v: [[[[1, 2]], [[3, 4]], [[5, 6]], [[7, 8]]]] };
B('linformer: proj_len missing (no E_proj, F_proj)', withFields(LINFORMER, { proj_len: undefined }), 'proj_len');
B('linformer: proj_len 0', withFields(LINFORMER, { proj_len: 0 }), 'proj_len');
B('linformer: proj_len a string', withFields(LINFORMER, { proj_len: '2' }), 'proj_len');
B('linformer: E_proj without F_proj', withFields(LINFORMER_EF, { F_proj: undefined }), 'F_proj');
B('linformer: F_proj without E_proj', withFields(LINFORMER_EF, { E_proj: undefined }), 'E_proj');
B('linformer: E_proj row of 2 numbers (L_K = 3)', withFields(LINFORMER_EF, { E_proj: [[1, 0], [0, 1]] }), 'E_proj[0]');
B('linformer: F_proj 3 rows (E_proj 2)', withFields(LINFORMER_EF, { F_proj: [[0, 1, 0], [0.5, 0, 0.5], [1, 1, 1]] }), 'F_proj');
B('linformer: E_proj rows differ from proj_len', withFields(LINFORMER_EF, { proj_len: 3 }), 'E_proj');
B('linformer: E_proj entry null', withFields(LINFORMER_EF, { E_proj: [[1, null, 0], [0, 0.5, 0.5]] }), 'E_proj[0][1]');
B('linformer: causal mask', withFields(LINFORMER, { mask: { kind: 'causal' } }), 'mask.kind');
B('linformer: local mask without its window (the kind is named)', withFields(LINFORMER, { mask: { kind: 'local' } }), 'mask.kind');
B('linformer: mask none with causal true', withFields(LINFORMER, { mask: { kind: 'none', causal: true } }), 'mask.causal');
B('linformer: E_proj K overflows', withFields(LINFORMER_EF, { k: [[[[1e308, 0]], [[1e308, 0]], [[1, 1]]]], E_proj: [[1, 1, 0], [0, 0.5, 0.5]] }), 'k');
B('linformer: F_proj V overflows', withFields(LINFORMER_EF, { v: [[[[1e308, 0]], [[1, 1]], [[1e308, 0]]]], F_proj: [[0, 1, 0], [1, 0, 1]] }), 'v');
B('linformer: E_proj and F_proj of proj_len 65536 on L_K 8192', { algorithm: 'linformer', proj_len: 65536, trace: 'context', q: long(1, 1), k: long(8192, 1), v: long(8192, 1) }, 'proj_len');
B('pooling: kernel missing', withFields(POOLING, { kernel: undefined }), 'kernel');
B('pooling: kernel 0', withFields(POOLING, { kernel: 0 }), 'kernel');
B('pooling: kernel 1.5', withFields(POOLING, { kernel: 1.5 }), 'kernel');
B('pooling: kernel 4 > L_K = 3', withFields(POOLING, { kernel: 4 }), 'kernel');
B('pooling: stride 0', withFields(POOLING, { stride: 0 }), 'stride');
B('pooling: stride a string', withFields(POOLING, { stride: '1' }), 'stride');
B('pooling: pool min', withFields(POOLING, { pool: 'min' }), 'pool');
B('pooling: valid_lens mask', withFields(POOLING, { mask: { kind: 'valid_lens', valid_lens: [2] } }), 'mask.kind');
B('pooling: average of 1e308 and 1e308 overflows', withFields(POOLING, { k: [[[[1e308, 0]], [[1e308, 0]], [[1, 1]]]] }), 'k');
B('pooling: 8192 x 8192 scores at trace full (kernel 1)', { algorithm: 'pooling', kernel: 1, q: long(8192, 1), k: long(8192, 1), v: long(8192, 1) }, 'k');
B('lsh: n_buckets missing', withFields(LSH, { n_buckets: undefined }), 'n_buckets');
B('lsh: n_buckets odd', withFields(LSH, { n_buckets: 3 }), 'n_buckets');
B('lsh: n_buckets 0', withFields(LSH, { n_buckets: 0 }), 'n_buckets');
B('lsh: n_hashes 0', withFields(LSH, { n_hashes: 0 }), 'n_hashes');
B('lsh: n_hashes 2000', withFields(LSH, { n_hashes: 2000 }), 'n_hashes');
B('lsh: k differs from q', withFields(LSH, { k: [[[[1, 0]], [[0, 1]], [[-1, 0.5]], [[2, 2.5]]]] }), 'k');
B('lsh: k of another length', withFields(LSH, { k: [[[[1, 0]], [[0, 1]]]] }), 'k[0]');
B('lsh: v of another length (L of q)', withFields(LSH, { v: [[[[1, 2]], [[3, 4]]]] }), 'v[0]');
B('lsh: rotations rows of 3 (E = 2)', withFields(LSH, { rotations: [[[1], [0], [0]]] }), 'rotations[0]');
B('lsh: rotations columns differ from n_buckets / 2', withFields(LSH, { n_buckets: 4, rotations: [[[1], [0]]] }), 'rotations[0][0]');
B('lsh: rotations rounds differ from n_hashes', withFields(LSH, { n_hashes: 2, rotations: [[[1], [0]]] }), 'rotations');
B('lsh: causal mask', withFields(LSH, { mask: { kind: 'causal' } }), 'mask.kind');
B('lsh: allow_duplicate_attention a string', withFields(LSH, { allow_duplicate_attention: 'no' }), 'allow_duplicate_attention');
B('lsh: the hash q . rotations overflows', withFields(LSH, { q: [[[[1e300, 1e300]], [[0, 1]], [[-1, 0.5]], [[2, 2]]]], rotations: [[[1e10], [1e10]]] }), 'q');
B('lsh: 8192 x 8192 weights at trace full', { algorithm: 'lsh', n_buckets: 2, q: long(8192, 1), v: long(8192, 1) }, 'q');
B('lsh: rotated queries 8192 x 32768', { algorithm: 'lsh', n_buckets: 65536, trace: 'context', q: long(8192, 1), v: long(8192, 1) }, 'n_buckets');
B('lsh: hashing 2^33 multiply-adds', { algorithm: 'lsh', n_buckets: 65536, trace: 'context', q: long(256, 1024), v: long(256, 1) }, 'n_buckets');
B('lsh: round_context of 1024 rounds', { algorithm: 'lsh', n_buckets: 2, n_hashes: 1024, trace: 'context', q: long(32768, 1), v: long(32768, 1) }, 'n_hashes');

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

// linear and performer
V('linear: relu query with no positive feature (zero denominator)', withFields(LINEAR, { feature_map: 'relu', q: [[[[-1, -2]], [[1, 0]]]] }));
V('linear: elu1 features underflow to 0 (q = -1e300)', withFields(LINEAR, { q: [[[[-1e300, -1e300]], [[1e300, 0]]]], mask: { kind: 'causal' } }));
V('linear: cosine1 at 1e300 and 1e-320', withFields(LINEAR, { feature_map: 'cosine1', q: [[[[1e300, -1e300]], [[1e-320, 0]]]], k: [[[[1e-320, 1e-320]], [[0, 1e300]], [[1, 1]]]] }));
V('linear: softmax_qk causal with L_Q > L_K', withFields(LINEAR, { feature_map: 'softmax_qk', q: [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 2]]]], mask: { kind: 'causal' } }));
V('linear: L = 65536 causal at trace context', { algorithm: 'linear', trace: 'context', mask: { kind: 'causal' }, q: long(65536, 1), k: long(65536, 1), v: long(65536, 1) });
V('performer: every feature of a query underflows (zero context)', withFields(PERFORMER, { scale: 1, q: [[[[-60, 60]], [[0, 1]]]] }));
V('performer: scale 0 (uniform weights)', withFields(PERFORMER, { scale: 0 }));
V('performer: E = 1, m = 1, quantile norms', { algorithm: 'performer', num_features: 1, norms: 'quantile', q: [[[[2]]]], k: [[[[1]], [[-1]]]], v: [[[[1]], [[2]]]] });
V('performer: m = 3E orthogonal, sqrt_d, causal', withFields(PERFORMER_SEEDED, { num_features: 6, norms: 'sqrt_d', mask: { kind: 'causal' }, seed: 9007199254740991 }));

// linformer, lsh, pooling
V('linformer: proj_len 1 (one projected key: every weight is 1)', withFields(LINFORMER, { proj_len: 1 }));
V('linformer: proj_len 5 above L_K = 3, seed 2^53 - 1', withFields(LINFORMER, { proj_len: 5, seed: 9007199254740991 }));
V('linformer: scores 1e300 apart', withFields(LINFORMER_EF, { scale: 1, q: [[[[1e300, 0]], [[-1e300, 0]]]] }));
V('linformer: L = 65536 at trace context', { algorithm: 'linformer', trace: 'context', proj_len: 8, q: long(65536, 1), k: long(65536, 1), v: long(65536, 1) });
V('pooling: kernel = L_K (one pooled key)', withFields(POOLING, { kernel: 3, pool: 'max' }));
V('pooling: stride 65536 (one window)', withFields(POOLING, { stride: 65536 }));
V('pooling: max of 1e308 (no overflow)', withFields(POOLING, { pool: 'max', k: [[[[1e308, -1e308]], [[1e308, 0]], [[1, 1]]]] }));
V('lsh: L = 1', { algorithm: 'lsh', n_buckets: 2, q: [[[[1, 2]]]], v: [[[[3]]]] });
V('lsh: q all zero (every hash ties: bucket 0)', withFields(LSH, { q: [[[[0, 0]], [[0, 0]], [[0, 0]], [[0, 0]]]], n_hashes: 3 }));
V('lsh: k given equal to q, no duplicates, 8 rounds', withFields(LSH, { k: LSH.q, n_hashes: 8, allow_duplicate_attention: false }));
V('lsh: 65536 buckets (most empty)', withFields(LSH, { n_buckets: 65536 }));
V('lsh: scores 1e300 apart', withFields(LSH, { scale: 1e-10, q: [[[[1e150, 0]], [[0, 1]], [[-1e150, 0.5]], [[2, 2]]]] }));

// ---- diff (differential attention): FULL's inputs, E = 2 so e = 1 ----
const DIFF = { ...clone(FULL), algorithm: 'diff', lambda: 0.5 };
B('diff: E odd (no halves)', withFields(DIFF, { q: [[[[1, 0, 1]], [[0, 1, 1]]]], k: [[[[1, 0, 1]], [[0, 1, 1]], [[1, 1, 1]]]] }), 'q');
B('diff: lambda a string', withFields(DIFF, { lambda: '0.5' }), 'lambda');
B('diff: lambda.q1 of length 2 (e = 1)', withFields(DIFF, { lambda: { q1: [1, 2], k1: [1], q2: [1], k2: [1] } }), 'lambda.q1');
B('diff: lambda.k2 missing', withFields(DIFF, { lambda: { q1: [1], k1: [1], q2: [1] } }), 'lambda.k2');
B('diff: exp(q1 . k1) overflows', withFields(DIFF, { lambda: { q1: [30], k1: [30], q2: [1], k2: [1] } }), 'lambda');
B('diff: depth 0', withFields(DIFF, { depth: 0 }), 'depth');
B('diff: lambda_init a string', withFields(DIFF, { lambda_init: 'x' }), 'lambda_init');
V('diff: lambda 1e150 (weights of -1e150; RMSNorm squares them without overflow)', withFields(DIFF, { lambda: 1e150 }));

// ---- flash (FlashAttention's online softmax) ----
// B = 1, L_Q = 2, L_K = 3, H = 1, E = D = 2: FULL with block sizes
const FLASH = { ...FULL, algorithm: 'flash', block_q: 2, block_k: 2 };
B('flash: block_k 0', withFields(FLASH, { block_k: 0 }), 'block_k');
B('flash: block_k fractional', withFields(FLASH, { block_k: 1.5 }), 'block_k');
B('flash: block_q negative', withFields(FLASH, { block_q: -2 }), 'block_q');
B('flash: block_q a string', withFields(FLASH, { block_q: '2' }), 'block_q');
B('flash: block_k above 65536', withFields(FLASH, { block_k: 65537 }), 'block_k');
B('flash: mask kind unknown', withFields(FLASH, { mask: { kind: 'diagonal' } }), 'mask.kind');
B('flash: q.k overflows (1e200 * 1e200)', withFields(FLASH, { q: [[[[1e200, 0]], [[0, 1]]]], k: [[[[1e200, 0]], [[0, 1]], [[1, 1]]]] }), 'q');
B('flash: float32 score beyond 3.4e38', withFields(FLASH, { dtype: 'float32', q: [[[[1e20, 0]], [[0, 1]]]], k: [[[[1e20, 0]], [[0, 1]], [[1, 1]]]] }), 'dtype');
B('flash: partial context (1, 1, 4097, 4097, 1) at trace full', { algorithm: 'flash', block_k: 1, q: long(4097, 1), k: long(4097, 1), v: long(4097, 1) }, 'block_k');
V('flash: block sizes 1 with a local mask (no key yet in early blocks)', withFields(FLASH, { block_q: 1, block_k: 1, mask: { kind: 'local', window: 0 } }));
V('flash: block sizes beyond L, scores +-1e300', withFields(FLASH, { block_q: 9, block_k: 9, q: [[[[1e300, 0]], [[-1e300, 1]]]], k: [[[[1, 0]], [[-1, 0]], [[0.5, 1]]]] }));
V('flash: float32, valid_lens 0 with fill "-inf"', withFields(FLASH, { dtype: 'float32', mask: { kind: 'valid_lens', valid_lens: [0], fill: '-inf' } }));

// ---- bahdanau (d2l's seq2seq with attention) ----
// B = 2, T_src = 3, T_tgt = 3, vocab 6, embed 2, num_hiddens 3, 1 layer, weights seeded
const BAH = {
  algorithm: 'bahdanau', src_vocab: 6, tgt_vocab: 6, embed_size: 2, num_hiddens: 3, num_layers: 1,
  src: [[4, 5, 3], [5, 3, 1]], tgt: [[2, 4, 5], [2, 5, 3]],
};
// the same model with given weights (torch's state_dict names, which hold dots: no withFields paths)
const bahFill = (rows, cols, x) => Array.from({ length: rows }, () => Array(cols).fill(x));
const BAH_WEIGHTS = {
  'encoder.embedding.weight': bahFill(6, 2, 0.1), 'encoder.rnn.weight_ih_l0': bahFill(9, 2, 0.1),
  'encoder.rnn.weight_hh_l0': bahFill(9, 3, 0.1), 'encoder.rnn.bias_ih_l0': Array(9).fill(0),
  'encoder.rnn.bias_hh_l0': Array(9).fill(0), 'decoder.attention.W_k.weight': bahFill(3, 3, 0.1),
  'decoder.attention.W_q.weight': bahFill(3, 3, 0.1), 'decoder.attention.w_v.weight': bahFill(1, 3, 0.1),
  'decoder.embedding.weight': bahFill(6, 2, 0.1), 'decoder.rnn.weight_ih_l0': bahFill(9, 5, 0.1),
  'decoder.rnn.weight_hh_l0': bahFill(9, 3, 0.1), 'decoder.rnn.bias_ih_l0': Array(9).fill(0),
  'decoder.rnn.bias_hh_l0': Array(9).fill(0), 'decoder.dense.weight': bahFill(6, 3, 0.1),
  'decoder.dense.bias': Array(6).fill(0),
};
const bahWeights = (changes) => ({ ...clone(BAH), weights: { ...clone(BAH_WEIGHTS), ...changes } });
const BAH_TRAIN = { algorithm: 'bahdanau', num_hiddens: 4, train: { n_examples: 10, epochs: 1, max_len: 3 } };
B('bahdanau: src token out of src_vocab', withFields(BAH, { src: [[4, 5, 3], [5, 3, 6]] }), 'src[1][2]');
B('bahdanau: tgt token negative', withFields(BAH, { tgt: [[2, -1, 5], [2, 5, 3]] }), 'tgt[0][1]');
B('bahdanau: tgt batch differs from src', withFields(BAH, { tgt: [[2, 4, 5]] }), 'tgt');
B('bahdanau: src missing', withFields(BAH, { src: undefined }), 'src');
B('bahdanau: enc_valid_lens negative', withFields(BAH, { enc_valid_lens: [-1, 2] }), 'enc_valid_lens[0]');
B('bahdanau: num_layers 0', withFields(BAH, { num_layers: 0 }), 'num_layers');
B('bahdanau: num_hiddens 1e12', withFields(BAH, { num_hiddens: 1e12 }), 'num_hiddens');
B('bahdanau: gradients without labels', withFields(BAH, { gradients: true }), 'labels');
B('bahdanau: labels token out of tgt_vocab', withFields(BAH, { labels: [[1, 2, 3], [4, 5, 7]] }), 'labels[1][2]');
B('bahdanau: weights.encoder.rnn.weight_hh_l0 wrong shape', bahWeights({ 'encoder.rnn.weight_hh_l0': bahFill(9, 2, 0.1) }), 'weights.encoder.rnn.weight_hh_l0[0]');
B('bahdanau: weights.decoder.dense.bias missing', bahWeights({ 'decoder.dense.bias': undefined }), 'weights.decoder.dense.bias');
B('bahdanau: embeddings 1e308 overflow the GRU', bahWeights({ 'encoder.embedding.weight': bahFill(6, 2, 1e308), 'encoder.rnn.weight_ih_l0': bahFill(9, 2, 1) }), 'weights.encoder.rnn.weight_ih_l0');
B('bahdanau: dense weights 1e308 overflow the output', bahWeights({ 'decoder.dense.weight': bahFill(6, 3, 1e308), 'decoder.rnn.bias_hh_l0': [0, 0, 0, -10, -10, -10, 10, 10, 10] }), 'weights.decoder.dense.weight');
B('bahdanau: train.task unknown', withFields(BAH_TRAIN, { 'train.task': 'sort' }), 'train.task');
B('bahdanau: train.epochs too much work', withFields(BAH_TRAIN, { num_hiddens: 16, 'train.n_examples': 500, 'train.max_len': 5, 'train.epochs': 10000 }), 'train.epochs');
B('bahdanau: train.n_examples too much work', withFields(BAH_TRAIN, { num_hiddens: 16, 'train.n_examples': 65536, 'train.max_len': 5 }), 'train.n_examples');
B('bahdanau: train.lr negative', withFields(BAH_TRAIN, { 'train.lr': -0.1 }), 'train.lr');
B('bahdanau: training diverges (lr 1e308)', withFields(BAH_TRAIN, { 'train.lr': 1e308, 'train.epochs': 2 }), 'train.lr');
B('bahdanau: train.min_len above max_len', withFields(BAH_TRAIN, { 'train.min_len': 4 }), 'train.min_len');
B('bahdanau: training needs tgt_vocab = src_vocab', withFields(BAH_TRAIN, { src_vocab: 8, tgt_vocab: 9 }), 'tgt_vocab');
B('bahdanau: training needs a word beyond the 4 reserved tokens', withFields(BAH_TRAIN, { src_vocab: 4, tgt_vocab: 4 }), 'src_vocab');
V('bahdanau: enc_valid_lens 0 (uniform) and beyond T_src', withFields(BAH, { enc_valid_lens: [0, 9] }));
V('bahdanau: T = 1, vocab 1, num_hiddens 1', { algorithm: 'bahdanau', src_vocab: 1, tgt_vocab: 1, embed_size: 1, num_hiddens: 1, num_layers: 1, src: [[0]], tgt: [[0]] });
V('bahdanau: given weights with 1e300 embeddings (the gates saturate)', bahWeights({ 'encoder.embedding.weight': bahFill(6, 2, 1e300), 'decoder.embedding.weight': bahFill(6, 2, -1e300) }));
V('bahdanau: gradients with label_valid_lens 0', withFields(BAH, { labels: [[4, 5, 3], [5, 3, 1]], label_valid_lens: [0, 3], gradients: true }));
V('bahdanau: training with lr 0, one example of one word', withFields(BAH_TRAIN, { 'train.lr': 0, 'train.n_examples': 1, 'train.max_len': 1 }));

// ---- mla (DeepSeek's latent attention; helper modern-b): B = 1, L = 3, d_model = 2, H = 1, C = 2, n = 1, r = 2, v = 1 ----
const MLA = {
  algorithm: 'mla', x: [[[1, 0], [0, 1], [1, 1]]], num_heads: 1, kv_lora_rank: 2, qk_nope_head_dim: 1, qk_rope_head_dim: 2, v_head_dim: 1,
  weights: { 'q_proj.weight': [[1, 0], [0, 1], [1, 1]], 'kv_a_proj_with_mqa.weight': [[1, 0], [0, 1], [1, 1], [0.5, -0.5]],
    'kv_a_layernorm.weight': [1, 1], 'kv_b_proj.weight': [[1, 0], [0, 1]], 'o_proj.weight': [[1], [-1]] },
};
B('mla: qk_rope_head_dim odd', withFields(MLA, { qk_rope_head_dim: 3 }), 'qk_rope_head_dim');
B('mla: kv_lora_rank 0', withFields(MLA, { kv_lora_rank: 0 }), 'kv_lora_rank');
B('mla: num_heads missing', withFields(MLA, { num_heads: undefined }), 'num_heads');
B('mla: q_lora_rank a string', withFields(MLA, { q_lora_rank: 'x' }), 'q_lora_rank');
B('mla: kv_b_proj.weight rows differ from H (n + v)', withFields(MLA, { weights: { ...MLA.weights, 'kv_b_proj.weight': [[1, 0]] } }), 'weights.kv_b_proj.weight');
B('mla: q_a_proj.weight given without q_lora_rank', withFields(MLA, { weights: { ...MLA.weights, 'q_a_proj.weight': [[1, 0]] } }), 'weights.q_a_proj.weight');
B('mla: x not (B, L, d_model)', withFields(MLA, { x: [[1, 0]] }), 'x[0][0]');
V('mla: x of 1e150 (RMSNorm scales the latent back; the scores stay finite)', withFields(MLA, { x: [[[1e150, 0], [0, 1e150], [1e150, 1e150]]], weights: { ...MLA.weights, 'q_proj.weight': [[1e-150, 0], [0, 1e-150], [1e-150, 1e-150]], 'o_proj.weight': [[1e-150], [-1e-150]] } }));

// ---- decode (KV cache; helper modern-b): B = 1, L = 4, H = 2, H_kv = 1, E = 2, D = 1 ----
const DEC = {
  algorithm: 'decode', q: [[[[1, 0], [0, 1]], [[0, 1], [1, 1]], [[1, 1], [1, 0]], [[0.5, 0], [0, 0.5]]]],
  k: [[[[1, 0]], [[0, 1]], [[1, 1]], [[0.5, -0.5]]]], v: [[[[1]], [[2]], [[3]], [[4]]]], prompt: 2,
};
B('decode: prompt 0', withFields(DEC, { prompt: 0 }), 'prompt');
B('decode: prompt beyond L', withFields(DEC, { prompt: 5 }), 'prompt');
B('decode: cache.window 0', withFields(DEC, { cache: { window: 0 } }), 'cache.window');
B('decode: cache.sinks beyond the window', withFields(DEC, { cache: { window: 2, sinks: 3 } }), 'cache.sinks');
B('decode: cache not an object', withFields(DEC, { cache: 3 }), 'cache');
B('decode: rope.positions neither a list nor "cache"', withFields(DEC, { rope: { positions: 'tokens' } }), 'rope.positions');
B('decode: rope.positions_q (one position per token)', withFields(DEC, { rope: { positions_q: [0, 1, 2, 3] } }), 'rope.positions_q');
B('decode: a mask (the cache is the mask)', withFields(DEC, { mask: { kind: 'causal' } }), 'mask.kind');
B('decode: k shorter than q', withFields(DEC, { k: [[[[1, 0]], [[0, 1]], [[1, 1]]]], v: [[[[1]], [[2]], [[3]]]] }), 'k');
V('decode: window 1, sinks 1, RoPE in the cache, prompt 1', withFields(DEC, { prompt: 1, cache: { window: 1, sinks: 1 }, rope: { positions: 'cache' } }));

// ---- "reference" modes and mask.align (issue 17) ----
const FULL_LQ3 = { ...clone(FULL), q: [[[[1, 0]], [[0, 1]], [[1, 1]]]], k: [[[[1, 0]], [[0, 1]]]], v: [[[[1, 2]], [[3, 4]]]] };
const LSH_REF = { ...clone(LSH), reference: 'reformer-pytorch' };
B('reference: full has no modes', withFields(FULL, { reference: 'performer-pytorch' }), 'reference');
B('reference: linear, an unknown library', withFields(LINEAR, { reference: 'pytorch' }), 'reference');
B('reference: performer, not a string', withFields(PERFORMER, { reference: 5 }), 'reference');
B('reference: informer-mix on nadaraya_watson', withFields(NW, { reference: 'informer-mix' }), 'reference');
B('reference: fast-transformers has no softmax_qk', withFields(LINEAR, { reference: 'fast-transformers', feature_map: 'softmax_qk' }), 'feature_map');
B('reference: fast-transformers causal with L_Q > L_K', withFields(FULL_LQ3, { algorithm: 'linear', feature_map: 'elu1', reference: 'fast-transformers', mask: { kind: 'causal' } }), 'q');
B('reference: performer-pytorch causal with L_Q > L_K', withFields(FULL_LQ3, { algorithm: 'performer', projection: [[1, 0], [0, 1]], reference: 'performer-pytorch', mask: { kind: 'causal' } }), 'q');
B('reference: reformer-pytorch, L not divisible by n_buckets', withFields(LSH_REF, { n_buckets: 4, q: [[[[1, 0]], [[0, 1]], [[-1, 0.5]], [[2, 2]], [[1, 1]], [[0, 2]]]], v: [[[[1, 2]], [[3, 4]], [[5, 6]], [[7, 8]], [[1, 1]], [[2, 2]]]] }), 'n_buckets');
B('reference: attend_across_buckets without reformer-pytorch', withFields(LSH, { attend_across_buckets: false }), 'attend_across_buckets');
B('reference: attend_across_buckets not a boolean', withFields(LSH_REF, { attend_across_buckets: 'no' }), 'attend_across_buckets');
B('reference: informer-mix refuses squeeze_bug', withFields(MULTIHEAD, { reference: 'informer-mix', inner: 'prob', factor: 1, squeeze_bug: true }), 'squeeze_bug');
B('mask.align: unknown value', withFields(FULL, { mask: { kind: 'causal', align: 'center' } }), 'mask.align');
B('mask.align: bottom_right on prob', withFields(PROB, { mask: { kind: 'causal', align: 'bottom_right' } }), 'mask.align');
B('mask.align: bottom_right with atrous', withFields(FULL, { mask: { kind: 'atrous', dilation: 2, align: 'bottom_right' } }), 'mask.align');
B('mask.align: bottom_right with a finite fill', withFields(FULL, { mask: { kind: 'causal', align: 'bottom_right', fill: -1e9 } }), 'mask.fill');
V('reference: performer-pytorch with inputs of 1e3 (the stabiliser keeps exp finite)', withFields(PERFORMER, { reference: 'performer-pytorch', q: [[[[1e3, 0]], [[0, 1e3]]]], k: [[[[1e3, 0]], [[0, 1e3]], [[1e3, 1e3]]]] }));
V('reference: fast-transformers relu with no common feature (denominator eps only)', withFields(LINEAR, { reference: 'fast-transformers', feature_map: 'relu', q: [[[[-1, -1]], [[-2, -1]]]] }));
V('mask.align: bottom_right causal, L_Q > L_K (rows with no key are zeros)', withFields(FULL_LQ3, { mask: { kind: 'causal', align: 'bottom_right' } }));
V('mask.align: bottom_right local window 0 on flash', withFields(FLASH, { mask: { kind: 'local', window: 0, align: 'bottom_right' } }));
V('reference: reformer-pytorch, one bucket per chunk, no duplicates', withFields(LSH_REF, { allow_duplicate_attention: false, attend_across_buckets: false }));

const names = new Set();
for (const c of [...bad, ...valid]) {
  if (names.has(c.name)) throw new Error(`duplicate case name: ${c.name}`);
  names.add(c.name);
}
// one case per line
const list = (cases) => cases.map((c) => '  ' + JSON.stringify(c)).join(',\n');
writeFileSync(path.join(here, 'corpus.json'), `{"bad": [\n${list(bad)}\n], "valid": [\n${list(valid)}\n]}\n`);
console.log(`tests/bad-inputs/corpus.json: ${bad.length} bad, ${valid.length} valid`);
