// Writes the committed seed corpus of the libFuzzer targets (tests/fuzz/corpus/, issue 18):
//   parser/      JSON text: every preset, every case of the bad-input corpus, every fixture's scenario
//   algorithms/  FuzzedDataProvider bytes: one per preset the target starts from (its first bytes
//                choose it) with no edit, and a few with edits
// The fuzzers add what they find to build/fuzz/corpus-<target>/ (not committed); a crash's input
// goes into the corpus here by hand, beside its regression test.
//
//   node tests/fuzz/make-seeds.mjs     (needs build/native/attnplay)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const out = (dir) => {
  const d = path.join(here, 'corpus', dir);
  fs.mkdirSync(d, { recursive: true });
  for (const f of fs.readdirSync(d)) if (f.startsWith('seed-')) fs.rmSync(path.join(d, f));
  return d;
};
// content-named files, as libFuzzer names its own
const write = (dir, text) => fs.writeFileSync(path.join(dir, 'seed-' + createHash('sha1').update(text).digest('hex').slice(0, 16)), text);

const parser = out('parser');
const presets = JSON.parse(execFileSync(path.join(root, 'build/native/attnplay'), ['presets', '--json'], { maxBuffer: 1 << 28 }));
const MAX = 16 << 10;  // libFuzzer's inputs stay small: the larger presets add nothing the small ones lack
for (const p of presets) {
  const text = JSON.stringify(p.scenario);
  if (text.length <= MAX) write(parser, text);
}
const corpus = JSON.parse(fs.readFileSync(path.join(root, 'tests/bad-inputs/corpus.json'), 'utf8'));
for (const c of [...corpus.bad, ...corpus.valid]) {
  const text = c.text ?? JSON.stringify(c.scenario);
  if (text.length <= MAX) write(parser, text);
}
for (const alg of fs.readdirSync(path.join(root, 'tests/fixtures'))) {
  const dir = path.join(root, 'tests/fixtures', alg);
  if (!fs.statSync(dir).isDirectory() || alg === 'reference') continue;
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const text = JSON.stringify(JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).scenario);
    if (text.length <= MAX) write(parser, text);
  }
}

// algorithms: ConsumeIntegralInRange reads its bytes from the END of the input, so a seed's last
// bytes choose the base preset; 256 seeds walk the bases, each with a few bytes of edits before.
const algorithms = out('algorithms');
for (let i = 0; i < 256; i++) {
  const edits = Buffer.from(createHash('sha256').update(String(i)).digest()).subarray(0, i % 4 === 0 ? 0 : 24);
  write(algorithms, Buffer.concat([edits, Buffer.from([i, 0, 0, 0, 0, 0, 0, 0].reverse())]));
}
console.log(`tests/fuzz/corpus: ${fs.readdirSync(parser).length} parser seeds, ${fs.readdirSync(algorithms).length} algorithm seeds`);
