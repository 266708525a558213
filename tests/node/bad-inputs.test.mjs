// The bad-input corpus (tests/bad-inputs/corpus.json, written by make-corpus.mjs): every bad
// scenario fails with one line that starts with the field named in the corpus, identically in
// the WASM module (an Error; the module stays usable) and the native CLI (exit 1, stderr, empty
// stdout); every "valid" extreme scenario runs in both, agrees to 1e-12 and holds no
// null / NaN / Infinity. The WASM Error carries the field as `field` (SPEC §1).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { wasm, maxRelDiff, nativeCli, root } from './helpers.mjs';
import { badNumberPath, namesField, runNativeMany } from '../bad-inputs/lib.mjs';

const corpus = JSON.parse(fs.readFileSync(path.join(root, 'tests/bad-inputs/corpus.json'), 'utf8'));
const textOf = (c) => c.text ?? JSON.stringify(c.scenario);
const wasmInputOf = (c) => c.text ?? c.scenario;  // run() takes JSON text as text

function wasmError(input) {
  return wasmFailure(input)?.message;
}

// The Error the module throws: {message, field}, or undefined when the run succeeds.
function wasmFailure(input) {
  try {
    wasm.run(input);
  } catch (e) {
    assert.ok(e instanceof Error, `threw a ${typeof e}, not an Error`);
    return { message: e.message, field: e.field };
  }
  return undefined;
}

// The module still computes the seed's toy after a failure.
function assertWasmUsable() {
  const toy = wasm.presets().find((p) => p.name === 'softmax-toy');
  const t = wasm.run(toy.scenario);
  assert.ok(Math.abs(t.context[0][0][0][0] - 7.5527152894520) < 1e-12, 'the module no longer computes softmax-toy');
}

// The algorithms the core knows: its registry, which its own error message lists too.
function algorithmNames() {
  const names = wasm.algorithms().map((a) => a.name);
  assert.deepEqual([...wasmError({}).matchAll(/"([a-z_]+)"/g)].map((m) => m[1]), names);
  return names;
}

test('the corpus is well formed and covers every algorithm', () => {
  assert.ok(corpus.bad.length >= 60, `only ${corpus.bad.length} bad cases`);
  assert.ok(corpus.valid.length >= 10, `only ${corpus.valid.length} valid cases`);
  const names = new Set();
  for (const c of [...corpus.bad, ...corpus.valid]) {
    assert.ok(!names.has(c.name), `duplicate name ${c.name}`);
    names.add(c.name);
  }
  for (const c of corpus.bad) {
    assert.equal(typeof c.field, 'string', `${c.name}: no field`);
    assert.ok(c.field.length > 0);
    assert.ok(('text' in c) !== ('scenario' in c), `${c.name}: needs exactly one of text and scenario`);
  }
  const algorithms = algorithmNames();
  assert.ok(algorithms.length >= 6, `algorithms: ${algorithms}`);
  for (const a of algorithms) {
    const bad = corpus.bad.filter((c) => c.scenario?.algorithm === a).length;
    const valid = corpus.valid.filter((c) => c.scenario.algorithm === a).length;
    assert.ok(bad >= 5, `algorithm ${a}: only ${bad} bad cases`);
    assert.ok(valid >= 1, `algorithm ${a}: no valid extreme case`);
  }
  // the checks below can fail: a message naming a sub-path or another field does not count
  assert.ok(namesField('q: required', 'q'));
  assert.ok(!namesField('q[0][1]: expected a number, got null', 'q'));
  assert.ok(!namesField('k: required', 'q'));
  assert.ok(!namesField('q: two\nlines', 'q'));
  assert.equal(badNumberPath({ a: [1, [2, null]] }), 'trace.a[1][1]');
  assert.equal(badNumberPath({ a: { data: new Float64Array([1, NaN]) } }), 'trace.a.data[1]');
  assert.equal(badNumberPath({ a: [1, -Infinity] }), 'trace.a[1]');
  assert.equal(badNumberPath({ a: [1, 2], b: 'x', c: true }), null);
});

test('bad inputs: WASM throws one line naming the field and stays usable', async (t) => {
  for (const c of corpus.bad) {
    await t.test(c.name, () => {
      const failure = wasmFailure(wasmInputOf(c));
      assert.notEqual(failure, undefined, `${c.name}: no error`);
      const { message, field } = failure;
      assert.ok(namesField(message, c.field), `${c.name}: expected a message starting "${c.field}: ", got "${message}"`);
      // Error.field: the path the message starts with; "" when the scenario as a whole is at fault
      assert.equal(field, c.field === 'scenario' ? '' : c.field, `${c.name}: Error.field`);
      assert.doesNotMatch(message, /internal error|out of memory/);
      assertWasmUsable();
    });
  }
});

test('bad inputs: the native CLI exits 1 with the same line on stderr and nothing on stdout', async (t) => {
  assert.ok(fs.existsSync(nativeCli), `no native CLI at ${nativeCli}: build it first`);
  const t0 = performance.now();
  const native = await runNativeMany(nativeCli, corpus.bad.map(textOf));
  const ms = performance.now() - t0;
  // a run that hangs is killed by runNativeMany's time limit (its signal is checked below); the time is printed, not asserted
  console.log(`# ${corpus.bad.length} native runs in ${Math.round(ms)} ms`);
  for (const [i, c] of corpus.bad.entries()) {
    await t.test(c.name, () => {
      const r = native[i];
      assert.equal(r.signal, null, `${c.name}: killed by ${r.signal}`);
      assert.equal(r.status, 1, `${c.name}: exit status ${r.status}, stderr ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `${wasmError(wasmInputOf(c))}\n`, `${c.name}: native and WASM messages differ`);
    });
  }
});

test('bad inputs: repeating the whole corpus does not grow wasm memory', () => {
  const pass = () => { for (const c of corpus.bad) assert.ok(wasmError(wasmInputOf(c))); };
  pass();
  const before = wasm.memoryBytes();
  pass();
  pass();
  assert.equal(wasm.memoryBytes(), before);
});

test('the JS wrapper: inputs that are not JSON at all', () => {
  const cyclic = { algorithm: 'full' };
  cyclic.self = cyclic;
  for (const input of [undefined, () => 1, Symbol('s'), cyclic, { algorithm: 'full', seed: 1n }]) {
    const message = wasmError(input);
    assert.ok(namesField(message, 'scenario'), `got "${message}"`);
  }
  assertWasmUsable();
});

test('valid extremes: both run, agree to 1e-12, and no number is null, NaN or infinite', async (t) => {
  const native = await runNativeMany(nativeCli, corpus.valid.map(textOf));
  for (const [i, c] of corpus.valid.entries()) {
    await t.test(c.name, () => {
      const r = native[i];
      assert.equal(r.status, 0, `${c.name}: native failed: ${r.stderr}`);
      const fromNative = JSON.parse(r.stdout);
      const fromWasm = wasm.run(c.scenario);
      const typed = wasm.run(c.scenario, { typed: true });
      for (const [who, trace] of [['native', fromNative], ['wasm', fromWasm], ['wasm typed', typed]]) {
        const bad = badNumberPath(trace);
        assert.equal(bad, null, `${c.name}: ${who} trace has a non-finite number at ${bad}`);
      }
      const d = maxRelDiff(fromWasm, fromNative);
      assert.ok(d <= 1e-12, `${c.name}: WASM and native differ by ${d}`);
    });
  }
});
