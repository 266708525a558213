// The page's first-load module (build/wasm/attnplay_first.*, CMakeLists.txt) and its catalog
// (build/wasm/catalog.json, scripts/catalog.mjs): the page's first trace comes from the small
// module, every later one from the whole module, so they must agree bit for bit; the catalog must
// be the whole module's registry and presets, as web/src/engine/compute.ts shows them before it loads.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { api } from '../../wasm/attnplay.mjs';
import { wasm, root } from './helpers.mjs';
import { uniforms } from '../../bench/lib.mjs';

const dir = path.join(root, 'build/wasm');
const { default: createFirst } = await import(pathToFileURL(path.join(dir, 'attnplay_first.mjs')).href);
const first = api(await createFirst({ wasmBinary: fs.readFileSync(path.join(dir, 'attnplay_first.wasm')) }));
const catalog = JSON.parse(fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8'));

const tensor = (shape, seed) => ({ shape, data: uniforms(shape.reduce((a, b) => a * b, 1), seed) });

test('the first-load module runs full only, and says so for the rest', () => {
  assert.deepEqual(first.algorithms().map((a) => a.name), ['full']);
  assert.deepEqual(first.presets(), []);
  assert.throws(() => first.run({ algorithm: 'prob', q: [[[[1]]]], k: [[[[1]]]], v: [[[[1]]]] }),
    (e) => e.field === 'algorithm' && /not in this build/.test(e.message));
  assert.throws(() => first.run({ algorithm: 'full', q: [[[[1, 2]]]], k: [[[[1]]]], v: [[[[1]]]] }),
    (e) => e.field.startsWith('k') || e.field.startsWith('q'));
});

// Unmasked, the two modules agree to the last bit. Masked, the first-load module takes the row way
// (it leaves the tiles out, core/attention_kernel.cpp by_tiles) and the page never gives it such a
// scenario (web/src/engine/compute.ts runsFirst): the same pairs, costs and warnings, the sums in
// another order (1e-12 in float64; float32 rounding in float32).
test('first-load and whole modules: identical unmasked traces, masked ones to rounding (every mask, both dtypes)', () => {
  const masks = [undefined, { kind: 'causal' }, { kind: 'local', window: 2 }, { kind: 'atrous', dilation: 2 },
    { kind: 'strided', window: 2, stride: 3, causal: true }, { kind: 'valid_lens', valid_lens: [3, 5] }];
  let cases = 0;
  for (const [i, mask] of masks.entries()) {
    for (const dtype of ['float64', 'float32']) {
      // toy sizes, and sizes past the kernel's tiles with remainders everywhere (E = 33, D = 17)
      for (const [trace, L0, S0, E, D] of [['full', 5, 7, 3, 4], ['context', 5, 7, 3, 4], ['full', 67, 131, 33, 17]]) {
        const L = L0 + i, S = mask?.kind === 'causal' || mask?.causal ? L : S0;
        const s = { algorithm: 'full', dtype, trace, q: tensor([2, L, 2, E], 10 * i + 1), k: tensor([2, S, 2, E], 10 * i + 2),
          v: tensor([2, S, 2, D], 10 * i + 3), ...(mask ? { mask } : {}) };
        if (mask?.kind === 'valid_lens') s.mask = { kind: 'valid_lens', valid_lens: [3, S - 2] };
        const a = wasm.run(s, { typed: true });
        const b = first.run(s, { typed: true });
        assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
        for (const key of Object.keys(a)) {
          const what = `${key} (${JSON.stringify(mask)}, ${dtype})`;
          if (a[key]?.data && !mask) assert.deepEqual(Array.from(b[key].data), Array.from(a[key].data), what);
          else if (a[key]?.data) {
            const tol = dtype === 'float64' ? 1e-12 : 1e-5;
            assert.equal(b[key].data.length, a[key].data.length, what);
            a[key].data.forEach((x, n) => {
              const y = b[key].data[n];
              assert.ok(Object.is(x, y) || Math.abs(x - y) <= tol * Math.max(1, Math.abs(x)), `${what}[${n}]: ${y} against ${x}`);
            });
          } else assert.deepEqual(b[key], a[key], key);
        }
        cases++;
      }
    }
  }
  assert.equal(cases, 36);
});

test('the first-load module estimates full, as the whole module does', () => {
  const s = { algorithm: 'full', q: { shape: [1, 2048, 2, 16] }, k: { shape: [1, 2048, 2, 16] }, v: { shape: [1, 2048, 2, 8] },
    mask: { kind: 'local', window: 3 } };
  assert.deepEqual(first.estimate(s), wasm.estimate(s));
  assert.equal(first.estimate(s).cost.dot_products, 2 * (2048 * 7 - 12));
  // it lists its names and titles only (no descriptions, no catalog fields: the page has the catalog)
  const { name, title, title_zh } = wasm.algorithms()[0];
  assert.deepEqual(first.algorithms()[0], { name, title, title_zh, description: '' });
});

test('the catalog is the whole module\'s registry (all but descriptions) and presets (titles; the opening preset whole)', () => {
  const algorithms = wasm.algorithms();
  assert.deepEqual(catalog.algorithms, algorithms.map(({ description, title_zh, ...entry }) => entry));
  // the Chinese titles come with the Chinese strings (build/wasm/catalog-zh.json, web/src/i18n-zh.ts)
  const zh = JSON.parse(fs.readFileSync(path.join(dir, 'catalog-zh.json'), 'utf8'));
  assert.deepEqual(zh.algorithms, Object.fromEntries(algorithms.map((a) => [a.name, a.title_zh])));
  assert.deepEqual(zh.presets, Object.fromEntries(wasm.presets().map((p) => [p.name, p.title_zh])));
  for (const a of catalog.algorithms) for (const key of ['tensors', 'masks', 'defaults']) assert.ok(a[key], `${a.name}.${key}`);
  const presets = wasm.presets();
  assert.equal(catalog.presets.length, presets.length);
  for (const [i, p] of presets.entries()) {
    const c = catalog.presets[i];
    assert.equal(c.name, p.name);
    assert.equal(c.title, p.title);
    const { title_zh, ...english } = p;
    if (i === 0) assert.deepEqual(c, english, `${p.name}: the page opens on it, so it is whole`);
    else assert.deepEqual(c, { name: p.name, title: p.title }, `${p.name}: its scenario comes with the whole module`);
  }
  assert.equal(catalog.presets[0].scenario?.algorithm, 'full', 'the page opens on a preset the first-load module runs');
  assert.deepEqual(first.run(catalog.presets[0].scenario), wasm.run(catalog.presets[0].scenario));
});
