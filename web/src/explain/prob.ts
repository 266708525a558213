// prob: ProbAttention's maps (core/prob_attention.cpp, SPEC §2 steps 2-9) with their numbers:
//   samples / sample_index   the keys drawn for query i
//   q_k_sample[b,h,i,s]      q_i · k_{sample_index[i,s]} (unscaled)
//   sparsity[b,h,i]          M = max_s q_k_sample − Σ_s q_k_sample / L_K (divided by L_K, not U_part)
//   sparsity_exact[b,h,i]    the same against every key
//   top_index[b,h,t]         the t-th largest M (or the scenario's top_index)
//   scores_top, allowed_top, weights_top   softmax.ts on row t = query top_index[b,h,t] (ProbMask: j ≤ i)
//   initial_context          mean_j v_j (causal: Σ_{j ≤ i} v_j, the reference's cumulative sum)
//   context                  the lazy queries' initial context; the top queries' Σ_j w_j v_j
//   attn                     1/L_K, or the top row's weights
// Multi-head's Informer AttentionLayer (inner "prob") uses it on its projected q, k, v.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explanation, Term } from './explanation';
import { Cells, capNote, capped, dotSum, exactTex, exactText, explained, num, plain, ref, say, sum, sumText } from './common';
import { explainAllowed, explainScore, explainWeight, maskOf, scaleOf, softmaxRow, type SoftmaxSpec } from './softmax';

/** sample_index's row of query i (per head when it is (H, L_Q, U_part)), with its index prefix. */
function sampleRow(c: Cells, h: number, i: number): { keys: number[]; at: number[] } {
  const perHead = c.shape('sample_index').length === 3;
  const at = perHead ? [h, i] : [i];
  const U = c.shape('sample_index').at(-1) ?? 0;
  const keys: number[] = [];
  for (let s = 0; s < U; s++) keys.push(c.num('sample_index', [...at, s]));
  return { keys, at };
}

/** The top row t of (b, h) that is query i (-1: none). */
function topRow(c: Cells, b: number, h: number, i: number): number {
  const u = c.shape('top_index')[2] ?? 0;
  for (let t = 0; t < u; t++) if (c.num('top_index', [b, h, t]) === i) return t;
  return -1;
}

/** Row t's spec: scores_top, allowed_top, weights_top of query top_index[b,h,t] (ProbMask: causal, −∞). */
function topSpec(c: Cells): SoftmaxSpec {
  const mask = maskOf(c.scenario);
  return { q: 'q', k: 'k', v: 'v', scores: 'scores_top', allowed: 'allowed_top', weights: 'weights_top', context: '',
    ...scaleOf(c.scenario, c.shape('q')[3] ?? 1), mask: mask ? { ...mask, kind: 'causal', fill: -Infinity } : null,
    queryOf: (b, h, t) => c.num('top_index', [b, h, t]) };
}

const causal = (c: Cells) => maskOf(c.scenario) !== null;

function explainSamples(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [h, i, j] = index.length === 3 ? index : [0, ...index];
  const L_K = c.shape('k')[1];
  const { keys, at } = sampleRow(c, h, i);
  if (!keys.length || !(j >= 0 && j < L_K)) return null;
  const hits = keys.map((x, s) => (x === j ? s : -1)).filter((s) => s >= 0);
  const value = hits.length;
  const refs = hits.map((s) => ref('sample_index', [...at, s]));
  return explained(field, index, value, `\\#\\{s : \\text{sample\\_index}[${i}, s] = ${j}\\} = ${value}, \\quad \\text{sample\\_index}[${i}] = [${keys.join(', ')}]`,
    say(lang, `key ${j} is drawn ${value} time${value === 1 ? '' : 's'} for query ${i}: sample_index[${i}] = [${keys.join(', ')}] (with replacement)`,
      `查询 ${i} 抽到键 ${j} 共 ${value} 次：sample_index[${i}] = [${keys.join(', ')}]（有放回）`),
    refs.map((r) => ({ name: `sample_index[${r.index.join(',')}]`, value: j, ref: r })), refs);
}

function explainSampleIndex(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const i = index.at(-2)!;
  const given = Array.isArray(c.scenario.sample_index) || (c.scenario.sample_index !== undefined && c.scenario.sample_index !== null);
  return explained(field, index, value, `\\text{sample\\_index}[${index.join(', ')}] = ${value}`,
    say(lang, `query ${i} samples key ${value} (${given ? 'given by the scenario' : `drawn with replacement from the seed ${Number(c.scenario.seed ?? 0)}`})`,
      `查询 ${i} 采样键 ${value}（${given ? '由场景给出' : `由种子 ${Number(c.scenario.seed ?? 0)} 有放回抽取`}）`), [], []);
}

function explainQKSample(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i, s] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const { keys, at } = sampleRow(c, h, i);
  const j = keys[s];
  const E = c.shape('q')[3];
  const p = dotSum(E, (e) => `q[${i}]·k[${j}] (e=${e})`, (e) => {
    const rq = ref('q', [b, i, h, e]), rk = ref('k', [b, j, h, e]);
    return [c.num('q', rq.index), c.num('k', rk.index), rq, rk];
  });
  const sRef = ref('sample_index', [...at, s]);
  return explained(field, index, value, `q_{${i}} \\cdot k_{${j}} = ${p.tex} = ${num(value)}${exactTex(value)}`,
    say(lang, `q[${i}]·k[${j}] (key ${j} = sample_index[${i}, ${s}], unscaled) = ${p.text} = ${plain(value)}${exactText(value)}`,
      `q[${i}]·k[${j}]（键 ${j} = sample_index[${i}, ${s}]，未缩放）= ${p.text} = ${plain(value)}${exactText(value)}`) + capNote(lang, p.n),
    [...p.terms, { name: `sample_index[${i},${s}]`, value: j, ref: sRef }], [sRef, ...p.operands]);
}

/** M = max − sum / L_K over `xs`: the sampled products (sparsity) or every key's (sparsity_exact). */
function explainM(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const L_K = c.shape('k')[1];
  const exact = field === 'sparsity_exact';
  let xs: number[], names: string[], refs: (CellRef | undefined)[], operands: CellRef[] = [];
  if (exact) {
    const parts = Array.from({ length: L_K }, (_, j) => dotSum(c.shape('q')[3], () => '', (e) => {
      const rq = ref('q', [b, i, h, e]), rk = ref('k', [b, j, h, e]);
      return [c.num('q', rq.index), c.num('k', rk.index), rq, rk];
    }));
    xs = parts.map((p) => p.total);
    names = xs.map((_, j) => `q[${i}]·k[${j}]`);
    refs = xs.map(() => undefined);
    operands = parts.flatMap((p) => p.operands);
  } else {
    const U = c.shape('q_k_sample')[3];
    const keys = sampleRow(c, h, i).keys;
    refs = Array.from({ length: U }, (_, s) => ref('q_k_sample', [b, h, i, s]));
    xs = refs.map((r) => c.num('q_k_sample', r!.index));
    names = keys.map((j, s) => `q[${i}]·k[${j}] (s=${s})`);
    operands = refs as CellRef[];
  }
  const max = Math.max(...xs);
  let total = 0;
  for (const x of xs) total += x;
  const terms: Term[] = [...capped(xs.map((x, n) => ({ name: names[n], value: x, ...(refs[n] ? { ref: refs[n] } : {}) }))),
    { name: 'max', value: max }, { name: 'sum', value: total }, { name: 'L_K', value: L_K }];
  const over = exact ? say(lang, 'every key', '所有键') : say(lang, `the sampled keys [${sampleRow(c, h, i).keys.join(', ')}]`, `采样的键 [${sampleRow(c, h, i).keys.join(', ')}]`);
  const formula = `M_{${i}} = \\max_{${exact ? 'j' : 's'}} q_{${i}} \\cdot k - \\frac{\\sum q_{${i}} \\cdot k}{L_K} = \\max(${sum(xs.map(num), ', ')}) - \\frac{${sum(xs.map(num))}}{${L_K}} = ${num(max)} - \\frac{${num(total)}}{${L_K}} = ${num(value)}${exactTex(value)}`;
  const text = say(lang,
    `M = max − sum / L_K over ${over} = ${plain(max)} − (${sumText(xs.map(plain))}) / ${L_K} = ${plain(max)} − ${plain(total)} / ${L_K} = ${plain(value)}${exactText(value)}${exact ? '' : ' (divided by L_K, not by the number of samples)'}`,
    `M = max − sum / L_K，对${over} = ${plain(max)} − (${sumText(xs.map(plain))}) / ${L_K} = ${plain(max)} − ${plain(total)} / ${L_K} = ${plain(value)}${exactText(value)}${exact ? '' : '（除以 L_K，而不是样本数）'}`) +
    capNote(lang, xs.length);
  return explained(field, index, value, formula, text, terms, operands);
}

function explainTop(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, t] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const L_Q = c.shape('sparsity')[2];
  const given = c.scenario.top_index !== undefined;
  const refs = Array.from({ length: L_Q }, (_, i) => ref('sparsity', [b, h, i]));
  const Ms = refs.map((r) => c.num('sparsity', r.index));
  const order = Ms.map((x, i) => [x, i]).sort((a, z) => z[0] - a[0] || a[1] - z[1]).map((p) => p[1]);
  // the terms in the formula's order: by M, largest first
  const terms = capped(order.map((i) => ({ name: `M_${i}`, value: Ms[i], ref: refs[i] })));
  if (given) {
    return explained(field, index, value, `\\text{top\\_index}[${t}] = ${value} \\;\\text{(given; } M_{${value}} = ${num(Ms[value])})`,
      say(lang, `top_index[${t}] = ${value}: given by the scenario, not ranked by M (M of query ${value} is ${plain(Ms[value])})`,
        `top_index[${t}] = ${value}：由场景给出，而非按 M 排序（查询 ${value} 的 M 为 ${plain(Ms[value])}）`),
      [{ name: `M_${value}`, value: Ms[value], ref: refs[value] }], [refs[value]]);
  }
  const ranked = order.map((i) => `M_{${i}} = ${num(Ms[i])}`);
  return explained(field, index, value, `\\text{top\\_index}[${t}] = ${value}: \\; ${sum(ranked, ' \\ge ')}`,
    say(lang, `the queries by M, largest first (ties to the lower index): ${order.map((i) => `${i} (${plain(Ms[i])})`).join(', ')}; number ${t} is query ${value}`,
      `按 M 从大到小排列查询（相等取较小下标）：${order.map((i) => `${i} (${plain(Ms[i])})`).join(', ')}；第 ${t} 个是查询 ${value}`), terms, refs);
}

/** initial_context[b,i,h,d] = mean_j v_jd (causal: Σ_{j ≤ i} v_jd). */
function explainInitial(c: Cells, field: string, index: number[], lang: Lang, as = field): Explanation | null {
  const [b, i, h, d] = index;
  const value = c.value(as, index);
  if (typeof value !== 'number') return null;
  const L_K = c.shape('v')[1];
  const cum = causal(c);
  const n = cum ? Math.min(i + 1, L_K) : L_K;
  const refs = Array.from({ length: n }, (_, j) => ref('v', [b, j, h, d]));
  const vs = refs.map((r) => c.num('v', r.index));
  let total = 0;
  for (const x of vs) total += x;
  const terms: Term[] = [...capped(vs.map((x, j) => ({ name: `v[${j},${d}]`, value: x, ref: refs[j] }))), { name: 'Σ_j v', value: total },
    ...(cum ? [] : [{ name: 'L_K', value: L_K }])];
  const lazy = as === 'context' ? say(lang, `query ${i} is not among the top queries: its context is the initial one, `, `查询 ${i} 不在被选中的查询中：其上下文为初始上下文，`) : '';
  const formula = cum
    ? `\\sum_{j \\le ${i}} v_{j${d}} = ${sum(vs.map(num))} = ${num(value)}${exactTex(value)}`
    : `\\frac{1}{L_K} \\sum_j v_{j${d}} = \\frac{${sum(vs.map(num))}}{${L_K}} = \\frac{${num(total)}}{${L_K}} = ${num(value)}${exactTex(value)}`;
  const text = lazy + (cum
    ? say(lang, `the cumulative sum of V up to key ${i} (the reference's choice under ProbMask) = ${sumText(vs.map(plain))} = ${plain(value)}${exactText(value)}`,
      `V 到键 ${i} 的累加和（参考实现在 ProbMask 下的做法）= ${sumText(vs.map(plain))} = ${plain(value)}${exactText(value)}`)
    : say(lang, `the mean of V over the keys = (${sumText(vs.map(plain))}) / ${L_K} = ${plain(value)}${exactText(value)}`,
      `V 在所有键上的均值 = (${sumText(vs.map(plain))}) / ${L_K} = ${plain(value)}${exactText(value)}`)) + capNote(lang, n);
  return explained(field, index, value, formula, text, terms, refs);
}

/** A top (or, with the .squeeze() bug, updated) row's context: Σ_j w_j v_jd. */
function explainContext(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, h, d] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const t = topRow(c, b, h, i);
  const updated = c.value('updated_rows', [b, h, i]);
  if (t < 0 && updated !== true) return explainInitial(c, field, index, lang, 'context');
  const L_K = c.shape('v')[1];
  // a row updated by another batch item's top_index (the .squeeze() bug) has its own exact softmax row
  const own = t < 0 ? softmaxRow(c, { ...topSpec(c), scores: undefined, allowed: undefined, queryOf: undefined, weights: '' }, b, h, i, lang, L_K) : null;
  const p = dotSum(L_K, (j) => `w[${i},${j}]·v[${j},${d}]`, (j) => {
    const rw = ref('weights_top', [b, h, Math.max(t, 0), j]), rv = ref('v', [b, j, h, d]);
    const w = own ? (own.empty ? 0 : own.exps[j] / own.total) : c.num('weights_top', rw.index);
    return [w, c.num('v', rv.index), own ? null : rw, rv];
  });
  const why = t >= 0 ? say(lang, `query ${i} is top query ${t}`, `查询 ${i} 是第 ${t} 个被选中的查询`)
    : say(lang, `query ${i} is updated by another batch item's top_index (the reference's .squeeze() at H = 1)`, `查询 ${i} 被另一个批次项的 top_index 更新（参考实现 H = 1 时的 .squeeze()）`);
  return explained(field, index, value, `c_{${i}${d}} = \\sum_j w_{${i}j} v_{j${d}} = ${p.tex} = ${num(value)}${exactTex(value)}`,
    say(lang, `${why}: context = Σ_j weight·v = ${p.text} = ${plain(value)}${exactText(value)}`, `${why}：上下文 = Σ_j 权重·v = ${p.text} = ${plain(value)}${exactText(value)}`) + capNote(lang, p.n),
    p.terms, p.operands);
}

function explainAttn(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const t = topRow(c, b, h, i);
  const L_K = c.shape('attn')[3];
  if (t >= 0) {
    const r = ref('weights_top', [b, h, t, j]);
    return explained(field, index, value, `\\text{attn}_{${i}${j}} = \\text{weights\\_top}_{${t}${j}} = ${num(value)}${exactTex(value)}`,
      say(lang, `query ${i} is top query ${t}: its row is its softmax weights, ${plain(value)}${exactText(value)}`,
        `查询 ${i} 是第 ${t} 个被选中的查询：该行就是它的 softmax 权重 ${plain(value)}${exactText(value)}`), [{ name: 'weights_top', value: c.num(r.field, r.index), ref: r }], [r]);
  }
  if (c.value('updated_rows', [b, h, i]) === true) {
    // updated by another batch item's top_index (the .squeeze() at H = 1): its own softmax row
    return explainWeight(c, { ...topSpec(c), scores: undefined, allowed: undefined, queryOf: undefined, weights: field }, field, index, lang);
  }
  return explained(field, index, value, `\\text{attn}_{${i}${j}} = ${value === 1 / L_K ? `\\frac{1}{L_K} = \\frac{1}{${L_K}}` : `${num(value)}`} = ${num(value)}${exactTex(value)}`,
    say(lang, `query ${i} is lazy: the reference fills its row with 1/L_K = 1/${L_K}${value === 1 / L_K ? '' : `, here ${plain(value)}`}`,
      `查询 ${i} 是“懒”查询：参考实现用 1/L_K = 1/${L_K} 填充该行${value === 1 / L_K ? '' : `，此处为 ${plain(value)}`}`), [{ name: 'L_K', value: L_K }], []);
}

export default function explainProb(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  switch (field) {
    case 'samples': return explainSamples(c, field, index, lang);
    case 'sample_index': return explainSampleIndex(c, field, index, lang);
    case 'q_k_sample': return explainQKSample(c, field, index, lang);
    case 'sparsity':
    case 'sparsity_exact': return explainM(c, field, index, lang);
    case 'top_index': return explainTop(c, field, index, lang);
    case 'scores_top': return explainScore(c, topSpec(c), field, index, lang);
    case 'allowed_top': return explainAllowed(c, topSpec(c), field, index, lang);
    case 'weights_top': return explainWeight(c, topSpec(c), field, index, lang);
    case 'initial_context': return explainInitial(c, field, index, lang);
    case 'context': return explainContext(c, field, index, lang);
    case 'attn': return explainAttn(c, field, index, lang);
    default: return null;
  }
}
