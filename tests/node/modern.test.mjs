// Today's models' forms on full and flash (GQA/MQA, RoPE, ALiBi, the sink mask): WASM = native to
// 1e-12 on seeded random scenarios of every form and style, typed k/v with fewer heads, the
// refusals' fields, and the estimate's kv cache against the trace's.
import test from 'node:test';
import assert from 'node:assert/strict';
import { wasm, runNative, maxRelDiff, draws, tensor } from './helpers.mjs';


function scenario(seed, { algorithm = 'full', H = 4, H_kv = 2, L_Q = 6, L_K = 7, E = 4, D = 3, ...extra } = {}) {
  const next = draws(seed);
  return { algorithm, q: tensor(next, [2, L_Q, H, E]), k: tensor(next, [2, L_K, H_kv, E]), v: tensor(next, [2, L_K, H_kv, D]), ...extra };
}

const forms = [
  {},
  { H_kv: 1, mask: { kind: 'causal' } },
  { rope: {} },
  { rope: { style: 'interleaved', base: 500, positions_q: [3, 9, 1, 0, 2, 2], positions_k: [0, 1, 2, 3, 4, 5, 60] } },
  { alibi: true, mask: { kind: 'sink', window: 2, sinks: 1 } },
  { alibi: { slopes: [0.1, 0.2, 0.3, 0.4] }, rope: { style: 'half' }, mask: { kind: 'local', window: 1 } },
  { H: 3, H_kv: 3, alibi: true, mask: { kind: 'sink', window: 3, sinks: 0 } },
];

test('GQA, RoPE, ALiBi and sinks: WASM equals native to 1e-12 (full and flash, both trace levels)', () => {
  let n = 0;
  for (const [i, form] of forms.entries())
    for (const algorithm of ['full', 'flash'])
      for (const trace of ['full', 'context']) {
        const s = scenario(40 + i, { ...form, algorithm, trace });
        const native = runNative(s);
        assert.ok(native.trace, `${JSON.stringify(form)}: ${native.error}`);
        const fromWasm = wasm.run(s);
        assert.ok(maxRelDiff(fromWasm, native.trace) <= 1e-12, `${algorithm} ${trace} ${JSON.stringify(form)}`);
        assert.equal(fromWasm.cost.kv_cache_numbers, 2 * 7 * (form.H_kv ?? 2) * (4 + 3));
        assert.deepEqual(wasm.estimate(s).cost, fromWasm.cost);
        n += 1;
      }
  assert.equal(n, forms.length * 4);
});

test('typed k and v with fewer heads than q', () => {
  const s = scenario(7);
  const typed = { ...s, k: { shape: [2, 7, 2, 4], data: new Float64Array(s.k.flat(3)) }, v: { shape: [2, 7, 2, 3], data: new Float64Array(s.v.flat(3)) } };
  assert.ok(maxRelDiff(wasm.run(typed), wasm.run(s)) === 0);
  assert.deepEqual(wasm.run(s).kv_head, [0, 0, 1, 1]);
});

test('refusals name the field, natively and in WASM', () => {
  const cases = [
    [scenario(1, { H_kv: 3 }), 'k'],
    [scenario(1, { E: 3, rope: {} }), 'rope'],
    [scenario(1, { rope: { positions_q: [0, 1] } }), 'rope.positions_q'],
    [scenario(1, { alibi: { slopes: [1, 2] } }), 'alibi.slopes'],
    [scenario(1, { mask: { kind: 'sink', window: 2, sinks: 3 } }), 'mask.sinks'],
  ];
  for (const [s, field] of cases) {
    assert.throws(() => wasm.run(s), (e) => e.field === field && e.message.startsWith(`${field}`), field);
    const native = runNative(s);
    assert.equal(native.status, 1);
    assert.ok(native.error.startsWith(`${field}`), native.error);
  }
});
