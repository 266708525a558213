// The seeds' walk-throughs as presets, in WASM (issue 14 item 5): ProbAttention's note with its
// own index and scale, d2l's DotProductAttention with valid_lens, self-attention. Each number is
// checked twice: against the seed's printed value and against the arithmetic redone here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { wasm, runNative, maxRelDiff } from './helpers.mjs';

const preset = (name) => {
  const p = wasm.presets().find((x) => x.name === name);
  assert.ok(p, `no preset ${name}`);
  return p;
};
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);
const softmax = (row) => {
  const m = Math.max(...row);
  const e = row.map((x) => Math.exp(x - m));
  const z = e.reduce((a, x) => a + x, 0);
  return e.map((x) => x / z);
};

test('prob-seed-walkthrough: scores_top [1, 0, 1, 1] and [1, 1, 2, 0], exact M 0.25 and 1, context 25.94 / 26.94', () => {
  const { scenario: s } = preset('prob-seed-walkthrough');
  assert.deepEqual(s.top_index, [0, 2]);
  assert.equal(s.scale, 1);
  const t = wasm.run(s);
  assert.ok(maxRelDiff(t, runNative(s).trace) <= 1e-12, 'native = WASM');
  assert.deepEqual(t.top_index, [[[0, 2]]]);
  assert.deepEqual(t.scores_top, [[[[1, 0, 1, 1], [1, 1, 2, 0]]]]);
  assert.deepEqual(t.sparsity_exact[0][0], [0.25, 0.75, 1, 0.5]);
  assert.deepEqual(t.sparsity[0][0], [0.5, 1, 1.25, 1]);  // the sampled estimate, which would rank q2, q1
  const V = s.v[0].map((row) => row[0]);
  for (const [r, i] of [[0, 0], [1, 2]]) {
    const w = softmax(t.scores_top[0][0][r]);
    for (let d = 0; d < 2; d++) close(t.context[0][i][0][d], w.reduce((a, x, j) => a + x * V[j][d], 0), 1e-12, `context[${i}][${d}]`);
  }
  assert.deepEqual(t.context[0][0][0].map((x) => x.toFixed(2)), ['25.94', '26.94']);
  assert.deepEqual(t.context[0][2][0].map((x) => x.toFixed(2)), ['24.82', '25.82']);
  assert.deepEqual(t.context[0][1][0], [25, 26]);
});

test('d2l-dot-product: DotProductAttention with valid_lens [2, 6] gives [2, 3, 4, 5] and [10, 11, 12, 13]', () => {
  const { scenario: s } = preset('d2l-dot-product');
  assert.deepEqual(s.mask, { kind: 'valid_lens', valid_lens: [2, 6] });
  const t = wasm.run(s);
  assert.ok(maxRelDiff(t, runNative(s).trace) <= 1e-12, 'native = WASM');
  [[2, 3, 4, 5], [10, 11, 12, 13]].forEach((want, b) => t.context[b][0][0].forEach((x, d) => close(x, want[d], 1e-12, `context[${b}][${d}]`)));
  [2, 6].forEach((len, b) => t.weights[b][0][0].forEach((w, j) => (j < len ? close(w, 1 / len, 1e-15, `w[${b}][${j}]`) : assert.equal(w, 0))));
});

test('self-attention: queries = keys = values; symmetric scores, weights softmax by row, context W X', () => {
  const { scenario: s } = preset('self-attention');
  assert.deepEqual(s.q, s.k);
  assert.deepEqual(s.k, s.v);
  const t = wasm.run(s);
  const X = s.q[0].map((row) => row[0]);
  const scores = X.map((a) => X.map((b) => (a[0] * b[0] + a[1] * b[1]) / Math.sqrt(2)));
  scores.forEach((row, i) => {
    const w = softmax(row);
    row.forEach((x, j) => {
      close(t.scores[0][0][i][j], x, 1e-12, `scores[${i}][${j}]`);
      close(t.weights[0][0][i][j], w[j], 1e-12, `weights[${i}][${j}]`);
    });
    for (let d = 0; d < 2; d++) close(t.context[0][i][0][d], w.reduce((a, x, j) => a + x * X[j][d], 0), 1e-12, `context[${i}][${d}]`);
  });
  assert.equal(t.weights[0][0][0][3].toFixed(3), '0.449');
  assert.equal(t.weights[0][0][3][3].toFixed(3), '0.647');
  assert.deepEqual(t.context[0][1][0].map((x) => x.toFixed(3)), ['0.830', '0.670']);
});
