// "Copy as PyTorch" (SPEC §1): `el.export('pytorch')` gives a runnable Python snippet that rebuilds
// the scenario (every seeded draw written out), runs the reference code in float64 and leaves the
// result in the variable named as the trace's main field. For every preset (of every algorithm the
// core registers: each has its builder), and a few edited scenarios (masks, seeds, B = H = 2, the
// prob switches), the snippets are run by ONE /usr/bin/python3 (tests/web/pytorch_run.py: each in
// a fresh namespace) and their result compared with the element's trace: at most 1e-9 apart. Then
// the page's button: the clipboard (permissions granted), and the download where the clipboard refuses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { eachPreset, fromPageJSON, launch, openUrl, root, setScenario, settle } from './harness.mjs';

const PYTHON = '/usr/bin/python3';
const RNG = ['torch.rand', 'manual_seed', 'randn', 'randint', 'np.random', 'random.'];

let page, base, problems, browser, wasm;

before(async () => {
  const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  assert.equal(probe.status, 0, `${PYTHON} with torch is needed to run the PyTorch snippets: install it ` +
    `(Debian/Ubuntu: apt-get install python3-torch; scripts/setup.sh does). ${probe.error?.message ?? probe.stderr}`);
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

/** The element's snippet, its type, and its trace's main field. */
const snippet = () => page.evaluate(async () => window.__attnplayJSON(await (async () => {
  const el = document.querySelector('attention-playground');
  const blob = await el.export('pytorch');
  const t = el.trace;
  const main = ['context', 'output', 'y_hat', 'P'].find((f) => t[f] !== undefined);
  // bahdanau with train: the loss curve and the held-out example's weights must match too (issue 17)
  const also = t.loss !== undefined && t.heldout_weights !== undefined ? { loss: t.loss, heldout_weights: t.heldout_weights } : undefined;
  return { type: blob.type, text: await blob.text(), main, expected: t[main], also, algorithm: t.algorithm };
})())).then(fromPageJSON);

/** What el.export('pytorch') rejects with. */
const rejected = () => page.evaluate(async () => {
  try { await document.querySelector('attention-playground').export('pytorch'); return null; } catch (e) { return { message: e.message, field: e.field }; }
});

/** Deterministic numbers for the edited scenarios (no Math.random: a failure reproduces). */
function tensor(shape, seed) {
  let x = seed;
  const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return Math.round(((x / 2147483648) * 4 - 2) * 1e6) / 1e6; };
  const build = (d) => (d === shape.length ? next() : Array.from({ length: shape[d] }, () => build(d + 1)));
  return build(0);
}
const qkv = (B, LQ, LK, H, E, D, seed) => ({ q: tensor([B, LQ, H, E], seed), k: tensor([B, LK, H, E], seed + 1), v: tensor([B, LK, H, D], seed + 2) });

/** Edited scenarios: name -> scenario (from a preset's, changed). */
function edits(presets) {
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

test('every preset and edited scenarios: the snippet run by python equals the trace to 1e-9', async () => {
  const presets = wasm.presets();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnplay-pytorch-'));
  const cases = [];
  const write = (name, s) => {
    assert.equal(s.type, 'text/x-python', name);
    for (const word of RNG) assert.ok(!s.text.includes(word), `${name}: the snippet calls no RNG ("${word}")`);
    assert.match(s.text, /^import torch$/m, `${name}: imports torch`);
    assert.match(s.text, /torch\.set_default_dtype\(torch\.float64\)/, name);
    assert.match(s.text, new RegExp(`^print\\(${s.main}\\)$`, 'm'), `${name}: prints ${s.main}`);
    fs.writeFileSync(path.join(dir, `${name}.py`), s.text);
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ main: s.main, expected: s.expected, also: s.also }));
    cases.push(name);
  };
  try {
    // every algorithm has a snippet (its module's builder); bahdanau's training too (issue 17)
    await eachPreset(page, base, presets.map((p) => p.name), async (name) => write(`preset-${name}`, await snippet()));
    await openUrl(page, `${base}#preset=softmax-toy`);
    for (const [name, scenario] of Object.entries(edits(presets))) {
      await setScenario(page, scenario);
      const s = await snippet();
      assert.equal(s.algorithm, scenario.algorithm, name);
      write(`edit-${name}`, s);
    }
    const t0 = Date.now();
    const run = spawnSync(PYTHON, [path.join(root, 'tests/web/pytorch_run.py'), dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(run.status, 0, run.stderr);
    const results = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(!results[0]?.fatal, results[0]?.fatal);
    assert.deepEqual(results.map((r) => r.name).sort(), [...cases].sort(), 'every snippet ran');
    let worst = 0;
    for (const r of results) {
      assert.equal(r.error, undefined, `${r.name}: ${r.error}`);
      assert.equal(typeof r.max_abs_diff, 'number', `${r.name}: ${r.max_abs_diff}`);
      assert.ok(r.max_abs_diff <= 1e-9, `${r.name}: the snippet's result is ${r.max_abs_diff} from the trace`);
      assert.ok(r.printed.length > 0, `${r.name}: prints its result`);
      worst = Math.max(worst, r.max_abs_diff);
    }
    console.log(`# ${results.length} snippets (${cases.filter((c) => c.startsWith('preset-')).length} presets), python ${Date.now() - t0} ms, ` +
      `largest difference from the trace ${worst.toExponential(2)}`);
    assert.ok(cases.length >= 50, `${cases.length} snippets`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(problems, []);
});

test('bahdanau with train is copied (train_seq2seq, the task written out); a scenario with an error rejects', async () => {
  await openUrl(page, `${base}#preset=bahdanau-train-reverse-quick`);
  const s = await snippet();
  assert.match(s.text, /^class SplitMix64:$/m, 'the task\'s generator is written out');
  assert.match(s.text, /train_seq2seq\(net, minibatches/, 'd2l\'s training loop');
  assert.ok(s.also?.loss?.length > 0, 'the trace has a loss curve to compare');
  await openUrl(page, `${base}#preset=softmax-toy`);
  let e;
  // a scenario the core refuses: the trace shown is the earlier one's, the snippet is refused
  await page.evaluate(() => document.querySelector('attention-playground').setScenario({ algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1]]]], v: [[[[1]]]] }));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.stale-note:not([hidden])'));
  e = await rejected();
  assert.equal(e?.field, 'kind');
  assert.match(e.message, /the scenario has an error/);
  problems.length = 0;
});

test('the Copy as PyTorch button: the clipboard gets the snippet; without a clipboard it downloads', async () => {
  await openUrl(page, `${base}#preset=sparse-local`);
  const want = (await snippet()).text;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
  const row = page.locator('attention-playground').locator('.panel-results .panel-head .export');
  const button = row.locator('button[data-key="export.pytorch"]');
  assert.equal(await button.textContent(), 'Copy as PyTorch');
  const status = row.locator('[role=status]');
  await button.click();
  await page.waitForFunction(() => /copied/.test(document.querySelector('attention-playground').shadowRoot.querySelector('.export [role=status]').textContent));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want, 'the clipboard holds el.export(\'pytorch\')');
  // the clipboard refused: the snippet is downloaded as attention-<algorithm>.py
  await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError')); });
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  assert.equal(download.suggestedFilename(), 'attention-full.py');
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), want);
  assert.match(await status.textContent(), /saved as attention-full\.py/);
  assert.deepEqual(problems, []);
});
