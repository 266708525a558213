// The rest of d2l's attention chapter (issue 9), no DOM: the complexity table and its measured
// runs, positional encoding's relative-position map, the 1/√d argument's draws, Bahdanau training's
// state, additive attention's features. Every attention number is the core's; what is computed
// here is display arithmetic on a trace (the rotation of P's pairs) or a demonstration of a
// statistical fact with the core's generator ported to TS (rng.ts), documented as such.
import type { Scenario, Trace } from '../engine/compute';
import type { BatchJob, BatchValue } from '../engine/batch';
import { Rng, RNG_STREAM } from '../rng';
import { PAGE_ALGORITHMS } from '../algorithms';

// ---- the complexity table (seed 003, lines 359-363) ----

export interface ComplexityParams { n: number; d: number; k: number }
export const COMPLEXITY_DEFAULTS: ComplexityParams = { n: 256, d: 64, k: 3 };

export type Architecture = 'cnn' | 'rnn' | 'self';
export interface ComplexityRow {
  arch: Architecture;
  /** The big-O expressions as the seed writes them, and their values at (n, d, k). */
  cost: string; costValue: number;
  sequential: string; sequentialValue: number;
  path: string; pathValue: number;
}

/** The three rows at (n, d, k): cost k·n·d², n·d², n²·d; sequential operations 1, n, 1;
 * maximum path length n/k, n, 1. */
export function complexityRows({ n, d, k }: ComplexityParams): ComplexityRow[] {
  return [
    { arch: 'cnn', cost: 'O(k·n·d²)', costValue: k * n * d * d, sequential: 'O(1)', sequentialValue: 1, path: 'O(n/k)', pathValue: n / k },
    { arch: 'rnn', cost: 'O(n·d²)', costValue: n * d * d, sequential: 'O(n)', sequentialValue: n, path: 'O(n)', pathValue: n },
    { arch: 'self', cost: 'O(n²·d)', costValue: n * n * d, sequential: 'O(1)', sequentialValue: 1, path: 'O(1)', pathValue: 1 },
  ];
}

/** The cost formula of a row as a function of n (for the curves). */
export function costAt(arch: Architecture, n: number, d: number, k: number): number {
  return arch === 'cnn' ? k * n * d * d : arch === 'rnn' ? n * d * d : n * n * d;
}

/** One run of the complexity table: a name and a scenario's own fields at (n, d, k). */
export interface MeasuredRun { name: string; fields: (p: ComplexityParams) => Scenario }

/** The product's attention algorithms measured at length n (trace "context"): their scenarios'
 * own fields (each algorithm's module says its runs) over q, k, v of (1, n, 1, d) drawn from the seed. */
const measuredRuns = (): MeasuredRun[] => PAGE_ALGORITHMS.flatMap((a) => a.measured ?? []);

/** A (1, n, 1, d) tensor of standard normals. */
function randomTensor(rng: Rng, n: number, d: number): { shape: number[]; data: Float64Array } {
  return { shape: [1, n, 1, d], data: rng.normals(n * d) };
}

/** The batch that measures every run of the table at (n, d, k): one q, k, v (seed 0 of the
 * port of the core's generator, stream "data"), each algorithm's fields over them. */
export function complexityJob(p: ComplexityParams): BatchJob {
  const rng = new Rng(0, RNG_STREAM.data);
  const q = randomTensor(rng, p.n, p.d), k = randomTensor(rng, p.n, p.d), v = randomTensor(rng, p.n, p.d);
  return {
    base: { q, k, v, trace: 'context', seed: 0 },
    variants: measuredRuns().map((m) => m.fields(p)),
    fields: ['cost'],
  };
}

export interface Measured { name: string; dotProducts: number | null; dense: number | null; error: string | null }

export function measuredCosts(values: readonly BatchValue[]): Measured[] {
  return measuredRuns().map((m, i) => {
    const v = values[i];
    if (!v || !v.ok) return { name: m.name, dotProducts: null, dense: null, error: v && !v.ok ? v.error : 'not run' };
    const cost = v.fields.cost as { dot_products: number; dense_dot_products: number } | undefined;
    return { name: m.name, dotProducts: cost?.dot_products ?? null, dense: cost?.dense_dot_products ?? null, error: null };
  });
}

export const complexityKey = (p: ComplexityParams) => `${p.n},${p.d},${p.k}`;

// ---- positional encoding's relative positions (seed 003, lines 389-399) ----

/** ω_j = 1 / base^(2j/d), the frequency of the pair (2j, 2j+1). */
export function frequencies(encodingDim: number, base: number): number[] {
  return Array.from({ length: encodingDim / 2 }, (_, j) => 1 / Math.pow(base, (2 * j) / encodingDim));
}

/** The 2x2 map of pair j for an offset δ: [[cos δω, sin δω], [−sin δω, cos δω]]. */
export function rotation(delta: number, omega: number): [[number, number], [number, number]] {
  const c = Math.cos(delta * omega), s = Math.sin(delta * omega);
  return [[c, s], [-s, c]];
}

/** R(δ) applied to every pair of row P_i: what P_{i+δ} should be. */
export function rotateRow(row: readonly number[], delta: number, omegas: readonly number[]): number[] {
  const out = new Array<number>(row.length);
  omegas.forEach((w, j) => {
    const [[a, b], [c, d]] = rotation(delta, w);
    out[2 * j] = a * row[2 * j] + b * row[2 * j + 1];
    out[2 * j + 1] = c * row[2 * j] + d * row[2 * j + 1];
  });
  return out;
}

/** max over i (0 <= i < num_steps - δ) and every column of |R(δ) P_i − P_{i+δ}|, on the trace's P. */
export function rotationError(P: readonly (readonly number[])[], delta: number, omegas: readonly number[]): number {
  let worst = 0;
  for (let i = 0; i + delta < P.length; i++) {
    const r = rotateRow(P[i], delta, omegas);
    r.forEach((x, c) => { worst = Math.max(worst, Math.abs(x - P[i + delta][c])); });
  }
  return worst;
}

/** Positions 0..n-1 in binary, `bits` digits, most significant first. */
export const binary = (i: number, bits: number) => i.toString(2).padStart(bits, '0');

// ---- the 1/√d argument (seed 001, lines 26-49) ----

export interface ScaleParams { d: number; draws: number; seed: number; keys: number }
export const SCALE_DEFAULTS: ScaleParams = { d: 64, draws: 2000, seed: 0, keys: 8 };

export interface ScaleStats {
  mean: number; variance: number;
  meanScaled: number; varianceScaled: number;
  /** the dot products of the first draws (for the histogram) */
  dots: Float64Array;
}

/** `draws` pairs q, k of d unit normals (the core's generator, stream "samples"): mean and
 * (population) variance of q·k and of q·k/√d. Expected: 0, d; 0, 1. */
export function scaleStats({ d, draws, seed }: ScaleParams): ScaleStats {
  const rng = new Rng(seed, RNG_STREAM.samples);
  const dots = new Float64Array(draws);
  for (let t = 0; t < draws; t++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      const q = rng.normal();
      s += q * rng.normal();
    }
    dots[t] = s;
  }
  let mean = 0;
  for (const x of dots) mean += x;
  mean /= draws;
  let variance = 0;
  for (const x of dots) variance += (x - mean) ** 2;
  variance /= draws;
  return { mean, variance, meanScaled: mean / Math.sqrt(d), varianceScaled: variance / d, dots };
}

/** One query against `keys` keys, all unit normals (stream "weights" of the seed), as `full`
 * scenarios: with the default scale 1/√d and with scale 1. v is the identity-free (keys, 1) zeros
 * (only the weights are shown). */
export function scaleScenarios({ d, seed, keys }: ScaleParams): { scaled: Scenario; unscaled: Scenario } {
  const rng = new Rng(seed, RNG_STREAM.weights);
  const q = { shape: [1, 1, 1, d], data: rng.normals(d) };
  const k = { shape: [1, keys, 1, d], data: rng.normals(keys * d) };
  const v = { shape: [1, keys, 1, 1], data: new Float64Array(keys) };
  const base = { algorithm: 'full', q, k, v };
  return { scaled: { ...base }, unscaled: { ...base, scale: 1 } };
}

// ---- Bahdanau training (issue 9 item 2) ----

export { trains, newTrainState, type TrainState } from './train';

/** d2l's Vocab(reserved_tokens=['<pad>', '<bos>', '<eos>']): <unk> 0, <pad> 1, <bos> 2, <eos> 3, words from 4. */
export function tokenName(id: number): string {
  return ['<unk>', '<pad>', '<bos>', '<eos>'][id] ?? `w${id}`;
}

/** Per row of the held-out weights, the source position with the largest weight (the first). */
export function argmaxRows(w: readonly (readonly number[])[]): number[] {
  return w.map((row) => row.reduce((best, x, j) => (x > row[best] ? j : best), 0));
}

/** The source position a reversed target's word t (t < L) should attend to: L - 1 - t. (The
 * step that predicts <eos> has no such position: its weights stay spread.) */
export function mirrored(t: number, words: number): number {
  return words - 1 - t;
}

/** d2l's shape test prints: output.shape, len(state), state[0].shape, len(state[1]), state[1][0].shape. */
export function d2lShapes(trace: Trace): { label: string; shape: string }[] {
  const sh = trace.shapes;
  const tuple = (x: number[] | undefined) => (x ? `(${x.join(', ')})` : '—');
  const dec = sh.dec_state;
  return [
    { label: 'output.shape', shape: tuple(sh.output) },
    { label: 'len(state)', shape: '3' },
    { label: 'state[0].shape', shape: tuple(sh.enc_outputs) },
    { label: 'len(state[1])', shape: dec ? String(dec[0]) : '—' },
    { label: 'state[1][0].shape', shape: tuple(dec?.slice(1)) },
  ];
}

// ---- additive attention's features ----

/** features (B, L_Q, L_K, h) at batch b as L_Q·L_K rows (query-major) of h values; the row labels. */
export function featureRows(trace: Trace, b: number): { rows: number[][]; labels: string[]; pairs: [number, number][] } {
  const f = (trace.features as number[][][][] | undefined)?.[b] ?? [];
  const rows: number[][] = [], labels: string[] = [], pairs: [number, number][] = [];
  f.forEach((byKey, i) => byKey.forEach((feat, j) => { rows.push(feat); labels.push(`q${i}·k${j}`); pairs.push([i, j]); }));
  return { rows, labels, pairs };
}

/** features · w_v for each row (to compare with the trace's scores). */
export function featureScores(rows: readonly (readonly number[])[], wv: readonly number[]): number[] {
  return rows.map((r) => r.reduce((s, x, c) => s + x * wv[c], 0));
}
