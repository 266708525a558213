// The element as an installable package (issue 15): `npm pack` gives a tarball whose files are what
// a user needs (the element's module and every file it loads, embed.html, the types, the embedding
// docs: nothing else); its types describe the element (checked by tsc against web/src/element.ts);
// installed offline into a fresh Vite app (`npm install <tarball>`, the repository's vite), the app
// builds and shows a trace in headless Chromium with no request failing (the element's lazy chunks
// and .wasm as the app's bundler renamed them), and a long run computes in the worker.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { createServer } from '../../scripts/serve.mjs';
import { dist, launch, root } from './harness.mjs';

let tmp, tarball, packed, wasm;

before(() => {
  wasm = null;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnplay-package-'));
  const out = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: root, encoding: 'utf8' }));
  packed = out[0];
  tarball = path.join(tmp, packed.filename);
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

/** Every file of dist/ that dist/attention-playground.js and dist/embed.html load, directly or not:
 * the relative URLs in their text (imports, `new URL(..., import.meta.url)`, src=, href=). */
function reachable() {
  const seen = new Set();
  const visit = (rel) => {
    if (seen.has(rel)) return;
    const file = path.join(dist, rel);
    if (!fs.existsSync(file)) return;
    seen.add(rel);
    if (!/\.(js|html|css)$/.test(rel)) return;
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/["'`(](\.{0,2}\/?(?:assets\/)?[\w.-]+\.(?:js|wasm|css|json))["'`)]/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]));
      visit(target);
      visit(path.posix.join('assets', path.posix.basename(m[1])));
    }
  };
  visit('attention-playground.js');
  visit('embed.html');
  return seen;
}

test('the tarball holds the element, what it loads, embed.html, its types and the embedding docs: nothing else', () => {
  const files = packed.files.map((f) => f.path).sort();
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.exports['.'].default, './dist/attention-playground.js');
  assert.equal(pkg.exports['.'].types, './web/attention-playground.d.ts');
  for (const f of ['package.json', 'README.md', 'web/attention-playground.d.ts', 'docs/embedding.md', 'dist/attention-playground.js', 'dist/embed.html']) {
    assert.ok(files.includes(f), `${f} is packed`);
  }
  const needed = [...reachable()].map((f) => 'dist/' + f);
  for (const f of needed) assert.ok(files.includes(f), `${f} (loaded by the element or embed.html) is packed`);
  const extra = files.filter((f) => f.startsWith('dist/') && !needed.includes(f));
  assert.deepEqual(extra, [], 'packed but loaded by neither the element nor embed.html');
  assert.deepEqual(files.filter((f) => !f.startsWith('dist/')).sort(),
    ['README.md', 'docs/embedding.md', 'package.json', 'web/attention-playground.d.ts']);
  assert.ok(packed.size < 3e6, `tarball ${packed.size} bytes`);
});

test('the types describe the element: tsc checks them against web/src/element.ts and a user\'s code', () => {
  const dir = fs.mkdtempSync(path.join(root, 'tests/web/.types-'));
  try {
    fs.writeFileSync(path.join(dir, 'check.ts'), `
import { AttentionPlayground as Declared, define, type Explanation, type Trace } from '../../../web/attention-playground';
import type { AttentionPlayground as Real } from '../../../web/src/element';
// the element's public API is what the types declare (both ways, member by member)
type Api = 'ready' | 'trace' | 'scenario' | 'presets' | 'estimate' | 'settled' | 'setScenario' | 'setPreset' | 'export' | 'explain';
const a: Pick<Declared, Api> = null as unknown as Pick<Real, Api>;
const b: Pick<Real, Api> = null as unknown as Pick<Declared, Api>;
void a; void b;
// and nothing public of the element is left undeclared
type Undeclared = Exclude<keyof Real, keyof Declared>;
const none: [Undeclared] extends [never] ? true : Undeclared = true;
void none;
// export's parameters (an optional one more or less is assignable either way above): the same
// count, and what the types let a user pass the element takes (its kind narrowed to ExportKind)
type Count<F extends (...a: never[]) => unknown> = Parameters<F>['length'];
const n1: Count<Declared['export']> = null as unknown as Count<Real['export']>;
const n2: Count<Real['export']> = null as unknown as Count<Declared['export']>;
const params: Parameters<Real['export']> = null as unknown as Parameters<Declared['export']>;
void n1; void n2; void params;
// a user's code
define();
const el = document.querySelector('attention-playground')!;
el.addEventListener('trace', (e) => { const t: Trace = e.detail; console.log(t.algorithm, t.shapes.context); });
el.addEventListener('scenario-error', (e) => { for (const x of e.detail) console.log(x.field, x.message); });
el.setScenario({ algorithm: 'full', q: { shape: [1, 4, 1, 2], random: 'normal', seed: 1 } });
void el.export('pytorch').then((blob: Blob) => blob.text());
void el.export('csv', 'weights', { slices: 'all' });
void el.explain('weights', [0, 0, 0, 1]).then((x: Explanation) => x.formula);
const ok: boolean = el.setPreset('softmax-toy');
void ok;
// @ts-expect-error: not an export kind
void el.export('xlsx');
`);
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      extends: '../../../tsconfig.json', compilerOptions: { noUnusedLocals: false }, include: ['check.ts', '../../../web/src/types.d.ts'],
    }));
    execFileSync(path.join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', dir], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (e) {
    assert.fail(`tsc: ${e.stdout ?? ''}${e.stderr ?? e.message}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('installed offline into a fresh Vite app, it builds and shows a trace', async () => {
  wasm = await load();
  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'tutorial', private: true, type: 'module' }));
  fs.writeFileSync(path.join(app, 'index.html'), `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>tutorial</title></head>
<body><h1>Scaled dot-product attention</h1>
<attention-playground preset="softmax-toy" controls="results"></attention-playground>
<script type="module" src="./main.js"></script></body></html>`);
  fs.writeFileSync(path.join(app, 'main.js'), `import 'attention-playground';
const el = document.querySelector('attention-playground');
el.addEventListener('trace', (e) => { window.__trace = e.detail; });
`);
  execFileSync('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: app, encoding: 'utf8', stdio: 'pipe' });
  assert.ok(fs.existsSync(path.join(app, 'node_modules/attention-playground/dist/attention-playground.js')));
  execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'], { cwd: app, encoding: 'utf8', stdio: 'pipe' });
  const out = path.join(app, 'dist');
  assert.ok(fs.readdirSync(path.join(out, 'assets')).some((f) => f.endsWith('.wasm')), 'the WASM is among the app\'s assets');
  const server = createServer(out);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { page, problems, close } = await launch();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.__trace !== undefined, null, { timeout: 60000 });
    const trace = await page.evaluate(() => window.__trace);
    const preset = wasm.presets().find((p) => p.name === 'softmax-toy');
    assert.deepEqual(trace, wasm.run(preset.scenario));
    assert.ok(await page.locator('attention-playground [data-field="weights"]').first().isVisible());
    // a long run (seeded draws, L = 2048) goes to the worker, whose file the app's bundler copied as
    // it is: the page tells it the .wasm (worker/pool.ts); its trace is the core's
    const long = { algorithm: 'full', trace: 'context', q: { shape: [1, 2048, 1, 16], random: 'normal', seed: 1 },
      k: { shape: [1, 2048, 1, 16], random: 'normal', seed: 2 }, v: { shape: [1, 2048, 1, 16], random: 'uniform', seed: 3 } };
    const context = await page.evaluate((s) => new Promise((resolve) => {
      const el = document.querySelector('attention-playground');
      el.addEventListener('trace', (e) => resolve(e.detail.context), { once: true });
      el.setScenario(s);
    }), long);
    assert.equal(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot
      .querySelector('[data-field="long-run"]').dataset.mode), 'worker');
    assert.deepEqual(context, wasm.run(long).context);
    assert.deepEqual(problems, []);
  } finally {
    await close();
    server.close();
  }
});
