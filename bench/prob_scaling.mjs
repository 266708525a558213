// ProbAttention against full attention through the WASM module, L = 256 .. 16384, with the
// log-log slopes of time over L (least squares on log ms against log L, over 512 .. 8192 as issue 8
// states the goal, and over every L) and the WASM memory after the L = 16384 runs (trace "context").
//
//   node bench/prob_scaling.mjs          (or `npm run bench`, which builds first)
//
// One batch item, one head, E = D = 64, factor 5, no mask, trace "context" (no L x L matrix),
// typed tensors in and out. For each L: the best wall time of several runs of `full` and of
// `prob` (the median is in the JSON too), their ratio, the time per L ln L (prob) and per L^2
// (full) normalised to the largest L (about 1 when the algorithm scales as claimed; small L also
// carry the fixed per-call cost, printed below the table), and the cost ratio dense / computed dot
// products that the trace reports (U_part = u = 5 ceil(ln L)). Prints a table and writes
// bench/results/prob_scaling.json. Nothing is asserted: timings depend on the machine.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pathToFileURL } from 'node:url';
import { uniforms, time, machine } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const E = 64, D = 64, factor = 5;
const lengths = (process.env.BENCH_LENGTHS ?? '256,512,1024,2048,4096,8192,16384').split(',').map(Number);

// ATTNPLAY_LOADER=path/to/attnplay.mjs: another wrapper and its build (default wasm/attnplay.mjs);
// ATTNPLAY_WASM_DIR=dir: wasm/attnplay.mjs with another build's attnplay_core.{mjs,wasm} (the
// child process that measures memory inherits both)
const loader = process.env.ATTNPLAY_LOADER ? path.resolve(process.env.ATTNPLAY_LOADER) : path.join(here, '..', 'wasm', 'attnplay.mjs');
const { load } = await import(pathToFileURL(loader).href);
const { run, memoryBytes } = await load();
const memoryBefore = memoryBytes();

// `--memory L`: a fresh module runs full attention once at L (trace "context") and prints its
// WASM memory in bytes (the main run asks a child process for this: a clean heap).
if (process.argv[2] === '--memory') {
  const L = Number(process.argv[3]);
  const t = (d, seed) => ({ shape: [1, L, 1, d], data: uniforms(L * d, seed) });
  run({ algorithm: 'full', max_flops: 1e15, trace: 'context', q: t(E, 1), k: t(E, 2), v: t(D, 3) }, { typed: true });
  console.log(JSON.stringify({ L, at_load: memoryBefore, after: memoryBytes() }));
  process.exit(0);
}
// the fixed cost of one call (JSON, copies across the wasm boundary): prob at L = 4
const tiny = (d) => ({ shape: [1, 4, 1, d], data: uniforms(4 * d, 9) });
const overhead_ms = time(run, { algorithm: 'prob', factor, q: tiny(E), k: tiny(E), v: tiny(D), trace: 'context' }, 21).ms;
// warm-up: V8 compiles wasm with Liftoff first and tiers the hot functions up in the background
{
  const w = (d) => ({ shape: [1, 512, 1, d], data: uniforms(512 * d, 7) });
  for (let r = 0; r < 8; r++) for (const algorithm of ['full', 'prob']) run({ algorithm, factor, q: w(E), k: w(E), v: w(D), trace: 'context' }, { typed: true });
}
const rows = [];
for (const L of lengths) {
  const shape = (d) => [1, L, 1, d];
  const inputs = {
    q: { shape: shape(E), data: uniforms(L * E, L + 1) },
    k: { shape: shape(E), data: uniforms(L * E, L + 2) },
    v: { shape: shape(D), data: uniforms(L * D, L + 3) },
    trace: 'context',
  };
  const reps = L <= 1024 ? 7 : L <= 4096 ? 3 : 1;
  const full = time(run, { algorithm: 'full', max_flops: 1e15, ...inputs }, reps);
  const prob = time(run, { algorithm: 'prob', max_flops: 1e15, factor, ...inputs }, Math.max(reps, 7));
  const cost = prob.trace.cost;
  rows.push({
    L,
    full_ms: full.ms,
    prob_ms: prob.ms,
    full_median_ms: full.median_ms,
    prob_median_ms: prob.median_ms,
    speedup: full.ms / prob.ms,
    prob_ms_per_LlnL: prob.ms / (L * Math.log(L)),
    full_ms_per_L2: full.ms / (L * L),
    U_part: factor * Math.ceil(Math.log(L)),
    dot_products: cost.dot_products,
    dense_dot_products: cost.dense_dot_products,
    cost_ratio: cost.dense_dot_products / cost.dot_products,
  });
}

const memoryAfter = memoryBytes();  // the heap only grows: its size after the largest L
const { spawnSync } = await import('node:child_process');
const fresh = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--memory', String(lengths[lengths.length - 1])],
  { encoding: 'utf8', env: process.env });
const memoryFullOnly = fresh.status === 0 ? JSON.parse(fresh.stdout.trim().split('\n').pop()) : null;
// slope of log(ms) over log(L), least squares
const slope = (key, from, to) => {
  const pts = rows.filter((r) => r.L >= from && r.L <= to).map((r) => [Math.log(r.L), Math.log(r[key])]);
  const n = pts.length, mx = pts.reduce((a, p) => a + p[0], 0) / n, my = pts.reduce((a, p) => a + p[1], 0) / n;
  return pts.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0) / pts.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
};
const Lmin = lengths[0], Lmax = lengths[lengths.length - 1];
const slopes = {
  prob_512_8192: slope('prob_ms', 512, 8192), full_512_8192: slope('full_ms', 512, 8192),
  prob_all: slope('prob_ms', Lmin, Lmax), full_all: slope('full_ms', Lmin, Lmax),
};
const base = rows[rows.length - 1];
const pad = (s, n) => String(s).padStart(n);
console.log(`prob vs full attention, WASM, B = H = 1, E = D = ${E}, factor ${factor}, trace "context" (best of n, ms)`);
console.log(
  [pad('L', 5), pad('full ms', 9), pad('prob ms', 9), pad('full/prob', 10), pad('prob/(L ln L)', 14),
    pad('full/L^2', 9), pad('U_part', 7), pad('cost ratio', 11)].join(' '));
for (const r of rows) {
  console.log(
    [pad(r.L, 5), pad(r.full_ms.toFixed(2), 9), pad(r.prob_ms.toFixed(3), 9), pad(r.speedup.toFixed(1), 10),
      pad((r.prob_ms_per_LlnL / base.prob_ms_per_LlnL).toFixed(2), 14),
      pad((r.full_ms_per_L2 / base.full_ms_per_L2).toFixed(2), 9), pad(r.U_part, 7),
      pad(r.cost_ratio.toFixed(1), 11)].join(' '));
}
console.log(`prob/(L ln L) and full/L^2: time per unit of the claimed growth, relative to L = ${base.L} (1 = scales as claimed)`);
console.log(`fixed cost of one call (prob at L = 4): ${overhead_ms.toFixed(3)} ms, included in every row`);
console.log(`log-log slope of time over L: prob ${slopes.prob_512_8192.toFixed(2)} (512..8192), ${slopes.prob_all.toFixed(2)} (${Lmin}..${Lmax}); ` +
  `full ${slopes.full_512_8192.toFixed(2)} (512..8192), ${slopes.full_all.toFixed(2)} (${Lmin}..${Lmax})`);
const at8192 = rows.find((r) => r.L === 8192);
if (at8192) console.log(`full / prob at L = 8192: ${at8192.speedup.toFixed(1)}x`);
console.log(`WASM memory: ${(memoryBefore / 2 ** 20).toFixed(1)} MiB at load, ${(memoryAfter / 2 ** 20).toFixed(1)} MiB after every run above; ` +
  `a fresh module after one full attention at L = ${Lmax} (trace "context", float64 typed inputs): ` +
  (memoryFullOnly ? `${(memoryFullOnly.after / 2 ** 20).toFixed(1)} MiB` : 'n/a'));
const info = machine();
console.log(info.summary);

const out = path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'prob_scaling.json'), JSON.stringify({
  benchmark: 'prob_scaling',
  engine: `node ${process.version}, wasm`,
  config: { B: 1, H: 1, E, D, factor, trace: 'context', statistic: 'best of n (min); median also recorded' },
  overhead_ms,
  slopes,
  speedup_at_8192: at8192?.speedup ?? null,
  wasm_memory_bytes: { at_load: memoryBefore, after_every_run: memoryAfter, largest_L: Lmax,
    fresh_module_full_context_at_largest_L: memoryFullOnly?.after ?? null },
  machine: info,
  date: new Date().toISOString(),
  rows,
}, null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), path.join(out, 'prob_scaling.json'))}`);
