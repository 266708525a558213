// Shared by the benchmarks: deterministic inputs and the timing loop.
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

