// The page's deep copy of a scenario (format.ts clone) without the JSON text, in a chunk of its own
// (loaded with undo.ts, after the first trace: nothing added to the first load). No DOM.

/** JSON.parse(JSON.stringify(value)) without writing and parsing the text (the same numbers, nulls,
 * dropped keys, and errors for a BigInt or a cycle; a toJSON method is not called): one walk of an
 * L = 4096 scenario's 786K numbers instead of two and a 5 MB string (issue 18, part 4). */
export function fastClone<T>(value: T): T {
  const seen: unknown[] = [];
  const bad = (x: unknown) => x === undefined || typeof x === 'function' || typeof x === 'symbol';
  const copy = (v: unknown): unknown => {
    if (typeof v === 'number') return Number.isFinite(v) ? v + 0 : null;
    if (typeof v === 'bigint' || seen.includes(v)) throw new TypeError('clone: a BigInt or a cycle is not JSON');
    if (v === null || typeof v !== 'object') return v;
    seen.push(v);
    let out: Record<string, unknown> | unknown[];
    if (Array.isArray(v)) out = Array.from(v, (x) => { const y = copy(x); return bad(y) ? null : y; });
    else {
      out = {};
      for (const k of Object.keys(v)) { const y = copy((v as Record<string, unknown>)[k]); if (!bad(y)) out[k] = y; }
    }
    seen.pop();
    return out;
  };
  return value === undefined ? value : (copy(value) as T);
}
