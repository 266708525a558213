// Undo, redo and Reset (issue 15): Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y over edits (a number typed key by
// key is one entry; cells, controls, presets, pastes), Reset back to the preset; on index.html Back
// and Forward move between edits (history.pushState per entry); an embedded element leaves its
// host's history alone. Headless Chromium against dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { launch, openUrl, scenarioOf, settle, traceOf } from './harness.mjs';

let page, base, problems, close, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close } = await launch());
});
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground').first();
const input = (key) => el().locator(`[data-key="${key}"]`);
const k = async () => (await scenarioOf(page)).k[0].map((r) => r[0][0]);

/** Waits until `read()` deep-equals `want`, then settles. */
async function until(read, want, what) {
  for (let i = 0; i < 200; i++) {
    const got = await read();
    if (JSON.stringify(got) === JSON.stringify(want)) { await settle(page); return; }
    await page.waitForTimeout(50);
  }
  assert.deepEqual(await read(), want, what);
}

async function traceIsRight() {
  const s = await scenarioOf(page);
  assert.deepEqual((await traceOf(page)).context, wasm.run(s).context);
}

/** Types `text` into cell `key` key by key (select all first). */
async function type(key, text) {
  await input(key).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text, { delay: 30 });
  await settle(page);
}

test('undo restores the last edit; a number typed key by key is one entry; redo brings it back', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  assert.deepEqual(await k(), [2, 1, 0]);
  await type('k[0][0][0][0]', '2.75');
  await type('k[0][1][0][0]', '-1.5');
  assert.deepEqual(await k(), [2.75, -1.5, 0]);
  await page.keyboard.press('Control+Z');
  await until(k, [2.75, 1, 0], 'undo: the last edit (the whole typed number) undone');
  assert.equal(await input('k[0][1][0][0]').inputValue(), '1', 'the grid shows it');
  await traceIsRight();
  await page.keyboard.press('Control+Z');
  await until(k, [2, 1, 0], 'undo again: the preset');
  await page.keyboard.press('Control+Shift+Z');
  await until(k, [2.75, 1, 0], 'redo');
  await page.keyboard.press('Control+Y');
  await until(k, [2.75, -1.5, 0], 'redo (Ctrl+Y)');
  await traceIsRight();
  // a control and a preset are entries too
  await input('dim.L_K.plus').click();
  await until(async () => (await k()).length, 4);
  await input('preset').selectOption('prob-toy');
  await until(async () => (await scenarioOf(page)).algorithm, 'prob');
  await input('preset').focus();
  await page.keyboard.press('Control+Z');
  await until(async () => (await scenarioOf(page)).algorithm, 'full', 'undo the preset');
  assert.deepEqual(await k(), [2.75, -1.5, 0, 0]);
  await page.keyboard.press('Control+Z');
  await until(k, [2.75, -1.5, 0], 'undo the size');
  assert.deepEqual(problems, []);
});

test('Reset goes back to the preset; undo brings the edits back', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  assert.equal(await input('reset').isHidden(), true, 'no Reset while the preset is unmodified');
  await type('k[0][0][0][0]', '9');
  await input('reset').waitFor({ state: 'visible' });
  assert.equal(await input('reset').textContent(), 'Reset');
  await input('reset').click();
  await until(k, [2, 1, 0], 'Reset: the preset');
  assert.equal(await input('reset').isHidden(), true);
  await page.waitForFunction(() => location.hash === '#preset=softmax-toy');
  await input('preset').focus();
  await page.keyboard.press('Control+Z');
  await until(k, [9, 1, 0], 'undo the Reset');
  await traceIsRight();
});

test('index.html: Back and Forward move between edits, one entry per typed number', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  const length0 = await page.evaluate(() => history.length);
  await type('k[0][0][0][0]', '12.5');
  await type('k[0][2][0][0]', '0.25');
  await page.waitForFunction(() => location.hash.startsWith('#z='));
  assert.equal(await page.evaluate(() => history.length), length0 + 2, 'two edits, two entries (not one per key)');
  await page.goBack();
  await until(k, [12.5, 1, 0], 'Back: the first edit');
  await page.goBack();
  await until(k, [2, 1, 0], 'Back: the preset');
  await page.waitForFunction(() => location.hash === '#preset=softmax-toy');
  await page.goForward();
  await until(k, [12.5, 1, 0], 'Forward');
  await traceIsRight();
  // Ctrl+Z on index.html is Back
  await page.goForward();
  await until(k, [12.5, 1, 0.25]);
  await input('k[0][0][0][0]').focus();
  await page.keyboard.press('Control+Z');
  await until(k, [12.5, 1, 0]);
  assert.equal(await page.evaluate(() => history.length), length0 + 2, 'undo moved within the entries');
  assert.deepEqual(problems, []);
});

test('an embedded element undoes without touching its host\'s history', async () => {
  await page.goto(base + 'embed.html?preset=softmax-toy');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  const length0 = await page.evaluate(() => history.length);
  await type('k[0][0][0][0]', '5');
  await type('k[0][1][0][0]', '6');
  assert.deepEqual(await k(), [5, 6, 0]);
  await page.keyboard.press('Control+Z');
  await until(k, [5, 1, 0]);
  await page.keyboard.press('Control+Z');
  await until(k, [2, 1, 0]);
  await page.keyboard.press('Control+Shift+Z');
  await until(k, [5, 1, 0]);
  assert.equal(await page.evaluate(() => history.length), length0);
  assert.equal(await page.evaluate(() => location.hash), '');
});
