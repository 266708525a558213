// Linear (kernel) attention's cells explained (core/linear_attention.cpp): the implied weight
// φ(q_i)·φ(k_j) over its row sum (causal: the prefix sums up to key i; softmax_qk: no row sum),
// the features φ(q), φ(k) of each feature map, and the context as Σ_j w_ij v_j. Performer's
// weights are the same (explain/performer.ts).
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explainer, Explanation, Term } from './explanation';
import { explained, factor, num, plain, product, say, sum } from './common';
import { cell, dot, inField, input, row, softmaxStep, term } from './parts';
import { scaleOf, softmaxExplainer } from './softmax';

const isCausal = (s: Scenario) => (s.mask as { kind?: string } | undefined)?.kind === 'causal';

/** weights[b, h, i, j] = φ(q_i)·φ(k_j) / Σ_j' φ(q_i)·φ(k_j') from the trace's features (linear and performer). */
export function kernelWeight(trace: Trace, scenario: Scenario, index: number[], lang: Lang, normalise: boolean): Explanation | null {
  if (!inField(trace, 'weights', index) || trace.features_q === undefined || trace.features_k === undefined) return null;
  const [b, hh, i, j] = index;
  const value = cell(trace.weights, index);
  const fq = row(trace.features_q, [b, i, hh]);
  const L_K = trace.shapes.features_k[1];
  const last = isCausal(scenario) ? Math.min(i, L_K - 1) : L_K - 1; // the keys summed for query i
  const fqRef = (f: number): CellRef => ({ field: 'features_q', index: [b, i, hh, f] });
  const fkRef = (jj: number, f: number): CellRef => ({ field: 'features_k', index: [b, jj, hh, f] });
  const fk = row(trace.features_k, [b, j, hh]);
  const sim = dot(fq, fk);
  const sims = Array.from({ length: last + 1 }, (_, jj) => dot(fq, row(trace.features_k, [b, jj, hh])));
  const den = sims.reduce((a, x) => a + x, 0);
  const F = fq.length;
  const ops: CellRef[] = [...fq.map((_, f) => fqRef(f))];
  if (j > last) { // causal: key j after query i
    return explained('weights', index, value, `w_{${i}${j}} = 0 \\quad (j = ${j} > i = ${i})`,
      say(lang, `Under the causal mask the prefix sums of query ${i} stop at key ${i}, so key ${j} adds nothing: its weight is 0.`,
        `因果掩码下查询 ${i} 的前缀和只累加到键 ${i}，键 ${j} 不参与：权重为 0。`),
      [], ops);
  }
  const terms: Term[] = [
    ...fq.map((a, f) => product(`φ(q_${i})_${f}·φ(k_${j})_${f}`, a, fk[f], fqRef(f), fkRef(j, f))),
    term(`φ(q_${i})·φ(k_${j})`, sim),
  ];
  for (let jj = 0; jj <= last; jj++) for (let f = 0; f < F; f++) ops.push(fkRef(jj, f));
  const simSum = sum(fq.map((a, f) => `${factor(a)} \\cdot ${factor(fk[f])}`));
  if (!normalise) { // softmax_qk: the features are already normalised, no row sum
    return explained('weights', index, value,
      `w_{${i}${j}} = \\mathrm{softmax}_E(q_{${i}}) \\cdot \\mathrm{softmax}_L(K)_{${j}} = ${simSum} = ${num(value)}`,
      say(lang, `The weight of query ${i} on key ${j} is φ(q_${i})·φ(k_${j}) = ${plain(sim)}, the softmax over E of q_${i} times the softmax over the keys of K, with no row sum to divide by.`,
        `查询 ${i} 对键 ${j} 的权重是 φ(q_${i})·φ(k_${j}) = ${plain(sim)}：q_${i} 沿 E 的 softmax 点乘 K 沿键的 softmax，不再除以行和。`),
      terms, ops);
  }
  const rowTerms = [...sims.map((x, jj) => term(`sim(q_${i}, k_${jj})`, x)), term(`Σ_j' sim(q_${i}, k_j')`, den)];
  terms.push(...rowTerms);
  if (!(den > 0)) {
    return explained('weights', index, value,
      `\\sum_{j'} \\phi(q_{${i}}) \\cdot \\phi(k_{j'}) = ${sum(sims.map(num))} = ${num(den)} \\Rightarrow w_{${i}${j}} = 0`,
      say(lang, `Query ${i} has no feature in common with any key (Σ_j' φ(q_${i})·φ(k_j') = ${plain(den)}), so the core sets its weights and context to 0 instead of dividing by 0.`,
        `查询 ${i} 与所有键都没有共同的特征（Σ_j' φ(q_${i})·φ(k_j') = ${plain(den)}），核心把它的权重和 context 置为 0，而不是除以 0。`),
      rowTerms, ops);
  }
  const range = last === L_K - 1 ? '' : `_{j' \\le ${i}}`;
  return explained('weights', index, value,
    `w_{${i}${j}} = \\frac{\\phi(q_{${i}}) \\cdot \\phi(k_{${j}})}{\\sum${range || "_{j'}"} \\phi(q_{${i}}) \\cdot \\phi(k_{j'})} = \\frac{${simSum}}{${sum(sims.map(num))}} = \\frac{${num(sim)}}{${num(den)}} = ${num(value)}`,
    say(lang, `The implied weight of query ${i} on key ${j} is φ(q_${i})·φ(k_${j}) = ${plain(sim)} divided by its row sum over ${range ? `the keys up to ${i}` : 'the keys'}, ${plain(den)}: ${plain(value)}.`,
      `查询 ${i} 对键 ${j} 的隐含权重是 φ(q_${i})·φ(k_${j}) = ${plain(sim)} 除以${range ? `到键 ${i} 为止` : '所有键'}的行和 ${plain(den)}：${plain(value)}。`),
    terms, ops);
}

/** One feature of linear attention: features_q[b, i, h, f] = φ(q_i)_f (features_k likewise). */
function feature(trace: Trace, scenario: Scenario, field: 'features_q' | 'features_k', index: number[], lang: Lang): Explanation | null {
  if (!inField(trace, field, index)) return null;
  const name = field === 'features_q' ? 'q' : 'k';
  const x = input(scenario, trace, name);
  if (x === undefined) return null;
  const [b, l, hh, f] = index;
  const value = cell(trace[field], index);
  const map = String(scenario.feature_map ?? 'elu1');
  const xs = row(x, [b, l, hh]);
  const xRef = (e: number): CellRef => ({ field: name, index: [b, l, hh, e] });
  const who = `${name}_${l}`;
  if (map === 'elu1' || map === 'relu') {
    const a = xs[f];
    const formula = map === 'relu' ? `\\phi(${name})_{${l},${f}} = \\max(${num(a)}, 0) = ${num(value)}`
      : a > 0 ? `\\phi(${name})_{${l},${f}} = \\mathrm{elu}(${num(a)}) + 1 = ${num(a)} + 1 = ${num(value)}`
        : `\\phi(${name})_{${l},${f}} = \\mathrm{elu}(${num(a)}) + 1 = e^{${num(a)}} = ${num(value)}`;
    const how = map === 'relu' ? say(lang, `relu keeps ${plain(a)} ${a > 0 ? 'as it is' : 'at 0'}`, `relu ${a > 0 ? '保留' : '把'} ${plain(a)}${a > 0 ? '' : ' 变为 0'}`)
      : a > 0 ? say(lang, `elu(x) + 1 is x + 1 for x > 0`, `x > 0 时 elu(x) + 1 = x + 1`) : say(lang, `elu(x) + 1 is e^x for x ≤ 0`, `x ≤ 0 时 elu(x) + 1 = e^x`);
    return explained(field, index, value, formula,
      say(lang, `Feature ${f} of ${who} is φ(${plain(a)}) = ${plain(value)}: ${how}.`, `${who} 的特征 ${f} 是 φ(${plain(a)}) = ${plain(value)}：${how}。`),
      [term(`${name}[${b},${l},${hh},${f}]`, a, name, [b, l, hh, f])], [xRef(f)]);
  }
  if (map === 'cosine1') {
    const norm = Math.sqrt(dot(xs, xs));
    const terms = [...xs.map((a, e) => term(`${name}_${e}`, a, name, [b, l, hh, e])), term(`‖${who}‖`, norm)];
    if (f === 0) {
      return explained(field, index, value, `\\phi(${name})_{${l},0} = 1`,
        say(lang, `Feature 0 is the constant 1, so that φ(q)·φ(k) = 1 + cos(q, k) ≥ 0.`, `特征 0 是常数 1，使 φ(q)·φ(k) = 1 + cos(q, k) ≥ 0。`),
        [], []);
    }
    const a = xs[f - 1];
    return explained(field, index, value,
      `\\phi(${name})_{${l},${f}} = \\frac{${name}_{${l},${f - 1}}}{\\lVert ${name}_{${l}} \\rVert} = \\frac{${num(a)}}{\\sqrt{${sum(xs.map((c) => `${factor(c)}^2`))}}} = \\frac{${num(a)}}{${num(norm)}} = ${num(value)}`,
      say(lang, `Feature ${f} of ${who} is its entry ${f - 1}, ${plain(a)}, over its length ${plain(norm)}: ${plain(value)} (a unit vector's entries can be negative; only 1 + cos is ≥ 0).`,
        `${who} 的特征 ${f} 是它的第 ${f - 1} 个分量 ${plain(a)} 除以长度 ${plain(norm)}：${plain(value)}（单位向量的分量可以为负，非负的是 1 + cos）。`),
      terms, xs.map((_, e) => xRef(e)));
  }
  if (map === 'softmax_qk') {
    // q: softmax over E of the row; k: softmax over L_K of the column
    const vals = name === 'q' ? xs : Array.from({ length: trace.shapes.features_k[1] }, (_, j) => cell(x, [b, j, hh, f]));
    const refs = name === 'q' ? xs.map((_, e) => xRef(e)) : vals.map((_, j) => ({ field: name, index: [b, j, hh, f] }));
    const at = name === 'q' ? f : l;
    const step = softmaxStep({ scores: vals, i: name === 'q' ? l : f, j: at, value, lang, refOf: (n) => refs[n] });
    const lead = name === 'q'
      ? say(lang, `Feature ${f} of q_${l} is the softmax over E of its row: `, `q_${l} 的特征 ${f} 是它这一行沿 E 的 softmax：`)
      : say(lang, `Feature ${f} of k_${l} is the softmax over the ${vals.length} keys of column ${f} of K (over L_K): `,
        `k_${l} 的特征 ${f} 是 K 第 ${f} 列沿 ${vals.length} 个键（L_K）的 softmax：`);
    return explained(field, index, value,
      `\\phi(${name})_{${l},${f}} = \\mathrm{softmax}_{${name === 'q' ? 'E' : 'L_K'}}: \\quad ${step.formula}`, lead + step.text,
      [...vals.map((c, n) => term(`${name}[${refs[n].index.join(',')}]`, c, name, refs[n].index)), ...step.terms], [...refs, ...step.operands]);
  }
  return null;
}

/** context = Σ_j w_ij v_j with the implied weights (softmax.ts's context; lsh's keys are its queries). */
export const kernelContext = (k: 'k' | 'q') => softmaxExplainer((c) => ({ q: 'q', k, v: 'v', weights: 'weights', context: 'context',
  ...scaleOf(c.scenario, c.shape('q')[3]), mask: null }));
const context = kernelContext('k');

const explain: Explainer = (trace, scenario, field, index, lang) => {
  if (field === 'context') return context(trace, scenario, field, index, lang);
  if (field === 'weights') return kernelWeight(trace, scenario, index, lang, String(scenario.feature_map ?? 'elu1') !== 'softmax_qk');
  if (field === 'features_q' || field === 'features_k') return feature(trace, scenario, field, index, lang);
  return null;
};
export default explain;
