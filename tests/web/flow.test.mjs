// The results' flow (issue 14, item 1): the softmax toy's whole flow on the first screen at
// 1366 x 900 and within two screens of a 390 px phone (the inputs first); each step's operation and
// shape change, the sizes those of the trace; the deep dives as named sections below, hidden by
// `controls` words; the cost lines. The first-screen tests load the page at their width; the others
// switch presets where they do not test loading (harness.mjs samePage). Headless Chromium against
// dist/ served with its CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl, samePage, settle, setScenario, traceOf } from './harness.mjs';

let page, base, problems, close;
before(async () => { ({ page, base, problems, close } = await launch()); });
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground');
/** The box of every element matching `selector` in the element's shadow root, [top, bottom, left, right]. */
const boxes = (selector) => page.evaluate((sel) => [...document.querySelector('attention-playground').shadowRoot
  .querySelectorAll(sel)].map((e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; }), selector);
const text = (loc) => loc.evaluate((e) => e.textContent.replace(/\s+/g, ' ').trim());
const tuple = (s) => `(${s.join(', ')})`;

test('1366 x 900: the softmax toy\'s scores, allowed, weights and context are on the first screen', async () => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await openUrl(page, `${base}#preset=softmax-toy`);
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  for (const field of ['scores', 'allowed', 'weights', 'context']) {
    const [box] = await boxes(`.panel-results > .maps [data-step="${field}"] figure[data-field="${field}"]`);
    assert.ok(box, `${field}: no map in the flow`);
    const [top, bottom, left, right] = box;
    assert.ok(top >= 0 && bottom <= 900 && left >= 0 && right <= 1366, `${field} at ${box.map(Math.round)}: not on the first screen`);
  }
  // left to right, in one row
  const [s, a, w, c] = await Promise.all(['scores', 'allowed', 'weights', 'context'].map(async (f) => (await boxes(`figure[data-field="${f}"]`))[0]));
  assert.ok(s[2] < a[2] && a[2] < w[2] && w[2] < c[2], 'scores -> allowed -> weights -> context, left to right');
});

test('390 px phone: the inputs, then the flow; the weights within two screens', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openUrl(page, `${base}#preset=softmax-toy`);
  const [tensors] = await boxes('[data-panel="tensors"]');
  const [results] = await boxes('[data-panel="results"]');
  const [algorithmPanel] = await boxes('[data-panel="algorithm"]');
  const [weights] = await boxes('figure[data-field="weights"]');
  assert.ok(tensors[1] <= results[0], 'the inputs above the results');
  assert.ok(results[1] <= algorithmPanel[0], 'the side panels after the results on a phone');
  assert.ok(weights[1] <= 2 * 844, `the weights end at ${Math.round(weights[1])} px, beyond two screens`);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');
  await page.setViewportSize({ width: 1366, height: 900 });
});

test('each step: its operation, the shape change in symbols and in this trace\'s sizes, a formula slot', async () => {
  await samePage(page, 'softmax-toy');
  const { shapes } = await traceOf(page);
  const step = (f) => el().locator(`.panel-results > .maps [data-step="${f}"]`);
  assert.deepEqual(await step('inputs').locator('.chip').evaluateAll((cs) => cs.map((c) => c.textContent.replace(/\u00a0/g, ' '))),
    [`q ${tuple(shapes.q)}`, `k ${tuple(shapes.k)}`, `v ${tuple(shapes.v)}`]);
  const op = (f) => text(step(f).locator('.step-op'));
  const scores = (await op('scores')).replace(/\u00a0/g, ' ');
  assert.match(scores, /einsum blhe,bshe→bhls · scale/);
  assert.ok(scores.includes('(B, L_Q, H, E) × (B, L_K, H, E) → (B, H, L_Q, L_K)'), scores);
  assert.ok(scores.includes(`${tuple(shapes.q)} × ${tuple(shapes.k)} → ${tuple(shapes.scores)}`), scores);
  const context = (await op('context')).replace(/\u00a0/g, ' ');
  assert.ok(context.includes(`${tuple(shapes.weights)} × ${tuple(shapes.v)} → ${tuple(shapes.context)}`), context);
  assert.match((await op('weights')), /softmax\(dim=-1\)/);
  // the hook for the formula beside each step (explain-ui fills it)
  for (const f of ['scores', 'allowed', 'weights', 'context']) assert.equal(await step(f).locator('.step-op .step-formula').count(), 1, f);
  // a larger scenario: the sizes follow the trace
  await setScenario(page, { algorithm: 'full', q: [[[[1, 0]], [[0, 1]]]], k: [[[[1, 0]], [[0, 1]], [[1, 1]]]], v: [[[[1]], [[2]], [[3]]]] });
  const t = await traceOf(page);
  assert.ok((await op('scores')).replace(/\u00a0/g, ' ').includes(`${tuple(t.shapes.q)} × ${tuple(t.shapes.k)} → ${tuple(t.shapes.scores)}`));
});

test('the basic-operations seed\'s shape chain: multi-head attention\'s flow (Linear, view, einsum, softmax, einsum, view, Linear)', async () => {
  await samePage(page, 'tslib-shape-chain');
  const { shapes } = await traceOf(page);
  const steps = await el().locator('.panel-results > .maps > [data-step]').evaluateAll((es) => es.map((e) => e.dataset.step));
  assert.deepEqual(steps.slice(0, 7), ['inputs', 'q', 'scores', 'allowed', 'head_weights', 'head_context', 'output']);
  const op = async (f) => (await text(el().locator(`[data-step="${f}"] .step-op`))).replace(/\u00a0/g, ' ');
  const q = await op('q');
  assert.match(q, /Linear W_q, view\(B, L, H, -1\)/);
  assert.ok(q.includes(`${tuple(shapes.queries)} → ${tuple(shapes.q)}`), q);
  assert.deepEqual([shapes.queries, shapes.q], [[2, 6, 16], [2, 6, 2, 8]], 'the seed\'s toy: (2, 6, 16) -> (2, 6, 2, 8)');
  assert.ok((await op('output')).includes(`${tuple(shapes.head_context)} → ${tuple(shapes.output)}`));
});

test('the flow in Chinese: operations that are words are Chinese, code stays code; the steps of a line align at the top', async () => {
  await samePage(page, 'prob-toy');
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await settle(page);
  const op = (f) => text(el().locator(`.panel-results > .maps [data-step="${f}"] .step-op code`));
  assert.match(await op('attn'), /softmax\(dim=-1\)；其余行 1\/L_K/);
  assert.match(await op('q_k_sample'), /每个查询 U_part 个键/);
  assert.match(await op('sparsity'), /M = max − sum \/ L_K/);
  const boxes = await el().locator('.panel-results > .maps > [data-step]').evaluateAll((es) => es.map((e) => {
    const r = e.getBoundingClientRect();
    return [r.top, r.bottom];
  }));
  const line = boxes.filter(([top]) => top < boxes[0][1]);  // the steps on the first line
  assert.ok(line.length >= 3, `${line.length} steps on the first line`);
  assert.ok(line.every(([top]) => Math.abs(top - line[0][0]) < 1), `tops ${line.map(([top]) => top)}`);
});

test('the deep dives: named sections below the flow, open when the preset is about them, hidden by controls words', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const dive = (name) => el().locator(`.panel-results > details.dive[data-dive="${name}"]`);
  assert.equal(await dive('scale').count(), 1);
  assert.equal(await dive('scale').evaluate((d) => d.open), false, 'the 1/√d demo is closed on the softmax toy');
  assert.match(await text(dive('scale').locator('summary')), /1\/√d/);
  const [flow] = await boxes('.panel-results > .maps');
  const [scale] = await boxes('.panel-results > details[data-dive="scale"]');
  assert.ok(scale[0] >= flow[1], 'below the flow');
  // closed, nothing is drawn in it: its draws (2000 pairs of d normals) wait until it is opened
  assert.equal(await dive('scale').locator('[data-unbuilt]').count(), 1);
  assert.equal(await dive('scale').locator('[data-key="scale.d"]').count(), 0);
  // opened: the demo on the scenario's own E (the toy's E = 1); it stays open across an edit
  await dive('scale').locator('summary').click();
  const { shapes } = await traceOf(page);
  assert.equal(await dive('scale').locator('[data-key="scale.d"]').inputValue(), String(shapes.q[3]));
  assert.equal(await dive('scale').locator('[data-unbuilt]').count(), 0);
  await el().locator('[data-panel="tensors"] input').first().fill('3');
  await el().locator('[data-panel="tensors"] input').first().dispatchEvent('change');
  await settle(page);
  assert.equal((await traceOf(page)).scores[0][0][0][0], 6, 'the edit is in');
  assert.equal(await dive('scale').evaluate((d) => d.open), true);
  // d follows the scenario's E
  await setScenario(page, { algorithm: 'full', q: [[[[1, 0]]]], k: [[[[2, 0]], [[1, 0]], [[0, 0]]]], v: [[[[10, 0]], [[0, 20]], [[10, 10]]]] });
  // (a scenario of other shapes draws the page anew: the sections as they open by default)
  await dive('scale').evaluate((d) => { d.open = true; });
  assert.equal(await dive('scale').locator('[data-key="scale.d"]').inputValue(), '2', 'd follows E');
  // the sparse reach is open under a sparse mask (the preset is about it)
  await samePage(page, 'sparse-local');
  assert.equal(await dive('sparse').evaluate((d) => d.open), true);
  // `-name` hides a section (every panel still shown with `all`); `flow`: the flow alone
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('controls', 'all -scale'));
  await settle(page);
  assert.equal(await dive('scale').count(), 0);
  assert.equal(await dive('sparse').count(), 1);
  assert.equal(await el().locator('[data-panel="tensors"]').count(), 1);
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('controls', 'flow'));
  await settle(page);
  assert.equal(await el().locator('.panel-results > details.dive').count(), 0);
  assert.equal(await el().locator('figure[data-field="weights"]').count(), 1);
  await page.evaluate(() => document.querySelector('attention-playground').removeAttribute('controls'));
  await settle(page);
  assert.equal(await dive('sparse').count(), 1);
});

test('cost lines: none for positional encoding; per attention step for Bahdanau', async () => {
  await samePage(page, 'd2l-positional-encoding');
  assert.equal(await text(el().locator('.panel-results [data-field="cost"]')), '');
  await samePage(page, 'd2l-bahdanau-shapes');
  const trace = await traceOf(page);
  const line = await text(el().locator('.panel-results [data-field="cost"]'));
  const n = trace.shapes.enc_outputs[1];
  assert.ok(line.includes(`${n} additive scores per attention step`) && line.includes(`${trace.cost.dense_dot_products / n} steps`), line);
  assert.doesNotMatch(line, /%/);
});

test('no console errors or CSP violations', async () => {
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(problems, []);
});
