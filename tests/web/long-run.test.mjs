// Long runs off the main thread (SPEC §1: long work never freezes the page): a scenario estimated
// long (web/src/state/long.ts) runs in a Web Worker with a status line and a Cancel button, the last
// good trace staying on screen meanwhile; an edit supersedes a run; a toy scenario still computes in
// the edit's own task; the single file from file:// (no worker there) computes on the page. Numbers
// are checked against the WASM module run in node. Headless Chromium against dist/ (its CSP).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { dist, launch, openUrl, seededTensor, settle, textOf } from './harness.mjs';

let page, base, problems, browser, wasm;
const SHOTS = process.env.SHOTS_DIR; // a screenshot of the status line during a run when set

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();
const line = () => el().locator('[data-field="long-run"]');

const long = (L, seed, extra = {}) => ({ algorithm: 'full', q: seededTensor(L, 16, seed), k: seededTensor(L, 16, seed + 1), v: seededTensor(L, 16, seed + 2), ...extra });

/** The context of the node run at a few entries, and the page's at the same entries. */
const SAMPLES = [[0, 0, 0, 0], [0, 1, 0, 3], [0, 777, 0, 15], [0, 1500, 0, 8]];
function expectedContext(s) {
  const typed = (x) => ({ shape: [1, x[0].length, 1, x[0][0][0].length], data: Float64Array.from(x[0].flat(2)) });
  const trace = wasm.run({ ...s, trace: 'context', q: typed(s.q), k: typed(s.k), v: typed(s.v) }, { typed: true });
  const [, , H, D] = trace.context.shape;
  const L = trace.context.shape[1];
  return SAMPLES.filter(([, i]) => i < L).map(([b, i, h, d]) => trace.context.data[((b * L + i) * H + h) * D + d]);
}
const pageContext = () => page.evaluate((samples) => {
  const t = document.querySelector('attention-playground').trace;
  return samples.filter(([, i]) => i < t.context[0].length).map(([b, i, h, d]) => t.context[b][i][h][d]);
}, SAMPLES);
const close = (got, want) => {
  assert.equal(got.length, want.length);
  got.forEach((x, i) => assert.ok(Math.abs(x - want[i]) <= 1e-12, `context sample ${i}: ${x} vs ${want[i]}`));
};

/** In the page: a heartbeat (a setTimeout chain) that counts its ticks while the status line says "running". */
const startHeartbeat = () => page.evaluate(() => {
  window.__beats = { all: 0, running: 0, on: true };
  const tick = () => {
    if (!window.__beats.on) return;
    window.__beats.all++;
    if (document.querySelector('attention-playground').shadowRoot.querySelector('[data-field="long-run"]')?.dataset.status === 'running') window.__beats.running++;
    setTimeout(tick, 4);
  };
  tick();
});
const stopHeartbeat = () => page.evaluate(() => { window.__beats.on = false; return window.__beats; });

/** Sets a scenario; returns what the status line says in the same task, and a handle on the trace events. */
const setInPage = (s) => page.evaluate((s) => {
  const e = document.querySelector('attention-playground');
  window.__traces = [];
  if (!window.__listening) e.addEventListener('trace', (ev) => window.__traces.push(ev.detail.shapes?.q?.[1] ?? null));
  window.__listening = true;
  const before = e.trace;
  e.setScenario(s);
  const status = e.shadowRoot.querySelector('[data-field="long-run"]');
  return { status: status.hidden ? null : status.dataset.status, sameTrace: e.trace === before };
}, s);

test('a long run (full, L = 2048, E = D = 16) goes to a worker: status, a live page, then the core\'s trace', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const toy = await page.evaluate(() => document.querySelector('attention-playground').trace.context);
  const s = long(2048, 1);
  await startHeartbeat();
  const set = await setInPage(s);
  assert.equal(set.status, 'running', 'the status line says running in the edit\'s task');
  assert.ok(set.sameTrace, 'the last good trace stays meanwhile');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="long-run"]').dataset.mode === 'worker');
  assert.equal(await line().getAttribute('data-status'), 'running');
  assert.match(await textOf(line()), /Computing in a background worker: L_Q = 2048, L_K = 2048/);
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-playground').trace.context), toy);
  assert.ok(await el().locator('[data-panel="results"].stale').count() === 1, 'the results are marked stale');
  if (SHOTS) {
    fs.mkdirSync(SHOTS, { recursive: true });
    await el().locator('[data-panel="results"]').screenshot({ path: path.join(SHOTS, 'long-run-status.png') });
  }
  await settle(page); // waits for the run
  const beats = await stopHeartbeat();
  assert.ok(beats.running >= 3, `the page kept ticking while the run was under way (${beats.running} ticks of ${beats.all})`);
  assert.equal(await line().getAttribute('data-status'), 'done');
  assert.match(await textOf(line()), /Computed in a background worker/);
  assert.deepEqual(await page.evaluate(() => window.__traces), [2048], 'one trace event, the run\'s');
  close(await pageContext(), expectedContext(s));
  assert.equal(await el().locator('[data-panel="results"].stale').count(), 0);
  assert.deepEqual(problems, []);
});

test('Cancel ends the run: the last good trace stays, the status says cancelled', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const toy = await page.evaluate(() => document.querySelector('attention-playground').trace.context);
  await setInPage(long(2048, 5));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="long-run"]').dataset.mode === 'worker');
  await el().locator('[data-key="long-run.cancel"]').click();
  await settle(page);
  assert.equal(await line().getAttribute('data-status'), 'cancelled');
  assert.match(await textOf(line()), /Cancelled/);
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-playground').trace.context), toy);
  assert.deepEqual(await page.evaluate(() => window.__traces), []);
  assert.equal(await el().locator('[data-panel="results"].stale').count(), 1);
  // the page is usable: the next edit computes
  const s = long(1536, 9, { trace: 'context' });
  await setInPage(s);
  await settle(page);
  close(await pageContext(), expectedContext(s));
  assert.deepEqual(problems, []);
});

test('an edit during a run supersedes it: a burst of edits ends with the last scenario\'s trace', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const last = long(1800, 31, { trace: 'context' });
  await page.evaluate(([a, b, c]) => {
    const e = document.querySelector('attention-playground');
    window.__traces = [];
    if (!window.__listening) e.addEventListener('trace', (ev) => window.__traces.push(ev.detail.shapes?.q?.[1] ?? null));
    window.__listening = true;
    e.setScenario(a);
    setTimeout(() => e.setScenario(b), 50);
    setTimeout(() => e.setScenario(c), 120);
  }, [long(2048, 11), long(2048, 21), last]);
  await page.waitForFunction(() => window.__traces.length > 0, null, { timeout: 30000 });
  await settle(page);
  assert.deepEqual(await page.evaluate(() => window.__traces), [1800], 'only the last scenario\'s trace');
  close(await pageContext(), expectedContext(last));
  assert.equal(await line().getAttribute('data-status'), 'done');
  // a long run superseded by a small one: the small one's trace, at once, and no status line
  await setInPage(long(2048, 41));
  const small = await setInPage(long(64, 51));
  assert.equal(small.status, null);
  assert.ok(!small.sameTrace, 'the small scenario\'s trace in the edit\'s task');
  await settle(page);
  assert.deepEqual(await page.evaluate(() => window.__traces), [64]);
  close(await pageContext(), expectedContext(long(64, 51)));
  assert.deepEqual(problems, []);
});

test('a toy preset, L = 64 and L = 256 still compute in the edit\'s own task (no worker)', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  for (const s of [{ ...(await page.evaluate(() => document.querySelector('attention-playground').scenario)), q: [[[[2.5]]]] }, long(64, 3), long(256, 5)]) {
    const set = await setInPage(s);
    assert.equal(set.status, null, 'no status line');
    assert.ok(!set.sameTrace, 'the trace is there in the same task');
  }
  // every preset, each status read in the task of its setPreset; all in one page task (a round trip
  // and a frame per preset took about 8 s of CPU)
  const statuses = await page.evaluate(() => {
    const e = document.querySelector('attention-playground');
    return e.presets.map((p) => p.name).map((n) => {
      const picked = e.setPreset(n);
      return [n, picked, e.shadowRoot.querySelector('[data-field="long-run"]')?.dataset.status ?? 'none'];
    });
  });
  assert.ok(statuses.length >= 40, `${statuses.length} presets`);
  for (const [name, picked, sync] of statuses) {
    assert.ok(picked, `${name}: picked`);
    assert.notEqual(sync, 'running', `${name} runs on the page`);
  }
  await settle(page);
});

test('the single file from file:// (no worker there) computes a long run on the page and shows its trace', async () => {
  await openUrl(page, 'file://' + path.join(dist, 'attention-playground.html') + '#preset=softmax-toy');
  await page.evaluate(() => {
    window.__seen = [];
    // the results' head is made anew with the panel (a scenario of another shape): watch the whole root
    new MutationObserver((records) => {
      for (const { target } of records) if (target.dataset.field === 'long-run') window.__seen.push(`${target.dataset.status}/${target.dataset.mode}`);
    }).observe(document.querySelector('attention-playground').shadowRoot, { subtree: true, attributes: true, attributeFilter: ['data-status', 'data-mode'] });
  });
  const s = long(2048, 61, { trace: 'context' });
  await setInPage(s);
  await page.waitForFunction(() => window.__traces.length > 0, null, { timeout: 30000 });
  await settle(page);
  const seen = await page.evaluate(() => window.__seen);
  assert.ok(seen.includes('running/main'), `the status said "computing on the page" first: ${seen.join(', ')}`);
  assert.equal(await line().getAttribute('data-status'), 'done');
  assert.equal(await line().getAttribute('data-mode'), 'main');
  assert.match(await textOf(line()), /Computed on the page/);
  close(await pageContext(), expectedContext(s));
});
