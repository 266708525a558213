// The "reference" modes through the WASM module (issue 17): the echo, the errors that name the
// field, and the tie warning. Their values against the upstream code are fixtures.test.mjs's
// (tests/fixtures/<algorithm>/ref-*.json, natively and in WASM, native = WASM to 1e-12).
import test from 'node:test';
import assert from 'node:assert/strict';
import { runNative, wasm } from './helpers.mjs';

const qkv = (L_Q, L_K, E = 3, D = 2) => {
  let x = 7;
  const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return Math.round(((x / 2147483648) * 4 - 2) * 1e6) / 1e6; };
  const t = (L, W) => [Array.from({ length: L }, () => [Array.from({ length: W }, next)])];
  return { q: t(L_Q, E), k: t(L_K, E), v: t(L_K, D) };
};

/** lsh's shared QK: no k. */
const shared = (L, E, D) => { const x = qkv(L, L, E, D); delete x.k; return x; };

const error = (s) => { try { wasm.run(s); return null; } catch (e) { return { message: e.message, field: e.field }; } };

test('reference: echoed at the top level in WASM and natively, the same trace', () => {
  for (const s of [
    { algorithm: 'linear', ...qkv(4, 6), reference: 'fast-transformers' },
    { algorithm: 'linear', ...qkv(4, 6), feature_map: 'softmax_qk', reference: 'performer-pytorch', mask: { kind: 'causal' } },
    { algorithm: 'performer', ...qkv(5, 5), num_features: 4, reference: 'performer-pytorch' },
    { algorithm: 'lsh', ...shared(8, 3, 3), n_buckets: 4, n_hashes: 2, reference: 'reformer-pytorch' },
  ]) {
    const t = wasm.run(s);
    assert.equal(t.reference, s.reference, s.algorithm);
    assert.equal(runNative(s).trace?.reference, s.reference);
  }
  assert.equal(wasm.run({ algorithm: 'full', ...qkv(3, 5), mask: { kind: 'causal', align: 'bottom_right' } }).reference, undefined);
});

test('reference: errors name the field in WASM, and the module stays usable', () => {
  assert.deepEqual(error({ algorithm: 'full', ...qkv(2, 2), reference: 'flash-attn' })?.field, 'reference');
  assert.deepEqual(error({ algorithm: 'linear', ...qkv(2, 2), feature_map: 'cosine1', reference: 'fast-transformers' })?.field, 'feature_map');
  assert.deepEqual(error({ algorithm: 'linear', ...qkv(5, 3), reference: 'fast-transformers', mask: { kind: 'causal' } })?.field, 'q');
  assert.deepEqual(error({ algorithm: 'diff', ...qkv(2, 3, 2), mask: { kind: 'causal', align: 'bottom_right' } })?.field, 'mask.align');
  assert.deepEqual(error({ algorithm: 'lsh', ...shared(6, 3, 3), n_buckets: 4, reference: 'reformer-pytorch' })?.field, 'n_buckets');
  assert.ok(wasm.run({ algorithm: 'full', ...qkv(2, 2) }).context);
});

test('a tie at ProbAttention\'s top-u cut: the warning names the tied queries (prob-toy)', () => {
  const toy = wasm.presets().find((p) => p.name === 'prob-toy').scenario;
  const t = wasm.run(toy);
  const ties = t.warnings.filter((w) => w.includes('a tie at the top-u cut'));
  assert.deepEqual(ties, ['batch 0, head 0: a tie at the top-u cut (u = 2): queries 1, 3 have M = 1; the project keeps the lower index (1), torch.topk may keep any of them']);
  assert.deepEqual(runNative(toy).trace?.warnings, t.warnings);
});
