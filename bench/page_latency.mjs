// The page's edit latency in headless Chromium: one edit -> the new trace -> layout, p50/p95 over
// `EDITS` edits, for every toy preset with an editable Q, K or V grid and for full attention at
// L = 64 and L = 256 (E = D = 16). Serves dist/ as `npm start` does (scripts/serve.mjs, its CSP).
//
// An edit: a number typed into a cell of the first tensor grid (an `input` event, as a learner
// types), or, where the grid is not shown, `el.setScenario` with that one cell changed (what the
// JSON panel or a tutorial's script does). The time runs from the edit until the element has
// dispatched its `trace` event and the page has been laid out again (a forced layout), measured
// in the page with performance.now(), one edit every PACE ms (below). `CASES` picks cases by name (see below). Writes bench/results/page_latency.json. Never asserts a time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/web/harness.mjs';
import { uniforms } from './lib.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const EDITS = Number(process.env.EDITS || 50);
// CASES=softmax-toy,L=64: only the cases whose name contains one of these words (all by default).
const CASES = (process.env.CASES || '').split(',').filter(Boolean);
// LOADING=1: time the edits at once, while the page still loads its views in the background
const LOADING = process.env.LOADING === '1';
// PACE=ms: an edit starts this long after the one before (and after a frame): a learner typing
// fast, 10 keys a second. PACE=0 edits at frame rate: each edit then competes with the raster of
// the frame before on a 2-core machine (40% of edits were descheduled there, against 10-17% at 100).
const PACE = Number(process.env.PACE ?? 100);

function tensor(B, L, H, E, seed) {
  const u = uniforms(B * L * H * E, seed);
  let k = 0;
  return Array.from({ length: B }, () => Array.from({ length: L }, () => Array.from({ length: H }, () =>
    Array.from({ length: E }, () => Math.round(u[k++] * 1000) / 1000))));
}

const large = (L) => ({ algorithm: 'full', q: tensor(1, L, 1, 16, 1), k: tensor(1, L, 1, 16, 2), v: tensor(1, L, 1, 16, 3) });

/** In the page: EDITS edits of one cell, each timed from the edit to the trace and a layout. */
async function measure(page, edits) {
  return page.evaluate(async ([n, pace]) => {
    const el = document.querySelector('attention-playground');
    const root = el.shadowRoot;
    const input = root.querySelector('.panel-tensors [data-tensor] input[data-key]');
    input?.focus();  // a learner types into the cell they clicked (its edits are one undo entry a second)
    const ms = [];
    for (let r = 0; r < n + 3; r++) {
      const value = ((r % 7) - 3) / 4 + 0.125;
      const traced = new Promise((resolve) => el.addEventListener('trace', resolve, { once: true }));
      const t0 = performance.now();
      if (input) {
        input.value = String(value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      } else {
        const s = el.scenario;
        s.q[0][0][0][0] = value;
        el.setScenario(s);
      }
      const late = await Promise.race([traced.then(() => false),
        new Promise((resolve) => setTimeout(() => resolve(true), 10000))]);
      if (late) return { method: 'no trace after an edit (an error?)', ms: [NaN] };
      void root.querySelector('.app').getBoundingClientRect(); // style and layout, forced now
      const t = performance.now() - t0;
      if (r >= 3) ms.push(t); // three warm-up edits
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, Math.max(0, t0 + pace - performance.now()))));
    }
    return { method: input ? `cell ${input.dataset.key}` : 'setScenario', ms };
  }, [edits, PACE]);
}

/** Until the page has fetched nothing for `quietMs` (at most 20 s): after its first trace the page
 * loads the whole module and every view's chunk in the background (lazy.ts preloadAll), and an edit
 * timed while V8 compiles them measures the loading, not the edit (a learner edits seconds later). */
async function idle(page, quietMs = 1500) {
  await page.evaluate((quiet) => new Promise((resolve) => {
    const t0 = performance.now();
    let n = -1, since = performance.now();
    const tick = () => {
      const now = performance.now(), m = performance.getEntriesByType('resource').length;
      if (m !== n) { n = m; since = now; }
      if (now - since >= quiet || now - t0 > 20000) resolve(); else setTimeout(tick, 100);
    };
    tick();
  }), quietMs);
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};
const round = (x) => Math.round(x * 100) / 100;

async function main() {
  const { page, base, close } = await launch();  // dist/ served with its CSP, headless Chromium
  const rows = [];
  try {
    await page.goto(base);
    await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
    const presets = await page.evaluate(() => document.querySelector('attention-playground').presets
      .map((p) => ({ name: p.name, scenario: p.scenario })));
    const cases = [];
    for (const p of presets) cases.push({ name: p.name, kind: 'preset', hash: `#preset=${p.name}` });
    for (const L of [64, 256]) cases.push({ name: `full L=${L} E=D=16`, kind: 'large', L });
    for (const c of cases) {
      if (CASES.length && !CASES.some((w) => c.name.includes(w))) continue;
      await page.goto('about:blank');
      await page.goto(base + (c.hash ?? ''));
      await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
      if (c.kind === 'large') {
        await page.evaluate((s) => new Promise((resolve) => {
          const el = document.querySelector('attention-playground');
          el.addEventListener('trace', () => resolve(), { once: true });
          el.setScenario(s);
        }), large(c.L));
        await page.waitForTimeout(300);
      }
      if (!LOADING) await idle(page);
      if (c.kind !== 'large') {
        // after the idle wait: a grid of its own (multi-head's, views/own-inputs.ts) is a lazy chunk
        await page.evaluate(() => document.querySelector('attention-playground').settled);
        const editable = await page.evaluate(() =>
          !!document.querySelector('attention-playground').shadowRoot.querySelector('.panel-tensors [data-tensor] input[data-key]'));
        if (!editable) continue; // no Q/K/V grid (Nadaraya-Watson, positional encoding, Bahdanau)
      }
      const { method, ms } = await measure(page, EDITS);
      const row = { case: c.name, kind: c.kind, method, edits: ms.length, p50_ms: round(quantile(ms, 0.5)),
        p95_ms: round(quantile(ms, 0.95)), max_ms: round(Math.max(...ms)) };
      rows.push(row);
      console.log(`${row.case.padEnd(32)} ${String(row.p50_ms).padStart(8)} ${String(row.p95_ms).padStart(8)} ms  (${method})`);
    }
  } finally {
    await close();
  }
  const toy = rows.filter((r) => r.kind === 'preset');
  const summary = {
    toy_presets_p95_ms: round(Math.max(...toy.map((r) => r.p95_ms))),
    toy_presets_worst: toy.reduce((a, b) => (b.p95_ms > a.p95_ms ? b : a), toy[0])?.case,
    L64_p95_ms: rows.find((r) => r.case.startsWith('full L=64'))?.p95_ms,
    L256_p95_ms: rows.find((r) => r.case.startsWith('full L=256'))?.p95_ms,
  };
  console.log(`\ntoy presets p95 (worst of ${toy.length}): ${summary.toy_presets_p95_ms} ms (${summary.toy_presets_worst}); ` +
    `L = 64: ${summary.L64_p95_ms} ms; L = 256: ${summary.L256_p95_ms} ms`);
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'page_latency.json'), JSON.stringify({
    what: 'edit -> trace event -> forced layout, headless Chromium, ms', edits: EDITS, pace_ms: PACE, date: new Date().toISOString(),
    load: os.loadavg(), cpus: os.cpus().length, summary, rows }, null, 2) + '\n');
}

await main();
