// The rest of d2l's attention chapter on the page (issue 9): Bahdanau training in the tab (off the
// main thread, progress, cancel, the loss and the held-out weights), the shape test, the complexity
// table, positional encoding explained, the 1/√d argument, additive attention's features. Numbers
// are checked against the WASM module run in node on the same scenario. Headless Chromium against
// dist/ served with its CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { load } from '../../wasm/attnplay.mjs';
import { assertCells, launch, openUrl, samePage, scenarioOf, traceOf, settle, textOf } from './harness.mjs';

let browser, page, base, problems, wasm;
const SHOTS = process.env.SHOTS_DIR; // screenshots of each view when set (e.g. /tmp/shots9)

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch({ ownBrowser: true }));
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();
const view = (field) => el().locator(`[data-field="${field}"]`).first();
/** Opens the results' section `name` (a <details> below the flow, closed on presets not about it). */
const openSection = (name) => el().locator(`details.dive[data-dive="${name}"]`).evaluate((d) => { d.open = true; });
async function shot(name, field) {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  await view(field).screenshot({ path: `${SHOTS}/${name}.png` });
}

/** Sets a scenario through the element's API and waits for its trace event (training: when done). */
async function setAndWait(scenario, timeout = 30000) {
  const out = await page.evaluate(([s, ms]) => new Promise((resolve, reject) => {
    const e = document.querySelector('attention-playground');
    const t0 = performance.now();
    const timer = setTimeout(() => reject(new Error('no trace in time')), ms);
    e.addEventListener('trace', (ev) => { clearTimeout(timer); resolve({ ms: performance.now() - t0, loss: ev.detail.loss ?? null }); }, { once: true });
    e.setScenario(s);
  }), [scenario, timeout]);
  await settle(page);
  return out;
}

const mirrored = (t, words) => words - 1 - t;

test('Bahdanau: the quick preset trains in a worker; the loss points are the trace\'s', async () => {
  await openUrl(page, `${base}#preset=bahdanau-train-reverse-quick`);
  const scenario = await scenarioOf(page);
  const expected = wasm.run(scenario);
  await view('loss-points').waitFor();
  const points = await view('loss-points').locator('circle').evaluateAll((cs) => cs.map((c) => Number(c.dataset.value)));
  assert.equal(points.length, expected.loss.length);
  points.forEach((p, i) => assert.ok(Math.abs(p - expected.loss[i]) <= 1e-12, `loss[${i}]: ${p} vs ${expected.loss[i]}`));
  assert.match(await textOf(view('train-status')), /in a worker/);
  await assertCells(el(), 'heldout_weights', expected.heldout_weights);
  assert.equal(await view('predicted').getAttribute('data-value'), expected.predicted.join(' '));
  // the trained weights (trace trained_weights): each parameter's name, torch's shape and mean |w|
  const shape = (t) => (Array.isArray(t) ? [t.length, ...shape(t[0])] : []);
  const rows = await view('trained_weights').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), Object.keys(expected.trained_weights));
  assert.deepEqual(rows.map((r) => r[1]), Object.values(expected.trained_weights).map((t) => `(${shape(t).join(', ')})`));
  // its table scrolls sideways on a phone: a keyboard reaches it (axe's scrollable-region-focusable)
  assert.equal(await view('trained_weights').locator('.scroll').getAttribute('tabindex'), '0');
  // its button puts them on the clipboard as the scenario's weights JSON
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await view('trained_weights').locator('button').click();
  // the button's status says "copied" once the clipboard holds the text (as pytorch.test waits);
  // a waitForFunction on an async predicate took its promise as truthy at once: a flake
  await view('trained_weights').locator('[role=status]').filter({ hasText: 'copied' }).waitFor({ timeout: 30000 });
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  assert.deepEqual(copied, (await traceOf(page)).trained_weights);
  const flat = (w) => Object.keys(w).sort().flatMap((k) => [w[k]].flat(9));
  const [a, b] = [flat(copied), flat(expected.trained_weights)];
  assert.equal(a.length, b.length);
  assert.ok(a.every((x, i) => Math.abs(x - b[i]) <= 1e-12 * Math.max(1, Math.abs(b[i]))), 'the page\'s trained weights are the core\'s');
});

test('Bahdanau: default training (train: {}) in the page equals the core; the held-out weights find the anti-diagonal', async () => {
  const { ms, loss } = await setAndWait({ algorithm: 'bahdanau', train: {} });
  console.log(`# default training in the page: ${(ms / 1000).toFixed(2)} s (20 epochs)`);
  assert.equal(loss.length, 20);
  const trace = await traceOf(page);
  const expected = wasm.run({ algorithm: 'bahdanau', train: {} });
  trace.loss.forEach((l, i) => assert.ok(Math.abs(l - expected.loss[i]) <= 1e-12));
  assert.ok(trace.loss.at(-1) < trace.loss[0] / 10, 'the loss falls below a tenth of the first epoch\'s');
  const points = await view('loss-points').locator('circle').evaluateAll((cs) => cs.map((c) => Number(c.dataset.value)));
  assert.deepEqual(points, trace.loss);
  const words = trace.heldout_valid_len - 1;
  await assertCells(el(), 'heldout_weights', trace.heldout_weights);
  for (let t = 0; t < words; t++) { // the word steps; the <eos> step has no mirrored word
    const row = trace.heldout_weights[t];
    const argmax = row.indexOf(Math.max(...row));
    assert.equal(argmax, mirrored(t, words), `step ${t}: argmax ${argmax}`);
  }
  const note = view('heldout-argmax');
  assert.equal(await note.getAttribute('data-hits'), await note.getAttribute('data-rows'));
  await shot('bahdanau-trained', 'bahdanau');
});

test('Bahdanau: cancel ends the worker, keeps the last good trace, and the page stays usable', async () => {
  const before = await traceOf(page);
  await page.evaluate(() => document.querySelector('attention-playground').setScenario({ algorithm: 'bahdanau', train: { epochs: 40, task: 'copy' } }));
  await settle(page);
  const bar = el().locator('[data-part="training"] [role="progressbar"]');
  await page.waitForFunction(() => {
    const b = document.querySelector('attention-playground').shadowRoot.querySelector('[data-part="training"] [role="progressbar"]');
    return b && Number(b.getAttribute('aria-valuenow')) > 0;
  }, null, { timeout: 20000 });
  assert.ok(Number(await bar.getAttribute('aria-valuenow')) < 100);
  await shot('bahdanau-training', 'bahdanau');
  // the main thread is free while it trains
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => setTimeout(r, 10)));
  assert.ok(Date.now() - t0 < 500);
  await el().locator('[data-key="train.cancel"]').click();
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-part="training"]')?.dataset.status === 'cancelled');
  const after = await traceOf(page);
  assert.deepEqual(after.loss, before.loss, 'the last good trace stays');
  assert.match(await textOf(view('train-status')), /Cancelled/);
  await setAndWait({ ...(await wasm.presets()).find((p) => p.name === 'bahdanau-train-reverse-quick').scenario });
});

test('Bahdanau: d2l\'s shape test prints its shapes', async () => {
  await samePage(page, 'd2l-bahdanau-shapes');
  await view('d2l-shapes').waitFor(); // the chapter's views load on demand
  const shapes = Object.fromEntries(await view('d2l-shapes').locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.label, r.querySelector('td[data-value]').dataset.value])));
  assert.deepEqual(shapes, { 'output.shape': '(4, 7, 10)', 'len(state)': '3', 'state[0].shape': '(4, 7, 16)',
    'len(state[1])': '2', 'state[1][0].shape': '(4, 16)' });
  await assertCells(el(), 'weights', (await traceOf(page)).weights);
  await shot('bahdanau-shapes', 'bahdanau');
});

test('complexity table: the three rows at n, d, k and the measured dot products', async () => {
  await samePage(page, 'd2l-positional-encoding');
  await openSection('complexity');
  await view('complexity-table').waitFor();
  const cell = (row, arch) => view('complexity-table').locator(`tr[data-row="${row}"] td[data-arch="${arch}"]`).getAttribute('data-value');
  const check = async (n, d, k) => {
    assert.equal(Number(await cell('cost', 'cnn')), k * n * d * d);
    assert.equal(Number(await cell('cost', 'rnn')), n * d * d);
    assert.equal(Number(await cell('cost', 'self')), n * n * d);
    assert.equal(Number(await cell('sequential', 'cnn')), 1);
    assert.equal(Number(await cell('sequential', 'rnn')), n);
    assert.equal(Number(await cell('sequential', 'self')), 1);
    assert.ok(Math.abs(Number(await cell('path', 'cnn')) - n / k) < 1e-12);
    assert.equal(Number(await cell('path', 'rnn')), n);
    assert.equal(Number(await cell('path', 'self')), 1);
  };
  await check(256, 64, 3);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="complexity-measured"]')?.dataset.status === 'done', null, { timeout: 60000 });
  const measured = Object.fromEntries(await view('complexity-measured').locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.algorithm, Number(r.dataset.dotProducts)])));
  assert.equal(measured.full, 256 * 256);
  assert.equal(measured.local, 256 * 3 - 2, 'local window 1: three keys a query but at the ends');
  for (const name of ['prob', 'linear', 'linformer', 'lsh', 'pooling', 'performer']) assert.ok(measured[name] > 0, name);
  assert.ok(measured.prob < measured.full && measured.lsh < measured.full && measured.pooling < measured.full);
  const marker = await view('measured.full').getAttribute('data-value');
  assert.equal(Number(marker), 256 * 256 * 64, 'the marker is dot_products × d');
  await shot('complexity', 'complexity');
  // the slider for n: 2^6
  await el().locator('[data-key="complexity.n"]').fill('6');
  await settle(page);
  await el().locator('[data-key="complexity.n"]').dispatchEvent('change');
  await settle(page);
  await check(64, 64, 3);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="complexity-measured"]')?.dataset.status === 'done', null, { timeout: 60000 });
  assert.equal(Number(await view('complexity-measured').locator('tr[data-algorithm="full"]').getAttribute('data-dot-products')), 64 * 64);
});

test('positional encoding: columns 6-9, the binary analogy, the rotation reproduces P_{i+δ} to 1e-12', async () => {
  await samePage(page, 'd2l-positional-encoding');
  await view('positional').waitFor();
  const trace = await traceOf(page);
  for (const c of [6, 7, 8, 9]) {
    const ys = await view(`pe-col-${c}`).evaluate((g) => g.querySelector('path').getAttribute('d').split(/[ML]/).filter(Boolean).length);
    assert.equal(ys, trace.P.length, `column ${c}: a point per position`);
  }
  await assertCells(el(), 'pe-high', trace.P.slice(0, 8).map((r) => r.slice(0, 6)));
  assert.deepEqual(await view('pe-binary').locator('td.bits').evaluateAll((tds) => tds.map((t) => t.dataset.value)),
    ['000', '001', '010', '011', '100', '101', '110', '111']);
  const err = Number(await view('pe-rotation-error').getAttribute('data-value'));
  assert.ok(err < 1e-12 && err > 0, `max error ${err}`);
  // the same arithmetic, independently, on the trace's P for every δ
  const d = trace.P[0].length;
  for (const delta of [1, 3, 17]) {
    let worst = 0;
    for (let i = 0; i + delta < trace.P.length; i++) {
      for (let j = 0; j < d / 2; j++) {
        const w = 1 / 10000 ** ((2 * j) / d);
        const [s, c] = [trace.P[i][2 * j], trace.P[i][2 * j + 1]];
        worst = Math.max(worst, Math.abs(Math.cos(delta * w) * s + Math.sin(delta * w) * c - trace.P[i + delta][2 * j]),
          Math.abs(-Math.sin(delta * w) * s + Math.cos(delta * w) * c - trace.P[i + delta][2 * j + 1]));
      }
    }
    assert.ok(worst < 1e-12, `δ = ${delta}: ${worst}`);
  }
  await el().locator('[data-key="pe.delta"]').fill('17');
  await settle(page);
  await el().locator('[data-key="pe.delta"]').dispatchEvent('change');
  await settle(page);
  assert.equal(await view('pe-rotation-error').getAttribute('data-delta'), '17');
  assert.ok(Number(await view('pe-rotation-error').getAttribute('data-value')) < 1e-12);
  await shot('positional', 'positional');
  // the controls are scenario properties
  await el().locator('[data-key="encoding_dim"]').fill('16');
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').trace?.shapes?.P?.[1] === 16);
  await settle(page);
  assert.ok(Number(await view('pe-rotation-error').getAttribute('data-value')) < 1e-12);
  // in Chinese
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await settle(page);
  assert.match(await textOf(view('positional').locator('h3')), /位置编码/);
  assert.match(await textOf(view('complexity').locator('h3')), /自注意力/);
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'en'));
  await settle(page);
});

test('the 1/√d argument: Var(q·k) ≈ d and Var(q·k/√d) ≈ 1 over 2000 draws; softmax with and without the scale', async () => {
  await samePage(page, 'softmax-toy');
  await openSection('scale');
  // d is the scenario's E (1 in the toy) until set: at d = 64 the scale matters
  assert.equal(await el().locator('[data-key="scale.d"]').inputValue(), '1');
  await el().locator('[data-key="scale.d"]').fill('64');
  await el().locator('[data-key="scale.d"]').dispatchEvent('change');
  await settle(page);
  await view('scale-stats').waitFor();
  const value = async (f) => Number(await view('scale-stats').locator(`tr[data-field="${f}"]`).getAttribute('data-value'));
  // sampling error of a variance over n = 2000 draws of a sum of d products: sd ≈ sqrt((2d² + 6d)/n) ≈ 2.1 at d = 64
  const d = 64;
  assert.ok(Math.abs((await value('variance')) - d) < 5 * Math.sqrt((2 * d * d + 6 * d) / 2000), `Var(q·k) = ${await value('variance')}`);
  assert.ok(Math.abs((await value('variance-scaled')) - 1) < 5 * Math.sqrt((2 * d * d + 6 * d) / 2000) / d);
  assert.ok(Math.abs(await value('mean')) < 5 * Math.sqrt(d / 2000));
  const row = async (f) => ({
    max: Number(await view(f).getAttribute('data-max')),
    cells: (await view(`${f}.weights`).locator('td[data-index]').evaluateAll((tds) => tds.map((t) => Number(t.dataset.value)))),
  });
  const scaled = await row('scale-scaled'), unscaled = await row('scale-unscaled');
  assert.equal(scaled.cells.length, 8);
  assert.ok(Math.abs(scaled.cells.reduce((a, b) => a + b) - 1) < 1e-12 && Math.abs(unscaled.cells.reduce((a, b) => a + b) - 1) < 1e-12);
  assert.ok(unscaled.max > scaled.max, 'unscaled, the softmax is peakier');
  await shot('scale', 'scale-view');
  // another d: 16
  await el().locator('[data-key="scale.d"]').fill('16');
  await settle(page);
  await el().locator('[data-key="scale.d"]').dispatchEvent('change');
  await settle(page);
  assert.ok(Math.abs((await value('variance')) - 16) < 5 * Math.sqrt((2 * 256 + 96) / 2000));
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await settle(page);
  // the view is drawn again in Chinese: wait for its intro to say so
  await page.waitForFunction(() => /方差/.test(document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-field="scale-view"] .intro')?.textContent ?? ''));
  assert.match(await textOf(view('scale-view').locator('h3')), /1\/√d/);
  assert.match(await textOf(view('scale-view').locator('.intro')), /方差/);
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'en'));
  await settle(page);
});

test('additive attention: the features (B, L_Q, L_K, h) and features · w_v = scores', async () => {
  await samePage(page, 'd2l-additive');
  await view('additive').waitFor();
  const expected = wasm.run(await scenarioOf(page));
  assert.equal(await assertCells(el(), 'additive.features', expected.features), 10 * 8);
  await assertCells(el(), 'additive.scores', expected.scores);
  assert.ok(Number(await view('additive-check').getAttribute('data-value')) < 1e-12);
  await shot('additive', 'additive');
  // batch item 1
  await el().locator('[data-field="slice"] select, .slicebar select').first().selectOption('1').catch(() => {});
});

test('no console errors or CSP violations', async () => {
  const csp = await page.evaluate(() => window.__csp);
  assert.deepEqual(csp, []);
  assert.deepEqual(problems, []);
});
