// Sparse masks through the fused kernel's tiles (seed 002, issue 18 part 6): full attention under
// local, atrous, strided and causal masks against no mask, WASM and native, L = 1024 .. 4096,
// float64 and float32.
//
//   node bench/sparse_masks.mjs          (or `npm run bench`, which builds first)
//   BENCH_LENGTHS=4096  BENCH_DTYPES=float64  BENCH_ROUNDS=3  BENCH_OUT=dir
//   ATTNPLAY_LOADER=path/to/attnplay.mjs  ATTNPLAY_NATIVE_BIN=path/to/attnplay_bench  (another build)
//   ATTNPLAY_WASM_BENCH=path/to/attnplay_bench.cjs  (another wasm build of the in-process timer)
//
// One batch item, one head, E = D = 64, trace "context", typed tensors. Three engines:
//   wasm call    run() of wasm/attnplay.mjs: the whole call (the inputs copied in, the scenario's
//                JSON, the kernel, the trace converted and copied out);
//   wasm kernel  the same kernel timed inside wasm (bench/native/full_attention_bench.cpp built to
//                wasm with the whole module's core objects, build/wasm/attnplay_bench.cjs, built here
//                on demand; V8's optimising tier from the start, --no-liftoff): what the goal is
//                about, as natively;
//   native       attnplay_bench (the same file built natively), timed in-process.
// ms = best of n after a warm-up, over rounds in which the masks and the engines take turns; the
// in-process timers also give the least CPU time of a repetition (cpu_ms), the figure to read on a
// loaded machine. For each mask: the allowed pairs (the trace's dot_products), the pair ratio
// (dense pairs / allowed pairs), the speedup over no mask, and the time per allowed pair against
// no mask's time per pair: `per pair / dense` = pair ratio / speedup (from the best wall times;
// `per_pair_vs_dense_cpu` in the JSON from the CPU times). The goal (issue 18): at most 2 at
// L = 4096, i.e. a speedup of at least half the pair ratio. Prints a table and writes
// bench/results/sparse_masks.{json,md}. Nothing is asserted.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machine, markdownTable, median, uniforms } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const E = 64, D = 64;
const lengths = (process.env.BENCH_LENGTHS ?? '1024,2048,4096').split(',').map(Number);
const dtypes = (process.env.BENCH_DTYPES ?? 'float64,float32').split(',');
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const masks = [
  { name: 'none', mask: { kind: 'none' } },
  { name: 'local w=16', mask: { kind: 'local', window: 16 } },
  { name: 'local w=64', mask: { kind: 'local', window: 64 } },
  { name: 'atrous k=64', mask: { kind: 'atrous', dilation: 64 } },
  { name: 'strided w=16 s=64', mask: { kind: 'strided', window: 16, stride: 64 } },
  { name: 'strided causal', mask: { kind: 'strided', window: 16, stride: 64, causal: true } },
  { name: 'causal', mask: { kind: 'causal' } },
];
// the native timer's spelling of a mask: kind,field=value,...,causal
const maskArg = (m) => [m.kind, ...Object.entries(m).filter(([k]) => k !== 'kind' && k !== 'causal').map(([k, v]) => `${k}=${v}`),
  ...(m.causal ? ['causal'] : [])].join(',');

// ---- the project's WASM ----
const loaderPath = process.env.ATTNPLAY_LOADER ? path.resolve(process.env.ATTNPLAY_LOADER) : path.join(root, 'wasm', 'attnplay.mjs');
const { load } = await import(pathToFileURL(loaderPath).href);
const { run } = await load();
function wasmTime(scenario, reps) {
  let trace = run(scenario, { typed: true });  // warm-up
  const ms = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    trace = run(scenario, { typed: true });
    ms.push(performance.now() - t0);
  }
  return { ms, trace };
}

// ---- native, in-process ----
let nativeBin = process.env.ATTNPLAY_NATIVE_BIN ? path.resolve(process.env.ATTNPLAY_NATIVE_BIN) : path.join(root, 'build/native/attnplay_bench');
if (!process.env.ATTNPLAY_NATIVE_BIN) {
  const r = spawnSync('cmake', ['--build', path.join(root, 'build/native'), '--target', 'attnplay_bench', '-j', '1'], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`native: cannot build attnplay_bench:\n${r.stdout}${r.stderr}`);
    nativeBin = null;
  }
}
// ---- wasm, in-process (the same timer built to wasm) ----
let wasmBench = process.env.ATTNPLAY_WASM_BENCH ? path.resolve(process.env.ATTNPLAY_WASM_BENCH) : path.join(root, 'build/wasm/attnplay_bench.cjs');
if (!process.env.ATTNPLAY_WASM_BENCH) {
  const r = spawnSync('cmake', ['--build', path.join(root, 'build/wasm'), '--target', 'attnplay_bench_wasm', '-j', '1'],
    { encoding: 'utf8', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  if (r.status !== 0) {
    console.error(`wasm kernel: cannot build attnplay_bench_wasm:\n${r.stdout}${r.stderr}`);
    wasmBench = null;
  }
}
// {ms, cpu_ms} of the timer (its best of reps), or null
function timerTime(command, args0, L, dtype, mask, reps) {
  if (!command || !existsSync(args0.length ? args0[args0.length - 1] : command)) return null;
  const args = [...args0, String(L), String(E), String(D), String(reps), dtype, ...(mask.kind === 'none' ? [] : [maskArg(mask)])];
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const { ms, cpu_ms } = JSON.parse(r.stdout.trim().split('\n').pop());
  return { ms, cpu_ms };
}
// --no-experimental-fetch: emscripten 3.1.6's loader cannot fetch its .wasm under node 20 (it reads
// the file instead). --no-liftoff: each timer is a fresh process whose reps may all run in V8's
// baseline tier (wasm tiers up per function, at its next call: 2.5x slower at L = 512); compiled by
// the optimising tier at once, the kernel runs as it does in a page after its first calls.
const wasmKernelTime = (...a) => wasmBench && timerTime(process.execPath, ['--no-experimental-fetch', '--no-liftoff', wasmBench], ...a);
const nativeTime = (...a) => nativeBin && timerTime(nativeBin, [], ...a);

const rows = [];
for (const L of lengths) {
  const shape = (d) => [1, L, 1, d];
  const q = uniforms(L * E, L + 1), k = uniforms(L * E, L + 2), v = uniforms(L * D, L + 3);
  for (const dtype of dtypes) {
    const reps = L <= 1024 ? 7 : L <= 2048 ? 4 : 3;
    const samples = masks.map(() => ({ wasm: [], wasm_kernel: [], native: [], wasm_kernel_cpu: [], native_cpu: [], cost: null }));
    for (let round = 0; round < rounds; round++)
      masks.forEach(({ mask }, m) => {
        const scenario = { algorithm: 'full', trace: 'context', dtype, max_flops: 1e15, mask,
          q: { shape: shape(E), data: q }, k: { shape: shape(E), data: k }, v: { shape: shape(D), data: v } };
        const w = wasmTime(scenario, mask.kind === 'none' ? reps : 2 * reps);
        samples[m].wasm.push(...w.ms);
        samples[m].cost = w.trace.cost;
        for (const [engine, timer] of [['wasm_kernel', wasmKernelTime], ['native', nativeTime]]) {
          const n = timer(L, dtype, mask, mask.kind === 'none' ? reps : 2 * reps);
          if (!n) continue;
          samples[m][engine].push(n.ms);
          samples[m][`${engine}_cpu`].push(n.cpu_ms);
        }
      });
    const best = (xs) => (xs.length ? Math.min(...xs) : null);
    const engines = ['wasm', 'wasm_kernel', 'native'];
    const none = Object.fromEntries(engines.flatMap((e) => [[e, best(samples[0][e])], [`${e}_cpu`, best(samples[0][`${e}_cpu`] ?? [])]]));
    masks.forEach(({ name }, m) => {
      const { dot_products: pairs, dense_dot_products: dense } = samples[m].cost;
      const row = { L, dtype, mask: name, pairs, dense_pairs: dense, pair_ratio: dense / pairs };
      for (const engine of engines) {
        const ms = best(samples[m][engine]);
        if (ms === null || none[engine] === null) continue;
        const ns = (ms * 1e6) / pairs, dense_ns = (none[engine] * 1e6) / dense;
        row[engine] = { ms, median_ms: median(samples[m][engine]), speedup: none[engine] / ms, ns_per_pair: ns,
          per_pair_vs_dense: ns / dense_ns };
        const cpu = best(samples[m][`${engine}_cpu`] ?? []);
        if (cpu !== null && none[`${engine}_cpu`]) {
          row[engine].cpu_ms = cpu;
          row[engine].per_pair_vs_dense_cpu = (cpu / pairs) / (none[`${engine}_cpu`] / dense);
        }
      }
      rows.push(row);
    });
  }
}

const fmt = (x, d) => (x === undefined ? 'n/a' : x.toFixed(d));
// per engine: ms, speedup, per pair / dense (wall), and for the in-process timers the same from CPU time
const cells = (e, cpu) => (e ? [fmt(e.ms, 2), fmt(e.speedup, 1), fmt(e.per_pair_vs_dense, 2), ...(cpu ? [fmt(e.per_pair_vs_dense_cpu, 2)] : [])]
  : Array(cpu ? 4 : 3).fill('n/a'));
const table = markdownTable(
  ['L', 'dtype', 'mask', 'pair ratio', 'wasm call ms', 'call speedup', 'call per pair / dense',
    'wasm kernel ms', 'kernel speedup', 'kernel per pair / dense', '(cpu)',
    'native ms', 'native speedup', 'native per pair / dense', '(cpu)'],
  rows.map((r) => [r.L, r.dtype, r.mask, fmt(r.pair_ratio, 1), ...cells(r.wasm, false), ...cells(r.wasm_kernel, true),
    ...cells(r.native, true)]));
const info = machine();
const text = `Full attention under sparse masks, B = H = 1, E = D = ${E}, trace "context", best of n over ${rounds} rounds; ` +
  `${info.summary}\n\n${table}\n\npair ratio: dense pairs / allowed pairs; speedup: no mask's time / the mask's; ` +
  'per pair / dense: time per allowed pair / no mask\'s time per pair (= pair ratio / speedup; the goal: at most 2); ' +
  '(cpu): the same from the least CPU time of a repetition. wasm call: run() of wasm/attnplay.mjs, the whole call; ' +
  'wasm kernel: the same kernel timed inside wasm (build/wasm/attnplay_bench.cjs); native: build/native/attnplay_bench.\n';
console.log(text);

const out = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'sparse_masks.md'), text);
writeFileSync(path.join(out, 'sparse_masks.json'), JSON.stringify({
  benchmark: 'sparse_masks', machine: info, date: new Date().toISOString(),
  config: { B: 1, H: 1, E, D, trace: 'context', rounds, statistic: 'best of n after a warm-up (min) over rounds; median also recorded',
    loader: path.relative(root, loaderPath), native_bin: nativeBin && path.relative(root, nativeBin),
    wasm_kernel_bin: wasmBench && path.relative(root, wasmBench),
    engines: { wasm: 'run() of wasm/attnplay.mjs: the whole call (inputs copied in, JSON, kernel, trace out)',
      wasm_kernel: 'the kernel timed inside wasm (attnplay_bench built to wasm from the whole module\'s core objects)',
      native: 'attnplay_bench, in-process' } },
  rows,
}, null, 2) + '\n');
console.log(`wrote ${path.relative(root, out)}/sparse_masks.{json,md}`);
process.exit(0);
