// The softmax family's cells, with their real numbers (SPEC §1 "Every number explains itself"):
//   score    s[b,h,i,j] = scale · Σ_e q[b,i,h,e] k[b,j,h',e]     (the trace's scores: scaled, before the mask;
//            h' = kv_head[h] under GQA/MQA, q and k the rotated ones under RoPE, + ALiBi's bias[h,i,j])
//   allowed  the mask's rule for (i, j) with its numbers
//   weight   w[b,h,i,j] = exp(s'_j − max) / Σ_j' exp(s'_j' − max), s' = s where allowed, else the fill
//   context  c[b,i,h,d] = Σ_j w[b,h,i,j] v[b,j,h,d]
// Full attention uses it as it is; flash, multihead, pooling, diff, prob and explain-b's algorithms
// with their own field names (SoftmaxSpec). No DOM.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explanation, Explainer, Term } from './explanation';
import { Cells, capNote, capped, dotSum, exactTex, exactText, explained, factor, num, plain, ref, say, sum, sumText } from './common';

/** The mask of a scenario (SPEC §2) as a rule: what `allows` tells, with its numbers. */
export interface MaskRule {
  kind: string;
  causal: boolean;
  window: number;
  dilation: number;
  stride: number;
  /** sink: the first `sinks` keys stay allowed (with `window` the recent ones). */
  sinks: number;
  fill: number;
  /** The field of the mask's own numbers ("mask.valid_lens", "mask.allowed"). */
  at: string;
}

/** The scenario's mask (null: none). `at`: where the mask sits ("mask", or an inner attention's). */
export function maskOf(scenario: Scenario, at = 'mask'): MaskRule | null {
  const m = (scenario[at] ?? null) as Record<string, unknown> | null;
  if (!m || typeof m !== 'object') return null;
  const kind = String(m.kind ?? 'none');
  const causal = m.causal === true;
  if (kind === 'none' && !causal) return null;
  const f = m.fill ?? (kind === 'valid_lens' ? -1e6 : '-inf');
  return { kind, causal, window: Number(m.window ?? 0), dilation: Number(m.dilation ?? 1), stride: Number(m.stride ?? 1),
    sinks: Number(m.sinks ?? 0), fill: f === '-inf' ? -Infinity : Number(f), at };
}

/** Whether the mask allows key j for query i (of batch item b), as the core's Mask::allows, with
 * the rule written out ("|i − j| = 1 ≤ 2") and the mask's cells it reads. */
export function allows(c: Cells, m: MaskRule, b: number, i: number, j: number, lang: Lang):
  { ok: boolean; tex: string; text: string; terms: Term[]; operands: CellRef[] } {
  const d = Math.abs(i - j);
  const parts: { ok: boolean; tex: string; text: string }[] = [];
  const terms: Term[] = [];
  const operands: CellRef[] = [];
  const rel = (ok: boolean, tex: string, text: string) => parts.push({ ok, tex, text });
  const lt = (ok: boolean) => (ok ? '\\le' : '>');
  if (m.causal || m.kind === 'causal' || m.kind === 'sink') rel(j <= i, `j = ${j} ${lt(j <= i)} i = ${i}`, `j = ${j} ${j <= i ? '≤' : '>'} i = ${i}`);
  switch (m.kind) {
    case 'valid_lens': {
      const shape = c.shape(`${m.at}.valid_lens`);
      const index = shape.length === 2 ? [b, i] : [b];
      const len = c.num(`${m.at}.valid_lens`, index);
      const r = ref(`${m.at}.valid_lens`, index);
      terms.push({ name: 'valid_len', value: len, ref: r });
      operands.push(r);
      rel(j < len, `j = ${j} ${j < len ? '<' : '\\ge'} \\text{valid\\_len} = ${num(len)}`, `j = ${j} ${j < len ? '<' : '≥'} valid_len = ${plain(len)}`);
      break;
    }
    case 'local':
      rel(d <= m.window, `|i - j| = ${d} ${lt(d <= m.window)} w = ${m.window}`, `|i − j| = ${d} ${d <= m.window ? '≤' : '>'} w = ${m.window}`);
      break;
    case 'atrous':
      rel(d % m.dilation === 0, `|i - j| \\bmod ${m.dilation} = ${d % m.dilation}`, `|i − j| mod ${m.dilation} = ${d % m.dilation}`);
      break;
    case 'strided': {
      const ok = d <= m.window || d % m.stride === 0;
      rel(ok, `|i - j| = ${d} ${lt(d <= m.window)} ${m.window} \\;\\lor\\; ${d} \\bmod ${m.stride} = ${d % m.stride}`,
        `|i − j| = ${d} ${d <= m.window ? '≤' : '>'} ${m.window} ${say(lang, 'or', '或')} ${d} mod ${m.stride} = ${d % m.stride}`);
      break;
    }
    case 'sink': { // Mistral's window (i − j < w) or one of StreamingLLM's sinks (j < s)
      const ok = i - j < m.window || j < m.sinks;
      rel(ok, `i - j = ${i - j} ${i - j < m.window ? '<' : '\\ge'} w = ${m.window} \\;\\lor\\; j = ${j} ${j < m.sinks ? '<' : '\\ge'} \\text{sinks} = ${m.sinks}`,
        `i − j = ${i - j} ${i - j < m.window ? '<' : '≥'} w = ${m.window} ${say(lang, 'or', '或')} j = ${j} ${j < m.sinks ? '<' : '≥'} sinks = ${m.sinks}`);
      break;
    }
    case 'explicit': {
      const r = ref(`${m.at}.allowed`, [i, j]);
      const ok = c.value(`${m.at}.allowed`, [i, j]) === true;
      operands.push(r);
      rel(ok, `\\text{allowed}[${i}][${j}] = \\text{${ok}}`, `allowed[${i}][${j}] = ${ok}`);
      break;
    }
    default:
  }
  const ok = parts.every((p) => p.ok);
  return { ok, tex: parts.map((p) => p.tex).join(' \\;\\land\\; '), text: parts.map((p) => p.text).join(say(lang, ' and ', ' 且 ')), terms, operands };
}

/** Where the family's numbers are in one algorithm's trace. Index paths: q, k, v, context
 * (B, L, H, E); scores, weights, allowed (B, H, L_Q, L_K). */
export interface SoftmaxSpec {
  q: string;
  k: string;
  v: string;
  /** The trace's scaled scores before the mask (absent: computed from q and k). */
  scores?: string;
  weights: string;
  context: string;
  allowed?: string;
  scale: number;
  /** The scale as written: "\frac{1}{\sqrt{8}}" when it is the default. */
  scaleTex: string;
  mask: MaskRule | null;
  /** Key j's index in k and v. Default: j. */
  keyOf?: (j: number) => number;
  /** The features of q and k the score reads: [first, count] (diff's halves). Default: all. */
  dims?: [number, number];
  /** Row i's query (ProbAttention's scores_top: row t is query top_index[b, h, t]). Default: i. */
  queryOf?: (b: number, h: number, i: number) => number;
  /** Query head h's head in k and v (GQA/MQA: the trace's kv_head). Default: h. */
  kvHeadOf?: (h: number) => number;
  /** ALiBi's bias added to the scaled score (the trace's bias (H, L_Q, L_K)). Default: none. */
  bias?: string;
}

/** The default scale 1/√E (scenario's `scale` where it gives one). */
export function scaleOf(scenario: Scenario, E: number): { scale: number; scaleTex: string } {
  if (typeof scenario.scale === 'number') return { scale: scenario.scale, scaleTex: num(scenario.scale) };
  return { scale: 1 / Math.sqrt(E), scaleTex: `\\tfrac{1}{\\sqrt{${E}}}` };
}

/** Full attention's spec (its trace's own field names). */
export function fullSpec(c: Cells): SoftmaxSpec {
  const E = c.shape('q')[3] ?? 1;
  return { q: c.has('q_rotated') ? 'q_rotated' : 'q', k: c.has('k_rotated') ? 'k_rotated' : 'k', v: 'v', scores: 'scores',
    weights: 'weights', context: 'context', allowed: 'allowed', ...scaleOf(c.scenario, E), mask: maskOf(c.scenario),
    ...modernOf(c) };
}

/** GQA's kv head and ALiBi's bias where the trace has them (full, flash). */
export function modernOf(c: Cells): Pick<SoftmaxSpec, 'kvHeadOf' | 'bias'> {
  const kv = c.has('kv_head') ? (h: number) => c.num('kv_head', [h]) : undefined;
  return { ...(kv ? { kvHeadOf: kv } : {}), ...(c.has('bias') ? { bias: 'bias' } : {}) };
}

/** Full attention on the trace's inputs beside an approximation or flash (the exact run): its
 * weights `exact_weights` (the trace's, else computed), its context `exact_context`; the scenario
 * is the exact run's (state/approx.ts: exactScenario, flashFull). */
export function exactSpec(c: Cells): SoftmaxSpec {
  const E = c.shape('q')[3] ?? 1;
  return { q: 'q', k: c.has('k') ? 'k' : 'q', v: 'v', weights: 'exact_weights', context: 'exact_context',
    ...scaleOf(c.scenario, E), mask: maskOf(c.scenario) };
}

/** Whether (b, h, i, j) is allowed: the trace's `allowed` where it has one, else the rule. */
function isAllowed(c: Cells, s: SoftmaxSpec, b: number, h: number, i: number, j: number, lang: Lang): boolean {
  if (!s.mask) return true;
  if (s.allowed && c.has(s.allowed)) return c.broadcast(s.allowed, [b, h, i, j]) === true;
  return allows(c, s.mask, b, s.queryOf ? s.queryOf(b, h, i) : i, j, lang).ok;
}

/** Score (b, h, i, j): scale · Σ_e q·k, its products. */
export function scoreParts(c: Cells, s: SoftmaxSpec, b: number, h: number, i: number, j: number) {
  const [e0, E] = s.dims ?? [0, c.shape(s.q)[3]];
  const kj = s.keyOf ? s.keyOf(j) : j, qi = s.queryOf ? s.queryOf(b, h, i) : i, hk = s.kvHeadOf ? s.kvHeadOf(h) : h;
  return dotSum(E, (e) => `q[${qi}]·k[${kj}] (e=${e0 + e})`, (e) => {
    const rq = ref(s.q, [b, qi, h, e0 + e]), rk = ref(s.k, [b, kj, hk, e0 + e]);
    return [c.num(s.q, rq.index), c.num(s.k, rk.index), rq, rk];
  });
}

/** The score the softmax reads: the trace's where it has scores, else scale · q·k. */
export function scoreOf(c: Cells, s: SoftmaxSpec, b: number, h: number, i: number, j: number): number {
  if (s.scores && c.has(s.scores)) return c.num(s.scores, [b, h, i, j]);
  return s.scale * scoreParts(c, s, b, h, i, j).total + (s.bias ? c.num(s.bias, [h, i, j]) : 0);
}

export function explainScore(c: Cells, s: SoftmaxSpec, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, row, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const p = scoreParts(c, s, b, h, row, j);
  const i = s.queryOf ? s.queryOf(b, h, row) : row;
  const terms: Term[] = [...p.terms, { name: 'Σ_e q·k', value: p.total }, { name: 'scale', value: s.scale }];
  // ALiBi: + bias[h, i, j] = −slope_h |i − j| (its cell of the trace's bias)
  const bias = s.bias ? c.num(s.bias, [h, i, j]) : null;
  const bTex = bias === null ? '' : ` + ${factor(bias)}`, bText = bias === null ? '' : ` + ${plain(bias)}`;
  const bName = bias === null ? '' : ' + \\text{bias}_{h,i,j}';
  if (bias !== null) {
    const rb = ref(s.bias!, [h, i, j]);
    terms.push({ name: 'ALiBi bias', value: bias, ref: rb });
    p.operands.push(rb);
  }
  let formula = `s_{${i}${j}} = ${s.scaleTex} \\sum_e q_{${i}e} k_{${j}e}${bName} = ${s.scaleTex} \\left(${p.tex}\\right)${bTex} = ${num(s.scale)} \\cdot ${factor(p.total)}${bTex} = ${num(value)}${exactTex(value)}`;
  let text = say(lang,
    `score = scale × Σ_e q[${i}, e]·k[${j}, e]${bias === null ? '' : ' + ALiBi bias'} = ${plain(s.scale)} × (${p.text})${bText} = ${plain(s.scale)} × ${plain(p.total)}${bText} = ${plain(value)}${exactText(value)}`,
    `分数 = 缩放 × Σ_e q[${i}, e]·k[${j}, e]${bias === null ? '' : ' + ALiBi 偏置'} = ${plain(s.scale)} × (${p.text})${bText} = ${plain(s.scale)} × ${plain(p.total)}${bText} = ${plain(value)}${exactText(value)}`);
  if (s.mask) {
    const a = allows(c, s.mask, b, i, j, lang);
    if (!isAllowed(c, s, b, h, row, j, lang)) {
      formula += `\\quad\\text{masked: } ${a.tex},\\; s \\to ${num(s.mask.fill)}`;
      text += say(lang, `; masked (${a.text}): the softmax reads ${plain(s.mask.fill)} instead`,
        `；被遮蔽（${a.text}）：softmax 读到的是 ${plain(s.mask.fill)}`);
      terms.push({ name: 'fill', value: s.mask.fill });
    } else {
      text += say(lang, `; allowed by the mask (${a.text})`, `；掩码允许（${a.text}）`);
    }
    p.operands.push(...a.operands);
  }
  text += capNote(lang, p.n);
  return explained(field, index, value, formula, text, terms, p.operands);
}

export function explainAllowed(c: Cells, s: SoftmaxSpec, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, row, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'boolean') return null;
  const i = s.queryOf ? s.queryOf(b, h, row) : row;
  if (!s.mask) {
    return explained(field, index, value, '\\text{no mask: every key allowed}', say(lang, 'No mask: every key is allowed.', '无掩码：每个键都允许。'), [], []);
  }
  const a = allows(c, s.mask, b, i, j, lang);
  const verdict = value ? '\\checkmark' : '\\times';
  const kind = s.mask.kind + (s.mask.causal && s.mask.kind !== 'causal' ? ' + causal' : '');
  return explained(field, index, value, `\\text{${kind.replace(/_/g, '\\_')}}:\\; ${a.tex} \\;\\Rightarrow\\; ${verdict}`,
    say(lang, `${kind} mask: ${a.text}, so key ${j} is ${value ? 'allowed' : `masked (its score becomes ${plain(s.mask.fill)})`} for query ${i}.`,
      `${kind} 掩码：${a.text}，所以键 ${j} 对查询 ${i} ${value ? '允许' : `被遮蔽（分数变为 ${plain(s.mask.fill)}）`}。`),
    a.terms, a.operands);
}

/** The softmax of row (b, h, i): each key's score as read (the fill where masked), the max, the exps and their sum. */
export function softmaxRow(c: Cells, s: SoftmaxSpec, b: number, h: number, i: number, lang: Lang, keys = c.shape(s.weights)[3]) {
  const read: number[] = [], masked: boolean[] = [];
  for (let j = 0; j < keys; j++) {
    const ok = isAllowed(c, s, b, h, i, j, lang);
    masked.push(!ok);
    read.push(ok ? scoreOf(c, s, b, h, i, j) : s.mask!.fill);
  }
  let max = -Infinity, arg = 0;
  read.forEach((x, j) => { if (x > max) { max = x; arg = j; } });
  const empty = max === -Infinity;
  const exps = read.map((x) => (empty ? 0 : Math.exp(x - max)));
  let total = 0;
  for (const e of exps) total += e;
  return { read, masked, max, arg, exps, total, empty };
}

export function explainWeight(c: Cells, s: SoftmaxSpec, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const r = softmaxRow(c, s, b, h, i, lang, c.shape(field)[3]);
  const scoreRef = (jj: number): CellRef | undefined => (s.scores && c.has(s.scores) ? ref(s.scores, [b, h, i, jj]) : undefined);
  // the scores it reads: the trace's, else q's row and k's rows they are computed from
  const live = r.read.map((_, jj) => jj).filter((jj) => !r.masked[jj]);
  const operands = s.scores && c.has(s.scores) ? live.map((jj) => ref(s.scores!, [b, h, i, jj]))
    : live.flatMap((jj) => scoreParts(c, s, b, h, i, jj).operands);
  if (r.empty) {
    return explained(field, index, value, `\\text{every key of row } ${i} \\text{ masked with } -\\infty \\Rightarrow w = 0`,
      say(lang, `Every key of query ${i} is masked with −∞: its weights are 0 (and its context 0), not NaN.`,
        `查询 ${i} 的每个键都被 −∞ 遮蔽：权重为 0（上下文也为 0），而不是 NaN。`), [], operands);
  }
  // a masked key reads the fill, not its score: no cell of its own
  const exps: Term[] = r.exps.map((e, jj) => ({ name: `exp(s_${jj} − max)`, value: e, ...(r.masked[jj] ? {} : { ref: scoreRef(jj) }) }));
  const terms: Term[] = [{ name: 'max_j s', value: r.max, ref: scoreRef(r.arg) }, ...capped(exps, j), { name: 'Σ_j exp(s_j − max)', value: r.total }];
  const power = (x: number) => `e^{${num(x)} - ${factor(r.max)}}`;
  const formula = `w_{${i}${j}} = \\frac{e^{s_{${i}${j}} - \\max}}{\\sum_{j'} e^{s_{${i}j'} - \\max}} = \\frac{${power(r.read[j])}}{${sum(r.read.map(power))}}` +
    ` = \\frac{${num(r.exps[j])}}{${sum(r.exps.map(num))}} = \\frac{${num(r.exps[j])}}{${num(r.total)}} = ${num(value)}${exactTex(value)}`;
  const maskedNote = r.masked.some(Boolean)
    ? say(lang, `; masked keys (${r.masked.map((m, jj) => (m ? jj : -1)).filter((x) => x >= 0).join(', ')}) read ${plain(s.mask!.fill)}`,
      `；被遮蔽的键（${r.masked.map((m, jj) => (m ? jj : -1)).filter((x) => x >= 0).join(', ')}）读作 ${plain(s.mask!.fill)}`)
    : '';
  const text = say(lang,
    `weight = exp(s − max) / Σ_j exp(s_j − max) = exp(${plain(r.read[j])} − ${plain(r.max)}) / (${sumText(r.exps.map(plain))}) = ${plain(r.exps[j])} / ${plain(r.total)} = ${plain(value)}${exactText(value)}: the row max is ${plain(r.max)}, the row sum ${plain(r.total)}${maskedNote}`,
    `权重 = exp(s − max) / Σ_j exp(s_j − max) = exp(${plain(r.read[j])} − ${plain(r.max)}) / (${sumText(r.exps.map(plain))}) = ${plain(r.exps[j])} / ${plain(r.total)} = ${plain(value)}${exactText(value)}：该行最大值 ${plain(r.max)}，行和 ${plain(r.total)}${maskedNote}`) +
    capNote(lang, r.exps.length);
  return explained(field, index, value, formula, text, terms, operands);
}

/** Context (b, i, h, d) = Σ_j w[b,h,i,j] v[b,j,h,d]. */
export function explainContext(c: Cells, s: SoftmaxSpec, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, h, d] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const keys = c.shape(s.weights)[3] ?? c.shape(s.v)[1];
  const fromTrace = c.has(s.weights);
  const row = fromTrace ? null : softmaxRow(c, s, b, h, i, lang, keys);
  // weights the trace does not hold are computed here from q and k (their cells are the operands)
  const p = dotSum(keys, (j) => `w[${i},${j}]·v[${s.keyOf ? s.keyOf(j) : j},${d}]`, (j) => {
    const rw = ref(s.weights, [b, h, i, j]), rv = ref(s.v, [b, s.keyOf ? s.keyOf(j) : j, s.kvHeadOf ? s.kvHeadOf(h) : h, d]);
    const w = row ? (row.empty ? 0 : row.exps[j] / row.total) : c.num(s.weights, rw.index);
    return [w, c.num(s.v, rv.index), row ? null : rw, rv];
  });
  if (row) for (let j = 0; j < keys; j++) if (!row.masked[j]) p.operands.push(...scoreParts(c, s, b, h, i, j).operands);
  const formula = `c_{${i}${d}} = \\sum_j w_{${i}j} v_{j${d}} = ${p.tex} = ${num(value)}${exactTex(value)}`;
  const text = say(lang,
    `context = Σ_j weight[${i}, j]·v[j, ${d}] = ${p.text} = ${plain(value)}${exactText(value)}`,
    `上下文 = Σ_j 权重[${i}, j]·v[j, ${d}] = ${p.text} = ${plain(value)}${exactText(value)}`) + capNote(lang, p.n);
  return explained(field, index, value, formula, text, p.terms, p.operands);
}

/** An explainer of the family's four maps under the names `spec` gives them. */
export function softmaxExplainer(specOf: (c: Cells) => SoftmaxSpec): Explainer {
  return (trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang) => {
    const c = new Cells(trace, scenario);
    const s = specOf(c);
    if (field === s.scores) return explainScore(c, s, field, index, lang);
    if (field === s.allowed) return explainAllowed(c, s, field, index, lang);
    if (field === s.weights) return explainWeight(c, s, field, index, lang);
    if (field === s.context) return explainContext(c, s, field, index, lang);
    return null;
  };
}
