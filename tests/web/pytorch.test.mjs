// "Copy as PyTorch" (SPEC §1): `el.export('pytorch')` gives a runnable Python snippet that rebuilds
// the scenario (every seeded draw written out), runs the reference code in float64 and leaves the
// result in the variable named as the trace's main field. For every preset (of every algorithm the
// core registers: each has its builder), and a few edited scenarios (masks, seeds, B = H = 2, the
// prob switches), the snippets are run by ONE /usr/bin/python3 (tests/web/pytorch_run.py: each in
// a fresh namespace) and their result compared with the element's trace: at most 1e-9 apart. Then
// the page's button: the clipboard (permissions granted), and the download where the clipboard refuses.
// The snippets of every preset and of the edited scenarios, run by python: presets.test.mjs
// (pytorch-checks.mjs), in its one visit of each preset. Here bahdanau's training, the refusal, the button.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { launch, openUrl } from './harness.mjs';
import { assertTorch, snippet as snippetOf } from './pytorch-checks.mjs';

let page, base, problems, browser;

before(async () => {
  assertTorch();
  ({ page, base, problems, close: browser } = await launch({ ownBrowser: true }));
});
after(async () => { await browser?.(); });

const snippet = () => snippetOf(page);

/** What el.export('pytorch') rejects with. */
const rejected = () => page.evaluate(async () => {
  try { await document.querySelector('attention-playground').export('pytorch'); return null; } catch (e) { return { message: e.message, field: e.field }; }
});

test('bahdanau with train is copied (train_seq2seq, the task written out); a scenario with an error rejects', async () => {
  await openUrl(page, `${base}#preset=bahdanau-train-reverse-quick`);
  const s = await snippet();
  assert.match(s.text, /^class SplitMix64:$/m, 'the task\'s generator is written out');
  assert.match(s.text, /train_seq2seq\(net, minibatches/, 'd2l\'s training loop');
  assert.ok(s.also?.loss?.length > 0, 'the trace has a loss curve to compare');
  await openUrl(page, `${base}#preset=softmax-toy`);
  let e;
  // a scenario the core refuses: the trace shown is the earlier one's, the snippet is refused
  await page.evaluate(() => document.querySelector('attention-playground').setScenario({ algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1]]]], v: [[[[1]]]] }));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.stale-note:not([hidden])'));
  e = await rejected();
  assert.equal(e?.field, 'kind');
  assert.match(e.message, /the scenario has an error/);
  problems.length = 0;
});

test('the Copy as PyTorch button: the clipboard gets the snippet; without a clipboard it downloads', async () => {
  await openUrl(page, `${base}#preset=sparse-local`);
  const want = (await snippet()).text;
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
  const row = page.locator('attention-playground').locator('.panel-results .panel-head .export');
  const button = row.locator('button[data-key="export.pytorch"]');
  assert.equal(await button.textContent(), 'Copy as PyTorch');
  const status = row.locator('[role=status]');
  await button.click();
  await page.waitForFunction(() => /copied/.test(document.querySelector('attention-playground').shadowRoot.querySelector('.export [role=status]').textContent));
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want, 'the clipboard holds el.export(\'pytorch\')');
  // the clipboard refused: the snippet is downloaded as attention-<algorithm>.py
  await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new DOMException('denied', 'NotAllowedError')); });
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  assert.equal(download.suggestedFilename(), 'attention-full.py');
  assert.equal(fs.readFileSync(await download.path(), 'utf8'), want);
  assert.match(await status.textContent(), /saved as attention-full\.py/);
  assert.deepEqual(problems, []);
});
