// Seeded tensor draws on the page (SPEC §2, issue 15): "Random, seeded" turns a grid into a draw
// (distribution, seed, scale) that the scenario stores as {shape, random, seed, scale}; the drawn
// numbers show read-only and can be written out; with every tensor drawn the size bar takes any size,
// and a link to L = 4096 stays under 1,000 characters and reopens to the native CLI's trace (1e-12).
// Headless Chromium against dist/ served by scripts/serve.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { afterTrace, launch, linkedScenario, openUrl, samePage, root, scenarioOf, setScenario, traceOf } from './harness.mjs';

let page, base, problems, close, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close } = await launch());
});
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground').first();
const key = (k) => el().locator(`[data-key="${k}"]`);

test('"Random, seeded" makes q a draw: its numbers read-only, seed and distribution edited, written out at toy size', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  const before = await scenarioOf(page);
  const shape = [before.q.length, before.q[0].length, before.q[0][0].length, before.q[0][0][0].length];
  let s = await afterTrace(page, () => key('q.random.make').click());
  assert.deepEqual(s.q, { shape, random: 'normal', seed: 1, scale: 1 });
  assert.deepEqual(await traceOf(page), wasm.run(s));
  // the grid shows the core's numbers, read-only
  const drawn = wasm.draw(s.q, 'q').data;
  const cell = key(`q[0][${shape[1] - 1}][0][0]`);
  assert.equal(await cell.getAttribute('readonly'), '');
  assert.equal(Number(await cell.inputValue()), drawn[(shape[1] - 1) * shape[2] * shape[3]]);
  // seed, distribution, scale
  s = await afterTrace(page, () => key('q.seed').fill('7').then(() => key('q.seed').dispatchEvent('change')));
  assert.equal(s.q.seed, 7);
  s = await afterTrace(page, () => key('q.random').selectOption('uniform'));
  assert.equal(s.q.random, 'uniform');
  s = await afterTrace(page, () => key('q.scale').fill('0.5').then(() => key('q.scale').dispatchEvent('change')));
  assert.deepEqual(s.q, { shape, random: 'uniform', seed: 7, scale: 0.5 });
  const trace = await traceOf(page);
  assert.deepEqual(trace, wasm.run(s));
  // a bad scale: the core's error beside the control, the last good trace kept
  await key('q.scale').fill('-1');
  await key('q.scale').dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="field:q.scale"]:not([hidden])')?.textContent.includes('q.scale: expected a number >= 0'));
  assert.equal(await key('q.scale').getAttribute('aria-invalid'), 'true');
  await key('q.scale').fill('0.5');
  await afterTrace(page, () => key('q.scale').dispatchEvent('change'));
  // written out: the same numbers become the scenario's, the trace unchanged, the cells editable
  s = await afterTrace(page, () => key('q.random.write').click());
  const numbers = wasm.draw({ shape, random: 'uniform', seed: 7, scale: 0.5 }).data;
  assert.deepEqual(s.q.flat(3), [...numbers]);
  assert.deepEqual(await traceOf(page), trace);
  assert.equal(await key('q[0][0][0][0]').getAttribute('readonly'), null);
  assert.deepEqual(problems, []);
});

test('a seeded L = 4096 scenario: the size bar takes it, its link is under 1,000 characters and reopens to the native trace (1e-12)', async () => {
  await samePage(page, 'softmax-toy');
  for (const name of ['q', 'k', 'v']) await afterTrace(page, () => key(`${name}.random.make`).click());
  // every tensor drawn: the size bar's sizes are typed
  let s = await afterTrace(page, () => key('trace').selectOption('context'));
  assert.equal(s.trace, 'context');
  for (const dim of ['L_Q', 'L_K']) {
    await afterTrace(page, async () => { await key(`dim.${dim}`).fill('4096'); await key(`dim.${dim}`).dispatchEvent('change'); });
  }
  s = await scenarioOf(page);
  assert.equal(s.q.shape[1], 4096);
  assert.equal(s.k.shape[1], 4096);
  assert.equal(s.v.shape[1], 4096);
  const { href: link } = await linkedScenario(page);
  assert.ok(link.length < 1000, `the link has ${link.length} characters`);
  await openUrl(page, link);
  const reopened = await scenarioOf(page);
  assert.deepEqual(reopened, s);
  const trace = await traceOf(page);
  const native = JSON.parse(execFileSync(path.join(root, 'build/native/attnplay'), ['run', '-'],
    { input: JSON.stringify(s), maxBuffer: 256 << 20 }).toString());
  assert.deepEqual(trace.shapes.context, native.shapes.context);
  let worst = 0;
  const shown = trace.context.flat(3);
  native.context.flat(3).forEach((x, i) => { worst = Math.max(worst, Math.abs(x - shown[i])); });
  assert.ok(worst <= 1e-12, `page vs native: ${worst}`);
  // the grids say what is drawn (no 4096-row grid)
  assert.match(await el().locator('[data-draw="k"] .note').textContent(), /Too many to show as a grid \(4096 × /);
  assert.equal(await el().locator('[data-draw="k"] input[data-key^="k["]').count(), 0);
  assert.deepEqual(problems, []);
});

test('copy as PyTorch and explanations read the drawn numbers', async () => {
  const s = { algorithm: 'full', q: { shape: [1, 3, 1, 2], random: 'normal', seed: 5 }, k: { shape: [1, 4, 1, 2], random: 'normal', seed: 6 },
    v: { shape: [1, 4, 1, 2], random: 'uniform', seed: 7, scale: 2 } };
  await samePage(page, 'softmax-toy');
  await setScenario(page, s);
  const q = wasm.draw(s.q).data, k = wasm.draw(s.k).data;
  const text = await page.evaluate(async () => (await document.querySelector('attention-playground').export('pytorch')).text());
  for (const x of [...q, ...k]) assert.ok(text.includes(String(x)), `the snippet writes out ${x}`);
  const ex = await page.evaluate(() => document.querySelector('attention-playground').explain('scores', [0, 0, 0, 1]));
  const want = (q[0] * k[2] + q[1] * k[3]) / Math.sqrt(2);
  assert.ok(Math.abs(ex.value - want) < 1e-12, `${ex.value} vs ${want}`);
  assert.deepEqual(problems, []);
});
