// The note's sparse and linear attention on the page (issue 7): each view beside exact attention,
// every number checked against the WASM module run in node on the same scenario. Headless
// Chromium against dist/ served with its CSP; the single-file build from file:// as well.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { afterTrace as traced, assertCells, dist, launch, nested, openUrl, samePage, scenarioOf, traceOf, settle, textOf } from './harness.mjs';

let browser, page, base, problems, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();
const input = (key) => el().locator(`[data-key="${key}"]`);
const has = (name) => wasm.algorithms().some((a) => (a.name ?? a) === name);
const hasPreset = (name) => wasm.presets().some((p) => p.name === name);

/** Opens a preset (skipping the test when this core lacks it) and returns its scenario and trace as
 * node computes them: a fresh load where the page is not index.html yet (the first test, the one after
 * file://), else a switch (harness.mjs samePage: none of these tests tests loading). */
async function openPreset(t, name) {
  if (!hasPreset(name)) { t.skip(`the core has no ${name} preset yet`); return null; }
  if (page.url().startsWith(base)) await samePage(page, name);
  else await openUrl(page, `${base}#preset=${name}`);
  const scenario = await scenarioOf(page);
  return { scenario, expected: wasm.run(scenario) };
}

const afterTrace = (action) => traced(page, action);

const costText = (c) => new RegExp(`^${c.dot_products} / ${c.dense_dot_products} q·k products \\(${Number((100 * c.dot_products / c.dense_dot_products).toFixed(1))}%\\)$`);

async function assertCostBar(field, cost) {
  const bar = el().locator(`[data-field="${field}"]`);
  assert.equal(Number(await bar.getAttribute('data-dot-products')), cost.dot_products, field);
  assert.equal(Number(await bar.getAttribute('data-dense')), cost.dense_dot_products, field);
  assert.match((await textOf(bar.locator('.cost-bar-text'))).trim(), costText(cost));
}

/** Panel 1: max_abs_error, the cost bar, context beside exact_context, all the trace's. */
async function assertApprox(expected) {
  const view = el().locator('[data-field="approx"]');
  assert.ok(Math.abs(Number(await view.locator('[data-field="max_abs_error"]').getAttribute('data-value')) - expected.max_abs_error) <= 1e-12);
  await assertCostBar('approx-cost', expected.cost);
  await assertCells(view, 'approx.context', expected.context);
  await assertCells(view, 'exact_context', expected.exact_context);
}

const withMask = (s, mask) => ({ algorithm: 'full', q: s.q, k: s.k, v: s.v, ...(s.scale !== undefined ? { scale: s.scale } : {}), mask });

/** reach[i][j] = some m with second[i][m] and first[m][j] (computed here independently of the page). */
const product = (second, first) => second.map((row) => first[0].map((_, j) => row.some((on, m) => on && first[m][j])));

test('sparse patterns: local, atrous and their union as the core computes them, each with its cost; two layers reach every pair', async (t) => {
  const opened = await openPreset(t, 'sparse-local');
  if (!opened) return;
  const { scenario: s } = opened;
  const w = s.mask.window, k = 3; // the view keeps k = 3 for a local mask
  const runs = {
    local: wasm.run(withMask(s, { kind: 'local', window: w })),
    atrous: wasm.run(withMask(s, { kind: 'atrous', dilation: k })),
    strided: wasm.run(withMask(s, { kind: 'strided', window: w, stride: k })),
  };
  const view = el().locator('[data-field="sparse"]');
  for (const [kind, trace] of Object.entries(runs)) {
    const allowed = trace.allowed[0][0];
    const cells = await view.locator(`[data-field="pattern-${kind}"] td[data-index]`).evaluateAll((tds) => tds.map((td) => [td.dataset.index, td.dataset.value]));
    assert.equal(cells.length, allowed.length * allowed[0].length);
    for (const [index, v] of cells) assert.equal(v, String(nested(allowed, index)), `${kind}[${index}]`);
    await assertCostBar(`cost-${kind}`, trace.cost);
    // the core computes sparse masks sparsely: the cost is the count of allowed pairs
    assert.equal(trace.cost.dot_products, allowed.flat().filter(Boolean).length);
  }
  assert.equal(await view.locator('.pattern-figure.current').getAttribute('data-kind'), 'local');
  // the union is coloured by the pattern each cell comes from
  const both = await view.locator('[data-field="pattern-strided"] td.both').count();
  assert.equal(both, runs.local.allowed[0][0].flat().filter((x, n) => x && runs.atrous.allowed[0][0].flat()[n]).length);
  // the alternating layers
  const reach = product(runs.atrous.allowed[0][0], runs.local.allowed[0][0]);
  const reached = reach.flat().filter(Boolean).length;
  assert.equal(Number(await view.locator('[data-field="reach-count"]').getAttribute('data-value')), reached);
  assert.equal(reached, reach.length ** 2, 'w = 2, k = 3: every pair');
  const cells = await view.locator('[data-field="reach"] td[data-index]').evaluateAll((tds) => tds.map((td) => [td.dataset.index, td.dataset.value]));
  for (const [index, v] of cells) assert.equal(v, String(nested(reach, index)));
  assert.equal(Number(await view.locator('[data-field="layer-products"]').getAttribute('data-value')),
    runs.local.cost.dot_products + runs.atrous.cost.dot_products);
  assert.equal(Number(await view.locator('[data-field="dense-products"]').getAttribute('data-value')), runs.local.cost.dense_dot_products);
  assert.match(await textOf(view.locator('.layers-numbers')), /every pair/);
  // the diagram of one query: the inputs it reaches
  await input('sparse.query').selectOption('0');
  await settle(page);
  assert.equal(Number(await view.locator('[data-field="layers-diagram"]').getAttribute('data-reached')), reach[0].filter(Boolean).length);
  assert.deepEqual(problems, []);
});

test('sparse view: w edits the scenario\'s mask, k is kept by the view; the patterns and costs follow the core', async (t) => {
  const opened = await openPreset(t, 'sparse-local');
  if (!opened) return;
  const s1 = await afterTrace(() => input('sparse.window').fill('1'));
  assert.equal(s1.mask.window, 1);
  await assertCostBar('cost-local', wasm.run(withMask(s1, { kind: 'local', window: 1 })).cost);
  assert.equal(Number(await textOf(el().locator('[data-field="cost.dot_products"]'))), wasm.run(s1).cost.dot_products);
  // k is not a field of a local mask: only the pictures change, the scenario stays
  await input('sparse.dilation').fill('4');
  await settle(page);
  const atrous = wasm.run(withMask(s1, { kind: 'atrous', dilation: 4 }));
  await page.waitForFunction((n) => Number(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="cost-atrous"]')?.dataset.dotProducts) === n, atrous.cost.dot_products);
  await assertCostBar('cost-atrous', atrous.cost);
  assert.deepEqual((await scenarioOf(page)).mask, s1.mask);
  // w = 1, k = 4: 2w + 1 < k, so two layers leave holes, and the page says so
  const reach = product(atrous.allowed[0][0], wasm.run(withMask(s1, { kind: 'local', window: 1 })).allowed[0][0]);
  const reached = reach.flat().filter(Boolean).length;
  assert.ok(reached < reach.length ** 2);
  assert.equal(Number(await el().locator('[data-field="reach-count"]').getAttribute('data-value')), reached);
  assert.match(await textOf(el().locator('.layers-numbers')), /not every pair/);
  // in Chinese too
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await settle(page);
  assert.match(await textOf(el().locator('[data-field="sparse"] h3')), /稀疏/);
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'en'));
  await settle(page);
  assert.deepEqual(problems, []);
});

test('beside exact attention: prob-toy\'s max_abs_error, exact_context and cost are the trace\'s', async (t) => {
  const opened = await openPreset(t, 'prob-toy');
  if (!opened) return;
  if (opened.expected.exact_context === undefined) { t.skip('this core reports no exact_context for prob'); return; }
  await assertApprox(opened.expected);
});

test('linear: the implied weights beside softmax\'s, and the feature-map switch recomputes like the core', async (t) => {
  if (!has('linear')) { t.skip('the core has no linear attention yet'); return; }
  const opened = await openPreset(t, 'linear-elu1');
  if (!opened) return;
  const { scenario: s, expected } = opened;
  const view = el().locator('[data-field="linear-view"]');
  const exact = wasm.run({ algorithm: 'full', q: s.q, k: s.k, v: s.v });
  assert.equal(await assertCells(view, 'implied.weights', expected.weights), 64);
  await assertCells(view, 'exact.weights', exact.weights);
  await assertApprox(expected);
  // the exact run is the trace's exact_context
  for (const [i, row] of exact.context[0].entries()) row[0].forEach((x, d) => assert.ok(Math.abs(x - expected.exact_context[0][i][0][d]) <= 1e-12));
  for (const map of ['relu', 'softmax_qk', 'cosine1']) {
    const s2 = await afterTrace(() => input('feature_map').selectOption(map));
    assert.equal(s2.feature_map, map);
    const e2 = wasm.run(s2);
    assert.equal(await view.getAttribute('data-feature-map'), map);
    await assertCells(view, 'implied.weights', e2.weights);
    await assertApprox(e2);
  }
  const labels = await input('feature_map').locator('option').allTextContents();
  assert.ok(labels.some((x) => /the note's trick/.test(x)) && labels.some((x) => /author/.test(x)));
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await settle(page);
  assert.ok((await input('feature_map').locator('option').allTextContents()).some((x) => /笔记/.test(x)));
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'en'));
  await settle(page);
  assert.deepEqual(problems, []);
});

/** The means over seeds that the sweep should show, from node's WASM runs (trace full, for max_abs_error). */
function expectedSweep(s, seeds) {
  const kinds = { iid: { orthogonal: false, norms: 'chi' }, orthogonal: { orthogonal: true, norms: 'chi' }, quantile: { orthogonal: true, norms: 'quantile' } };
  const out = {};
  const base = { ...s };
  for (const key of ['projection', 'num_features', 'orthogonal', 'norms', 'seed']) delete base[key];
  for (const [kind, fields] of Object.entries(kinds)) {
    for (const m of [2, 4, 8, 16, 32, 64]) {
      const errors = [];
      for (let i = 0; i < seeds; i++) errors.push(wasm.run({ ...base, ...fields, num_features: m, seed: Number(s.seed ?? 0) + i }).max_abs_error);
      out[`${kind}/${m}`] = errors.reduce((a, x) => a + x, 0) / errors.length;
    }
  }
  return out;
}

async function sweepTable() {
  return el().locator('[data-field="sweep-table"] td[data-kind]').evaluateAll((tds) =>
    tds.map((td) => [`${td.dataset.kind}/${td.dataset.m}`, Number(td.dataset.value), Number(td.dataset.runs)]));
}

const sweepStatus = () => el().locator('.sweep-status').getAttribute('data-status');

test('performer: the sweep over m runs in a Web Worker; its points are the core\'s max_abs_error averaged over 20 seeds; cancel stops it', async (t) => {
  if (!has('performer')) { t.skip('the core has no performer yet'); return; }
  const opened = await openPreset(t, 'performer-orthogonal');
  if (!opened) return;
  await assertApprox(opened.expected);
  await assertCells(el().locator('[data-field="performer-view"]'), 'implied.weights', opened.expected.weights);
  const started = Date.now();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('.sweep-status')?.dataset.status === 'done', null, { timeout: 30000 });
  console.log(`# the sweep took ${(Date.now() - started) / 1000} s`); // printed, not asserted
  assert.match(await textOf(el().locator('.sweep-status')), /^360 runs in [\d.]+ s · in a Web Worker$/);
  const want = expectedSweep(opened.scenario, 20);
  const shown = await sweepTable();
  assert.equal(shown.length, 18);
  for (const [key, mean, runs] of shown) {
    assert.equal(runs, 20, key);
    assert.ok(Math.abs(mean - want[key]) <= 1e-12, `${key}: ${mean} vs ${want[key]}`);
  }
  // the chart draws the same means: three curves of six points
  for (const kind of ['iid', 'orthogonal', 'quantile']) {
    const dots = await el().locator(`[data-field="sweep-chart"] g[data-kind="${kind}"] circle`).evaluateAll((cs) => cs.map((c) => [c.dataset.m, Number(c.dataset.value)]));
    assert.equal(dots.length, 6);
    for (const [m, v] of dots) assert.ok(Math.abs(v - want[`${kind}/${m}`]) <= 1e-12);
  }
  const verdict = el().locator('[data-field="sweep-verdict"]');
  const lower = [2, 4, 8, 16, 32, 64].filter((m) => want[`orthogonal/${m}`] < want[`iid/${m}`]).length;
  assert.equal(Number(await verdict.getAttribute('data-lower')), lower);
  // cancel: a longer sweep (100 seeds), stopped at once
  await input('sweep.seeds').selectOption('100');
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.sweep-status')?.dataset.status === 'running');
  await settle(page);
  await input('sweep.cancel').click();
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.sweep-status')?.dataset.status === 'cancelled');
  await settle(page);
  await page.waitForTimeout(300);
  assert.equal(await sweepStatus(), 'cancelled');
  // and a new sweep after a cancel (a new worker) finishes
  await input('sweep.seeds').selectOption('20');
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.sweep-status')?.dataset.status === 'done', null, { timeout: 30000 });
  await settle(page);
  for (const [key, mean] of await sweepTable()) assert.ok(Math.abs(mean - want[key]) <= 1e-12, key);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(problems, []);
});

test('performer sweep in dist/attention-playground.html from file://: no worker there, so it runs on the page in slices', async (t) => {
  if (!has('performer') || !hasPreset('performer-iid')) { t.skip('the core has no performer yet'); return; }
  await openUrl(page, 'file://' + path.join(dist, 'attention-playground.html') + '#preset=performer-iid');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('.sweep-status')?.dataset.status === 'done', null, { timeout: 30000 });
  assert.match(await textOf(el().locator('.sweep-status')), /on the page, in slices/);
  const s = await scenarioOf(page);
  const want = expectedSweep(s, 20);
  for (const [key, mean] of await sweepTable()) assert.ok(Math.abs(mean - want[key]) <= 1e-12, key);
  assert.deepEqual(problems, []);
});

test('linformer: the k slider; E_proj K, F_proj V and the L_Q × k weights from the trace, beside exact attention', async (t) => {
  if (!has('linformer')) { t.skip('the core has no linformer yet'); return; }
  const opened = await openPreset(t, 'linformer-k4');
  if (!opened) return;
  let { scenario: s, expected: e } = opened;
  const view = el().locator('[data-field="linformer-view"]');
  const check = async () => {
    await assertCells(view, 'projected_k', e.projected_k);
    await assertCells(view, 'projected_v', e.projected_v);
    assert.equal(await assertCells(view, 'implied.weights', e.weights), e.shapes.weights[2] * e.shapes.weights[3]);
    await assertApprox(e);
  };
  await check();
  if (s.E_proj === undefined) {
    const L_K = s.k[0].length;
    assert.equal(await input('proj_len').getAttribute('max'), String(L_K));
    s = await afterTrace(() => input('proj_len').fill(String(L_K)));
    assert.equal(s.proj_len, L_K);
    e = wasm.run(s);
    assert.equal(e.shapes.weights[3], L_K);
    await check();
    assert.equal(await view.locator('[data-field="proj-len"]').getAttribute('data-value'), String(L_K));
  }
  assert.deepEqual(problems, []);
});

test('lsh: the buckets of each hash round and who attends to whom, from the trace', async (t) => {
  if (!has('lsh')) { t.skip('the core has no lsh yet'); return; }
  const opened = await openPreset(t, 'lsh-4-buckets');
  if (!opened) return;
  const { scenario: s, expected: e } = opened;
  const view = el().locator('[data-field="lsh-view"]');
  assert.equal(await assertCells(view, 'buckets', e.buckets), e.buckets.length * e.buckets[0][0][0].length);
  await assertCells(view, 'implied.weights', e.weights);
  // a query attends only to keys that share a bucket with it in some round
  const L = e.buckets[0][0][0].length;
  for (let i = 0; i < L; i++) for (let j = 0; j < L; j++) {
    if (e.weights[0][0][i][j] > 0) assert.ok(e.buckets.some((r) => r[0][0][i] === r[0][0][j]), `${i} -> ${j}`);
  }
  await assertCells(view, 'exact.weights', wasm.run({ algorithm: 'full', q: s.q, k: s.q, v: s.v, ...(s.scale !== undefined ? { scale: s.scale } : {}) }).weights);
  await assertCells(view, 'round_weights', e.round_weights);
  await assertApprox(e);
  // more rounds: the table grows, like the core's
  if (s.rotations === undefined) {
    const s2 = await afterTrace(() => input('n_hashes').fill('3'));
    const e2 = wasm.run(s2);
    assert.equal(e2.buckets.length, 3);
    await assertCells(view, 'buckets', e2.buckets);
  }
  assert.deepEqual(problems, []);
});

test('pooling: the pooled keys and values, the kernel and pool controls recompute like the core', async (t) => {
  if (!has('pooling')) { t.skip('the core has no pooling yet'); return; }
  const opened = await openPreset(t, 'pooling-avg');
  if (!opened) return;
  const view = el().locator('[data-field="pooling-view"]');
  const check = async (e) => {
    await assertCells(view, 'pooled_k', e.pooled_k);
    await assertCells(view, 'pooled_v', e.pooled_v);
    await assertCells(view, 'implied.weights', e.weights);
    await assertApprox(e);
  };
  await check(opened.expected);
  assert.match(await textOf(view.locator('[data-field="pooled_k"] tbody th').first()), /^p0 \(k0–3\)$/);
  const s2 = await afterTrace(() => input('pool').selectOption('max'));
  await check(wasm.run(s2));
  const s3 = await afterTrace(() => input('kernel').fill('2'));
  assert.equal(s3.kernel, 2);
  const e3 = wasm.run(s3);
  assert.equal(e3.shapes.pooled_k[1], 8);
  await check(e3);
  assert.deepEqual(problems, []);
});

test('bad input to the new algorithms: one line naming the field, beside its control; the last good result stays', async (t) => {
  const cases = [
    ['lsh-4-buckets', 'n_buckets', '3', /^n_buckets: /],
    ['performer-orthogonal', 'num_features', '0', /^num_features: /],
    ['pooling-avg', 'stride', '0', /^stride: /],
  ];
  for (const [preset, key, text, message] of cases) {
    if (!hasPreset(preset)) { t.diagnostic(`no ${preset}`); continue; }
    await samePage(page, preset);
    const before = await traceOf(page);
    await input(key).fill(text);
    await settle(page);
    const slot = el().locator(`[data-slot="field:${key}"]`);
    await slot.waitFor({ state: 'visible' });
    const shown = await textOf(slot);
    assert.match(shown, message);
    assert.equal(shown.split('\n').length, 1);
    assert.equal(await slot.getAttribute('data-fields'), key);
    // the core says the same about the same scenario
    const s = await scenarioOf(page);
    assert.throws(() => wasm.run(s), (e) => e.field === key && e.message === shown);
    assert.deepEqual(await traceOf(page), before);
    assert.equal(await el().locator('.stale-note').isVisible(), true);
  }
  assert.deepEqual(problems, []);
});
