// decode's view (helper modern-b, issue 16): on decode-sinks (L = 12, prompt 4, 2 sinks + window 4,
// RoPE) the step control walks generation token by token: the cache's positions as the trace holds
// them (growing, then one evicted a step), the step's row of weights = the trace's weights row P + t
// at the held keys (explained as weights), the row's equality with full attention under the sink mask.
// Headless Chromium against dist/ served with its CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl, samePage, settle, textOf, traceOf, assertCells } from './harness.mjs';

let page, base, problems, browser;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

const root = () => page.locator('attention-playground');

test('decode-sinks: step through generation, the cache growing then evicting, each row equal to full attention', async () => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await openUrl(page, `${base}#preset=decode-sinks`);
  const trace = await traceOf(page);
  assert.equal(trace.algorithm, 'decode');
  const view = root().locator('.decode-view');
  await view.scrollIntoViewIfNeeded();
  await settle(page);
  const held = (t) => trace.cache_positions[t].filter((p) => p >= 0);
  const P = trace.prompt;
  for (let t = 0; t < 4; t++) {
    const at = await textOf(view.locator('[data-field="decode.at"]'));
    assert.match(at, new RegExp(`step ${t + 1} / 8: the token at position ${P + t}`));
    assert.match(await textOf(view.locator('.decode-held')), new RegExp(`positions ${held(t).join(', ')} \\(new: ${P + t}\\)`));
    // the step's row: the trace's weights row P + t at the held keys, cell by cell
    const cells = await view.locator('[data-field="decode.step"] td[data-index]').evaluateAll((tds) => tds.map((td) => td.dataset.index));
    assert.deepEqual(cells, held(t).map((p) => `0,0,${P + t},${p}`));
    await assertCells(view, 'decode.step', trace.weights);
    const ex = await page.evaluate((i) => document.querySelector('attention-playground').explain('decode.step', i), [0, 0, P + t, held(t)[0]]);
    assert.equal(ex.field, 'decode.step');
    assert.equal(ex.value, trace.weights[0][0][P + t][held(t)[0]]);
    assert.match(await textOf(view.locator('.decode-equal')), /max \|Δ\| = \d\.\d\de-(1[5-9]|[2-9]\d)|max \|Δ\| = 0\.00e\+0/);
    await view.locator('[data-key="decode.next"]').click();
    await settle(page);
  }
  // at step 5 (position 8) positions 2, 3 and 4 have been evicted; the sinks 0 and 1 stay
  assert.match(await textOf(view.locator('[data-field="decode.at"]')), /step 5 \/ 8: the token at position 8/);
  assert.match(await textOf(view.locator('.decode-evicted')), /Evicted so far: 2, 3, 4 \(kept: the first 2 as sinks and the last 4\)/);
  assert.match(await textOf(view.locator('.decode-numbers')), /Cache: 36 numbers .* it would hold 54/);
  assert.deepEqual(problems, []);
});

test('decode-toy: the size bar\'s L resizes q, k and v together (one sequence), and the run follows', async () => {
  await samePage(page, 'decode-toy');
  const bar = root().locator('[data-key="dim.L_Q.plus"]');
  assert.equal(await root().locator('[data-key="dim.L_K.plus"]').count(), 0);
  await bar.click();
  await page.waitForFunction(() => document.querySelector('attention-playground').trace?.shapes?.context?.[1] === 9);
  await settle(page);
  const trace = await traceOf(page);
  assert.deepEqual([trace.shapes.context[1], trace.shapes.weights[3]], [9, 9]);
  assert.equal(trace.cache_positions.length, 9 - trace.prompt);
  assert.deepEqual(problems, []);
});

