// Every page carries its Content-Security-Policy as a <meta> (so it holds on any static host):
// dist/index.html and dist/embed.html the policy of scripts/serve.mjs with no 'unsafe-inline', the
// single file dist/attention-playground.html a policy that loads nothing, its inline script and
// styles allowed by their hashes. Each runs without a violation (the harness collects
// `securitypolicyviolation` events into window.__csp, console errors into `problems`); the single
// file still works from file://. No eval, no new Function in what is served.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dist, launch, openUrl, settle } from './harness.mjs';

let page, base, problems, close;

before(async () => { ({ page, base, problems, close } = await launch()); });
after(async () => { await close?.(); });

const PAGES = ['index.html', 'embed.html', 'attention-playground.html'];
const sha256 = (text) => `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The page's policy as {directive: [sources]}. */
function policyOf(html, name) {
  const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)];
  assert.equal(metas.length, 1, `${name}: one CSP <meta>`);
  // before anything it governs
  const at = html.indexOf(metas[0][0]);
  for (const tag of ['<script', '<style', '<link rel="stylesheet"', '<link rel="modulepreload"']) {
    const first = html.indexOf(tag);
    assert.ok(first === -1 || first > at, `${name}: ${tag} before the CSP <meta>`);
  }
  return Object.fromEntries(metas[0][1].split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
}

const csp = () => page.evaluate(() => window.__csp);
const clearCsp = () => page.evaluate(() => { window.__csp.length = 0; });

test('each page has a CSP <meta>: no unsafe-inline or unsafe-eval, its inline code allowed by hash', () => {
  for (const name of PAGES) {
    const html = fs.readFileSync(path.join(dist, name), 'utf8');
    const policy = policyOf(html, name);
    const all = Object.values(policy).flat();
    assert.ok(!all.includes("'unsafe-inline'") && !all.includes("'unsafe-eval'"), `${name}: ${JSON.stringify(policy)}`);
    assert.deepEqual(policy['object-src'], ["'none'"], name);
    assert.deepEqual(policy['base-uri'], ["'none'"], name);
    assert.ok(policy['script-src'].includes("'wasm-unsafe-eval'"), `${name}: WASM compiles`);
    for (const [, attrs, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      if (!/\bsrc=/.test(attrs)) assert.ok(policy['script-src'].includes(sha256(body)), `${name}: an inline script's hash`);
    }
    for (const [, body] of html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)) {
      assert.ok(policy['style-src'].includes(sha256(body)), `${name}: an inline style's hash`);
    }
  }
  const single = policyOf(fs.readFileSync(path.join(dist, 'attention-playground.html'), 'utf8'), 'single');
  assert.deepEqual(single['default-src'], ["'none'"]);
  assert.equal(single['script-src'].filter((s) => s.startsWith("'sha256-")).length, 1, 'the one inline script');
  assert.ok(!single['script-src'].includes("'self'"));
  // and nothing served builds code from strings
  const js = [path.join(dist, 'attention-playground.js'), path.join(dist, 'attention-playground.html'),
    ...fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js')).map((f) => path.join(dist, 'assets', f))];
  for (const file of js) {
    assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /new Function\(|[^\w.$]eval\(/, path.basename(file));
  }
});

/** Waits until the Performer sweep has started (its status no longer idle: running, done, or failed). */
const sweepStarted = () => page.waitForFunction(() => {
  const status = document.querySelector('attention-playground')?.shadowRoot.querySelector('.sweep-status')?.dataset.status;
  return status !== undefined && status !== 'idle';
});

test('index.html runs under its <meta> policy without a violation (styles, edits, lazy views)', async () => {
  problems.length = 0;
  await openUrl(page, base + '#preset=performer-orthogonal');
  await sweepStarted();  // the sweep starts a moment after the first trace (in a worker)
  await settle(page);
  const el = page.locator('attention-playground');
  await el.locator('[data-key="q[0][0][0][0]"]').fill('0.75');
  await settle(page);
  await el.locator('[data-key="preset"]').selectOption('sparse-strided');
  await settle(page);
  await el.locator('[data-key="q[0][1][0][0]"]').fill('2');
  await settle(page);
  // a new cost: its bar's width is patched into the drawn one (through the CSSOM, not a style attribute)
  const before = await el.evaluate((e) => e.shadowRoot.querySelector('[data-field="cost"] .bar-fill')?.style.width);
  const w = await el.evaluate((e) => e.scenario.mask.window);
  await el.locator('[data-key="mask.window"]').fill(String(w === 0 ? 3 : 0));
  await settle(page);
  const after = await el.evaluate((e) => e.shadowRoot.querySelector('[data-field="cost"] .bar-fill')?.style.width);
  assert.ok(before && after && before !== after, `${before} -> ${after}`);
  // the element's stylesheet is applied (adopted: not an inline style the policy would refuse)
  assert.equal(await el.evaluate((e) => getComputedStyle(e.shadowRoot.querySelector('.app')).display !== ''), true);
  assert.notEqual(await el.evaluate((e) => getComputedStyle(e.shadowRoot.querySelector('.panel')).borderTopStyle), 'none');
  assert.deepEqual(await csp(), []);
  assert.deepEqual(problems, []);
  // the <meta> is in force (the server's header allows inline styles; the meta does not)
  await page.evaluate(() => document.head.append(Object.assign(document.createElement('style'), { textContent: 'body { color: red }' })));
  await page.waitForFunction(() => window.__csp.length > 0);
  assert.match((await csp()).join(), /style-src/);
  await clearCsp();
  problems.length = 0;
});

test('embed.html runs under its <meta> policy; its inline <style> is allowed by hash', async () => {
  problems.length = 0;
  await page.goto('about:blank');
  await page.goto(base + 'embed.html?preset=prob-toy&theme=dark');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  await settle(page);
  assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor), 'rgb(13, 17, 23)');
  assert.deepEqual(await csp(), []);
  assert.deepEqual(problems, []);
});

test('the single file works from file:// under its own policy, without a violation', async () => {
  problems.length = 0;
  const file = 'file://' + path.join(dist, 'attention-playground.html');
  for (const hash of ['#preset=prob-toy', '#preset=performer-orthogonal']) {
    await page.goto('about:blank');
    await page.goto(file + hash);
    await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
    await settle(page);
  }
  await sweepStarted();  // the sweep, on the page (no worker from file://)
  await settle(page);
  const el = page.locator('attention-playground');
  await el.locator('[data-key="q[0][0][0][0]"]').fill('0.5');
  await settle(page);
  assert.equal(await page.evaluate(() => document.querySelector('attention-playground').scenario.q[0][0][0][0]), 0.5);
  // its inline styles apply: the page's (body) and the element's
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(238, 241, 245)');
  assert.notEqual(await el.evaluate((e) => getComputedStyle(e.shadowRoot.querySelector('.panel')).borderTopStyle), 'none');
  assert.deepEqual(await csp(), []);
  assert.deepEqual(problems, []);
  // the policy is in force: an inline script that is not the page's own does not run
  await page.evaluate(() => document.head.append(Object.assign(document.createElement('script'), { textContent: 'window.__ran = 1' })));
  await page.waitForFunction(() => window.__csp.length > 0);
  assert.equal(await page.evaluate(() => window.__ran), undefined);
  assert.match((await csp()).join(), /script-src/);
  await clearCsp();
  problems.length = 0;
});
