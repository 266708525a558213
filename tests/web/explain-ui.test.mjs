// The explain panel (issue 14 items 2 and 3, SPEC §1 "every number explains itself"): hovering,
// focusing or tapping a map cell shows el.explain's derivation (the formula as KaTeX MathML, the
// sentence, the terms, the value), lights its operands in the other maps and the input grids,
// follows the arrow keys (one tab stop per map), closes on Escape, speaks Chinese, works on canvas
// maps, a phone, the single file from file://, and axe finds nothing with it open. Headless
// Chromium against dist/ served with its CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { dist, launch, openUrl, samePage, seededTensor, setScenario, settle } from './harness.mjs';
import { axeViolations, openAll } from './axe.mjs';

let page, base, problems, close;
before(async () => { ({ page, base, problems, close } = await launch()); });
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground');
const cell = (field, index) => el().locator(`figure[data-field="${field}"] td[data-index="${index}"]`).first();
/** The panel once it shows `field[index]` (its title), with its text, formula and lit cells. */
async function panelFor(field, index) {
  const title = `${field}[${index.split(',').join(', ')}]`;
  await page.waitForFunction((want) => {
    const p = document.querySelector('attention-playground').shadowRoot.querySelector('.xp-panel');
    return p && !p.hidden && p.querySelector('.xp-title').textContent === want && p.querySelector('.xp-text').textContent !== '';
  }, title, { timeout: 10000 }).catch(async (e) => {
    const now = await page.evaluate(() => {
      const p = document.querySelector('attention-playground').shadowRoot.querySelector('.xp-panel');
      return p ? `${p.hidden ? 'hidden' : 'shown'}: ${p.textContent.slice(0, 160)}` : 'no panel';
    });
    throw new Error(`the panel does not show ${title} (${now}): ${e.message}`);
  });
  return page.evaluate(() => {
    const root = document.querySelector('attention-playground').shadowRoot;
    const p = root.querySelector('.xp-panel');
    const lit = (sel) => [...root.querySelectorAll(sel)].map((e) => e.dataset.index ?? e.querySelector('[data-key]')?.dataset.key);
    return {
      title: p.querySelector('.xp-title').textContent, value: p.querySelector('.xp-value').textContent,
      text: p.querySelector('.xp-text').textContent, math: p.querySelectorAll('.xp-formula math').length,
      mathText: p.querySelector('.xp-formula').textContent, terms: p.querySelector('.xp-terms').textContent,
      all: p.textContent, cell: lit('.xp-cell'), operands: lit('.xp-operand').sort(),
      box: p.getBoundingClientRect().toJSON(), lang: p.closest('[lang]')?.lang,
      describedBy: root.activeElement?.getAttribute('aria-describedby') === p.querySelector('.xp-text').id,
      live: p.querySelector('.xp-text').getAttribute('role'),
    };
  });
}
const hidden = () => page.evaluate(() => document.querySelector('attention-playground').shadowRoot.querySelector('.xp-panel')?.hidden ?? true);
const active = () => page.evaluate(() => document.querySelector('attention-playground').shadowRoot.activeElement?.dataset.index ?? null);

test('the first load has a hook only: the panel loads on the first hover, KaTeX after the first trace', async () => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.addInitScript(() => document.addEventListener('trace', () => { window.__firstTrace ??= performance.now(); }));
  await openUrl(page, `${base}#preset=softmax-toy`);
  const loaded = (re) => page.evaluate((src) => performance.getEntriesByType('resource').filter((e) => new RegExp(src).test(e.name))
    .map((e) => e.startTime > window.__firstTrace), re);
  assert.deepEqual(await loaded('katex'), [true], 'KaTeX is fetched once, after the first trace (the step formulas)');
  assert.deepEqual(await loaded('explain-panel'), []);
  // the native tooltip gave way to the panel; the exact value stays in data-value
  assert.equal(await cell('weights', '0,0,0,0').getAttribute('title'), null);
  assert.equal(await cell('weights', '0,0,0,0').getAttribute('data-value'), '0.6652409557748218');
  await cell('weights', '0,0,0,0').hover();
  await panelFor('weights', '0,0,0,0');
  assert.deepEqual(await loaded('explain-panel'), [true]);
});

test('hovering a softmax-toy weight shows its derivation: exp(2 − 2) over the row sum 1.503 = 0.665', async () => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await openUrl(page, `${base}#preset=softmax-toy`);
  await cell('weights', '0,0,0,0').hover();
  const p = await panelFor('weights', '0,0,0,0');
  const want = await el().evaluate((e) => e.explain('weights', [0, 0, 0, 0]));
  assert.equal(p.value, String(want.value));
  assert.match(p.value, /^0\.665/);
  assert.ok(p.math >= 1, 'the formula is MathML');
  assert.match(p.mathText, /1\.503/);
  assert.match(p.mathText, /0\.665/);
  assert.equal(p.text, want.text);
  assert.match(p.all, /1\.503/);
  assert.ok(p.terms.includes('1.503'), p.terms);
  assert.equal(p.live, 'status', 'screen readers hear the sentence');
  // the operands are lit: the scores of the row (the weight's operands), nothing else
  const expected = [...new Set([...want.operands, ...want.terms.flatMap((t) => [t.ref, ...(t.refs ?? [])]).filter(Boolean)]
    .filter((r) => r.field === 'scores').map((r) => r.index.join(',')))].sort();
  assert.deepEqual(expected, ['0,0,0,0', '0,0,0,1', '0,0,0,2']);
  assert.deepEqual(p.operands, expected);
  assert.deepEqual(p.cell, ['0,0,0,0']);
  // the panel does not cover the cell
  const c = await cell('weights', '0,0,0,0').boundingBox();
  assert.ok(c.y + c.height <= p.box.top || c.y >= p.box.bottom || c.x + c.width <= p.box.left || c.x >= p.box.right, JSON.stringify([c, p.box]));
  // leaving the map closes it
  await page.mouse.move(5, 5);
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.xp-panel').hidden);
  assert.deepEqual(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot.querySelectorAll('.xp-operand, .xp-cell').length), 0);
  assert.deepEqual(problems, []);
});

test('a score lights its q row and k column in the input grids; a context cell its weights row and v column', async () => {
  await samePage(page, 'sparse-local');  // the test before closed its panel
  await cell('scores', '0,0,3,4').hover();
  let p = await panelFor('scores', '0,0,3,4');
  const E = (await el().evaluate((e) => e.scenario.q[0][0][0].length));
  const keys = (name, row) => Array.from({ length: E }, (_, e) => `${name}[0][${row}][0][${e}]`);
  assert.deepEqual(p.operands, [...keys('k', 4), ...keys('q', 3)].sort());
  // a hovered cell's panel lets the pointer through (it is a tooltip over other maps): a tap pins it
  assert.equal(await el().locator('.xp-panel').evaluate((x) => getComputedStyle(x).pointerEvents), 'none');
  await cell('scores', '0,0,3,4').click();
  assert.equal(await el().locator('.xp-panel').evaluate((x) => getComputedStyle(x).pointerEvents), 'auto');
  // pointing at a product's row in the terms of the pinned panel lights its two cells, q[3][e] and k[4][e]
  const row = el().locator('.xp-terms tr[data-term]').first();
  await row.hover();
  assert.deepEqual(await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot.querySelectorAll('.xp-term [data-key]')]
    .map((e) => e.dataset.key).sort()), ['k[0][4][0][0]', 'q[0][3][0][0]']);
  await cell('scores', '0,0,3,4').hover();
  await cell('context', '0,2,0,1').hover();
  p = await panelFor('context', '0,2,0,1');
  // the weights row (at least its allowed keys) and the v column d = 1 of the same keys
  const allowed = await el().evaluate((e) => e.trace.allowed[0][0][2].flatMap((a, j) => (a ? [j] : [])));
  assert.deepEqual(allowed, [0, 1, 2, 3, 4]);
  const weights = p.operands.filter((x) => /^0,0,\d+,\d+$/.test(x));
  const v = p.operands.filter((x) => /^v\[/.test(x));
  const keysOf = weights.map((x) => Number(x.split(',')[3]));
  assert.ok(weights.every((x) => x.startsWith('0,0,2,')), weights.join(' '));
  assert.ok(allowed.every((j) => keysOf.includes(j)), weights.join(' '));
  assert.deepEqual(v, keysOf.map((j) => `v[0][${j}][0][1]`).sort());
  assert.equal(p.operands.length, weights.length + v.length);
  assert.deepEqual(problems, []);
});

test('keyboard: one tab stop per map, arrow keys walk it and the panel follows, Escape closes', async () => {
  await openUrl(page, `${base}#preset=sparse-local`);
  const stops = await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot.querySelectorAll('figure[data-field]')]
    .filter((f) => f.querySelector('td[data-index]')).map((f) => f.querySelectorAll('[tabindex="0"]').length));
  assert.ok(stops.length >= 3 && stops.every((n) => n === 1), JSON.stringify(stops));
  await cell('weights', '0,0,0,0').focus();
  await panelFor('weights', '0,0,0,0');
  await page.keyboard.press('ArrowRight');
  assert.equal(await active(), '0,0,0,1');
  let p = await panelFor('weights', '0,0,0,1');
  assert.equal(p.value, String(await el().evaluate((e) => e.trace.weights[0][0][0][1])));
  assert.ok(p.describedBy, 'the focused cell is described by the sentence');
  await page.keyboard.press('ArrowDown');
  assert.equal(await active(), '0,0,1,1');
  await panelFor('weights', '0,0,1,1');
  await page.keyboard.press('End');
  assert.equal(await active(), '0,0,1,7');
  await page.keyboard.press('ArrowRight');  // the edge: it stays
  assert.equal(await active(), '0,0,1,7');
  p = await panelFor('weights', '0,0,1,7');
  // the roving tab stop moved with the focus
  assert.deepEqual(await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('figure[data-field="weights"] [tabindex="0"]')].map((e) => e.dataset.index)), ['0,0,1,7']);
  await page.keyboard.press('Escape');
  assert.equal(await hidden(), true);
  assert.equal(await active(), '0,0,1,7', 'focus stays on the cell');
  await page.keyboard.press('ArrowLeft');
  await panelFor('weights', '0,0,1,6');
  // focus leaves the maps: the panel closes
  await el().locator('[data-panel="json"] summary').focus();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.xp-panel').hidden);
  assert.deepEqual(problems, []);
});

test('an edit while the panel is open (a hovered cell) shows the cell\'s new numbers', async () => {
  await samePage(page, 'softmax-toy');  // the test before closed its panel
  await cell('weights', '0,0,0,1').hover();
  await panelFor('weights', '0,0,0,1');
  // the pointer stays on the cell; the keyboard raises k1 from 1 to 2 in its grid
  await el().evaluate((e) => e.shadowRoot.querySelector('[data-key="k[0][1][0][0]"]').focus({ preventScroll: true }));
  await page.keyboard.press('ArrowUp');
  await settle(page);
  assert.equal(await el().evaluate((e) => e.scenario.k[0][1][0][0]), 2);
  const p = await panelFor('weights', '0,0,0,1');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.xp-value').textContent
    === String(document.querySelector('attention-playground').trace.weights[0][0][0][1]));
  assert.ok(Math.abs(Number((await panelFor('weights', '0,0,0,1')).value) - 1 / (2 + Math.exp(-2))) < 1e-12, p.value);
  assert.deepEqual(problems, []);
});

test('Chinese: the panel speaks the element\'s language', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  await el().evaluate((e) => e.setAttribute('lang', 'zh'));
  await settle(page);
  await cell('weights', '0,0,0,0').hover();
  const p = await panelFor('weights', '0,0,0,0');
  const want = await el().evaluate((e) => e.explain('weights', [0, 0, 0, 0]));
  assert.equal(p.text, want.text);
  assert.match(p.text, /[\u4e00-\u9fff]/, 'the sentence is Chinese');
  assert.match(p.terms, /各项/);
  assert.equal(p.lang, 'zh');
  assert.deepEqual(problems, []);
});

test('a canvas map explains the cell under the pointer and walks by keyboard', async () => {
  const L = 24;
  await openUrl(page, `${base}#preset=softmax-toy`);
  await setScenario(page, { algorithm: 'full', q: seededTensor(L, 4, 1), k: seededTensor(L, 4, 2), v: seededTensor(L, 3, 3) });
  const canvas = el().locator('figure[data-field="weights"] canvas.map-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const [i, j] = [5, 17];
  await page.mouse.move(box.x + (j + 0.5) * box.width / L, box.y + (i + 0.5) * box.height / L);
  let p = await panelFor('weights', `0,0,${i},${j}`);
  assert.equal(p.value, String(await el().evaluate((e, [a, b]) => e.trace.weights[0][0][a][b], [i, j])));
  assert.ok(p.math >= 1);
  // the scores row it reads is marked on the scores canvas
  assert.ok(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('figure[data-field="scores"] .xp-marks span').length) >= 1);
  // a tap pins it; the arrow keys move the cursor
  await page.mouse.click(box.x + (j + 0.5) * box.width / L, box.y + (i + 0.5) * box.height / L);
  await page.keyboard.press('ArrowDown');
  p = await panelFor('weights', `0,0,${i + 1},${j}`);
  assert.equal(p.value, String(await el().evaluate((e, [a, b]) => e.trace.weights[0][0][a][b], [i + 1, j])));
  await page.keyboard.press('Escape');
  assert.equal(await hidden(), true);
  assert.deepEqual(problems, []);
});

test('on a phone a tap shows the panel beside the cell, inside the screen', async () => {
  await page.setViewportSize({ width: 390, height: 800 });
  await openUrl(page, `${base}#preset=sparse-local`);
  const c = cell('context', '0,3,0,0');
  await c.scrollIntoViewIfNeeded();
  await c.click();
  const p = await panelFor('context', '0,3,0,0');
  const r = await c.boundingBox();
  assert.ok(p.box.left >= 0 && p.box.right <= 390, JSON.stringify(p.box));
  assert.ok(r.y + r.height <= p.box.top || r.y >= p.box.bottom, `the panel covers the cell: ${JSON.stringify([r, p.box])}`);
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.deepEqual(problems, []);
});

test('axe finds no WCAG A/AA violation with the panel open (light en, dark zh 390 px)', async () => {
  for (const [theme, lang, width] of [['light', 'en', 1366], ['dark', 'zh', 390]]) {
    await page.setViewportSize({ width, height: 900 });
    await openUrl(page, `${base}#preset=sparse-local`);
    await el().evaluate((e, [t, l]) => { e.setAttribute('theme', t); e.setAttribute('lang', l); }, [theme, lang]);
    await settle(page);
    await openAll(page, { dives: false });
    await cell('scores', '0,0,2,3').focus();
    await panelFor('scores', '0,0,2,3');
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], `${theme}, ${lang}, ${width} px`);
  }
  await page.setViewportSize({ width: 1366, height: 900 });
  assert.deepEqual(problems, []);
});

test('the single file from file:// renders the formula under its own CSP', async () => {
  await page.goto('about:blank');
  await page.goto('file://' + path.join(dist, 'attention-playground.html') + '#preset=softmax-toy');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  await settle(page);
  await cell('weights', '0,0,0,0').hover();
  const p = await panelFor('weights', '0,0,0,0');
  assert.ok(p.math >= 1);
  assert.match(p.mathText, /1\.503/);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(problems, []);
});

test('each flow step shows its formula (MathML) beside its shape chain; an edit leaves them as drawn', async () => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await openUrl(page, `${base}#preset=sparse-local`);
  const formulas = () => page.evaluate(() => Object.fromEntries([...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('.flow-step[data-step]')].filter((s) => s.querySelector('.step-formula'))
    .map((s) => [s.dataset.step, s.querySelector('.step-formula math annotation')?.textContent ?? null])));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.step-formula math'));
  const got = await formulas();
  assert.deepEqual(Object.keys(got).sort(), ['allowed', 'context', 'scores', 'weights']);
  assert.match(got.scores, /q_i \\cdot k_j/);
  assert.match(got.weights, /\\frac\{e\^\{s_\{ij\}\}\}/);
  assert.match(got.context, /\\sum_j w_\{ij\}/);
  // an edit patches the maps; the formulas' nodes stay the ones drawn
  await page.evaluate(() => { for (const m of document.querySelector('attention-playground').shadowRoot.querySelectorAll('.step-formula math')) m.__drawn = true; });
  await el().locator('[data-key="q[0][1][0][0]"]').fill('0.25');
  await settle(page);
  assert.equal(await el().evaluate((e) => e.trace.scores[0][0][1][1] !== undefined && e.scenario.q[0][1][0][0]), 0.25);
  assert.deepEqual(await page.evaluate(() => [...document.querySelector('attention-playground').shadowRoot.querySelectorAll('.step-formula math')]
    .map((m) => m.__drawn === true)), [true, true, true, true]);
  assert.deepEqual(problems, []);
});
