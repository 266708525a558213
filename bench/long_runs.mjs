// How long the page's main thread is blocked by one run of full attention as L grows, in headless
// Chromium (dist/ served with its CSP): the calibration of the page's "long run" threshold
// (web/src/state/long.ts; docs/performance.md, "Long runs off the main thread").
//
// For each L (E = D = 16 unless E= is given) and trace "full" / "context": `el.setScenario` of a
// full-attention scenario, after one warm-up at that size, REPS times; measured in the page:
//   sync     the setScenario call itself (what the edit's task costs: clone, estimate, run if it is
//            run on the page, the results drawn on screen)
//   trace    from the call to the element's `trace` event (a background run: the worker's time)
//   block    the longest gap between two ticks of a MessageChannel heartbeat from the call until
//            `el.settled` (the longest the page was frozen, the idle-time patches included)
// The core alone is timed in node too (wasm/attnplay.mjs, typed inputs, trace as asked).
// Writes bench/results/long_runs.json. Never asserts a time.
//   node bench/long_runs.mjs [L,L,...] [E=16] [REPS=3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/web/harness.mjs';
import { load } from '../wasm/attnplay.mjs';
import { median, uniforms } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).filter((a) => a.includes('=')).map((a) => a.split('=')));
const Ls = (process.argv.slice(2).find((a) => /^\d+(,\d+)*$/.test(a)) ?? '128,256,384,512,768,1024,1536,2048').split(',').map(Number);
const E = Number(args.E ?? 16);
const REPS = Number(args.REPS ?? 3);

function nested(L, width, seed) {
  const u = uniforms(L * width, seed);
  return [Array.from({ length: L }, (_, i) => [Array.from(u.subarray(i * width, (i + 1) * width), (x) => Math.round(x * 1000) / 1000)])];
}
const scenario = (L, trace) => ({ algorithm: 'full', max_flops: 1e15, trace, q: nested(L, E, 1), k: nested(L, E, 2), v: nested(L, E, 3) });

/** In the page: one setScenario, timed as above. */
const once = (page, s) => page.evaluate(async (s) => {
  const el = document.querySelector('attention-playground');
  let last = performance.now(), block = 0, on = true;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const now = performance.now();
    block = Math.max(block, now - last);
    last = now;
    if (on) setTimeout(() => channel.port2.postMessage(0), 0);
  };
  channel.port2.postMessage(0);
  await new Promise((r) => setTimeout(r, 20));
  const traced = new Promise((resolve) => el.addEventListener('trace', () => resolve(performance.now()), { once: true }));
  const t0 = performance.now();
  last = t0;
  el.setScenario(s);
  const sync = performance.now() - t0;
  const trace = (await traced) - t0;
  await el.settled;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  on = false;
  channel.port1.close();
  const status = el.shadowRoot.querySelector('[data-field="long-run"]')?.dataset.mode ?? 'sync';
  return { sync, trace, block: Math.max(block, performance.now() - last), mode: status };
}, s);

async function main() {
  const wasm = await load();
  const { page, base, close } = await launch();
  const rows = [];
  try {
    await page.goto(base + '#preset=softmax-toy');
    await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
    await page.waitForTimeout(1500); // the whole module (it follows the first trace)
    for (const trace of ['context', 'full']) {
      for (const L of Ls) {
        if (trace === 'full' && L > 2048) continue; // 3 x L^2 numbers as nested arrays: past 2048, hundreds of MB
        const s = scenario(L, trace);
        const typed = { ...s, q: { shape: [1, L, 1, E], data: Float64Array.from(s.q[0].flat(2)) },
          k: { shape: [1, L, 1, E], data: Float64Array.from(s.k[0].flat(2)) }, v: { shape: [1, L, 1, E], data: Float64Array.from(s.v[0].flat(2)) } };
        wasm.run(typed);
        const core = [];
        for (let r = 0; r < REPS; r++) { const t0 = performance.now(); wasm.run(typed); core.push(performance.now() - t0); }
        await once(page, { ...s, seed: 99 }); // warm-up at this size
        const runs = [];
        for (let r = 0; r < REPS; r++) runs.push(await once(page, { ...s, seed: r }));
        const row = { L, E, D: E, trace, cost: L * L * (2 * E), core_node_ms: median(core),
          sync_ms: median(runs.map((x) => x.sync)), trace_ms: median(runs.map((x) => x.trace)),
          block_ms: median(runs.map((x) => x.block)), mode: runs[0].mode };
        for (const k of Object.keys(row)) if (k.endsWith('_ms')) row[k] = Math.round(row[k] * 10) / 10;
        rows.push(row);
        console.log(`${trace.padEnd(8)} L=${String(L).padStart(6)}  core(node) ${String(row.core_node_ms).padStart(8)}  ` +
          `sync ${String(row.sync_ms).padStart(8)}  trace ${String(row.trace_ms).padStart(8)}  block ${String(row.block_ms).padStart(8)} ms  ${row.mode}`);
      }
    }
  } finally {
    await close();
  }
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'long_runs.json'), JSON.stringify({
    what: 'full attention, el.setScenario: sync call, to the trace event, longest main-thread gap; ms (medians)',
    reps: REPS, date: new Date().toISOString(), load: os.loadavg(), cpus: os.cpus().length, rows }, null, 2) + '\n');
}

await main();
