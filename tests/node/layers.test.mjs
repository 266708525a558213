// The page's layers (docs/architecture.md): no arrow runs back up. The engine (web/src/engine/:
// the core's API, the wire format) imports nothing of the page's state, views or workers; the
// worker runtime (web/src/worker/) imports no state or views; the state (web/src/state/) no views.
// Read from the import lines of web/src (static, `export ... from` and dynamic import()).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../web/src', import.meta.url));

/** Each module's imports, as paths relative to web/src (non-relative specifiers left out). */
function importGraph() {
  const graph = new Map();
  for (const file of readdirSync(src, { recursive: true })) {
    if (!/\.(ts|mjs)$/.test(file)) continue;
    const text = readFileSync(path.join(src, file), 'utf8');
    const specs = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"]+)['"]/gm),
      ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
      ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]);
    graph.set(file, specs.filter((s) => s.startsWith('.')).map((s) => path.relative(src, path.resolve(src, path.dirname(file), s))));
  }
  return graph;
}

const DIRS = new Set(readdirSync(src, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));

/** Layer of a path relative to web/src: its directory (`../state` is the state's index), 'outside'
 * (wasm/, build/), or '' (the element and the modules beside it). */
function layerOf(p) {
  const first = p.split(path.sep)[0];
  return first === '..' ? 'outside' : DIRS.has(first) ? first : '';
}

const FORBIDDEN = {
  engine: ['state', 'views', 'worker', 'algorithms', ''],
  worker: ['state', 'views', 'algorithms', ''],
  state: ['views'],
};

/** The imports that break a rule, as "from -> to". */
function arrowsUp(graph) {
  const bad = [];
  for (const [from, targets] of graph) {
    const banned = FORBIDDEN[layerOf(from)] ?? [];
    for (const to of targets) if (banned.includes(layerOf(to))) bad.push(`${from} -> ${to}`);
  }
  return bad;
}

test('the import graph is read: the element reaches the layers, lazy.ts the workers, the worker the engine', () => {
  const graph = importGraph();
  const element = graph.get('element.ts');
  assert.ok(element, 'web/src/element.ts is read');
  for (const layer of ['engine', 'state', 'views']) {
    assert.ok(element.some((to) => layerOf(to) === layer), `element.ts imports from ${layer}/`);
  }
  assert.ok(graph.get('lazy.ts').includes(path.join('worker', 'sweep')), 'lazy.ts loads worker/sweep.ts (a dynamic import)');
  assert.ok(graph.get(path.join('worker', 'worker.ts')).includes(path.join('engine', 'compute')));
  // the one nested <-> {shape, data} conversion (wasm/nested.mjs) comes to the page through the engine
  const nestedUsers = [...graph].filter(([, to]) => to.some((t) => t.endsWith(path.join('wasm', 'nested.mjs')))).map(([from]) => from);
  assert.deepEqual(nestedUsers, [path.join('engine', 'compute.ts')]);
});

test('no arrow back up: engine/ imports no state/, views/ or worker/; worker/ no state/ or views/; state/ no views/', () => {
  assert.deepEqual(arrowsUp(importGraph()), []);
});

test('the rule catches an arrow back up (each kind)', () => {
  const graph = new Map([
    [path.join('worker', 'background.ts'), [path.join('state', 'typed')]],
    [path.join('engine', 'batch.ts'), [path.join('state', 'typed'), path.join('engine', 'compute')]],
    [path.join('state', 'session.ts'), [path.join('views', 'errors'), path.join('worker', 'cancel')]],
    [path.join('worker', 'sweep.ts'), ['state', 'lazy', path.join('engine', 'compute')]],
  ]);
  assert.deepEqual(arrowsUp(graph), [
    `${path.join('worker', 'background.ts')} -> ${path.join('state', 'typed')}`,
    `${path.join('engine', 'batch.ts')} -> ${path.join('state', 'typed')}`,
    `${path.join('state', 'session.ts')} -> ${path.join('views', 'errors')}`,
    `${path.join('worker', 'sweep.ts')} -> state`,
    `${path.join('worker', 'sweep.ts')} -> lazy`,
  ]);
});
