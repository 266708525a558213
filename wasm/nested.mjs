// Nested arrays <-> typed tensors {shape, data}: the one conversion, shared by wasm/attnplay.mjs
// (the trace's tensors out of wasm memory), the page's wire format (web/src/engine/typed.ts) and
// copy as PyTorch (web/src/pytorch.ts). No DOM, no node.

/** Whether `value` is a typed tensor: {shape: number[], data: Float64Array | Float32Array}. */
export function isTypedTensor(value) {
  return value !== null && typeof value === 'object' && Array.isArray(value.shape) &&
    (value.data instanceof Float64Array || value.data instanceof Float32Array);
}

/** `data` (row-major) as nested arrays of `shape` (a number for shape []). */
export function toNested(data, shape) {
  if (shape.length === 0) return data[0];
  let offset = 0;
  const build = (depth) => {
    const out = new Array(shape[depth]);
    for (let i = 0; i < shape[depth]; i++) out[i] = depth + 1 === shape.length ? data[offset++] : build(depth + 1);
    return out;
  };
  return build(0);
}

/** Whether `value` is a flat tensor {shape, data}: a typed tensor, or the JSON form the core reads too. */
export function isFlat(value) {
  return value !== null && typeof value === 'object' && Array.isArray(value.shape) &&
    (Array.isArray(value.data) || ArrayBuffer.isView(value.data));
}

/** A flat tensor as nested arrays; anything else as it is. */
export function nested(value) {
  return isFlat(value) ? toNested(value.data, value.shape) : value;
}

/** Whether `value` is a seeded draw (SPEC §2): {shape, random: "normal" | "uniform", seed, scale},
 * whose numbers the core draws (wasm/attnplay.mjs draw()). */
export function isDraw(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'random' in value;
}

/** The shape of a nested array (its first element's at each level), of a flat tensor or a draw (its
 * `shape`): [] for anything else. */
export function shapeOf(value) {
  if ((isFlat(value) || isDraw(value)) && Array.isArray(value.shape)) return value.shape.slice();
  const shape = [];
  for (let cur = value; Array.isArray(cur); cur = cur[0]) shape.push(cur.length);
  return shape;
}

/** A nested array of finite numbers with every row of a level the same length (none empty), as
 * {shape, data: Float64Array}; null for anything else. */
export function fromNested(value) {
  if (!Array.isArray(value)) return null;
  const shape = shapeOf(value);
  if (shape.includes(0)) return null;
  const data = new Float64Array(shape.reduce((a, b) => a * b, 1));
  let offset = 0;
  const walk = (x, depth) => {
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
  return walk(value, 0) ? { shape, data } : null;
}
