// dist/embed.html, the iframe API (SPEC §1), in headless Chromium: dist/ served by scripts/serve.mjs
// (its CSP) on one port, a host page on another (cross-origin, as real embedding is) that frames
// embed.html and records what it posts. The traces are checked against the WASM module run in node.
// Also the theme: dark in the frame, and dark on index.html's element (text contrast >= 4.5).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { load } from '../../wasm/attnplay.mjs';
import { launch, openUrl } from './harness.mjs';

// The host: an <iframe> of ?src=..., every message from it kept in window.__msgs, post(m) to it.
const HOST = `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body>
<iframe id="f" width="1300" height="900" style="border:0"></iframe>
<script>
window.__msgs = [];
const frame = document.getElementById('f');
addEventListener('message', (e) => { if (e.source === frame.contentWindow) __msgs.push({ data: e.data, origin: e.origin }); });
window.post = (m) => frame.contentWindow.postMessage(m, '*');
frame.src = new URLSearchParams(location.search).get('src');
</script></body></html>`;

let h, host, hostBase, wasm, presets;

before(async () => {
  wasm = await load();
  presets = wasm.presets();
  h = await launch();
  host = http.createServer((req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(HOST));
  await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostBase = `http://127.0.0.1:${host.address().port}/`;
});

after(async () => {
  await h?.close();
  host?.close();
});

const scenarioOf = (name) => structuredClone(presets.find((p) => p.name === name).scenario);
const messages = () => h.page.evaluate(() => window.__msgs.map((m) => m.data));
const post = (m) => h.page.evaluate((msg) => window.post(msg), m);
const frame = () => h.page.frames().find((f) => f.url().includes('/embed.html'));

/** The first message from index `from` on for which `pred(data)` (a function's source) holds. */
async function next(from, pred, timeout = 30000) {
  const handle = await h.page.waitForFunction(([from, src]) => {
    const p = (0, eval)(`(${src})`);
    const i = window.__msgs.findIndex((m, k) => k >= from && p(m.data));
    return i >= 0 ? { ...window.__msgs[i], index: i } : false;
  }, [from, pred.toString()], { timeout, polling: 50 });
  return handle.jsonValue();
}

/** Opens the host framing embed.html?query; resolves once `ready` arrived. */
async function openHost(query = '') {
  await h.page.goto('about:blank');
  h.problems.length = 0;
  await h.page.goto(`${hostBase}?src=${encodeURIComponent(`${h.base}embed.html${query}`)}`);
  await next(0, (d) => d?.type === 'ready');
}

function assertClose(got, want, path = 'context') {
  if (Array.isArray(want)) {
    assert.equal(got.length, want.length, `${path}: length`);
    want.forEach((w, i) => assertClose(got[i], w, `${path}[${i}]`));
  } else {
    assert.ok(Math.abs(got - want) <= 1e-12, `${path}: ${got} vs ${want}`);
  }
}

async function noProblems() {
  const csp = await frame().evaluate(() => window.__csp ?? []);
  assert.deepEqual([...h.problems, ...csp], [], 'console errors or CSP violations');
}

/** WCAG contrast ratio of two CSS rgb() colours. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map((x) => Number(x) / 255)
      .map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test('ready once, a trace per recompute, setPreset and getTrace (cross-origin host)', async () => {
  await openHost();
  const first = await next(0, (d) => d?.type === 'trace');
  assert.equal(first.origin, new URL(h.base).origin);
  assert.ok(first.data.trace.context, 'the first preset\'s trace');

  let from = (await messages()).length;
  await post({ type: 'setPreset', name: 'prob-toy' });
  const got = await next(from, (d) => d?.type === 'trace' && d.trace?.algorithm === 'prob');
  assert.equal(got.data.id, undefined);
  const expected = wasm.run(scenarioOf('prob-toy'));
  assertClose(got.data.trace.context, expected.context);

  from = (await messages()).length;
  await post({ type: 'getTrace', id: 'q-1' });
  const answer = await next(from, (d) => d?.type === 'trace' && d.id === 'q-1');
  assertClose(answer.data.trace.context, expected.context);
  await post({ type: 'getTrace', id: 7 });
  assert.equal((await next(from, (d) => d?.type === 'trace' && d.id === 7)).data.trace.algorithm, 'prob');

  const all = await messages();
  assert.equal(all.filter((d) => d?.type === 'ready').length, 1, 'ready exactly once');
  assert.equal(all.findIndex((d) => d?.type === 'ready'), 0, 'ready first');
  await noProblems();
});

test('setScenario: its trace; a bad tensor posts an error with its field and the last good trace stays', async () => {
  await openHost();
  await next(0, (d) => d?.type === 'trace');
  const good = scenarioOf('softmax-toy');
  good.q[0][0][0][0] = 0.25;
  let from = (await messages()).length;
  await post({ type: 'setScenario', scenario: good });
  const t = await next(from, (d) => d?.type === 'trace' && d.trace?.context?.[0]?.[0]?.[0]);
  assertClose(t.data.trace.context, wasm.run(good).context);

  const bad = structuredClone(good);
  bad.q[0][0][0][0] = '1..2';
  from = (await messages()).length;
  await post({ type: 'setScenario', scenario: bad });
  const err = await next(from, (d) => d?.type === 'error');
  assert.equal(err.data.field, 'q[0][0][0][0]');
  assert.match(err.data.message, /^q\[0\]\[0\]\[0\]\[0\]: expected a number/);
  // the frame shows it beside Q, and keeps the last good trace
  const shown = await frame().evaluate(() => document.querySelector('attention-playground').shadowRoot
    .querySelector('[data-slot="q"]')?.textContent ?? '');
  assert.match(shown, /q\[0\]\[0\]\[0\]\[0\]: expected a number/);
  await post({ type: 'getTrace', id: 'after-bad' });
  const kept = await next(from, (d) => d?.type === 'trace' && d.id === 'after-bad');
  assertClose(kept.data.trace.context, wasm.run(good).context);
  // the same bad scenario again: reported again
  from = (await messages()).length;
  await post({ type: 'setScenario', scenario: bad });
  assert.equal((await next(from, (d) => d?.type === 'error')).data.field, 'q[0][0][0][0]');
  // and a good one clears it
  await post({ type: 'setScenario', scenario: good });
  await next(from, (d) => d?.type === 'trace');
  await noProblems();
});

test('junk messages are ignored; a huge scenario or an unknown preset is a clear error; only the parent is heard', async () => {
  await openHost('?preset=prob-toy');
  await next(0, (d) => d?.type === 'trace' && d.trace?.algorithm === 'prob');
  const from = (await messages()).length;
  for (const junk of ['setPreset', 42, null, [], [{ type: 'getTrace', id: 1 }], { type: 'nope' }, { type: 'GETTRACE', id: 1 },
    { type: 'setScenario', scenario: 'x' }, { type: 'setScenario', scenario: [] }, { type: 'setScenario', scenario: null },
    { type: 'setScenario' }, { type: 'setPreset', name: 5 }, { type: 'setPreset' }, { type: 'getTrace' },
    { type: 'getTrace', id: {} }, { type: 'getTrace', id: null }, { type: 'getTrace', id: Number.NaN }]) {
    await post(junk);
  }
  // what only the host's own realm makes (the test's arguments are serialised as JSON-like data)
  await h.page.evaluate(() => {
    for (const x of [new Date(), new Map([['algorithm', 'full']]), new Float64Array(2), new Set()]) {
      window.post({ type: 'setScenario', scenario: x });
    }
    window.post({ type: 'getTrace', id: 1n });
    window.post({ type: 'setPreset', name: new String('prob-toy') });
  });
  // a message from the frame itself (not its parent) is not heard
  await frame().evaluate(() => window.postMessage({ type: 'setPreset', name: 'softmax-toy' }, '*'));
  await post({ type: 'setScenario', scenario: { algorithm: 'full', pad: 'x'.repeat(2.2 * 1024 * 1024) } });
  const big = await next(from, (d) => d?.type === 'error');
  assert.equal(big.data.field, '');
  assert.match(big.data.message, /^scenario: .*more than the 2097152 allowed/);
  await post({ type: 'setPreset', name: 'no-such-preset' });
  const unknown = await next(big.index + 1, (d) => d?.type === 'error');
  assert.equal(unknown.data.field, 'preset');
  assert.match(unknown.data.message, /no preset named "no-such-preset"/);
  await post({ type: 'getTrace', id: 'alive' });
  const alive = await next(from, (d) => d?.type === 'trace' && d.id === 'alive');
  assert.equal(alive.data.trace.algorithm, 'prob', 'nothing changed the scenario');
  // (resize: an error shown changes the frame's height)
  const since = (await messages()).slice(from).filter((d) => d.type !== 'resize');
  assert.deepEqual(since.map((d) => d.type), ['error', 'error', 'trace'], 'no other reply, no recompute');
  await noProblems();
});

test('URL parameters: preset, lang=zh, controls=none, theme=dark; the page runs under its CSP', async () => {
  await openHost('?preset=prob-toy&lang=zh&controls=none&theme=dark');
  const t = await next(0, (d) => d?.type === 'trace' && d.trace?.algorithm === 'prob');
  assertClose(t.data.trace.context, wasm.run(scenarioOf('prob-toy')).context);
  const f = frame();
  await f.evaluate(() => document.querySelector('attention-playground').settled);
  const got = await f.evaluate(() => {
    const el = document.querySelector('attention-playground');
    const app = el.shadowRoot.querySelector('.app');
    const panel = el.shadowRoot.querySelector('[data-panel="results"]');
    return {
      meta: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content ?? '',
      lang: app.getAttribute('lang'), heading: panel.querySelector('h2').textContent,
      inputs: ['preset', 'algorithm', 'tensors', 'mask', 'options', 'json'].filter((p) => el.shadowRoot.querySelector(`[data-panel="${p}"]`)),
      app: getComputedStyle(app).backgroundColor, html: getComputedStyle(document.documentElement).backgroundColor,
      fg: getComputedStyle(panel).color, panel: getComputedStyle(panel).backgroundColor,
      scheme: getComputedStyle(app).colorScheme, syncHash: el.hasAttribute('sync-hash'), header: document.querySelector('header, footer'),
    };
  });
  assert.match(got.meta, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.ok(!got.meta.includes('frame-ancestors'));
  assert.equal(got.lang, 'zh');
  assert.notEqual(got.heading, 'Results');
  assert.deepEqual(got.inputs, [], 'controls=none: results only');
  assert.equal(got.scheme, 'dark');
  assert.ok(contrast(got.app, 'rgb(0, 0, 0)') < 1.5, `a dark background: ${got.app}`);
  assert.ok(contrast(got.html, 'rgb(0, 0, 0)') < 1.5, `a dark page: ${got.html}`);
  assert.ok(contrast(got.fg, got.panel) >= 4.5, `${got.fg} on ${got.panel}`);
  assert.equal(got.syncHash, false);
  assert.equal(got.header, null);
  assert.equal(new URL(f.url()).hash, '', 'the embed leaves the URL alone');
  await noProblems();
});

test('URL scenario: its trace; invalid JSON is shown in the frame and posted', async () => {
  const s = scenarioOf('softmax-toy');
  s.v[0][0][0][0] = 3;
  await openHost(`?scenario=${encodeURIComponent(JSON.stringify(s))}`);
  const t = await next(0, (d) => d?.type === 'trace');
  assertClose(t.data.trace.context, wasm.run(s).context);
  await noProblems();

  await openHost(`?scenario=${encodeURIComponent('{"algorithm": "full", ')}&controls=none`);
  const err = await next(0, (d) => d?.type === 'error');
  assert.equal(err.data.field, '');
  assert.match(err.data.message, /^scenario: invalid JSON/);
  const shown = await frame().evaluate(() => [...document.querySelector('attention-playground').shadowRoot
    .querySelectorAll('.error:not([hidden])')].map((e) => e.textContent).join('\n'));
  assert.match(shown, /scenario: invalid JSON/);
  await noProblems();
});

test('theme="dark" on index.html\'s element: text and errors readable (contrast >= 4.5), light by default', async () => {
  await openUrl(h.page, h.base + '#preset=softmax-toy');
  const colours = () => h.page.evaluate(() => {
    const root = document.querySelector('attention-playground').shadowRoot;
    const style = (sel) => getComputedStyle(root.querySelector(sel));
    const panel = style('.panel-tensors');
    const input = style('.panel-tensors input');
    const help = root.querySelector('.panel .help, .fig-caption');
    return { fg: panel.color, bg: panel.backgroundColor, muted: getComputedStyle(help).color,
      input: input.color, inputBg: input.backgroundColor, app: style('.app').backgroundColor };
  });
  const light = await colours();
  assert.equal(light.bg, 'rgb(255, 255, 255)');
  await h.page.evaluate(() => document.querySelector('attention-playground').setAttribute('theme', 'dark'));
  const dark = await colours();
  assert.ok(contrast(dark.app, 'rgb(0, 0, 0)') < 1.5, `dark: ${dark.app}`);
  for (const [fg, bg] of [[dark.fg, dark.bg], [dark.muted, dark.bg], [dark.input, dark.inputBg]]) {
    assert.ok(contrast(fg, bg) >= 4.5, `${fg} on ${bg}: ${contrast(fg, bg).toFixed(2)}`);
  }
  // an error's text on its background
  await h.page.locator('attention-playground [data-key="k[0][2][0][0]"]').fill('1..2');
  const err = await h.page.evaluate(() => {
    const e = document.querySelector('attention-playground').shadowRoot.querySelector('.error:not([hidden])');
    return [getComputedStyle(e).color, getComputedStyle(e).backgroundColor];
  });
  assert.ok(contrast(...err) >= 4.5, `error ${err[0]} on ${err[1]}`);
  await h.page.evaluate(() => document.querySelector('attention-playground').setAttribute('theme', 'light'));
  assert.deepEqual(await colours(), light);
  assert.deepEqual(h.problems, []);
});
