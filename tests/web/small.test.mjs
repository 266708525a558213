// Issue 15's small items: the CSV of every (b, h) slice or of the shown one, each saying which; "Copy
// link" from file:// warns that the address opens on this computer only; 1e400 in a cell is named as
// outside float64. Headless Chromium against dist/ served by scripts/serve.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { dist, downloaded, launch, openUrl, settle, textOf, traceOf } from './harness.mjs';

let page, base, problems, close;

before(async () => { ({ page, base, problems, close } = await launch()); });
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground').first();
const csvOf = (field, options) => page.evaluate(async ([f, o]) =>
  (await document.querySelector('attention-playground').export('csv', f ?? undefined, o ?? undefined)).text(), [field, options]);
/** A CSV as rows of cells (a cell with a comma is quoted, no quote inside). */
const rowsOf = (text) => text.trimEnd().split('\n').map((line) => [...line.matchAll(/"([^"]*)"|([^,]*)/g)]
  .filter((m) => m.index === 0 || line[m.index - 1] === ',').map((m) => m[1] ?? m[2]));

test('csv: the shown slice says which in its corner and its file name; every slice in one file', async () => {
  await openUrl(page, base + '#preset=d2l-multihead');
  await el().locator('[data-key="slice.b"]').selectOption('1');
  await el().locator('[data-key="slice.h"]').selectOption('2');
  await settle(page);
  const trace = await traceOf(page);
  const [B, H] = [trace.head_weights.length, trace.head_weights[0].length];
  assert.ok(B > 1 && H > 1, 'the preset has several slices');
  const one = rowsOf(await csvOf('head_weights'));
  assert.equal(one[0][0], 'b = 1, h = 2');
  assert.deepEqual(one.slice(1).map((r) => r.slice(1).map(Number)), trace.head_weights[1][2]);

  const all = rowsOf(await csvOf('head_weights', { slices: 'all' }));
  assert.deepEqual(all[0].slice(0, 3), ['b', 'h', '']);
  const L = trace.head_weights[0][0].length;
  assert.equal(all.length - 1, B * H * L, 'every (b, h) slice, each of L rows');
  for (const row of all.slice(1)) {
    const [b, h] = [Number(row[0]), Number(row[1])];
    const i = Number(row[2].replace(/\D+/g, ''));
    assert.deepEqual(row.slice(3).map(Number), trace.head_weights[b][h][i], `b ${b} h ${h} row ${i}`);
  }
  // a (B, L, d) field has no head: its h column is blank
  const out = rowsOf(await csvOf('output', { slices: 'all' }));
  assert.equal(out.length - 1, B * trace.output[0].length);
  assert.ok(out.slice(1).every((r) => r[1] === ''), 'no h for output');

  // the buttons (multihead's default map: output, (B, L, d)): the shown slice named b1, every slice "all"
  const row = el().locator('.panel-results .panel-head .export');
  for (const [key, name] of [['export.csv', 'attention-multihead-output-b1.csv'], ['export.csv-all', 'attention-multihead-output-all.csv']]) {
    const [download] = await Promise.all([page.waitForEvent('download'), row.locator(`button[data-key="${key}"]`).click()]);
    assert.equal(download.suggestedFilename(), name);
    const text = (await downloaded(download)).toString('utf8');
    assert.equal(text, await csvOf('output', key.endsWith('all') ? { slices: 'all' } : undefined));
  }
  assert.deepEqual(problems, []);
});

test('1e400 in a cell is outside float64, not "expected a number"', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  await el().locator('[data-key="k[0][0][0][0]"]').fill('1e400');
  await settle(page);
  const slot = el().locator('[data-slot="k"]');
  await slot.waitFor({ state: 'visible' });
  assert.match(await textOf(slot), /k\[0\]\[0\]\[0\]\[0\]: 1e400 is outside float64/);
  await el().locator('[data-key="k[0][0][0][0]"]').fill('-1e309');
  await settle(page);
  assert.match(await textOf(slot), /-1e309 is outside float64/);
  await el().locator('[data-key="k[0][0][0][0]"]').fill('abc');
  await settle(page);
  assert.match(await textOf(slot), /expected a number, got "abc"/);
});

test('"Copy link" from file:// warns that the address opens on this computer only', async () => {
  await page.goto('file://' + path.join(dist, 'attention-playground.html') + '#preset=softmax-toy');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  const button = el().locator('[data-key="copy-link"]');
  await button.click();
  await page.waitForFunction((b) => b.textContent !== 'Copy link', await button.elementHandle());
  assert.match(await button.textContent(), /file:\/\/ link opens on this computer only/);
  // over http the usual words
  await openUrl(page, base + '#preset=softmax-toy');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
  await el().locator('[data-key="copy-link"]').click();
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('[data-key="copy-link"]').textContent === 'Link copied');
});
