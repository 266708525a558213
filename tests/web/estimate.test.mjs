// The core says what it knows (issue 13, item 2), the page's part: the element's estimate of a run
// (the core's estimate from the scenario's shapes, engine.estimate) is the trace's cost for every
// preset, and the flash view labels its key blocks with the block size the trace carries (the
// core's default of 64 keys past L_K = 16, not the toy blocks of 2). Headless Chromium against
// dist/ served by scripts/serve.mjs (its CSP). The estimate of every preset: presets.test.mjs, in its
// one visit of each preset.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl, seededTensor, setScenario, settle, textOf, traceOf } from './harness.mjs';

let page, base, problems, browser;

before(async () => {
  ({ page, base, problems, close: browser } = await launch());
  await openUrl(page, base);
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();

test('flash at L_K = 32: the key blocks are the trace\'s block_k (64: one block of all 32 keys), and a given block_k', async () => {
  const s = { algorithm: 'flash', q: seededTensor(32, 2, 1), k: seededTensor(32, 2, 2), v: seededTensor(32, 2, 3) };
  await setScenario(page, s);
  let trace = await traceOf(page);
  assert.equal(trace.block_k, 64);
  assert.equal(trace.num_key_blocks, 1);
  const step = el().locator('output[data-field="flash.step"]');
  assert.match(await textOf(step), /key block 1 \/ 1 · keys k0–k31$/);
  // the control shows the core's default for these sizes (the catalog's), not the toy blocks of 2
  assert.equal(await textOf(el().locator('[data-field="block_k"] output.range-value')), '64');

  await setScenario(page, { ...s, block_k: 8 });
  trace = await traceOf(page);
  assert.equal(trace.block_k, 8);
  await el().locator('[data-key="flash.prev"]').click();
  await settle(page);
  assert.match(await textOf(step), /key block 3 \/ 4 · keys k16–k23$/);
  assert.deepEqual(problems, []);
});
