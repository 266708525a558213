// Your own tensors (issue 15): a matrix or tensor pasted on a grid (PyTorch and NumPy prints, nested
// lists, spreadsheet rows, CSV) sets it, resizing what the grid lets change (q, k, v kept consistent);
// a .npy file dropped on a grid loads (written here with the format's own header: versions 1.0 and
// 2.0, little and big endian, float64, float32, int32, Fortran order); what cannot fit is refused
// with an error naming the grid. Headless Chromium against dist/; the traces checked against WASM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { launch, openUrl, samePage, scenarioOf, settle, textOf, traceOf } from './harness.mjs';

let page, base, problems, close, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close } = await launch({ ownBrowser: true }));
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
});
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground').first();
const grid = (name) => el().locator(`figure.editor[data-tensor="${name}"]`);

/** Dispatches a paste of `text` on the first cell of grid `name` (as Ctrl+V there does). */
const paste = (name, text) => page.evaluate(([n, t]) => {
  const input = document.querySelector('attention-playground').shadowRoot.querySelector(`figure[data-tensor="${n}"] input`);
  const data = new DataTransfer();
  data.setData('text/plain', t);
  input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true, composed: true }));
}, [name, text]);

/** Drops a file of `bytes` named `fileName` on grid `name`. */
const drop = (name, fileName, bytes) => page.evaluate(([n, f, b]) => {
  const fig = document.querySelector('attention-playground').shadowRoot.querySelector(`figure[data-tensor="${n}"]`);
  const data = new DataTransfer();
  data.items.add(new File([new Uint8Array(b)], f));
  fig.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
  fig.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
}, [name, fileName, [...bytes]]);

/** Waits until the scenario's `name` is `want` (or until `until` holds), then settles. */
async function waitFor(check) {
  for (let i = 0; i < 200; i++) {
    const s = await scenarioOf(page);
    if (check(s)) { await settle(page); return s; }
    await page.waitForTimeout(50);
  }
  assert.fail(`the scenario never changed as expected: ${JSON.stringify(await scenarioOf(page)).slice(0, 300)}`);
}

/** The trace on the page is the core's for the scenario shown. */
async function traceIsRight() {
  const s = await scenarioOf(page);
  const t = await traceOf(page);
  const want = wasm.run(s);
  assert.deepEqual(t.context, want.context);
}

/** A .npy file: `descr`, `shape`, Fortran order or not, the data's bytes, format `version` 1 or 2. */
function npy(descr, shape, fortran, data, version = 1) {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': ${shapeText}, }`;
  const pre = version === 1 ? 10 : 12;
  header += ' '.repeat(64 - ((pre + header.length + 1) % 64)) + '\n'; // the format pads to 64 bytes
  const out = Buffer.alloc(pre + header.length + data.length);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]).copy(out);
  if (version === 1) out.writeUInt16LE(header.length, 8);
  else out.writeUInt32LE(header.length, 8);
  out.write(header, pre, 'latin1');
  data.copy(out, pre + header.length);
  assert.equal((pre + header.length) % 64, 0);
  return out;
}
const f64 = (xs, big = false) => { const b = Buffer.alloc(8 * xs.length); xs.forEach((x, i) => (big ? b.writeDoubleBE(x, 8 * i) : b.writeDoubleLE(x, 8 * i))); return b; };
const f32 = (xs, big = false) => { const b = Buffer.alloc(4 * xs.length); xs.forEach((x, i) => (big ? b.writeFloatBE(x, 4 * i) : b.writeFloatLE(x, 4 * i))); return b; };
const i32 = (xs) => { const b = Buffer.alloc(4 * xs.length); xs.forEach((x, i) => b.writeInt32LE(x, 4 * i)); return b; };

test('pasting tensor([[3.], [1.], [0.5]]) into the softmax toy\'s K grid sets K (Ctrl+V)', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  await page.evaluate(() => navigator.clipboard.writeText('tensor([[3.], [1.], [0.5]])'));
  await el().locator('[data-key="k[0][0][0][0]"]').focus();
  await page.keyboard.press('Control+V');
  const s = await waitFor((x) => x.k[0][2][0][0] === 0.5);
  assert.deepEqual(s.k, [[[[3]], [[1]], [[0.5]]]]);
  await traceIsRight();
  // the grid shows it
  assert.equal(await el().locator('[data-key="k[0][0][0][0]"]').inputValue(), '3');
  assert.deepEqual(problems, []);
});

test('NumPy prints, nested lists, spreadsheet rows and CSV; sizes follow (q, k, v consistent)', async () => {
  await samePage(page, 'softmax-toy');
  // a 2 x 2 V: L_K becomes 2 (k loses its last row), D stays 2
  await paste('v', 'array([[1., 2.],\n       [3., 4.]], dtype=float32)');
  let s = await waitFor((x) => x.v[0].length === 2);
  assert.deepEqual(s.v, [[[[1, 2]], [[3, 4]]]]);
  assert.deepEqual(s.k, [[[[2]], [[1]]]], 'k keeps its first two rows');
  await traceIsRight();
  // rows from a spreadsheet (tabs): a 2 x 2 K makes E 2 (q gets a zero column)
  await paste('k', '1\t0\n0\t1\n');
  s = await waitFor((x) => x.k[0][0][0].length === 2);
  assert.deepEqual(s.k, [[[[1, 0]], [[0, 1]]]]);
  assert.deepEqual(s.q, [[[[1, 0]]]]);
  await traceIsRight();
  // torch.tensor(...) of nested lists with commas, keyword arguments after
  await paste('q', 'torch.tensor([[0.5, -1e-3]], dtype=torch.float64, requires_grad=True)');
  s = await waitFor((x) => x.q[0][0][0][1] === -1e-3);
  assert.deepEqual(s.q, [[[[0.5, -0.001]]]]);
  // CSV rows; np.array; space-separated rows
  await paste('v', '1,2\n3,4\n5,6');
  s = await waitFor((x) => x.v[0].length === 3);
  assert.deepEqual(s.v, [[[[1, 2]], [[3, 4]], [[5, 6]]]]);
  assert.equal(s.k[0].length, 3, 'L_K follows V');
  await paste('k', 'np.array([[1, 2], [3, 4], [5, 6]])');
  s = await waitFor((x) => x.k[0][2][0][1] === 6);
  await paste('q', '7 8');
  s = await waitFor((x) => x.q[0][0][0][0] === 7);
  assert.deepEqual(s.q, [[[[7, 8]]]]);
  await traceIsRight();
  // a whole (B, L, H, E) tensor: B and H change too
  await paste('q', '[[[[1, 2]], [[3, 4]]], [[[5, 6]], [[7, 8]]]]');
  s = await waitFor((x) => x.q.length === 2);
  assert.deepEqual(s.q, [[[[1, 2]], [[3, 4]]], [[[5, 6]], [[7, 8]]]]);
  assert.equal(s.k.length, 2, 'B follows');
  await traceIsRight();
  assert.deepEqual(problems, []);
});

test('what cannot be read or cannot fit is refused with the grid named; the scenario stays', async () => {
  await samePage(page, 'softmax-toy');
  const before = await scenarioOf(page);
  const slot = el().locator('[data-slot="k"]');
  for (const [text, message] of [
    ['tensor([[1., 2., 3., ..., 7., 8., 9.]])', /^K: the print is summarised with "\.\.\." \(numbers left out\)/],
    ['[[1, 2], [3]]', /^K: ragged/],
    ['[[1, nan], [3, 4]]', /^K: item 1: nan is not a finite number/],
    ['[[1, 1e400]]', /^K: item 1: 1e400 is outside float64/],
    ['[[[1, 2]]]', /^K: pasted 1 x 1 x 2; expected the grid's rows x columns \(3 x 1\) or the whole tensor \(1 x 3 x 1 x 1\)/],
    ['1 2\n3', /^K: row 1 has 1 numbers, row 0 has 2/],
    ['[[1, 2] [3, 4]] trailing', /^K: unexpected "trailing" after the last \]/],
  ]) {
    await paste('k', text);
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="k"]').textContent), message.source);
    assert.match(await textOf(slot), message, text);
    assert.deepEqual(await scenarioOf(page), before, `${text}: the scenario stays`);
  }
  // a good paste clears the error
  await paste('k', '[1, 2, 3]');
  await waitFor((x) => x.k[0][2][0][0] === 3);
  await slot.waitFor({ state: 'hidden' });
  // a single number pasted into a cell is the cell's own paste
  await paste('k', '42');
  assert.deepEqual((await scenarioOf(page)).k, [[[[1]], [[2]], [[3]]]]);
});

test('a dropped .npy loads: float64, float32 big-endian, int32 in Fortran order, version 2.0', async () => {
  await samePage(page, 'softmax-toy');
  await drop('k', 'k.npy', npy('<f8', [3, 1], false, f64([0.25, -1.5, 1e-7])));
  let s = await waitFor((x) => x.k[0][2][0][0] === 1e-7);
  assert.deepEqual(s.k, [[[[0.25]], [[-1.5]], [[1e-7]]]]);
  await traceIsRight();
  // big-endian float32 (values exact in float32): a 1-D of 3 into the one-wide K is a column
  await drop('k', 'k32.npy', npy('>f4', [3], false, f32([0.5, 2, -3.25], true)));
  s = await waitFor((x) => x.k[0][2][0][0] === -3.25);
  assert.deepEqual(s.k, [[[[0.5]], [[2]], [[-3.25]]]]);
  // int32 (3, 2) in Fortran order: the file holds the columns [1, 2, 3] then [4, 5, 6]
  await drop('v', 'v.npy', npy('<i4', [3, 2], true, i32([1, 2, 3, 4, 5, 6])));
  s = await waitFor((x) => x.v[0][0][0][1] === 4);
  assert.deepEqual(s.v, [[[[1, 4]], [[2, 5]], [[3, 6]]]]);
  // version 2.0 (a 4-byte header length), a whole (B, L, H, E) q
  await drop('q', 'q.npy', npy('<f8', [1, 1, 1, 2], false, f64([0.5, 0.25]), 2));
  s = await waitFor((x) => x.q[0][0][0].length === 2);
  assert.deepEqual(s.q, [[[[0.5, 0.25]]]]);
  assert.equal(s.k[0][0][0].length, 2, 'E follows');
  await traceIsRight();
  // refused: complex numbers, a cut file, not a .npy
  const slot = el().locator('[data-slot="v"]');
  for (const [bytes, name, message] of [
    [npy('<c16', [3, 2], false, Buffer.alloc(96)), 'c.npy', /^V: c\.npy: dtype <c16/],
    [npy('<f8', [3, 2], false, f64([1, 2, 3])), 'cut.npy', /^V: cut\.npy: the data is cut short/],
    [Buffer.from('\x93NUMPX garbage'), 'bad.npy', /^V: bad\.npy: not a \.npy file/],
  ]) {
    await drop('v', name, bytes);
    await page.waitForFunction((re) => new RegExp(re).test(document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="v"]').textContent), message.source);
    assert.match(await textOf(slot), message);
  }
  assert.deepEqual(problems, []);
});
