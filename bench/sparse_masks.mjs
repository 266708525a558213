// Sparse masks through the fused kernel's tiles (seed 002, issue 18 part 6): full attention under
// local, atrous, strided and causal masks against no mask, WASM and native, L = 1024 .. 4096,
// float64 and float32.
//
//   node bench/sparse_masks.mjs          (or `npm run bench`, which builds first)
//   BENCH_LENGTHS=4096  BENCH_DTYPES=float64  BENCH_ROUNDS=3  BENCH_OUT=dir
//   ATTNPLAY_LOADER=path/to/attnplay.mjs  ATTNPLAY_NATIVE_BIN=path/to/attnplay_bench  (another build)
//
// One batch item, one head, E = D = 64, trace "context", typed tensors. wasm = run() of
// wasm/attnplay.mjs (the whole call); native = attnplay_bench (bench/native/full_attention_bench.cpp,
// built here on demand), timed in-process. ms = best of n after a warm-up, over rounds in which the
// masks and the engines take turns. For each mask: the allowed pairs (the trace's dot_products),
// the pair ratio (dense pairs / allowed pairs), the speedup over no mask, and the time per allowed
// pair against no mask's time per pair: `per pair / dense` = pair ratio / speedup. The goal (issue
// 18): at most 2 at L = 4096, i.e. a speedup of at least half the pair ratio. Prints a table and
// writes bench/results/sparse_masks.{json,md}. Nothing is asserted.
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
function nativeTime(L, dtype, mask, reps) {
  if (!nativeBin || !existsSync(nativeBin)) return null;
  const args = [String(L), String(E), String(D), String(reps), dtype, ...(mask.kind === 'none' ? [] : [maskArg(mask)])];
  const r = spawnSync(nativeBin, args, { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return JSON.parse(r.stdout).ms;  // (its best of reps)
}

const rows = [];
for (const L of lengths) {
  const shape = (d) => [1, L, 1, d];
  const q = uniforms(L * E, L + 1), k = uniforms(L * E, L + 2), v = uniforms(L * D, L + 3);
  for (const dtype of dtypes) {
    const reps = L <= 1024 ? 7 : L <= 2048 ? 4 : 3;
    const samples = masks.map(() => ({ wasm: [], native: [], cost: null }));
    for (let round = 0; round < rounds; round++)
      masks.forEach(({ mask }, m) => {
        const scenario = { algorithm: 'full', trace: 'context', dtype, max_flops: 1e15, mask,
          q: { shape: shape(E), data: q }, k: { shape: shape(E), data: k }, v: { shape: shape(D), data: v } };
        const w = wasmTime(scenario, mask.kind === 'none' ? reps : 2 * reps);
        samples[m].wasm.push(...w.ms);
        samples[m].cost = w.trace.cost;
        const n = nativeTime(L, dtype, mask, mask.kind === 'none' ? reps : 2 * reps);
        if (n !== null) samples[m].native.push(n);
      });
    const best = (xs) => (xs.length ? Math.min(...xs) : null);
    const none = { wasm: best(samples[0].wasm), native: best(samples[0].native) };
    masks.forEach(({ name }, m) => {
      const { dot_products: pairs, dense_dot_products: dense } = samples[m].cost;
      const row = { L, dtype, mask: name, pairs, dense_pairs: dense, pair_ratio: dense / pairs };
      for (const engine of ['wasm', 'native']) {
        const ms = best(samples[m][engine]);
        if (ms === null || none[engine] === null) continue;
        const ns = (ms * 1e6) / pairs, dense_ns = (none[engine] * 1e6) / dense;
        row[engine] = { ms, median_ms: median(samples[m][engine]), speedup: none[engine] / ms, ns_per_pair: ns,
          per_pair_vs_dense: ns / dense_ns };
      }
      rows.push(row);
    });
  }
}

const fmt = (x, d) => (x === undefined ? 'n/a' : x.toFixed(d));
const cells = (e) => (e ? [fmt(e.ms, 2), fmt(e.speedup, 1), fmt(e.ns_per_pair, 2), fmt(e.per_pair_vs_dense, 2)] : ['n/a', 'n/a', 'n/a', 'n/a']);
const table = markdownTable(
  ['L', 'dtype', 'mask', 'pair ratio', 'wasm ms', 'wasm speedup', 'wasm ns/pair', 'wasm per pair / dense',
    'native ms', 'native speedup', 'native ns/pair', 'native per pair / dense'],
  rows.map((r) => [r.L, r.dtype, r.mask, fmt(r.pair_ratio, 1), ...cells(r.wasm), ...cells(r.native)]));
const info = machine();
const text = `Full attention under sparse masks, B = H = 1, E = D = ${E}, trace "context", best of n over ${rounds} rounds; ` +
  `${info.summary}\n\n${table}\n\npair ratio: dense pairs / allowed pairs; speedup: no mask's time / the mask's; ` +
  'per pair / dense: time per allowed pair / no mask\'s time per pair (= pair ratio / speedup; the goal: at most 2).\n';
console.log(text);

const out = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'sparse_masks.md'), text);
writeFileSync(path.join(out, 'sparse_masks.json'), JSON.stringify({
  benchmark: 'sparse_masks', machine: info, date: new Date().toISOString(),
  config: { B: 1, H: 1, E, D, trace: 'context', rounds, statistic: 'best of n after a warm-up (min) over rounds; median also recorded',
    loader: path.relative(root, loaderPath), native_bin: nativeBin && path.relative(root, nativeBin) },
  rows,
}, null, 2) + '\n');
console.log(`wrote ${path.relative(root, out)}/sparse_masks.{json,md}`);
process.exit(0);
