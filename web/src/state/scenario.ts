// Reading and editing a scenario (SPEC §2) as plain data: dotted keys, index paths, the sizes of
// q, k, v and consistent resizing. No DOM, no numbers of the core.
import { clone, shapeOf } from '../format';
import { isDraw, type Scenario, type Trace } from '../engine/compute';
import { traits } from './algorithms';

export function get(s: Scenario, key: string): unknown {
  let cur: unknown = s;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Scenario)[part];
  }
  return cur;
}

/** Sets (or, with undefined, removes) a dotted key in place. */
export function set(s: Scenario, key: string, value: unknown): void {
  const parts = key.split('.');
  let cur = s;
  for (const part of parts.slice(0, -1)) {
    if (cur[part] === null || typeof cur[part] !== 'object' || Array.isArray(cur[part])) {
      if (value === undefined) return;
      cur[part] = {};
    }
    cur = cur[part] as Scenario;
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
  if (value === undefined && parts.length > 1 && Object.keys(cur).length === 0) set(s, parts.slice(0, -1).join('.'), undefined);
}

/** Sets one number of a nested tensor (copy on write along the path). */
export function setIn(t: unknown, path: readonly number[], value: unknown): unknown {
  if (path.length === 0) return value;
  const arr = Array.isArray(t) ? t.slice() : [];
  arr[path[0]] = setIn(arr[path[0]], path.slice(1), value);
  return arr;
}

/** A field's path as the core writes it: "k" and [0, 2, 0, 1] -> "k[0][2][0][1]". */
export const pathText = (name: string, path: readonly number[]) => name + path.map((i) => `[${i}]`).join('');

/** A field path and its parents, nearest first: "q[0][1][0]", "q[0][1]", "q[0]", "q"; "mask.window", "mask". */
export function parentPaths(field: string): string[] {
  const out: string[] = [];
  for (let p = field; p;) {
    out.push(p);
    const parent = p.replace(/(\[\d+\]|\.[^.[]*|^[^.[]*)$/, '');
    if (parent === p) break;
    p = parent;
  }
  return out;
}

export interface Dims { B: number; H: number; L_Q: number; L_K: number; E: number; E_k: number; D: number }
export type DimName = keyof Dims;

/** The sizes the page lets you change: additive attention has its own key width. */
export function dimNames(s: Scenario): DimName[] {
  const tr = traits(s);
  if (tr.grids) return (['B', 'L_Q', 'L_K', 'E', 'E_k', 'D'] as const).filter((n) => tr.grids!.some((g) => g.axes.includes(n)));
  if (tr.sharedQK || tr.oneSequence) return ['B', 'H', 'L_Q', 'E', 'D'];
  return tr.keyWidth ? ['B', 'H', 'L_Q', 'L_K', 'E', 'E_k', 'D'] : ['B', 'H', 'L_Q', 'L_K', 'E', 'D'];
}

/** The sizes of q, k, v (each at least 1, for editing). */
export function dims(s: Scenario): Dims {
  const q = shapeOf(s.q), k = shapeOf(s.k), v = shapeOf(s.v);
  const or1 = (x: number | undefined) => (x && x > 0 ? x : 1);
  const grids = traits(s).grids;
  if (grids) { // an algorithm's own inputs (multihead's (B, L, d)): each size from the first grid that has it
    const d: Dims = { B: 1, H: or1(Number(s.num_heads)), L_Q: 1, L_K: 1, E: 1, E_k: 1, D: 1 };
    for (const g of [...grids].reverse()) g.axes.forEach((a, i) => { d[a as DimName] = or1(shapeOf(s[g.key])[i]); });
    return d;
  }
  return { B: or1(q[0]), L_Q: or1(q[1]), H: or1(q[2]), E: or1(q[3]), E_k: or1(k[3]), L_K: or1(k[1] ?? v[1]), D: or1(v[3]) };
}

/** How many batch items and heads the (b, h) selectors offer: q's sizes where the algorithm reads
 * q, k, v (so they follow an edit at once); else the latest trace's. */
export function sliceSizes(s: Scenario, trace: Trace | null): { B: number; H: number } {
  if (traits(s).tensors.length) {
    const d = dims(s);
    return { B: d.B, H: d.H };
  }
  const sh = trace?.shapes ?? {};
  return { B: sh.context?.[0] ?? sh.output?.[0] ?? 1, H: sh.head_weights?.[1] ?? sh.context?.[2] ?? 1 };
}

function resizeArray(a: unknown, n: number, make: (i: number) => unknown): unknown[] {
  const arr = Array.isArray(a) ? a.slice(0, n) : [];
  for (let i = arr.length; i < n; i++) arr.push(make(i));
  return arr;
}

/** Resizes axis `axis` of a nested tensor to n; new entries copy the shape of entry 0, filled with `fill`. */
export function resizeAxis(t: unknown, axis: number, n: number, fill: number | boolean = 0): unknown {
  if (isDraw(t)) return { ...t, shape: t.shape.map((x, i) => (i === axis ? n : x)) }; // the core draws the new size
  if (!Array.isArray(t)) return t;
  if (axis > 0) return t.map((x) => resizeAxis(x, axis - 1, n, fill));
  const zeroLike = (x: unknown): unknown => (Array.isArray(x) ? x.map(zeroLike) : fill);
  return resizeArray(t, n, () => zeroLike(clone(t[0])));
}

/**
 * Changes one dimension of q/k/v consistently (and the mask fields that depend on it).
 * Returns a new scenario; sample_index is dropped when L or H changes (the seed draws again).
 */
export function resize(s0: Scenario, dim: DimName, n: number): Scenario {
  const s = clone(s0);
  const d = dims(s);
  if (n < 1 || n === d[dim]) return s;
  const axes: Record<DimName, [string, number][]> = {
    B: [['q', 0], ['k', 0], ['v', 0]],
    H: [['q', 2], ['k', 2], ['v', 2]],
    L_Q: traits(s).sharedQK || traits(s).oneSequence ? [['q', 1], ['k', 1], ['v', 1]] : [['q', 1]],
    L_K: [['k', 1], ['v', 1]],
    E: traits(s).keyWidth ? [['q', 3]] : [['q', 3], ['k', 3]],
    E_k: [['k', 3]],
    D: [['v', 3]],
  };
  const tr = traits(s);
  if (tr.grids) axes[dim] = tr.grids.flatMap((g) => g.axes.flatMap((a, i) => (a === dim ? [[g.key, i] as [string, number]] : [])));
  // GQA/MQA (k and v with H_kv < H heads, issue 16): q alone takes the new H while k's heads still divide it
  const Hk = shapeOf(s.k)[2];
  if (dim === 'H' && Hk !== undefined && Hk < d.H && n % Hk === 0) axes.H = [['q', 2]];
  for (const [name, axis] of axes[dim]) if (s[name] !== undefined) s[name] = resizeAxis(s[name], axis, n);
  // given weights whose columns are this width follow it (new columns 0)
  const w = s.weights as Scenario | undefined, follows = tr.weights?.follow?.[dim];
  if (w && typeof w === 'object' && follows && w[follows] !== undefined) w[follows] = resizeAxis(w[follows], 1, n);
  const allowed = get(s, 'mask.allowed');
  if (dim === 'L_Q' && allowed) set(s, 'mask.allowed', resizeAxis(allowed, 0, n, true));
  if (dim === 'L_K' && allowed) set(s, 'mask.allowed', resizeAxis(allowed, 1, n, true));
  const lens = get(s, 'mask.valid_lens');
  if (Array.isArray(lens)) {
    const twoD = Array.isArray(lens[0]);
    if (dim === 'B') set(s, 'mask.valid_lens', resizeArray(lens, n, () => (twoD ? Array(d.L_Q).fill(d.L_K) : d.L_K)));
    if (dim === 'L_Q' && twoD) set(s, 'mask.valid_lens', lens.map((row: unknown) => resizeArray(row, n, () => d.L_K)));
  }
  if ((dim === 'L_Q' || dim === 'L_K' || dim === 'H') && s.sample_index !== undefined) delete s.sample_index;
  return s;
}

/** valid_lens one per batch item (1-D) or one per query (2-D): 1-D -> 2-D repeats each item's
 * length over L_Q; 2-D -> 1-D keeps each item's first. Returns a new scenario. */
export function lensDimensions(s0: Scenario, twoD: boolean): Scenario {
  const s = clone(s0);
  const lens = get(s, 'mask.valid_lens');
  if (!Array.isArray(lens)) return s;
  const L_Q = dims(s).L_Q;
  set(s, 'mask.valid_lens', twoD ? lens.map((l) => (Array.isArray(l) ? l : Array(L_Q).fill(l)))
    : lens.map((row) => (Array.isArray(row) ? row[0] : row)));
  return s;
}

/** The explicit mask with cell (i, j) toggled. Returns a new scenario. */
export function toggleAllowed(s0: Scenario, i: number, j: number): Scenario {
  const s = clone(s0);
  const allowed = get(s, 'mask.allowed');
  if (Array.isArray(allowed) && Array.isArray(allowed[i])) allowed[i][j] = allowed[i][j] !== true;
  return s;
}

/** Shared QK (lsh): the keys are the queries, so v needs L_Q rows; picking such an algorithm with
 * L_K ≠ L_Q cuts v or pads it with zero rows. Mutates s. */
export function fitSharedKeys(s: Scenario): void {
  if (!traits(s).sharedQK || !(Array.isArray(s.v) || isDraw(s.v))) return;
  const L_Q = shapeOf(s.q)[1], L = shapeOf(s.v)[1];
  if (L_Q && L !== L_Q) s.v = resizeAxis(s.v, 1, L_Q);
}

/** Whether two scenarios differ in the values of their q, k, v only (same shapes, same rest). */
export function sameShape(a: Scenario, b: Scenario, drawsByShape = false): boolean {
  // a draw is its own "values": another seed is another scenario, not new numbers in the same grids
  // (`drawsByShape`: a draw of the same shape is alike, whatever its seed, distribution and scale)
  const shape = (x: unknown): unknown => (Array.isArray(x) ? [x.length, shape(x[0])] : isDraw(x) ? (drawsByShape ? ['draw', x.shape] : x) : typeof x);
  const rest = (s: Scenario) => JSON.stringify({ ...s, q: shape(s.q), k: shape(s.k), v: shape(s.v) });
  return rest(a) === rest(b);
}

/** Self-attention (the self-attention preset): q, k and v all there and equal, one tensor X. */
export function qkvEqual(s: Scenario): boolean {
  return Array.isArray(s.q) && same(s.q, s.k) && same(s.q, s.v);
}

/** Two nested arrays equal, value by value (stops at the first difference: no copy per edit). */
function same(a: unknown, b: unknown): boolean {
  if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
  return true;
}
