// The site: dist/index.html and dist/attention-playground.js (the element, for embedding): the
// page loads exactly the module that embedders load. Built by `npx vite build` (scripts/build.sh).
import { defineConfig, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Development only: ATTNPLAY_CORE=/path/to/attnplay_core.mjs bundles another build of the core.
const core = process.env.ATTNPLAY_CORE;

/**
 * dist/attention-playground.html: the same page with its module and styles inlined, one file
 * that works from file:// with no network (SPEC §1). The WASM is already embedded in the module.
 */
function singleFile(): Plugin {
  return {
    name: 'attnplay-single-file',
    apply: 'build',
    enforce: 'post',
    transform(code, id) {
      if (id.endsWith('attnplay_core.mjs') && code.includes('new Function(')) {
        console.warn(`vite: warning: ${id} calls new Function (Embind linked without -sDYNAMIC_EXECUTION=0): ` +
          'the page will not load under the CSP of scripts/serve.mjs');
      }
      return null;
    },
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
      const code = js.code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
      let text = String(html.source)
        .replace(/<script\b[^>]*\bsrc="[^"]*attention-playground\.js"[^>]*><\/script>\s*/, '')
        .replace(/<link rel="stylesheet"[^>]*>\s*/g, '');
      text = text.replace('</head>', () => `<style>\n${css}\n</style>\n</head>`);
      text = text.replace('</body>', () => `<script type="module">\n${code}\n</script>\n</body>`);
      this.emitFile({ type: 'asset', fileName: 'attention-playground.html', source: text });
    },
  };
}

export default defineConfig({
  plugins: [singleFile()],
  root: here('./web'),
  base: './',
  publicDir: false,
  resolve: core ? { alias: [{ find: /^.*\/build\/wasm\/attnplay_core\.mjs$/, replacement: core }] } : {},
  build: {
    outDir: here('./dist'),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // One entry and no code splitting: the page's script *is* the embeddable element module,
      // dist/attention-playground.js, self-contained (the WASM is embedded in it).
      input: { index: here('./web/index.html') },
      output: {
        entryFileNames: 'attention-playground.js',
        codeSplitting: false,
      },
    },
  },
});
