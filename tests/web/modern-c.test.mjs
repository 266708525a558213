// Issue 16's last views (helper modern-c), on the presets: the real models' KV cache per token
// (Llama-2-70B and DeepSeek-V2, each line equal to the core's estimate at their sizes times their
// layers); RoPE's decay chart (the trace's rope_decay, explained); ALiBi past the trained length
// (alibi-extrapolate: the bias line per head, the last row's weights, the trained length moved);
// the sinks evicted (sink-window: sink_mass, context and evicted_context as maps, explained); MLA's
// latent and k_rope as maps and its weights edited on the page; decode's weights explained with RoPE
// inside the cache. Light and dark, en and zh, 390 px, axe. Headless Chromium against dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl, samePage, settle, textOf, traceOf, assertCells, setScenario, scenarioOf } from './harness.mjs';
import { axeViolations, openAll, themeAndLang } from './axe.mjs';
import { wasm } from '../node/helpers.mjs';

let page, base, problems, browser;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

const root = () => page.locator('attention-playground');
const explain = (field, index) => page.evaluate(([f, i]) => document.querySelector('attention-playground').explain(f, i), [field, index]);

test('gqa-toy: the real models\' KV cache per token, each line the core\'s estimate at their sizes times their layers', async () => {
  await openUrl(page, `${base}#preset=gqa-toy`);
  const view = root().locator('.modern-view');
  await view.scrollIntoViewIfNeeded();
  await settle(page);
  const lines = await view.locator('[data-field="modern.real"] tr[data-line]').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.line, Number(r.dataset.numbers), r.textContent]));
  const full = (Hk) => wasm.estimate({ algorithm: 'full', q: { shape: [1, 1, 64, 128] }, k: { shape: [1, 1, Hk, 128] }, v: { shape: [1, 1, Hk, 128] } });
  const mla = wasm.estimate({ algorithm: 'mla', x: { shape: [1, 1, 5120] }, num_heads: 128, q_lora_rank: 1536, kv_lora_rank: 512,
    qk_nope_head_dim: 128, qk_rope_head_dim: 64, v_head_dim: 128 });
  const want = {
    'Llama-2-70B MHA (64 kv heads)': 80 * full(64).cost.kv_cache_numbers,
    'Llama-2-70B GQA (8 kv heads)': 80 * full(8).cost.kv_cache_numbers,
    'Llama-2-70B MQA (1 kv head)': 80 * full(1).cost.kv_cache_numbers,
    'DeepSeek-V2 MHA (128 heads)': 60 * mla.sizes.mha_kv_cache_numbers,
    'DeepSeek-V2 MLA': 60 * mla.cost.kv_cache_numbers,
  };
  assert.deepEqual(Object.fromEntries(lines.map(([l, n]) => [l, n])), want);
  assert.equal(want['Llama-2-70B GQA (8 kv heads)'], 163840);
  assert.equal(want['DeepSeek-V2 MLA'], 34560);
  const text = Object.fromEntries(lines.map(([l, , t]) => [l, t]));
  assert.match(text['Llama-2-70B GQA (8 kv heads)'], /163,840.*320 KiB/);
  assert.match(text['DeepSeek-V2 MLA'], /512 \+ 64 = 576.*34,560.*67\.5 KiB/);
  assert.match(text['DeepSeek-V2 MHA (128 heads)'], /2,457,600.*4\.688 MiB/);
  assert.deepEqual(problems, []);
});

test('rope-toy: the decay of the score bound over the relative distance, the trace\'s rope_decay, explained', async () => {
  await samePage(page, 'rope-toy');
  const trace = await traceOf(page);
  assert.equal(trace.rope_decay.length, 512);
  const E = trace.shapes.q[3];
  // the bound written out here, independently of the core: (2/E) Σ_j |Σ_{k<j} e^{i r θ_k}|
  const bound = (r) => {
    let re = 0, im = 0, s = 0;
    for (let k = 0; k < E / 2; k++) { const a = r * 10000 ** (-2 * k / E); re += Math.cos(a); im += Math.sin(a); s += Math.hypot(re, im); }
    return s / (E / 2);
  };
  for (const r of [0, 1, 5, 100, 511]) assert.ok(Math.abs(trace.rope_decay[r] - bound(r)) < 1e-12, `r = ${r}`);
  const view = root().locator('.modern-view .rope-decay');
  await view.scrollIntoViewIfNeeded();
  await settle(page);
  assert.equal(await view.locator('svg[data-field="rope-decay"] path.line').count(), 1);
  // markers at the scenario's distances 0..5, each at the trace's value
  const markers = await view.locator('circle.marker').evaluateAll((cs) => cs.map((c) => [Number(c.dataset.index), Number(c.dataset.value)]));
  assert.deepEqual(markers.map(([d]) => d), [0, 1, 2, 3, 4, 5]);
  for (const [d, v] of markers) assert.equal(v, trace.rope_decay[d]);
  assert.match(await textOf(view.locator('[data-field="rope-decay.summary"]')), /At distance 0: 1\.5; at 5: /);
  const ex = await explain('rope_decay', [10]);
  assert.equal(ex.value, trace.rope_decay[10]);
  assert.ok(Math.abs(ex.terms.reduce((a, t) => a + t.value, 0) / (E / 2) - ex.value) < 1e-12);
  assert.match(ex.text, /relative distance 10/);
  assert.deepEqual(problems, []);
});

test('alibi-extrapolate: the bias on one line past the trained length, the rows still softmaxes; the trained length moved', async () => {
  await samePage(page, 'alibi-extrapolate');
  const trace = await traceOf(page);
  const view = root().locator('.alibi-extrapolation');
  await view.scrollIntoViewIfNeeded();
  await settle(page);
  assert.equal(await view.locator('svg[data-field="alibi-extrapolation"] g.series').count(), 4);
  assert.equal(await textOf(view.locator('output[data-field="alibi.trained"]')), '8');
  const rows = async () => view.locator('tr[data-head]').evaluateAll((rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
  let r = await rows();
  assert.equal(r.length, 4);
  // head 0: bias -0.25 · 7 at distance 7, -5.75 at 23; every row sums to 1
  assert.deepEqual(r[0].slice(0, 3), ['0', '-1.75', '-5.75']);
  for (const row of r) assert.equal(row[3], '1');
  const beyond = (hh, L) => trace.weights[0][hh][23].reduce((a, w, j) => a + (23 - j >= L ? w : 0), 0);
  assert.ok(Math.abs(Number(r[0][4]) - beyond(0, 8)) < 1e-3 * Math.max(1, beyond(0, 8)));
  await view.locator('[data-key="alibi.trained"]').evaluate((e) => { e.value = '16'; e.dispatchEvent(new Event('change', { bubbles: true })); });
  await settle(page);
  const moved = root().locator('.alibi-extrapolation');
  assert.equal(await textOf(moved.locator('output[data-field="alibi.trained"]')), '16');
  r = await moved.locator('tr[data-head]').evaluateAll((rs) => rs.map((x) => [...x.cells].map((c) => c.textContent)));
  assert.equal(r[0][1], '-3.75');
  const ex = await explain('bias', [0, 23, 0]);
  assert.equal(ex.value, -5.75);
  assert.match(ex.text, /−0\.25 · 23 = -5\.75/);
  assert.deepEqual(problems, []);
});

test('sink-window: the weight on the sinks, the context with and without them as maps, explained; dark, zh, 390 px, axe', async () => {
  await samePage(page, 'sink-window');
  const trace = await traceOf(page);
  const view = root().locator('.sink-eviction');
  await view.scrollIntoViewIfNeeded();
  await settle(page);
  assert.equal(await assertCells(view, 'sink_mass', trace.sink_mass), 10);
  assert.equal(await assertCells(view, 'evicted_context', trace.evicted_context), 20);
  assert.equal(await assertCells(view, 'context', trace.context), 20);
  for (const field of ['sink_mass', 'context', 'evicted_context'])
    assert.equal(await view.locator(`figure[data-field="${field}"] .map-legend`).count(), 1, `${field}: a legend`);
  // queries 0..2 see the sinks through the window: unchanged; later ones move
  for (const i of [0, 1, 2]) assert.deepEqual(trace.evicted_context[0][i], trace.context[0][i]);
  assert.notDeepEqual(trace.evicted_context[0][9], trace.context[0][9]);
  const m = await explain('sink_mass', [0, 0, 9]);
  assert.equal(m.value, trace.sink_mass[0][0][9]);
  assert.ok(Math.abs(m.terms[0].value + m.terms[1].value - m.value) < 1e-15);
  const c = await explain('evicted_context', [0, 9, 0, 1]);
  assert.equal(c.value, trace.evicted_context[0][9][0][1]);
  assert.ok(Math.abs(c.terms.reduce((a, t) => a + t.value, 0) - c.value) < 1e-12);
  assert.equal(c.terms.filter((t) => t.value !== 0).length, 3, 'the window alone: keys 7, 8, 9');
  assert.match(await textOf(view.locator('[data-field="sink-eviction.delta"]')), /Largest change of the context: \d\.\d\de-?\d+ at query \d/);
  await themeAndLang(page, 'dark', 'zh');
  await settle(page);
  assert.match(await textOf(root().locator('.sink-eviction h4')), /逐出汇点/);
  await page.setViewportSize({ width: 390, height: 844 });
  await settle(page);
  const widths = await root().locator('.modern-view').evaluate((e) => [e.scrollWidth, e.getBoundingClientRect().width]);
  assert.ok(widths[1] <= 390, `the view fits 390 px: ${widths}`);
  await openAll(page);
  assert.deepEqual(await axeViolations(page), []);
  await themeAndLang(page, 'light', 'en');
  await page.setViewportSize({ width: 1400, height: 1000 });
  assert.deepEqual(problems, []);
});

test('mla-toy: the latent and k_rope as maps, explained; the weights edited on the page', async () => {
  await openUrl(page, `${base}#preset=mla-toy`);
  const trace = await traceOf(page);
  const maps = root().locator('.mla-cache-maps');
  await maps.scrollIntoViewIfNeeded();
  await settle(page);
  assert.equal(await assertCells(maps, 'latent', trace.latent), 5 * 4);
  assert.equal(await assertCells(maps, 'k_rope', trace.k_rope), 5 * 2);
  for (const field of ['latent', 'k_rope']) assert.equal(await maps.locator(`figure[data-field="${field}"] .map-legend`).count(), 1);
  const l = await explain('latent', [0, 3, 2]);
  assert.equal(l.value, trace.latent[0][3][2]);
  assert.match(l.text, /RMSNorm/);
  for (const index of [[0, 3, 0], [0, 3, 1], [0, 0, 1]]) {
    const k = await explain('k_rope', index);
    assert.equal(k.value, trace.k_rope[index[0]][index[1]][index[2]]);
    // the rotation written out by the explanation reproduces the value
    const [a0, a1, cs, sn] = k.terms.map((t) => t.value);
    const again = index[2] === 0 ? a0 * cs - a1 * sn : a1 * cs + a0 * sn;
    assert.ok(Math.abs(again - k.value) < 1e-12, `k_rope ${index}`);
  }
  // the weights: drawn from the seed (the trace's state_dict) until the first edit writes them all
  const details = root().locator('details.weights');
  await details.locator('summary').click();
  await settle(page);
  assert.match(await textOf(details.locator('summary')), /q_proj\.weight, kv_a_proj_with_mqa\.weight, kv_a_layernorm\.weight, kv_b_proj\.weight, o_proj\.weight/);
  const before = trace.output;
  const cell = details.locator('[data-key="weights.kv_b_proj.weight[0][0]"]');
  await cell.fill('2.5');
  await page.waitForFunction(() => document.querySelector('attention-playground').scenario.weights !== undefined);
  await settle(page);
  const s = await scenarioOf(page);
  assert.deepEqual(Object.keys(s.weights).sort(), ['kv_a_layernorm.weight', 'kv_a_proj_with_mqa.weight', 'kv_b_proj.weight', 'o_proj.weight', 'q_proj.weight']);
  assert.equal(s.weights['kv_b_proj.weight'][0][0], 2.5);
  assert.equal(s.weights['o_proj.weight'][1][2], trace.state_dict['o_proj.weight'][1][2]);
  const after = await traceOf(page);
  assert.notDeepEqual(after.output, before);
  assert.ok(after.state_dict === undefined, 'given weights: nothing drawn');
  assert.deepEqual(problems, []);
});

test('decode with RoPE inside the cache: each step\'s weights explained from the unrotated q and k', async () => {
  await samePage(page, 'decode-sinks');
  const s = await scenarioOf(page);
  await setScenario(page, { ...s, rope: { ...(s.rope ?? {}), positions: 'cache' } });
  const trace = await traceOf(page);
  const P = trace.prompt;
  for (const i of [P, P + 3, trace.shapes.context[1] - 1]) {
    const held = trace.cache_positions[i - P].filter((p) => p >= 0);
    for (const j of [held[0], held[held.length - 1]]) {
      const ex = await explain('weights', [0, 0, i, j]);
      assert.equal(ex.value, trace.weights[0][0][i][j]);
      // the explanation's scores (one per held key) give the weight by their softmax
      const sc = ex.terms.map((t) => t.value), max = Math.max(...sc);
      const total = sc.reduce((a, x) => a + Math.exp(x - max), 0);
      assert.ok(Math.abs(Math.exp(sc[held.indexOf(j)] - max) / total - ex.value) < 1e-12, `weights[${i}][${j}]`);
      assert.match(ex.text, new RegExp(`holds keys ${held.join(', ')}`));
    }
  }
  assert.deepEqual(problems, []);
});
