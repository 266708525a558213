// The page's runs with q, k and v handed to the core as typed arrays (issue 8): the WASM boundary
// takes any tensor as {shape, data: Float64Array} out of band, so the numbers skip JSON.stringify
// and the core's JSON parser (about 8 ms of a toy preset's 10 ms run went there). The numbers are
// the same doubles either way (JSON prints a double so that it parses back to itself). A tensor
// that is not a rectangle of finite numbers goes as it is, and a run that fails is run again as
// written, so every error is about the field as the scenario wrote it. No DOM.
import { fromNested, isTypedTensor, nested, type Engine, type Outcome, type RunProgress, type Scenario, type TypedTensor } from './compute';

/** The tensors sent typed: q, k, v, and multi-head's and MLA's inputs (d2l-multihead's run 1.56 →
 * 0.59 ms in node: its 3,200 numbers parsed as JSON at every edit, issue 14). */
const TYPED_KEYS = ['q', 'k', 'v', 'queries', 'keys', 'values', 'x'] as const;

/** Typed copies, by the nested array they copy (a scenario's arrays are replaced, never changed in
 * place, by an edit; the runs beside one trace share them). */
const cache = new WeakMap<object, TypedTensor | null>();

/** A nested array of finite numbers with every row of a level the same length, as a typed tensor;
 * null for anything else (kept per array: an edit replaces arrays, never changes one). */
export function typedTensor(value: unknown): TypedTensor | null {
  if (!Array.isArray(value)) return null;
  if (!cache.has(value)) cache.set(value, fromNested(value));
  return cache.get(value)!;
}

/** The scenario with its q, k, v typed where they can be (the scenario itself is not changed). */
export function withTypedInputs(s: Scenario): Scenario {
  let out: Scenario | null = null;
  for (const key of TYPED_KEYS) {
    const typed = typedTensor(s[key]);
    if (!typed) continue;
    out ??= { ...s };
    out[key] = typed;
  }
  return out ?? s;
}

/** engine.run (runWithProgress with `onProgress`) with q, k, v typed, whether `s` has them as
 * nested arrays (the page) or typed already (the worker, sent the typed copy). A run that fails is
 * run again as written: the error then names the field as the scenario wrote it (a tensor of the
 * wrong rank, typed, is refused at "q.shape"); a typed run fails only where that one fails too
 * (tests/node/typed-runs.test.mjs). The one place that does so. */
export function runTyped(engine: Engine, s: Scenario, onProgress?: RunProgress): Outcome {
  const run = (x: Scenario) => (onProgress ? engine.runWithProgress(x, onProgress) : engine.run(x));
  const typed = withTypedInputs(s);
  const plain = untyped(s);
  if (typed === plain) return run(s);
  const out = run(typed);
  return out.ok ? out : run(plain);
}

/** withTypedInputs undone: q, k, v as nested arrays again. */
function untyped(s: Scenario): Scenario {
  let out: Scenario | null = null;
  for (const key of TYPED_KEYS) {
    if (!isTypedTensor(s[key])) continue;
    out ??= { ...s };
    out[key] = nested(s[key]);
  }
  return out ?? s;
}

/** Work the page finishes after a typed trace is shown, which the element's `settled` waits for: a
 * long run's large maps, painted in slices of a task each (worker/packed.ts). */
export const painting = new Set<Promise<void>>();
