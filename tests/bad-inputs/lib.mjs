// Shared by tests/node/bad-inputs.test.mjs and tests/node/fuzz.test.mjs: what a good error and a
// clean trace are, and the native CLI run on many inputs at once.
import { spawn } from 'node:child_process';
import os from 'node:os';

// The path of the first value in a trace that JSON cannot hold as a number (null, NaN,
// +-Infinity, also inside typed arrays), or null when there is none.
export function badNumberPath(value, where = 'trace') {
  if (value === null || value === undefined) return where;
  if (typeof value === 'number') return Number.isFinite(value) ? null : where;
  if (ArrayBuffer.isView(value)) {
    for (let i = 0; i < value.length; i++) if (!Number.isFinite(value[i])) return `${where}[${i}]`;
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = badNumberPath(value[i], `${where}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = badNumberPath(v, `${where}.${k}`);
      if (p) return p;
    }
  }
  return null;
}

// An error message that names `field`: "field: what is wrong", on one line.
export function namesField(message, field) {
  return typeof message === 'string' && !message.includes('\n') && message.startsWith(`${field}: `) &&
    message.length > field.length + 2;
}

// Runs `cli run -` once per input text (stdin), `width` processes at a time. Resolves to
// [{status, signal, stdout, stderr, ms, killed}], in input order; a run past timeoutMs, or
// printing more than maxBytes, is killed (signal SIGKILL, killed = 'time' or 'output').
export function runNativeMany(cli, texts, { width = Math.min(4, os.availableParallelism?.() ?? 2), timeoutMs = 20000,
  maxBytes = 64 << 20 } = {}) {
  const results = new Array(texts.length);
  let next = 0;
  const one = (i) => new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cli, ['run', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [], err = [];
    let bytes = 0, killed = '';
    const kill = (why) => { killed ||= why; child.kill('SIGKILL'); };
    const collect = (list) => (d) => {
      bytes += d.length;
      if (bytes > maxBytes) kill('output');
      else list.push(d);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    const timer = setTimeout(() => kill('time'), timeoutMs);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      results[i] = { status, signal, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString(),
        ms: performance.now() - t0, killed: killed || null };
      resolve();
    });
    child.stdin.on('error', () => {});  // the CLI may exit before reading everything
    child.stdin.end(texts[i]);
  });
  const worker = async () => {
    while (next < texts.length) await one(next++);
  };
  return Promise.all(Array.from({ length: Math.max(1, width) }, worker)).then(() => results);
}
