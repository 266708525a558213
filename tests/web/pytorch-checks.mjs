// "Copy as PyTorch" (SPEC §1) checked by PyTorch: the element's snippet of a scenario
// (`el.export('pytorch')`), the edited scenarios beside the presets, and the snippets run by ONE
// /usr/bin/python3 (tests/web/pytorch_run.py: each in a fresh namespace, its result compared with
// the element's trace). presets.test.mjs takes every preset's snippet in its one visit of each preset,
// then the edited ones, and runs them; pytorch.test.mjs checks the button and the refusals.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fromPageJSON, root } from './harness.mjs';

export const PYTHON = '/usr/bin/python3';
const RNG = ['torch.rand', 'manual_seed', 'randn', 'randint', 'np.random', 'random.'];

/** Fails, saying what to install, unless /usr/bin/python3 has torch (never a skip). */
export function assertTorch() {
  const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  assert.equal(probe.status, 0, `${PYTHON} with torch is needed to run the PyTorch snippets: install it ` +
    `(Debian/Ubuntu: apt-get install python3-torch; scripts/setup.sh does). ${probe.error?.message ?? probe.stderr}`);
}

/** The element's snippet, its type, and its trace's main field. */
export const snippet = (page) => page.evaluate(async () => window.__attnplayJSON(await (async () => {
  const el = document.querySelector('attention-playground');
  const blob = await el.export('pytorch');
  const t = el.trace;
  const main = ['context', 'output', 'y_hat', 'P'].find((f) => t[f] !== undefined);
  // bahdanau with train: the loss curve and the held-out example's weights must match too (issue 17)
  const also = t.loss !== undefined && t.heldout_weights !== undefined ? { loss: t.loss, heldout_weights: t.heldout_weights } : undefined;
  return { type: blob.type, text: await blob.text(), main, expected: t[main], also, algorithm: t.algorithm };
})())).then(fromPageJSON);

/** Deterministic numbers for the edited scenarios (no Math.random: a failure reproduces). */
function tensor(shape, seed) {
  let x = seed;
  const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return Math.round(((x / 2147483648) * 4 - 2) * 1e6) / 1e6; };
  const build = (d) => (d === shape.length ? next() : Array.from({ length: shape[d] }, () => build(d + 1)));
  return build(0);
}
const qkv = (B, LQ, LK, H, E, D, seed) => ({ q: tensor([B, LQ, H, E], seed), k: tensor([B, LK, H, E], seed + 1), v: tensor([B, LK, H, D], seed + 2) });

/** Edited scenarios: name -> scenario (from a preset's, changed). */
export function edits(presets) {
  const p = (name) => structuredClone(presets.find((x) => x.name === name).scenario);
  return {
    'full-valid-lens-fill-inf': { ...p('d2l-masked-softmax-2d'), mask: { kind: 'valid_lens', valid_lens: [[0, 3], [2, 4]], fill: '-inf' } },
    'full-causal-scale-0.5': { ...p('softmax-toy'), mask: { kind: 'causal' }, scale: 0.5 },
    'full-b2-h2-atrous-causal-fill-minus5': { algorithm: 'full', ...qkv(2, 5, 5, 2, 3, 2, 11), mask: { kind: 'atrous', dilation: 2, causal: true, fill: -5 } },
    'full-b2-h2-explicit': { algorithm: 'full', ...qkv(2, 3, 4, 2, 2, 3, 21),
      mask: { kind: 'explicit', allowed: [[true, false, true, false], [false, false, false, false], [true, true, true, true]] } },
    'full-b2-h2-valid-lens-1d': { algorithm: 'full', ...qkv(2, 4, 5, 2, 3, 2, 31), mask: { kind: 'valid_lens', valid_lens: [3, 5] } },
    'flash-b2-h2-local-bk3': { algorithm: 'flash', ...qkv(2, 7, 7, 2, 3, 2, 41), block_k: 3, mask: { kind: 'local', window: 1 } },
    'additive-local-seed5': { ...p('d2l-additive'), seed: 5, mask: { kind: 'local', window: 1 } },
    'multihead-causal-seed3': { ...p('d2l-multihead'), seed: 3, mask: { kind: 'causal' } },
    'multihead-prob-seed9-causal-mean': { ...p('informer-prob-layer'), seed: 9, mask: { kind: 'causal' }, causal_initial: 'mean' },
    'prob-b2-h2-seed5-per-head': { algorithm: 'prob', ...qkv(2, 9, 9, 2, 3, 2, 51), factor: 1, seed: 5, sample_per_head: true, output_attention: true },
    'prob-causal-mean-divisor': { ...p('prob-toy-causal'), causal_initial: 'mean', sparsity_divisor: 'U_part' },
    'prob-squeeze-bug-off-seed7': { ...p('prob-squeeze-bug'), seed: 7, squeeze_bug: false },
    'prob-top-index': { ...p('prob-toy'), top_index: [0, 2] },
    'nadaraya-epanechnikov-trained-seed2': { ...p('d2l-nadaraya-watson'), dataset: { n_train: 30, seed: 2 }, kernel: 'epanechnikov', w: 0.6, train: { epochs: 3, lr: 0.1 } },
    'performer-seed11-causal': { ...p('performer-iid'), seed: 11, mask: { kind: 'causal' } },
    'linformer-seed4': { ...p('linformer-k4'), seed: 4 },
    'lsh-seed3': { ...p('lsh-4-buckets'), seed: 3 },
    'pooling-max-stride-2': { ...p('pooling-max'), kernel: 3, stride: 2 },
    'bahdanau-seed4-valid-lens': { ...p('bahdanau-enc-valid-lens'), seed: 4, enc_valid_lens: [1, 3, 0, 7] },
    'positional-base-100': { algorithm: 'positional_encoding', num_steps: 9, encoding_dim: 6, base: 100 },
    // issue 15: seeded draws (SPEC §2), written out as the numbers the core draws
    'full-drawn-qkv': { algorithm: 'full', q: { shape: [2, 5, 2, 3], random: 'normal', seed: 1 },
      k: { shape: [2, 6, 2, 3], random: 'uniform', seed: 2, scale: 2 }, v: { shape: [2, 6, 2, 4], random: 'normal', seed: 3, scale: 0.5 } },
    'additive-drawn-weights': { ...p('d2l-additive'), weights: { W_q: { shape: [8, 20], random: 'uniform', seed: 4 },
      W_k: { shape: [8, 2], random: 'normal', seed: 5 }, w_v: { shape: [8], random: 'normal', seed: 6 } } },
    // issue 17: the libraries a scenario names, each snippet running that library's own code
    'performer-pytorch': { ...p('performer-iid'), reference: 'performer-pytorch' },
    'performer-pytorch-causal-seed2': { ...p('performer-iid'), seed: 2, reference: 'performer-pytorch', mask: { kind: 'causal' } },
    'linear-fast-transformers-elu1': { ...p('linear-elu1'), reference: 'fast-transformers' },
    'linear-fast-transformers-relu-causal': { ...p('linear-relu-zero'), reference: 'fast-transformers', mask: { kind: 'causal' } },
    'linear-performer-pytorch-causal': { ...p('linear-softmax-qk'), reference: 'performer-pytorch', mask: { kind: 'causal' } },
    'linear-performer-pytorch-lq5-lk3': { algorithm: 'linear', ...qkv(2, 5, 3, 2, 3, 2, 81), feature_map: 'softmax_qk', reference: 'performer-pytorch' },
    'full-bottom-right-causal-lq3-lk6': { algorithm: 'full', ...qkv(2, 3, 6, 2, 3, 2, 61), mask: { kind: 'causal', align: 'bottom_right' } },
    'flash-bottom-right-local-lq6-lk4': { algorithm: 'flash', ...qkv(1, 6, 4, 2, 3, 2, 71), mask: { kind: 'local', window: 1, align: 'bottom_right' } },
    'multihead-informer-mix-prob': { ...p('informer-prob-layer'), reference: 'informer-mix' },
    'multihead-informer-mix-full-causal': { algorithm: 'multihead', queries: tensor([2, 4, 6], 91), keys: tensor([2, 4, 6], 92), values: tensor([2, 4, 6], 93),
      num_heads: 3, num_hiddens: 6, bias: true, mask: { kind: 'causal' }, reference: 'informer-mix' },
    'lsh-reformer-pytorch': { ...p('lsh-4-buckets'), reference: 'reformer-pytorch' },
    'lsh-reformer-within-buckets-no-duplicates': { ...p('lsh-8-rounds'), n_hashes: 3, reference: 'reformer-pytorch', attend_across_buckets: false },
    'nadaraya-d2l-en-trained': { ...p('d2l-nadaraya-watson'), dataset: { n_train: 20, seed: 3 }, reference: 'd2l-en', train: { epochs: 3, lr: 0.5 } },
  };
}

/** Snippets written to a folder (each beside the trace's main field), then run by one python. */
export class Snippets {
  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnplay-pytorch-'));
    this.cases = [];
  }

  /** Checks snippet `s` (its type, no RNG, torch in float64, prints its main field) and writes it as `name`. */
  write(name, s) {
    assert.equal(s.type, 'text/x-python', name);
    for (const word of RNG) assert.ok(!s.text.includes(word), `${name}: the snippet calls no RNG ("${word}")`);
    assert.match(s.text, /^import torch$/m, `${name}: imports torch`);
    assert.match(s.text, /torch\.set_default_dtype\(torch\.float64\)/, name);
    assert.match(s.text, new RegExp(`^print\\(${s.main}\\)$`, 'm'), `${name}: prints ${s.main}`);
    fs.writeFileSync(path.join(this.dir, `${name}.py`), s.text);
    fs.writeFileSync(path.join(this.dir, `${name}.json`), JSON.stringify({ main: s.main, expected: s.expected, also: s.also }));
    this.cases.push(name);
  }

  /** Runs every snippet written in one python; each must equal its trace to 1e-9. */
  run() {
    const t0 = Date.now();
    const run = spawnSync(PYTHON, [path.join(root, 'tests/web/pytorch_run.py'), this.dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(run.status, 0, run.stderr);
    const results = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(!results[0]?.fatal, results[0]?.fatal);
    assert.deepEqual(results.map((r) => r.name).sort(), [...this.cases].sort(), 'every snippet ran');
    let worst = 0;
    for (const r of results) {
      assert.equal(r.error, undefined, `${r.name}: ${r.error}`);
      assert.equal(typeof r.max_abs_diff, 'number', `${r.name}: ${r.max_abs_diff}`);
      assert.ok(r.max_abs_diff <= 1e-9, `${r.name}: the snippet's result is ${r.max_abs_diff} from the trace`);
      assert.ok(r.printed.length > 0, `${r.name}: prints its result`);
      worst = Math.max(worst, r.max_abs_diff);
    }
    console.log(`# ${results.length} snippets (${this.cases.filter((c) => c.startsWith('preset-')).length} presets), python ${Date.now() - t0} ms, ` +
      `largest difference from the trace ${worst.toExponential(2)}`);
    assert.ok(this.cases.length >= 50, `${this.cases.length} snippets`);
  }

  remove() { fs.rmSync(this.dir, { recursive: true, force: true }); }
}
