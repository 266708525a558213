// Issue 16's last fields (helper modern-c): rope_decay against RoFormer §3.4.3's bound written out
// here; sink_mass and evicted_context (= full attention under the window alone); alibi-extrapolate;
// each WASM = native. And the per-token KV cache of the real models from the estimate.
import test from 'node:test';
import assert from 'node:assert/strict';
import { wasm, runNative, maxRelDiff, draws, tensor } from './helpers.mjs';

const scenario = (seed, { H = 2, L = 9, E = 4, D = 3, ...extra } = {}) => {
  const next = draws(seed);
  return { algorithm: 'full', q: tensor(next, [2, L, H, E]), k: tensor(next, [2, L, H, E]), v: tensor(next, [2, L, H, D]), ...extra };
};

test('rope_decay: (2/E) Σ_j |S_j| at every distance, for E and base; WASM = native', () => {
  for (const [E, base] of [[2, 10000], [4, 100], [8, 10000], [16, 500]]) {
    const s = scenario(E, { E, rope: { base } });
    const t = wasm.run(s);
    assert.equal(t.rope_decay.length, 512);
    for (let r = 0; r < 512; r++) {
      let re = 0, im = 0, sum = 0;
      for (let k = 0; k < E / 2; k++) {
        const a = r * Math.pow(base, -2 * k / E);
        re += Math.cos(a);
        im += Math.sin(a);
        sum += Math.sqrt(re * re + im * im);
      }
      assert.ok(Math.abs(t.rope_decay[r] - sum / (E / 2)) < 1e-12, `E ${E} base ${base} r ${r}`);
    }
    assert.ok(maxRelDiff(t, runNative(s).trace) <= 1e-12);
  }
});

test('sinks evicted: evicted_context is full attention under the window alone, sink_mass the weight on the sinks; WASM = native', () => {
  for (const [window, sinks, extra] of [[2, 1, {}], [3, 2, { alibi: true }], [4, 4, { rope: { style: 'interleaved' } }]]) {
    const s = scenario(window * 7 + sinks, { mask: { kind: 'sink', window, sinks }, ...extra });
    const t = wasm.run(s);
    const alone = wasm.run({ ...s, mask: { kind: 'sink', window, sinks: 0 } });
    assert.ok(maxRelDiff(t.evicted_context, alone.context) <= 1e-15, `window ${window} sinks ${sinks}`);
    for (const b of [0, 1])
      for (const h of [0, 1])
        for (let i = 0; i < 9; i++) {
          const mass = t.weights[b][h][i].slice(0, sinks).reduce((a, w) => a + w, 0);
          assert.ok(Math.abs(t.sink_mass[b][h][i] - mass) < 1e-15);
        }
    assert.ok(maxRelDiff(t, runNative(s).trace) <= 1e-12);
    assert.deepEqual(wasm.estimate(s).cost, t.cost);
    assert.equal(wasm.run({ ...s, trace: 'context' }).evicted_context, undefined);
  }
});

test('alibi-extrapolate: native = WASM; the last query\'s bias -slope · distance at every distance', () => {
  const preset = wasm.presets().find((p) => p.name === 'alibi-extrapolate');
  assert.ok(preset);
  const t = wasm.run(preset.scenario);
  assert.ok(maxRelDiff(t, runNative(preset.scenario).trace) <= 1e-12);
  const slopes = [1 / 4, 1 / 16, 1 / 64, 1 / 256];
  for (let h = 0; h < 4; h++)
    for (let j = 0; j < 24; j++) assert.equal(t.bias[h][23][j], -slopes[h] * (23 - j));
});

test('the real models\' KV cache per token from the estimate: Llama-2-70B 163,840 numbers, DeepSeek-V2 34,560', () => {
  const full = (Hk) => wasm.estimate({ algorithm: 'full', q: { shape: [1, 1, 64, 128] }, k: { shape: [1, 1, Hk, 128] }, v: { shape: [1, 1, Hk, 128] } });
  assert.equal(80 * full(8).cost.kv_cache_numbers, 163840);
  assert.equal(80 * full(64).cost.kv_cache_numbers, 1310720);
  assert.equal(80 * full(1).cost.kv_cache_numbers, 20480);
  const mla = wasm.estimate({ algorithm: 'mla', x: { shape: [1, 1, 5120] }, num_heads: 128, q_lora_rank: 1536, kv_lora_rank: 512,
    qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 });
  assert.equal(60 * mla.cost.kv_cache_numbers, 34560);
  assert.equal(60 * mla.sizes.mha_kv_cache_numbers, 2457600);
});
