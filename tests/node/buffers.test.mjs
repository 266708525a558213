// Typed tensors across the WASM boundary (issue 8, WASM memory): each typed array is written once,
// straight into a buffer the core owns, and adopted as the tensor (no second copy in wasm memory);
// the trace's float tensors are moved, not copied, into the output buffers and copied out once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { wasm } from './helpers.mjs';

const ramp = (n, f) => Float64Array.from({ length: n }, (_, i) => f(i));

test('typed inputs: the numbers arrive exactly (Float64Array and Float32Array), nested fields too', () => {
  const L = 5, E = 3;
  const q = ramp(L * E, (i) => Math.sin(i) * 1e-3);
  const k32 = Float32Array.from(ramp(L * E, (i) => Math.cos(i)));
  const v = ramp(L * 2, (i) => i / 7);
  const typed = wasm.run({ algorithm: 'full', q: { shape: [1, L, 1, E], data: q }, k: { shape: [1, L, 1, E], data: k32 },
    v: { shape: [1, L, 1, 2], data: v } });
  const nest = (data, d) => [Array.from({ length: L }, (_, i) => [Array.from(data.slice(i * d, (i + 1) * d))])];
  const nested = wasm.run({ algorithm: 'full', q: nest(q, E), k: nest(Float64Array.from(k32), E), v: nest(v, 2) });
  assert.deepEqual(typed, nested);  // bit for bit: the same numbers went in
  // a typed tensor inside an object (multihead's weights) is adopted the same way
  const W = { shape: [2, 2], data: new Float64Array([1, 0, 0, 1]) };
  const mh = wasm.run({ algorithm: 'multihead', num_heads: 1, queries: [[[1, 2]]], keys: [[[1, 2]]], values: [[[3, 4]]],
    weights: { W_q: W, W_k: { ...W }, W_v: { ...W }, W_o: { shape: [2, 2], data: new Float64Array([1, 0, 0, 1]) } } });
  assert.deepEqual(mh.output, [[[3, 4]]]);
});

test('typed outputs are copies: a later run (and releaseOutputs) leaves them intact', () => {
  const t = (L, d, s) => ({ shape: [1, L, 1, d], data: ramp(L * d, (i) => Math.sin(i + s)) });
  const a = wasm.run({ algorithm: 'full', trace: 'context', q: t(16, 4, 1), k: t(16, 4, 2), v: t(16, 3, 3) }, { typed: true });
  const kept = Float64Array.from(a.context.data);
  const b = wasm.run({ algorithm: 'full', trace: 'context', q: t(64, 4, 4), k: t(64, 4, 5), v: t(64, 3, 6) }, { typed: true });
  assert.deepEqual(a.context.data, kept);
  assert.deepEqual(b.context.shape, [1, 64, 1, 3]);
  assert.notEqual(a.context.data.buffer, b.context.data.buffer);
});

test('a tensor whose bits did not change keeps its copy from the run before; a changed one gets a new copy', () => {
  const t = (s) => ({ shape: [1, 3, 1, 2], data: ramp(6, (i) => Math.sin(i + s)) });
  const a = wasm.run({ algorithm: 'full', q: t(1), k: t(2), v: t(3) }, { typed: true });
  const b = wasm.run({ algorithm: 'full', q: t(1), k: t(2), v: t(4) }, { typed: true });  // v edited
  assert.equal(b.scores.data, a.scores.data);  // scores and weights as they were: the same array
  assert.equal(b.weights.data, a.weights.data);
  assert.notEqual(b.context.data, a.context.data);
  assert.notDeepEqual(Array.from(b.context.data), Array.from(a.context.data));
  // nested traces share the numbers alike, and stay right after the next run
  const c = wasm.run({ algorithm: 'full', q: t(1), k: t(2), v: t(3) });
  const d = wasm.run({ algorithm: 'full', q: t(1), k: t(2), v: t(5) });
  assert.deepEqual(c.context, Array.from({ length: 1 }, (_, b) => Array.from({ length: 3 }, (_, i) => [Array.from(a.context.data.slice(2 * i, 2 * i + 2))])));
  assert.deepEqual(d.weights, c.weights);
});

test('a group\'s tensors (mla\'s state_dict) travel as buffers and read as nested arrays, typed or not, as the CLI prints them', () => {
  const preset = wasm.presets().find((p) => p.name === 'mla-q-lora').scenario;
  const plain = wasm.run(preset), typed = wasm.run(preset, { typed: true });
  const cli = spawnSync(process.execPath, [fileURLToPath(new URL('../../wasm/attnplay.mjs', import.meta.url)), 'run', '--preset', 'mla-q-lora'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const printed = JSON.parse(cli.stdout).state_dict;
  assert.deepEqual(Object.keys(plain.state_dict), Object.keys(printed));
  for (const name of Object.keys(printed)) {
    assert.deepEqual(plain.state_dict[name], printed[name], name);
    assert.deepEqual(typed.state_dict[name], printed[name], name);
  }
  assert.deepEqual(JSON.parse(JSON.stringify(plain)).state_dict, printed);  // enumerable: JSON sees them
});

test('typed inputs with errors name the field; buffers are released (no growth over 500 calls)', () => {
  const good = { algorithm: 'full', q: { shape: [1, 2, 1, 2], data: new Float64Array([1, 2, 3, 4]) },
    k: { shape: [1, 2, 1, 2], data: new Float64Array([1, 0, 0, 1]) }, v: { shape: [1, 2, 1, 1], data: new Float64Array([5, 6]) } };
  const short = { ...good, k: { shape: [1, 3, 1, 2], data: new Float64Array([1, 0, 0, 1]) } };
  const nan = { ...good, v: { shape: [1, 2, 1, 1], data: new Float64Array([5, NaN]) } };
  const unread = { ...good, mask: { kind: 'local' } };  // inputs read and adopted, then an error
  assert.throws(() => wasm.run(short), { message: 'k.data: expected 6 numbers for shape, got 4', field: 'k.data' });
  assert.throws(() => wasm.run(nan), { message: 'v.data[1]: expected a finite number', field: 'v.data[1]' });
  assert.throws(() => wasm.run(unread), { field: 'mask.window' });
  for (let i = 0; i < 20; i++) { wasm.run(good); assert.throws(() => wasm.run(nan)); assert.throws(() => wasm.run(unread)); }
  const before = wasm.memoryBytes();
  for (let i = 0; i < 500; i++) {
    assert.throws(() => wasm.run(short));
    assert.throws(() => wasm.run(nan));
    assert.throws(() => wasm.run(unread));
    wasm.run(good, { typed: true });
  }
  assert.equal(wasm.memoryBytes(), before);
  assert.deepEqual(wasm.run(good).context.length, 1);
});

test('L = 16384, E = D = 64, trace "context": a fresh module stays within 64 MB (inputs and context held once)', () => {
  // A local window of 0 keeps the arithmetic trivial (each query attends to itself: context = v)
  // while the boundary moves exactly what issue 8's full attention moves: 3 x 8 MiB in, 8 MiB out.
  const script = `
    const { load } = await import(${JSON.stringify(new URL('../../wasm/attnplay.mjs', import.meta.url).href)});
    const { run, memoryBytes } = await load();
    const L = 16384, E = 64, at_load = memoryBytes();
    const t = (s) => ({ shape: [1, L, 1, E], data: Float64Array.from({ length: L * E }, (_, i) => Math.sin(i * s)) });
    const v = t(0.3);
    const out = run({ algorithm: 'full', trace: 'context', q: t(0.1), k: t(0.2), v, mask: { kind: 'local', window: 0 } }, { typed: true });
    let same = out.context.data.length === v.data.length;
    for (let i = 0; same && i < v.data.length; i++) same = out.context.data[i] === v.data[i];
    console.log(JSON.stringify({ at_load, after: memoryBytes(), same }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: process.env });
  assert.equal(r.status, 0, r.stderr);
  const { at_load, after, same } = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.ok(same, 'context = v');
  const MiB = 2 ** 20;
  // held twice each way (the old boundary) it needed 64 MiB beyond the module's own and grew to 72 MiB
  assert.ok(after <= 56 * MiB, `wasm memory ${(after / MiB).toFixed(1)} MiB (at load ${(at_load / MiB).toFixed(1)} MiB)`);
});
