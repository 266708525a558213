// The legends' checks (issue 14, item 4: colour that reads) for one preset open on the page:
// tests/web/presets.test.mjs runs them on every preset, in its one visit of each; colour.test.mjs
// uses legendsDrawn. Every map has a legend whose range is the map's own smallest and largest value
// (a canvas map's: the trace slice it draws), a colour bar whose ends are its scale's domain (0 at the
// centre of a diverging one), and two axis names; the LSH buckets a swatch per bucket; booleans a key.
import assert from 'node:assert/strict';
import { fromPageJSON, settle } from './harness.mjs';

/** Waits until every map's legend is filled (views/legend.ts is loaded after the first maps). */
export async function legendsDrawn(page) {
  await settle(page);
  await page.waitForFunction(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('.map-legend')].every((l) => l.dataset.kind !== undefined));
}

/** Every map figure of the element: its field, axis names, legend and the numbers it draws (a
 * table's cells; a canvas map's trace slice at b = h = 0, as the results draw it). */
const figures = (page) => page.evaluate(() => window.__attnplayJSON((() => {
  const el = document.querySelector('attention-playground');
  const trace = el.trace;
  // (B, H, L_Q, L_K) maps at (0, 0); (B, L, H, D) ones at b = 0, h = 0; 2-D ones whole
  const slice = (field) => {
    const v = trace[field], n = trace.shapes[field].length;
    if (field === 'buckets') return v.map((r) => r[0][0]);  // (rounds, B, H, L): a row per round
    if (n === 4 && !/scores|weights|allowed|attn/.test(field)) return v[0].map((r) => r[0]);
    return n === 4 ? v[0][0] : n === 3 ? v[0] : v;
  };
  return [...el.shadowRoot.querySelectorAll('figure.heatmap')].map((f) => {
    const legend = f.querySelector(':scope > .map-legend');
    const canvas = f.querySelector('canvas');
    const values = canvas ? slice(f.dataset.field).flat()
      : [...f.querySelectorAll('td[data-index]')].map((td) => Number(td.dataset.value));
    return {
      field: f.dataset.field ?? f.querySelector('[data-field]')?.dataset.field,
      canvas: !!canvas,
      categories: [...(legend?.querySelectorAll('[data-category]') ?? [])].map((c) => Number(c.dataset.category)),
      axes: [...f.querySelectorAll(':scope > .map-frame > .axis-y, :scope > .map-frame > .axis-x')].map((a) => a.textContent.trim()),
      kind: legend?.dataset.kind,
      min: legend?.dataset.min, max: legend?.dataset.max,
      ticks: [...(legend?.querySelectorAll('.lg-scale span span') ?? [])].map((s) => s.textContent),
      text: legend?.textContent ?? '',
      numbers: values.filter((x) => typeof x === 'number' && Number.isFinite(x)),
      masked: f.querySelectorAll('td.masked').length,
    };
  });
})())).then(fromPageJSON);

/** The legend checks of the preset open on `page` (named `preset`); adds to `counts` ({ maps, canvases }). */
export async function legendPreset(page, preset, counts) {
  await legendsDrawn(page);
  const figs = await figures(page);
  assert.ok(figs.length > 0, `${preset}: no map`);
  for (const f of figs) {
    const where = `${preset} ${f.field}`;
    assert.equal(f.axes.length, 2, `${where}: two axis names`);
    assert.ok(f.axes.every((a) => a.length > 0), `${where}: axis names ${JSON.stringify(f.axes)}`);
    counts.maps++;
    if (f.kind === 'category') {  // the LSH buckets: one swatch per bucket the map holds
      assert.deepEqual(f.categories, [...new Set(f.numbers)].sort((a, b) => a - b), `${where}: the categories' key`);
      continue;
    }
    if (f.canvas) counts.canvases++;
    assert.ok(f.kind, `${where}: a legend`);
    if (f.kind === 'bool') {
      assert.match(f.text, /✓\s*true.*·\s*false/, `${where}: the booleans' key`);
      continue;
    }
    assert.ok(f.numbers.length > 0, `${where}: numbers`);
    const lo = f.numbers.reduce((a, x) => Math.min(a, x)), hi = f.numbers.reduce((a, x) => Math.max(a, x));
    assert.equal(Number(f.min), lo, `${where}: legend min`);
    assert.equal(Number(f.max), hi, `${where}: legend max`);
    assert.match(f.text, /min .+ · max /, `${where}: the range as text`);
    // the colour bar's ends are its scale's domain, with 0 at the centre of a diverging one
    if (f.kind === 'diverging') {
      assert.equal(f.ticks.length, 3, `${where}: ${f.ticks}`);
      assert.equal(f.ticks[1], '0');
      assert.equal(f.ticks[0], f.ticks[2].startsWith('-') ? f.ticks[2].slice(1) : `-${f.ticks[2]}`, `${where}: symmetric ${f.ticks}`);
      assert.ok(Number(f.ticks[2]) >= Math.max(Math.abs(lo), Math.abs(hi)) * (1 - 1e-3), `${where}: ${f.ticks} covers ${lo}..${hi}`);
    } else {
      assert.equal(f.ticks.length, 2, `${where}: ${f.ticks}`);
      assert.equal(f.ticks[0], '0', `${where}: a sequential scale starts at 0`);
      assert.ok(lo >= 0, `${where}: a sequential scale for non-negative values (min ${lo})`);
    }
  }
}
