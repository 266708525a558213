// Issue 18, parts 4 and 5, on the page (headless Chromium, dist/ served with its CSP):
//
//   long tasks   full attention, L = 2048, E = D = 16, trace "full" (three 2048 x 2048 maps): the
//                longest main-thread task Chromium's PerformanceObserver('longtask') saw (tasks of
//                50 ms or more; 0 = none) before the run (the 2 s before `setScenario`), during it
//                (from the call to the `trace` event) and after it (from the trace event to
//                `el.settled` and 1 s more), and the longest gap of a MessageChannel heartbeat over
//                the whole (finer than 50 ms). REPS runs after a warm-up; the worst of them.
//                On a loaded machine a task's wall time is mostly waiting for a core, so the
//                longest task's thread CPU time (Chrome's trace, `tdur` of the renderer main
//                thread's RunTask) is reported beside, during and after: the work itself.
//   parallel     full attention, L = 4096, E = D = 64, float64, trace "context": from `setScenario`
//                to the `trace` event with the page's workers (navigator.hardwareConcurrency, one
//                per core: worker/split.ts) and with one (hardwareConcurrency set to 1), against one
//                WASM call in node (wasm/attnplay.mjs) timed in the same run; medians of REPS after
//                a warm-up. speedup = one worker / N; page_vs_node = N workers / node. Two forms of
//                the inputs, each against node's call with the same form: `nested` (q, k, v nested
//                arrays, 786K numbers given to setScenario; node's call stringifies them, as the
//                page's worker does not: it sends them typed) and `seeded` (q, k, v seeded draws
//                {shape, random, seed}: each worker draws its own); node's call with typed inputs
//                (node_typed_ms) is reported beside, the core's time without the JSON.
//
// DIST=path times another build of the page (the long tasks of the tree before this change:
// DIST=/path/to/old/dist). Writes bench/results/page_long_runs.json. Never asserts a time.
//   node bench/page_long_runs.mjs [REPS=3] [L=2048] [L_PAR=4096]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from '../scripts/serve.mjs';
import { load } from '../wasm/attnplay.mjs';
import { machine, median, uniforms } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(process.argv.slice(2).filter((a) => a.includes('=')).map((a) => a.split('=')));
const REPS = Number(args.REPS ?? 3);
const L_LONG = Number(args.L ?? 2048);
const L_PAR = Number(args.L_PAR ?? 4096);
const dist = process.env.DIST ?? path.join(here, '..', 'dist');

const nested = (L, width, seed) => {
  const u = uniforms(L * width, seed);
  return [Array.from({ length: L }, (_, i) => [Array.from(u.subarray(i * width, (i + 1) * width), (x) => Math.round(x * 1000) / 1000)])];
};
const scenario = (L, E, trace, extra = {}) => ({ algorithm: 'full', max_flops: 1e15, trace, q: nested(L, E, 1), k: nested(L, E, 2), v: nested(L, E, 3), ...extra });
const typedOf = (s) => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Array.isArray(v)
  ? { shape: [1, v[0].length, 1, v[0][0][0].length], data: Float64Array.from(v[0].flat(2)) } : v]));

/** In the page: one setScenario, with the long tasks and the heartbeat's gaps of each phase.
 * `heartbeat` false: no heartbeat (the parallel part: the heartbeat's ping-pong keeps the main
 * thread busy, which on 2 cores takes CPU from the workers it times: 337 against 227-244 ms). */
const once = (page, s, heartbeat = true) => page.evaluate(async ([s, heartbeat]) => {
  const el = document.querySelector('attention-playground');
  const tasks = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push([e.startTime, e.duration]); });
  observer.observe({ type: 'longtask' });
  let last = performance.now(), gap = 0, on = true;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
    if (on) setTimeout(() => channel.port2.postMessage(0), 0);
  };
  if (heartbeat) channel.port2.postMessage(0);
  await new Promise((r) => setTimeout(r, 2000));
  const traced = new Promise((resolve) => el.addEventListener('trace', () => resolve(performance.now()), { once: true }));
  console.timeStamp('attnplay-t0');
  const t0 = performance.now();
  el.setScenario(s);
  const t1 = await traced;
  console.timeStamp('attnplay-t1');
  await el.settled;
  await new Promise((r) => setTimeout(r, 1000));
  const t2 = performance.now();
  console.timeStamp('attnplay-t2');
  on = false;
  channel.port1.close();
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();
  const max = (a, b) => Math.max(0, ...tasks.filter(([start]) => start >= a && start < b).map(([, d]) => d));
  const line = el.shadowRoot.querySelector('[data-field="long-run"]');
  return { before: max(t0 - 2000, t0), during: max(t0, t1), after: max(t1, t2 + 50), gap: Math.max(gap, t2 - last),
    trace_ms: t1 - t0, mode: line?.dataset.mode ?? 'page', workers: Number(line?.dataset.workers) || 1 };
}, [s, heartbeat]);

/** `once` under Chrome's trace: with the longest main-thread task's thread CPU time (ms) during
 * (setScenario to the trace event) and after (to settled and 1 s more). */
async function traced(page, s) {
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', 'devtools.timeline'] } });
  const run = await once(page, s);
  await cdp.send('Tracing.end');
  await complete;
  await cdp.detach();
  const mark = (m) => events.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === m);
  const [t0, t1, t2] = ['attnplay-t0', 'attnplay-t1', 'attnplay-t2'].map(mark);
  const tasks = events.filter((e) => e.pid === t0.pid && e.tid === t0.tid && e.ph === 'X' && /RunTask$/.test(e.name));
  // a task's thread time is at most its wall time: some VMs' thread clocks report more (tdur 175.8 ms
  // for a task of 0.0 ms), which is not work
  const cpu = (a, b) => Math.max(0, ...tasks.filter((e) => e.ts + e.dur > a && e.ts < b).map((e) => Math.min(e.tdur ?? 0, e.dur) / 1000));
  return { ...run, during_cpu: cpu(t0.ts, t1.ts), after_cpu: cpu(t1.ts, t2.ts) };
}

const setCores = (page, n) => page.evaluate((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => n, configurable: true }), n);
const round = (x) => Math.round(x * 10) / 10;

const PART = args.PART ?? 'all';  // long | parallel | all

async function main() {
  const wasm = await load();
  const server = createServer(dist);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnplay-bench-'));
  const context = await chromium.launchPersistentContext(userDir, { executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'], viewport: { width: 1400, height: 1000 } });
  const page = context.pages()[0] ?? await context.newPage();
  const result = { date: new Date().toISOString(), dist, machine: machine(), reps: REPS };
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/#preset=softmax-toy`);
    await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
    await page.waitForTimeout(1500); // the whole module (it follows the first trace)
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);

    // long tasks around an L = 2048 trace "full" run
    const s = scenario(L_LONG, 16, 'full');
    if (PART !== 'parallel') {
      await once(page, { ...s, seed: 99 });  // warm-up: the workers start and compile
      const runs = [];
      for (let r = 0; r < REPS; r++) runs.push(await traced(page, { ...s, seed: r }));
      result.long_tasks = { L: L_LONG, E: 16, D: 16, trace: 'full', workers: runs[0].workers, mode: runs[0].mode,
        before_max_ms: round(Math.max(...runs.map((x) => x.before))), during_max_ms: round(Math.max(...runs.map((x) => x.during))),
        after_max_ms: round(Math.max(...runs.map((x) => x.after))), heartbeat_gap_max_ms: round(Math.max(...runs.map((x) => x.gap))),
        during_max_cpu_ms: round(Math.max(...runs.map((x) => x.during_cpu))), after_max_cpu_ms: round(Math.max(...runs.map((x) => x.after_cpu))), load: os.loadavg(),
        trace_ms_median: round(median(runs.map((x) => x.trace_ms))), runs: runs.map((x) => Object.fromEntries(Object.entries(x).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v]))) };
      console.log(`long tasks, L = ${L_LONG} trace "full" (${runs[0].mode}, ${runs[0].workers} workers): before ${result.long_tasks.before_max_ms} ms, ` +
        `during ${result.long_tasks.during_max_ms} ms, after ${result.long_tasks.after_max_ms} ms (0 = no task of 50 ms or more); ` +
        `longest task's CPU: during ${result.long_tasks.during_max_cpu_ms} ms, after ${result.long_tasks.after_max_cpu_ms} ms; ` +
        `heartbeat's longest gap ${result.long_tasks.heartbeat_gap_max_ms} ms; trace after ${result.long_tasks.trace_ms_median} ms (load ${os.loadavg()[0].toFixed(1)})`);
    }
    if (PART !== 'long') {
      // L = 4096 float64 trace "context": the page with N workers and with one, against node
      const p = scenario(L_PAR, 64, 'context');
      const typed = typedOf(p);
      const draw = (seed) => ({ shape: [1, L_PAR, 1, 64], random: 'normal', seed });
      const seeded = (r) => ({ algorithm: 'full', max_flops: 1e15, trace: 'context', q: draw(3 * r), k: draw(3 * r + 1), v: draw(3 * r + 2) });
      const nodeCall = { typed: () => wasm.run(typed, { typed: true }), nested: () => wasm.run(p, { typed: true }), seeded: () => wasm.run(seeded(0), { typed: true }) };
      const node = { typed: [], nested: [], seeded: [] };
      const timeNode = () => {
        for (const [form, call] of Object.entries(nodeCall)) {
          for (let r = 0; r < REPS; r++) {
            const t0 = performance.now();
            call();
            node[form].push(performance.now() - t0);
          }
        }
      };
      Object.values(nodeCall).forEach((call) => call());
      timeNode();
      const pages = { nested: { 1: [], [cores]: [] }, seeded: { 1: [], [cores]: [] } };
      for (const form of ['nested', 'seeded']) {
        for (const n of [1, cores]) {
          await setCores(page, n);
          const make = (r) => (form === 'nested' ? { ...p, seed: r } : seeded(r));
          await once(page, make(100 + n), false);  // warm-up with n workers
          for (let r = 0; r < REPS; r++) pages[form][n].push((await once(page, make(10 * n + r), false)).trace_ms);
        }
      }
      timeNode();  // node again, after the page: the machine's load moves
      result.parallel = { L: L_PAR, E: 64, D: 64, dtype: 'float64', trace: 'context', workers: cores, load: os.loadavg(),
        node_typed_ms: round(median(node.typed)), node_typed_runs: node.typed.map(round) };
      for (const form of ['nested', 'seeded']) {
        const n1 = median(pages[form][1]), nN = median(pages[form][cores]), nd = median(node[form]);
        result.parallel[form] = { node_ms: round(nd), page_1_worker_ms: round(n1), page_n_workers_ms: round(nN),
          speedup: Math.round(n1 / nN * 100) / 100, page_vs_node: Math.round(nN / nd * 100) / 100, page_vs_node_typed: Math.round(nN / median(node.typed) * 100) / 100,
          node_runs: node[form].map(round), page_1_runs: pages[form][1].map(round), page_n_runs: pages[form][cores].map(round) };
        const x = result.parallel[form];
        console.log(`L = ${L_PAR} float64 trace "context", ${form}: node ${x.node_ms} ms (typed ${result.parallel.node_typed_ms}); page ${x.page_1_worker_ms} ms with 1 worker, ` +
          `${x.page_n_workers_ms} ms with ${cores}: speedup ${x.speedup}, page / node ${x.page_vs_node} (page / node typed ${x.page_vs_node_typed})`);
      }
    }
  } finally {
    await context.close();
    server.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', process.env.BENCH_OUT ?? 'page_long_runs.json'), JSON.stringify(result, null, 2) + '\n');
}

await main();
