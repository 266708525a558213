// A bounded, deterministic mutation fuzzer (tests/bad-inputs/fuzz-worker.mjs): every preset's
// scenario, mutated 1-3 times, 1,500 times with a fixed seed, through the WASM module. Each one
// gives a trace with no null / NaN / Infinity, or an Error whose message is one non-empty line
// naming a field ("path: ...", never "internal error"); the module stays usable; nothing hangs;
// repeating all of them leaves wasm memory where the first pass left it. A sample of 100 also
// runs through the native CLI: the same error line, or the same trace to 1e-12.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { maxRelDiff, nativeCli } from './helpers.mjs';
import { badNumberPath, runNativeMany } from '../bad-inputs/lib.mjs';

const SEED = 20240611;
const ITERATIONS = 1500;
const SAMPLE_EVERY = 15;  // 100 native runs
const TIME_LIMIT_MS = 60000;  // the whole WASM part (two passes); it takes a few seconds

// "field.path[0]: what is wrong", one line
const FIELD_MESSAGE = /^[A-Za-z_$][\w$]*(\[\d+\]|\.[A-Za-z_$][\w$]*)*: \S[^\n]*$/;

function fuzzInWorker() {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../bad-inputs/fuzz-worker.mjs', import.meta.url), {
      workerData: { seed: SEED, iterations: ITERATIONS, sampleEvery: SAMPLE_EVERY },
    });
    const timer = setTimeout(() => {
      worker.terminate();
      reject(new Error(`the fuzzer did not finish in ${TIME_LIMIT_MS} ms: a call hangs`));
    }, TIME_LIMIT_MS);
    worker.once('message', (m) => { clearTimeout(timer); resolve(m); });
    worker.once('error', (e) => { clearTimeout(timer); reject(e); });
    worker.once('exit', (code) => { clearTimeout(timer); if (code !== 0) reject(new Error(`the fuzz worker exited with ${code}`)); });
  });
}

let result;
test('fuzz: 1,500 mutated presets through WASM, none hangs', async () => {
  const t0 = performance.now();
  result = await fuzzInWorker();
  const ms = performance.now() - t0;
  assert.equal(result.outcomes.length, ITERATIONS);
  // a call that hangs fails the worker's time limit; the times are printed, not asserted (speed lives in bench/)
  const slowest = Math.max(...result.outcomes.map((o) => o.ms));
  console.log(`# fuzz: ${ITERATIONS} scenarios in ${Math.round(ms)} ms, the slowest ${Math.round(slowest)} ms`);
});

test('fuzz: every outcome is a clean trace or a one-line error naming a field', () => {
  assert.ok(result, 'the fuzzer did not run');
  const problems = [];
  let traces = 0, errors = 0;
  for (const [i, o] of result.outcomes.entries()) {
    const scenario = result.texts[i].slice(0, 300);
    if (o.error === undefined) {
      traces++;
      if (o.badPath) problems.push(`#${i}: the trace has a non-finite number at ${o.badPath}: ${scenario}`);
      continue;
    }
    errors++;
    if (!o.isError) problems.push(`#${i}: ${o.error}`);
    if (!FIELD_MESSAGE.test(o.error) || /^internal error/.test(o.error))
      problems.push(`#${i}: the message does not name a field: "${o.error}": ${scenario}`);
    if (!o.usable) problems.push(`#${i}: the module is broken after "${o.error}"`);
  }
  assert.deepEqual(problems.slice(0, 10), [], `${problems.length} problems`);
  // the mutations must exercise both sides (else this test proves little)
  assert.ok(traces >= 300, `only ${traces} traces`);
  assert.ok(errors >= 300, `only ${errors} errors`);
  const messages = new Set(result.outcomes.filter((o) => o.error).map((o) => o.error.split(':')[0]));
  assert.ok(messages.size >= 30, `errors on only ${messages.size} different fields`);
});

test('fuzz: a repeat of all 1,500 gives the same outcomes and no more wasm memory', () => {
  assert.ok(result, 'the fuzzer did not run');
  assert.deepEqual(result.mismatches.slice(0, 5), []);
  assert.equal(result.memory.afterRepeat, result.memory.afterFirst, 'wasm memory grew on the repeat');
});

test('fuzz: 100 of them through the native CLI give the same outcome', async (t) => {
  assert.ok(result, 'the fuzzer did not run');
  assert.ok(fs.existsSync(nativeCli), `no native CLI at ${nativeCli}: build it first`);
  const samples = result.samples;
  assert.equal(samples.length, Math.ceil(ITERATIONS / SAMPLE_EVERY));
  const native = await runNativeMany(nativeCli, samples.map((s) => s.text), { timeoutMs: 10000 });
  let traces = 0;
  for (const [n, s] of samples.entries()) {
    await t.test(`#${s.index}`, () => {
      const r = native[n];
      assert.equal(r.signal, null, `killed by ${r.signal}: ${s.text.slice(0, 300)}`);
      if (s.error !== undefined) {
        assert.equal(r.status, 1, `native exit ${r.status} where WASM said "${s.error}"`);
        assert.equal(r.stderr, `${s.error}\n`);
        assert.equal(r.stdout, '');
        return;
      }
      traces++;
      assert.equal(r.status, 0, `native failed where WASM gave a trace: ${r.stderr}`);
      const trace = JSON.parse(r.stdout);
      assert.equal(badNumberPath(trace), null);
      const d = maxRelDiff(s.trace, trace);
      assert.ok(d <= 1e-12, `WASM and native differ by ${d}`);
    });
  }
  assert.ok(traces >= 20 && traces <= samples.length - 20, `${traces} traces in the sample`);
});
