// One long run split across the reader's cores (issue 18, part 5: no cross-origin isolation, so no
// shared memory and no WASM threads): each Web Worker has its own module and computes a block of
// query rows; the page stitches the blocks. Why rows, and which runs split (docs/architecture.md,
// "Long runs on every core"): softmax attention's rows are independent, and the fused kernel's
// numbers do not depend on how the queries are tiled (core/attention_kernel.hpp: block_q changes no
// number), so a row of the stitched trace is the row of the whole run, bit for bit. Only `full`
// without a mask, RoPE or ALiBi splits: a mask, RoPE and ALiBi depend on a row's position, which a
// block of rows renumbers from 0; every other algorithm runs in one worker (ProbAttention's samples
// and top rows are drawn over all queries; flash records its blocks over the whole run). No DOM.
import { isDraw, isTypedTensor, type Scenario, type TypedTensor } from '../engine/compute';
import { isPacked, type PackedTensor } from './packed';

/** The scenario's keys a split run may have (anything else runs whole: its meaning may depend on
 * the rows). */
const SPLITS = new Set(['algorithm', 'q', 'k', 'v', 'scale', 'trace', 'dtype', 'max_flops', 'seed', 'mask']);
/** Fewer rows than this per worker are not worth a worker. */
export const MIN_ROWS = 128;
/** The trace fields stitched, by the axis of their query rows. */
const ROW_AXIS: Record<string, number> = { scores: 2, allowed: 2, weights: 2, context: 1, q: 1 };
/** Cost fields summed over the blocks (the rest is the same in every block). */
const SUMMED = ['dot_products', 'dense_dot_products', 'flops'];

/** The blocks of query rows [start, end) of `s` (its q, k, v typed, or seeded draws: each worker
 * draws them itself, drawRows) for `workers` workers; null where it does not split (one block,
 * another algorithm, a mask, RoPE, ALiBi). */
export function splitPlan(s: Scenario, workers: number): [number, number][] | null {
  if (s.algorithm !== 'full' || !Object.keys(s).every((k) => SPLITS.has(k))) return null;
  const mask = s.mask as { kind?: unknown } | string | null | undefined;
  if (mask != null && mask !== 'none' && !(typeof mask === 'object' && mask.kind === 'none' && Object.keys(mask).length === 1)) return null;
  const shape = (t: unknown) => ((isTypedTensor(t) || isDraw(t)) && Array.isArray(t.shape) ? t.shape : null);
  const q = shape(s.q);
  if (![s.k, s.v].every(shape) || !q || q.length !== 4 || !Number.isInteger(q[1])) return null;
  const L = q[1];
  const n = Math.min(Math.floor(workers), Math.floor(L / MIN_ROWS));
  if (!(n >= 2)) return null;
  return Array.from({ length: n }, (_, w) => [Math.round((w * L) / n), Math.round(((w + 1) * L) / n)]);
}

/** In a worker: q, k and v typed, a seeded draw drawn by `draw` (the core's draw(): its numbers
 * are the ones the run would draw, bit for bit, docs/semantics.md "seeded tensor draws"), so a
 * seeded run is posted as the tiny scenario it is and each worker draws its own inputs: k and v
 * whole, q its own rows only (worker.ts: the core's draw of rows skips the generator to them). */
export function drawInputs(s: Scenario, draw: (spec: Scenario, field: string) => TypedTensor): Scenario {
  const out = { ...s };
  for (const f of ['q', 'k', 'v']) if (isDraw(out[f])) out[f] = draw(out[f] as Scenario, f);
  return out;
}

/** Worker `i`'s share [start, end) of L rows among `n` (as splitPlan splits the query rows): the
 * rows of a seeded k or v it draws and posts to the others (worker.ts), so that each draws 1/n of
 * k and v rather than the whole (issue 18). */
export const shareRows = (L: number, n: number, i: number): [number, number] => [Math.round((i * L) / n), Math.round(((i + 1) * L) / n)];

/** Blocks of rows of a (B, rows, H, E) tensor, each `t` starting at row `start`, as the (B, L, H, E)
 * tensor they cover (shareRows' shares, from every worker, in any order): join()'s along axis 1. */
export function joinRows(parts: { start: number; t: TypedTensor }[]): TypedTensor {
  const ts = [...parts].sort((x, y) => x.start - y.start).map((x) => x.t);
  const shape = ts[0].shape.slice();
  shape[1] = ts.reduce((n, t) => n + t.shape[1], 0);
  return { shape, data: join(ts, 1) as Float64Array };
}

export function sliceRows(t: TypedTensor, start: number, end: number): TypedTensor {
  const [B, L, H, E] = t.shape, row = H * E, n = end - start;
  const data = new Float64Array(B * n * row);
  for (let b = 0; b < B; b++) data.set(t.data.subarray((b * L + start) * row, (b * L + end) * row), b * n * row);
  return { shape: [B, n, H, E], data };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The traces of consecutive blocks of rows, [start, end) each (every tensor field packed,
 * worker/packed.ts), as the trace of the whole run; throws where a field cannot be stitched (the
 * run is then made whole). The rows stay in their blocks' buffers (packed.ts `blocks`). */
export function stitch(blocks: { rows: [number, number]; trace: Record<string, unknown> }[]): Record<string, unknown> {
  const sorted = [...blocks].sort((a, b) => a.rows[0] - b.rows[0]);
  const parts = sorted.map((x) => x.trace);
  const first = parts[0];
  const out: Record<string, unknown> = {};
  const L = sorted[sorted.length - 1].rows[1];
  sorted.forEach((x, k) => { if (x.rows[0] !== (k ? sorted[k - 1].rows[1] : 0)) throw new Error('the blocks do not cover the rows'); });
  for (const [key, v] of Object.entries(first)) {
    if (key === 'cost') {
      const cost = { ...(v as Record<string, number>) };
      for (const k of SUMMED) if (k in cost) cost[k] = parts.reduce((n, p) => n + (p.cost as Record<string, number>)[k], 0);
      for (const p of parts) for (const [k, x] of Object.entries(p.cost as object)) if (!SUMMED.includes(k) && cost[k] !== x) throw new Error(`cost.${k} differs between blocks`);
      out.cost = cost;
    } else if (key === 'warnings') {
      out.warnings = [...new Set(parts.flatMap((p) => p.warnings as string[]))];
    } else if (key === 'shapes') {
      const shapes: Record<string, number[]> = {};
      for (const [f, sh] of Object.entries(v as Record<string, number[]>)) {
        shapes[f] = sh.slice();
        if (f in ROW_AXIS) shapes[f][ROW_AXIS[f]] = L;
      }
      out.shapes = shapes;
    } else if (isPacked(v) && key in ROW_AXIS) {
      out[key] = joined(sorted.map((x) => ({ start: x.rows[0], p: x.trace[key] as PackedTensor })), ROW_AXIS[key]);
    } else if (parts.every((p) => sameJson(p[key], v)) && !isPacked(v) && !Array.isArray(v)) {
      out[key] = v;
    } else {
      throw new Error(`trace field ${key} cannot be stitched`);
    }
  }
  return out;
}

/** Blocks of one field along `axis` as one packed tensor whose `data` is joined when first read. */
function joined(parts: { start: number; p: PackedTensor }[], axis: number): PackedTensor {
  const shape = parts[0].p.shape.slice();
  shape[axis] = parts.reduce((n, x) => n + x.p.shape[axis], 0);
  const t = { shape, axis, blocks: parts.map(({ start, p }) => ({ start, n: p.shape[axis], data: p.data, ranges: p.ranges })),
    ...(parts[0].p.bool ? { bool: true } : {}) } as PackedTensor;
  Object.defineProperty(t, 'data', { enumerable: true, configurable: true, get() {
    const data = join(parts.map((x) => x.p), axis);
    Object.defineProperty(t, 'data', { value: data, enumerable: true });
    return data;
  } });
  return t;
}

/** Packed tensors of consecutive blocks along `axis` joined into one buffer. */
function join(parts: { shape: number[]; data: Float64Array | Uint8Array }[], axis: number): Float64Array | Uint8Array {
  const shape = parts[0].shape.slice();
  shape[axis] = parts.reduce((n, p) => n + p.shape[axis], 0);
  const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1), inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const data = parts[0].data instanceof Uint8Array ? new Uint8Array(outer * shape[axis] * inner) : new Float64Array(outer * shape[axis] * inner);
  let at = 0;
  for (const p of parts) {
    const n = p.shape[axis] * inner;
    for (let o = 0; o < outer; o++) data.set(p.data.subarray(o * n, (o + 1) * n), o * shape[axis] * inner + at);
    at += n;
  }
  return data;
}
