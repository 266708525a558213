// The page's runs with q, k and v handed to the core as typed arrays (issue 8): the WASM boundary
// takes any tensor as {shape, data: Float64Array} out of band, so the numbers skip JSON.stringify
// and the core's JSON parser (about 8 ms of a toy preset's 10 ms run went there). The numbers are
// the same doubles either way (JSON prints a double so that it parses back to itself). A tensor
// that is not a rectangle of finite numbers goes as it is, and a run that fails is run again as
// written, so every error is the core's own, about the field it names. No DOM.
import type { Engine, Outcome, Scenario } from './compute';

interface TypedTensor { shape: number[]; data: Float64Array }

/** The tensors sent typed. */
const TYPED_KEYS = ['q', 'k', 'v'] as const;

/** Typed copies, by the nested array they copy (a scenario's arrays are replaced, never changed in
 * place, by an edit; the runs beside one trace share them). */
const cache = new WeakMap<object, TypedTensor | null>();

/** A nested array of finite numbers with every row of a level the same length, as a typed tensor;
 * null for anything else. */
export function typedTensor(value: unknown): TypedTensor | null {
  if (!Array.isArray(value)) return null;
  if (cache.has(value)) return cache.get(value)!;
  const shape: number[] = [];
  for (let cur: unknown = value; Array.isArray(cur); cur = cur[0]) {
    if (cur.length === 0) { cache.set(value, null); return null; }
    shape.push(cur.length);
  }
  const size = shape.reduce((a, b) => a * b, 1);
  const data = new Float64Array(size);
  let offset = 0;
  const walk = (x: unknown, depth: number): boolean => {
    if (!Array.isArray(x) || x.length !== shape[depth]) return false;
    if (depth + 1 === shape.length) {
      for (let i = 0; i < x.length; i++) {
        const n = x[i];
        if (typeof n !== 'number' || !Number.isFinite(n)) return false;
        data[offset++] = n;
      }
      return true;
    }
    for (let i = 0; i < x.length; i++) if (!walk(x[i], depth + 1)) return false;
    return true;
  };
  const typed = walk(value, 0) ? { shape, data } : null;
  cache.set(value, typed);
  return typed;
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

/** engine.run with typed inputs; a run that fails is made again as written (the core's error). */
export function runTyped(engine: Engine, s: Scenario): Outcome {
  const typed = withTypedInputs(s);
  if (typed === s) return engine.run(s);
  const out = engine.run(typed);
  return out.ok ? out : engine.run(s);
}

/** A typed tensor back as nested arrays (the same numbers). */
function nestedOf({ shape, data }: TypedTensor): unknown {
  let offset = 0;
  const build = (depth: number): unknown[] => Array.from({ length: shape[depth] },
    () => (depth + 1 === shape.length ? data[offset++] : build(depth + 1)));
  return build(0);
}

const isTyped = (x: unknown): x is TypedTensor => x !== null && typeof x === 'object' && !Array.isArray(x) &&
  Array.isArray((x as TypedTensor).shape) && (x as TypedTensor).data instanceof Float64Array;

/** withTypedInputs undone: q, k, v as nested arrays again (a run that failed typed is run again as
 * written, in a worker that was sent the typed copy). */
export function untyped(s: Scenario): Scenario {
  let out: Scenario | null = null;
  for (const key of TYPED_KEYS) {
    if (!isTyped(s[key])) continue;
    out ??= { ...s };
    out[key] = nestedOf(s[key] as TypedTensor);
  }
  return out ?? s;
}
