// The WASM half of tests/node/fuzz.test.mjs, in a worker thread so that the test can stop it
// (and fail) if a call never returns. Deterministic: the mutated scenarios depend only on
// workerData.seed and workerData.iterations.
//
// Mutations of a preset's scenario (1 to 3 per iteration): replace a value with one of another
// type, nudge a number to an extreme (0, -1, 1e308, -1e308, 1e-320, ...), delete a key,
// duplicate / truncate / empty an array, swap the algorithm, change the mask, add a field
// another algorithm reads.
//
// Every scenario runs twice (the second pass repeats the first exactly): wasm memory may grow
// in the first pass (large traces) but not in the second, and both passes give the same
// outcome. Posts {outcomes, samples, memory, mismatches}.
import { parentPort, workerData } from 'node:worker_threads';
import { load } from '../../wasm/attnplay.mjs';
import { badNumberPath } from './lib.mjs';

const { seed, iterations, sampleEvery } = workerData;

function mulberry32(a) {
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = mulberry32(seed);
const below = (n) => Math.floor(rand() * n);
const pick = (xs) => xs[below(xs.length)];

const ALGORITHMS = ['full', 'additive', 'multihead', 'prob', 'nadaraya_watson', 'positional_encoding', 'linformer', ''];
const MASK_KINDS = ['none', 'causal', 'valid_lens', 'local', 'atrous', 'strided', 'explicit', 'diagonal'];
const EXTREMES = [0, -0, 1, -1, 2, 3, 2.5, 0.1, 1e-320, 1e-300, 1e300, -1e300, 1e308, -1e308, 1.7976931348623157e308,
  65536, 65537, 1e12, -1e12, 9007199254740991];
const FIELDS = ['trace', 'scale', 'seed', 'factor', 'sample_index', 'output_attention', 'num_heads', 'num_hiddens', 'hidden',
  'weights', 'inner', 'bias', 'kernel', 'w', 'train', 'dataset', 'num_steps', 'encoding_dim', 'base', 'causal_initial',
  'sparsity_divisor', 'sample_per_head', 'squeeze_bug', 'dtype', 'x_query', 'q', 'k', 'v', 'queries', 'b_q'];

function randomNumber() {
  return rand() < 0.7 ? pick(EXTREMES) : Math.round((rand() * 20 - 10) * 100) / 100;
}
function randomMatrix(rows, cols, leaf) {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, leaf));
}
function randomValue() {
  switch (below(12)) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return pick(['x', '', '-inf', 'full', 'causal', 'context', 'gaussian']);
    case 3: return {};
    case 4: return [];
    case 5: return [randomNumber()];
    case 6: return randomMatrix(1 + below(3), 1 + below(3), randomNumber);
    case 7: return { shape: [1 + below(2), 1 + below(3)], data: [1, 2, 3] };
    case 8: return { kind: pick(MASK_KINDS) };
    case 9: return [[[[randomNumber()]]]];
    default: return randomNumber();
  }
}
function randomMask() {
  const mask = { kind: pick(MASK_KINDS) };
  const maybe = (key, make) => { if (rand() < 0.8) mask[key] = make(); };
  if (mask.kind === 'local' || mask.kind === 'strided') maybe('window', () => (rand() < 0.8 ? below(4) : randomValue()));
  if (mask.kind === 'atrous') maybe('dilation', () => (rand() < 0.8 ? 1 + below(3) : randomValue()));
  if (mask.kind === 'strided') maybe('stride', () => (rand() < 0.8 ? 1 + below(3) : randomValue()));
  if (mask.kind === 'valid_lens') maybe('valid_lens', () => (rand() < 0.5 ? [below(5), below(5)] : randomMatrix(2, 1 + below(6), () => below(7))));
  if (mask.kind === 'explicit') maybe('allowed', () => randomMatrix(1 + below(8), 1 + below(8), () => rand() < 0.7));
  if (rand() < 0.3) mask.causal = rand() < 0.8 ? rand() < 0.5 : randomValue();
  if (rand() < 0.4) mask.fill = pick([0, '-inf', -1e6, -1e308, 1e308, 1e-320, 'inf', null]);
  return mask;
}

// Every (container, key) pair in the scenario, containers and leaves apart.
function locations(root) {
  const containers = [], leaves = [];
  const walk = (node) => {
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      const value = node[key];
      const isContainer = value !== null && typeof value === 'object';
      (isContainer ? containers : leaves).push({ node, key });
      if (isContainer) walk(value);
    }
  };
  walk(root);
  return { containers, leaves };
}

function mutate(s) {
  const { containers, leaves } = locations(s);
  const any = () => (rand() < 0.5 && containers.length ? pick(containers) : leaves.length ? pick(leaves) : null);
  const arrays = containers.filter(({ node, key }) => Array.isArray(node[key]));
  switch (below(10)) {
    case 0: {  // another type or value anywhere
      const at = any();
      if (at) at.node[at.key] = randomValue();
      break;
    }
    case 1: case 2: {  // a number to an extreme
      const numbers = leaves.filter(({ node, key }) => typeof node[key] === 'number');
      if (numbers.length) { const at = pick(numbers); at.node[at.key] = randomNumber(); }
      break;
    }
    case 3: {  // delete a key (of an object) or an entry (of an array)
      const at = any();
      if (at && Array.isArray(at.node)) at.node.splice(at.key, 1);
      else if (at) delete at.node[at.key];
      break;
    }
    case 4: {  // duplicate or truncate an array, or empty it
      if (!arrays.length) break;
      const { node, key } = pick(arrays);
      const a = node[key];
      const r = below(4);
      if (r === 0 && a.length) a.push(structuredClone(a[below(a.length)]));
      else if (r === 1) node[key] = a.concat(structuredClone(a));
      else if (r === 2) a.length = Math.max(0, a.length - 1 - below(2));
      else node[key] = [];
      break;
    }
    case 5:  // another algorithm
      s.algorithm = pick(ALGORITHMS);
      break;
    case 6: case 7:  // another mask
      if (rand() < 0.3 && s.mask && typeof s.mask === 'object') s.mask.kind = pick(MASK_KINDS);
      else s.mask = randomMask();
      break;
    default: {  // a field some algorithm reads
      const field = pick(FIELDS);
      s[field] = field === 'trace' ? pick(['context', 'full', 'none']) : rand() < 0.5 ? randomNumber() : randomValue();
    }
  }
  return s;
}

const { run, presets, memoryBytes } = await load();
const seeds = presets().map((p) => p.scenario);
const scenarios = [];
for (let i = 0; i < iterations; i++) {
  let s = structuredClone(seeds[i % seeds.length]);
  const n = 1 + below(3);
  for (let m = 0; m < n; m++) s = mutate(s);
  scenarios.push(s);
}

const toy = presets().find((p) => p.name === 'softmax-toy').scenario;
function attempt(s) {
  const t0 = performance.now();
  try {
    const trace = run(s);
    return { trace, ms: performance.now() - t0 };
  } catch (e) {
    const ms = performance.now() - t0;
    let usable = true;
    try {
      usable = Math.abs(run(toy).context[0][0][0][0] - 7.5527152894520) < 1e-12;
    } catch {
      usable = false;
    }
    return { error: e instanceof Error ? e.message : `threw a non-Error: ${String(e)}`, isError: e instanceof Error, usable, ms };
  }
}

const outcomes = [], samples = [], mismatches = [];
for (const [i, s] of scenarios.entries()) {
  const r = attempt(s);
  outcomes.push(r.trace
    ? { ms: r.ms, badPath: badNumberPath(r.trace), algorithm: r.trace.algorithm }
    : { ms: r.ms, error: r.error, isError: r.isError, usable: r.usable });
  if (i % sampleEvery === 0) samples.push({ index: i, text: JSON.stringify(s), ...(r.trace ? { trace: r.trace } : { error: r.error }) });
}
const afterFirst = memoryBytes();
for (const [i, s] of scenarios.entries()) {  // the same scenarios again
  const r = attempt(s);
  const first = outcomes[i];
  if ((r.error ?? null) !== (first.error ?? null)) mismatches.push({ index: i, first: first.error ?? 'a trace', second: r.error ?? 'a trace' });
}
const afterRepeat = memoryBytes();

parentPort.postMessage({ outcomes, samples, mismatches, memory: { afterFirst, afterRepeat }, texts: scenarios.map((s) => JSON.stringify(s)) });
