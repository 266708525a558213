// Headless Chromium against dist/ served by scripts/serve.mjs (with its CSP), for the page suites:
// the launch, the console/CSP watch, and small helpers to read what the element shows.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createServer } from '../../scripts/serve.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// ATTNPLAY_DIST: another build of the page (a benchmark's before and after)
export const dist = process.env.ATTNPLAY_DIST ?? path.join(root, 'dist');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Large results (traces, every cell's explanation) come back from the page as one JSON string:
 * Playwright's own serialisation of a nested value walks it object by object and took seconds per
 * MB (explain.test: 25 s for one preset's 1.1 MB). Lossless for what a trace holds: NaN, ±Infinity
 * and -0 are written as {"__num": "..."}, typed arrays as {"__typed": "Float64Array", "values": [...]}
 * (fromPageJSON turns them back); an `undefined` property is dropped, as reading it gives anyway.
 * `window.__attnplayJSON(x)` in the page (an init script of launch's context: no eval, the CSP holds). */
const PAGE_JSON = () => {
  window.__attnplayJSON = (x) => JSON.stringify(x, (k, v) => {
    if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return { __num: Object.is(v, -0) ? '-0' : String(v) };
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return { __typed: v.constructor.name, values: Array.from(v) };
    return v;
  });
};

/** What `window.__attnplayJSON` wrote, as the value it was. */
export const fromPageJSON = (text) => JSON.parse(text, (k, v) => {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && typeof v.__num === 'string') return Number(v.__num);
    if (keys.length === 2 && typeof v.__typed === 'string' && Array.isArray(v.values)) return new globalThis[v.__typed](v.values);
  }
  return v;
});

/** The Chromium a suite's contexts open in: the one `ATTNPLAY_BROWSER_WS` names (scripts/test.sh
 * starts one, tests/web/browser-server.mjs, for the whole browser phase: a Chromium start and stop
 * costs about 4.5 s of CPU, 31 files started one each), else one of the suite's own. `own`: a
 * Chromium of its own even so (a suite that uses the clipboard: headless Chromium has one clipboard
 * per browser, which two suites running at once would share). `close()` ends the suite's own, or
 * only disconnects from the shared one. */
async function browserFor(own = false) {
  const ws = own ? null : process.env.ATTNPLAY_BROWSER_WS;
  if (ws) return chromium.connect(ws);
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}
export { CHROMIUM_ARGS };

/** Starts the server and a browser context (a fresh one: its own storage, permissions, downloads);
 * `problems` collects console errors, page errors, CSP violations. `options`: more of Playwright's
 * context options (`locale`, `colorScheme`); `options.ownBrowser`: a Chromium of the suite's own
 * (browserFor). */
export async function launch({ ownBrowser = false, ...options } = {}) {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'dist/index.html is missing: run npm run build');
  const server = createServer(dist);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await browserFor(ownBrowser);
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...options });
  const { page, problems } = await watched(context);
  const close = async () => {
    await context.close();
    await browser.close();
    server.close();
  };
  return { page, base, problems, close };
}

/** The init scripts and the watch of launch, on `context`: its page and the problems it reports. */
async function watched(context) {
  await context.addInitScript(PAGE_JSON);
  // Playwright's 30 s default: a 1 MB link's load took longer on a 2-core machine at load 15-20
  context.setDefaultTimeout(60000);
  await context.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective}: ${e.blockedURI}`));
  });
  const page = context.pages()[0] ?? await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return { page, problems };
}

/** One server and one Chromium for several fresh browsers (a suite that needs a browser per case,
 * each remembering nothing: prefs.test): `open(options)` gives what launch gives, in a new context of
 * its own (its own storage, `options` its context options); `close()` ends them all. The Chromium is
 * browserFor's: the phase's shared one under scripts/test.sh. */
export async function launchShared() {
  assert.ok(fs.existsSync(path.join(dist, 'index.html')), 'dist/index.html is missing: run npm run build');
  const server = createServer(dist);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await browserFor();
  const contexts = [];
  return {
    async open(options = {}) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, ...options });
      contexts.push(context);
      const { page, problems } = await watched(context);
      return { page, base, problems, close: () => context.close() };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      server.close();
    },
  };
}

/** What a page's elements are after a fresh load (openUrl): their count and the first one's
 * attributes (samePage checks them). */
const loaded = new WeakMap();
const elementsOf = (page) => page.evaluate(() => {
  const els = document.querySelectorAll('attention-playground');
  return { url: location.origin + location.pathname, count: els.length,
    attributes: els.length ? [...els[0].attributes].map((a) => `${a.name}="${a.value}"`).sort().join(' ') : '' };
});

/** A fresh load of `url` (never a same-document hash change), once the element has a trace. */
export async function openUrl(page, url) {
  await page.goto('about:blank');
  await page.goto(url);
  const state = await (await page.waitForFunction(() => {
    const el = document.querySelector('attention-playground');
    if (el?.trace != null) return 'ok';
    return el?.shadowRoot?.querySelector('.app > .error')?.textContent || false;
  })).jsonValue();
  assert.equal(state, 'ok', `the page could not start: ${state}`);
  // and the views that trace needs are loaded and drawn (they are lazy chunks)
  await settle(page);
  loaded.set(page, await elementsOf(page));
}

/** Preset `name` on the page a test before loaded with openUrl, for a test that does not test
 * loading (a fresh load costs about 2 s of CPU): el.setPreset draws the element anew (its open
 * panels, the pitfalls' switch and the slices as a load leaves them, the scenario the preset's), at
 * the top of the page as a load is.
 * Fails unless the page is as that load left it where a preset does not reset it: the same
 * document, one element, its attributes as loaded (a test that set `lang` sets it back). */
export async function samePage(page, name) {
  const was = loaded.get(page);
  assert.ok(was, 'samePage: no page loaded by openUrl before');
  assert.deepEqual(await elementsOf(page), was, 'samePage: the page is not as openUrl left it');
  await page.evaluate(() => window.scrollTo(0, 0));  // where a load starts
  await openPreset(page, name);
}

/** Picks preset `name` on the page already open, as the preset select does (`el.setPreset`): no
 * reload, no new module (a fresh load costs seconds; the suites that sweep every preset load one per
 * algorithm by URL with openUrl and switch to the rest). Waits for the preset's trace, then settles. */
export async function openPreset(page, name, timeout = 60000) {
  const state = await page.evaluate(([n, ms]) => new Promise((resolve) => {
    const e = document.querySelector('attention-playground');
    const timer = setTimeout(() => resolve(`${n}: no trace in ${ms} ms`), ms);
    const onTrace = () => {
      if (e.trace?.algorithm !== e.scenario.algorithm) return;  // a trace of the scenario before
      clearTimeout(timer);
      e.removeEventListener('trace', onTrace);
      resolve('ok');
    };
    e.addEventListener('trace', onTrace);
    if (!e.setPreset(n)) { clearTimeout(timer); resolve(`no preset ${n}`); }
  }), [name, timeout]);
  assert.equal(state, 'ok', state);
  await settle(page);
}

/** Opens every preset of `names` in turn on `page` and calls `visit(name)`: the first preset of each
 * algorithm by a fresh load of `${base}#preset=name` (its first trace as a reader's link gets it:
 * the first-load module where it runs there), the others with openPreset. (`npm run a11y` loads
 * every preset fresh, in both languages and themes.) */
export async function eachPreset(page, base, names, visit) {
  const { load } = await import('../../wasm/attnplay.mjs');
  const algorithmOf = new Map((await load()).presets().map((p) => [p.name, p.scenario.algorithm]));
  const seen = new Set();
  for (const name of names) {
    const algorithm = algorithmOf.get(name);
    assert.ok(algorithm, `no preset ${name}`);
    if (!seen.has(algorithm)) await openUrl(page, `${base}#preset=${name}`);
    else await openPreset(page, name);
    seen.add(algorithm);
    await visit(name);
  }
}

/** The bytes of a Playwright download, read through its stream: `download.path()` is not on this
 * side when the Chromium is the phase's shared one (browserFor). */
export async function downloaded(download) {
  const chunks = [];
  for await (const c of await download.createReadStream()) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The first element's `field` (trace, scenario, ...), through __attnplayJSON where the page has it. */
async function elementValue(page, field) {
  const got = await page.evaluate((f) => {
    const v = document.querySelector('attention-playground')[f];
    return window.__attnplayJSON && v != null ? { json: window.__attnplayJSON(v) } : { value: v };
  }, field);
  return 'json' in got ? fromPageJSON(got.json) : got.value;
}
export const scenarioOf = (page) => elementValue(page, 'scenario');
export const traceOf = (page) => elementValue(page, 'trace');

/** The link (`#z=`, deflate-raw) once it holds `scenario` (by default the first element's): the URL
 * is written after a 300 ms pause in the edits (url-sync.ts), so a `#z=` already there may be an
 * earlier edit's. The browser's deflate may differ from zlib's byte for byte: what it inflates to
 * is compared. Returns the address, its hash and the scenario it carries. */
export async function linkedScenario(page, scenario = null, timeout = 30000) {
  const want = JSON.stringify(scenario ?? await scenarioOf(page));
  const until = Date.now() + timeout;
  for (;;) {
    const href = await page.evaluate(() => location.href);
    const hash = new URL(href).hash;
    // a #z= that does not inflate or parse is not the link yet: a bad link the page was opened with
    // stays in the address until the first edit's link replaces it (links.test)
    let text = null;
    try {
      if (hash.startsWith('#z=')) text = zlib.inflateRawSync(Buffer.from(hash.slice('#z='.length).split('&')[0], 'base64url')).toString();
      if (text !== null && JSON.stringify(JSON.parse(text)) === want) return { href, hash, scenario: JSON.parse(text) };
    } catch { /* not yet */ }
    if (Date.now() > until) throw new Error(`the link does not hold the scenario after ${timeout} ms (hash ${hash.slice(0, 40)}...)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until every element's results show its latest trace: the parts of the results off screen
 * take a new trace in idle time (issue 8), and `settled` patches them at once. `target`: the page or
 * a locator on it. */
export async function settle(target) {
  const page = typeof target.page === 'function' ? target.page() : target;
  await page.evaluate(() => Promise.all([...document.querySelectorAll('attention-playground')].map((e) => e.settled)));
}

/** Sets a scenario through the first element's API (`setScenario`) and waits for its trace event
 * (at most `timeout` ms), then settles. */
export async function setScenario(page, scenario, timeout = 30000) {
  await page.evaluate(([s, ms]) => new Promise((resolve, reject) => {
    const e = document.querySelector('attention-playground');
    const timer = setTimeout(() => reject(new Error('no trace in time')), ms);
    e.addEventListener('trace', () => { clearTimeout(timer); resolve(); }, { once: true });
    e.setScenario(s);
  }), [scenario, timeout]);
  await settle(page);
}

/** Runs `action`, waits until the first element has recomputed (its `trace` event), settles, and
 * returns its scenario. */
export async function afterTrace(page, action) {
  await page.evaluate(() => {
    window.__traced = false;
    document.querySelector('attention-playground').addEventListener('trace', () => { window.__traced = true; }, { once: true });
  });
  await action();
  await page.waitForFunction(() => window.__traced);
  await settle(page);
  return scenarioOf(page);
}

/** A (1, L, 1, width) tensor of numbers in [-1, 1) with 3 decimals, from a seeded LCG (no
 * Math.random: a failure reproduces). */
export function seededTensor(L, width, seed) {
  let a = seed >>> 0;
  const next = () => { a = (Math.imul(a, 1664525) + 1013904223) >>> 0; return Math.round(((a / 4294967296) * 2 - 1) * 1000) / 1000; };
  return [Array.from({ length: L }, () => [Array.from({ length: width }, next)])];
}

/** The text an element shows. The results' sections are `content-visibility: auto`: Chromium's
 * `innerText` of one that is off screen, or inserted since the last frame, is '' (its layout is
 * skipped), so there the text is read from the DOM, its white space collapsed. */
export const textOf = (locator) => locator.evaluate((e) =>
  (e.checkVisibility({ contentVisibilityAuto: true }) ? e.innerText : e.textContent.replace(/\s+/g, ' ').trim()));

/** [data-index, Number(data-value)] of every cell of the figure `field` under `host`. */
export async function cellsOf(host, field) {
  await settle(host);
  return host.locator(`[data-field="${field}"] td[data-index]`).evaluateAll((tds) =>
    tds.map((td) => [td.dataset.index, td.dataset.value]));
}

export function nested(t, index) {
  return index.split(',').map(Number).reduce((a, i) => a[i], t);
}

/** Every cell of figure `field` equals the tensor at its index (numbers to `tol`, booleans exactly). */
export async function assertCells(host, field, tensor, tol = 1e-12) {
  const cells = await cellsOf(host, field);
  assert.ok(cells.length > 0, `${field}: no cells`);
  for (const [index, text] of cells) {
    const want = nested(tensor, index);
    if (typeof want === 'boolean') assert.equal(text, String(want), `${field}[${index}]`);
    else assert.ok(Math.abs(Number(text) - want) <= tol, `${field}[${index}]: ${text} vs ${want}`);
  }
  return cells.length;
}
