// Every input editable where it is shown (issue 14, item 6): multihead's queries, keys, values and
// weights, additive's W_q, W_k, w_v; the scale shown as the one used; controls that cannot apply
// disabled with their reason. Numbers checked against the WASM module run in node on the same scenario.
// One load: each test then switches presets (harness.mjs samePage).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { assertCells, launch, linkedScenario, openUrl, samePage, scenarioOf, settle, textOf, traceOf } from './harness.mjs';

let page, base, problems, close, wasm;
before(async () => {
  wasm = await load();
  ({ page, base, problems, close } = await launch());
});
after(async () => {
  await close?.();
});

const el = () => page.locator('attention-playground').first();
const input = (key) => el().locator(`[data-key="${key}"]`);
const slot = (name) => el().locator(`[data-slot="${name}"]`);

/** Types `text` into the control `key` and waits for the trace of the edit. */
async function type(key, text) {
  await page.evaluate(() => {
    window.__traced = false;
    document.querySelector('attention-playground').addEventListener('trace', () => { window.__traced = true; }, { once: true });
  });
  await input(key).fill(text);
  await page.waitForFunction(() => window.__traced);
  await settle(page);
}


test('d2l-multihead: X is a grid; an edit recomputes the output as the WASM module does; the link carries it, not the weights', async () => {
  await openUrl(page, base + '#preset=d2l-multihead');
  const before = await traceOf(page);
  assert.equal(await input('queries[0][1][2]').inputValue(), '1');
  assert.equal(await el().locator('.panel-tensors [data-dim="E"] output').textContent(), '100');
  // every value row is ones, so any weights give the same output: a value edit shows
  await type('queries[0][1][2]', '3');
  await type('values[0][0][2]', '3');
  const scenario = await scenarioOf(page);
  assert.equal(scenario.queries[0][1][2], 3);
  assert.equal(scenario.values[0][0][2], 3);
  assert.equal(scenario.weights, undefined);
  const expected = wasm.run(scenario);
  assert.ok(Math.abs(expected.output[0][1][0] - before.output[0][1][0]) > 1e-6, 'the edit changes the output');
  assert.ok(await assertCells(el(), 'output', expected.output) > 0);
  const linked = (await linkedScenario(page)).scenario;
  assert.deepEqual(linked, scenario);
  assert.ok(!('weights' in linked), 'weights only when edited: the seed draws them');
});

test('the scale shown is the one used: 1/√20 on d2l-multihead, 1/√8 on tslib-shape-chain; q·k by hand agrees', async () => {
  for (const [preset, d] of [['d2l-multihead', 20], ['tslib-shape-chain', 8]]) {
    await samePage(page, preset);
    const field = el().locator('.field-scale');
    assert.match(await textOf(field), new RegExp(`1/√${d} ≈ ${Number((1 / Math.sqrt(d)).toPrecision(4))}`));
    assert.equal(Number(await input('scale').inputValue()), 1 / Math.sqrt(d));
    const trace = await traceOf(page);
    const q = trace.q[0][0][0], k = trace.k[0][0][0];
    const dot = q.reduce((a, x, e) => a + x * k[e], 0);
    assert.equal(q.length, d);
    assert.ok(Math.abs(trace.scores[0][0][0][0] - dot / Math.sqrt(d)) < 1e-12, `${preset}: scores = q·k / √${d}`);
  }
  assert.match(await textOf(el().locator('.field-scale')), /0\.3536/);
});

test('num_heads is editable; a count that does not divide num_hiddens is named; the scale follows d_head', async () => {
  await samePage(page, 'tslib-shape-chain');
  await type('num_heads', '4');
  assert.match(await textOf(el().locator('.field-scale')), /1\/√4 = 0\.5/);
  const s = await scenarioOf(page);
  assert.equal(s.num_heads, 4);
  assert.ok(await assertCells(el(), 'output', wasm.run(s).output) > 0);
  await input('num_heads').fill('3');
  const err = el().locator('[data-slot="field:num_heads"]');
  await err.waitFor({ state: 'visible' });
  assert.match(await textOf(err), /num_heads: 3 does not divide num_hiddens = 16/);
});

test('multihead weights at toy sizes: W_q editable (all weights then the scenario\'s); too large ones say so', async () => {
  await samePage(page, 'tslib-shape-chain');
  const drawn = await traceOf(page);
  await el().locator('details.weights > summary').click();
  await input('weights.W_q[1][2]').waitFor();
  assert.equal(Number(await input('weights.W_q[1][2]').inputValue()), drawn.W_q[1][2]);
  await type('weights.W_q[1][2]', '0.75');
  const s = await scenarioOf(page);
  assert.equal(s.weights.W_q[1][2], 0.75);
  assert.deepEqual(s.weights.W_k, drawn.W_k);
  assert.deepEqual(s.weights.b_o, drawn.b_o);
  assert.equal(s.num_hiddens, undefined);
  assert.ok(await assertCells(el(), 'output', wasm.run(s).output) > 0);
  assert.deepEqual((await linkedScenario(page)).scenario, s);
  // d2l's 100 × 100: no grid, a note
  await samePage(page, 'd2l-multihead');
  await el().locator('details.weights > summary').click();
  assert.match(await textOf(el().locator('[data-tensor="weights.W_q"]')), /More than 400 numbers/);
  assert.equal(await el().locator('[data-tensor="weights.W_q"] input').count(), 0);
});

test('informer-prob-layer: queries and factor editable', async () => {
  await samePage(page, 'informer-prob-layer');
  await type('queries[0][0][0]', '2');
  await type('factor', '1');
  const s = await scenarioOf(page);
  assert.equal(s.queries[0][0][0], 2);
  assert.equal(s.factor, 1);
  assert.ok(await assertCells(el(), 'output', wasm.run(s).output) > 0);
});

test('d2l-additive: W_q editable; a bad value is named by its field', async () => {
  await samePage(page, 'd2l-additive');
  const drawn = await traceOf(page);
  await el().locator('details.weights > summary').click();
  await type('weights.W_q[0][0]', '0.5');
  const s = await scenarioOf(page);
  assert.equal(s.weights.W_q[0][0], 0.5);
  assert.deepEqual(s.weights.W_k, drawn.W_k);
  assert.deepEqual(s.weights.w_v, drawn.w_v);
  assert.equal(s.hidden, undefined);
  const expected = wasm.run(s);
  // every key is [1, 1] here, so the weights stay uniform: the scores show the edit
  assert.ok(Math.abs(expected.scores[0][0][0][0] - drawn.scores[0][0][0][0]) > 1e-9, 'the edit changes the scores');
  assert.ok(await assertCells(el(), 'scores', expected.scores) > 0);
  assert.ok(await assertCells(el(), 'context', expected.context) > 0);
  await input('weights.w_v[3]').fill('x');
  const err = slot('weights.w_v');
  await err.waitFor({ state: 'visible' });
  assert.match(await textOf(err), /weights\.w_v\[3\]: expected a number, got "x"/);
  assert.equal(await input('weights.w_v[3]').getAttribute('aria-invalid'), 'true');
});

test('controls that cannot apply are disabled with the reason: linear\'s scale, float32 outside full and flash', async () => {
  await samePage(page, 'linear-elu1');
  const scale = input('scale');
  assert.ok(await scale.isDisabled());
  assert.ok(await input('scale.auto').isDisabled());
  const why = async (control) => {
    const ids = (await control.getAttribute('aria-describedby')).split(' ');
    return Promise.all(ids.map((id) => textOf(el().locator(`[id="${id}"]`))));
  };
  assert.ok((await why(scale)).some((text) => /no scale/.test(text)));
  const float32 = input('dtype').locator('option[value="float32"]');
  assert.ok(await float32.isDisabled());
  assert.ok((await why(input('dtype'))).some((text) => /not implemented yet/.test(text)));
  await samePage(page, 'softmax-toy');
  assert.ok(!(await input('dtype').locator('option[value="float32"]').isDisabled()));
  assert.equal(await el().locator('.why-disabled').count(), 0);
});

test('linear-cosine: the features\' caption does not call negative features non-negative', async () => {
  await samePage(page, 'linear-cosine');
  const trace = await traceOf(page);
  assert.ok(trace.features_q.flat(4).some((x) => x < 0), 'cosine1 has negative features');
  const caption = await textOf(el().locator('[data-field="features_q"] figcaption'));
  assert.doesNotMatch(caption, /non-negative/);
  assert.match(caption, /may be negative/);
});

test('multihead picked from the menu starts with inputs of its own (no error), q, k, v put aside and back', async () => {
  await samePage(page, 'softmax-toy');
  const q = (await scenarioOf(page)).q;
  await input('algorithm').selectOption('multihead');
  await page.waitForFunction(() => document.querySelector('attention-playground').trace?.algorithm === 'multihead');
  await settle(page);
  const s = await scenarioOf(page);
  assert.equal(s.q, undefined);
  assert.deepEqual(s.queries, [[[1, 0], [0, 1]]]);
  assert.equal(s.num_heads, 1);
  assert.ok(await assertCells(el(), 'output', wasm.run(s).output) > 0);
  assert.equal(await input('queries[0][1][1]').inputValue(), '1');
  await input('algorithm').selectOption('full');
  await page.waitForFunction(() => document.querySelector('attention-playground').trace?.algorithm === 'full');
  const back = await scenarioOf(page);
  assert.deepEqual(back.q, q);
  assert.equal(back.queries, undefined);
});

test('self-attention: q = k = v is one grid X, an edit changes all three; untied, three grids edited apart', async () => {
  await samePage(page, 'self-attention');
  const grids = () => el().locator('.panel-tensors input[data-key^="k["], .panel-tensors input[data-key^="v["]').count();
  assert.equal(await grids(), 0, 'one grid: X');
  assert.equal(await input('tie-qkv').isChecked(), true);
  await type('q[0][1][0][0]', '3');
  let s = await scenarioOf(page);
  for (const f of ['q', 'k', 'v']) assert.equal(s[f][0][1][0][0], 3, `${f} follows X`);
  const trace = await traceOf(page);
  const want = wasm.run(s);
  assert.deepEqual(trace.context, want.context);
  const sc = trace.scores[0][0];
  for (let i = 0; i < sc.length; i++) for (let j = 0; j < sc.length; j++) assert.equal(sc[i][j], sc[j][i], 'X Xᵀ stays symmetric');
  // the explain panel lights a score's operands, q row 1 and k row 2, both in X's grid
  await el().locator('figure[data-field="scores"] td[data-index="0,0,1,2"]').first().hover();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelectorAll('figure.editor .xp-operand').length > 0);
  const lit = await el().locator('figure.editor td.xp-operand input').evaluateAll((is) => is.map((i) => i.dataset.key).sort());
  assert.deepEqual(lit, ['q[0][1][0][0]', 'q[0][1][0][1]', 'q[0][2][0][0]', 'q[0][2][0][1]']);
  // untied: three grids, an edit of q leaves k and v
  await input('tie-qkv').uncheck();
  await el().locator('.panel-tensors input[data-key="k[0][0][0][0]"]').waitFor();
  await type('q[0][2][0][1]', '7');
  s = await scenarioOf(page);
  assert.deepEqual([s.q[0][2][0][1], s.k[0][2][0][1], s.v[0][2][0][1]], [7, 1, 1]);
  assert.equal(await input('tie-qkv').isChecked(), false, 'untied');
  assert.equal(await el().locator('.panel-tensors input[data-key="k[0][2][0][1]"]').inputValue(), '1');
});

test('no console errors, page errors or CSP violations', () => {
  assert.deepEqual(problems, []);
});
