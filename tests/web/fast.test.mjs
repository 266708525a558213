// Issue 8, the page's part: the WASM as its own file (streamed) and views loaded on demand; the
// single file still alone from file://; large maps on a canvas whose hover gives the trace's exact
// value; an edit updates the edited cell's row and column to the new trace's; the flash step view's
// numbers are the trace's. Headless Chromium against dist/ served by scripts/serve.mjs (its CSP).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { assertCells, dist, launch, nested, openUrl, samePage, scenarioOf, seededTensor, setScenario, traceOf, settle, textOf } from './harness.mjs';

let page, base, problems, browser, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();

/** Types `text` into the grid cell `key` as a learner does (an `input` event); resolves at the
 * element's trace event, with the trace where `detail` is asked for. */
const typeCell = (key, text, detail = false) => page.evaluate(({ key, text, detail }) => new Promise((resolve) => {
  const e = document.querySelector('attention-playground');
  e.addEventListener('trace', (ev) => resolve(detail ? ev.detail : undefined), { once: true });
  const input = e.shadowRoot.querySelector(`[data-key="${key}"]`);
  input.value = text;
  input.dispatchEvent(new Event('input', { bubbles: true }));
}), { key, text, detail });

/** Hovers cell (i, j) of the canvas map `field`; returns what the map says about it. */
async function hover(field, i, j, exactCell = true) {
  const fig = el().locator(`figure[data-field="${field}"]`);
  const canvas = fig.locator('canvas');
  // off-screen results are laid out when scrolled to (content-visibility): wait until the box is still
  let box = null;
  for (let tries = 0; tries < 20; tries++) {
    await canvas.scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const next = await canvas.boundingBox();
    if (box && next && Math.abs(next.x - box.x) < 0.5 && Math.abs(next.y - box.y) < 0.5) break;
    box = next;
  }
  const rows = Number(await fig.getAttribute('data-rows')), cols = Number(await fig.getAttribute('data-cols'));
  await page.mouse.move(box.x + ((j + 0.5) / cols) * box.width, box.y + ((i + 0.5) / rows) * box.height);
  const out = fig.locator('output.map-hover');
  await page.waitForFunction(([f, r, c, exactCell]) => {
    const o = document.querySelector('attention-playground').shadowRoot.querySelector(`figure[data-field="${f}"] output.map-hover`);
    return exactCell ? o?.dataset.row === String(r) && o?.dataset.col === String(c)
      : Math.abs(Number(o?.dataset.row) - r) <= 1 && Math.abs(Number(o?.dataset.col) - c) <= 1;
  }, [field, i, j, exactCell]);
  // index and value read together: the line may move on between two reads (a layout change under a still pointer)
  const [index, value] = await out.evaluate((o) => [o.dataset.index, o.dataset.value]);
  return { index, value: Number(value) };
}

test('first load: the WASM is a file of its own, streamed as application/wasm; the element module is small', async () => {
  const wasmResponses = [];
  const onResponse = (r) => { if (r.url().endsWith('.wasm')) wasmResponses.push(r); };
  page.on('response', onResponse);
  await page.addInitScript(() => document.addEventListener('trace', () => { window.__firstTrace ??= performance.now(); }));
  await openUrl(page, base + '#preset=softmax-toy');
  page.off('response', onResponse);
  // the first trace needs one .wasm (the whole module follows it by design, 250 ms later: it may
  // already be under way when the page has settled on a loaded machine)
  const beforeTrace = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => /\.wasm$/.test(e.name) && e.startTime < window.__firstTrace).map((e) => e.name));
  assert.equal(beforeTrace.length, 1, `one .wasm fetched before the first trace: ${beforeTrace.join(', ')}`);
  assert.match(beforeTrace[0], /attnplay_first-/);
  assert.ok(wasmResponses.length >= 1);
  assert.equal(wasmResponses[0].headers()['content-type'], 'application/wasm');
  const js = fs.readFileSync(path.join(dist, 'attention-playground.js'), 'utf8');
  assert.doesNotMatch(js, /data:application\/octet-stream;base64,AGFzbQ/, 'no inlined wasm in the element module');
  assert.ok(js.length < 200_000, `attention-playground.js is ${js.length} bytes`);
  assert.ok(fs.readdirSync(path.join(dist, 'assets')).some((f) => /^attnplay_core-.*\.wasm$/.test(f)));
  // the numbers are still the core's
  const trace = await traceOf(page);
  assert.ok(Math.abs(nested(trace.context, '0,0,0,0') - 7.552715289452022) < 1e-12);
  assert.deepEqual(problems, []);
});

test('the single file works from file:// with no other file: the WASM inlined, nothing fetched', async () => {
  const file = path.join(dist, 'attention-playground.html');
  const html = fs.readFileSync(file, 'utf8');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+(stylesheet|modulepreload)/);
  const requests = [];
  const onRequest = (r) => { if (!r.url().startsWith('data:')) requests.push(r.url()); };
  await page.goto('about:blank');  // the page before may still fetch (index.html loads its whole module after the first trace)
  page.on('request', onRequest);
  await page.goto('file://' + file + '#preset=prob-toy');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  await settle(page);
  // the prob view (a chunk of its own on index.html) is inlined here
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-steps]'));
  await settle(page);
  page.off('request', onRequest);
  assert.deepEqual(requests.filter((u) => !u.startsWith('file://' + file)), [], 'only the file itself');
  const trace = await traceOf(page);
  assert.equal(trace.algorithm, 'prob');
});

test('a view that is not needed at first (ProbAttention) is loaded when it is', async () => {
  const chunks = [];
  const onResponse = (r) => { if (/\/assets\/.*\.js$/.test(r.url())) chunks.push(r.url().replace(/^.*\/assets\//, '')); };
  page.on('response', onResponse);
  await openUrl(page, base + '#preset=softmax-toy');
  assert.ok(!chunks.some((c) => /^(prob|pitfalls|performer|sparse|flash)-/.test(c)), `loaded at first: ${chunks.join(', ')}`);
  await el().locator('[data-key="preset"]').selectOption('prob-toy');
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-steps]'));
  await settle(page);
  page.off('response', onResponse);
  assert.ok(chunks.some((c) => /^prob-/.test(c)), `then: ${chunks.join(', ')}`);
});

test('a map above 400 cells is a canvas; hovering a pixel gives the exact value of the trace at that cell', async () => {
  await samePage(page, 'softmax-toy');
  const L = 40;
  await setScenario(page, { algorithm: 'full', q: seededTensor(L, 8, 1), k: seededTensor(L, 8, 2), v: seededTensor(L, 8, 3), mask: { kind: 'causal' } });
  await settle(page);
  const trace = await traceOf(page);
  assert.equal(await el().locator('figure[data-field="scores"] canvas').count(), 1);
  assert.equal(await el().locator('figure[data-field="scores"] td').count(), 0);
  for (const [field, i, j] of [['weights', 0, 0], ['weights', 17, 5], ['weights', 39, 39], ['scores', 22, 31], ['scores', 3, 2]]) {
    const got = await hover(field, i, j);
    assert.equal(got.index, `0,0,${i},${j}`);
    assert.equal(got.value, nested(trace[field], got.index), `${field}[${got.index}]`);
  }
  // context (40 × 8 = 320 cells) stays a table with its values written in
  assert.ok(await el().locator('figure[data-field="context"] td[data-index]').count() === L * 8);
});

test('a map wider than the pixels is downsampled, with a note; hover still gives the exact cell', async () => {
  await openUrl(page, base + '#preset=softmax-toy');  // a fresh load: its hover did not find the cell after a switch
  const L = 700;
  await setScenario(page, { algorithm: 'full', trace: 'full', q: seededTensor(L, 2, 4), k: seededTensor(L, 2, 5), v: seededTensor(L, 2, 6) });
  await settle(page);
  const fig = el().locator('figure[data-field="weights"]');
  assert.equal(await fig.getAttribute('data-downsampled'), '2');
  assert.match(await textOf(fig.locator('.dims-note')), /downsampled/);
  const got = await hover('weights', 351, 128, false);
  // the trace's value at that cell (read in the page: the whole 700 × 700 trace need not cross over)
  const want = await page.evaluate((index) => index.split(',').map(Number)
    .reduce((a, i) => a[i], document.querySelector('attention-playground').trace.weights), got.index);
  assert.equal(typeof want, 'number');
  assert.equal(got.value, want);
  const [, , i, j] = got.index.split(',').map(Number);
  assert.ok(Math.abs(i - 351) <= 1 && Math.abs(j - 128) <= 1, got.index);
});

test('an edit updates the edited cell\'s row and column (and every other map value) to the new trace\'s', async () => {
  await samePage(page, 'softmax-toy');
  const L = 24; // q, k, v: 24 × 8 cells, editable; scores 24 × 24: a canvas
  await setScenario(page, { algorithm: 'full', q: seededTensor(L, 8, 7), k: seededTensor(L, 8, 8), v: seededTensor(L, 8, 9) });
  await settle(page);
  const before = await traceOf(page);
  await typeCell('k[0][5][0][2]', '2.5');
  await settle(page);
  const scenario = await scenarioOf(page);
  assert.equal(scenario.k[0][5][0][2], 2.5);
  const expected = wasm.run(scenario);
  const trace = await traceOf(page);
  assert.deepEqual(trace.scores, expected.scores);
  // key 5's column of scores changed; every row of weights and context changed with it
  assert.notEqual(nested(before.scores, '0,0,3,5'), nested(expected.scores, '0,0,3,5'));
  for (const i of [0, 3, 23]) {
    const got = await hover('scores', i, 5);
    assert.equal(got.value, nested(expected.scores, `0,0,${i},5`), `scores[${i}][5]`);
    const w = await hover('weights', i, 11);
    assert.equal(w.value, nested(expected.weights, `0,0,${i},11`), `weights[${i}][11]`);
  }
  const cells = await el().locator('figure[data-field="context"] td[data-index]').evaluateAll((tds) =>
    tds.map((td) => [td.dataset.index, Number(td.dataset.value)]));
  assert.equal(cells.length, L * 8);
  for (const [index, v] of cells) assert.equal(v, nested(expected.context, index), `context[${index}]`);
  // the edited input keeps its text and focus-free state; the other inputs are untouched
  assert.equal(await el().locator('[data-key="k[0][5][0][2]"]').inputValue(), '2.5');
  assert.equal(Number(await el().locator('[data-key="k[0][5][0][3]"]').inputValue()), scenario.k[0][5][0][3]);
});

test('a table map\'s numbers sit in blocks of fixed size once drawn (the table looks as before); a longer number is fitted again', async () => {
  await samePage(page, 'softmax-toy');
  await settle(page);
  const idle = () => page.evaluate(() => new Promise((r) => requestIdleCallback(() => requestIdleCallback(() => r(), { timeout: 2000 }), { timeout: 2000 })));
  /** The map's cells' widths, its numbers' overflow, and whether it holds them; `release`: as without the blocks. */
  const state = (field, release = false) => el().locator(`figure[data-field="${field}"] table`).evaluate((table, rel) => {
    if (rel) { table.classList.remove('held'); for (const td of table.querySelectorAll('td')) td.style.removeProperty('min-width'); }
    const spans = [...table.querySelectorAll('td > span.v')];
    return { held: table.classList.contains('held'), widths: [...table.rows[1].cells].map((c) => c.getBoundingClientRect().width),
      blocks: spans.filter((s) => getComputedStyle(s).contain.includes('size')).length, spans: spans.length,
      overflow: spans.filter((s) => s.scrollWidth > s.clientWidth).map((s) => s.textContent) };
  }, release);
  for (const field of ['weights', 'context']) {
    await el().locator(`figure[data-field="${field}"]`).scrollIntoViewIfNeeded();
    await idle();
    const held = await state(field);
    assert.ok(held.held && held.spans > 0 && held.blocks === held.spans, `${field}: ${JSON.stringify(held)}`);
    const free = await state(field, true);
    held.widths.forEach((w, j) => assert.ok(Math.abs(w - free.widths[j]) < 0.5, `${field} column ${j}: ${w} held, ${free.widths[j]} without`));
  }
  // v[0][0][0][0] = 12345.678: the context's numbers get longer than their blocks; fitted again in idle time
  await typeCell('v[0][0][0][0]', '12345.678');
  await settle(page);
  await idle();
  const after = await state('context');
  assert.ok(after.held && after.overflow.length === 0, JSON.stringify(after));
  const texts = await el().locator('figure[data-field="context"] td > span.v').allTextContents();
  assert.ok(texts.some((x) => x.replace(/[^0-9]/g, '').length >= 5), texts.join(' '));
  // a narrower page: the legends, held at their height, wrap further and are fitted again
  // (d2l-multihead's: one line at 1366 px, two at 300)
  await samePage(page, 'd2l-multihead');
  await settle(page);
  await idle();
  const viewport = page.viewportSize();
  const legends = () => el().locator('.map-legend').evaluateAll((ls) => ls.filter((l) => l.checkVisibility({ contentVisibilityAuto: true }))
    .map((l) => ({ held: l.classList.contains('held'), over: l.scrollHeight - l.clientHeight })));
  try {
    await page.setViewportSize({ width: 300, height: viewport.height });
    await idle();
    const narrow = await legends();
    assert.ok(narrow.length > 0 && narrow.every((l) => l.over <= 0), JSON.stringify(narrow));
  } finally {
    await page.setViewportSize(viewport);
  }
});

test('edits update the drawn maps in place: what is on screen shows the trace when its event fires, the rest once settled', async () => {
  await samePage(page, 'linformer-k4');
  // the results' weights map on screen (the inputs above it scroll away); the sections above it
  // take their real height once drawn (content-visibility), so scroll until it stays in view
  const weightsMap = el().locator('.panel-results > .maps figure[data-field="weights"]');
  for (let tries = 0; tries < 20; tries++) {
    await weightsMap.evaluate((f) => f.scrollIntoView({ block: 'center' }));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 30)))));
    const box = await weightsMap.boundingBox();
    if (box && box.y >= 0 && box.y + box.height <= 1000) break;
  }
  const box = await weightsMap.boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= 1000, `the weights map is on screen: ${JSON.stringify(box)}`);
  // mark drawn nodes: an update keeps them (the same figure, table cell and canvas-free table)
  await page.evaluate(() => {
    const r = document.querySelector('attention-playground').shadowRoot;
    for (const f of ['weights', 'context', 'implied.weights', 'E_proj']) {
      const fig = r.querySelector(`figure[data-field="${f}"]`);
      fig.__kept = f;
      fig.querySelector('td[data-index]').__kept = f;
    }
  });
  const edits = [];
  for (let n = 0; n < 30; n++) edits.push({ key: `${'qkv'[n % 3]}[0][${(5 * n) % 16}][0][${n % 4}]`, text: String(((n * 37) % 17 - 8) / 4) });
  for (const { key, text } of edits) {
    // at the trace event, the map on screen already shows that trace's weights
    const seen = await page.evaluate(({ key, text }) => new Promise((resolve) => {
      const e = document.querySelector('attention-playground');
      e.addEventListener('trace', (ev) => {
        const cells = [...e.shadowRoot.querySelectorAll('.panel-results > .maps figure[data-field="weights"] td[data-index]')]
          .map((td) => [td.dataset.index, Number(td.dataset.value)]);
        resolve({ cells, weights: ev.detail.weights });
      }, { once: true });
      const input = e.shadowRoot.querySelector(`[data-key="${key}"]`);
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }), { key, text });
    assert.equal(seen.cells.length, seen.weights[0][0].length * seen.weights[0][0][0].length);
    for (const [index, v] of seen.cells) assert.equal(v, nested(seen.weights, index), `${key}: weights[${index}] at the trace event`);
  }
  await settle(page);
  const scenario = await scenarioOf(page);
  for (const { key, text } of edits.slice(-3)) assert.equal(nested(scenario[key[0]], key.slice(1).replace(/\]\[/g, ',').replace(/[[\]]/g, '')), Number(text));
  const expected = wasm.run(scenario);
  assert.deepEqual(await traceOf(page), expected);
  // every map, on screen or not, shows the last trace's numbers
  const host = el();
  await assertCells(host.locator('.panel-results > .maps'), 'scores', expected.scores);
  await assertCells(host.locator('.panel-results > .maps'), 'weights', expected.weights);
  await assertCells(host.locator('.panel-results > .maps'), 'context', expected.context);
  await assertCells(host, 'implied.weights', expected.weights);
  await assertCells(host, 'E_proj', expected.E_proj);
  await assertCells(host, 'approx.context', expected.context);
  await assertCells(host, 'exact_context', expected.exact_context);
  // and the drawn nodes were kept, not rebuilt
  const kept = await page.evaluate(() => {
    const r = document.querySelector('attention-playground').shadowRoot;
    return ['weights', 'context', 'implied.weights', 'E_proj'].map((f) => {
      const fig = r.querySelector(`figure[data-field="${f}"]`);
      return fig.__kept === f && fig.querySelector('td[data-index]').__kept === f;
    });
  });
  assert.deepEqual(kept, [true, true, true, true]);
  // with nobody asking (no `settled`), the parts off screen follow by themselves in idle time
  const last = await typeCell('v[0][3][0][1]', '3.25', true);
  await page.waitForFunction(() => {
    const r = document.querySelector('attention-playground').shadowRoot;
    const e = document.querySelector('attention-playground');
    const cells = [...r.querySelectorAll('figure[data-field="approx.context"] td[data-index]')];
    const at = (t, index) => index.split(',').map(Number).reduce((a, i) => a[i], t);
    return cells.length > 0 && cells.every((td) => Number(td.dataset.value) === at(e.trace.context, td.dataset.index));
  }, null, { timeout: 5000 });
  const offscreen = await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('figure[data-field="exact_context"] td[data-index]')].map((td) => [td.dataset.index, Number(td.dataset.value)]));
  for (const [index, v] of offscreen) assert.equal(v, nested(last.exact_context, index), `exact_context[${index}] in idle time`);
});

test('a view whose inputs an edit does not change stays as drawn (the sparse patterns); the maps follow the edits', async (t) => {
  if (!wasm.presets().some((p) => p.name === 'sparse-local')) { t.skip('no sparse-local preset'); return; }
  await samePage(page, 'sparse-local');
  await page.evaluate(() => { document.querySelector('attention-playground').shadowRoot.querySelector('[data-field="sparse"]').__kept = true; });
  const counts = async () => page.evaluate(() => {
    const r = document.querySelector('attention-playground').shadowRoot;
    return ['local', 'atrous', 'strided'].map((k) => r.querySelectorAll(`[data-field="pattern-${k}"] td[data-index]`).length);
  });
  const before = await counts();
  for (const [key, text] of [['q[0][1][0][0]', '0.75'], ['k[0][2][0][1]', '-1.5'], ['v[0][0][0][0]', '2'], ['q[0][1][0][0]', '-0.25']]) {
    await typeCell(key, text);
  }
  await settle(page);
  const scenario = await scenarioOf(page);
  assert.equal(scenario.q[0][1][0][0], -0.25);
  const expected = wasm.run(scenario);
  assert.ok(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-field="sparse"]').__kept === true));
  assert.deepEqual(await counts(), before);
  const L = scenario.q[0].length;
  assert.deepEqual(before, [L * L, L * L, L * L]);
  const host = el().locator('.panel-results > .maps');
  await assertCells(host, 'allowed', expected.allowed);
  await assertCells(host, 'weights', expected.weights);
  await assertCells(host, 'context', expected.context);
  // the local pattern's cost is the core's for that mask
  const local = wasm.run({ algorithm: 'full', q: scenario.q, k: scenario.k, v: scenario.v, mask: { kind: 'local', window: scenario.mask.window } });
  assert.equal(Number(await el().locator('[data-field="cost-local"]').getAttribute('data-dot-products')), local.cost.dot_products);
});

test('an edit takes no kept view off the page: the sparse patterns\' section and the step formulas stay where they are drawn', async (t) => {
  if (!wasm.presets().some((p) => p.name === 'sparse-local')) { t.skip('no sparse-local preset'); return; }
  await samePage(page, 'sparse-local');
  // the formulas are a lazy chunk: there once settled
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelectorAll('.step-formula math').length > 0);
  const removed = await page.evaluate(async () => {
    const e = document.querySelector('attention-playground');
    const root = e.shadowRoot;
    const watched = [root.querySelector('[data-field="sparse"]'), ...root.querySelectorAll('.step-formula > *')];
    const gone = new Set();
    const note = (records) => {
      for (const r of records) for (const n of r.removedNodes) for (const w of watched) if (n === w || n.contains?.(w)) gone.add(w);
    };
    const seen = new MutationObserver(note);
    seen.observe(root, { childList: true, subtree: true });
    for (const text of ['0.75', '-1.5', '2']) {
      await new Promise((resolve) => {
        e.addEventListener('trace', () => resolve(), { once: true });
        const input = root.querySelector('[data-key="q[0][1][0][0]"]');
        input.value = text;
        input.dispatchEvent(new Event('input', { bubbles: true }));
      });
    }
    await e.settled;
    note(seen.takeRecords());
    seen.disconnect();
    return { watched: watched.length, gone: [...gone].map((w) => w.dataset?.field ?? w.textContent.slice(0, 30)),
      connected: watched.every((w) => w.isConnected), standIns: root.querySelectorAll('kept-node').length };
  });
  assert.ok(removed.watched >= 3, `watched ${removed.watched}`);
  assert.deepEqual(removed.gone, [], 'taken off the page by an edit');
  assert.ok(removed.connected);
  assert.equal(removed.standIns, 0, 'no stand-in left on the page');
  assert.deepEqual(problems, []);
});

test('flash: each key block\'s running max, rescale factor, running sum and output are the trace\'s; the last block equals full attention', async (t) => {
  const algorithms = wasm.algorithms().map((a) => a.name);
  if (!algorithms.includes('flash')) {
    t.skip('the core registers no `flash` yet');
    return;
  }
  await samePage(page, 'softmax-toy');
  const scenario = { algorithm: 'flash', block_q: 2, block_k: 2, q: seededTensor(5, 3, 11), k: seededTensor(5, 3, 12), v: seededTensor(5, 3, 13) };
  await setScenario(page, scenario);
  await settle(page);
  const trace = await traceOf(page);
  const expected = wasm.run(scenario);
  const full = wasm.run({ ...scenario, algorithm: 'full', block_q: undefined, block_k: undefined });
  const T = expected.running_max[0][0][0].length;
  assert.equal(T, 3);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-field="flash"]'));
  await settle(page);
  const view = el().locator('[data-field="flash"]');
  const read = (field) => view.locator(`td[data-field="${field}"]`).evaluateAll((tds) =>
    tds.map((td) => [td.dataset.index, Number(td.dataset.value)]));
  for (let step = 0; step < T; step++) {
    await view.locator('[data-key="flash.step"]').fill(String(step));
    await settle(page);
    await page.waitForFunction((s) => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-field="flash.step"]')?.textContent.includes(`${s + 1} /`), step);
    const maxes = await read('running_max');
    const sums = await read('running_sum');
    const factors = await read('flash.factor');
    assert.equal(maxes.length, 5);
    for (const [index, v] of maxes) assert.equal(v, nested(trace.running_max, index), `running_max[${index}]`);
    for (const [index, v] of sums) assert.equal(v, nested(trace.running_sum, index), `running_sum[${index}]`);
    for (const [i, f] of factors) {
      const mNew = trace.running_max[0][0][Number(i)][step];
      const mOld = step > 0 ? trace.running_max[0][0][Number(i)][step - 1] : -Infinity;
      assert.equal(f, mOld === -Infinity ? 0 : Math.exp(mOld - mNew), `factor q${i} at block ${step}`);
    }
    const partial = await view.locator('figure[data-field="partial_context"] td[data-index]').evaluateAll((tds) =>
      tds.map((td) => [td.dataset.index, Number(td.dataset.value)]));
    for (const [index, v] of partial) assert.equal(v, nested(trace.partial_context, index), `partial_context[${index}]`);
  }
  // at the last block, the output so far is full attention's context
  const out = await view.locator('figure[data-field="flash.output"] td[data-index]').evaluateAll((tds) =>
    tds.map((td) => [td.dataset.index, Number(td.dataset.value)]));
  for (const [index, v] of out) {
    const [i, d] = index.split(',').map(Number);
    assert.ok(Math.abs(v - full.context[0][i][0][d]) <= 1e-12, `output[${index}]`);
  }
  assert.ok(Number(await view.locator('[data-field="flash.gap"]').getAttribute('data-value')) <= 1e-12);
  assert.deepEqual(problems, []);
});

test('first load: the first trace comes from the first-load module alone; the whole module follows and runs the rest', async () => {
  // in the page's own clock: what was requested before the element's first `trace` event (which
  // it dispatches once the results show the trace)
  await page.addInitScript(() => document.addEventListener('trace', () => { window.__firstTrace ??= performance.now(); }));
  await page.goto('about:blank');
  await page.goto(base);
  await page.waitForFunction(() => window.__firstTrace !== undefined);
  const beforeTrace = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.startTime <= window.__firstTrace).map((e) => new URL(e.name).pathname.split('/').pop()));
  assert.deepEqual(beforeTrace.filter((f) => f.endsWith('.wasm')).map((f) => f.replace(/-.*/, '')), ['attnplay_first'],
    `wasm fetched before the first trace: ${beforeTrace.join(', ')}`);
  assert.ok(!beforeTrace.some((f) => /^(chapter|sweep|i18n-zh|prob)-/.test(f)), `a view chunk raced the first trace: ${beforeTrace.join(', ')}`);
  const first = await traceOf(page);
  assert.ok(Math.abs(first.context[0][0][0][0] - 7.5527152894520) < 1e-12, 'the seed\'s softmax toy');
  // the whole module arrives after the first trace; then an algorithm the first-load module lacks runs
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /attnplay_core-.*\.wasm$/.test(e.name)));
  const algorithm = await page.evaluate(async () => {
    const el = document.querySelector('attention-playground');
    const traced = new Promise((resolve) => el.addEventListener('trace', (e) => resolve(e.detail.algorithm), { once: true }));
    el.setAttribute('preset', 'prob-toy');
    return traced;
  });
  assert.equal(algorithm, 'prob');
  assert.deepEqual(problems, []);
});

test('first load of a link to a preset other than the opening one: the whole module alone', async () => {
  await page.addInitScript(() => document.addEventListener('trace', () => { window.__firstTrace ??= performance.now(); }));
  // the catalog holds the opening preset's scenario alone (scripts/catalog.mjs): another preset's,
  // even one the first-load module could run, comes with the whole module
  for (const [hash, want] of [['#preset=prob-toy', ['attnplay_core']], ['#preset=d2l-masked-softmax-1d', ['attnplay_core']],
    ['#preset=softmax-toy', ['attnplay_first']]]) {
    await page.goto('about:blank');
    await page.goto(base + hash);
    await page.waitForFunction(() => window.__firstTrace !== undefined);
    const beforeTrace = await page.evaluate(() => performance.getEntriesByType('resource')
      .filter((e) => e.startTime <= window.__firstTrace).map((e) => new URL(e.name).pathname.split('/').pop()));
    assert.deepEqual(beforeTrace.filter((f) => f.endsWith('.wasm')).map((f) => f.replace(/-.*/, '')), want, `${hash}: ${beforeTrace.join(', ')}`);
  }
  const trace = await traceOf(page);
  assert.equal(trace.algorithm, 'full');
  assert.deepEqual(problems, []);
});
