// Shared by the benchmarks: deterministic inputs, the timing loop, the machine, markdown tables.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

// Deterministic inputs (mulberry32 uniforms in [-1, 1)); the numbers do not matter for timing.
export function uniforms(n, seed) {
  let a = seed >>> 0;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// `reps` timed runs after one warm-up: the best (the table's statistic: the least disturbed by
// other processes) and the median; returns {ms, median_ms, trace}.
export function time(run, scenario, reps) {
  let trace = run(scenario, { typed: true });
  const ms = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    trace = run(scenario, { typed: true });
    ms.push(performance.now() - t0);
  }
  return { ms: Math.min(...ms), median_ms: median(ms), trace };
}


// The machine a result was measured on: cores (as nproc counts them), the CPU model from
// /proc/cpuinfo, node's version, and the load average when the benchmark ran.
export function machine() {
  const os = globalThis.process ? process : null;
  let cpu = 'unknown';
  try {
    const text = readFileSync('/proc/cpuinfo', 'utf8');
    cpu = (text.match(/^model name\s*:\s*(.*)$/m) ?? [])[1] ?? cpu;
  } catch { /* not Linux */ }
  const nproc = availableParallelism();
  const load = loadavg().map((x) => x.toFixed(2));
  return {
    nproc, cpu, node: os?.version, load_average: load,
    summary: `${nproc} cores (nproc), ${cpu}, node ${os?.version}, load average ${load.join(' ')}`,
  };
}

// A markdown table from a header row and rows of cells.
export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
