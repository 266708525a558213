// Full attention softmax(Q K^T / sqrt(E)) V, one batch item, one head, E = D = 64, float32 and
// float64, L = 128 .. 2048, in one run on the same inputs, for:
//   wasm     the project's WASM module (wasm/attnplay.mjs, run() with typed tensors, trace "context":
//            the whole call, JSON and copies across the boundary included)
//   native   the project's native build, timed in-process (bench/native/full_attention_bench.cpp,
//            CMake target attnplay_bench, built here on demand: no process start, no JSON)
//   ort      onnxruntime-web, wasm backend, 1 thread; the graph MatMul(Q, K^T), Mul(scale), Softmax,
//            MatMul(., V) is written here as ONNX protobuf (K^T is fed transposed, in its favour)
//   tfjs     @tensorflow/tfjs-backend-wasm (XNNPACK), explicit transpose (transposeB leaves XNNPACK);
//            float32 only (tfjs has no float64)
//   js       plain JS loops over Float32Array / Float64Array, K transposed first
// ms = best of n runs after a warm-up (the median is in the JSON), over BENCH_ROUNDS rounds (5) in
// which the engines take turns; GFLOP/s = 2 L^2 (E + D) / time.
// Nothing is asserted: a benchmark fails only if it cannot run.
//
//   node bench/full_attention.mjs        (npm run bench builds first)
//   ATTNPLAY_LOADER=path/to/attnplay.mjs ATTNPLAY_NATIVE_BUILD=build/other  (another build's module / folder)
//   ATTNPLAY_NATIVE_BIN=path/to/attnplay_bench  (a prebuilt timer, not rebuilt)
//   BENCH_LENGTHS=512,2048  BENCH_OUT=dir  (other lengths; results elsewhere than bench/results)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { uniforms, median, machine, markdownTable } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
const E = 64, D = 64;
const lengths = (process.env.BENCH_LENGTHS ?? '128,512,1024,2048').split(',').map(Number);
const dtypes = ['float32', 'float64'];
const flops = (L) => 2 * L * L * (E + D);
const repsFor = (L) => (L <= 128 ? 41 : L <= 512 ? 21 : L <= 1024 ? 9 : 5);

function timeIt(fn, reps) {
  for (let r = 0; r < 3; r++) fn();  // warm-up
  const ms = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return { ms: Math.min(...ms), median_ms: median(ms) };
}
async function timeAsync(fn, reps) {
  await fn();
  const ms = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { ms: Math.min(...ms), median_ms: median(ms) };
}

function inputs(L) {
  const q = uniforms(L * E, L + 1), k = uniforms(L * E, L + 2), v = uniforms(L * D, L + 3);
  const kt = new Float64Array(E * L);
  for (let j = 0; j < L; j++) for (let e = 0; e < E; e++) kt[e * L + j] = k[j * E + e];
  const f32 = (a) => Float32Array.from(a);
  return { float64: { q, k, v, kt }, float32: { q: f32(q), k: f32(k), v: f32(v), kt: f32(kt) } };
}

// ---- the project's WASM ----
const loaderPath = process.env.ATTNPLAY_LOADER ? path.resolve(process.env.ATTNPLAY_LOADER) : path.join(root, 'wasm', 'attnplay.mjs');
const { load } = await import(pathToFileURL(loaderPath).href);
const project = await load();
function wasmRun(x, L, dtype) {
  return project.run({
    algorithm: 'full', trace: 'context', dtype, max_flops: 1e15,  // past the core's budget (docs/semantics.md)
    q: { shape: [1, L, 1, E], data: x.q }, k: { shape: [1, L, 1, E], data: x.k }, v: { shape: [1, L, 1, D], data: x.v },
  }, { typed: true });
}

// ---- native, in-process ----
const nativeDir = path.resolve(root, process.env.ATTNPLAY_NATIVE_BUILD ?? 'build/native');
let nativeBin = process.env.ATTNPLAY_NATIVE_BIN ? path.resolve(process.env.ATTNPLAY_NATIVE_BIN) : path.join(nativeDir, 'attnplay_bench');
if (!process.env.ATTNPLAY_NATIVE_BIN) {
  const r = spawnSync('cmake', ['--build', nativeDir, '--target', 'attnplay_bench', '-j', '1'], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`native: cannot build attnplay_bench in ${nativeDir}:\n${r.stdout}${r.stderr}`);
    nativeBin = null;
  }
}
function nativeTime(L, dtype, reps) {
  if (!nativeBin || !existsSync(nativeBin)) return null;
  const r = spawnSync(nativeBin, [String(L), String(E), String(D), String(reps), dtype], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return JSON.parse(r.stdout);
}

// ---- onnxruntime-web: a hand-written ONNX protobuf ----
const pb = {
  varint(n) {
    const out = [];
    let x = BigInt(n);
    if (x < 0n) x += 1n << 64n;
    do {
      let b = Number(x & 0x7fn);
      x >>= 7n;
      if (x) b |= 0x80;
      out.push(b);
    } while (x);
    return out;
  },
  key: (field, wire) => pb.varint((field << 3) | wire),
  int: (field, n) => [...pb.key(field, 0), ...pb.varint(n)],
  bytes: (field, bytes) => [...pb.key(field, 2), ...pb.varint(bytes.length), ...bytes],
  str: (field, s) => pb.bytes(field, [...new TextEncoder().encode(s)]),
};
function onnxAttention(L, elemType, scale) {  // elemType 1 = float, 11 = double
  const valueInfo = (field, name, dims) => pb.bytes(field, [
    ...pb.str(1, name),
    ...pb.bytes(2, pb.bytes(1, [...pb.int(1, elemType), ...pb.bytes(2, dims.flatMap((d) => pb.bytes(1, pb.int(1, d))))])),
  ]);
  const node = (inputs, output, op, attrs = []) => pb.bytes(1, [
    ...inputs.flatMap((i) => pb.str(1, i)), ...pb.str(2, output), ...pb.str(3, output), ...pb.str(4, op), ...attrs]);
  const raw = elemType === 1 ? new Uint8Array(new Float32Array([scale]).buffer) : new Uint8Array(new Float64Array([scale]).buffer);
  const scaleTensor = pb.bytes(5, [...pb.int(2, elemType), ...pb.str(8, 'scale'), ...pb.bytes(9, [...raw])]);
  const graph = [
    ...node(['Q', 'KT'], 'S', 'MatMul'),
    ...node(['S', 'scale'], 'S2', 'Mul'),
    ...node(['S2'], 'P', 'Softmax', pb.bytes(5, [...pb.str(1, 'axis'), ...pb.int(3, -1), ...pb.int(20, 2)])),
    ...node(['P', 'V'], 'O', 'MatMul'),
    ...pb.str(2, 'attention'),
    ...scaleTensor,
    ...valueInfo(11, 'Q', [L, E]), ...valueInfo(11, 'KT', [E, L]), ...valueInfo(11, 'V', [L, D]),
    ...valueInfo(12, 'O', [L, D]),
  ];
  return new Uint8Array([...pb.int(1, 8), ...pb.bytes(8, [...pb.str(1, ''), ...pb.int(2, 13)]), ...pb.bytes(7, graph)]);
}
let ort = null;
try {
  ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
} catch (e) {
  console.error(`onnxruntime-web unavailable: ${e.message}`);
}
async function ortSession(L, dtype) {
  if (!ort) return null;
  try {
    const session = await ort.InferenceSession.create(onnxAttention(L, dtype === 'float32' ? 1 : 11, 1 / Math.sqrt(E)),
      { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    return session;
  } catch (e) {
    console.error(`onnxruntime-web ${dtype} L=${L}: ${e.message}`);
    return null;
  }
}

// ---- tfjs-backend-wasm ----
let tf = null;
try {
  tf = await import('@tensorflow/tfjs-core');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount?.(1);
  wasm.setWasmPaths(path.join(root, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist') + path.sep);
  await tf.setBackend('wasm');
  await tf.ready();
} catch (e) {
  console.error(`tfjs-backend-wasm unavailable: ${e.message}`);
  tf = null;
}

// ---- plain JS ----
function jsAttention(x, L, Arr) {
  const s = new Arr(L), out = new Arr(L * D), scale = 1 / Math.sqrt(E);
  for (let i = 0; i < L; i++) {
    s.fill(0);
    for (let e = 0; e < E; e++) {
      const qe = x.q[i * E + e], row = e * L;
      for (let j = 0; j < L; j++) s[j] += qe * x.kt[row + j];
    }
    let m = -Infinity;
    for (let j = 0; j < L; j++) { s[j] *= scale; if (s[j] > m) m = s[j]; }
    let sum = 0;
    for (let j = 0; j < L; j++) { s[j] = Math.exp(s[j] - m); sum += s[j]; }
    const o = i * D;
    for (let j = 0; j < L; j++) {
      const w = s[j] / sum, vr = j * D;
      for (let d = 0; d < D; d++) out[o + d] += w * x.v[vr + d];
    }
  }
  return out;
}

// warm-up: V8 compiles wasm with Liftoff first and tiers hot functions up in the background
{
  const x = inputs(512);
  for (let r = 0; r < 5; r++) for (const dtype of dtypes) wasmRun(x[dtype], 512, dtype);
}
const rows = [];
const maxErr = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
// Each engine is timed in `rounds` rounds, the engines taking turns (WASM, native, onnxruntime-web,
// tfjs, again), so that a busy moment of the machine hits every engine alike rather than one of
// them; ms = the best run of all rounds, median_ms = the median of the rounds' medians.
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const merge = (samples) => (samples.length ? { ms: Math.min(...samples.map((t) => t.ms)), median_ms: median(samples.map((t) => t.median_ms)) } : null);
for (const L of lengths) {
  const x = inputs(L);
  for (const dtype of dtypes) {
    const xi = x[dtype], reps = repsFor(L);
    const row = { L, dtype, gflop: flops(L) / 1e9 };
    const reference = wasmRun(x.float64, L, 'float64').context.data;
    // the engines, ready to run
    const engines = { wasm: () => wasmRun(xi, L, dtype) };
    const session = await ortSession(L, dtype);
    let feeds = null;
    if (session) {
      const T = dtype === 'float32' ? 'float32' : 'float64';
      feeds = { Q: new ort.Tensor(T, xi.q, [L, E]), KT: new ort.Tensor(T, xi.kt, [E, L]), V: new ort.Tensor(T, xi.v, [L, D]) };
      engines.ort = () => session.run(feeds);
    }
    let tq = null, tk = null, tv = null, tfAttend = null;
    if (tf && dtype === 'float32') {  // (float32 only)
      tq = tf.tensor2d(xi.q, [L, E]); tk = tf.tensor2d(xi.k, [L, E]); tv = tf.tensor2d(xi.v, [L, D]);
      tfAttend = () => tf.tidy(() => tf.matMul(tf.softmax(tf.mul(tf.matMul(tq, tf.transpose(tk)), tf.scalar(1 / Math.sqrt(E)))), tv));
      engines.tfjs = () => { const o = tfAttend(); o.dataSync(); o.dispose(); };
    }
    const samples = { wasm: [], native: [], ort: [], tfjs: [] };
    for (let round = 0; round < rounds; round++) {
      samples.wasm.push(timeIt(engines.wasm, reps));
      const n = nativeTime(L, dtype, reps);
      if (n) samples.native.push(n);
      if (engines.ort) {
        try {
          samples.ort.push(await timeAsync(engines.ort, reps));
        } catch (e) {
          console.error(`onnxruntime-web ${dtype} L=${L}: ${e.message}`);
          delete engines.ort;
        }
      }
      if (engines.tfjs) samples.tfjs.push(timeIt(engines.tfjs, reps));
    }
    row.wasm = { ...merge(samples.wasm), max_abs_error: maxErr(wasmRun(xi, L, dtype).context.data, reference) };
    row.native = merge(samples.native);
    row.ort = engines.ort && samples.ort.length ? { ...merge(samples.ort), max_abs_error: maxErr((await session.run(feeds)).O.data, reference) } : null;
    if (session) await session.release?.();
    if (engines.tfjs) {
      const o = tfAttend();
      row.tfjs = { ...merge(samples.tfjs), max_abs_error: maxErr(o.dataSync(), reference) };
      o.dispose(); tq.dispose(); tk.dispose(); tv.dispose();
    } else row.tfjs = null;
    // plain JS (fewer runs, once: it is slow)
    const Arr = dtype === 'float32' ? Float32Array : Float64Array;
    row.js = timeIt(() => jsAttention(xi, L, Arr), L >= 1024 ? 1 : 3);
    for (const e of ['wasm', 'native', 'ort', 'tfjs', 'js']) if (row[e]) row[e].gflops = row.gflop / (row[e].ms / 1e3);
    rows.push(row);
    const show = (e) => (row[e] ? `${e} ${row[e].ms.toFixed(2)} ms` : `${e} n/a`);
    console.log(`L=${L} ${dtype}: ${['wasm', 'native', 'ort', 'tfjs', 'js'].map(show).join(', ')}`);
  }
}

// the fixed cost of one wasm call (JSON, copies): L = 4
const tiny = inputs(4).float64;
const overhead = timeIt(() => project.run({ algorithm: 'full', trace: 'context', q: { shape: [1, 4, 1, E], data: tiny.q },
  k: { shape: [1, 4, 1, E], data: tiny.k }, v: { shape: [1, 4, 1, D], data: tiny.v } }, { typed: true }), 31);

const engines = [['wasm', 'project WASM'], ['native', 'project native'], ['ort', 'onnxruntime-web'], ['tfjs', 'tfjs-wasm'], ['js', 'plain JS']];
const cell = (r) => (r ? `${r.ms.toFixed(2)} (${r.gflops.toFixed(1)})` : 'n/a');
const table = markdownTable(
  ['L', 'dtype', ...engines.map(([, name]) => name), 'WASM / best peer', 'WASM / native'],
  rows.map((r) => {
    const peers = [r.ort, r.tfjs].filter(Boolean).map((p) => p.ms);
    return [r.L, r.dtype, ...engines.map(([e]) => cell(r[e])),
      peers.length ? (r.wasm.ms / Math.min(...peers)).toFixed(2) : 'n/a',
      r.native ? (r.wasm.ms / r.native.ms).toFixed(2) : 'n/a'];
  }));
const f64over32 = lengths.map((L) => {
  const a = rows.find((r) => r.L === L && r.dtype === 'float32'), b = rows.find((r) => r.L === L && r.dtype === 'float64');
  return `L=${L}: ${(b.wasm.ms / a.wasm.ms).toFixed(2)}`;
}).join(', ');
const info = machine();
const text = `Full attention, B = H = 1, E = D = ${E}, ms (GFLOP/s), best of n; ${info.summary}\n\n${table}\n\n` +
  `WASM float64 / float32: ${f64over32}. Fixed cost of one WASM call (L = 4): ${overhead.ms.toFixed(3)} ms, included above.\n`;
console.log('\n' + text);

const out = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'full_attention.md'), text);
writeFileSync(path.join(out, 'full_attention.json'), JSON.stringify({
  benchmark: 'full_attention', machine: info, date: new Date().toISOString(),
  config: { B: 1, H: 1, E, D, trace: 'context', rounds, statistic: 'best of n after a warm-up (min) over rounds in which the engines take turns; median also recorded',
    loader: path.relative(root, loaderPath), native_build: path.relative(root, nativeDir), native_bin: nativeBin && path.relative(root, nativeBin) },
  wasm_call_overhead_ms: overhead.ms, rows,
}, null, 2) + '\n');
console.log(`wrote ${path.relative(root, out)}/full_attention.{json,md}`);
process.exit(0);
