// Shared by the node suites: the WASM module, the native CLI, and tensor comparison.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { load } from '../../wasm/attnplay.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const nativeCli = path.join(root, 'build/native/attnplay');
export const wasmCli = path.join(root, 'wasm/attnplay.mjs');

export const wasm = await load();

// Runs the native CLI on a scenario (stdin); returns {trace} or {error, status}.
export function runNative(scenario) {
  try {
    const out = execFileSync(nativeCli, ['run', '-'], { input: JSON.stringify(scenario), stdio: ['pipe', 'pipe', 'pipe'] });
    return { trace: JSON.parse(out.toString()) };
  } catch (e) {
    return { error: e.stderr.toString().trim(), status: e.status };
  }
}

// Largest |a-b| / max(1,|b|) between two JSON values of the same structure; Infinity when
// their shapes or types differ.
export function maxRelDiff(a, b) {
  if (Array.isArray(a) !== Array.isArray(b)) return Infinity;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return Infinity;
    let m = 0;
    for (let i = 0; i < a.length; i++) m = Math.max(m, maxRelDiff(a[i], b[i]));
    return m;
  }
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) / Math.max(1, Math.abs(b));
  if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    let m = 0;
    for (const k of keys) m = Math.max(m, k in a && k in b ? maxRelDiff(a[k], b[k]) : Infinity);
    return m;
  }
  return a === b ? 0 : Infinity;
}

/** A small deterministic generator of inputs in [-2, 2) (not the core's RNG: these are just inputs). */
export function draws(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 * 4 - 2;
  };
}

/** Nested arrays of `shape`, filled from `next()` in row-major order. */
export const tensor = (next, shape) => (shape.length === 1
  ? Array.from({ length: shape[0] }, next)
  : Array.from({ length: shape[0] }, () => tensor(next, shape.slice(1))));
