// How node loads the WASM module (wasm/attnplay.mjs's load() in node): a file of its own, so that
// the page's bundle leaves it out (imported only where `process` is node's).

// Emscripten 3.1.6's ES6 output still reads `__dirname` and `require` in node (fixed upstream
// later); give it both, only in node. Its loader cannot fetch the .wasm under Node 20 ("Failed to
// parse URL"), so node reads build/wasm/attnplay_core.wasm itself and hands it over as wasmBinary
// (a build linked with -sSINGLE_FILE=1 has no .wasm beside it: its embedded copy is used).
// ATTNPLAY_WASM_DIR=dir (node only) loads dir/attnplay_core.{mjs,wasm} instead: another build of
// the core, for the tests and benchmarks.
export async function nodeOptions(defaultFactory) {
  const { createRequire } = await import('node:module');
  const { fileURLToPath, pathToFileURL } = await import('node:url');
  const fs = await import('node:fs');
  const path = await import('node:path');
  globalThis.require ??= createRequire(import.meta.url);
  globalThis.__dirname ??= fileURLToPath(new URL('.', import.meta.url));
  const dir = process.env.ATTNPLAY_WASM_DIR;
  const base = dir ? pathToFileURL(path.resolve(dir) + path.sep) : new URL('../build/wasm/', import.meta.url);
  const factory = dir ? (await import(/* @vite-ignore */ new URL('attnplay_core.mjs', base).href)).default : await defaultFactory();
  const file = fileURLToPath(new URL('attnplay_core.wasm', base));
  return { factory, args: fs.existsSync(file) ? { wasmBinary: fs.readFileSync(file) } : {} };
}
