// Seeded tensor draws (SPEC §2) through WASM: the same numbers and traces as natively, bit for bit;
// draw() gives the numbers the readers draw; errors name the field. Needs build/native/attnplay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { nativeCli, wasm, runNative } from './helpers.mjs';

const draw = (shape, random, seed, scale) => ({ shape, random, seed, ...(scale === undefined ? {} : { scale }) });

// every preset's algorithm family: q/k/v and weights drawn
const scenarios = {
  full: { algorithm: 'full', q: draw([2, 7, 2, 5], 'normal', 1), k: draw([2, 9, 2, 5], 'uniform', 2, 3), v: draw([2, 9, 2, 4], 'normal', 3, 0.25),
    mask: { kind: 'causal' } },
  flash: { algorithm: 'flash', q: draw([1, 40, 1, 8], 'normal', 4), k: draw([1, 40, 1, 8], 'normal', 5), v: draw([1, 40, 1, 8], 'normal', 6) },
  performer: { algorithm: 'performer', num_features: 8, q: draw([1, 12, 1, 4], 'normal', 7), k: draw([1, 12, 1, 4], 'normal', 8),
    v: draw([1, 12, 1, 3], 'uniform', 9), projection: draw([8, 4], 'normal', 10) },
  multihead: { algorithm: 'multihead', num_heads: 2, queries: draw([1, 4, 6], 'normal', 11), keys: draw([1, 5, 6], 'normal', 12),
    values: draw([1, 5, 6], 'normal', 13), num_hiddens: 4 },
};

test('draw() gives the readers\' numbers: a scenario with the draw written out runs to the same trace, bit for bit', () => {
  for (const [name, s] of Object.entries(scenarios)) {
    const written = { ...s };
    for (const [key, value] of Object.entries(s)) {
      if (value?.random === undefined) continue;
      const t = wasm.draw(value, key);
      assert.deepEqual(t.shape, value.shape, name);
      assert.ok(t.data instanceof Float64Array && t.data.length === value.shape.reduce((a, b) => a * b, 1), name);
      written[key] = { shape: t.shape, data: t.data };
    }
    assert.deepEqual(wasm.run(written), wasm.run(s), name);
  }
  // uniform on [-s, s); normal with standard deviation s
  const u = wasm.draw(draw([50000], 'uniform', 1, 2)).data, n = wasm.draw(draw([50000], 'normal', 1, 3)).data;
  assert.ok(Math.min(...u) >= -2 && Math.max(...u) < 2 && Math.min(...u) < -1.99 && Math.max(...u) > 1.99);
  const mean = n.reduce((a, b) => a + b, 0) / n.length;
  const sd = Math.sqrt(n.reduce((a, b) => a + (b - mean) ** 2, 0) / n.length);
  assert.ok(Math.abs(mean) < 0.05 && Math.abs(sd - 3) < 0.05, `mean ${mean}, sd ${sd}`);
  // another seed, other numbers; the same seed, the same numbers
  assert.notDeepEqual(wasm.draw(draw([4], 'normal', 1)).data, wasm.draw(draw([4], 'normal', 2)).data);
  assert.deepEqual(wasm.draw(draw([4], 'normal', 1)).data, wasm.draw(draw([2, 2], 'normal', 1)).data);
});

test('natively and in WASM: the same trace, bit for bit (JSON numbers are the shortest exact form)', () => {
  for (const [name, s] of Object.entries(scenarios)) {
    const native = runNative(s);
    assert.equal(native.error, undefined, `${name}: ${native.error}`);
    assert.deepEqual(wasm.run(s), native.trace, name);
  }
});

test('L = 4096 as draws: a scenario of a few hundred bytes, native = WASM to 1e-12', () => {
  const s = { algorithm: 'full', trace: 'context', q: draw([1, 4096, 1, 16], 'normal', 1), k: draw([1, 4096, 1, 16], 'normal', 2),
    v: draw([1, 4096, 1, 16], 'uniform', 3) };
  assert.ok(JSON.stringify(s).length < 300);
  const native = JSON.parse(execFileSync(nativeCli, ['run', '-'], { input: JSON.stringify(s), maxBuffer: 64 << 20 }).toString());
  const mine = wasm.run(s);
  let worst = 0;
  for (let i = 0; i < 4096; i++) for (let d = 0; d < 16; d++) worst = Math.max(worst, Math.abs(mine.context[0][i][0][d] - native.context[0][i][0][d]));
  assert.ok(worst <= 1e-12, `max |WASM - native| = ${worst}`);
});

test('errors name the field, natively and in WASM alike', () => {
  const base = scenarios.full;
  const cases = [
    [{ ...base, q: draw([2, 7, 2, 4], 'normal', 1) }, 'k.shape[3]'], // q's E decides; k disagrees
    [{ ...base, k: { ...base.k, random: 'gauss' } }, 'k.random'],
    [{ ...base, v: { ...base.v, scale: -1 } }, 'v.scale'],
    [{ ...base, v: { ...base.v, seed: 'x' } }, 'v.seed'],
    [{ ...base, v: { ...base.v, sed: 1 } }, 'v.sed'],
    [{ ...base, v: { random: 'normal' } }, 'v.shape'],
    [{ ...base, q: draw([2, 7, 2, 65536 * 4], 'normal', 1) }, 'q.shape[3]'],
    [{ ...base, q: draw([2, 4096, 2, 4096], 'normal', 1) }, 'q'],
  ];
  for (const [s, field] of cases) {
    const native = runNative(s);
    assert.equal(native.status, 1, field);
    let thrown = null;
    try { wasm.run(s); } catch (e) { thrown = e; }
    assert.ok(thrown, field);
    assert.equal(thrown.field, field, thrown.message);
    assert.equal(thrown.message, native.error);
    assert.ok(thrown.message.startsWith(field + ': '), thrown.message);
  }
  assert.throws(() => wasm.draw({ shape: [2], random: 'cauchy' }, 'q'), (e) => e.field === 'q.random');
  assert.throws(() => wasm.draw([1, 2], 'q'), (e) => e.field === 'q');
  assert.ok(wasm.run(scenarios.full).context, 'the module stays usable');
});

test('the page\'s first-load module has no draws: it refuses one as a tensor without numbers, naming the field (the page runs draws on the whole module)', async () => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const { api } = await import('../../wasm/attnplay.mjs');
  const { root } = await import('./helpers.mjs');
  const dir = path.join(root, 'build/wasm');
  const { default: createFirst } = await import(pathToFileURL(path.join(dir, 'attnplay_first.mjs')).href);
  const first = api(await createFirst({ wasmBinary: fs.readFileSync(path.join(dir, 'attnplay_first.wasm')) }));
  assert.throws(() => first.run(scenarios.full), (e) => e.field === 'q' && /^q: expected an array \(B\), got an object$/.test(e.message));
  assert.throws(() => first.draw(draw([2], 'normal', 1)), /not a function|draw/);
  assert.ok(first.run({ ...scenarios.full, ...Object.fromEntries(['q', 'k', 'v'].map((n) => [n, wasm.draw(scenarios.full[n])])) }).context);
});

// seeded3 (issue 18): a split run's worker draws its own query rows (drawRows skips the generator)
test('draw(spec, field, rows): rows [start, end) of axis 1, bit for bit those of the whole draw; rows past it name the field', () => {
  for (const random of ['normal', 'uniform']) {
    const spec = draw([2, 33, 2, 3], random, 77, 0.5);
    const whole = wasm.draw(spec, 'q');
    for (const [a, b] of [[0, 33], [0, 16], [16, 33], [7, 8], [32, 33], [5, 5]]) {
      const part = wasm.draw(spec, 'q', [a, b]);
      assert.deepEqual(part.shape, [2, b - a, 2, 3]);
      const want = new Float64Array(2 * (b - a) * 6);
      for (let i = 0; i < 2; i++) want.set(whole.data.subarray((i * 33 + a) * 6, (i * 33 + b) * 6), i * (b - a) * 6);
      assert.deepEqual(part.data, want, `${random} rows [${a}, ${b})`);
    }
  }
  assert.throws(() => wasm.draw(draw([1, 8, 1, 4], 'normal', 1), 'q', [4, 9]), (e) => e.field === 'q' && /rows \[4, 9\) outside the draw's 8 rows/.test(e.message));
  assert.throws(() => wasm.draw(draw([8], 'normal', 1), 'q', [0, 1]), (e) => e.field === 'q.shape');
});
