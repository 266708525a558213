// What every explainer (web/src/explain/<name>.ts) shares: reading a cell of a trace field or of
// a scenario's input (nested arrays or {shape, data}), the numbers as LaTeX and as text (4
// significant digits, the exact value beside), long sums shortened, en/zh sentences. No DOM.
import { isFlat, shapeOf, type Scenario, type Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explanation, Term } from './explanation';

/** At most this many terms of one sum are listed in `terms` (a note says how many there are). */
export const TERM_CAP = 64;
/** A sum of more terms than this is written in the formula as its first three, "…", its last. */
const SHOWN = 6;

type Flat = { shape: number[]; data: ArrayLike<number> };

/** A tensor's value: the trace's field, else the scenario's (dotted paths: "mask.valid_lens"). */
export function tensorOf(trace: Trace, scenario: Scenario, field: string): unknown {
  if (trace[field] !== undefined) return trace[field];
  let cur: unknown = scenario;
  for (const part of field.split('.')) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
  return cur;
}

/** The shape of a tensor value (nested arrays or flat); [] for a scalar. */
export function shapeOfValue(v: unknown): number[] {
  return isFlat(v) ? (v as Flat).shape.slice() : shapeOf(v);
}

/** The element of a tensor value at `index` (undefined outside it). */
export function cellAt(v: unknown, index: readonly number[]): unknown {
  if (isFlat(v)) {
    const f = v as Flat;
    if (index.length !== f.shape.length) return undefined;
    let off = 0;
    for (let d = 0; d < index.length; d++) {
      if (!Number.isInteger(index[d]) || index[d] < 0 || index[d] >= f.shape[d]) return undefined;
      off = off * f.shape[d] + index[d];
    }
    return f.data[off];
  }
  let cur = v;
  for (const i of index) {
    if (!Array.isArray(cur) || !Number.isInteger(i) || i < 0 || i >= cur.length) return undefined;
    cur = cur[i];
  }
  return Array.isArray(cur) ? undefined : cur;
}

/** Reads cells of a trace and its scenario. */
export class Cells {
  constructor(readonly trace: Trace, readonly scenario: Scenario) {}
  value(field: string, index: readonly number[]): unknown {
    return cellAt(tensorOf(this.trace, this.scenario, field), index);
  }
  /** A number cell (NaN where there is none). */
  num(field: string, index: readonly number[]): number {
    const x = this.value(field, index);
    return typeof x === 'number' ? x : NaN;
  }
  shape(field: string): number[] {
    return this.trace.shapes?.[field] ?? shapeOfValue(tensorOf(this.trace, this.scenario, field));
  }
  has(field: string): boolean {
    return tensorOf(this.trace, this.scenario, field) !== undefined;
  }
  /** A cell with a broadcast dimension (size 1) read at 0. */
  broadcast(field: string, index: readonly number[]): unknown {
    const shape = this.shape(field);
    return this.value(field, index.map((x, d) => (shape[d] === 1 ? 0 : x)));
  }
}

/** A number with 4 significant digits, as plain text ("0.6652", "1.503", "-1e+6" as "-1000000"). */
export function plain(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '-∞';
  return String(Number(x.toPrecision(4)));
}

/** The same number in LaTeX (powers of ten as × 10^n). */
export function num(x: number): string {
  if (Number.isNaN(x)) return '\\text{NaN}';
  if (x === Infinity) return '\\infty';
  if (x === -Infinity) return '-\\infty';
  const s = plain(x);
  const m = /^(-?[\d.]+)e([+-]\d+)$/.exec(s);
  return m ? `${m[1]} \\times 10^{${Number(m[2])}}` : s;
}

/** A factor of a product: negative numbers in parentheses. */
export const factor = (x: number) => (x < 0 || Object.is(x, -0) ? `(${num(x)})` : num(x));

/** Parts of a sum joined by +, shortened past SHOWN parts (first three, …, last). */
export function sum(parts: readonly string[], plus = ' + '): string {
  if (parts.length === 0) return '0';
  if (parts.length <= SHOWN) return parts.join(plus);
  return [...parts.slice(0, 3), '\\cdots', parts[parts.length - 1]].join(plus);
}

/** The same in plain text. */
export function sumText(parts: readonly string[]): string {
  if (parts.length === 0) return '0';
  if (parts.length <= SHOWN) return parts.join(' + ');
  return [...parts.slice(0, 3), '…', parts[parts.length - 1]].join(' + ');
}

/** The exact value after the rounded one ("= 0.6652 (0.6652409557748218)"), when they differ. */
export function exactTex(x: number | boolean): string {
  if (typeof x === 'boolean') return '';
  return plain(x) === String(x) || !Number.isFinite(x) ? '' : `\\quad (${x})`;
}
export function exactText(x: number | boolean): string {
  if (typeof x === 'boolean') return '';
  return plain(x) === String(x) || !Number.isFinite(x) ? '' : ` (${x})`;
}

/** The English or the Chinese of a sentence. */
export const say = (lang: Lang, en: string, zh: string) => (lang === 'zh' ? zh : en);

/** "(the first 64 of 100 terms listed)" when a sum has more terms than `terms` holds. */
export function capNote(lang: Lang, n: number): string {
  return n > TERM_CAP ? say(lang, ` (the first ${TERM_CAP} of ${n} terms are listed)`, `（列出前 ${TERM_CAP} 项，共 ${n} 项）`) : '';
}

/** Terms of one sum, at most TERM_CAP of them, always with `keep` (the cell's own) among them. */
export function capped<T>(list: readonly T[], keep = -1): T[] {
  if (list.length <= TERM_CAP) return list.slice();
  const out = list.slice(0, TERM_CAP);
  if (keep >= TERM_CAP) out[TERM_CAP - 1] = list[keep];
  return out;
}

export const ref = (field: string, index: readonly number[]): CellRef => ({ field, index: index.slice() });
/** "q[0,1,0,2]". */
const refKey = (r: CellRef) => `${r.field}[${r.index.join(',')}]`;

/** The operands, each once, in order. */
export function unique(refs: readonly CellRef[]): CellRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => (seen.has(refKey(r)) ? false : (seen.add(refKey(r)), true)));
}

/** A product term a·b (the factors' cells in `refs`; a computed factor has none). */
export function product(name: string, a: number, b: number, ra: CellRef | null, rb: CellRef): Term {
  return { name, value: a * b, refs: ra ? [ra, rb] : [rb] };
}

/** Σ_j a_j b_j over `n` pairs: its terms (capped), the formula's and the text's sums and the
 * operands. `pair(j)` gives the two factors and their cells; `keep`: a j listed even past the cap. */
export function dotSum(n: number, label: (j: number) => string,
  pair: (j: number) => [number, number, CellRef | null, CellRef], keep = -1) {
  const tex: string[] = [], text: string[] = [], all: Term[] = [], operands: CellRef[] = [];
  let total = 0;
  for (let j = 0; j < n; j++) {
    const [a, b, ra, rb] = pair(j);
    tex.push(`${factor(a)} \\cdot ${factor(b)}`);
    text.push(`${plain(a)}·${plain(b)}`);
    all.push(product(label(j), a, b, ra, rb));
    if (ra) operands.push(ra);
    operands.push(rb);
    total += a * b;
  }
  return { tex: sum(tex), text: sumText(text), terms: capped(all, keep), total, operands, n };
}

/** An explanation with its operands each once. */
export function explained(field: string, index: readonly number[], value: number | boolean, formula: string,
  text: string, terms: Term[], operands: CellRef[]): Explanation {
  return { field, index: index.slice(), value, formula, text, terms, operands: unique(operands) };
}
