// The WASM module: same traces as the native CLI for every preset, typed-array tensors in and
// out, errors as JS Errors that leave the module usable.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { wasm, runNative, maxRelDiff, nativeCli, wasmCli } from './helpers.mjs';

test('every preset gives the same trace natively and in WASM (1e-12)', () => {
  const presets = wasm.presets();
  assert.ok(presets.length >= 3);
  for (const p of presets) {
    const native = runNative(p.scenario);
    assert.ok(native.trace, `${p.name}: native failed: ${native.error}`);
    const fromWasm = wasm.run(p.scenario);
    const d = maxRelDiff(fromWasm, native.trace);
    assert.ok(d <= 1e-12, `${p.name}: WASM and native differ by ${d}`);
  }
});

test('the node CLI prints the same trace as the native CLI', () => {
  const a = JSON.parse(execFileSync(nativeCli, ['run', '--preset', 'softmax-toy']).toString());
  const b = JSON.parse(execFileSync(process.execPath, [wasmCli, 'run', '--preset', 'softmax-toy']).toString());
  assert.ok(maxRelDiff(b, a) <= 1e-12);
  assert.equal(a.context[0][0][0][0].toFixed(2), '7.55');
});

test('typed-array tensors in and out', () => {
  const scenario = {
    algorithm: 'full',
    q: { shape: [1, 1, 1, 1], data: new Float64Array([1]) },
    k: { shape: [1, 3, 1, 1], data: new Float32Array([2, 1, 0]) },
    v: [[[[10, 0]], [[0, 20]], [[10, 10]]]],
  };
  const t = wasm.run(scenario, { typed: true });
  assert.deepEqual(t.context.shape, [1, 1, 1, 2]);
  assert.ok(t.context.data instanceof Float64Array);
  assert.ok(Math.abs(t.context.data[0] - 7.5527152894520) < 1e-12);
  const nested = wasm.run(scenario);
  assert.ok(Math.abs(nested.weights[0][0][0][0] - 0.6652409557748218) < 1e-15);
});

test('bad input: an Error naming the field, and the module stays usable', () => {
  const bad = { algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1]]]], v: [[[[1]]]] };
  assert.throws(() => wasm.run(bad), { message: 'k[0][0][0]: expected 2 numbers (E of q), got 1' });
  assert.throws(() => wasm.run({ algorithm: 'full', q: { shape: [1, 1, 1, 2], data: new Float64Array([1, NaN]) }, k: [], v: [] }),
    /q\.data\[1\]: expected a finite number/);
  assert.throws(() => wasm.run(null), /scenario: expected an object/);
  for (let i = 0; i < 200; i++) assert.throws(() => wasm.run(bad));
  const ok = wasm.run(wasm.presets()[0].scenario);
  assert.ok(Array.isArray(ok.context));
});

test('CLIs: bad input is one line on stderr and a non-zero exit', () => {
  const bad = JSON.stringify({ algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1]]]], v: [[[[1]]]] });
  for (const [cmd, args] of [[nativeCli, ['run', '-']], [process.execPath, [wasmCli, 'run', '-']]]) {
    const r = spawnSync(cmd, args, { input: bad });
    assert.notEqual(r.status, 0);
    assert.equal(r.stderr.toString(), 'k[0][0][0]: expected 2 numbers (E of q), got 1\n');
    assert.equal(r.stdout.toString(), '');
  }
});

test('2,000 bad and 2,000 good calls do not grow wasm memory (no leak across the boundary)', () => {
  const bad = { algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1, 2, 3]]]], v: [[[[1]]]] };
  const good = wasm.presets()[0].scenario;
  for (let i = 0; i < 100; i++) { wasm.run(good); assert.throws(() => wasm.run(bad)); }
  const before = wasm.memoryBytes();
  for (let i = 0; i < 2000; i++) {
    assert.throws(() => wasm.run(bad), /k\[0\]\[0\]\[0\]: expected 2 numbers/);
    wasm.run(good);
  }
  assert.equal(wasm.memoryBytes(), before);
});

test('seeded ProbAttention draws the same samples natively and in WASM', () => {
  const rand = (n, s) => Array.from({ length: n }, (_, i) => Math.sin(1.7 * i + s) * 2);
  const tensor = (B, L, H, E, s) => {
    const flat = rand(B * L * H * E, s);
    let o = 0;
    return Array.from({ length: B }, () => Array.from({ length: L }, () =>
      Array.from({ length: H }, () => Array.from({ length: E }, () => flat[o++]))));
  };
  const indices = new Set();
  for (const seed of [0, 1, 2, 12345678901]) {
    for (const causal of [false, true]) {
      const scenario = { algorithm: 'prob', factor: 2, seed, q: tensor(2, 24, 2, 3, 1), k: tensor(2, 24, 2, 3, 2),
        v: tensor(2, 24, 2, 2, 3), mask: { kind: causal ? 'causal' : 'none' }, output_attention: true };
      const native = runNative(scenario);
      assert.ok(native.trace, native.error);
      const fromWasm = wasm.run(scenario);
      assert.deepEqual(fromWasm.sample_index, native.trace.sample_index);
      assert.deepEqual(fromWasm.top_index, native.trace.top_index);
      assert.ok(maxRelDiff(fromWasm, native.trace) <= 1e-12);
      indices.add(JSON.stringify(fromWasm.sample_index));
    }
  }
  assert.equal(indices.size, 4, 'different seeds draw different samples; the mask does not change them');
});

test('algorithms(): the registry, each algorithm named, titled in English and Chinese, runnable', () => {
  const registry = wasm.algorithms();
  const names = registry.map((a) => a.name);
  assert.ok(names.includes('full') && names.includes('prob'));
  for (const a of registry) {
    for (const key of ['name', 'title', 'title_zh', 'description']) assert.equal(typeof a[key], 'string', `${a.name}.${key}`);
    assert.ok(a.title.length > 0 && a.title_zh.length > 0 && a.description.length > 0, a.name);
  }
  for (const name of names) {
    // an empty scenario of each algorithm must fail on one of its own fields, not on "algorithm"
    assert.throws(() => wasm.run({ algorithm: name }), (e) => !e.message.startsWith('algorithm:'));
  }
  assert.throws(() => wasm.run({ algorithm: "nope" }), { message: new RegExp(`^algorithm: expected one of "${names[0]}"`) });
});

test('errors carry the offending field as Error.field (SPEC §1)', () => {
  const failure = (scenario) => {
    try {
      wasm.run(scenario);
    } catch (e) {
      return e;
    }
    assert.fail('no error');
  };
  // a tensor error: the path of the entry
  const tensor = failure({ algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1, 2]], [[1]]]], v: [[[[1]], [[2]]]] });
  assert.equal(tensor.field, 'k[0][1][0]');
  assert.match(tensor.message, /^k\[0\]\[1\]\[0\]: /);
  // a mask error
  const mask = failure({ algorithm: 'full', q: [[[[1]]]], k: [[[[1]]]], v: [[[[1]]]], mask: { kind: 'local' } });
  assert.equal(mask.field, 'mask.window');
  // JSON that does not parse: the scenario as a whole
  const syntax = failure('{"algorithm": "full",');
  assert.equal(syntax.field, '');
  assert.match(syntax.message, /^scenario: invalid JSON/);
  // and the module still works
  assert.ok(wasm.run({ algorithm: 'full', q: [[[[1]]]], k: [[[[1]]]], v: [[[[3]]]] }).context[0][0][0][0] === 3);
});
