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
  const files = [];
  let shown = false;
  const pending = [];
  page.on('response', (r) => {
    if (!r.url().startsWith(base) || shown) return;
    pending.push(r.body().then((body) => {
      files.push({ file: '/' + r.url().slice(base.length), bytes: body.length, gzip: zlib.gzipSync(body, { level: 9 }).length });
    }, () => {}));
  });
  let ms;
  try {
    const t0 = Date.now();
    await page.goto(base);
    await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null, null, { polling: 'raf' });
    ms = Date.now() - t0;
    shown = true;
    await Promise.all(pending);
  } finally {
    await close();
  }
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
