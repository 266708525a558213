// docs/embedding.md's Jupyter cell, run as a notebook would: its code (between the jupyter-cell
// markers) by a python with IPython, beside a copy of dist/attention-playground.html; the output's
// HTML (_repr_html_ of the cell's last expression) opened in headless Chromium as a notebook's output
// shows the single file in an <iframe srcdoc>, which computes the preset it names (equal to the
// WASM module's trace to 1e-12), with no request beyond the notebook page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';
import { dist, launch, root } from './harness.mjs';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnplay-notebook-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A python3 that has IPython (PATH's first, then Debian's). */
function python() {
  for (const exe of ['python3', '/usr/bin/python3']) {
    if (spawnSync(exe, ['-c', 'import IPython'], { encoding: 'utf8' }).status === 0) return exe;
  }
  assert.fail('no python3 with IPython: install it (pip install ipython, or apt-get install python3-ipython)');
}

// runs the cell, then prints its last expression's _repr_html_(), as a notebook shows it
const RUNNER = `
import ast, sys
tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
last = tree.body.pop()
ns = {}
exec(compile(tree, "cell", "exec"), ns)
out = eval(compile(ast.Expression(last.value), "cell", "eval"), ns)
sys.stdout.write(out._repr_html_())
`;

test('the Jupyter cell shows the single file inline; it computes the preset it names', async () => {
  const doc = fs.readFileSync(path.join(root, 'docs/embedding.md'), 'utf8');
  const cell = /<!-- jupyter-cell[^>]*-->\s*```python\n([\s\S]*?)```\s*<!-- \/jupyter-cell -->/.exec(doc);
  assert.ok(cell, 'docs/embedding.md has its jupyter-cell');
  const preset = /preset="([a-z0-9-]+)"/.exec(cell[1])[1];
  fs.copyFileSync(path.join(dist, 'attention-playground.html'), path.join(tmp, 'attention-playground.html'));
  fs.writeFileSync(path.join(tmp, 'cell.py'), cell[1]);
  fs.writeFileSync(path.join(tmp, 'runner.py'), RUNNER);
  const run = spawnSync(python(), ['runner.py', 'cell.py'], { cwd: tmp, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^<iframe srcdoc="/);
  // the notebook's page: the output as it is inserted into a notebook
  const notebook = `<!doctype html><html><head><meta charset="utf-8"><title>notebook</title></head><body>
<div class="output_html">${run.stdout}</div></body></html>`;
  const requests = [];
  const server = http.createServer((req, res) => { requests.push(req.url); res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(notebook); });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { page, problems, close } = await launch();
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const frame = () => page.frames().find((f) => f !== page.mainFrame());
    await page.waitForFunction(() => document.querySelector('iframe')?.contentDocument?.querySelector('attention-playground')?.trace?.algorithm,
      null, { timeout: 60000 });
    const trace = await frame().evaluate(() => document.querySelector('attention-playground').trace);
    const wasm = await load();
    const want = wasm.run(wasm.presets().find((p) => p.name === preset).scenario);
    assert.equal(trace.algorithm, want.algorithm);
    const got = trace.context.flat(3), expected = want.context.flat(3);
    assert.equal(got.length, expected.length);
    got.forEach((x, i) => assert.ok(Math.abs(x - expected[i]) <= 1e-12, `context[${i}]`));
    assert.deepEqual(requests.filter((u) => u !== '/favicon.ico'), ['/'], 'nothing fetched but the notebook page');
    const csp = await frame().evaluate(() => window.__csp ?? []);
    assert.deepEqual([...problems, ...csp], []);
  } finally {
    await close();
    server.close();
  }
});
