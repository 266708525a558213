// ProbAttention against full attention through the WASM module, L = 256 .. 4096.
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
import { load } from '../wasm/attnplay.mjs';
import { uniforms, time } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const E = 64, D = 64, factor = 5;
const lengths = [256, 512, 1024, 2048, 4096];

const { run } = await load();
// the fixed cost of one call (JSON, copies across the wasm boundary): prob at L = 4
const tiny = (d) => ({ shape: [1, 4, 1, d], data: uniforms(4 * d, 9) });
const overhead_ms = time(run, { algorithm: 'prob', factor, q: tiny(E), k: tiny(E), v: tiny(D), trace: 'context' }, 21).ms;
const rows = [];
for (const L of lengths) {
  const shape = (d) => [1, L, 1, d];
  const inputs = {
    q: { shape: shape(E), data: uniforms(L * E, L + 1) },
    k: { shape: shape(E), data: uniforms(L * E, L + 2) },
    v: { shape: shape(D), data: uniforms(L * D, L + 3) },
    trace: 'context',
  };
  const reps = L <= 1024 ? 7 : 3;
  const full = time(run, { algorithm: 'full', ...inputs }, reps);
  const prob = time(run, { algorithm: 'prob', factor, ...inputs }, Math.max(reps, 7));
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

const out = path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'prob_scaling.json'), JSON.stringify({
  benchmark: 'prob_scaling',
  engine: `node ${process.version}, wasm`,
  config: { B: 1, H: 1, E, D, factor, trace: 'context', statistic: 'best of n (min); median also recorded' },
  overhead_ms,
  date: new Date().toISOString(),
  rows,
}, null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), path.join(out, 'prob_scaling.json'))}`);
