// The ProbAttention note's walk-through on the page (issue 14 item 5): prob-seed-walkthrough's
// numbers (scores_top, the exact M beside the sampled one, the context), sample_index and
// top_index edited by clicking, and a factor change with a given index that puts it aside with a
// note instead of an error. Every number is checked against the WASM module run in node.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { afterTrace as traced, assertCells, launch, openUrl, samePage, scenarioOf, settle, textOf } from './harness.mjs';

let browser, page, base, problems, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();
const input = (key) => el().locator(`[data-key="${key}"]`);
const prob = () => el().locator('[data-panel="prob"]');
const step = (n) => prob().locator(`section.step[data-steps~="${n}"]`);

const afterTrace = (action) => traced(page, action);

/** No error shown anywhere, and the results are current. */
async function noErrors() {
  const shown = await el().evaluate((e) => [...e.shadowRoot.querySelectorAll('p.error[data-slot]')]
    .filter((p) => !p.hidden).map((p) => p.textContent));
  assert.deepEqual(shown, []);
  assert.doesNotMatch(await el().locator('[data-panel="results"]').getAttribute('class'), /stale/);
}

/** Sampled M, exact M and the query buttons' pressed state, as the step 4–5 list shows them. */
const sparsityRows = () => step(4).locator('[data-field="sparsity"] li').evaluateAll((lis) => lis.map((li) => ({
  M: Number(li.dataset.value), exact: Number(li.querySelector('[data-field="sparsity_exact"]')?.dataset.value),
  exactText: li.querySelector('[data-field="sparsity_exact"] strong')?.textContent,
  pressed: li.querySelector('button.q')?.getAttribute('aria-pressed') })));

test('prob-seed-walkthrough: scores_top [1, 0, 1, 1] and [1, 1, 2, 0], exact M 0.25 and 1 beside the sampled M, context 25.94', async () => {
  await openUrl(page, `${base}#preset=prob-seed-walkthrough`);
  const s = await scenarioOf(page);
  assert.deepEqual(s.top_index, [0, 2]);
  assert.equal(s.scale, 1);
  const t = wasm.run(s);
  assert.deepEqual(t.scores_top, [[[[1, 0, 1, 1], [1, 1, 2, 0]]]]);
  await assertCells(step(6), 'scores_top', t.scores_top);
  assert.deepEqual(await step(6).locator('[data-field="scores_top"] td[data-index]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.value))),
    [1, 0, 1, 1, 1, 1, 2, 0]);
  // the exact M (sparsity_exact) as numbers beside the sampled estimate
  const rows = await sparsityRows();
  assert.deepEqual(rows.map((r) => r.M), t.sparsity[0][0]);
  assert.deepEqual(rows.map((r) => r.exact), t.sparsity_exact[0][0]);
  assert.equal(rows[0].exact, 0.25);
  assert.equal(rows[2].exact, 1);
  assert.equal(Number(rows[0].exactText), 0.25);
  assert.equal(Number(rows[2].exactText), 1);
  assert.deepEqual(rows.map((r) => r.pressed), ['true', 'false', 'true', 'false']);
  // given, not ranked: the page says so, and what ranking by M would pick
  const source = step(5).locator('[data-field="top-source"]');
  assert.equal(await source.getAttribute('data-given'), 'true');
  assert.match(await textOf(source), /given by the scenario, not ranked/);
  assert.match(await textOf(step(5).locator('[data-field="top-ranked"]')), /\[2, 1\]/);
  assert.equal(await step(4).locator('[data-field="sparsity"] li.top .badge').first().textContent(), '★ given');
  // the context: q0 [25.94, 26.94], q2 [24.82, 25.82], the others the mean of V
  await assertCells(step(8), 'context', t.context);
  const q0 = await step(8).locator('[data-field="context"] td[data-index^="0,0,"]').evaluateAll((tds) => tds.map((td) => td.textContent));
  assert.deepEqual(q0.map((x) => Number(x).toFixed(2)), ['25.94', '26.94'], q0.join(' '));
  assert.deepEqual(t.context[0][0][0].map((x) => x.toFixed(2)), ['25.94', '26.94']);
  // the description says it with the note's numbers
  const description = await textOf(el().locator('[data-field="description"]'));
  for (const n of ['[1, 0, 1, 1]', '[1, 1, 2, 0]', '0.25', '[25.94, 26.94]']) assert.ok(description.includes(n), n);
  // in Chinese too
  await input('lang').click();
  await settle(page);
  assert.match(await textOf(step(5).locator('[data-field="top-source"]')), /由场景给定/);
  assert.match(await textOf(step(4).locator('[data-field="sparsity"] li').first()), /精确 M/);
  await input('lang').click();
  await settle(page);
  assert.deepEqual(problems, []);
});

test('clicking edits sample_index (a key in or out of a query\'s draws) and top_index (a query in or out)', async () => {
  await samePage(page, 'prob-seed-walkthrough');
  const s0 = await scenarioOf(page);
  assert.deepEqual(s0.sample_index[0], [0, 2]);
  // k1 for q0: it takes the place of the oldest draw (k0)
  let s = await afterTrace(() => step(2).locator('[data-field="samples"] td[data-index="0,1"]').click());
  assert.deepEqual(s.sample_index, [[2, 1], ...s0.sample_index.slice(1)]);
  let t = wasm.run(s);
  await assertCells(step(3), 'q_k_sample', t.q_k_sample);
  await assertCells(step(2), 'samples', t.sample_index.map((row) => [0, 1, 2, 3].map((j) => row.filter((x) => x === j).length)));
  // k2 out for q0: its draw goes to the row's other key (k1, twice)
  s = await afterTrace(() => step(2).locator('[data-field="samples"] td[data-index="0,2"]').click());
  assert.deepEqual(s.sample_index[0], [1, 1]);
  t = wasm.run(s);
  assert.deepEqual((await sparsityRows()).map((r) => r.M), t.sparsity[0][0]);
  // k1 out of [1, 1]: a query keeps at least one key, nothing changes
  await step(2).locator('[data-field="samples"] td[data-index="0,1"]').click();
  await settle(page);
  assert.deepEqual((await scenarioOf(page)).sample_index[0], [1, 1]);
  // q1 into top_index: the selected query of least sampled M gives way
  const M = t.sparsity[0][0];
  const least = [0, 2].sort((a, b) => M[a] - M[b] || b - a)[0];
  s = await afterTrace(() => step(4).locator('button.q[data-key="top_index.1"]').click());
  assert.deepEqual(s.top_index, [0, 2].map((x) => (x === least ? 1 : x)));
  t = wasm.run(s);
  assert.deepEqual(t.top_index[0][0], s.top_index);
  await assertCells(step(6), 'scores_top', t.scores_top);
  assert.equal(await step(4).locator('button.q[data-key="top_index.1"]').getAttribute('aria-pressed'), 'true');
  // and out again: the unselected query of largest M takes its place
  const out = [0, 1, 2, 3].filter((i) => !s.top_index.includes(i)).sort((a, b) => M[b] - M[a] || a - b)[0];
  const before = s.top_index;
  s = await afterTrace(() => step(4).locator('button.q[data-key="top_index.1"]').click());
  assert.deepEqual(s.top_index, before.map((x) => (x === 1 ? out : x)));
  // Rank by M: top_index dropped, the core ranks; the page says so
  s = await afterTrace(() => input('top_index.rank').click());
  assert.equal(s.top_index, undefined);
  t = wasm.run(s);
  assert.equal(await step(5).locator('[data-field="top-source"]').getAttribute('data-given'), 'false');
  assert.equal(await textOf(step(5).locator('[data-field="top_index"]')), `[${t.top_index[0][0].join(', ')}]`);
  // a drawn sample_index (prob-toy's ranked, then resampled): a click makes it given
  s = await afterTrace(() => input('resample').click());
  assert.equal(s.sample_index, undefined);
  const drawn = wasm.run(s).sample_index;
  const j = [0, 1, 2, 3].find((x) => !drawn[3].includes(x));
  s = await afterTrace(() => step(2).locator(`[data-field="samples"] td[data-index="3,${j}"]`).click());
  assert.deepEqual(s.sample_index.slice(0, 3), drawn.slice(0, 3));
  assert.ok(s.sample_index[3].includes(j));
  assert.match(await textOf(prob().locator('[data-field="samples-source"]')), /given by the scenario/);
  await noErrors();
  assert.deepEqual(problems, []);
});

test('a factor change with a given sample_index and top_index puts them aside (no error, no stale formula), and back', async () => {
  await samePage(page, 'prob-seed-walkthrough');
  const s0 = await scenarioOf(page);
  const s1 = await afterTrace(async () => {
    await input('factor').focus();
    await page.keyboard.press('ArrowRight');
  });
  assert.equal(s1.factor, 2);
  await noErrors();
  assert.equal(s1.sample_index, undefined);
  assert.equal(s1.top_index, undefined);
  const t1 = wasm.run(s1);
  assert.deepEqual([t1.U_part, t1.u], [4, 4]);
  // the sizes line reads the factor of its trace
  assert.match(await textOf(step(1)), /min\(2·⌈ln 4⌉, 4\) = 4/);
  assert.equal(Number(await textOf(step(1).locator('[data-field="U_part"]'))), 4);
  // and says what happened to the given ones
  assert.match(await textOf(prob().locator('[data-field="sample_index-aside"]')), /4 × 2.*put aside.*drawn from the seed/);
  assert.match(await textOf(prob().locator('[data-field="top_index-aside"]')), /\[0, 2\].*u = 4.*ranked by M/);
  assert.equal(await step(5).locator('[data-field="top-source"]').getAttribute('data-given'), 'false');
  // back to factor 1: both come back, the notes go
  const s2 = await afterTrace(() => input('factor').fill('1'));
  assert.deepEqual(s2.sample_index, s0.sample_index);
  assert.deepEqual(s2.top_index, [0, 2]);
  assert.equal(await prob().locator('[data-field="sample_index-aside"]').count(), 0);
  assert.equal(await prob().locator('[data-field="top_index-aside"]').count(), 0);
  assert.match(await textOf(step(1)), /min\(1·⌈ln 4⌉, 4\) = 2/);
  await noErrors();
  // a top_index that no longer fits after L_Q shrinks (u = 2 still, but q2 is gone at L_Q = 2)
  const s3 = await afterTrace(async () => {
    await el().locator('[data-dim="L_Q"] button').first().click();
  });
  await noErrors();
  if (s3.q[0].length <= 2) assert.equal(s3.top_index, undefined);
  assert.deepEqual(problems, []);
});

test('Bahdanau\'s held-out sentence tells reverse from copy: its target and the other task\'s answer differ', async () => {
  await samePage(page, 'bahdanau-train-reverse-quick');
  const s = await scenarioOf(page);
  const t = wasm.run(s);
  const words = t.heldout_valid_len - 1;
  const src = t.heldout_src.slice(0, words);
  assert.notDeepEqual(src, [...src].reverse(), 'no palindrome');
  const held = el().locator('[data-field="heldout"]');
  await held.waitFor();
  assert.equal(await held.locator('[data-field="heldout_target"]').getAttribute('data-value'), t.heldout_target.join(' '));
  // copy would answer the words as they are, then <eos> (3)
  assert.equal(await held.locator('[data-field="heldout_other"]').getAttribute('data-value'), [...src, 3].join(' '));
  assert.notEqual(await held.locator('[data-field="heldout_other"]').getAttribute('data-value'), t.heldout_target.join(' '));
  assert.match(await textOf(held), /copy would answer/);
  assert.deepEqual(problems, []);
});
