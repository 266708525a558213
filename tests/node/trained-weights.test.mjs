// Bahdanau's trained_weights (docs/semantics.md, "bahdanau"): with train, the trace carries the weights
// after training under torch's state_dict names, the layout of the input `weights`; fed back as
// `weights` without train, on the held-out example with teacher forcing, they give the trained
// trace's outputs again (to 1e-12). WASM, and the native CLI's trace equal to it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { wasm, runNative, maxRelDiff } from './helpers.mjs';

const quick = () => structuredClone(wasm.presets().find((p) => p.name === 'bahdanau-train-reverse-quick').scenario);

test('trained_weights fed back as weights reproduce the trained held-out outputs', () => {
  const scenario = quick();
  const trained = wasm.run(scenario);
  const w = trained.trained_weights;
  assert.ok(w && typeof w === 'object', 'trained_weights in the trace');
  assert.equal(trained.shapes.trained_weights, undefined, 'a group: not in shapes, as gradients');
  const h = trained.shapes.enc_outputs.at(-1);
  assert.deepEqual([w['decoder.attention.w_v.weight'].length, w['decoder.attention.w_v.weight'][0].length], [1, h], 'w_v as torch\'s (1, h)');
  // training moved them: the same seeded draws after one epoch at lr 0 differ
  const still = wasm.run({ ...scenario, train: { ...scenario.train, epochs: 1, lr: 0 } }).trained_weights;
  assert.ok(maxRelDiff(still, w) > 1e-3, 'the trained weights are not the initial ones');

  const T = trained.heldout_src.length;
  const tgt = [2, ...Array.from({ length: T - 1 }, (_, t) => trained.heldout_target[t] ?? 1)];  // <bos> + label[:-1], <pad> 1
  const { train, ...rest } = scenario;
  const fed = { ...rest, weights: w, src: [trained.heldout_src], tgt: [tgt], enc_valid_lens: [trained.heldout_valid_len] };
  const again = wasm.run(fed);
  assert.equal(again.trained_weights, undefined);
  for (const field of ['output', 'weights', 'enc_outputs', 'dec_state']) {
    assert.ok(maxRelDiff(again[field], trained[field]) <= 1e-12, field);
  }
  assert.ok(maxRelDiff(runNative(scenario).trace.trained_weights, w) <= 1e-12, 'native = WASM');
});
