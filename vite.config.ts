// The site: dist/index.html and dist/attention-playground.js (the element, for embedding): the
// page loads exactly the module that embedders load. Built by `npx vite build` (scripts/build.sh).
//
// First load (issue 8): the WASM core is its own file (dist/assets/attnplay_core-*.wasm, imported
// by web/src/engine/compute.ts with `?url`), fetched and compiled while it streams, after the page's first
// trace, which the small first-load module (dist/assets/attnplay_first-*.wasm) computes; the views that only
// some algorithms need are split into chunks loaded on demand. dist/attention-playground.html is
// built by a second, unsplit build (below) with the WASM inlined as base64: one file, no network.
import { build, defineConfig, type Plugin, type UserConfig } from 'vite';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Development only: ATTNPLAY_CORE=/path/to/attnplay_core.mjs bundles another build of the core
// (its attnplay_core.wasm beside it).
const core = process.env.ATTNPLAY_CORE;
const coreAlias = core
  ? [{ find: /^.*\/build\/wasm\/attnplay_core\.mjs$/, replacement: core },
    { find: /^.*\/build\/wasm\/attnplay_core\.wasm(\?url)?$/, replacement: core.replace(/\.mjs$/, '.wasm') + '$1' }]
  : [];

function warnDynamicExecution(): Plugin {
  return {
    name: 'attnplay-csp-check',
    apply: 'build',
    transform(code, id) {
      if (/attnplay_(core|first)\.mjs$/.test(id) && code.includes('new Function(')) {
        console.warn(`vite: warning: ${id} calls new Function (Embind linked without -sDYNAMIC_EXECUTION=0): ` +
          'the page will not load under the CSP of scripts/serve.mjs');
      }
      return null;
    },
  };
}

/** The node-only code of the Emscripten glue (`require("fs")`, `require("path")`) and of
 * wasm/attnplay.mjs (`await import('node:fs')`, ...) runs in node only: in the page it stays as
 * written (never run) rather than pulling in Vite's empty browser-external modules and the CommonJS
 * interop runtime (three files of the first load). In node, wasm/attnplay.mjs sets
 * globalThis.require before the glue runs. */
function nodeOnly(): Plugin {
  return {
    name: 'attnplay-node-only',
    apply: 'build',
    enforce: 'pre',
    resolveId(source) {
      return source.startsWith('node:') ? { id: source, external: true } : null;
    },
    transform(code, id) {
      if (!/attnplay_(core|first)\.mjs$/.test(id)) return null;
      return code.replace(/\brequire\("(fs|path)"\)/g, 'globalThis.require("$1")');
    },
  };
}

/** The Chinese labels of the state's and the algorithms' tables (`{ en: '...', zh: '...' }`, about
 * 140 of them, 2.7 KB gzip of the first load's state chunk) go to the Chinese strings' chunk
 * (web/src/i18n-zh.ts, loaded the first time the page shows Chinese): in those files each such
 * `zh` becomes a getter, `zhText(en)` (web/src/i18n.ts), which answers from that chunk's table, the
 * virtual module `virtual:attnplay-zh-texts` ({English: Chinese}, read from the same files). The
 * element awaits that chunk before it draws in Chinese, as it does for t(). */
const ZH_FILES = ['web/src/state', 'web/src/algorithms'];
const ZH_PAIR = /\ben:(\s*)('(?:[^'\\\n]|\\.)*')(\s*),(\s*)zh:\s*('(?:[^'\\\n]|\\.)*')/g;
function zhOutOfFirstLoad(): Plugin {
  const VIRTUAL = 'virtual:attnplay-zh-texts';
  const inFiles = (id: string) => ZH_FILES.some((d) => id.startsWith(here(`./${d}/`))) && id.endsWith('.ts');
  return {
    name: 'attnplay-zh-out-of-first-load',
    enforce: 'pre',
    resolveId: (source) => (source === VIRTUAL ? `\0${VIRTUAL}` : null),
    load(id) {
      if (id !== `\0${VIRTUAL}`) return null;
      const texts: Record<string, string> = {};
      for (const dir of ZH_FILES) {
        for (const f of readdirSync(here(`./${dir}`)).filter((x) => x.endsWith('.ts'))) {
          for (const m of readFileSync(here(`./${dir}/${f}`), 'utf8').matchAll(ZH_PAIR)) {
            const en = runInNewContext(m[2]), zh = runInNewContext(m[5]);
            // one Chinese per English (the table's key): two would answer alike
            if (en in texts && texts[en] !== zh) throw new Error(`${dir}/${f}: "${en}" has two Chinese labels ("${texts[en]}", "${zh}"): word one of them apart`);
            texts[en] = zh;
          }
        }
      }
      return `export default ${JSON.stringify(texts)};`;
    },
    transform(code, id) {
      if (!inFiles(id) || !code.includes('zh:')) return null;
      const out = code.replace(ZH_PAIR, (_all, s1: string, en: string, s2: string, s3: string) => `en:${s1}${en}${s2},${s3}get zh() { return zhText(${en}); }`);
      return { code: `import { zhText } from ${JSON.stringify(here('./web/src/i18n.ts'))};\n${out}`, map: null };
    },
  };
}

/** d3-scale-chromatic ships one bundle whose schemes are top-level `var x = call(...)` without a
 * pure mark, so no bundler may drop the unused ones: all of them (16 KB raw) came into the first
 * load for the three the maps use. Each such initialiser is marked pure (they build arrays and
 * closures, nothing else). */
function pureSchemes(): Plugin {
  return {
    name: 'attnplay-pure-d3-schemes',
    transform(code, id) {
      if (!/[\\/]d3-scale-chromatic[\\/]dist[\\/][^\\/]*\.mjs$/.test(id)) return null;
      return { code: code.replace(/^(var [\w$]+ = )(?=new |[\w$]+\()/gm, '$1/*#__PURE__*/ '), map: null };
    },
  };
}

// ---- Content-Security-Policy: every page carries its policy as a <meta> (any static host) ----

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The element's stylesheet (styles.css, `?inline`), for its hash: the element adopts it as a
 * constructable stylesheet (not subject to the CSP), and only where a browser has none (Safari <
 * 16.4, Firefox < 101) appends it as a <style> in its shadow root, which the hash allows. */
let elementCss: string | null = null;
function elementCssOf(): Plugin {
  return {
    name: 'attnplay-element-css',
    apply: 'build',
    enforce: 'post',
    transform(code, id) {
      if (!/\/styles\.css\?inline$/.test(id)) return null;
      const m = /^export default ("(?:[^"\\]|\\.)*")\s*;?\s*$/s.exec(code);
      if (!m) this.error(`CSP: cannot read the element's stylesheet from ${id}`);
      elementCss = JSON.parse(m![1]);
      return null;
    },
  };
}

/** The page's CSP <meta> with the hashes of its inline <script>s and <style>s (and of the
 * element's stylesheet) added to script-src and style-src: inline code runs only if it is the
 * code built here ('unsafe-inline' nowhere). */
function withCspHashes(html: string, page: string): string {
  const meta = /(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(">)/;
  if (!meta.test(html)) throw new Error(`${page}: no Content-Security-Policy <meta>`);
  if (elementCss === null) throw new Error(`${page}: the element's stylesheet was not seen`);
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter((m) => !/\bsrc=/.test(m[1])).map((m) => sha256(m[2]));
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)].map((m) => sha256(m[1]));
  const add = (policy: string, directive: string, hashes: string[]) => policy.replace(
    new RegExp(`(^|;\\s*)(${directive}[^;]*)`), (_all, pre: string, rule: string) => [pre + rule, ...new Set(hashes)].join(' '));
  return html.replace(meta, (_all, open: string, policy: string, close: string) => {
    if (/'unsafe-inline'/.test(policy)) throw new Error(`${page}: 'unsafe-inline' in its CSP`);
    return open + add(add(policy, 'script-src', scripts), 'style-src', [...styles, sha256(elementCss!)]) + close;
  });
}

/** The single file's policy (before the hashes): it loads nothing, from anywhere. Its one script and
 * its one <style> are inline (allowed by their hashes), the WASM is inlined as base64 and compiled
 * from bytes ('wasm-unsafe-eval'), the favicon is data:; no worker starts from file:// (the sweep and
 * the training run on the page, in slices). */
const SINGLE_FILE_CSP = "default-src 'none'; script-src 'wasm-unsafe-eval'; style-src; img-src data:; object-src 'none'; base-uri 'none'; form-action 'none'";

/** index.html and embed.html: their CSP <meta> (from web/) gets the hashes, once written (Vite
 * puts the inline <style> of embed.html, minified, in its place only as the bundle is written). */
function cspHashes(): Plugin {
  return {
    name: 'attnplay-csp-hashes',
    apply: 'build',
    enforce: 'post',
    writeBundle(options, bundle) {
      for (const name of ['index.html', 'embed.html']) {
        if (!bundle[name]) continue;
        const file = `${options.dir}/${name}`;
        writeFileSync(file, withCspHashes(readFileSync(file, 'utf8'), name));
      }
    },
  };
}

/** dist/embed.html loads dist/attention-playground.js through a <script vite-ignore>: it takes
 * index.html's modulepreload links for that module's chunks (fetched at once, not one by one). */
function embedPreloads(): Plugin {
  return {
    name: 'attnplay-embed-preloads',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const index = bundle['index.html'];
      const embed = bundle['embed.html'];
      if (!index || index.type !== 'asset' || !embed || embed.type !== 'asset') return;
      const links = String(index.source).match(/<link rel="modulepreload"[^>]*>/g) ?? [];
      embed.source = String(embed.source).replace('</head>', () => links.map((l) => `  ${l}\n`).join('') + '</head>');
    },
  };
}

/** The element as a package (issue 15): a host's bundler (a Vite or webpack app that installs the
 * tarball) bundles dist/attention-playground.js again, renaming its chunks: the chunks that Vite's
 * preload helper fetches ahead of a lazy import (`__vite__mapDeps`, named as built here) would 404
 * there. The helper preloads only where its chunk is the file built here (its `import.meta.url`
 * ends with its name: one check, in the one chunk that holds the helper); elsewhere a lazy chunk
 * loads its own imports itself. */
function preloadWhereBuilt(): Plugin {
  // function (base, deps, importerUrl) { let promise = Promise.resolve(); if (deps && deps.length > 0) {
  const helper = /(function\s*\w*\(\w+,\s*(\w+),\s*\w+\)\s*\{\s*let \w+\s*=\s*Promise\.resolve\(\);?\s*if\s*\(\2\s*&&\s*\2\.length\s*>\s*0)(\)\s*\{)/;
  return {
    name: 'attnplay-preload-where-built',
    apply: 'build',
    enforce: 'post',
    writeBundle(options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      if (!chunks.some((c) => c.code.includes('__vite__mapDeps('))) return;
      const holders = chunks.filter((c) => helper.test(c.code));
      if (holders.length !== 1) throw new Error(`vite.config.ts preloadWhereBuilt: Vite's preload helper is in ${holders.length} chunks (expected 1: has its form changed?)`);
      const file = `${options.dir}/${holders[0].fileName}`;
      const here = `import.meta.url.endsWith(${JSON.stringify('/' + holders[0].fileName)})`;
      writeFileSync(file, readFileSync(file, 'utf8').replace(helper, (_all, head: string, _deps: string, tail: string) => `${head}&&${here}${tail}`));
    },
  };
}

/** The single-file build: `import url from '.../attnplay_core.wasm?url'` becomes a data: URL
 * (engine/compute.ts decodes it into wasmBinary; nothing is fetched). */
function inlineWasm(): Plugin {
  const PREFIX = '\0attnplay-inline-wasm:';
  return {
    name: 'attnplay-inline-wasm',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (!source.endsWith('.wasm?url')) return null;
      const resolved = await this.resolve(source.slice(0, -'?url'.length), importer, { skipSelf: true });
      return resolved ? PREFIX + resolved.id : null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const bytes = readFileSync(id.slice(PREFIX.length));
      return `export default ${JSON.stringify('data:application/wasm;base64,' + bytes.toString('base64'))};`;
    },
  };
}

/** The single-file build's page: index.html with its module (every chunk inlined) and styles. */
function singleFileHtml(onHtml: (text: string) => void): Plugin {
  return {
    name: 'attnplay-single-file',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const html = bundle['index.html'];
      const js = bundle['attention-playground.js'];
      if (!html || html.type !== 'asset' || !js || js.type !== 'chunk') {
        this.error('single-file page: index.html or attention-playground.js is missing from the bundle');
      }
      const css = Object.values(bundle)
        .filter((f) => f.type === 'asset' && f.fileName.endsWith('.css'))
        .map((f) => String((f as { source: string | Uint8Array }).source)).join('\n');
      // Inside an inline <script>, "</script" would end it and "<!--" changes how it is parsed.
      // Unsplit, Vite leaves its preload marker in the inlined dynamic imports: nothing to preload.
      const code = js.code.replace(/__VITE_PRELOAD__/g, 'void 0')
        .replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
      let text = String(html.source)
        .replace(/<script\b[^>]*\bsrc="[^"]*attention-playground\.js"[^>]*><\/script>\s*/, '')
        .replace(/<link rel="(stylesheet|modulepreload)"[^>]*>\s*/g, '');
      text = text.replace('</head>', () => `<style>\n${css}\n</style>\n</head>`);
      text = text.replace('</body>', () => `<script type="module">\n${code}\n</script>\n</body>`);
      text = text.replace(/(<meta http-equiv="Content-Security-Policy" content=")[^"]*/, (_all, open: string) => open + SINGLE_FILE_CSP);
      onHtml(withCspHashes(text, 'attention-playground.html'));
    },
  };
}

const common = (firstModule = true): UserConfig => ({
  root: here('./web'),
  // web/src/engine/compute.ts: the split site loads the small first-load module for its first trace; the
  // single file has everything inlined already and leaves it out.
  define: { __ATTNPLAY_FIRST_MODULE__: JSON.stringify(firstModule) },
  base: './',
  publicDir: false,
  resolve: { alias: coreAlias },
  // The Performer sweep's Web Worker (web/src/worker/worker.ts): an ES module file of its own in
  // dist/assets, same-origin as the CSP of scripts/serve.mjs requires (no blob: or inline worker).
  worker: {
    format: 'es',
    rolldownOptions: { output: { entryFileNames: 'assets/[name]-[hash].js', codeSplitting: false } },
  },
});

/** After the main build: dist/attention-playground.html from a build without code splitting. */
function singleFilePage(): Plugin {
  return {
    name: 'attnplay-single-file-page',
    apply: 'build',
    async closeBundle() {
      let page = '';
      await build({
        ...common(false),
        configFile: false,
        logLevel: 'error',
        plugins: [nodeOnly(), zhOutOfFirstLoad(), pureSchemes(), elementCssOf(), inlineWasm(), singleFileHtml((text) => { page = text; })],
        build: {
          write: false,
          target: 'es2022',
          modulePreload: { polyfill: false },
          chunkSizeWarningLimit: 4096,
          rolldownOptions: {
            input: { index: here('./web/index.html') },
            output: { entryFileNames: 'attention-playground.js', codeSplitting: false },
          },
        },
      });
      if (!page) throw new Error('single-file page: not built');
      writeFileSync(here('./dist/attention-playground.html'), page);
    },
  };
}

export default defineConfig({
  ...common(),
  plugins: [nodeOnly(), zhOutOfFirstLoad(), pureSchemes(), elementCssOf(), warnDynamicExecution(), embedPreloads(), cspHashes(), singleFilePage(),
    preloadWhereBuilt()],
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // dist/attention-playground.js (the page's script *is* the embeddable element module); what
      // only some algorithms need is split into dist/assets/*.js, loaded on demand. dist/embed.html
      // (the iframe API) loads that same file (a <script vite-ignore>: not bundled again) and its
      // own small script, dist/assets/embed-*.js, which imports nothing of the app.
      input: { index: here('./web/index.html'), embed: here('./web/embed.html') },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'embed' ? 'assets/embed-[hash].js' : 'attention-playground.js'),
        chunkFileNames: 'assets/[name]-[hash].js',
        // the state and the algorithms' modules are one chunk: both are in the first load and
        // shared with the lazy chunks (one file fewer to fetch, no import lists between them);
        // what only lazily loaded chunks import stays with them: state/prob-clicks.ts (the
        // ProbAttention panel's), state/history.ts (undo.ts's), state/chapter.ts (the chapter views')
        advancedChunks: { groups: [{ name: 'state',
          test: (id: string) => /[\\/]web[\\/]src[\\/](state|algorithms)[\\/]/.test(id) && !/[\\/](prob-clicks|history|chapter)\.ts$/.test(id) }] },
      },
    },
  },
});
