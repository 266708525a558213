// build/wasm/catalog.json: the menus of the page's first load (web/src/engine/compute.ts). The page
// computes its first trace with the small first-load module (build/wasm/attnplay_first.*: `full`
// only, no presets) and takes its menus from this file, written from the same build of the core:
// every algorithm's registry entry but its description (name, titles, tensors, masks, defaults,
// inner), every preset's name and titles, and the whole preset (description, scenario) the page
// opens on. The rest (descriptions, scenarios) comes with the whole module, which the page loads
// after its first trace (presets.json, below): 2.9 KB gzip instead of 15. Run by
// scripts/build.sh after the WASM build; rewrites the file only when its content changes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, load } from '../wasm/attnplay.mjs';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'build', 'wasm');
const whole = await load();
const { default: createFirst } = await import(new URL('attnplay_first.mjs', `file://${dir}/`).href);
const first = api(await createFirst({ wasmBinary: fs.readFileSync(path.join(dir, 'attnplay_first.wasm')) }));
const runs = new Set(first.algorithms().map((a) => a.name));
const titles = ({ name, title, title_zh }) => ({ name, title, title_zh });
// what the page's menus, grids and mask lists need of each algorithm (no description)
const known = ({ description, ...entry }) => entry;
// Whole: the preset the page opens on (the registry's first, index.html's `preset`), which the
// first-load module runs. Every other preset's scenario comes with the whole module: a link to one
// shows its first trace from there (each whole preset here costs every first load its bytes,
// 2.9 KB gzip for the 20 full presets, for the links to it alone).
const all = whole.presets();
first.estimate(all[0].scenario);  // throws if the first-load module cannot run the opening preset
const presets = all.map((p, i) => (i === 0 ? p : titles(p)));
// the Chinese titles go to catalog-zh.json, which the Chinese strings' chunk (web/src/i18n-zh.ts)
// brings: an English first load does not carry them (1.5 KB gzip)
const zhTitles = (list) => Object.fromEntries(list.map((x) => [x.name, x.title_zh]));
const noZh = ({ title_zh, ...entry }) => entry;
const write = (name, value) => {
  const text = JSON.stringify(value) + '\n';
  const out = path.join(dir, name);
  if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== text) fs.writeFileSync(out, text);
};
const algorithms = whole.algorithms().map(known);
write('catalog.json', { algorithms: algorithms.map(noZh), presets: presets.map(noZh) });
write('catalog-zh.json', { algorithms: zhTitles(algorithms), presets: zhTitles(whole.presets()) });
// presets.json: every preset whole, as the core's presets() gives them: the page reads this file,
// fetched with the whole module, where the first presets() call took 67-91 ms of its main thread
write('presets.json', all);
