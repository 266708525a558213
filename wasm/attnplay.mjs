// The WASM module for JS, and a CLI that mirrors build/native/attnplay.
//
//   import { load } from './wasm/attnplay.mjs';
//   const { run, presets } = await load();
//   run(scenario)                 // trace with nested arrays, as the native CLI prints it
//   run(scenario, {typed: true})  // float tensors as {shape, data: Float64Array}
//   run(scenario, {onProgress(fraction, what, detail) { return true; }})  // training's progress;
//                                 // returning false stops it: an Error with cancelled: true
//
//   estimate(scenario)            // {cost, numbers, sizes, exact}: nothing run, shapes suffice
//
//   node wasm/attnplay.mjs run FILE|-  |  run --preset NAME  |  presets [--json]  |  algorithms [--json]
//
// Any tensor of the scenario may be {shape: [...], data: Float64Array | Float32Array}: it is
// handed to wasm as a typed array, never through JSON. Errors are thrown as Error with the
// message naming the field and `field` = that field's path ("q[0][2][0]", "mask.window"; "" when
// the scenario as a whole is at fault); the module stays usable.
import { isTypedTensor, toNested } from './nested.mjs';

// The module's emscripten glue is imported when load() is first called: a page that starts with
// the first-load module (web/src/engine/compute.ts) fetches it only after its first trace.
const defaultFactory = () => import('../build/wasm/attnplay_core.mjs').then((m) => m.default);

let corePromise = null;

/** An Error whose `field` names the offending field (SPEC §1). */
function inputError(field, message) {
  return Object.assign(new Error(message), { field });
}

/** Whether `value` holds a typed tensor anywhere (an array's numbers are only looked at). */
function holdsTyped(value) {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    // an index loop: for-of allocated 60 KB an edit here (d2l-multihead's nested inputs)
    for (let i = 0; i < value.length; i++) { const x = value[i]; if (x !== null && typeof x === 'object' && holdsTyped(x)) return true; }
    return false;
  }
  if (isTypedTensor(value) || ArrayBuffer.isView(value)) return true;
  for (const k in value) if (holdsTyped(value[k])) return true;
  return false;
}

/** `trace[name]` as nested arrays, made when first read (then an ordinary property): a trace's
 * tensors that nothing reads are never nested (d2l-multihead's four 100 x 100 projections, read
 * by no map, 40,000 numbers at each edit of the page). Enumerable, so JSON, structuredClone and
 * Object.entries see it as any other field. */
function nestedOnRead(trace, name, data, shape) {
  const settle = (value) => Object.defineProperty(trace, name, { value, writable: true, enumerable: true, configurable: true })[name];
  Object.defineProperty(trace, name, { enumerable: true, configurable: true, get: () => settle(toNested(data, shape)), set: settle });
}

/** Whether two float64 arrays hold the same numbers, -0 and 0 told apart (a NaN never equals: copied). */
function sameNumbers(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i], y = b[i];
    if (x !== y || (x === 0 && 1 / x !== 1 / y)) return false;
  }
  return true;
}

function makeRun(core) {
  // The previous run's copy of each tensor field, by name, while a trace still holds it: a field
  // whose numbers did not change (an edit of x leaves the seeded projections, and an edit of q
  // leaves k and v, as they were) keeps that copy. Allocating the typed arrays is what costs (in
  // Chromium, d2l-multihead's four 100 x 100 projections took 1.2 ms of a 5.5 ms edit); comparing
  // is cheap. Traces are read-only, so two traces may share a tensor. Weak: nothing kept alive.
  const copies = new Map();
  const copyOut = (name, view) => {
    const previous = copies.get(name)?.deref();
    if (previous && sameNumbers(previous, view)) return previous;
    const data = new Float64Array(view);
    copies.set(name, new WeakRef(data));
    return data;
  };
  return function run(scenario, options = {}) {
    // JSON text goes to the core as it is: parsed there, with the native CLI's errors. Anything
    // else is serialised; the core checks it is an object ("scenario: expected an object, got ...").
    const buffers = [];
    let text;
    try {
      // a replacer takes JSON.stringify off its fast path (2x slower at L = 64): only where needed
      text = typeof scenario === 'string' ? scenario : !holdsTyped(scenario) ? JSON.stringify(scenario) : JSON.stringify(scenario, (key, value) => {
        if (isTypedTensor(value)) {
          buffers.push(value.data);
          return { shape: value.shape, $buffer: buffers.length - 1 };
        }
        return value;
      });
    } catch (e) {  // a cycle, a BigInt
      throw inputError('', `scenario: cannot be written as JSON (${e.message.replace(/\s+/g, " ")})`);
    }
    if (text === undefined) throw inputError('', `scenario: expected an object, got ${typeof scenario}`);
    let callbackError = null;
    const onProgress = options.onProgress;
    // no JS exception may unwind through wasm: the callback's is caught, stops the run, rethrown
    const progress = (fraction, what, detail) => {
      try {
        return onProgress(fraction, what, JSON.parse(detail)) !== false;
      } catch (e) {
        callbackError = e;
        return false;
      }
    };
    // each typed array is written once, straight into a buffer the core owns and adopts as the
    // tensor (no second copy inside wasm memory); the view is used at once, before any other
    // allocation can move memory
    // (a core built before inputBuffer existed takes the typed arrays as an argument and copies them)
    const inPlace = typeof core.inputBuffer === 'function';
    for (let i = 0; inPlace && i < buffers.length; i++) {
      const view = core.inputBuffer(i, buffers[i].length);
      if (view) view.set(buffers[i]);
    }
    const args = inPlace ? [text] : [text, buffers];
    const reply = JSON.parse(typeof onProgress === 'function' && core.runWithProgress
      ? core.runWithProgress(...args, progress) : core.run(...args));
    if (reply.error !== undefined) {
      core.releaseOutputs();
      if (callbackError) throw callbackError;
      throw Object.assign(inputError(reply.field, reply.error), reply.cancelled ? { cancelled: true } : {});
    }
    const trace = reply.trace;
    try {
      for (const [name, value] of Object.entries(trace)) {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
        if (value.$buffer !== undefined) {
          // the trace's own tensor in wasm memory (moved, not copied, there): copied out once
          const data = copyOut(name, core.outputBuffer(value.$buffer));
          if (options.typed) trace[name] = { shape: value.shape, data };
          else nestedOnRead(trace, name, data, value.shape);
          continue;
        }
        // a group's tensors (mla's state_dict, bahdanau's gradients): nested arrays when read, typed
        // or not (the page reads them as nested arrays, a worker's structured clone too)
        for (const [key, entry] of Object.entries(value)) {
          if (entry === null || typeof entry !== 'object' || entry.$buffer === undefined) continue;
          nestedOnRead(value, key, copyOut(`${name}/${key}`, core.outputBuffer(entry.$buffer)), entry.shape);
        }
      }
    } finally {
      core.releaseOutputs();
    }
    return trace;
  };
}

const isNode = typeof process === 'object' && typeof process.versions === 'object' &&
  typeof process.versions.node === 'string';

/**
 * Loads the core once. In a browser the .wasm is fetched and compiled while it streams
 * (WebAssembly.instantiateStreaming); `options.wasmUrl` says where it is (a bundler's asset URL),
 * else it is looked for beside attnplay_core.mjs; `options.wasmBinary` (bytes) skips the fetch.
 */
export async function load(options = {}) {
  if (!corePromise) {
    // node's way to the module is a file of its own (wasm/node.mjs): no page bundles or fetches it
    const base = isNode ? import('./node.mjs').then((m) => m.nodeOptions(defaultFactory))
      : defaultFactory().then((factory) => ({ factory, args: {} }));
    corePromise = base.then(({ factory, args: baseArgs }) => {
      const args = { ...baseArgs };
      if (options.wasmBinary) args.wasmBinary = options.wasmBinary;
      else if (options.wasmUrl) args.locateFile = (file, dir) => (file.endsWith('.wasm') ? options.wasmUrl : dir + file);
      return factory(args);
    });
  }
  return api(await corePromise);
}

/** The API over an instantiated module: load()'s, and the page's first-load module's
 * (build/wasm/attnplay_first.mjs, instantiated by web/src/engine/compute.ts). */
export function api(core) {
  return {
    run: makeRun(core),
    // {cost, numbers, sizes, exact} without running: typed tensors go as their shape alone
    estimate: (scenario) => {
      const text = JSON.stringify(scenario, (key, value) => (isTypedTensor(value) ? { shape: value.shape } : value));
      const reply = JSON.parse(core.estimate(text));
      if (reply.error !== undefined) throw inputError(reply.field, reply.error);
      return reply.estimate;
    },
    // a seeded draw's numbers (SPEC §2), as the core's readers draw them: {shape, data: Float64Array};
    // `field` names it in errors ("q" -> "q.random: expected one of ...")
    // `rows` [start, end): those rows of axis 1 only (a split run's query rows), the same numbers
    draw: (spec, field = 'draw', rows) => {
      const text = JSON.stringify(spec);
      const reply = JSON.parse(rows ? core.drawRows(text, field, rows[0], rows[1]) : core.draw(text, field));
      if (reply.error !== undefined) throw inputError(reply.field, reply.error);
      const data = core.outputBuffer(0).slice();
      core.releaseOutputs();
      return { shape: reply.shape, data };
    },
    presets: () => JSON.parse(core.presets()),
    algorithms: () => JSON.parse(core.algorithms()), // the registry: [{name, title, ..., tensors, masks, defaults, inner?}]
    memoryBytes: () => core.HEAP8.buffer.byteLength, // wasm heap size, for leak checks
  };
}

if (typeof process !== 'undefined' && process.argv && process.argv[1]) {
  const { pathToFileURL } = await import('node:url');
  const { realpathSync } = await import('node:fs');
  let invoked = '';
  try { invoked = pathToFileURL(realpathSync(process.argv[1])).href; } catch { /* not a file */ }
  // the CLI is a file of its own (wasm/cli.mjs): no page bundles or fetches it
  if (invoked === import.meta.url) await (await import('./cli.mjs')).main(process.argv.slice(2), load);
}
