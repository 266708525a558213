// Export (SPEC §1): `el.export(kind, field)` gives a Blob: the trace as JSON, the map of a trace
// field at the shown (b, h) as CSV, SVG or PNG; the results' Export buttons download them. Every
// number is checked against the element's trace, every SVG cell's colour against the page's own
// map cell. One load: the other tests switch presets (harness.mjs samePage). Headless Chromium
// against dist/ served by scripts/serve.mjs (its CSP).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { downloaded, launch, openUrl, samePage, settle, traceOf } from './harness.mjs';

let page, base, problems, browser;

before(async () => {
  ({ page, base, problems, close: browser } = await launch());
});
after(async () => { await browser?.(); });

const el = () => page.locator('attention-playground').first();

/** el.export(kind, field) in the page: the Blob's type and text (PNG: its bytes, base64). */
const exported = (kind, field) => page.evaluate(async ([kind, field]) => {
  const blob = await document.querySelector('attention-playground').export(kind, field);
  if (kind !== 'png') return { type: blob.type, text: await blob.text() };
  const bytes = new Uint8Array(await blob.arrayBuffer());
  return { type: blob.type, bytes: Array.from(bytes.slice(0, 32)), size: bytes.length };
}, [kind, field]);

/** What el.export(kind, field) rejects with: its message and field. */
const rejected = (kind, field) => page.evaluate(async ([kind, field]) => {
  try {
    await document.querySelector('attention-playground').export(kind, field ?? undefined);
    return null;
  } catch (e) {
    return { isError: e instanceof Error, message: e.message, field: e.field };
  }
}, [kind, field ?? null]);

/** A CSV as rows of cells (the exporter quotes a cell with a comma). */
function parseCsv(text) {
  assert.ok(text.endsWith('\n'), 'the CSV ends with a newline');
  return text.slice(0, -1).split('\n').map((line) => {
    const cells = [];
    const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
    let m;
    while ((m = re.exec(line)) && m[0] !== '') {
      cells.push(m[1].startsWith('"') ? m[1].slice(1, -1).replace(/""/g, '"') : m[1]);
      if (m[2] === '') break;
    }
    return cells;
  });
}

/** The CSV's numbers against `want` (rows x cols): the same float64s (String round-trips). */
function assertCsvValues(rows, want, name) {
  assert.equal(rows.length - 1, want.length, `${name}: rows`);
  want.forEach((row, i) => {
    assert.equal(rows[i + 1].length - 1, row.length, `${name}: row ${i} cells`);
    row.forEach((x, j) => {
      const got = rows[i + 1][j + 1];
      if (typeof x === 'boolean') assert.equal(got, x ? '1' : '0', `${name}[${i}][${j}]`);
      else {
        assert.ok(Math.abs(Number(got) - x) <= 1e-15, `${name}[${i}][${j}]: ${got} vs ${x}`);
        assert.equal(Number(got), x, `${name}[${i}][${j}] round-trips`);
      }
    });
  });
}

const labels = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

test('json is the trace; csv of weights (the default) is the shown slice, every number exact', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  const trace = await traceOf(page);
  const json = await exported('json');
  assert.equal(json.type, 'application/json');
  assert.deepEqual(JSON.parse(json.text), trace);

  const csv = await exported('csv');
  assert.equal(csv.type, 'text/csv');
  assert.equal(csv.text, (await exported('csv', 'weights')).text, 'the default field is weights');
  const rows = parseCsv(csv.text);
  const w = trace.weights[0][0]; // weights are (B, H, L_Q, L_K)
  assert.deepEqual(rows[0], ['b = 0, h = 0', ...labels('k', w[0].length)]);
  assert.deepEqual(rows.slice(1).map((r) => r[0]), labels('q', w.length));
  assertCsvValues(rows, w, 'weights');
  for (const r of rows.slice(1)) assert.ok(Math.abs(r.slice(1).reduce((a, x) => a + Number(x), 0) - 1) < 1e-12, 'a softmax row sums to 1');

  // booleans as 1 / 0; the context's (B, L_Q, H, D) slice as the page shows it (q rows, d columns)
  assertCsvValues(parseCsv((await exported('csv', 'allowed')).text), trace.allowed[0][0], 'allowed');
  const ctx = parseCsv((await exported('csv', 'context')).text);
  assert.deepEqual(ctx[0], ['b = 0, h = 0', 'd0', 'd1']);
  assertCsvValues(ctx, trace.context[0].map((row) => row[0]), 'context');
  assert.deepEqual(problems, []);
});

test('csv follows the selected batch item and head', async () => {
  await samePage(page, 'd2l-multihead');
  await el().locator('[data-key="slice.b"]').selectOption('1');
  await el().locator('[data-key="slice.h"]').selectOption('3');
  await settle(page);
  const trace = await traceOf(page);
  assertCsvValues(parseCsv((await exported('csv', 'head_weights')).text), trace.head_weights[1][3], 'head_weights[1][3]');
  assertCsvValues(parseCsv((await exported('csv', 'scores')).text), trace.scores[1][3], 'scores[1][3]');
  // the default is the main output (no weights): output (B, L_Q, num_hiddens) at b = 1
  const out = parseCsv((await exported('csv')).text);
  assertCsvValues(out, trace.output[1], 'output[1]');
  // a (B, L, H, D) field the results do not draw: q, k, v as the context is sliced
  assertCsvValues(parseCsv((await exported('csv', 'head_context')).text), trace.head_context[1].map((r) => r[3]), 'head_context');
  assert.deepEqual(problems, []);
});

test('default field: the main output where there are no weights; other fields sliced by layout', async () => {
  await samePage(page, 'd2l-positional-encoding');
  let trace = await traceOf(page);
  const p = parseCsv((await exported('csv')).text);
  assert.equal(p.length, 1 + trace.P.length);
  assertCsvValues(p, trace.P, 'P');

  await samePage(page, 'flash-causal');
  trace = await traceOf(page);
  assertCsvValues(parseCsv((await exported('csv')).text), trace.context[0].map((r) => r[0]), 'context (flash)');
  // partial_context (B, H, T, L_Q, D) at (0, 0): T·L_Q rows labelled "t,i", D columns
  const part = parseCsv((await exported('csv', 'partial_context')).text);
  const pc = trace.partial_context[0][0];
  assert.equal(part[1][0], '0,0');
  assert.equal(part[part.length - 1][0], `${pc.length - 1},${pc[0].length - 1}`);
  assertCsvValues(part, pc.flat(), 'partial_context');

  await samePage(page, 'prob-toy');
  trace = await traceOf(page);
  assertCsvValues(parseCsv((await exported('csv', 'sparsity')).text), [trace.sparsity[0][0]], 'sparsity (B, H, L_Q)');
  assert.deepEqual(problems, []);
});

test('svg: a standalone SVG, one rect per cell in the page\'s colours, the values written', async () => {
  await samePage(page, 'sparse-local');
  const trace = await traceOf(page);
  for (const field of ['weights', 'scores', 'allowed', 'context']) {
    const svg = await exported('svg', field);
    assert.equal(svg.type, 'image/svg+xml');
    assert.match(svg.text, /^<\?xml [^>]*\?>\n<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const got = await page.evaluate(([text, field]) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror').textContent };
      // the same colour notation on both sides: the page's cell colours through computed style
      const norm = (c) => { const d = document.createElement('div'); d.style.color = c; return d.style.color; };
      const page = {};
      const root = document.querySelector('attention-playground').shadowRoot;
      for (const td of root.querySelectorAll(`.maps figure[data-field="${field}"] td[data-index]`)) page[td.dataset.index] = norm(td.style.backgroundColor);
      const rects = [...doc.querySelectorAll('g.cells rect')].map((r) => [r.getAttribute('data-index'), norm(r.getAttribute('fill'))]);
      const texts = [...doc.querySelectorAll('g.labels text')].map((t) => t.textContent);
      return { rects, page, texts, title: doc.querySelector('title')?.textContent, masked: doc.querySelectorAll('rect.masked').length };
    }, [svg.text, field]);
    assert.equal(got.error, undefined, `${field}: ${got.error}`);
    const slice = field === 'context' ? trace.context[0].map((r) => r[0]) : trace[field][0][0];
    const cells = slice.length * slice[0].length;
    assert.equal(got.rects.length, cells, `${field}: one rect per cell`);
    assert.equal(Object.keys(got.page).length, cells, `${field}: the page's cells`);
    for (const [index, fill] of got.rects) assert.equal(fill, got.page[index], `${field}[${index}]: the page's colour`);
    assert.match(got.title, new RegExp(`^${field} \\(`));
    assert.ok(got.texts.includes('q0') && got.texts.includes(field === 'context' ? 'd1' : 'k7'), `${field}: labels`);
    if (field === 'weights') {
      // a small map has its values written, as the page writes them
      const shown = await el().locator('.maps [data-field="weights"] td[data-index="0,0,0,0"] .v').textContent();
      assert.ok(got.texts.includes(shown), `weights: ${shown} written`);
      const maskedCells = trace.allowed[0][0].flat().filter((a) => !a).length;
      assert.ok(maskedCells > 0);
      assert.equal(got.masked, maskedCells, 'masked cells hatched');
    }
  }
  assert.deepEqual(problems, []);
});

test('svg of a large map: colours only; png: a PNG with a size', async () => {
  await samePage(page, 'd2l-positional-encoding');
  const svg = await exported('svg');
  const n = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { rects: doc.querySelectorAll('g.cells rect').length, texts: doc.querySelectorAll('g.labels text').length };
  }, svg.text);
  assert.equal(n.rects, 60 * 32);
  assert.ok(n.texts < 60 + 32 + 2, 'no values written in a large map\'s cells');

  for (const preset of ['softmax-toy', 'd2l-positional-encoding']) {
    await samePage(page, preset);
    const png = await exported('png');
    assert.equal(png.type, 'image/png');
    assert.deepEqual(png.bytes.slice(0, 8), [137, 80, 78, 71, 13, 10, 26, 10], 'the PNG signature');
    assert.equal(String.fromCharCode(...png.bytes.slice(12, 16)), 'IHDR');
    const u32 = (i) => ((png.bytes[i] << 24) | (png.bytes[i + 1] << 16) | (png.bytes[i + 2] << 8) | png.bytes[i + 3]) >>> 0;
    assert.ok(u32(16) > 100 && u32(20) > 50, `${preset}: ${u32(16)} x ${u32(20)}`);
  }
  assert.deepEqual(problems, []);
});

test('errors name the argument: an unknown kind, a field not in the trace or not a map; pytorch a snippet', async () => {
  await samePage(page, 'softmax-toy');
  let e = await rejected('xls');
  assert.ok(e?.isError);
  assert.equal(e.field, 'kind');
  assert.match(e.message, /^export: kind "xls" is not one of "json", "csv"/);
  e = await rejected('csv', 'nope');
  assert.equal(e.field, 'field');
  assert.match(e.message, /^export: field "nope" is not in the trace \(fields: .*weights/);
  e = await rejected('svg', 'cost');
  assert.equal(e.field, 'field');
  assert.match(e.message, /field "cost" is not a map of numbers/);
  // pytorch (copy as PyTorch): a Python snippet (tests/web/pytorch.test.mjs runs them)
  const py = await exported('pytorch');
  assert.equal(py.type, 'text/x-python');
  assert.match(py.text, /^import torch$/m);
  // the element still exports after them
  assert.equal((await exported('csv')).type, 'text/csv');
  assert.deepEqual(problems, []);
});

test('the Export buttons download the files, named by algorithm and field', async () => {
  await samePage(page, 'softmax-toy');
  const row = el().locator('.panel-results .panel-head .export');
  assert.equal(await row.getAttribute('role'), 'group');
  assert.equal(await row.getAttribute('aria-label'), 'Export');
  for (const [kind, name] of [['csv', 'attention-full-weights.csv'], ['json', 'attention-full-trace.json'],
    ['svg', 'attention-full-weights.svg'], ['png', 'attention-full-weights.png']]) {
    const button = row.locator(`button[data-key="export.${kind}"]`);
    assert.equal(await button.getAttribute('type'), 'button');
    await button.focus(); // keyboard: Enter on the focused button
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    assert.equal(download.suggestedFilename(), name);
    const bytes = await downloaded(download);
    if (kind === 'png') assert.deepEqual([...bytes.subarray(0, 4)], [137, 80, 78, 71]);
    else assert.equal(bytes.toString('utf8'), (await exported(kind)).text, `${kind}: the file is el.export's`);
  }
  // the row in Chinese
  await page.evaluate(() => document.querySelector('attention-playground').setAttribute('lang', 'zh'));
  await page.waitForFunction(() => document.querySelector('attention-playground').shadowRoot.querySelector('.export')?.getAttribute('aria-label') === '导出');
  assert.deepEqual(problems, []);
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
});
