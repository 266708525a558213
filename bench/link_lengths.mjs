// The length of index.html's URL hash for each preset with one cell changed (the first number of q
// + 0.5; where there is no q, seed + 1), and for a full 16 x 16 scenario: the old `#scenario=<JSON,
// URI-encoded>` against `#z=<base64url of deflate-raw(JSON)>` (docs/page.md, "Links"). Deflate is
// node's zlib at its default level, as Chromium's CompressionStream (within a few characters).
import zlib from 'node:zlib';
import { load } from '../wasm/attnplay.mjs';

const { presets } = await load();
const z = (json) => '#z=' + zlib.deflateRawSync(Buffer.from(json)).toString('base64url');
const old = (json) => '#scenario=' + encodeURIComponent(json);
const bump = (a) => (Array.isArray(a) ? (typeof a[0] === 'number' ? ((a[0] += 0.5), true) : bump(a[0])) : false);

const rows = presets().map((p) => {
  const s = structuredClone(p.scenario);
  if (!bump(s.q)) s.seed = (s.seed ?? 0) + 1;
  return [p.name, JSON.stringify(s)];
});
let a = 7;
const next = (round) => {
  a = (Math.imul(a, 1664525) + 1013904223) >>> 0;
  const x = (a / 4294967296) * 2 - 1;
  return round ? Math.round(x * 1000) / 1000 : x;
};
for (const round of [true, false]) {
  const T = () => [Array.from({ length: 16 }, () => [Array.from({ length: 16 }, () => next(round))])];
  rows.push([`full 16x16 (${round ? '3 decimals' : 'float64'})`, JSON.stringify({ algorithm: 'full', q: T(), k: T(), v: T() })]);
}
console.log(`${'scenario'.padEnd(34)} ${'JSON'.padStart(6)} ${'#scenario='.padStart(10)} ${'#z='.padStart(6)}`);
for (const [name, json] of rows) {
  console.log(`${name.padEnd(34)} ${String(json.length).padStart(6)} ${String(old(json).length).padStart(10)} ${String(z(json).length).padStart(6)}`);
}
