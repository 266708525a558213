// The checks of "every number explains itself" (SPEC §1, issue 14 item 2) for one preset open on the
// page: tests/web/presets.test.mjs runs them on every preset, in its one visit of each (with the
// legends', the estimate's, the snippet's and the description's checks). What they check:
//
// Every number explains itself (SPEC §1, issue 14 item 2): for EVERY preset and EVERY map the page
// draws (figures with data-field and their cells with data-index, flash's table cells, a few
// cells of each canvas map) `el.explain(field, index)` gives the cell's value (the trace's,
// exactly), a formula showing its terms' numbers, terms and operands that are cells of the trace
// or of the scenario's inputs; the softmax family's values are recomputed from their terms (Σ
// products × scale; exp / row sum; Σ w·v) to 1e-12, and so are the kernel and approximate
// algorithms' own (checkOwn: φ(q)·φ(k) / Σ, Performer's exp(ω·x̃ − ‖x̃‖²/2) / √m, LSH's argmax and
// Σ_r ρ_r p_r, NW's u and kernel, PE's sin/cos of its argument, Bahdanau's w_v·tanh(·) and logits).
// A map the page draws that no explainer explains fails.
import assert from 'node:assert/strict';
import { fromPageJSON } from './harness.mjs';

/** The page the helpers below read (explainPreset sets it). */
let page;

/** Maps that are no trace's cells: the chapter's 1/√d argument (its own random draws, not the scenario). */
const NOT_TRACE = new Set(['scale-scaled.weights', 'scale-unscaled.weights']);
/** Cells checked per map (all of a map this small; else spread over it, first and last included). */
const PER_MAP = 24;

/** The formula's numbers as the explainers write them (explain/common.ts num): 4 significant digits. */
function num(x) {
  if (Number.isNaN(x)) return '\\text{NaN}';
  if (x === Infinity) return '\\infty';
  if (x === -Infinity) return '-\\infty';
  const s = String(Number(x.toPrecision(4)));
  const m = /^(-?[\d.]+)e([+-]\d+)$/.exec(s);
  return m ? `${m[1]} \\times 10^{${Number(m[2])}}` : s;
}

/** Every map cell the page shows now: [field, index string, data-value]. Canvas maps: the cells
 * under a few points of the canvas (their hover line names them). */
const shownCells = () => page.evaluate(async () => {
  const root = document.querySelector('attention-playground').shadowRoot;
  const out = [];
  for (const fig of root.querySelectorAll('figure[data-field]')) {
    for (const td of fig.querySelectorAll('td[data-index]')) out.push([fig.dataset.field, td.dataset.index, td.dataset.value ?? null]);
    const canvas = fig.querySelector('canvas');
    const hover = fig.querySelector('output.map-hover');
    if (!canvas || !hover) continue;
    canvas.scrollIntoView();
    await new Promise((r) => requestAnimationFrame(() => r()));
    const box = canvas.getBoundingClientRect();
    for (const [fx, fy] of [[0.01, 0.01], [0.5, 0.5], [0.99, 0.99], [0.3, 0.8]]) {
      canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + fx * box.width, clientY: box.top + fy * box.height, bubbles: true }));
      if (hover.dataset.index !== undefined) out.push([fig.dataset.field, hover.dataset.index, hover.dataset.value ?? null]);
    }
  }
  // flash's step table: cells of their own (data-field on the td)
  for (const td of root.querySelectorAll('td[data-field][data-index]')) out.push([td.dataset.field, td.dataset.index, td.dataset.value ?? null]);
  return out;
});

/** A few cells of each map: all of a small one, else PER_MAP spread over it. */
function sample(cells) {
  const byField = new Map();
  for (const c of cells) {
    const key = c[0];
    if (!byField.has(key)) byField.set(key, []);
    if (!byField.get(key).some((x) => x[1] === c[1])) byField.get(key).push(c);
  }
  const out = [];
  for (const list of byField.values()) {
    if (list.length <= PER_MAP) out.push(...list);
    else for (let n = 0; n < PER_MAP; n++) out.push(list[Math.round((n * (list.length - 1)) / (PER_MAP - 1))]);
  }
  return out;
}

/** el.explain on each cell, in the page; with the values of each explanation's operands and refs
 * (a trace field, a scenario input — dotted paths too —, else a page map el.explain explains). */
const explainAll = (cells) => page.evaluate(async (cells) => {
  const el = document.querySelector('attention-playground');
  const trace = el.trace, scenario = el.scenario;
  const at = (v, index) => {
    if (v && !Array.isArray(v) && Array.isArray(v.shape) && v.data) {
      let off = 0;
      for (let d = 0; d < index.length; d++) { if (index[d] < 0 || index[d] >= v.shape[d]) return undefined; off = off * v.shape[d] + index[d]; }
      return index.length === v.shape.length ? v.data[off] : undefined;
    }
    for (const i of index) { if (!Array.isArray(v) || i < 0 || i >= v.length) return undefined; v = v[i]; }
    return Array.isArray(v) ? undefined : v;
  };
  const dotted = (obj, path) => path.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), obj);
  const valueOf = async (r) => {
    if (trace[r.field] !== undefined) return { from: 'trace', value: at(trace[r.field], r.index) };
    const s = dotted(scenario, r.field);
    if (s !== undefined) return { from: 'scenario', value: at(s, r.index) };
    try { return { from: 'explain', value: (await el.explain(r.field, r.index)).value }; } catch (e) { return { from: 'none', error: e.message }; }
  };
  const out = [];
  for (const [field, indexText, shown] of cells) {
    const index = indexText.split(',').map(Number);
    let ex = null, error = null;
    try { ex = await el.explain(field, index); } catch (e) { error = e.message; }
    const refs = ex ? [...ex.operands, ...ex.terms.flatMap((t) => [...(t.ref ? [t.ref] : []), ...(t.refs ?? [])])] : [];
    const values = {};
    for (const r of refs) {
      const key = `${r.field}[${r.index.join(',')}]`;
      if (!(key in values)) values[key] = await valueOf(r);
    }
    out.push({ field, indexText, shown, ex, error, values, traceValue: trace[field] !== undefined ? at(trace[field], index) : undefined });
  }
  return window.__attnplayJSON({ out, algorithm: trace.algorithm, featureMap: scenario.feature_map ?? 'elu1' });
}, cells).then(fromPageJSON);

/** [field, shape] of the trace's tensors (booleans and numbers; not the inputs it echoes). */
const traceShapes = () => page.evaluate(() => {
  const t = document.querySelector('attention-playground').trace;
  return Object.entries(t.shapes).filter(([f, shape]) => t[f] !== undefined && shape.length > 0 && shape.every((n) => n > 0));
});

const key = (r) => `${r.field}[${r.index.join(',')}]`;
const close = (a, b, tol = 1e-12) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

/** The checks of one explanation (SPEC §1 and issue 14 item 2). */
function check(preset, r) {
  const where = `${preset}: ${r.field}[${r.indexText}]`;
  const { ex } = r;
  assert.equal(ex.field, r.field, `${where}: field`);
  // the value: the cell's as the page shows it, and the trace's exactly where it is a trace field
  if (r.shown !== null) assert.equal(String(ex.value), r.shown, `${where}: value ${ex.value} vs shown ${r.shown}`);
  if (r.traceValue !== undefined) assert.equal(ex.value, r.traceValue, `${where}: value vs trace`);
  assert.equal(typeof ex.formula, 'string', where);
  assert.ok(ex.formula.length > 0 && ex.text.length > 0, `${where}: formula and text`);
  // LaTeX that KaTeX parses: balanced braces, no bare "_" in \text{}
  let depth = 0;
  for (const ch of ex.formula.replace(/\\[{}]/g, '')) { depth += ch === '{' ? 1 : ch === '}' ? -1 : 0; assert.ok(depth >= 0, `${where}: braces: ${ex.formula}`); }
  assert.equal(depth, 0, `${where}: braces: ${ex.formula}`);
  for (const m of ex.formula.matchAll(/\\text\{([^}]*)\}/g)) assert.ok(!/(^|[^\\])_/.test(m[1]), `${where}: a bare _ in \\text{${m[1]}}`);
  // every operand and every term's cell is a cell of the trace, the scenario, or a map explained
  for (const [k, v] of Object.entries(r.values)) {
    assert.ok(v.value !== undefined && v.value !== null && (typeof v.value === 'number' || typeof v.value === 'boolean'),
      `${where}: operand ${k} is no cell (${v.from}${v.error ? `: ${v.error}` : ''})`);
  }
  // the formula shows its terms' numbers (products: their factors); a shortened sum ("\cdots") shows
  // its first three terms, its last (unless more terms than `terms` holds) and every aggregate (no cell)
  const shortened = ex.formula.includes('\\cdots');
  const capped = /listed|列出/.test(ex.text);
  ex.terms.forEach((t, n) => {
    const aggregate = !t.ref && !t.refs && !/\d/.test(t.name);  // a max, a sum, the scale (not one of a list)
    if (shortened && n >= 3 && !aggregate && (capped || n !== ex.terms.length - 1)) return;
    if (t.refs?.length) {  // a product: its factors' numbers (a computed factor has no cell)
      for (const f of t.refs) {
        const x = r.values[key(f)].value;
        assert.ok(ex.formula.includes(num(x)), `${where}: the formula lacks the factor ${num(x)} of ${t.name}: ${ex.formula}`);
      }
      if (t.refs.length === 2) assert.ok(close(t.value, r.values[key(t.refs[0])].value * r.values[key(t.refs[1])].value, 1e-15), `${where}: ${t.name} is its factors' product`);
    } else if (Number.isFinite(t.value)) {
      assert.ok(ex.formula.includes(num(t.value)), `${where}: the formula lacks ${t.name} = ${num(t.value)}: ${ex.formula}`);
    }
  });
  // the softmax family, recomputed from the terms
  const products = ex.terms.filter((t) => t.refs?.length);
  const byName = (name) => ex.terms.find((t) => t.name === name);
  const rowSum = byName('Σ_j exp(s_j − max)');
  if (rowSum) {
    // the softmax's axis: the last index, but for LSH's rounds (index [r, b, h, i]) and softmax_qk's
    // φ(k) (a softmax over the keys j of index [b, j, h, f])
    const j = Number(r.indexText.split(',').at({ round_weights: 0, features_k: 1 }[r.field] ?? -1));
    const mine = ex.terms.find((t) => t.name === `exp(s_${j} − max)`);
    assert.ok(mine, `${where}: the cell's own exp term`);
    assert.ok(close(mine.value / rowSum.value, ex.value), `${where}: exp / row sum = ${mine.value / rowSum.value} vs ${ex.value}`);
    const max = byName('max_j s').value;
    const exps = ex.terms.filter((t) => t.name.startsWith('exp(s_'));
    for (const t of exps) if (t.ref) assert.ok(close(t.value, Math.exp(r.values[key(t.ref)].value - max)), `${where}: ${t.name} = exp(s − max)`);
    if (!capped) assert.ok(close(exps.reduce((a, t) => a + t.value, 0), rowSum.value), `${where}: the row sum is the sum of its exps`);
  } else if (byName('scale') && products.length && !capped) {
    const bias = byName('ALiBi bias')?.value ?? 0; // ALiBi: the score is Σ products × scale + bias (issue 16)
    const dot = products.filter((t) => t.name !== 'ALiBi bias').reduce((a, t) => a + t.value, 0);
    assert.ok(close(dot * byName('scale').value + bias, ex.value), `${where}: Σ products × scale (+ bias) = ${dot * byName('scale').value + bias} vs ${ex.value}`);
  } else if (products.length && products.length === ex.terms.length && !capped) {
    assert.ok(close(products.reduce((a, t) => a + t.value, 0), ex.value), `${where}: Σ products = ${ex.value}`);
  }
  // the other algorithms' own arithmetic, from the terms
  const v = (name) => byName(name)?.value;
  if (v('L_K') !== undefined && v('max') !== undefined && v('sum') !== undefined) {
    assert.ok(close(v('max') - v('sum') / v('L_K'), ex.value), `${where}: M = max − sum / L_K`);
  }
  const old = byName('ℓ_{t−1}') ?? byName('O_{t−1}');
  if (v('a_t') !== undefined && old && !capped) {
    const rest = ex.terms.filter((t) => t !== old && t.name !== 'a_t').reduce((a, t) => a + t.value, 0);
    assert.ok(close(v('a_t') * old.value + rest, ex.value, 1e-11), `${where}: a_t · old + Σ_block = ${v('a_t') * old.value + rest} vs ${ex.value}`);
  }
  if (v('weights1') !== undefined && v('λ') !== undefined) assert.ok(close(v('weights1') - v('λ') * v('weights2'), ex.value), `${where}: w1 − λ w2`);
  if (v('O_t') !== undefined && v('ℓ_t') !== undefined && v('ℓ_t') !== 0) assert.ok(close(v('O_t') / v('ℓ_t'), ex.value), `${where}: O / ℓ`);
}

// ---- explain-b's algorithms: their own values recomputed from their terms (to 1e-12) ----

/** The terms whose names start with `prefix`, in order. */
const named = (ex, prefix) => ex.terms.filter((t) => t.name.startsWith(prefix));
const sumOf = (list) => list.reduce((a, t) => a + t.value, 0);

function checkOwn(preset, r, algorithm, featureMap) {
  const where = `${preset}: ${r.field}[${r.indexText}]`;
  const { ex } = r;
  const index = r.indexText.split(',').map(Number);
  const one = (prefix) => {
    const list = named(ex, prefix);
    assert.equal(list.length, 1, `${where}: one term "${prefix}…" (${ex.terms.map((t) => t.name).join(' | ')})`);
    return list[0].value;
  };
  const eq = (a, b, what) => assert.ok(close(a, b), `${where}: ${what}: ${a} vs ${b}`);
  const kernel = algorithm === 'linear' || algorithm === 'performer';
  if (kernel && r.field === 'weights' && ex.terms.length) {
    // φ(q_i)·φ(k_j) = Σ_f of its products; over Σ_j' φ(q_i)·φ(k_j') (softmax_qk: no row sum)
    const [, , i, j] = index;
    const products = ex.terms.filter((t) => t.refs?.length === 2);
    const den = named(ex, 'Σ_j\' sim');
    if (products.length) eq(sumOf(products), one(`φ(q_${i})·φ(k_${j})`), 'φ(q)·φ(k) = Σ_f φ(q)_f φ(k)_f');
    if (den.length) {
      eq(sumOf(named(ex, `sim(q_${i}, k_`)), den[0].value, 'the row sum is Σ_j\' sim(q, k_j\')');
      if (den[0].value > 0) eq(one(`φ(q_${i})·φ(k_${j})`) / den[0].value, ex.value, 'φ(q)·φ(k) / Σ');
      else assert.equal(ex.value, 0, `${where}: a zero row sum gives 0`);
    } else if (products.length) {
      eq(one(`φ(q_${i})·φ(k_${j})`), ex.value, 'softmax_qk: φ(q)·φ(k)');
    }
  }
  if (algorithm === 'linear' && /^features_/.test(r.field) && (featureMap === 'elu1' || featureMap === 'relu')) {
    const x = r.values[key(ex.operands[0])].value;
    eq(featureMap === 'elu1' ? (x > 0 ? x + 1 : Math.exp(x)) : Math.max(x, 0), ex.value, `${featureMap}(${x})`);
  }
  if (algorithm === 'linear' && /^features_/.test(r.field) && featureMap === 'cosine1' && index[3] > 0) {
    const xs = ex.terms.filter((t) => t.ref).map((t) => t.value);
    eq(xs[index[3] - 1] / Math.hypot(...xs), ex.value, 'x / |x|');
  }
  if (algorithm === 'performer' && /^features_/.test(r.field)) {
    // exp(√scale Σ_e ω_e x_e − ‖x̃‖²/2) / √m
    const wx = one('√scale') * sumOf(ex.terms.filter((t) => t.refs?.length === 2));
    eq(wx, one('ω_'.concat(String(index[3]), '·')), 'ω·x̃ = √scale Σ ω x');
    eq(Math.exp(wx - one('‖')) / one('√m'), ex.value, 'exp(ω·x̃ − ‖x̃‖²/2) / √m');
  }
  if (algorithm === 'lsh' && r.field === 'buckets') {
    const rotated = ex.terms.map((t) => t.value);
    assert.equal(rotated.indexOf(Math.max(...rotated)), ex.value, `${where}: argmax [xR; −xR]`);
    const half = rotated.length / 2;
    for (let c = 0; c < half; c++) assert.equal(rotated[c + half], -rotated[c], `${where}: the second half is −xR`);
  }
  if (algorithm === 'lsh' && r.field === 'weights' && !ex.terms.length) assert.equal(ex.value, 0, `${where}: no shared bucket: 0`);
  else if (algorithm === 'lsh' && r.field === 'weights') {
    // Σ over the rounds i and j share of ρ_r · exp(s − lse_r)
    const rho = named(ex, 'round_weights['), lse = named(ex, 'lse_'), p = named(ex, 'p_');
    const s = one('scale·q_') - (named(ex, 'N_').length ? Math.log(one('N_')) : 0);
    p.forEach((t, n) => eq(t.value, Math.exp(s - lse[n].value), 'p_r = exp(s − lse_r)'));
    eq(rho.reduce((a, t, n) => a + t.value * p[n].value, 0), ex.value, 'Σ_r ρ_r p_r');
  }
  if (algorithm === 'nadaraya_watson' && r.field === 'weights') {
    const u = one('u =');
    eq((one('x_query[') - one('x_train[')) * one('w'), u, 'u = (x_query − x_train)·w');
    if (named(ex, 's = ').length) eq(one('s = '), -(u * u) / 2, 's = −u²/2');
  }
  if (algorithm === 'positional_encoding') {
    const arg = one('argument');
    eq(one('i') / one('base^'), arg, 'i / base^(2j/d)');
    eq(Math.pow(10000, one('2j/d')), one('base^'), 'base^(2j/d) (base 10000)');
    eq((index[1] % 2 === 0 ? Math.sin : Math.cos)(arg), ex.value, 'sin / cos of the argument');
  }
  if (algorithm === 'bahdanau' && r.field === 'weights' && named(ex, 'w_v[').length) {
    const [, t, j] = index;
    const a = named(ex, '(W_q'), wv = named(ex, 'w_v[');
    eq(wv.reduce((acc, x, n) => acc + x.value * Math.tanh(a[n].value), 0), one(`s_${t},${j}`), 's = w_v·tanh(W_q q + W_k k)');
  }
  if (algorithm === 'bahdanau' && r.field === 'output' && named(ex, 'dense.weight').length) {
    const wd = named(ex, 'dense.weight'), o = named(ex, 'o_');
    eq(wd.reduce((acc, x, n) => acc + x.value * o[n].value, 0) + one('dense.bias'), ex.value, 'W_dense o + b');
  }
}

/** The explain checks of the preset open on `p` (named `preset`): a sample of every map's cells, and
 * the first and last cell of every trace field the page does not draw as a map (weights1, sparsity,
 * running_max, ...), explained right where the explainer takes it. Adds to `counts` ({ cells, maps,
 * fields }). */
export async function explainPreset(p, preset, counts) {
  page = p;
  const cells = sample((await shownCells()).filter((c) => !NOT_TRACE.has(c[0])));
  assert.ok(cells.length > 0, `${preset}: no map cells`);
  const { out, algorithm, featureMap } = await explainAll(cells);
  const drawn = new Set(cells.map((c) => c[0]));
  const others = (await traceShapes()).filter(([f]) => !drawn.has(f)).flatMap(([f, shape]) =>
    [[f, shape.map(() => 0).join(','), null], [f, shape.map((n) => n - 1).join(','), null]]);
  for (const r of (await explainAll(others)).out) {
    if (r.error && /does not explain|can be explained|has no explainer yet/.test(r.error)) continue;
    if (r.error) assert.fail(`${preset}: ${r.field}[${r.indexText}]: ${r.error}`);
    check(preset, r);
    checkOwn(preset, r, algorithm, featureMap);
    counts.fields++;
  }
  const fields = new Set();
  for (const r of out) {
    if (r.error) assert.fail(`${preset}: ${r.field}[${r.indexText}]: ${r.error}`);
    check(preset, r);
    checkOwn(preset, r, algorithm, featureMap);
    counts.cells++;
    fields.add(r.field);
  }
  counts.maps += fields.size;
}
