// The "reference" switch on the page (issue 17): the library select where an algorithm has modes,
// the line that says how far the library is from SPEC's formulas (computed by running both), the
// flash-attn alignment row, and the tie warning of ProbAttention's prob-toy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { afterTrace as traced, launch, openUrl, samePage, traceOf } from './harness.mjs';

let browser, page, base, problems, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();
const input = (key) => el().locator(`[data-key="${key}"]`);
const afterTrace = (action) => traced(page, action);
const flat = (x) => (Array.isArray(x) ? x.flatMap(flat) : [x]);
const maxDiff = (a, b) => flat(a).reduce((m, x, i) => Math.max(m, Math.abs(x - flat(b)[i])), 0);

test('linear: the library select, its distance from SPEC beside the result, and back to SPEC', async () => {
  await openUrl(page, `${base}#preset=linear-elu1`);
  assert.equal(await el().locator('[data-field="reference-line"]').count(), 0, 'no line without a library');
  const options = await input('reference').locator('option').evaluateAll((os) => os.map((o) => o.value));
  assert.deepEqual(options, ['', 'fast-transformers'], 'elu1: SPEC or fast-transformers');
  const s = await afterTrace(() => input('reference').selectOption('fast-transformers'));
  assert.equal(s.reference, 'fast-transformers');
  const trace = await traceOf(page);
  assert.equal(trace.reference, 'fast-transformers');
  const spec = { ...s };
  delete spec.reference;
  const expected = maxDiff(wasm.run(s).context, wasm.run(spec).context);
  const line = el().locator('[data-field="reference-line"]');
  assert.match(await line.textContent(), /fast-transformers against SPEC's formulas: max \|Δ context\| = .* \(eps 1e-6 in the denominator\)/);
  const shown = Number(await line.locator('[data-field="reference.diff"]').getAttribute('data-value'));
  assert.ok(expected > 0 && Math.abs(shown - expected) <= 1e-15, `${shown} against ${expected}`);
  // softmax_qk: fast-transformers does not have it, the choice is put aside
  const s2 = await afterTrace(() => input('feature_map').selectOption('softmax_qk'));
  assert.equal(s2.reference, undefined);
  const s3 = await afterTrace(() => input('reference').selectOption('performer-pytorch'));
  assert.equal(s3.reference, 'performer-pytorch');
  const s4 = await afterTrace(() => input('reference').selectOption(''));
  assert.equal(s4.reference, undefined, "SPEC's formulas: the key removed");
  assert.equal(await el().locator('[data-field="reference-line"]').count(), 0);
});

test('full: align bottom_right under a causal mask; prob-toy: the tie warning is shown', async () => {
  await samePage(page, 'softmax-toy');
  const s = await afterTrace(() => input('mask.kind').selectOption('causal'));
  assert.equal(s.mask.kind, 'causal');
  const s2 = await afterTrace(() => input('mask.align').selectOption('bottom_right'));
  assert.equal(s2.mask.align, 'bottom_right');
  assert.match(await el().locator('[data-field="reference-line"]').textContent(), /bottom_right against SPEC's formulas: .*aligned to the last key/);
  await samePage(page, 'prob-toy');
  const warnings = await el().locator('.warnings li').allTextContents();
  assert.ok(warnings.some((w) => w.includes('a tie at the top-u cut (u = 2): queries 1, 3 have M = 1')), warnings.join('\n'));
  assert.deepEqual(problems, []);
});
