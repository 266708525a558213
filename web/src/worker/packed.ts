// A trace's tensors as typed arrays on their way from a Web Worker to the page (issue 18: never a
// blocked tab). The worker packs every large tensor field, floats as Float64Array and booleans
// (`allowed`) as Uint8Array, and transfers their buffers (posted, not cloned: the worker's copy is
// detached); the page keeps them typed (lazyTrace): the maps draw from the typed data
// (views/results.ts rowsOf), and the field's nested arrays, the trace's documented form
// (attention-playground.d.ts), are built only if something reads the field. One trace type: the
// same object, the same fields, the same numbers. No DOM.
import { isTypedTensor, nested as toNestedArrays, shapeOf } from '../engine/compute';
import { painting } from '../engine/typed';

/** A trace's typed fields (views/results.ts reads them): `trace[TYPED]`. */
const TYPED = Symbol.for('attnplay.typed');
export interface PackedTensor {
  shape: number[];
  data: Float64Array | Uint8Array;
  bool?: true;
  /** A split run's field (split.ts stitch): its blocks of query rows as the workers sent them, on
   * axis `axis`; `data` joins them the first time it is read (fresh memory is slow to fill: the
   * maps read the rows from the blocks). */
  blocks?: { start: number; n: number; data: Float64Array | Uint8Array; ranges?: Ranges }[];
  axis?: number;
  /** A rank-4 field's smallest and largest finite number per (b, h) slice, made in the worker
   * (rangesOf): what the maps' colour scales read, not a scan of millions of cells on the page. */
  ranges?: Ranges;
}
/** Per row axis (2: (B, H, R, C), 1: (B, R, H, C)), [lo, hi] of slice (b, h) at 2 (b n + h), n the
 * axis after b (lo > hi: no finite number). */
export type Ranges = Partial<Record<1 | 2, Float64Array>>;
type Typed = Record<string, PackedTensor> & { [TYPED]?: unknown };


/** Fields with fewer numbers than this are posted and kept as nested arrays (a small map's). */
export const BIG = 4096;

export const isPacked = (v: unknown): v is PackedTensor => v !== null && typeof v === 'object' && Array.isArray((v as PackedTensor).shape) &&
  (Array.isArray((v as PackedTensor).blocks) || (v as PackedTensor).data instanceof Float64Array || (v as PackedTensor).data instanceof Uint8Array);

const count = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

/** A nested array of numbers or of booleans as a packed tensor; null for anything else. */
function packNested(v: unknown[]): PackedTensor | null {
  const shape = shapeOf(v);
  if (shape.length === 0 || shape.includes(0)) return null;
  let leaf: unknown = v;
  while (Array.isArray(leaf)) leaf = leaf[0];
  const bool = typeof leaf === 'boolean';
  if (!bool && typeof leaf !== 'number') return null;
  const data = bool ? new Uint8Array(count(shape)) : new Float64Array(count(shape));
  let k = 0;
  const walk = (x: unknown, depth: number): boolean => {
    if (!Array.isArray(x) || x.length !== shape[depth]) return false;
    if (depth + 1 === shape.length) {
      for (const y of x) {
        if (bool ? typeof y !== 'boolean' : typeof y !== 'number') return false;
        data[k++] = Number(y);
      }
      return true;
    }
    return x.every((y) => walk(y, depth + 1));
  };
  return walk(v, 0) ? (bool ? { shape, data, bool: true } : { shape, data }) : null;
}

/** In the worker: the trace of `core.run(s, {typed: true})` with every tensor field of at least
 * `big` numbers packed (float tensors come typed from the core; booleans and integers as nested
 * arrays are packed here), the smaller ones nested; and the buffers to transfer. */
export function packTrace(trace: Record<string, unknown>, big = BIG): { trace: Record<string, unknown>; transfer: ArrayBuffer[] } {
  const out: Record<string, unknown> = {};
  const transfer: ArrayBuffer[] = [];
  for (const [key, v] of Object.entries(trace)) {
    let packed: PackedTensor | null = null;
    if (isTypedTensor(v)) packed = { shape: v.shape, data: v.data instanceof Float64Array ? v.data : Float64Array.from(v.data) };
    else if (Array.isArray(v) && count(shapeOf(v)) >= big) packed = packNested(v);
    if (!packed) { out[key] = v; continue; }
    if (packed.data.length < big) { out[key] = unpack(packed); continue; }
    // a buffer of its own (the core's output is copied out of wasm memory into one): transferable
    if (packed.data.byteOffset !== 0 || packed.data.byteLength !== packed.data.buffer.byteLength) packed.data = packed.data.slice();
    transfer.push(packed.data.buffer as ArrayBuffer);
    if (packed.shape.length === 4) {
      packed.ranges = rangesOf(packed);
      for (const r of Object.values(packed.ranges)) transfer.push(r.buffer as ArrayBuffer);
    }
    out[key] = packed;
  }
  return { trace: out, transfer };
}

/** In the worker: the finite range of every (b, h) slice of a rank-4 packed tensor, for both row
 * axes, in one pass over its rows. */
export function rangesOf(p: PackedTensor): Ranges {
  const [B, n1, n2, C] = p.shape, d = p.data;
  const r2 = new Float64Array(2 * B * n1).fill(Infinity), r1 = new Float64Array(2 * B * n2).fill(Infinity);
  for (let i = 1; i < r2.length; i += 2) r2[i] = -Infinity;
  for (let i = 1; i < r1.length; i += 2) r1[i] = -Infinity;
  for (let b = 0, at = 0; b < B; b++) {
    for (let i = 0; i < n1; i++) {
      for (let j = 0; j < n2; j++, at += C) {
        let lo = Infinity, hi = -Infinity;
        for (let c = at; c < at + C; c++) { const x = d[c]; if (x - x !== 0) continue; if (x < lo) lo = x; if (x > hi) hi = x; }
        const k2 = 2 * (b * n1 + i), k1 = 2 * (b * n2 + j);
        if (lo < r2[k2]) r2[k2] = lo;
        if (hi > r2[k2 + 1]) r2[k2 + 1] = hi;
        if (lo < r1[k1]) r1[k1] = lo;
        if (hi > r1[k1 + 1]) r1[k1 + 1] = hi;
      }
    }
  }
  return { 1: r1, 2: r2 };
}

/** The range of slice (b, h) on `rowAxis` from the worker's (a split run's blocks folded where they
 * split that axis); undefined where none was made. */
function knownRange(p: PackedTensor, b: number, h: number, rowAxis: number): [number, number] | null | undefined {
  const axis = rowAxis as 1 | 2;
  const parts = p.blocks ? (p.axis === rowAxis ? p.blocks.map((k) => k.ranges?.[axis]) : [undefined]) : [p.ranges?.[axis]];
  let lo = Infinity, hi = -Infinity;
  for (const r of parts) {
    const k = 2 * (b * p.shape[axis === 2 ? 1 : 2] + h);
    if (!r || k + 1 >= r.length) return undefined;
    lo = Math.min(lo, r[k]);
    hi = Math.max(hi, r[k + 1]);
  }
  return lo <= hi ? [lo, hi] : null;
}

/** A packed tensor as the trace's nested arrays (booleans for `allowed`). */
export function unpack(p: PackedTensor): unknown {
  const nested = toNestedArrays(p);
  if (!p.bool) return nested;
  const walk = (x: unknown): unknown => (Array.isArray(x) ? x.map(walk) : x !== 0);
  return walk(nested);
}

/** On the page: the trace as the page keeps it. Small packed fields become nested arrays now; each
 * large one stays typed (`trace[TYPED][field]`, what the maps read) behind a property that builds
 * its nested arrays the first time it is read (the explain panel, an export, a host's script). */
export function lazyTrace<T extends Record<string, unknown>>(trace: T, big = BIG): T {
  const typed = {} as Typed;
  for (const [key, v] of Object.entries(trace)) {
    if (!isPacked(v)) continue;
    if (count(v.shape) < big) { (trace as Record<string, unknown>)[key] = unpack(v); continue; }
    typed[key] = v;
    const settle = (value: unknown) => Object.defineProperty(trace, key, { value, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(trace, key, {
      enumerable: true, configurable: true,
      get() { const value = unpack(v); settle(value); return value; },
      set(value: unknown) { settle(value); },
    });
  }
  Object.defineProperty(typed, TYPED, { value: rows.bind(null, typed, new Map()), enumerable: false });
  Object.defineProperty(trace, TYPED, { value: typed, enumerable: false, configurable: true });
  return trace;
}

/** Above this many cells a map is painted in slices (`sliced`, views/heatmap.ts), of at most
 * PAINT_MS each, a task per slice: a long run's 2048 x 2048 maps block the page for no more than
 * that; the canvas keeps its last picture until the new one is whole. */
const SLICED_CELLS = 1 << 16;
const PAINT_MS = 12;
/** Each map's latest paint (a newer one stops an older one). */
const latest = new WeakMap<object, object>();

/** Rows of a packed (B, H, R, C) field at (b, h) (rowAxis 2), or of a (B, R, H, C) one (rowAxis 1),
 * as views into its data (views/results.ts rowsOf), with what the maps ask of a large map: `range`, the
 * smallest and largest finite number (views/colors.ts largest), computed once; `sliced`, its paint
 * in slices. A boolean slice small enough for a table is booleans. */
function rows(typed: Record<string, PackedTensor>, cache: Map<string, unknown[][]>, field: string, b: number, h: number, rowAxis: number): unknown[][] {
  // the same rows for the same slice: the maps drawn at once (results, legends, export) share them and their range
  const key = `${field},${b},${h},${rowAxis}`;
  let out = cache.get(key);
  if (!out) cache.set(key, out = sliceRows(typed[field], b, h, rowAxis));
  return out;
}

function sliceRows(p: PackedTensor, b: number, h: number, rowAxis: number): unknown[][] {
  const [, n1, n2, C] = p.shape, R = rowAxis === 2 ? n2 : n1;
  const step = rowAxis === 2 ? C : n2 * C;
  const blocks = p.blocks ?? [{ start: 0, n: R, data: p.data }];
  const out: (Float64Array | Uint8Array)[] = [];
  for (const k of blocks) {
    // block k holds rows start..start+n-1 of every (b, h): (B, H, n, C) or (B, n, H, C)
    const first = rowAxis === 2 ? (b * n1 + h) * k.n * C : (b * k.n * n2 + h) * C;
    for (let i = 0; i < k.n; i++) out.push(k.data.subarray(first + i * step, first + i * step + C));
  }
  // booleans as booleans where a map shows each cell (a table, or a canvas of one pixel per cell:
  // views/heatmap.ts), as 0 and 1 in the larger maps, whose blocks of cells are averaged
  if (p.bool && R <= 640 && C <= 640) return out.map((r) => Array.from(r, (x) => x !== 0));
  let range = knownRange(p, b, h, rowAxis);
  Object.defineProperty(out, 'range', { get() {
    if (range === undefined) {
      const [lo, hi] = p.bool ? rangeOfBytes(out as Uint8Array[]) : rangeOfDoubles(out as Float64Array[]);
      range = lo <= hi ? [lo, hi] : null;
    }
    return range;
  } });
  if (R * C > SLICED_CELLS) Object.defineProperty(out, 'sliced', { value: sliced });
  return out as unknown as unknown[][];
}

/** The smallest and largest finite number of rows of doubles (one loop per element type: V8 keeps
 * each monomorphic). */
function rangeOfDoubles(rows: Float64Array[]): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (const row of rows) {
    for (let j = 0; j < row.length; j++) { const x = row[j]; if (x - x !== 0) continue; if (x < lo) lo = x; if (x > hi) hi = x; }
  }
  return [lo, hi];
}

function rangeOfBytes(rows: Uint8Array[]): [number, number] {
  let lo = 255, hi = 0;
  for (const row of rows) for (let j = 0; j < row.length; j++) { const x = row[j]; if (x < lo) lo = x; if (x > hi) hi = x; }
  return [lo, hi];
}

/** Paints rows 0..n-1 of a map (`paintRow`), PAINT_MS at a time, then `done`; stops if the map is
 * painted again meanwhile. The element's `settled` waits for it (engine/typed.ts). */
function sliced(n: number, paintRow: (i: number) => void, done: () => void, map: object): void {
  const token = {};
  latest.set(map, token);
  const job = (async () => {
    for (let i = 0; i < n;) {
      await new Promise((r) => setTimeout(r, 0));
      if (latest.get(map) !== token) return;
      const end = performance.now() + PAINT_MS;
      while (i < n && performance.now() < end) paintRow(i++);
    }
    done();
  })();
  painting.add(job);
  void job.finally(() => painting.delete(job));
}
