// Small pieces the algorithm explainers share (explain-b's: linear, performer, linformer, lsh,
// nadaraya_watson, positional_encoding, bahdanau): numbers as LaTeX, long sums shortened, cells
// of nested arrays. No DOM.
import { at } from '../format';
import { nested, type Scenario, type Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explanation, Term } from './explanation';

/** A number as LaTeX, 4 significant digits (integers whole, tiny and huge ones as a × 10^n). */
export function num(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? '\\mathrm{NaN}' : x > 0 ? '\\infty' : '-\\infty';
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) {
    const [m, e] = x.toExponential(3).split('e');
    return `${String(Number(m))} \\times 10^{${Number(e)}}`;
  }
  return String(Number(x.toPrecision(4)));
}

/** A number as a factor: negative ones in parentheses. */
export const factor = (x: number): string => (x < 0 ? `(${num(x)})` : num(x));

/** A number as plain text (the sentence), 4 significant digits. */
export function plain(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e6) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(3).replace(/\.?0+e/, 'e');
  return String(Number(x.toPrecision(4)));
}

/** A sum of LaTeX parts, at most `max` of them written (the first and the last ones around \cdots). */
export function sum(parts: string[], max = 8): string {
  if (parts.length === 0) return '0';
  const shown = parts.length <= max ? parts : [...parts.slice(0, max - 2), '\\cdots', ...parts.slice(-1)];
  return shown.map((p, i) => (i === 0 ? p : p.startsWith('-') ? `- ${p.slice(1)}` : `+ ${p}`)).join(' ');
}

/** A number of the nested array `value` at `index`, else NaN. */
export function cell(value: unknown, index: readonly number[]): number {
  const x = at(value, index);
  return typeof x === 'number' ? x : NaN;
}

/** A nested array's row at `index` (the last axis), as numbers. */
export function row(value: unknown, index: readonly number[]): number[] {
  const r = at(value, index);
  return Array.isArray(r) ? (r as number[]) : [];
}

/** An input tensor (q, k, v, ...) as nested arrays: the scenario's (it may be a {shape, data}
 * tensor), else the trace's (drawn from the seed); undefined when neither has it as numbers. */
export function input(scenario: Scenario, trace: Trace, name: string): unknown {
  const v = nested(scenario[name] ?? trace[name]);
  return Array.isArray(v) ? v : undefined;
}

/** The scale the core used: the scenario's, else 1/√E. */
export const scaleOf = (scenario: Scenario, E: number): number =>
  typeof scenario.scale === 'number' ? scenario.scale : 1 / Math.sqrt(E);

/** Whether `index` is a cell of the trace field `field` (every coordinate within its shape). */
export function inField(trace: Trace, field: string, index: readonly number[]): boolean {
  const shape = trace.shapes?.[field] ?? [];
  return shape.length === index.length && index.every((i, d) => Number.isInteger(i) && i >= 0 && i < shape[d]);
}

/** The words of a sentence in the page's language. */
export const say = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

/** A term read from a cell. */
export const term = (name: string, value: number, field?: string, index?: number[]): Term =>
  field && index ? { name, value, ref: { field, index } } : { name, value };

/** Operands without repeats, in order. */
export function unique(refs: CellRef[]): CellRef[] {
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = `${r.field}:${r.index.join(',')}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** An explanation; its value is the trace's cell (`value`), its operands deduplicated. */
export const explained = (field: string, index: number[], value: number | boolean, formula: string, text: string,
  terms: Term[], operands: CellRef[]): Explanation => ({ field, index, value, formula, text, terms, operands: unique(operands) });

/** The dot product a · b, summed in order (the core's order: e = 0, 1, ...). */
export function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** A long sum of LaTeX parts written by its `max` largest values (by size), the rest as \cdots. */
export function sumTop(parts: { tex: string; value: number }[], max = 5): string {
  if (parts.length <= max + 1) return sum(parts.map((p) => p.tex), max + 1);
  const top = [...parts].sort((a, b) => Math.abs(b.value) - Math.abs(a.value)).slice(0, max);
  return `${sum(top.map((p) => p.tex))} + \\cdots`;
}
