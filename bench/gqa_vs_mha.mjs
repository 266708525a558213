// Grouped-query attention costs the kernel no more than multi-head attention with the same query
// heads (issue 16, part 4): the fused kernel reads query head h's kv head h // (H / H_kv) by index
// (Llama's repeat_kv, never materialised), so GQA and MQA do the same products as MHA on a smaller
// k and v. Through the WASM module, full attention at trace "context", typed tensors:
//
//   node bench/gqa_vs_mha.mjs          (or `npm run bench`, which builds first)
//
// H = 8 query heads, E = D = 64, B = 1, L = 512 and 1024, causal and no mask; H_kv = 8 (MHA), 2
// (GQA, groups of 4) and 1 (MQA). For each: the best and median wall time of several runs, the
// ratio to MHA at the same L and mask (<= 1 + noise is the claim), the trace's dot products (equal
// for every H_kv) and its cost.kv_cache_numbers (H_kv / H of MHA's). Prints a table and the ratios,
// and writes bench/results/gqa_vs_mha.json. Nothing is asserted (no timing asserts).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../wasm/attnplay.mjs';
import { machine, time, uniforms } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const H = 8, E = 64, D = 64;
const lengths = (process.env.GQA_LENGTHS ?? '512,1024').split(',').map(Number);
const reps = Number(process.env.GQA_REPS ?? 5);
const kvHeads = [8, 2, 1];
const masks = [{ name: 'none', mask: { kind: 'none' } }, { name: 'causal', mask: { kind: 'causal' } }];

const { run } = await load();
const rows = [];
for (const L of lengths)
  for (const { name, mask } of masks) {
    const q = { shape: [1, L, H, E], data: uniforms(L * H * E, L + 1) };
    let mha = null;
    // interleaved order (MHA, GQA, MQA, then again) so that a slow moment of the machine hits all three
    const runs = new Map(kvHeads.map((Hk) => [Hk, []]));
    const scenarios = new Map(kvHeads.map((Hk) => [Hk, {
      algorithm: 'full', trace: 'context', max_flops: 1e15, mask, q,
      k: { shape: [1, L, Hk, E], data: uniforms(L * Hk * E, L + 2) },
      v: { shape: [1, L, Hk, D], data: uniforms(L * Hk * D, L + 3) },
    }]));
    for (let r = 0; r < 2; r++)
      for (const Hk of kvHeads) runs.get(Hk).push(time(run, scenarios.get(Hk), Math.ceil(reps / 2)));
    for (const Hk of kvHeads) {
      const best = runs.get(Hk).reduce((a, b) => (b.ms < a.ms ? b : a));
      const median_ms = runs.get(Hk).reduce((a, x) => a + x.median_ms, 0) / runs.get(Hk).length;  // the rounds' medians, averaged
      const { dot_products, kv_cache_numbers } = best.trace.cost;
      const row = { L, mask: name, H, H_kv: Hk, form: Hk === H ? 'MHA' : Hk === 1 ? 'MQA' : 'GQA', ms: best.ms, median_ms,
        dot_products, kv_cache_numbers };
      if (Hk === H) mha = row;
      row.ratio_to_mha = row.ms / mha.ms;
      row.products_equal_mha = dot_products === mha.dot_products;
      rows.push(row);
    }
  }

const pad = (s, n) => String(s).padStart(n);
console.log(`full attention, WASM, B = 1, H = ${H} query heads, E = D = ${E}, trace "context" (best of ${reps}, ms)`);
console.log([pad('L', 5), pad('mask', 7), pad('form', 5), pad('H_kv', 5), pad('ms', 9), pad('÷ MHA', 7), pad('products', 10), pad('kv cache', 9)].join(' '));
for (const r of rows)
  console.log([pad(r.L, 5), pad(r.mask, 7), pad(r.form, 5), pad(r.H_kv, 5), pad(r.ms.toFixed(2), 9), pad(r.ratio_to_mha.toFixed(3), 7),
    pad(r.dot_products, 10), pad(r.kv_cache_numbers, 9)].join(' '));
const worst = Math.max(...rows.filter((r) => r.H_kv !== H).map((r) => r.ratio_to_mha));
console.log(`GQA/MQA time ÷ MHA time: at most ${worst.toFixed(3)} (the same products: ${rows.every((r) => r.products_equal_mha)}; `
  + 'the kv cache H_kv / H of MHA\'s)');
const m = machine();
console.log(`machine: ${m.summary}`);

const out = path.join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'gqa_vs_mha.json'), JSON.stringify({ machine: m, H, E, D, reps, rows, worst_ratio: worst }, null, 2) + '\n');
console.log('written bench/results/gqa_vs_mha.json');
