// The progress hook (issue 9): run(scenario, {onProgress}) reports each training epoch with an
// increasing fraction, the trace is the one run() gives, and returning false stops training with an
// Error (cancelled: true, field "") that leaves the module usable. A partial trace is never returned:
// a trace is a function of its scenario (docs/semantics.md, "Progress and cancel").
import test from 'node:test';
import assert from 'node:assert/strict';
import { wasm, maxRelDiff } from './helpers.mjs';

const quick = () => wasm.presets().find((p) => p.name === 'bahdanau-train-reverse-quick').scenario;
const nw = { algorithm: 'nadaraya_watson', dataset: { n_train: 20 }, train: { epochs: 6, lr: 0.5 } };

test('bahdanau training reports every epoch with increasing fractions and its loss', () => {
  const scenario = { ...quick(), train: { ...quick().train, epochs: 5 } };
  const calls = [];
  const trace = wasm.run(scenario, { onProgress: (fraction, what, detail) => { calls.push({ fraction, what, detail }); return true; } });
  assert.equal(calls.length, 5);
  calls.forEach((c, i) => {
    assert.ok(Math.abs(c.fraction - (i + 1) / 5) < 1e-15, `fraction ${c.fraction}`);
    if (i) assert.ok(c.fraction > calls[i - 1].fraction);
    assert.equal(c.what, `epoch ${i + 1} of 5`);
    assert.equal(c.detail.epoch, i + 1);
    assert.equal(c.detail.epochs, 5);
    assert.equal(c.detail.loss, trace.loss[i], 'the reported loss is the trace\'s');
  });
  assert.equal(calls.at(-1).fraction, 1);
  assert.ok(maxRelDiff(trace, wasm.run(scenario)) <= 1e-12, 'the same trace as without progress');
});

test('returning false stops training: an Error with cancelled: true, no trace; the module stays usable', () => {
  const scenario = { ...quick(), train: { ...quick().train, epochs: 50 } };
  let calls = 0;
  assert.throws(() => wasm.run(scenario, { onProgress: () => { calls += 1; return calls < 2; } }), (e) => {
    assert.equal(e.cancelled, true);
    assert.equal(e.field, '');
    assert.match(e.message, /^scenario: cancelled by the progress callback at epoch 2 of 50/);
    return true;
  });
  assert.equal(calls, 2, 'no epoch after the one that said stop');
  assert.equal(wasm.run({ algorithm: 'full', q: [[[[1]]]], k: [[[[1]]]], v: [[[[2]]]] }).context[0][0][0][0], 2);
});

test('a callback that throws stops the run and its error comes out (nothing unwinds through wasm)', () => {
  const before = wasm.memoryBytes();
  for (let i = 0; i < 50; i++) {
    assert.throws(() => wasm.run(quick(), { onProgress: () => { throw new RangeError('stop here'); } }), RangeError);
  }
  assert.equal(wasm.memoryBytes(), before, 'no wasm memory growth');
  assert.ok(wasm.run(quick()).loss.length === 3);
});

test('Nadaraya-Watson training reports its epochs too; cancel works the same', () => {
  const fractions = [];
  const trace = wasm.run(nw, { onProgress: (f, what, detail) => { fractions.push([f, detail.loss]); } });
  assert.deepEqual(fractions.map((x) => x[0]), [1, 2, 3, 4, 5, 6].map((e) => e / 6));
  fractions.forEach(([, loss], i) => assert.equal(loss, trace.loss[i]));
  assert.throws(() => wasm.run(nw, { onProgress: (f) => f < 0.5 }), (e) => e.cancelled === true && /epoch 3 of 6/.test(e.message));
});

test('no training, no calls', () => {
  let calls = 0;
  wasm.run({ algorithm: 'full', q: [[[[1]]]], k: [[[[1]]]], v: [[[[2]]]] }, { onProgress: () => { calls += 1; } });
  assert.equal(calls, 0);
});
