// Issue 18 (seeded3): where an L = 4096 float64 trace "context" run of seeded draws spends CPU on the
// page, thread by thread, without tracing (which adds its own CPU): each Chromium thread's CPU time
// (/proc/<pid>/task/<tid>/stat, utime + stime, 10 ms ticks) from `setScenario` to the `trace` event,
// averaged over REPS runs after a warm-up, for one or several builds of the page alternated
// (DISTS=dist,/path/to/other/dist), and node's one WASM call (wall / CPU) between them. On a shared
// machine a run's wall time follows the load; the CPU per thread says what the page itself does
// (the workers' compute and draws, the main thread, the compositor, the browser process).
// Linux only. Never asserts a time.
//   DISTS=dist,.../main/dist node bench/page_split_cpu.mjs [REPS=3] [CORES=2] [L=4096]
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { chromium } from 'playwright-core';
import { createServer } from '../scripts/serve.mjs';
import { load } from '../wasm/attnplay.mjs';
const args = Object.fromEntries(process.argv.slice(2).filter((a) => a.includes('=')).map((a) => a.split('=')));
const dists = (process.env.DISTS ?? 'dist').split(',');
const CORES = Number(args.CORES ?? 2), REPS = Number(args.REPS ?? 3), L = Number(args.L ?? 4096);
const tick = 1000 / 100;  // ms per clock tick (CLK_TCK 100)
const descendants = (root) => {
  const kids = new Map();
  for (const p of fs.readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try { const st = fs.readFileSync(`/proc/${p}/stat`, 'utf8'); const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]); (kids.get(ppid) ?? kids.set(ppid, []).get(ppid)).push(Number(p)); } catch {}
  }
  const out = []; const walk = (p) => { out.push(p); for (const k of kids.get(p) ?? []) walk(k); }; walk(root); return out;
};
const snapshot = (pids) => {
  const m = new Map();
  for (const p of pids) {
    let tasks = []; try { tasks = fs.readdirSync(`/proc/${p}/task`); } catch { continue; }
    let type = 'x'; try { const cl = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'); type = /--type=([a-z-]+)/.exec(cl)?.[1] ?? (cl.includes('chromium') ? 'browser' : 'other'); } catch {}
    if (type === 'other') continue;
    for (const t of tasks) {
      try {
        const st = fs.readFileSync(`/proc/${p}/task/${t}/stat`, 'utf8');
        const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        m.set(`${p}/${t}`, { comm: `${type}:${comm}`, cpu: (Number(f[11]) + Number(f[12])) * tick });
      } catch {}
    }
  }
  return m;
};
const wasm = await load();
const draw = (seed) => ({ shape: [1, L, 1, 64], random: 'normal', seed });
const seeded = (r) => ({ algorithm: 'full', max_flops: 1e15, trace: 'context', q: draw(3 * r), k: draw(3 * r + 1), v: draw(3 * r + 2) });
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const results = {};
const sessions = [];
for (const dist of dists) {
  const server = createServer(path.resolve(dist)); await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 's3-'));
  const context = await chromium.launchPersistentContext(userDir, { executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'], viewport: { width: 1400, height: 1000 } });
  const page = context.pages()[0] ?? await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/#preset=softmax-toy`);
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  await page.waitForTimeout(1500);
  await page.evaluate((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => n, configurable: true }), CORES);
  sessions.push({ dist, page, context, server, userDir });
  results[dist] = [];
}
const once = (page, s) => page.evaluate(async (s) => {
  const el = document.querySelector('attention-playground');
  const traced = new Promise((resolve) => el.addEventListener('trace', () => resolve(performance.now()), { once: true }));
  const t0 = performance.now(); el.setScenario(s);
  const t1 = await traced; return t1 - t0;
}, s);
/** Every Chromium process (launched by playwright-core under this node process). */
const pidsOf = () => descendants(process.pid);
for (const { page } of sessions) { await once(page, seeded(99)); await page.evaluate(() => document.querySelector('attention-playground').settled); }
const node = [];
for (let r = 0; r < REPS; r++) {
  for (const { dist, page } of sessions) {
    await page.waitForTimeout(300);
    const pids = pidsOf();
    const a = snapshot(pids);
    const ms = await once(page, seeded(r + 1));
    const b = snapshot(pids);
    await page.evaluate(() => document.querySelector('attention-playground').settled);
    const by = {};
    for (const [k, x] of b) { const d = x.cpu - (a.get(k)?.cpu ?? 0); if (d > 0) by[x.comm] = (by[x.comm] ?? 0) + d; }
    results[dist].push({ ms, by });
  }
  const c0 = cpu(), t0 = performance.now(); wasm.run(seeded(r + 1), { typed: true }); node.push([performance.now() - t0, cpu() - c0]);
}
for (const s of sessions) { await s.context.close(); s.server.close(); fs.rmSync(s.userDir, { recursive: true, force: true }); }
console.log(`load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; node call wall/cpu: ${node.map(([w, c]) => `${w.toFixed(0)}/${c.toFixed(0)}`).join(', ')}`);
for (const [dist, runs] of Object.entries(results)) {
  console.log(`${dist}: wall ${runs.map((r) => r.ms.toFixed(0)).join(', ')}`);
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.by)))];
  const avg = (k) => runs.reduce((n, r) => n + (r.by[k] ?? 0), 0) / runs.length;
  console.log('   cpu per run (avg, ms): ' + keys.map((k) => [k, avg(k)]).filter(([, v]) => v >= 5).sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', '));
}
