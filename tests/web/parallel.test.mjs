// Long runs on every core, and never a blocked tab (issue 18, parts 4 and 5): a long run's trace
// comes back from the workers typed, its buffers transferred (detached in the worker once posted);
// the page keeps it typed (no nested arrays built until something reads a field: el.trace's fields
// are then the nested arrays they always were) and draws its large maps on canvases from the typed
// data; a run of `full` without a mask is split by query rows across navigator.hardwareConcurrency
// workers, its status showing the fraction of rows done, and its trace is the same whatever the
// split (1, 2 or 3 workers: every number within 1e-12, the booleans, costs, shapes and warnings
// equal). Timings are the benchmark's (bench/page_long_runs.mjs), never asserted here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { launch, openUrl, seededTensor, settle } from './harness.mjs';

let page, base, problems, browser, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const long = (L, seed, extra = {}) => ({ algorithm: 'full', q: seededTensor(L, 16, seed), k: seededTensor(L, 16, seed + 1), v: seededTensor(L, 16, seed + 2), ...extra });

/** Sets the cores the page sees (pool.ts reads navigator.hardwareConcurrency at each run). */
const setCores = (n) => page.evaluate((n) => Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => n, configurable: true }), n);

/** Sets a scenario and waits for its trace and for the page to settle; returns the status line's texts seen meanwhile. */
async function run(s) {
  await page.evaluate((s) => {
    const e = document.querySelector('attention-playground');
    window.__texts = [];
    window.__observer?.disconnect();
    window.__observer = new MutationObserver(() => {
      const line = e.shadowRoot.querySelector('[data-field="long-run"]');
      if (line) window.__texts.push(line.textContent);
    });
    window.__observer.observe(e.shadowRoot, { subtree: true, characterData: true, childList: true, attributes: true });
    window.__traced = new Promise((resolve) => e.addEventListener('trace', resolve, { once: true }));
    e.setScenario(s);
  }, s);
  await page.evaluate(() => window.__traced);
  await settle(page);
  return page.evaluate(() => { window.__observer.disconnect(); return window.__texts; });
}

const status = () => page.evaluate(() => {
  const line = document.querySelector('attention-playground').shadowRoot.querySelector('[data-field="long-run"]');
  return { status: line.dataset.status, mode: line.dataset.mode, workers: line.dataset.workers };
});

/** The page's trace against the one kept as window.__first (kept first if there is none), without
 * reading a typed field (which would build its nested arrays): the largest |difference| of each
 * typed field, whether shapes and booleans' kinds agree, and the other fields as JSON. */
const compareTrace = () => page.evaluate(() => {
  const t = document.querySelector('attention-playground').trace;
  const typed = t[Symbol.for('attnplay.typed')] ?? {};
  const rest = {};
  for (const key of Object.keys(t)) if (!(key in typed)) rest[key] = t[key];
  const kept = { rest: JSON.stringify(rest), typed };
  const first = window.__first ??= kept;
  const fields = {};
  for (const [k, v] of Object.entries(first.typed)) {
    const u = kept.typed[k];
    let worst = 0;
    if (u && u.data.length === v.data.length) for (let i = 0; i < v.data.length; i++) worst = Math.max(worst, Math.abs(u.data[i] - v.data[i]));
    else worst = Infinity;
    fields[k] = { worst, same: JSON.stringify([u?.shape, u?.bool]) === JSON.stringify([v.shape, v.bool]) };
  }
  return { rest: kept.rest === first.rest, restText: kept.rest.slice(0, 300), fields, context: Array.from(kept.typed.context?.data.subarray(0, 64) ?? []) };
});

test('a split run gives the same trace whatever the number of workers (1, 2, 3), with its progress', async (t) => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const s = long(1024, 7);
  let last = null;
  for (const n of [1, 2, 3]) {
    await setCores(n);
    const texts = await run({ ...s, seed: n });  // a new scenario each time (seed is not read by full)
    assert.deepEqual(await status(), { status: 'done', mode: 'worker', workers: String(n) }, `${n} workers`);
    if (n > 1) assert.ok(texts.some((x) => / \d+%/.test(x)), `the status showed the rows done: ${texts.slice(0, 5).join(' | ')}`);
    last = await compareTrace();
    assert.deepEqual(Object.keys(last.fields).sort(), ['allowed', 'context', 'scores', 'weights']);
    assert.ok(last.rest, `${n} workers: cost, shapes, warnings and the rest equal (${last.restText})`);
    for (const [field, { worst, same }] of Object.entries(last.fields)) {
      assert.ok(same, `${field}: shape and kind`);
      assert.ok(worst <= 1e-12, `${field} with ${n} workers: max |difference| ${worst}`);
    }
    if (n > 1) t.diagnostic(`${n} workers against 1: max |difference| ${JSON.stringify(Object.fromEntries(Object.entries(last.fields).map(([f, x]) => [f, x.worst])))}`);
  }
  // and the core's numbers: the context of the same scenario run whole in node
  const typed = (x) => ({ shape: [1, x[0].length, 1, x[0][0][0].length], data: Float64Array.from(x[0].flat(2)) });
  const want = wasm.run({ ...s, q: typed(s.q), k: typed(s.k), v: typed(s.v) }, { typed: true });
  last.context.forEach((x, i) => assert.ok(Math.abs(x - want.context.data[i]) <= 1e-12, `context[${i}] against node`));
  assert.equal(last.context.length, 64);
  assert.deepEqual(problems, []);
});

test('a long run\'s trace comes back typed and transferred; its maps are canvases; nested arrays only when read', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  await setCores(2);
  await run(long(1024, 3));  // the workers started (kept idle, one per core)
  // in each worker: what it posts, and whether the buffers it transferred are detached after posting
  const workers = page.workers();
  assert.ok(workers.length >= 2, `${workers.length} workers`);
  for (const w of workers) {
    await w.evaluate(() => {
      const post = self.postMessage.bind(self);
      self.__posted = [];
      self.postMessage = (m, transfer) => {
        post(m, transfer);
        if (m.type === 'partBlock' || m.type === 'partDone') self.__posted.push({ type: m.type, sizes: (transfer ?? []).map((b) => b.byteLength), count: (transfer ?? []).length });
      };
    });
  }
  const L = 2048;
  await run(long(L, 11));
  const posted = (await Promise.all(workers.map((w) => w.evaluate(() => self.__posted)))).flat();
  // each worker computes its 1024 rows in 2 blocks of 512, each posted as it is done, then says it is done
  assert.equal(posted.filter((p) => p.type === 'partDone').length, 2, JSON.stringify(posted));
  assert.equal(posted.filter((p) => p.type === 'partBlock').length, 4, JSON.stringify(posted));
  for (const p of posted.filter((x) => x.type === 'partBlock')) {
    assert.equal(p.count, 12, 'scores, allowed, weights and context transferred, each with its ranges per row axis');
    assert.deepEqual(p.sizes, Array(12).fill(0), 'every transferred buffer is detached in the worker');
  }
  const kept = await page.evaluate(() => {
    const e = document.querySelector('attention-playground');
    const t = e.trace;
    const typed = t[Symbol.for('attnplay.typed')];
    const lazy = Object.keys(typed).filter((k) => typeof Object.getOwnPropertyDescriptor(t, k).get === 'function');
    const maps = Object.fromEntries(['scores', 'allowed', 'weights', 'context'].map((f) => {
      const fig = e.shadowRoot.querySelector(`[data-panel="results"] figure.heatmap[data-field="${f}"]`);
      return [f, fig && { canvas: fig.querySelector('canvas') !== null, rows: fig.dataset.rows, cells: fig.querySelectorAll('td').length }];
    }));
    const weights = typed.weights.data;
    // reading a field builds its nested arrays, once: the documented trace
    const cell = [t.weights[0][0][5][7], weights[5 * 2048 + 7], t.allowed[0][0][3][4], t.context[0][9][0][2], typed.context.data[9 * 16 + 2]];
    const after = Object.keys(typed).filter((k) => typeof Object.getOwnPropertyDescriptor(t, k).get === 'function');
    return { lazy, maps, cell, after, isArray: Array.isArray(t.weights[0][0][5]) };
  });
  assert.deepEqual(kept.lazy.sort(), ['allowed', 'context', 'scores', 'weights'], 'no nested arrays built while the trace was shown');
  for (const f of ['scores', 'allowed', 'weights', 'context']) {
    assert.deepEqual(kept.maps[f], { canvas: true, rows: String(L), cells: 0 }, `${f}: a canvas map of ${L} rows`);
  }
  assert.equal(kept.cell[0], kept.cell[1]);
  assert.equal(kept.cell[2], true);
  assert.equal(kept.cell[3], kept.cell[4]);
  assert.ok(kept.isArray);
  assert.deepEqual(kept.after.sort(), ['scores'], 'the fields read are nested arrays now, the others still typed');
  // the canvas shows the weights: a block's pixel is painted (not the empty canvas)
  const painted = await page.evaluate(() => {
    const c = document.querySelector('attention-playground').shadowRoot.querySelector('[data-panel="results"] figure[data-field="weights"] canvas');
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let opaque = 0;
    for (let k = 3; k < px.length; k += 4) if (px[k] === 255) opaque++;
    return { opaque, all: c.width * c.height };
  });
  assert.equal(painted.opaque, painted.all, 'every pixel of the weights map painted');
  assert.deepEqual(problems, []);
});

test('a seeded run splits too: each worker draws its own inputs (q: its own rows), the same trace with 1, 2 and 3 workers as node\'s whole run; only the draws are posted', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const draw = (seed) => ({ shape: [1, 1024, 1, 16], random: 'normal', seed });
  const s = { algorithm: 'full', q: draw(5), k: draw(6), v: draw(7), scale: 0.3 };
  await page.evaluate(() => { window.__first = undefined; });
  const want = wasm.run(s, { typed: true });
  for (const n of [1, 2, 3]) {
    await setCores(n);
    if (n === 2) {
      // two workers started (kept idle), then each records the scenario of the parts it is sent
      await run({ ...s, q: draw(50) });
      assert.equal(page.workers().length, 2);
      for (const w of page.workers()) {
        await w.evaluate(() => {
          self.__parts = [];
          const on = self.onmessage;
          self.onmessage = (e) => { if (e.data.type === 'part') self.__parts.push(JSON.stringify(e.data.scenario).length); on(e); };
        });
      }
    }
    await run({ ...s, seed: n });
    assert.deepEqual(await status(), { status: 'done', mode: 'worker', workers: String(n) }, `${n} workers`);
    if (n === 2) {
      const parts = (await Promise.all(page.workers().map((w) => w.evaluate(() => self.__parts ?? [])))).flat();
      assert.equal(parts.length, 2, 'one part per worker');
      for (const size of parts) assert.ok(size < 1000, `a part's scenario is its draws (${size} characters of JSON)`);
    }
    const got = await compareTrace();
    // each worker drew its own query rows (3 workers: rows from 341 and 683, the generator skipped
    // to them): the context is node's whole run's, bit for bit
    const context = await page.evaluate(() => Array.from(document.querySelector('attention-playground').trace[Symbol.for('attnplay.typed')].context.data));
    assert.equal(context.length, 1024 * 16);
    assert.ok(context.every((x, i) => x === want.context.data[i]), `${n} workers: the context bit for bit`);
    assert.ok(got.rest, `${n} workers: cost, shapes, warnings and the rest equal (${got.restText})`);
    for (const [field, { worst, same }] of Object.entries(got.fields)) {
      assert.ok(same, `${field}: shape and kind`);
      assert.ok(worst <= 1e-12, `${field} with ${n} workers: max |difference| ${worst}`);
    }
  }
  // the first (one worker) against the scenario run whole in node: the same draws, the same numbers
  const first = await page.evaluate(() => {
    const t = window.__first.typed;
    const pick = (p, at) => at.map((i) => p.data[i]);
    const at = [0, 1, 5000, 1024 * 1024 - 1];
    return { weights: pick(t.weights, at), scores: pick(t.scores, at), context: Array.from(t.context.data.subarray(0, 64)), shape: t.weights.shape };
  });
  assert.deepEqual(first.shape, [1, 1, 1024, 1024]);
  [0, 1, 5000, 1024 * 1024 - 1].forEach((i, k) => {
    assert.ok(Math.abs(first.weights[k] - want.weights.data[i]) <= 1e-12, `weights[${i}]`);
    assert.ok(Math.abs(first.scores[k] - want.scores.data[i]) <= 1e-12, `scores[${i}]`);
  });
  first.context.forEach((x, i) => assert.ok(Math.abs(x - want.context.data[i]) <= 1e-12, `context[${i}]`));
  assert.deepEqual(problems, []);
});

test('the maps\' colour ranges come from the workers: equal to a scan of the typed rows, split or whole', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  for (const n of [1, 2]) {
    await setCores(n);
    await run(long(1024, 20 + n, { scale: 0.7 }));
    const ranges = await page.evaluate(() => {
      const typed = document.querySelector('attention-playground').trace[Symbol.for('attnplay.typed')];
      const rowsAt = typed[Symbol.for('attnplay.typed')];
      const out = {};
      for (const [field, axis] of [['scores', 2], ['weights', 2], ['allowed', 2], ['context', 1]]) {
        // a fresh slice each time: (b, h) = (0, 0) is cached once drawn, so ask with the row axis the map uses
        const rows = rowsAt(field, 0, 0, axis);
        let lo = Infinity, hi = -Infinity;
        for (const r of rows) for (const x of r) { const v = Number(x); if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } }
        out[field] = { given: rows.range, scanned: [lo, hi], worker: Boolean(typed[field].ranges || typed[field].blocks?.every((k) => k.ranges)) };
      }
      return out;
    });
    for (const [field, r] of Object.entries(ranges)) {
      assert.ok(r.worker, `${field}: ranges made in the worker (${n} workers)`);
      assert.deepEqual(r.given, r.scanned, `${field} with ${n} workers`);
    }
  }
  assert.deepEqual(problems, []);
});
