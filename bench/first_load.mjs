// The first load of dist/index.html in headless Chromium: every file fetched until the element
// shows its first trace, each counted as its gzip size (gzip -9 of the bytes served; the server
// of scripts/serve.mjs sends them uncompressed, as a static host with gzip would not). Also the
// time to the first trace (on this machine, from localhost: no network in it). Prints the table
// and writes bench/results/first_load.json. Never asserts a size or a time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/web/harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const GOAL_KB = 150;

async function main() {
  const { page, base, close } = await launch();  // dist/ served with its CSP, headless Chromium
  // Which files count is decided in the page's own clock: those requested before the element's
  // first `trace` event (dispatched once its results show the trace), from Resource Timing. The
  // bytes are the responses' bodies, gzipped here. (Deciding in node, when waitForFunction
  // returns, let requests made just after the trace slip in: the protocol's messages race.)
  await page.addInitScript(() => document.addEventListener('trace', () => { window.__firstTrace ??= performance.now(); }));
  const bodies = new Map();
  const pending = [];
  page.on('response', (r) => {
    if (!r.url().startsWith(base)) return;
    pending.push(r.body().then((body) => { bodies.set(r.url(), body); }, () => {}));
  });
  let ms, urls;
  try {
    await page.goto(base);
    await page.waitForFunction(() => window.__firstTrace !== undefined, null, { polling: 'raf' });
    ({ ms, urls } = await page.evaluate(() => ({
      ms: Math.round(window.__firstTrace),  // from the navigation's start
      urls: [performance.getEntriesByType('navigation')[0].name,
        ...performance.getEntriesByType('resource').filter((e) => e.startTime <= window.__firstTrace).map((e) => e.name)],
    })));
    await page.waitForLoadState('networkidle');
    await Promise.all(pending);
  } finally {
    await close();
  }
  const files = urls.filter((u) => u.startsWith(base)).map((u) => {
    const body = bodies.get(u) ?? bodies.get(u.replace(/#.*$/, ''));
    if (!body) throw new Error(`first load: no response body for ${u}`);
    return { file: '/' + u.slice(base.length).replace(/#.*$/, ''), bytes: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length };
  });
  files.sort((a, b) => b.gzip - a.gzip);
  const total = files.reduce((a, f) => a + f.gzip, 0);
  const raw = files.reduce((a, f) => a + f.bytes, 0);
  for (const f of files) console.log(`${f.file.padEnd(48)} ${String(f.bytes).padStart(9)} B ${String(f.gzip).padStart(9)} B gzip`);
  console.log(`first load of index.html until the first trace: ${(total / 1024).toFixed(1)} KB gzip ` +
    `(${total} B; ${(raw / 1024).toFixed(1)} KB raw) in ${files.length} files, ${ms} ms; goal <= ${GOAL_KB} KB`);
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'first_load.json'), JSON.stringify({
    what: 'gzip -9 bytes of every file fetched by dist/index.html before the first trace is shown, headless Chromium',
    date: new Date().toISOString(), load: os.loadavg(), gzip_bytes: total, gzip_kb: Math.round(total / 102.4) / 10,
    raw_bytes: raw, ms_to_first_trace: ms, goal_kb: GOAL_KB, files }, null, 2) + '\n');
}

await main();
