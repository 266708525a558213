// Runs a native CLI build on every corpus case and on the fuzzer's scenarios, and reports any
// run that a sanitizer complained about, that crashed, or that broke the error contract. For the
// ASan / UBSan build (docs/testing.md):
//
//   node tests/bad-inputs/check-cli.mjs build/h-asan/attnplay [fuzz seeds...]
//
// Exit 1 if anything is reported.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { badNumberPath, namesField, runNativeMany } from './lib.mjs';

const [cli, ...seedArgs] = process.argv.slice(2);
if (!cli) {
  console.error('usage: node tests/bad-inputs/check-cli.mjs CLI [fuzz seeds...]');
  process.exit(2);
}
const seeds = seedArgs.length ? seedArgs.map(Number) : [20240611];
const corpus = JSON.parse(readFileSync(new URL('./corpus.json', import.meta.url), 'utf8'));

const fuzzTexts = (seed) => new Promise((resolve, reject) => {
  const w = new Worker(new URL('./fuzz-worker.mjs', import.meta.url), { workerData: { seed, iterations: 1500, sampleEvery: 15 } });
  w.once('message', (m) => { resolve(m.texts); w.terminate(); });
  w.once('error', reject);
});

const cases = [
  ...corpus.bad.map((c) => ({ name: c.name, text: c.text ?? JSON.stringify(c.scenario), field: c.field })),
  ...corpus.valid.map((c) => ({ name: c.name, text: JSON.stringify(c.scenario), valid: true })),
];
for (const seed of seeds) (await fuzzTexts(seed)).forEach((text, i) => cases.push({ name: `fuzz ${seed} #${i}`, text }));

const t0 = performance.now();
const results = await runNativeMany(cli, cases.map((c) => c.text), { width: 2, timeoutMs: 120000 });
let problems = 0, unchecked = 0;
for (const [i, r] of results.entries()) {
  const c = cases[i];
  if (r.killed === 'output' && !c.field && !c.valid) {  // a legitimately large trace (a fuzz case)
    unchecked++;
    continue;
  }
  const why = /Sanitizer|runtime error/.test(r.stderr) ? 'sanitizer report'
    : r.killed === 'time' ? 'hangs (killed after 120 s)'
    : r.killed === 'output' ? 'more than 64 MB of output'
    : r.signal ? `killed by ${r.signal}`
    : r.status !== 0 && r.status !== 1 ? `exit status ${r.status}`
    : r.status === 1 && (r.stdout !== '' || !/^[^\n]+\n$/.test(r.stderr) || /internal error/.test(r.stderr)) ? 'not one clean error line'
    : c.field && !namesField(r.stderr.trimEnd(), c.field) ? `does not name ${c.field}`
    : c.valid && r.status !== 0 ? 'a valid case failed'
    : r.status === 0 && badNumberPath(JSON.parse(r.stdout)) ? 'non-finite number in the trace'
    : null;
  if (why) {
    problems++;
    console.log(`${c.name}: ${why}\n  stderr: ${r.stderr.slice(0, 2000)}\n  input: ${c.text.slice(0, 300)}`);
  }
}
console.log(`${cases.length} runs in ${Math.round((performance.now() - t0) / 1000)} s, ${problems} problems` +
  (unchecked ? ` (${unchecked} fuzz traces over 64 MB not checked)` : ''));
process.exitCode = problems ? 1 : 0;
