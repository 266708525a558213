// The note's sparse patterns (SPEC §2 masks local, atrous, strided) as the page shows them beside a
// `full` run with one of them: the same q, k, v through full attention with each of the three
// masks (their `allowed` and `cost` are the core's), and the note's alternating layers — which
// inputs a query reaches after one layer of local and one of atrous attention — as the boolean
// product of the two runs' `allowed`. No DOM; no number of the core computed here.
import type { Outcome, Scenario, Trace } from '../engine/compute';
import { at } from '../format';
import { get } from './scenario';
import { algorithm } from '../algorithms/module';
import { typedTensor } from '../engine/typed';

export const SPARSE_KINDS = ['local', 'atrous', 'strided'] as const;
export type SparseKind = (typeof SPARSE_KINDS)[number];

/** The window w of local (and strided) and the dilation k of atrous (the stride s of strided). */
export interface SparseParams { window: number; dilation: number }
export const SPARSE_DEFAULTS: SparseParams = { window: 2, dilation: 3 };

const maskKind = (s: Scenario) => String(get(s, 'mask.kind') ?? 'none');

/** A scenario of an algorithm that draws the sparse patterns (full) with a local, atrous or strided
 * mask: the sparse view applies. */
export function isSparse(s: Scenario): boolean {
  return algorithm(s.algorithm)?.sparsePatterns === true && (SPARSE_KINDS as readonly string[]).includes(maskKind(s));
}

/** Where a parameter of the view lives in the scenario's mask ('mask.window', 'mask.dilation',
 * 'mask.stride'), or null when the mask kind has no such field (the view keeps it). */
export function sparseKey(s: Scenario, param: keyof SparseParams): string | null {
  const kind = maskKind(s);
  if (param === 'window') return kind === 'local' || kind === 'strided' ? 'mask.window' : null;
  return kind === 'atrous' ? 'mask.dilation' : kind === 'strided' ? 'mask.stride' : null;
}

/** The view's w and k: the mask's own where it has them, else what the view kept. */
export function sparseParams(s: Scenario, kept: SparseParams): SparseParams {
  const read = (param: keyof SparseParams) => {
    const key = sparseKey(s, param);
    const v = key ? get(s, key) : undefined;
    return typeof v === 'number' ? v : kept[param];
  };
  return { window: read('window'), dilation: read('dilation') };
}

/** The same q, k, v, scale and causal flag through full attention with pattern `kind`. */
export function patternScenario(s: Scenario, kind: SparseKind, p: SparseParams): Scenario {
  const mask: Scenario = { kind };
  if (kind !== 'atrous') mask.window = p.window;
  if (kind === 'atrous') mask.dilation = p.dilation;
  if (kind === 'strided') mask.stride = p.dilation;
  if (get(s, 'mask.causal') === true) mask.causal = true;
  const out: Scenario = { algorithm: 'full', q: s.q, k: s.k, v: s.v, mask };
  for (const key of ['scale', 'dtype']) if (s[key] !== undefined) out[key] = s[key];
  return out;
}

export interface SparsePatterns {
  params: SparseParams;
  causal: boolean;
  /** The scenario's own pattern. */
  current: SparseKind;
  runs: Record<SparseKind, Outcome>;
}

export function sparsePatterns(s: Scenario, kept: SparseParams, run: (s: Scenario) => Outcome): SparsePatterns {
  const params = sparseParams(s, kept);
  const runs = Object.fromEntries(SPARSE_KINDS.map((kind) => [kind, run(patternScenario(s, kind, params))])) as Record<SparseKind, Outcome>;
  return { params, causal: get(s, 'mask.causal') === true, current: maskKind(s) as SparseKind, runs };
}

/** What the three patterns' runs depend on: the shapes of q, k, v, the mask, w and k, scale and
 * dtype; not the values of q, k, v (the allowed cells and the count of products are the mask's).
 * Values past 1e150 could make a run overflow: then null, and the patterns are run again. */
export function sparseSignature(s: Scenario, kept: SparseParams): string | null {
  const shapes: number[][] = [];
  for (const key of ['q', 'k', 'v']) {
    const typed = typedTensor(s[key]);
    if (!typed) return null;
    for (const x of typed.data) if (!(Math.abs(x) < 1e150)) return null;
    shapes.push(typed.shape);
  }
  return JSON.stringify([shapes, s.mask ?? null, sparseParams(s, kept), s.scale ?? null, s.dtype ?? null]);
}

/** A trace's `allowed` for (b, h) as booleans (the tensor may be broadcast over B and H). */
export function allowedOf(trace: Trace, b = 0, hh = 0): boolean[][] {
  const a = trace.allowed;
  const shape = trace.shapes.allowed ?? [];
  const m = at(a, [Math.min(b, (shape[0] ?? 1) - 1), Math.min(hh, (shape[1] ?? 1) - 1)]);
  return Array.isArray(m) ? (m as unknown[][]).map((row) => row.map((x) => x === true || x === 1)) : [];
}

/** Two layers: query i of the second reaches input j iff it attends some m of the first layer's
 * outputs (second[i][m]) that attended j (first[m][j]). The boolean matrix product second · first. */
export function reach(second: boolean[][], first: boolean[][]): boolean[][] {
  return second.map((row) => (first[0] ?? []).map((_, j) => row.some((on, m) => on && first[m]?.[j] === true)));
}

/** How many cells are true. */
export const countTrue = (m: boolean[][]) => m.reduce((n, row) => n + row.filter(Boolean).length, 0);
