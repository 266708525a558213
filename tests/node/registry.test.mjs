// The page's registry (web/src/algorithms/index.ts) against the core's (WASM algorithms(), the
// native `attnplay algorithms --json`): one module per registered algorithm, web/src/algorithms/<name>.ts,
// each with what the page needs of it; and no other page file keeps a list keyed by algorithm names.
// The page's TypeScript is loaded through Vite's SSR loader (no browser, no build).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createServer } from 'vite';
import { nativeCli, root, wasm } from './helpers.mjs';

let server, page;

before(async () => {
  server = await createServer({ configFile: false, root, logLevel: 'error', server: { middlewareMode: true }, appType: 'custom' });
  page = await server.ssrLoadModule('/web/src/algorithms/index.ts');
});
after(async () => { await server?.close(); });

const core = () => wasm.algorithms().map((a) => a.name);

test('the page has one module per algorithm the core registers, in the core\'s order', () => {
  const names = page.PAGE_ALGORITHMS.map((a) => a.name);
  assert.deepEqual(names, core(), 'web/src/algorithms/index.ts lists the core\'s algorithms (core/scenario/algorithms.cpp)');
  if (fs.existsSync(nativeCli)) {
    const native = JSON.parse(spawnSync(nativeCli, ['algorithms', '--json'], { encoding: 'utf8' }).stdout).map((a) => a.name);
    assert.deepEqual(names, native, 'the native CLI\'s registry');
  }
  const files = fs.readdirSync(path.join(root, 'web/src/algorithms')).filter((f) => !['index.ts', 'module.ts'].includes(f));
  assert.deepEqual(files.map((f) => f.replace(/\.ts$/, '')).sort(), [...names].sort(), 'one file per algorithm, named as it');
  for (const name of names) assert.equal(page.algorithm(name)?.name, name, `algorithm("${name}")`);
  assert.equal(page.algorithm('no_such_algorithm'), undefined);
});

test('each module: its traits, its own property rows, its maps\' titles, its views and its snippet builder load', async () => {
  for (const a of page.PAGE_ALGORITHMS) {
    assert.equal(typeof a.traits, 'object', `${a.name}: traits`);
    for (const prop of a.props ?? []) {
      // its own rows apply to it (multihead borrows prob's through its inner attention)
      const s = { algorithm: a.name, q: [[[[1, 0]]]], k: [[[[1, 0]]]], v: [[[[1, 0]]]] };
      assert.equal(typeof prop.applies, 'function', `${a.name}.${prop.key}`);
      assert.equal(prop.applies({ ...s, algorithm: 'no_such_algorithm' }), false, `${a.name}.${prop.key} applies to no other algorithm`);
    }
    if (a.maps?.weights) assert.ok(a.maps.weights.en && a.maps.weights.zh, `${a.name}: maps.weights in English and Chinese`);
    for (const v of [a.view, a.panelView].filter(Boolean)) {
      const m = await v.load();
      assert.ok(m && typeof v.render === 'function', `${a.name}: its view's module loads`);
    }
    assert.equal(typeof await a.pytorch(), 'function', `${a.name}: its snippet builder loads`);
  }
  // the tensors it reads, its mask kinds and an inner attention are the core's (build/wasm/catalog.json,
  // the whole module's registry: first-module.test.mjs), not the module's
  const mod = await server.ssrLoadModule('/web/src/algorithms/module.ts');
  const catalog = JSON.parse(fs.readFileSync(path.join(root, 'build/wasm/catalog.json'), 'utf8')).algorithms;
  for (const entry of catalog) {
    const a = page.algorithm(entry.name);
    for (const key of ['tensors', 'masks', 'inner']) assert.equal(a.traits[key], undefined, `${entry.name}: traits.${key} is the core's`);
    const traits = mod.traits({ algorithm: entry.name });
    assert.deepEqual([...traits.tensors], entry.tensors, `${entry.name}: tensors from the catalog`);
    if (!entry.inner) assert.deepEqual([...traits.masks], entry.masks, `${entry.name}: masks from the catalog`);
    else for (const inner of entry.inner.choices) {
      const masks = catalog.find((x) => x.name === inner).masks;
      assert.deepEqual([...mod.traits({ algorithm: entry.name, [entry.inner.field]: inner }).masks], masks, `${entry.name} ${inner}: its inner's masks`);
    }
  }
  const approximate = page.PAGE_ALGORITHMS.filter((a) => a.approximates).map((a) => a.name);
  assert.deepEqual(approximate, ['prob', 'linear', 'performer', 'linformer', 'lsh', 'pooling']);
});

test('no page file outside web/src/algorithms/ keeps a list keyed by algorithm names', () => {
  const names = core();
  // an algorithm's own view, its i18n texts and the snippets' builders name their algorithm; the
  // cost switch of state/long.ts goes with the core's cost estimate (issue 13 item 2, branch catalog)
  const exempt = /^(algorithms\/|views\/|i18n|pytorch\.ts$|state\/long\.ts$)/;
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  const src = path.join(root, 'web/src');
  const lists = [];
  for (const file of walk(src)) {
    const rel = path.relative(src, file);
    if (exempt.test(rel)) continue;
    const text = fs.readFileSync(file, 'utf8').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
    const named = names.filter((n) => new RegExp(`['"\`]${n}['"\`]|\\b${n}\\s*:`).test(text));
    if (named.length >= 3) lists.push(`${rel}: ${named.join(', ')}`);
  }
  assert.deepEqual(lists, [], 'files naming three or more algorithms (a list or switch by name)');
  const element = fs.readFileSync(path.join(src, 'element.ts'), 'utf8');
  assert.doesNotMatch(element, /\b(trace|s|scenario)\??\.algorithm\s*[!=]==?\s*['"`]/, 'element.ts compares no algorithm with a name');
});
