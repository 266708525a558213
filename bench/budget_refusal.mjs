// The work budget's refusal (issue 18: "a 2e12 multiply-add scenario is refused in under a second"):
// the time from the call to the refusal, native CLI and WASM run(), wall and CPU.
//
//   node bench/budget_refusal.mjs        (or `npm run bench`)     BENCH_OUT=dir
//
// Scenarios: full attention at L = 65536, E = D = 256 (2.2e12 multiply-adds) from seeded draws
// (checked, not drawn: core/scenario/undrawn.hpp), and at L = 8192, H = 4, E = D = 64 (3.4e10)
// with q, k, v as JSON text {"shape", "data"} (25 MB: the time is mostly the parse), plus that
// text refused on its algorithm ("nope": the parse alone). CLI: one process per run, its user +
// sys time; WASM: wasm/attnplay.mjs run() of the text, node's process.cpuUsage() around it. Best
// of 3. Nothing is asserted; writes bench/results/budget_refusal.{json,md}.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, markdownTable } from './lib.mjs';
import { load } from '../wasm/attnplay.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const cli = path.join(root, 'build/native/attnplay');
const { run } = await load();
const draw = (seed) => ({ shape: [1, 65536, 1, 256], random: 'normal', seed });
const flat = (shape) => `{"shape": ${JSON.stringify(shape)}, "data": [${Array(shape.reduce((a, b) => a * b)).fill('0.5').join(',')}]}`;
const t = flat([1, 8192, 4, 64]);
const scenarios = [
  ['2.2e12, seeded draws', JSON.stringify({ algorithm: 'full', trace: 'context', q: draw(1), k: draw(2), v: draw(3) })],
  ['3.4e10, JSON tensors', `{"algorithm": "full", "trace": "context", "q": ${t}, "k": ${t}, "v": ${t}}`],
  ['the same text, "nope" (its parse)', `{"algorithm": "nope", "trace": "context", "q": ${t}, "k": ${t}, "v": ${t}}`],
];
const dir = mkdtempSync(path.join(tmpdir(), 'budget-'));
const rows = [];
for (const [name, text] of scenarios) {
  const file = path.join(dir, 'scenario.json');
  writeFileSync(file, text);
  const best = { cli: Infinity, cli_cpu: Infinity, wasm: Infinity, wasm_cpu: Infinity };
  let cliError = '', wasmError = '';
  for (let rep = 0; rep < 3; rep++) {
    let t0 = performance.now();
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', cli, 'run', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
    best.cli = Math.min(best.cli, performance.now() - t0);
    const lines = r.stderr.trim().split('\n');
    const [user, sys] = lines.pop().split(' ').map(Number);
    best.cli_cpu = Math.min(best.cli_cpu, (user + sys) * 1000);
    cliError = lines[0] ?? '';
    const c0 = process.cpuUsage();
    t0 = performance.now();
    try { run(text); wasmError = '(ran)'; } catch (e) { wasmError = e.message; }
    best.wasm = Math.min(best.wasm, performance.now() - t0);
    const c = process.cpuUsage(c0);
    best.wasm_cpu = Math.min(best.wasm_cpu, (c.user + c.system) / 1000);
  }
  rows.push({ scenario: name, text_bytes: text.length, cli_ms: best.cli, cli_cpu_ms: best.cli_cpu, wasm_ms: best.wasm,
    wasm_cpu_ms: best.wasm_cpu, cli_error: cliError.slice(0, 80), wasm_error: wasmError.slice(0, 80) });
}
rmSync(dir, { recursive: true, force: true });

const info = machine();
const table = markdownTable(['scenario', 'text', 'CLI ms', 'CLI CPU ms', 'WASM ms', 'WASM CPU ms', 'answer'],
  rows.map((r) => [r.scenario, r.text_bytes < 1e5 ? `${r.text_bytes} B` : `${(r.text_bytes / 1e6).toFixed(1)} MB`, r.cli_ms.toFixed(0), r.cli_cpu_ms.toFixed(0),
    r.wasm_ms.toFixed(0), r.wasm_cpu_ms.toFixed(0), r.wasm_error.slice(0, 40)]));
const text = `The work budget's refusal, best of 3; ${info.summary}\n\n${table}\n`;
console.log(text);
const out = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'budget_refusal.md'), text);
writeFileSync(path.join(out, 'budget_refusal.json'), JSON.stringify({ benchmark: 'budget_refusal', machine: info,
  date: new Date().toISOString(), rows }, null, 2) + '\n');
console.log(`wrote ${path.relative(root, out)}/budget_refusal.{json,md}`);
