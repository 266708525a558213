// Embedding from another origin (issue 15, SPEC §1): dist/ served by scripts/serve.mjs (npm start's
// server) on one port, host pages on another. The element's module loaded cross-origin (CORS), two
// elements sharing one WASM module; embed.html's {type: "resize", height} messages following its
// content and the docs' host snippet sizing the frame with them; and the report of an iframe whose
// results painted blank until `content-visibility: visible` was forced: reproduced (in a frame on
// another origin the sections below the host's viewport stay unrendered) and fixed in embed.html.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { load } from '../../wasm/attnplay.mjs';
import { launch } from './harness.mjs';

let h, host, hostBase, wasm, pages;

// the host pages, by path; {BASE} is npm start's server
const PAGES = {
  // two elements from the other origin's module (docs/embedding.md, "The element")
  '/element': `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>host</title>
<script type="module" src="{BASE}attention-playground.js"></script></head><body>
<attention-playground id="a" preset="softmax-toy" controls="results"></attention-playground>
<attention-playground id="b" preset="prob-toy" lang="zh" controls="results"></attention-playground>
</body></html>`,
  // docs/embedding.md's iframe snippet: the frame takes the height embed.html posts
  '/iframe': `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>host</title></head><body style="margin:0">
<p style="height:300px">A tutorial's text above the playground.</p>
<iframe id="attention-playground" src="{SRC}" title="Attention Playground" style="width: 100%; border: 0" height="600"></iframe>
<p style="height:300px">And below it.</p>
<script>
window.__msgs = [];
addEventListener('message', (e) => {
  const frame = document.getElementById('attention-playground');
  if (e.source !== frame.contentWindow) return;
  window.__msgs.push(e.data);
  if (e.data && e.data.type === 'resize') frame.style.height = e.data.height + 'px';
});
window.post = (m) => document.getElementById('attention-playground').contentWindow.postMessage(m, '*');
</script></body></html>`,
};

before(async () => {
  wasm = await load();
  h = await launch();
  host = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const text = PAGES[url.pathname];
    if (!text) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      .end(text.replaceAll('{BASE}', h.base).replace('{SRC}', url.searchParams.get('src') ?? ''));
  });
  await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostBase = `http://127.0.0.1:${host.address().port}`;
  pages = wasm.presets();
});

after(async () => {
  await h?.close();
  host?.close();
});

const scenarioOf = (name) => structuredClone(pages.find((p) => p.name === name).scenario);

test('a host page on another origin loads the element from npm start\'s server; two elements share one module', async () => {
  const requests = [];
  const onResponse = (r) => { if (r.url().startsWith(h.base)) requests.push({ url: r.url(), cors: r.headers()['access-control-allow-origin'] }); };
  h.page.on('response', onResponse);
  try {
    h.problems.length = 0;
    await h.page.goto(`${hostBase}/element`);
    await h.page.waitForFunction(() => ['a', 'b'].every((id) => document.getElementById(id)?.trace?.algorithm), null, { timeout: 60000 });
    const traces = await h.page.evaluate(() => ['a', 'b'].map((id) => document.getElementById(id).trace));
    assert.deepEqual(traces[0], wasm.run(scenarioOf('softmax-toy')));
    assert.equal(traces[1].algorithm, 'prob');
    const worst = Math.max(...traces[1].context.flat(3).map((x, i) => Math.abs(x - wasm.run(scenarioOf('prob-toy')).context.flat(3)[i])));
    assert.ok(worst <= 1e-12, `prob-toy: ${worst}`);
    // independent: a new scenario on one leaves the other's trace
    await h.page.evaluate(() => new Promise((resolve) => {
      const a = document.getElementById('a');
      a.addEventListener('trace', resolve, { once: true });
      const s = a.scenario;
      s.q[0][0][0][0] = 3;
      a.setScenario(s);
    }));
    assert.deepEqual(await h.page.evaluate(() => document.getElementById('b').trace.context), traces[1].context);
    await h.page.evaluate(() => Promise.all(['a', 'b'].map((id) => document.getElementById(id).settled)));
  } finally {
    h.page.off('response', onResponse);
  }
  // every file from the other origin came with CORS open, and each WASM file once
  assert.ok(requests.length > 3);
  for (const r of requests) assert.equal(r.cors, '*', r.url);
  const wasmFiles = requests.filter((r) => r.url.endsWith('.wasm')).map((r) => r.url);
  assert.ok(wasmFiles.length >= 1);
  assert.equal(new Set(wasmFiles).size, wasmFiles.length, `each .wasm fetched once: ${wasmFiles.join(', ')}`);
  assert.equal(requests.filter((r) => r.url.endsWith('/attention-playground.js')).length, 1);
  assert.deepEqual(h.problems, []);
});

/** The host's messages from the frame, from index `from`, until `pred` holds for one (returned). */
async function next(from, pred, timeout = 30000) {
  const handle = await h.page.waitForFunction(([from, src]) => {
    const p = (0, eval)(`(${src})`);
    const i = window.__msgs.findIndex((m, k) => k >= from && p(m));
    return i >= 0 ? { ...window.__msgs[i], index: i } : false;
  }, [from, pred.toString()], { timeout, polling: 50 });
  return handle.jsonValue();
}

const frame = () => h.page.frames().find((f) => f.url().includes('/embed.html'));
/** The frame's content height and the frame's own, once the host has applied the last resize. */
const heights = async () => {
  await h.page.waitForTimeout(300);
  const content = await frame().evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
  const framed = await h.page.evaluate(() => document.getElementById('attention-playground').getBoundingClientRect().height);
  const last = await h.page.evaluate(() => window.__msgs.filter((m) => m?.type === 'resize').at(-1)?.height);
  return { content, framed, last };
};

test('embed.html posts its content\'s height on load and on each change; the host snippet sizes the frame with it', async () => {
  h.problems.length = 0;
  await h.page.goto(`${hostBase}/iframe?src=${encodeURIComponent(`${h.base}embed.html?preset=softmax-toy`)}`);
  await next(0, (m) => m?.type === 'trace');
  await next(0, (m) => m?.type === 'resize');
  let sz = await heights();
  assert.equal(sz.last, sz.content, 'the last resize is the content height');
  assert.equal(sz.framed, sz.content, 'the host sized the frame to it');
  assert.ok(sz.content > 600, `the softmax toy is taller than the default frame: ${sz.content}`);
  const toy = sz.content;
  const msgs = await h.page.evaluate(() => window.__msgs);
  assert.equal(msgs[0]?.type, 'ready', 'ready comes first');
  // a taller preset: a new height; no resize repeats the one before it
  let from = msgs.length;
  await h.page.evaluate(() => window.post({ type: 'setPreset', name: 'prob-toy' }));
  await next(from, (m) => m?.type === 'trace' && m.trace?.algorithm === 'prob');
  await next(from, (m) => m?.type === 'resize');
  sz = await heights();
  assert.equal(sz.framed, sz.content);
  assert.notEqual(sz.content, toy);
  // only the controls: smaller again
  from = (await h.page.evaluate(() => window.__msgs.length));
  await frame().evaluate(() => document.querySelector('attention-playground').setAttribute('controls', 'results'));
  await next(from, (m) => m?.type === 'resize');
  sz = await heights();
  assert.equal(sz.framed, sz.content);
  const resizes = (await h.page.evaluate(() => window.__msgs)).filter((m) => m?.type === 'resize').map((m) => m.height);
  for (let i = 1; i < resizes.length; i++) assert.notEqual(resizes[i], resizes[i - 1], 'a resize says a new height');
  for (const x of resizes) assert.ok(Number.isInteger(x) && x > 0);
  assert.deepEqual(h.problems, []);
});

test('the frame draws every section at once: its first height is its whole height, nothing waits for the host to scroll (the blank-iframe report)', async () => {
  h.problems.length = 0;
  await h.page.goto(`${hostBase}/iframe?src=${encodeURIComponent(`${h.base}embed.html?preset=prob-toy`)}`);
  await next(0, (m) => m?.type === 'trace');
  await next(0, (m) => m?.type === 'resize');
  await frame().evaluate(() => document.querySelector('attention-playground').settled);
  const first = await heights();
  assert.equal(first.framed, first.content);
  // the sections that styles.css leaves unrendered until on screen; in this frame, on another
  // origin, "on screen" is the host's viewport (1,000 px): most of them are below it
  const SECTIONS = '.panel-results .maps > .flow-step, .panel-results > .dive, .panel-prob .prob-body > *';
  const sections = (which) => frame().evaluate(([sel, which]) => {
    const root = document.querySelectorAll('attention-playground')[which].shadowRoot;
    return [...root.querySelectorAll(sel)].map((s) => {
      const r = s.getBoundingClientRect();
      return { top: Math.round(r.top), cv: getComputedStyle(s).contentVisibility,
        drawn: !s.firstElementChild || s.firstElementChild.checkVisibility({ contentVisibilityAuto: true }) };
    });
  }, [SECTIONS, which]);
  const hostTop = await h.page.evaluate(() => document.getElementById('attention-playground').getBoundingClientRect().top);
  const before = await sections(0);
  assert.ok(before.length > 5, `${before.length} sections`);
  assert.ok(before.filter((s) => hostTop + s.top > 1000).length >= 3, 'sections below the host\'s viewport');
  for (const s of before) {
    assert.equal(s.cv, 'visible');
    assert.ok(s.drawn, `the section at ${s.top} px of the frame is rendered before the host scrolls`);
  }
  // scrolled through: nothing changes size, no further resize
  const count = (await h.page.evaluate(() => window.__msgs.filter((m) => m?.type === 'resize').length));
  const total = await h.page.evaluate(() => document.documentElement.scrollHeight);
  for (let y = 0; y < total; y += 700) {
    await h.page.evaluate((y) => window.scrollTo(0, y), y);
    await h.page.waitForTimeout(100);
  }
  const after = await heights();
  assert.equal(after.content, first.content, 'the content height did not change when scrolled through');
  assert.equal(await h.page.evaluate(() => window.__msgs.filter((m) => m?.type === 'resize').length), count);
  // the report, reproduced: an element without embed.html's sheet, in the same frame, leaves the
  // sections below the host's viewport unrendered (placeholders of 260 px) until scrolled to
  await h.page.evaluate(() => window.scrollTo(0, 0));
  await frame().evaluate(() => new Promise((resolve) => {
    const other = document.createElement('attention-playground');
    other.setAttribute('preset', 'prob-toy');
    other.addEventListener('trace', () => other.settled.then(resolve), { once: true });
    document.body.append(other);
  }));
  await h.page.waitForTimeout(300);
  const bare = await sections(1);
  assert.ok(bare.every((s) => s.cv === 'auto'));
  assert.ok(bare.filter((s) => !s.drawn).length >= 3, `unrendered without the sheet: ${bare.filter((s) => !s.drawn).length}`);
  assert.deepEqual(h.problems, []);
});
