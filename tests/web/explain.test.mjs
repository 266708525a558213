// Every number explains itself (SPEC §1, issue 14 item 2): for EVERY preset and EVERY map the page
// draws (figures with data-field and their cells with data-index, flash's table cells, a few
// cells of each canvas map) `el.explain(field, index)` gives the cell's value (the trace's,
// exactly), a formula showing its terms' numbers, terms and operands that are cells of the trace
// or of the scenario's inputs; the softmax family's values are recomputed from their terms (Σ
// products × scale; exp / row sum; Σ w·v) to 1e-12, and so are the kernel and approximate
// algorithms' own (checkOwn: φ(q)·φ(k) / Σ, Performer's exp(ω·x̃ − ‖x̃‖²/2) / √m, LSH's argmax and
// Σ_r ρ_r p_r, NW's u and kernel, PE's sin/cos of its argument, Bahdanau's w_v·tanh(·) and logits).
// A map the page draws that no explainer explains fails.
// Headless Chromium against dist/ served by scripts/serve.mjs (its CSP).
// The sweep over every preset (those checks) is in presets.test.mjs (explain-checks.mjs); here the
// worked examples, the errors, Chinese and the lazy load.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl, samePage } from './harness.mjs';

let page, base, problems, browser;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

const key = (r) => `${r.field}[${r.index.join(',')}]`;

test('the softmax toy: 0.665 = 1 / 1.503, its row max and row sum shown as numbers', async () => {
  await openUrl(page, `${base}#preset=softmax-toy`);
  const ex = await page.evaluate(() => document.querySelector('attention-playground').explain('weights', [0, 0, 0, 0]));
  assert.equal(ex.value, 0.6652409557748218);
  assert.ok(ex.formula.includes('\\frac{1}{1.503}'), ex.formula);
  assert.ok(ex.formula.includes('e^{2 - 2}') && ex.formula.includes('e^{1 - 2}') && ex.formula.includes('e^{0 - 2}'), ex.formula);
  const sum = ex.terms.find((t) => t.name === 'Σ_j exp(s_j − max)');
  assert.ok(Math.abs(sum.value - (1 + Math.exp(-1) + Math.exp(-2))) < 1e-15, `row sum ${sum.value}`);
  assert.equal(ex.terms.find((t) => t.name === 'max_j s').value, 2);
  assert.match(ex.text, /row max is 2, the row sum 1\.503/);
  assert.deepEqual(ex.operands.map(key), ['scores[0,0,0,0]', 'scores[0,0,0,1]', 'scores[0,0,0,2]']);
  // a score: q·k times the scale used; a context cell: Σ_j w·v
  const s = await page.evaluate(() => document.querySelector('attention-playground').explain('context', [0, 0, 0, 0]));
  assert.equal(s.value, 7.552715289452023);
  assert.ok(s.formula.includes('0.6652 \\cdot 10 + 0.2447 \\cdot 0 + 0.09003 \\cdot 10'), s.formula);
});

test('a masked score says what the mask did; allowed gives the rule with its numbers', async () => {
  await samePage(page, 'd2l-masked-softmax-1d');
  const [score, allowed, weight] = await page.evaluate(() => Promise.all([['scores', [0, 0, 0, 3]], ['allowed', [0, 0, 0, 3]], ['weights', [0, 0, 0, 3]]]
    .map(([f, i]) => document.querySelector('attention-playground').explain(f, i))));
  assert.match(score.formula, /masked.*-1000000/, score.formula);  // d2l's fill -1e6
  assert.equal(allowed.value, false);
  assert.match(allowed.formula, /j = 3 \\ge \\text\{valid\\_len\} = 2/, allowed.formula);
  assert.deepEqual(allowed.operands, [{ field: 'mask.valid_lens', index: [0] }]);
  assert.equal(weight.value, 0);
  assert.match(weight.text, /masked keys \(2, 3\) read -1000000/);
  await samePage(page, 'sparse-local');
  const w = await page.evaluate(() => document.querySelector('attention-playground').explain('allowed', [0, 0, 0, 5]));
  assert.equal(w.value, false);
  assert.match(w.formula, /\|i - j\| = 5 > w = 2/);
});

test('el.explain rejects a cell that is not there, naming the field and index; Chinese text; lazily loaded', async () => {
  // when the first trace came (its event): every view is preloaded in the background from 1.5 s after
  // the element starts (lazy.ts preloadAll, one chunk after the other), which a loaded machine reaches
  // before the page is read here: the first load is what was fetched before the first trace
  await page.addInitScript(() => document.addEventListener('trace', () => { window.__firstTraceAt ??= performance.now(); }));
  await openUrl(page, `${base}#preset=softmax-toy`);
  // nothing of the explainers is in the first load: fetched before the first trace
  const { at, loaded } = await page.evaluate(() => ({ at: window.__firstTraceAt, loaded: performance.getEntriesByType('resource')
    .filter((e) => e.startTime <= window.__firstTraceAt).map((e) => e.name).filter((n) => /dispatch|softmax|explain/.test(n)) }));
  assert.equal(typeof at, 'number', 'the first trace event');
  assert.deepEqual(loaded, []);
  const rejected = (field, index) => page.evaluate(async ([f, i]) => {
    try { await document.querySelector('attention-playground').explain(f, i); return null; } catch (e) { return { error: e instanceof Error, message: e.message }; }
  }, [field, index]);
  const r1 = await rejected('weights', [0, 0, 0, 5]);
  assert.ok(r1?.error, 'rejects with an Error');
  assert.match(r1.message, /weights\[0, 0, 0, 5\].*no such cell.*\[1, 1, 1, 3\]/);
  const r2 = await rejected('nonsense', [0]);
  assert.match(r2.message, /nonsense\[0\]/);
  const r3 = await rejected('weights', ['a']);
  assert.match(r3.message, /weights.*integers/);
  // a scenario with an error keeps the last good trace: its cells are explained with that trace's inputs
  const stale = await page.evaluate(async () => {
    const el = document.querySelector('attention-playground');
    const errors = new Promise((resolve) => el.addEventListener('scenario-error', (e) => resolve(e.detail), { once: true }));
    el.setScenario({ ...el.scenario, q: [[[[5]]]], mask: { kind: 'no-such-kind' } });
    const error = await errors;
    await el.settled;
    return { error: JSON.stringify(error), ex: await el.explain('scores', [0, 0, 0, 1]) };
  });
  assert.match(stale.error, /mask/);
  assert.equal(stale.ex.value, 1);
  assert.ok(stale.ex.formula.includes('\\left(1 \\cdot 1\\right)'), stale.ex.formula);
  await openUrl(page, `${base}#preset=softmax-toy&lang=zh`);
  const zh = await page.evaluate(() => { const el = document.querySelector('attention-playground'); el.setAttribute('lang', 'zh'); return el.explain('weights', [0, 0, 0, 1]); });
  assert.match(zh.text, /权重 = exp\(s − max\).*行和 1\.503/);
  assert.deepEqual(problems, []);
});
