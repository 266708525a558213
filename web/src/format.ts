// Number formatting and small nested-array helpers shared by the views.

/** A cell's text: never "NaN"; booleans as a check mark or a dot. */
export function fmt(x: unknown, digits = 3): string {
  if (typeof x === 'boolean') return x ? '✓' : '·';
  if (typeof x !== 'number' || Number.isNaN(x)) return '—';
  if (x === Infinity) return '∞';
  if (x === -Infinity) return '-∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (Number.isInteger(x) && a < 1e5) return String(x);
  if (a >= 1e5 || a < 1e-3) return x.toExponential(2).replace('e+', 'e');
  // a value that rounds to a whole number (11.9999999997) reads as one: "12", not "12.000"
  const s = x.toFixed(digits);
  return Math.abs(+s) >= 1 ? s.replace(/\.0+$/, '') : s;
}

/** An integer with its thousands grouped by commas, as en and zh-CN write it ("262,144"): what
 * toLocaleString gives there, without its first call's 25 ms (ICU's number formats loaded). */
export function grouped(n: number): string {
  const digits = String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${digits}` : digits;
}

/** Full precision, for the title tooltip and data-value. */
export function exact(x: unknown): string {
  if (typeof x === 'number') return Number.isNaN(x) ? '—' : String(x);
  return String(x);
}

export { shapeOf } from './engine/compute';

/** Element of a nested array at an index path, or undefined. */
export function at(value: unknown, path: readonly number[]): unknown {
  let cur: unknown = value;
  for (const i of path) {
    if (!Array.isArray(cur)) return undefined;
    cur = cur[i];
  }
  return cur;
}

/** (B,H,R,C) at b,h -> [R][C]. */
export function sliceBH(t: unknown, b: number, h: number): unknown[][] {
  const m = at(t, [b, h]);
  return Array.isArray(m) ? (m as unknown[][]) : [];
}

export function range(n: number): number[] {
  return Array.from({ length: Math.max(0, n) }, (_, i) => i);
}

/** A deep copy with JSON's meaning: JSON.parse(JSON.stringify(value)); once undo.ts's chunk is
 * there (after the first trace), clone.ts's copy without the text (useClone). */
export let clone = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));
export const useClone = (f: <T>(value: T) => T): void => { clone = f; };

/** JSON with arrays of scalars on one line: readable for small tensors. */
export function prettyJson(value: unknown, indent = ''): string {
  const inner = indent + '  ';
  if (Array.isArray(value)) {
    if (value.every((x) => x === null || typeof x !== 'object')) return JSON.stringify(value);
    if (value.length === 0) return '[]';
    return '[\n' + value.map((x) => inner + prettyJson(x, inner)).join(',\n') + '\n' + indent + ']';
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const flat = entries.every(([, v]) => v === null || typeof v !== 'object');
    if (flat) return '{' + entries.map(([k, v]) => JSON.stringify(k) + ': ' + JSON.stringify(v)).join(', ') + '}';
    return '{\n' + entries.map(([k, v]) => inner + JSON.stringify(k) + ': ' + prettyJson(v, inner)).join(',\n') +
      '\n' + indent + '}';
  }
  return JSON.stringify(value);
}

/** A number as typed (a minus sign or dash for '-'), and whether it has a number's syntax. */
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
const typed = (text: string) => text.trim().replace(/^[\u2212\u2013]/, '-');

/** Parses what a user typed into a number cell; null when it is not a finite number. */
export function parseNumber(text: string): number | null {
  const t = typed(text);
  if (!NUMBER.test(t)) return null;
  const x = Number(t);
  return Number.isFinite(x) ? x : null;
}

/** Why `text` is no number, as a cell's error: a number too large for float64 (1e400) says so. */
export function notANumber(key: string, text: string, expected = 'a number'): string {
  const t = typed(text);
  return NUMBER.test(t)
    ? `${key}: ${t} is outside float64 (|x| ≤ 1.8e308)` : `${key}: expected ${expected}, got "${text}"`;
}
