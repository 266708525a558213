// Colour that reads (issue 14, item 4): every map of every preset has a legend whose range is the
// map's own smallest and largest value, and names its axes; masked cells are hatched on tables (the
// computed style, not only the class) and on canvases (their pixels let the hatch through); the
// canvas note has no unfilled placeholder; a value that rounds to a whole number is written as one.
// The legends of every map of every preset: presets.test.mjs (colour-checks.mjs), in its one visit
// of each preset. Headless Chromium against dist/ served with its CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl, samePage, seededTensor, setScenario, settle, traceOf } from './harness.mjs';
import { legendsDrawn as legendsOf } from './colour-checks.mjs';

let browser, page, base, problems;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

const legendsDrawn = () => legendsOf(page);

test('masked cells are hatched (computed style) on sparse-local and on ProbAttention\'s step 6; the legend says so', async () => {
  for (const [preset, fields, want] of [['sparse-local', ['scores', 'weights'], 60], ['prob-toy-causal', ['scores_top', 'weights_top'], 6]]) {
    if (preset === 'sparse-local') await openUrl(page, `${base}#preset=${preset}`);
    else await samePage(page, preset);
    await legendsDrawn();
    const got = await page.evaluate((fields) => {
      const root = document.querySelector('attention-playground').shadowRoot;
      const cells = fields.flatMap((f) => [...root.querySelectorAll(`figure[data-field="${f}"] td[data-index]`)]);
      const hatch = (td) => getComputedStyle(td).backgroundImage;
      return {
        masked: cells.filter((td) => td.classList.contains('masked')).map(hatch),
        open: cells.filter((td) => !td.classList.contains('masked')).map(hatch),
        legends: fields.map((f) => root.querySelector(`figure[data-field="${f}"] .map-legend .lg-swatch.masked`) !== null),
      };
    }, fields);
    assert.equal(got.masked.length, want, `${preset}: masked cells`);
    for (const bg of got.masked) assert.match(bg, /repeating-linear-gradient/, `${preset}: a masked cell is hatched`);
    for (const bg of got.open) assert.equal(bg, 'none', `${preset}: an allowed cell is not`);
    assert.deepEqual(got.legends, fields.map(() => true), `${preset}: the legend shows the hatch`);
  }
  assert.deepEqual(problems, []);
});

test('canvas maps: masked pixels show the hatch, allowed ones their colour; the legend is the slice\'s; no placeholder left', async () => {
  await samePage(page, 'softmax-toy');
  const L = 40;
  await setScenario(page, { algorithm: 'full', q: seededTensor(L, 4, 11), k: seededTensor(L, 4, 12), v: seededTensor(L, 4, 13), mask: { kind: 'causal' } });
  await legendsDrawn();
  const trace = await traceOf(page);
  const got = await page.evaluate(() => {
    const fig = document.querySelector('attention-playground').shadowRoot.querySelector('figure[data-field="weights"]');
    const canvas = fig.querySelector('canvas');
    const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const alpha = (i, j) => px[4 * (i * canvas.width + j) + 3];
    const masked = [], open = [];
    for (let i = 0; i < canvas.height; i++) for (let j = 0; j < canvas.width; j++) (j > i ? masked : open).push(alpha(i, j));
    const legend = fig.querySelector('.map-legend');
    return { masked, open, hatch: getComputedStyle(canvas).backgroundImage, min: legend.dataset.min, max: legend.dataset.max,
      swatch: !!legend.querySelector('.lg-swatch.masked'), note: fig.querySelector('.dims-note').textContent,
      axes: [...fig.querySelectorAll('.map-frame > span')].map((s) => s.textContent) };
  });
  assert.equal(got.masked.length, (L * (L - 1)) / 2);
  assert.ok(got.masked.every((a) => a === 0), 'masked pixels are transparent: the hatch shows through');
  assert.ok(got.open.every((a) => a === 255), 'allowed pixels are painted');
  assert.match(got.hatch, /repeating-linear-gradient/);
  assert.ok(got.swatch);
  const w = trace.weights[0][0].flat();
  assert.equal(Number(got.min), Math.min(...w));
  assert.equal(Number(got.max), Math.max(...w));
  assert.deepEqual(got.axes, ['key j', 'query i']);
  assert.doesNotMatch(got.note, /\{/);

  // downsampled: "the mean of 2 × 2 cells", both numbers filled in
  const N = 700;
  await setScenario(page, { algorithm: 'full', q: seededTensor(N, 2, 4), k: seededTensor(N, 2, 5), v: seededTensor(N, 2, 6) });
  const note = await page.evaluate(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('figure[data-field="weights"] .dims-note').textContent);
  assert.match(note, /mean of 2 × 2 cells/);
  assert.doesNotMatch(note, /\{/);
  assert.deepEqual(problems, []);
});

test('axis names in English and Chinese; the d2l maps name theirs (test/training points, target/source, position/dimension)', async () => {
  const axesOf = (field) => page.evaluate((f) => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll(`figure[data-field="${f}"] > .map-frame > span`)].map((s) => s.textContent), field);
  for (const [preset, field, en, zh] of [
    ['softmax-toy', 'scores', ['key j', 'query i'], ['键 j', '查询 i']],
    ['softmax-toy', 'context', ['feature d', 'query i'], ['特征 d', '查询 i']],
    ['d2l-nadaraya-watson', 'weights', ['training point j', 'test point i'], ['训练点 j', '测试点 i']],
    ['d2l-positional-encoding', 'P', ['dimension j', 'position i'], ['维度 j', '位置 i']],
    ['d2l-bahdanau-shapes', 'weights', ['source token s', 'target step t'], ['源词元 s', '目标步 t']],
    ['linformer-k4', 'weights', ['projected key p', 'query i'], ['投影后的键 p', '查询 i']],
  ]) {
    await samePage(page, preset);
    assert.deepEqual(await axesOf(field), en, `${preset} ${field}`);
    const lang = await page.evaluate(() => document.querySelector('attention-playground').getAttribute('lang'));
    await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
    await page.waitForFunction(([f, want]) => document.querySelector('attention-playground').shadowRoot
      .querySelector(`figure[data-field="${f}"] > .map-frame > .axis-x`)?.textContent === want, [field, zh[0]]);
    assert.deepEqual(await axesOf(field), zh, `${preset} ${field} (zh)`);
    await legendsDrawn();
    assert.match(await page.evaluate((f) => document.querySelector('attention-playground').shadowRoot
      .querySelector(`figure[data-field="${f}"] .map-legend`).textContent, field), /最小 .+ · 最大 /);
    // the language as loaded again (samePage)
    await page.evaluate((l) => { const e = document.querySelector('attention-playground'); if (l == null) e.removeAttribute('lang'); else e.setAttribute('lang', l); }, lang);
    await settle(page);
  }
  assert.deepEqual(problems, []);
});

test('a value that rounds to a whole number is written as one ("12", not "12.000")', async () => {
  await samePage(page, 'softmax-toy');
  // v all 12: each context value is Σ_j w_ij · 12, 12 up to rounding
  const L = 6;
  const twelve = [Array.from({ length: L }, () => [[12, 12]])];
  await setScenario(page, { algorithm: 'full', q: seededTensor(L, 3, 21), k: seededTensor(L, 3, 22), v: twelve });
  const cells = await page.locator('attention-playground').locator('figure[data-field="context"] td[data-index]')
    .evaluateAll((tds) => tds.map((td) => [td.dataset.value, td.querySelector('.v').textContent]));
  assert.equal(cells.length, L * 2);
  assert.ok(cells.some(([v]) => Number(v) !== 12), `some context value is not exactly 12: ${cells.map(([v]) => v)}`);
  for (const [v, text] of cells) {
    assert.ok(Math.abs(Number(v) - 12) < 1e-9, v);
    assert.equal(text, '12', `${v} is written "${text}"`);
  }
  assert.deepEqual(problems, []);
});
