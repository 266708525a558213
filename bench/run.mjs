// Runs every benchmark in bench/ (each bench/*.mjs but this file), one node process each, in
// name order. `npm run bench` builds first and then calls this. Results are printed and written
// to bench/results/ (git-ignored). No timing is asserted anywhere: a benchmark fails only if it
// cannot run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);  // optional names: node bench/run.mjs prob_scaling
const files = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'lib.mjs')
  .filter((f) => only.length === 0 || only.includes(f.replace(/\.mjs$/, '')))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n== bench/${file}`);
  const r = spawnSync(process.execPath, [path.join(here, file)], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`bench/${file} failed (exit ${r.status ?? r.signal})`);
    failed++;
  }
}
if (files.length === 0) console.log('no benchmarks found');
process.exitCode = failed ? 1 : 0;
