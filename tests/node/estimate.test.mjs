// The core's estimate (estimate_scenario; WASM estimate(), CLI `attnplay estimate`): a run's cost,
// its trace's float numbers and its derived sizes from the scenario's shapes, nothing run. The
// WASM estimate of every preset equals its run's cost and the numbers its trace carries (typed
// tensors, counted), from the shapes alone; native and WASM agree; big scenarios estimate fast.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { wasm, nativeCli } from './helpers.mjs';

/** The float numbers of a typed trace: its Float64Array tensors and the numbers of its groups. */
function numbers(trace) {
  let n = 0;
  // every: a group of float tensors only (mla's drawn state_dict, whose RMSNorm weights are ones)
  const leaves = (v, every) => (typeof v === 'number' && (every || !Number.isInteger(v)) ? 1 : Array.isArray(v) || (v && typeof v === 'object')
    ? Object.values(v).reduce((a, x) => a + leaves(x, every), 0) : 0);
  for (const [key, v] of Object.entries(trace)) {
    if (v?.data instanceof Float64Array) n += v.data.length;
    else if (v && typeof v === 'object' && !Array.isArray(v) && !['shapes', 'cost'].includes(key)) n += leaves(v, key === 'state_dict');
  }
  return n;
}

/** Every q/k/v-layout tensor (the catalog's `tensors`) as {shape} alone. */
function shapesOnly(s) {
  const entry = wasm.algorithms().find((a) => a.name === s.algorithm);
  const out = { ...s };
  for (const name of entry.tensors) {
    if (!Array.isArray(out[name])) continue;
    const shape = [];
    for (let x = out[name]; Array.isArray(x); x = x[0]) shape.push(x.length);
    out[name] = { shape };
  }
  return out;
}

test('every preset at both trace levels: the estimate is the run\'s cost and its trace\'s numbers', () => {
  let exact = 0, all = 0;
  for (const p of wasm.presets()) {
    for (const level of ['full', 'context']) {
      const s = { ...p.scenario, trace: level };
      const trace = wasm.run(s, { typed: true });
      const e = wasm.estimate(shapesOnly(s));
      assert.deepEqual(wasm.estimate(s), e, `${p.name}: from the shapes as from the numbers`);
      all++;
      if (!e.exact) {
        assert.equal(e.cost.dense_dot_products, trace.cost.dense_dot_products, p.name);
        continue;
      }
      exact++;
      assert.deepEqual(e.cost, trace.cost, `${p.name} at ${level}`);
      assert.equal(e.numbers, numbers(trace), `${p.name} at ${level}: numbers`);
      if (trace.block_k !== undefined) assert.equal(e.sizes.block_k, trace.block_k);
      if (trace.U_part !== undefined) assert.deepEqual([e.sizes.U_part, e.sizes.u], [trace.U_part, trace.u]);
    }
  }
  assert.ok(exact >= all - 10, `${exact} of ${all} exact`);
});

test('native and WASM estimates agree; estimate errors name the field', () => {
  const s = { algorithm: 'prob', factor: 3, q: { shape: [2, 100, 4, 8] }, k: { shape: [2, 90, 4, 8] }, v: { shape: [2, 90, 4, 5] },
    sample_per_head: true };
  const native = JSON.parse(execFileSync(nativeCli, ['estimate', '-'], { input: JSON.stringify(s) }).toString());
  assert.deepEqual(native, wasm.estimate(s));
  assert.deepEqual(native.sizes.sample_index, [4, 100, 15]);
  assert.throws(() => wasm.estimate({ ...s, v: { shape: [2, 91, 4, 5] } }), (e) => e.field === 'v.shape[1]' && /L_K of k/.test(e.message));
  assert.throws(() => wasm.estimate({ ...s, mask: { kind: 'local', window: 1 } }), (e) => e.field === 'mask.kind');
});

test('L = 2048 from the shapes alone: no tensor is read or made (times are benchmarks\' business)', () => {
  const shape = { shape: [1, 2048, 4, 64] };
  for (const algorithm of ['full', 'flash', 'prob', 'linear', 'performer', 'lsh']) {
    const s = { algorithm, q: shape, k: shape, v: shape, n_buckets: 8, mask: algorithm === 'lsh' ? undefined : { kind: 'causal' } };
    const e = wasm.estimate(s);
    assert.equal(e.cost.dense_dot_products, 4 * 2048 * 2048, algorithm);
    assert.ok(e.cost.dot_products > 0 && e.cost.dot_products <= e.cost.dense_dot_products * 2, algorithm);
  }
});
