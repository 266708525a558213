// decode (KV-cache decoding; helper modern-b, issue 16) in WASM: on seeded random scenarios (a small
// LCG, as modern.test.mjs) of every cache rule, prompt, GQA and RoPE, the context and the
// weights equal full attention under the causal or sink mask to 1e-12, each step's row of weights is
// the full map's row at the held positions, WASM = native to 1e-12, the estimate is the run's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { wasm, runNative, maxRelDiff } from './helpers.mjs';

function draw(shape, seed) {
  let s = seed >>> 0;
  const next = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 * 4 - 2; };
  const make = (dims) => Array.from({ length: dims[0] }, () => (dims.length === 1 ? next() : make(dims.slice(1))));
  return make(shape);
}

function pair(seed, { H = 4, H_kv = 2, L = 10, E = 4, D = 3, prompt, cache, rope } = {}) {
  const base = { q: draw([2, L, H, E], seed), k: draw([2, L, H_kv, E], seed + 1), v: draw([2, L, H_kv, D], seed + 2) };
  const decode = { algorithm: 'decode', ...base, ...(prompt ? { prompt } : {}), ...(cache ? { cache } : {}) };
  const full = { algorithm: 'full', ...base, mask: cache ? { kind: 'sink', window: cache.window, sinks: cache.sinks ?? 0 } : { kind: 'causal' } };
  if (rope) {
    decode.rope = rope;
    full.rope = { ...rope, positions: undefined, ...(rope.positions ? { positions_q: rope.positions, positions_k: rope.positions } : {}) };
    delete full.rope.positions;
  }
  return { decode, full };
}

const CASES = [
  {},
  { prompt: 1, H_kv: 1 },
  { prompt: 10 },
  { prompt: 3, cache: { window: 3, sinks: 2 } },
  { prompt: 2, cache: { window: 1 }, H: 2, H_kv: 2 },
  { prompt: 4, cache: { window: 4, sinks: 4 }, rope: {} },
  { prompt: 5, cache: { window: 2, sinks: 1 }, rope: { style: 'interleaved', base: 100, positions: [7, 8, 9, 12, 13, 14, 15, 40, 41, 42] } },
];

test('decode = full attention under the cache\'s mask (causal or sink), to 1e-12, in WASM', () => {
  let worst = 0;
  CASES.forEach((c, n) => {
    const { decode, full } = pair(160 + 10 * n, c);
    const d = wasm.run(decode), f = wasm.run(full);
    const where = JSON.stringify(c);
    assert.ok(maxRelDiff(d.context, f.context) <= 1e-12, `${where}: context`);
    assert.ok(maxRelDiff(d.weights, f.weights) <= 1e-12, `${where}: weights`);
    assert.ok(d.max_abs_diff <= 1e-12, `${where}: max_abs_diff ${d.max_abs_diff}`);
    assert.equal(d.cost.dot_products, f.cost.dot_products, where);
    worst = Math.max(worst, maxRelDiff(d.context, f.context));
    // each step's row: the full map's row P + t at the held positions, summing to 1
    const P = d.prompt;
    d.cache_positions.forEach((held, t) => {
      for (const [b, h] of [[0, 0], [1, d.weights[0].length - 1]]) {
        let sum = 0;
        held.forEach((p, s) => {
          if (p < 0) return;
          assert.equal(d.step_weights[t][b][h][s], f.weights[b][h][P + t][p], `${where}: step ${t} slot ${s}`);
          sum += d.step_weights[t][b][h][s];
        });
        assert.ok(Math.abs(sum - 1) <= 1e-14, `${where}: step ${t} sums to ${sum}`);
      }
    });
  });
  assert.ok(worst <= 1e-12, `worst ${worst}`);
});

test('decode: the cache grows, then evicts (window 3, sinks 2): its positions and numbers per step', () => {
  const { decode } = pair(7, { L: 8, H: 2, H_kv: 1, E: 2, D: 2, prompt: 3, cache: { window: 3, sinks: 2 } });
  const d = wasm.run(decode);
  const held = d.cache_positions.map((row) => row.filter((p) => p >= 0));
  assert.deepEqual(held, [[0, 1, 2, 3], [0, 1, 2, 3, 4], [0, 1, 3, 4, 5], [0, 1, 4, 5, 6], [0, 1, 5, 6, 7]]);
  assert.deepEqual(d.cache_numbers, held.map((h) => 2 * h.length * 1 * 4));
  assert.equal(d.cost.kv_cache_numbers, 2 * 5 * 1 * 4);
});

test('decode: WASM = native to 1e-12; the estimate is the run\'s cost', () => {
  CASES.forEach((c, n) => {
    const { decode } = pair(300 + n, c);
    const w = wasm.run(decode), nat = runNative(decode);
    assert.ok(nat.trace, nat.error);
    assert.ok(maxRelDiff(w, nat.trace) <= 1e-12, JSON.stringify(c));
    assert.deepEqual(wasm.estimate(decode).cost, w.cost, JSON.stringify(c));
  });
});

test('decode: RoPE inside the cache (StreamingLLM) differs from the tokens\' positions once a token is evicted', () => {
  const { decode } = pair(11, { L: 9, H: 2, H_kv: 1, prompt: 2, cache: { window: 2, sinks: 1 }, rope: {} });
  const own = wasm.run(decode);
  const shifted = wasm.run({ ...decode, rope: { positions: 'cache' } });
  assert.ok(own.max_abs_diff <= 1e-12);
  assert.ok(shifted.max_abs_diff > 1e-6, `${shifted.max_abs_diff}`);
  // rows 0..2 hold every token (1 sink + window 2 = 3): the same numbers there
  for (const i of [0, 1, 2]) assert.ok(maxRelDiff(shifted.context[0][i], own.context[0][i]) <= 1e-12, `row ${i}`);
});

test('decode: bad input names its field', () => {
  const { decode } = pair(1, { L: 5 });
  const field = (s) => { try { wasm.run(s); return null; } catch (e) { return e.field; } };
  assert.equal(field({ ...decode, prompt: 0 }), 'prompt');
  assert.equal(field({ ...decode, cache: { window: 2, sinks: 3 } }), 'cache.sinks');
  assert.equal(field({ ...decode, rope: { positions: 'later' } }), 'rope.positions');
  assert.equal(field({ ...decode, mask: { kind: 'causal' } }), 'mask.kind');
});
