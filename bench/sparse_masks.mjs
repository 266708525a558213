// Sparse masks computed sparsely (seed 002): full attention under local, atrous, strided and
// causal masks against no mask, through the WASM module, L = 1024 .. 4096.
//
//   node bench/sparse_masks.mjs          (or `npm run bench`, which builds first)
//
// One batch item, one head, E = D = 64, trace "context", typed tensors. For each L and mask: the
// best wall time of several runs, the speedup over no mask, and the cost the trace reports
// (dot products computed against dense). The claim to see: time follows cost, so a local window
// of 16 at L = 4096 (33 keys per query instead of 4096) runs tens of times faster than no mask.
// Prints a table and writes bench/results/sparse_masks.json. Nothing is asserted.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../wasm/attnplay.mjs';
import { time, uniforms } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const E = 64, D = 64;
const lengths = [1024, 2048, 4096];
const masks = [
  { name: 'none', mask: { kind: 'none' } },
  { name: 'local w=16', mask: { kind: 'local', window: 16 } },
  { name: 'atrous k=64', mask: { kind: 'atrous', dilation: 64 } },
  { name: 'strided w=16 s=64', mask: { kind: 'strided', window: 16, stride: 64 } },
  { name: 'strided causal', mask: { kind: 'strided', window: 16, stride: 64, causal: true } },
  { name: 'causal', mask: { kind: 'causal' } },
];

const { run } = await load();
const rows = [];
for (const L of lengths) {
  const shape = (d) => [1, L, 1, d];
  const inputs = {
    algorithm: 'full', trace: 'context', max_flops: 1e15,
    q: { shape: shape(E), data: uniforms(L * E, L + 1) },
    k: { shape: shape(E), data: uniforms(L * E, L + 2) },
    v: { shape: shape(D), data: uniforms(L * D, L + 3) },
  };
  const reps = L <= 2048 ? 5 : 3;
  let none_ms = 0;
  for (const { name, mask } of masks) {
    const r = time(run, { ...inputs, mask }, name === 'none' ? reps : 2 * reps);
    if (name === 'none') none_ms = r.ms;
    const { dot_products, dense_dot_products } = r.trace.cost;
    rows.push({ L, mask: name, ms: r.ms, median_ms: r.median_ms, speedup: none_ms / r.ms, dot_products,
      dense_dot_products, cost_ratio: dense_dot_products / dot_products });
  }
}

const pad = (s, n) => String(s).padStart(n);
console.log(`full attention under sparse masks, WASM, B = H = 1, E = D = ${E}, trace "context" (best of n, ms)`);
console.log([pad('L', 5), pad('mask', 20), pad('ms', 9), pad('speedup', 8), pad('products', 10), pad('cost ratio', 11)].join(' '));
for (const r of rows) {
  console.log([pad(r.L, 5), pad(r.mask, 20), pad(r.ms.toFixed(2), 9), pad(r.speedup.toFixed(1), 8),
    pad(r.dot_products, 10), pad(r.cost_ratio.toFixed(1), 11)].join(' '));
}
console.log('speedup: time of no mask / time of the mask at the same L; cost ratio: dense / computed products');

const out = path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'sparse_masks.json'), JSON.stringify({
  benchmark: 'sparse_masks',
  engine: `node ${process.version}, wasm`,
  config: { B: 1, H: 1, E, D, trace: 'context', statistic: 'best of n (min); median also recorded' },
  date: new Date().toISOString(),
  rows,
}, null, 2) + '\n');
console.log(`wrote ${path.relative(process.cwd(), path.join(out, 'sparse_masks.json'))}`);
