// The playground page in headless Chromium: dist/ served by scripts/serve.mjs (with its CSP),
// the <attention-playground> element driven like a learner would, every number checked against
// the WASM module run in node on the same scenario.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from '../../wasm/attnplay.mjs';
import { launch, linkedScenario, openUrl, samePage, settle, textOf } from './harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');

let base, page, wasm, problems, close;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close } = await launch());
});

after(async () => { await close?.(); });

const el = () => page.locator('attention-playground').first();
const cell = (field, index, host = el()) => host.locator(`[data-field="${field}"] td[data-index="${index}"]`);
const input = (key, host = el()) => host.locator(`[data-key="${key}"]`);
const slot = (name, host = el()) => host.locator(`[data-slot="${name}"]`);
const value = async (locator) => Number(await locator.getAttribute('data-value'));

/** A fresh load of the page (never a same-document hash change). */
const open = (hash = '') => openUrl(page, base + hash);
/** The preset on the page the test before left (harness.mjs samePage: el.setPreset draws the element
 * anew; it fails unless the page is as its last load left it): for a test that does not test loading. */
const reopen = (name) => samePage(page, name);

async function pickPreset(name) {
  await input('preset').selectOption(name);
  await settle(page);
  await page.waitForFunction((n) => location.hash === `#preset=${n}`, name);
  await settle(page);
  await page.evaluate(() => document.querySelector('attention-playground').settled);
}

/** Clicks the language button and waits until the element has switched to `lang`. */
async function switchLang(lang) {
  await input('lang').click();
  await settle(page);
  await page.waitForFunction((l) => document.querySelector('attention-playground').getAttribute('lang') === l, lang);
  await settle(page);
}

/** Switches to a preset (reopen; skipping the test when this core has none of that name): its scenario and the core's trace. */
async function openPreset(t, name) {
  if (!wasm.presets().some((p) => p.name === name)) {
    t.skip(`the core has no ${name} preset yet`);
    return null;
  }
  await reopen(name);
  const scenario = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  return { scenario, expected: wasm.run(scenario) };
}

/** Context (B, L_Q, H, D) as the page shows it, read from data-value of every cell. */
async function pageContext(host = el()) {
  await settle(page);
  return host.locator('[data-field="context"] td[data-index]').evaluateAll((tds) =>
    tds.map((td) => [td.dataset.index, Number(td.dataset.value)]));
}

function nested(t, index) {
  return index.split(',').map(Number).reduce((a, i) => a[i], t);
}

test('softmax-toy: the seed\'s numbers, shown and exact', async () => {
  await open();
  await pickPreset('softmax-toy');
  const c0 = cell('context', '0,0,0,0'), c1 = cell('context', '0,0,0,1');
  assert.match(await textOf(c0), /^7\.55/);
  assert.match(await textOf(c1), /^5\.79/);
  assert.ok(Math.abs(await value(c0) - 7.552715289452022) < 1e-12);
  assert.ok(Math.abs(await value(c1) - 5.794875152799757) < 1e-12);
  assert.match(await textOf(cell('weights', '0,0,0,0')), /^0\.665/);
  assert.equal(await textOf(cell('scores', '0,0,0,0')), '2');
  assert.match(await textOf(el().locator('[data-field="description"]')), /7\.55/);
  assert.equal(await textOf(el().locator('[data-field="cost.dot_products"]')), '3');
});

test('editing a cell of K recomputes on input, as the WASM module does in node', async () => {
  await reopen('softmax-toy');
  await page.evaluate(() => {
    window.__traces = 0;
    document.querySelector('attention-playground').addEventListener('trace', () => { window.__traces++; });
  });
  await input('k[0][1][0][0]').fill('3');
  await settle(page);
  await page.waitForFunction(() => window.__traces > 0);
  await settle(page);
  const scenario = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.deepEqual(scenario.k, [[[[2]], [[3]], [[0]]]]);
  const expected = wasm.run(scenario);
  const shown = await pageContext();
  assert.equal(shown.length, 2);
  for (const [index, v] of shown) assert.ok(Math.abs(v - nested(expected.context, index)) <= 1e-12, `context[${index}]`);
  // the element's trace property is the same trace
  const trace = await page.evaluate(() => document.querySelector('attention-playground').trace);
  assert.deepEqual(trace.weights, expected.weights);
  // and the URL now holds the scenario (written once the edits pause; #z=, deflate-raw:
  // tests/web/links.test.mjs)
  assert.deepEqual((await linkedScenario(page)).scenario, scenario);
});

test('a malformed value is named inline and the last good result stays', async () => {
  await reopen('softmax-toy');
  const before = await value(cell('context', '0,0,0,0'));
  await input('k[0][2][0][0]').fill('1..2');
  await settle(page);
  const err = slot('k');
  await err.waitFor({ state: 'visible' });
  assert.match(await textOf(err), /k\[0\]\[2\]\[0\]\[0\]: expected a number, got "1\.\.2"/);
  assert.equal(await input('k[0][2][0][0]').getAttribute('aria-invalid'), 'true');
  assert.equal(await value(cell('context', '0,0,0,0')), before);
  assert.match(await el().locator('[data-panel="results"]').getAttribute('class'), /stale/);
  assert.ok(!(await textOf(el().locator('[data-panel="results"]'))).includes('NaN'));
  // fixing it clears the error and recomputes
  await input('k[0][2][0][0]').fill('1');
  await settle(page);
  await err.waitFor({ state: 'hidden' });
  const expected = wasm.run({ ...(await page.evaluate(() => document.querySelector('attention-playground').scenario)) });
  assert.ok(Math.abs(await value(cell('context', '0,0,0,0')) - expected.context[0][0][0][0]) <= 1e-12);
});

test('a wrong shape (scenario JSON) is named by the core beside K; invalid JSON beside the editor', async () => {
  await reopen('softmax-toy');
  const good = await value(cell('context', '0,0,0,0'));
  await el().locator('[data-panel="json"] summary').click();
  await settle(page);
  const area = input('json');
  const scenario = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  scenario.k[0][1][0] = [1, 2];
  await area.fill(JSON.stringify(scenario));
  await settle(page);
  const err = slot('k');
  await err.waitFor({ state: 'visible' });
  assert.match(await textOf(err), /^k\[0\]\[1\]\[0\]: expected 1 number \(E of q\), got 2/);
  assert.equal(await value(cell('context', '0,0,0,0')), good);
  await area.fill('{"algorithm": "full",');
  await settle(page);
  const jsonErr = slot('json');
  await jsonErr.waitFor({ state: 'visible' });
  assert.match(await textOf(jsonErr), /^scenario: invalid JSON/);
  assert.equal(await value(cell('context', '0,0,0,0')), good);
});

test('masks: kinds, parameters and the explicit grid, each recomputed like the core', async () => {
  await open('#preset=softmax-toy');
  await input('dim.L_Q.plus').click();
  await settle(page);
  await input('dim.L_Q.plus').click();
  await settle(page);
  await input('mask.kind').selectOption('local');
  await settle(page);
  await input('mask.window').fill('0');
  await settle(page);
  let s = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.deepEqual(s.mask, { kind: 'local', window: 0 });
  assert.equal(await textOf(cell('allowed', '0,0,1,0')), '·');
  assert.equal(await textOf(cell('allowed', '0,0,1,1')), '✓');
  assert.ok(await cell('scores', '0,0,1,0').evaluate((td) => td.classList.contains('masked')));
  await input('mask.kind').selectOption('explicit');
  await settle(page);
  await input('mask.allowed[2][0]').click();
  await settle(page);
  s = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(s.mask.allowed[2][0], false);
  const expected = wasm.run(s);
  assert.equal(await value(cell('weights', '0,0,2,0')), 0);
  for (const [index, v] of await pageContext()) assert.ok(Math.abs(v - nested(expected.context, index)) <= 1e-12);
  await input('mask.fill.mode').selectOption('number');
  await settle(page);
  s = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(s.mask.fill, -1e6);
});

test('several elements on one page are independent; setScenario and the trace event', async () => {
  await open('#preset=softmax-toy');
  await page.evaluate(() => {
    const second = document.createElement('attention-playground');
    second.id = 'second';
    second.setAttribute('preset', 'd2l-masked-softmax-1d');
    second.setAttribute('controls', 'mask');
    document.querySelector('main').append(second);
  });
  await page.waitForFunction(() => document.getElementById('second').trace != null);
  await settle(page);
  const second = page.locator('#second');
  const secondBefore = await pageContext(second);
  await input('k[0][0][0][0]').fill('5');
  await settle(page);
  // the first element writes its edit to the URL (once the edits pause): wait for it
  await linkedScenario(page);
  await settle(page);
  const hashBefore = await page.evaluate(() => location.hash);
  assert.deepEqual(await pageContext(second), secondBefore);
  assert.equal(await second.locator('[data-panel="tensors"]').count(), 0);
  const detail = await page.evaluate(() => new Promise((resolve) => {
    const s2 = document.getElementById('second');
    s2.addEventListener('trace', (e) => resolve(e.detail), { once: true });
    s2.setScenario({ algorithm: 'full', q: [[[[1]]]], k: [[[[2]], [[1]], [[0]]]], v: [[[[10, 0]], [[0, 20]], [[10, 10]]]] });
  }));
  await settle(page);
  assert.ok(Math.abs(detail.context[0][0][0][0] - 7.552715289452022) < 1e-12);
  assert.ok(Math.abs(await value(cell('context', '0,0,0,0', second)) - 7.552715289452022) < 1e-12);
  // only the sync-hash element writes the URL
  assert.equal(await page.evaluate(() => location.hash), hashBefore);
  assert.equal(await page.evaluate(() => document.getElementById('second').scenario.k[0][0][0][0]), 2);
});

test('the URL hash restores a scenario', async () => {
  const scenario = { algorithm: 'full', q: [[[[1, 0]], [[0, 1]]]], k: [[[[1, 0]], [[0, 1]]]], v: [[[[1]], [[2]]]],
    mask: { kind: 'causal' } };
  await open('#scenario=' + encodeURIComponent(JSON.stringify(scenario)));
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-playground').scenario), scenario);
  const expected = wasm.run(scenario);
  for (const [index, v] of await pageContext()) assert.ok(Math.abs(v - nested(expected.context, index)) <= 1e-12);
  assert.equal(await input('mask.kind').inputValue(), 'causal');
  // and a hash set later (back/forward, a pasted link) applies too
  await page.evaluate(() => { location.hash = '#preset=d2l-masked-softmax-2d'; });
  await page.waitForFunction(() => document.querySelector('attention-playground').scenario.mask?.kind === 'valid_lens');
  await settle(page);
  assert.equal(await input('preset').inputValue(), 'd2l-masked-softmax-2d');
});

test('every control has an accessible name; the language switch works', async () => {
  await reopen('softmax-toy');
  const unnamed = await page.evaluate(() => {
    const root = document.querySelector('attention-playground').shadowRoot;
    return [...root.querySelectorAll('input, select, textarea, button')].filter((c) => {
      if (c.getAttribute('aria-label') || (c.tagName === 'BUTTON' && c.textContent.trim())) return false;
      if (c.id && root.querySelector(`label[for="${c.id}"]`)) return false;
      return !c.closest('label');
    }).map((c) => c.outerHTML.slice(0, 80));
  });
  assert.deepEqual(unnamed, []);
  await switchLang('zh');
  assert.match(await textOf(el().locator('[data-panel="results"] h2')), /结果/);
  // the page's own text follows: its Chinese paragraphs shown, the English ones hidden
  assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('.site p, footer span')].map((p) => [p.lang, p.checkVisibility()])),
    [['en', false], ['zh', true], ['en', false], ['zh', true]]);
  await input('lang').click();
  await settle(page);
  assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('.site p, footer span')].map((p) => [p.lang, p.checkVisibility()])),
    [['en', true], ['zh', false], ['en', true], ['zh', false]]);
});

test('every preset\'s description in Chinese: Chinese text with the numbers of the English one', async () => {
  await reopen('softmax-toy');
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await settle(page);
  const numbers = (text) => (text.match(/\d+(\.\d+)?/g) ?? []).sort();
  // every preset in one task (el.setPreset draws the element at once, the picker and the description
  // with it): a round trip and a frame per preset took about 20 s of CPU
  const presets = wasm.presets();
  const shown = await page.evaluate((names) => names.map((name) => {
    const e = document.querySelector('attention-playground');
    const picked = e.setPreset(name);
    const root = e.shadowRoot;
    return { picked, value: root.querySelector('[data-key="preset"]')?.value, text: root.querySelector('[data-field="description"]')?.textContent ?? null };
  }), presets.map((p) => p.name));
  await settle(page);
  assert.equal(shown.length, presets.length);
  presets.forEach((p, i) => {
    const { picked, value, text } = shown[i];
    assert.ok(picked && value === p.name, `${p.name}: picked ${picked}, the picker shows ${value}`);
    assert.match(text, /[\u4e00-\u9fff]/, `${p.name}: "${text}"`);
    assert.deepEqual(numbers(text), numbers(p.description), p.name);
  });
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'en'));
  await settle(page);
});

test('ProbAttention view on prob-toy: samples, sparsity, top rows, factor slider, resample, full comparison', async (t) => {
  if (!wasm.presets().some((p) => p.name === 'prob-toy')) {
    t.skip('the core has no prob-toy preset yet');
    return;
  }
  await reopen('prob-toy');
  const prob = el().locator('[data-panel="prob"]');
  await prob.waitFor({ state: 'visible' });
  const s0 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  const expected = wasm.run(s0);
  const L_Q = s0.q[0].length;
  assert.equal(Number(await textOf(prob.locator('[data-field="U_part"]'))), expected.U_part);
  assert.equal(Number(await textOf(prob.locator('[data-field="u"]'))), expected.u);
  const rows = prob.locator('[data-field="sparsity"] li');
  assert.equal(await rows.count(), L_Q);
  const top = await prob.locator('[data-field="sparsity"] li.top').evaluateAll((li) => li.map((x) => Number(x.dataset.query)));
  assert.deepEqual(top.sort(), [...expected.top_index[0][0]].sort());
  for (let i = 0; i < L_Q; i++) {
    assert.ok(Math.abs(Number(await rows.nth(i).getAttribute('data-value')) - expected.sparsity[0][0][i]) <= 1e-12);
  }
  // updated rows are marked apart from the lazy ones
  const updated = await prob.locator('[data-field="context"] tr.updated').evaluateAll((trs) => trs.length);
  assert.equal(updated, new Set(expected.top_index[0][0]).size);
  assert.equal(await prob.locator('[data-field="context"] tr.lazy').count(), L_Q - updated);
  // full attention comparison: every updated row agrees with full attention
  const cmp = prob.locator('[data-field="compare"] tbody tr');
  assert.equal(await cmp.count(), L_Q);
  const full = wasm.run({ algorithm: 'full', q: s0.q, k: s0.k, v: s0.v, ...(s0.mask ? { mask: { kind: s0.mask.kind } } : {}), ...(s0.scale !== undefined ? { scale: s0.scale } : {}) });
  for (let i = 0; i < L_Q; i++) {
    const diff = Number(await cmp.nth(i).locator('td.diff').getAttribute('data-value'));
    const mine = Math.max(...expected.context[0][i][0].map((x, j) => Math.abs(x - full.context[0][i][0][j])));
    assert.ok(Math.abs(diff - mine) <= 1e-12, `row ${i}: ${diff} vs ${mine}`);
  }
  // the factor slider changes U_part and u live
  const factor = Number(s0.factor ?? 5);
  const next = factor + 1;
  await input('factor').focus();
  await page.keyboard.press('ArrowRight'); // the slider, by keyboard
  await settle(page);
  const s1 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(s1.factor, next);
  const e1 = wasm.run(s1);
  assert.equal(Number(await textOf(prob.locator('[data-field="U_part"]'))), e1.U_part);
  assert.equal(Number(await textOf(prob.locator('[data-field="u"]'))), e1.u);
  assert.notDeepEqual([e1.U_part, e1.u], [expected.U_part, expected.u]);
  assert.equal(await slot('prob').isVisible(), false);
  // back to the preset's factor: its sample_index comes back
  await input('factor').fill(String(factor));
  await settle(page);
  const s2 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.deepEqual(s2.sample_index, s0.sample_index);
  // resample: drops sample_index, seed + 1
  await input('resample').click();
  await settle(page);
  const s3 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(s3.sample_index, undefined);
  assert.equal(s3.seed, Number(s0.seed ?? 0) + 1);
  const e3 = wasm.run(s3);
  const top3 = await textOf(prob.locator('[data-field="top_index"]'));
  assert.equal(top3, `[${e3.top_index[0][0].join(', ')}]`);
  await page.screenshot({ path: path.join(os.tmpdir(), 'page-prob.png'), fullPage: true });
});

test('ProbAttention pitfalls: the cumulative mean beside the reference\'s cumulative sum, as the core computes both', async (t) => {
  if (!wasm.presets().some((p) => p.name === 'prob-toy-causal')) {
    t.skip('the core has no prob-toy-causal preset yet');
    return;
  }
  await reopen('prob-toy-causal');
  const prob = el().locator('[data-panel="prob"]');
  const side = prob.locator('[data-field="pitfalls"]');
  // at the reference: a hint that the switches exist, no comparison
  await prob.locator('[data-field="pitfall-hint"]').waitFor({ state: 'visible' });
  assert.equal(await side.count(), 0);
  // the switch says what each value does
  const options = await input('causal_initial').locator('option').allTextContents();
  assert.deepEqual(options, ['cumulative sum (reference)', 'cumulative mean']);
  await input('pitfalls.show').click();
  await settle(page);
  await input('causal_initial').selectOption('mean');
  await settle(page);
  await side.waitFor({ state: 'visible' });
  assert.equal(await prob.locator('[data-field="pitfall-hint"]').count(), 0);
  assert.match(await textOf(side.locator('[data-pitfall="causal_initial"]')), /causal_initial = mean: .*cumulative mean/);

  const mine = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(mine.causal_initial, 'mean');
  const reference = { ...mine };
  delete reference.causal_initial;
  const eMine = wasm.run(mine), eRef = wasm.run(reference);
  const L_Q = mine.q[0].length;
  const rows = side.locator('tbody tr');
  assert.equal(await rows.count(), L_Q);
  const lazy = eMine.updated_rows[0][0].flatMap((u, i) => (u ? [] : [i]));
  assert.ok(lazy.length > 0);
  const cells = async (row, cls) => row.locator(`td.ctx.${cls} span.num`).evaluateAll((spans) =>
    spans.map((x) => [x.dataset.index, Number(x.dataset.value)]));
  let differing = 0;
  for (let i = 0; i < L_Q; i++) {
    const row = side.locator(`tbody tr[data-query="${i}"]`);
    const [ref, my] = [await cells(row, 'side-ref'), await cells(row, 'side-mine')];
    assert.equal(ref.length, eRef.context[0][i][0].length);
    for (const [index, v] of ref) assert.ok(Math.abs(v - nested(eRef.context, index)) <= 1e-12, `reference context[${index}]`);
    for (const [index, v] of my) assert.ok(Math.abs(v - nested(eMine.context, index)) <= 1e-12, `context[${index}]`);
    // M of each side
    const m = await row.locator('td.m').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
    assert.ok(Math.abs(m[0] - eRef.sparsity[0][0][i]) <= 1e-12 && Math.abs(m[1] - eMine.sparsity[0][0][i]) <= 1e-12);
    // max |Δ| of the row, and the row highlighted when it differs
    const want = Math.max(...eMine.context[0][i][0].map((x, j) => Math.abs(x - eRef.context[0][i][0][j])));
    assert.ok(Math.abs(await value(row.locator('td.diff')) - want) <= 1e-12, `row ${i}`);
    const cls = await row.getAttribute('class');
    assert.match(cls, want > 1e-9 ? /\bdiffers\b/ : /\bsame\b/);
    if (want > 1e-9) differing++;
    if (!lazy.includes(i)) assert.equal(want, 0, `updated row ${i} is the same under both`);
  }
  // with the causal mask, the mean differs from the sum in every lazy row but the first
  assert.equal(differing, lazy.filter((i) => i > 0).length);
  assert.ok(differing > 0);
  assert.equal(await textOf(side.locator('[data-field="top_index.reference"]')), `[${eRef.top_index[0][0].join(', ')}]`);
  assert.equal(await textOf(side.locator('[data-field="top_index.mine"]')), `[${eMine.top_index[0][0].join(', ')}]`);
  await page.screenshot({ path: path.join(os.tmpdir(), 'page-pitfalls.png'), fullPage: true });
  // the explanation in Chinese too
  await switchLang('zh');
  assert.match(await textOf(side.locator('[data-pitfall="causal_initial"]')), /累积平均/);
  await switchLang('en');
  // back to the reference: the comparison goes, the hint comes back
  await input('causal_initial').selectOption('sum');
  await settle(page);
  await side.waitFor({ state: 'detached' });
  await prob.locator('[data-field="pitfall-hint"]').waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => document.querySelector('attention-playground').scenario.causal_initial), 'sum');
  assert.deepEqual(problems, []);
});

test('ProbAttention pitfalls: samples per head set a shared sample_index aside, and bring it back', async (t) => {
  if (!wasm.presets().some((p) => p.name === 'prob-toy')) {
    t.skip('the core has no prob-toy preset yet');
    return;
  }
  await open('#preset=prob-toy');
  const s0 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  await input('pitfalls.show').click();
  await settle(page);
  await input('sample_per_head').selectOption('true');
  await settle(page);
  const side = el().locator('[data-field="pitfalls"]');
  await side.waitFor({ state: 'visible' });
  const s1 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(s1.sample_per_head, true);
  assert.equal(s1.sample_index, undefined);
  assert.match(await textOf(side.locator('[data-field="pitfall-samples"]')), /set aside/);
  assert.equal(await slot('prob').isVisible(), false);
  // both sides draw from the seed; at H = 1 the per-head sample is the shared one
  const ref = { ...s1 };
  delete ref.sample_per_head;
  const [eMine, eRef] = [wasm.run(s1), wasm.run(ref)];
  assert.deepEqual(eMine.sample_index[0], eRef.sample_index);
  assert.equal(await side.locator('tbody tr.differs').count(), 0);
  // a sample_index given per head is dropped for the reference, which says so
  const perHead = { ...s1, sample_index: [s0.sample_index] };
  await page.evaluate((s) => document.querySelector('attention-playground').setScenario(s), perHead);
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').scenario.sample_index !== undefined);
  await settle(page);
  assert.match(await textOf(side.locator('[data-field="pitfall-samples"]')), /dropped for the reference/);
  const e2 = wasm.run(perHead), r2 = wasm.run({ ...ref });
  for (const [index, v] of await side.locator('td.ctx.side-ref span.num').evaluateAll((xs) => xs.map((x) => [x.dataset.index, Number(x.dataset.value)]))) {
    assert.ok(Math.abs(v - nested(r2.context, index)) <= 1e-12, `reference context[${index}]`);
  }
  for (const [index, v] of await side.locator('td.ctx.side-mine span.num').evaluateAll((xs) => xs.map((x) => [x.dataset.index, Number(x.dataset.value)]))) {
    assert.ok(Math.abs(v - nested(e2.context, index)) <= 1e-12, `context[${index}]`);
  }
  // switched off: the preset's shared sample_index comes back
  await open('#preset=prob-toy');
  await input('pitfalls.show').click();
  await settle(page);
  await input('sample_per_head').selectOption('true');
  await settle(page);
  await input('sample_per_head').selectOption('false');
  await settle(page);
  const s3 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.deepEqual(s3.sample_index, s0.sample_index);
  await side.waitFor({ state: 'detached' });
});

test('Nadaraya-Watson: d2l\'s plot, the loss per epoch, and the kernel changed live like the core', async () => {
  await open('#preset=d2l-nadaraya-watson-trained');
  const nw = el().locator('[data-field="nadaraya-watson"]');
  const plot = nw.locator('svg[data-field="nw-plot"]');
  await plot.waitFor({ state: 'visible' });
  assert.equal(await plot.getAttribute('role'), 'img');
  assert.match(await plot.getAttribute('aria-label'), /50 training points/);
  assert.equal(await plot.locator('circle.train-point').count(), 50 + 1); // the points, and the legend's dot
  assert.equal(await plot.locator('[data-field="x_train"] circle.train-point').count(), 50);
  assert.match(await plot.locator('path.pred').getAttribute('d'), /^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+){49}$/);
  assert.equal(await plot.locator('path.truth').count(), 1);
  assert.deepEqual(await plot.locator('.legend-text').allTextContents(), ['Truth', 'Pred', 'training points']);
  const s0 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  const e0 = wasm.run(s0);
  const loss = nw.locator('svg[data-field="nw-loss"]');
  assert.equal(await loss.locator('circle.loss-point').count(), 5);
  const shownLoss = await loss.locator('circle.loss-point').evaluateAll((cs) => cs.map((c) => Number(c.dataset.value)));
  shownLoss.forEach((l, i) => assert.ok(Math.abs(l - e0.loss[i]) <= 1e-12, `loss[${i}]`));
  assert.equal((await textOf(nw.locator('[data-field="w_history"]'))).split('→').length, 6);
  assert.ok(!(await textOf(nw)).includes('NaN'));
  // the kernel, from its control: recomputed live, as the core does in node
  const before = await page.evaluate(() => document.querySelector('attention-playground').trace.y_hat);
  await input('kernel').selectOption('boxcar');
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').scenario.kernel === 'boxcar');
  await settle(page);
  const s1 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.deepEqual({ ...s1, kernel: 'gaussian' }, s0);
  const after = await page.evaluate(() => document.querySelector('attention-playground').trace.y_hat);
  assert.notDeepEqual(after, before);
  assert.deepEqual(after, wasm.run(s1).y_hat);
  assert.match(await plot.getAttribute('aria-label'), /kernel boxcar/);
  // w, from its number input
  await input('w').fill('2');
  await settle(page);
  const s2 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.equal(s2.w, 2);
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-playground').trace.y_hat), wasm.run(s2).y_hat);
  await page.screenshot({ path: path.join(os.tmpdir(), 'page-nadaraya.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('dist/attention-playground.html works alone from file://', async () => {
  const file = path.join(dist, 'attention-playground.html');
  assert.ok(fs.existsSync(file), 'dist/attention-playground.html is missing');
  const html = fs.readFileSync(file, 'utf8');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+stylesheet/);
  await page.goto('about:blank');
  await page.goto('file://' + file + '#preset=softmax-toy');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  await settle(page);
  assert.ok(Math.abs(await value(cell('context', '0,0,0,0')) - 7.552715289452022) < 1e-12);
});

test('screenshot, and no console errors or CSP violations', async () => {
  await open('#preset=softmax-toy');
  await page.screenshot({ path: path.join(os.tmpdir(), 'page.png'), fullPage: true });
  const csp = await page.evaluate(() => window.__csp);
  assert.deepEqual(csp, []);
  assert.deepEqual(problems, []);
});

test('the algorithm menu is the core\'s registry: its names, labelled with their titles (en, zh)', async () => {
  await reopen('softmax-toy');
  const registry = wasm.algorithms().map((a) => (typeof a === 'string' ? { name: a, title: a, title_zh: a } : a));
  const options = () => input('algorithm').locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
  let offered = await options();
  assert.deepEqual(offered.map(([v]) => v), registry.map((a) => a.name));
  assert.ok(registry.some((a) => a.name === 'prob') && registry.some((a) => a.name === 'full'));
  for (const [[, text], a] of offered.map((o, i) => [o, registry[i]])) {
    assert.equal(text, a.title && a.title !== a.name ? `${a.name} — ${a.title}` : a.name);
  }
  await switchLang('zh');
  offered = await options();
  assert.deepEqual(offered.map(([v]) => v), registry.map((a) => a.name));
  const full = registry.find((a) => a.name === 'full');
  assert.equal(offered.find(([v]) => v === 'full')[1], `full — ${full.title_zh || full.title}`);
  await switchLang('en');
  // picking one from the menu runs it
  await input('algorithm').selectOption('additive');
  await settle(page);
  await page.waitForFunction(() => document.querySelector('attention-playground').trace?.algorithm === 'additive');
  await settle(page);
});

/** The error the WASM module throws for a scenario (message and field), as the page must show it. */
function coreError(scenario) {
  try {
    wasm.run(scenario);
  } catch (e) {
    return { message: e.message, field: e.field };
  }
  assert.fail('the core accepted the scenario');
}

/** Sets a scenario the core rejects with an error about `field`; the page must show that error,
 * and only it, in the slot `slotName`. Returns the slot. */
async function showsCoreError(scenario, field, slotName) {
  const e = coreError(scenario);
  assert.equal(e.field, field);
  await page.evaluate((s) => document.querySelector('attention-playground').setScenario(s), scenario);
  await settle(page);
  const where = slot(slotName);
  await where.waitFor({ state: 'visible' });
  assert.equal(await textOf(where), e.message);
  assert.equal(await where.getAttribute('data-fields'), field);
  assert.equal(await slot('general').isVisible(), false);
  return where;
}

test('a core error is placed by its field: a bad tensor cell beside that tensor, a mask parameter beside its control', async () => {
  await reopen('softmax-toy');
  const good = await value(cell('context', '0,0,0,0'));
  const s0 = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  // a cell of K that is not a number: the core names k[0][2][0][0]; it is shown beside K's grid
  const badCell = structuredClone(s0);
  badCell.k[0][2][0][0] = 'x';
  await showsCoreError(badCell, 'k[0][2][0][0]', 'k');
  assert.equal(await slot('q').isVisible(), false);
  assert.equal(await input('k[0][2][0][0]').getAttribute('aria-invalid'), 'true');
  assert.equal(await input('k[0][1][0][0]').getAttribute('aria-invalid'), null);
  assert.equal(await value(cell('context', '0,0,0,0')), good);
  assert.match(await el().locator('[data-panel="results"]').getAttribute('class'), /stale/);
  // a row of V with the wrong width: the field is the row, v[0][1][0], shown beside V's grid
  const badRow = structuredClone(s0);
  badRow.v[0][1][0] = [1];
  await showsCoreError(badRow, 'v[0][1][0]', 'v');
  assert.equal(await slot('k').isVisible(), false);
  // a mask parameter out of range: beside the mask.window control itself
  const beside = await showsCoreError({ ...structuredClone(s0), mask: { kind: 'local', window: -1 } }, 'mask.window', 'field:mask.window');
  assert.equal(await beside.evaluate((p) => p.previousElementSibling.dataset.field), 'mask.window');
  assert.equal(await input('mask.window').getAttribute('aria-invalid'), 'true');
  assert.equal(await value(cell('context', '0,0,0,0')), good);
  // fixed from its control: the error goes, the results are current again
  await input('mask.window').fill('1');
  await settle(page);
  await beside.waitFor({ state: 'detached' });
  const fixed = await page.evaluate(() => document.querySelector('attention-playground').scenario);
  assert.deepEqual(fixed.mask, { kind: 'local', window: 1 });
  assert.doesNotMatch(await el().locator('[data-panel="results"]').getAttribute('class'), /stale/);
  assert.ok(Math.abs(await value(cell('context', '0,0,0,0')) - wasm.run(fixed).context[0][0][0][0]) <= 1e-12);
  assert.deepEqual(problems, []);
});

test('the ProbAttention step view numbers its steps as SPEC §2 does (en and zh), each with the trace\'s numbers', async (t) => {
  const opened = await openPreset(t, 'prob-toy');
  if (!opened) return;
  const { scenario: s0, expected } = opened;
  const prob = el().locator('[data-panel="prob"]');
  const sections = prob.locator('.prob-steps section.step[data-steps]');
  const headings = async () => sections.evaluateAll((secs) => secs.map((s) => [s.dataset.steps, s.querySelector('h3').textContent]));
  // SPEC: 1 U_part/u, 2 sample_index, 3 q_k_sample, 4 sparsity M, 5 top_index, 6 scores_top with
  // ProbMask, 7 initial_context, 8 context, 9 attn; every step once, in order
  const want = [['1'], ['2'], ['3'], ['4', '5'], ['6'], ['7', '8'], ['9']];
  const titles = {};
  for (const lang of ['en', 'zh']) {
    if (lang === 'zh') await switchLang('zh');
    const got = await headings();
    assert.deepEqual(got.map(([steps]) => steps.split(' ')), want, lang);
    for (const [steps, text] of got) {
      const n = steps.split(' ');
      assert.ok(text.startsWith(`${n.length > 1 ? `${n[0]}–${n[n.length - 1]}` : n[0]} · `), `${lang}: "${text}"`);
    }
    titles[lang] = got.map(([, text]) => text);
  }
  assert.match(titles.en[0], /^1 · Sizes/);
  assert.match(titles.zh[0], /^1 · 尺寸/);
  assert.match(titles.en[3], /^4–5 · Sparsity M .*top_index/);
  assert.match(titles.zh[3], /^4–5 · 稀疏度 M/);
  assert.notDeepEqual(titles.en, titles.zh);
  await switchLang('en');
  // each step shows its own field of the trace
  const step = (n) => prob.locator(`section.step[data-steps~="${n}"]`);
  assert.equal(Number(await textOf(step(1).locator('[data-field="U_part"]'))), expected.U_part);
  assert.equal(Number(await textOf(step(1).locator('[data-field="u"]'))), expected.u);
  const counted = await step(2).locator('[data-field="samples"] td[data-index]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
  const L_K = s0.k[0].length;
  assert.deepEqual(counted, expected.sample_index.flatMap((row) => Array.from({ length: L_K }, (_, j) => row.filter((x) => x === j).length)));
  for (const [index, v] of await step(3).locator('[data-field="q_k_sample"] td[data-index]').evaluateAll((tds) => tds.map((td) => [td.dataset.index, Number(td.dataset.value)]))) {
    assert.ok(Math.abs(v - nested(expected.q_k_sample, index)) <= 1e-12, `q_k_sample[${index}]`);
  }
  const M = await step(4).locator('[data-field="sparsity"] li').evaluateAll((lis) => lis.map((li) => Number(li.dataset.value)));
  M.forEach((m, i) => assert.ok(Math.abs(m - expected.sparsity[0][0][i]) <= 1e-12, `M[${i}]`));
  assert.equal(await textOf(step(5).locator('[data-field="top_index"]')), `[${expected.top_index[0][0].join(', ')}]`);
  for (const field of ['scores_top', 'weights_top']) {
    const shown = await step(6).locator(`[data-field="${field}"] td[data-index]`).evaluateAll((tds) => tds.map((td) => [td.dataset.index, Number(td.dataset.value), td.classList.contains('masked')]));
    assert.ok(shown.length > 0, field);
    for (const [index, v] of shown) {
      const e = nested(expected[field], index);
      assert.ok(v === e || Math.abs(v - e) <= 1e-12, `${field}[${index}]`);
    }
  }
  for (const field of ['initial_context', 'context']) {
    for (const [index, v] of await step(7).locator(`[data-field="${field}"] td[data-index]`).evaluateAll((tds) => tds.map((td) => [td.dataset.index, Number(td.dataset.value)]))) {
      assert.ok(Math.abs(v - nested(expected[field], index)) <= 1e-12, `${field}[${index}]`);
    }
  }
  const updated = await step(8).locator('[data-field="context"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.classList.contains('updated')));
  assert.deepEqual(updated, expected.updated_rows[0][0]);
  assert.ok(s0.output_attention, 'prob-toy asks for attn');
  const attn = await step(9).locator('[data-field="attn"] td[data-index]').evaluateAll((tds) => tds.map((td) => [td.dataset.index, Number(td.dataset.value)]));
  assert.equal(attn.length, expected.attn[0][0].flat().length);
  for (const [index, v] of attn) assert.ok(Math.abs(v - nested(expected.attn, index)) <= 1e-12, `attn[${index}]`);
  // without output_attention there is no attn: step 9 says how to get it, the numbering stays
  await input('pitfalls.show').click();
  await settle(page);
  await input('output_attention').uncheck();
  await settle(page);
  await step(9).locator('[data-field="attn-off"]').waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => document.querySelector('attention-playground').trace.attn), undefined);
  assert.equal(await step(9).locator('[data-field="attn"]').count(), 0);
  assert.deepEqual((await headings()).map(([steps]) => steps.split(' ')), want);
});

test('ProbAttention: the updated rows are the trace\'s updated_rows (the .squeeze() union at H = 1, B > 1)', async (t) => {
  const opened = await openPreset(t, 'prob-squeeze-bug');
  if (!opened) return;
  const { scenario: s0, expected } = opened;
  const prob = el().locator('[data-panel="prob"]');
  const B = s0.q.length;
  assert.ok(B > 1 && s0.q[0][0].length === 1, 'the preset has H = 1, B > 1');
  for (let b = 0; b < B; b++) {
    if (b > 0) {
      await input('slice.b').selectOption(String(b));
      await settle(page);
      await page.waitForFunction((bb) => document.querySelector('attention-playground').shadowRoot
        .querySelector('[data-key="slice.b"]').value === String(bb), b);
    }
    const rows = await prob.locator('section.step[data-steps~="8"] [data-field="context"] tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.classList.contains('updated')));
    assert.deepEqual(rows, expected.updated_rows[b][0], `b = ${b}`);
    // rows updated although not in this item's own top_index are named
    const extra = expected.updated_rows[b][0].flatMap((u, i) => (u && !expected.top_index[b][0].includes(i) ? [`q${i}`] : []));
    const note = prob.locator('[data-field="squeeze-union"]');
    if (extra.length) assert.ok((await textOf(note)).startsWith(extra.join(', ') + ':'), `b = ${b}`);
    else assert.equal(await note.count(), 0);
  }
  assert.deepEqual(problems, []);
});
