// Golden fixtures from the PyTorch reference (tests/fixtures/<algorithm>/<case>.json, written by
// tests/fixtures/generate.py), through the WASM module: every expected trace field within the
// fixture's tolerance; and for every fixture the WASM trace equals the native CLI's to 1e-12.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { wasm, maxRelDiff, nativeCli, root } from './helpers.mjs';

const execFileAsync = promisify(execFile);

// The registry's algorithms: each must have at least this many fixtures (as in test_fixtures.cpp).
const ALGORITHMS = wasm.algorithms().map((a) => a.name);
const MIN_FIXTURES = 3;
const fixturesDir = path.join(root, 'tests', 'fixtures');

function jsonFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsonFiles(p));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(p);
  }
  return out.sort();
}

// Every fixture: {name: 'full/causal-2x2-l6', algorithm, scenario, expected, tolerance}.
const fixtures = ALGORITHMS.flatMap((algorithm) =>
  jsonFiles(path.join(fixturesDir, algorithm)).map((file) => {
    const f = JSON.parse(fs.readFileSync(file, 'utf8'));
    const name = path.relative(fixturesDir, file).replace(/\\/g, '/').replace(/\.json$/, '');
    return { name, algorithm, scenario: f.scenario, expected: f.expected, tolerance: f.tolerance ?? 1e-9 };
  }));

function runWasm(scenario) {
  try {
    return { trace: wasm.run(scenario) };
  } catch (e) {
    return { error: e.message };
  }
}

test('fixtures: every folder is checked and holds enough fixtures', () => {
  for (const entry of fs.readdirSync(fixturesDir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'reference' || entry.name.startsWith('__')) continue;
    assert.ok(ALGORITHMS.includes(entry.name), `tests/fixtures/${entry.name} is not an algorithm of the registry`);
  }
  assert.ok(fixtures.length >= 60, `only ${fixtures.length} fixtures`);
});

for (const algorithm of ALGORITHMS) {
  const atLeast = MIN_FIXTURES;
  test(`fixtures: ${algorithm} through WASM agrees with PyTorch`, async (t) => {
    const mine = fixtures.filter((f) => f.algorithm === algorithm);
    assert.ok(mine.length >= atLeast, `${algorithm}: ${mine.length} fixtures, expected at least ${atLeast}`);
    for (const f of mine) {
      await t.test(f.name, () => {
        assert.equal(f.scenario.algorithm, algorithm);
        const fields = Object.keys(f.expected);
        assert.ok(fields.length > 0, `${f.name}: no expected field`);
        const { trace, error } = runWasm(f.scenario);
        assert.ok(trace, `${f.name}: the scenario failed: ${error}`);
        const unknown = trace.warnings.filter((w) => w.startsWith('unknown field'));
        assert.deepEqual(unknown, [], `${f.name}: the scenario has fields the product ignores`);
        const failures = [];
        for (const field of fields) {
          if (!(field in trace)) {
            failures.push(`field ${field}: missing from the trace`);
            continue;
          }
          const d = maxRelDiff(trace[field], f.expected[field]);
          if (!(d <= f.tolerance)) failures.push(`field ${field}: max relative error ${d} > ${f.tolerance}`);
        }
        assert.deepEqual(failures, [], `${f.name}:\n  ${failures.join('\n  ')}`);
      });
    }
  });
}

// Runs the native CLI on every scenario, a few processes at a time (the CLI takes one scenario
// per call; the scenarios go through temporary files).
async function runNativeAll(scenarios) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnplay-fixtures-'));
  try {
    const results = new Array(scenarios.length);
    let next = 0;
    const worker = async () => {
      while (next < scenarios.length) {
        const i = next++;
        const file = path.join(dir, `${i}.json`);
        fs.writeFileSync(file, JSON.stringify(scenarios[i]));
        try {
          const { stdout } = await execFileAsync(nativeCli, ['run', file], { maxBuffer: 256 << 20 });
          results[i] = { trace: JSON.parse(stdout) };
        } catch (e) {
          results[i] = { error: (e.stderr ?? String(e)).toString().trim(), status: e.code };
        }
      }
    };
    const width = Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length));
    await Promise.all(Array.from({ length: width }, worker));
    return results;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('fixtures: WASM and the native CLI give the same whole trace (1e-12)', async (t) => {
  assert.ok(fs.existsSync(nativeCli), `no native CLI at ${nativeCli}: build it first`);
  const native = await runNativeAll(fixtures.map((f) => f.scenario));
  for (const [i, f] of fixtures.entries()) {
    await t.test(f.name, () => {
      const fromWasm = runWasm(f.scenario);
      const fromNative = native[i];
      if (fromNative.error !== undefined || fromWasm.error !== undefined) {
        // both must fail, with the same one-line message
        assert.equal(fromWasm.error, fromNative.error, `${f.name}: WASM and native disagree on failing`);
        return;
      }
      const d = maxRelDiff(fromWasm.trace, fromNative.trace);
      assert.ok(d <= 1e-12, `${f.name}: WASM and native traces differ by ${d}`);
    });
  }
});
