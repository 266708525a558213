// LSH attention's own cells explained (core/lsh_attention.cpp): a query's bucket in a round as
// argmax([q R_r; −q R_r]), the round's log-sum-exp over the bucket, the rounds' weights (a
// softmax of those), and the implied weight Σ_r round_weight_r · p_r(i, j) with
// p_r(i, j) = exp(s_ij − lse_r(i)) where i and j share the round's bucket (s_ij = scale q_i·q_j,
// minus log N_ij without duplicate attention).
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explainer, Explanation, Term } from './explanation';
import { explained, factor, num, plain, say, sum } from './common';
import { scaleOf } from './softmax';
import { kernelContext } from './linear';
import { cell, dot, inField, input, row, softmaxStep, term } from './parts';

interface Lsh { q: unknown; scale: number; rounds: number; L: number; duplicates: boolean }

function setup(trace: Trace, scenario: Scenario): Lsh | null {
  const q = input(scenario, trace, 'q');
  const shape = trace.shapes.buckets;
  if (q === undefined || !shape || trace.buckets === undefined) return null;
  const E = row(q, [0, 0, 0]).length;
  return { q, scale: scaleOf(scenario, E).scale, rounds: shape[0], L: shape[3], duplicates: scenario.allow_duplicate_attention !== false };
}

const bucketOf = (trace: Trace, r: number, b: number, hh: number, i: number) => cell(trace.buckets, [r, b, hh, i]);

/** The score of i and j in round r as the core adds it to the softmax: scale q_i·q_j (− log N_ij). */
function score(s: Lsh, trace: Trace, b: number, hh: number, i: number, j: number): { raw: number; shared: number; score: number } {
  const raw = s.scale * dot(row(s.q, [b, i, hh]), row(s.q, [b, j, hh]));
  let shared = 0;
  for (let r = 0; r < s.rounds; r++) if (bucketOf(trace, r, b, hh, i) === bucketOf(trace, r, b, hh, j)) shared++;
  return { raw, shared, score: s.duplicates ? raw : raw - Math.log(shared) };
}

/** buckets[r, b, h, i] = argmax([q_i R_r; −q_i R_r]) (ties to the lower index). */
function bucket(trace: Trace, s: Lsh, index: number[], lang: Lang): Explanation {
  const [r, b, hh, i] = index;
  const value = cell(trace.buckets, index);
  const qi = row(s.q, [b, i, hh]);
  const half = row(trace.rotations, [r, 0]).length;
  const rotated = Array.from({ length: half }, (_, c) => dot(qi, qi.map((_, e) => cell(trace.rotations, [r, e, c]))));
  const both = [...rotated, ...rotated.map((x) => -x)];
  const terms: Term[] = both.map((x, c) => term(c < half ? `(q_${i} R_${r})_${c}` : `−(q_${i} R_${r})_${c - half}`, x));
  const ops: CellRef[] = [...qi.map((_, e) => ({ field: 'q', index: [b, i, hh, e] }))];
  for (let e = 0; e < qi.length; e++) for (let c = 0; c < half; c++) ops.push({ field: 'rotations', index: [r, e, c] });
  return explained('buckets', index, value,
    `\\mathrm{bucket}_{${r}}(q_{${i}}) = \\arg\\max\\,[\\,q_{${i}} R_{${r}};\\ -q_{${i}} R_{${r}}\\,] = \\arg\\max(${both.map(num).join(', ')}) = ${num(value)}`,
    say(lang, `In round ${r}, query ${i} is rotated by R_${r} into ${half} numbers; with their negatives that makes ${2 * half} candidates, and the largest, ${plain(both[value])}, is at index ${value}: bucket ${value}.`,
      `第 ${r} 轮中，查询 ${i} 经 R_${r} 旋转得到 ${half} 个数；连同它们的相反数共 ${2 * half} 个候选，最大的 ${plain(both[value])} 位于下标 ${value}：桶 ${value}。`),
    terms, ops);
}

/** The members of i's bucket in round r and their scores. */
function members(trace: Trace, s: Lsh, r: number, b: number, hh: number, i: number) {
  const c = bucketOf(trace, r, b, hh, i);
  const js = Array.from({ length: s.L }, (_, j) => j).filter((j) => bucketOf(trace, r, b, hh, j) === c);
  return { c, js, scores: js.map((j) => score(s, trace, b, hh, i, j)) };
}

/** round_logsumexp[r, b, h, i] = log Σ_{j in i's bucket} exp(s_ij). */
function logsumexp(trace: Trace, s: Lsh, index: number[], lang: Lang): Explanation {
  const [r, b, hh, i] = index;
  const value = cell(trace.round_logsumexp, index);
  const { c, js, scores } = members(trace, s, r, b, hh, i);
  const ss = scores.map((x) => x.score);
  const total = ss.reduce((a, x) => a + Math.exp(x), 0);
  const terms = [...js.map((j, n) => term(`s_${i},${j}`, ss[n])), term('Σ exp(s)', total)];
  return explained('round_logsumexp', index, value,
    `\\mathrm{lse}_{${r}}(${i}) = \\log \\sum_{j \\in \\mathrm{bucket}\\ ${c}} e^{s_{${i} j}} = \\log(${sum(ss.map((x) => `e^{${num(x)}}`))}) = \\log ${num(total)} = ${num(value)}`,
    say(lang, `Round ${r}: query ${i} shares bucket ${c} with ${js.length} positions (itself included); the log of the sum of exp of their scores scale·q_${i}·q_j${s.duplicates ? '' : ' − log N_ij'} is ${plain(value)}.`,
      `第 ${r} 轮：查询 ${i} 与 ${js.length} 个位置（含自身）同在桶 ${c}；它们的分数 scale·q_${i}·q_j${s.duplicates ? '' : ' − log N_ij'} 取 exp 求和再取 log，得 ${plain(value)}。`),
    terms, [...js.map((j) => ({ field: 'buckets', index: [r, b, hh, j] })), ...js.flatMap((j) => row(s.q, [b, j, hh]).map((_, e) => ({ field: 'q', index: [b, j, hh, e] })))]);
}

/** round_weights[r, b, h, i] = exp(lse_r − max) / Σ_r' exp(lse_r' − max). */
function roundWeight(trace: Trace, s: Lsh, index: number[], lang: Lang): Explanation {
  const [r, b, hh, i] = index;
  const value = cell(trace.round_weights, index);
  const lse = Array.from({ length: s.rounds }, (_, rr) => cell(trace.round_logsumexp, [rr, b, hh, i]));
  const step = softmaxStep({ scores: lse, i, j: r, value, lang, refOf: (rr) => ({ field: 'round_logsumexp', index: [rr, b, hh, i] }) });
  return explained('round_weights', index, value, `\\rho_{${r}}(${i}) = \\mathrm{softmax}_r(\\mathrm{lse}_r(${i})): \\quad ${step.formula}`,
    say(lang, `Round ${r} counts for query ${i} by the softmax over the ${s.rounds} rounds of their log-sum-exp (s = lse_r): `,
      `第 ${r} 轮对查询 ${i} 的权重是 ${s.rounds} 轮 log-sum-exp（s = lse_r）上的 softmax：`) + step.text,
    step.terms, step.operands);
}

/** weights[b, h, i, j] = Σ_r round_weights[r] · p_r(i, j). */
function weight(trace: Trace, s: Lsh, index: number[], lang: Lang): Explanation {
  const [b, hh, i, j] = index;
  const value = cell(trace.weights, index);
  const sc = score(s, trace, b, hh, i, j);
  const rounds = Array.from({ length: s.rounds }, (_, r) => r);
  const shared = rounds.filter((r) => bucketOf(trace, r, b, hh, i) === bucketOf(trace, r, b, hh, j));
  const terms: Term[] = [term(`scale·q_${i}·q_${j}`, sc.raw)];
  if (!s.duplicates) terms.push(term(`N_${i},${j}`, sc.shared));
  const ops: CellRef[] = [];
  for (const r of rounds) ops.push({ field: 'buckets', index: [r, b, hh, i] }, { field: 'buckets', index: [r, b, hh, j] });
  if (!shared.length) {
    return explained('weights', index, value, `w_{${i}${j}} = 0 \\quad (\\text{no shared bucket in ${s.rounds} rounds})`,
      say(lang, `Query ${i} and key ${j} never share a bucket in the ${s.rounds} rounds, so their score is never computed: the weight is 0.`,
        `查询 ${i} 与键 ${j} 在 ${s.rounds} 轮中从未同桶，它们的分数从未计算：权重为 0。`),
      [], ops);
  }
  const parts = shared.map((r) => {
    const rw = cell(trace.round_weights, [r, b, hh, i]);
    const lse = cell(trace.round_logsumexp, [r, b, hh, i]);
    terms.push(term(`round_weights[${r}]`, rw, 'round_weights', [r, b, hh, i]), term(`lse_${r}(${i})`, lse, 'round_logsumexp', [r, b, hh, i]),
      term(`p_${r}(${i},${j})`, Math.exp(sc.score - lse)));
    ops.push({ field: 'round_weights', index: [r, b, hh, i] }, { field: 'round_logsumexp', index: [r, b, hh, i] });
    return { r, rw, lse, p: Math.exp(sc.score - lse) };
  });
  ops.push(...row(s.q, [b, i, hh]).map((_, e) => ({ field: 'q', index: [b, i, hh, e] })), ...row(s.q, [b, j, hh]).map((_, e) => ({ field: 'q', index: [b, j, hh, e] })));
  const sTex = s.duplicates ? num(sc.score) : `${num(sc.raw)} - \\log ${sc.shared} = ${num(sc.score)}`;
  return explained('weights', index, value,
    `w_{${i}${j}} = \\sum_{r:\\ \\text{same bucket}} \\rho_r\\, e^{s_{${i}${j}} - \\mathrm{lse}_r(${i})}, \\quad s_{${i}${j}} = ${sTex}, \\quad w_{${i}${j}} = ${sum(parts.map((x) => `${num(x.rw)} \\cdot e^{${num(sc.score)} - ${factor(x.lse)}}`))} = ${sum(parts.map((x) => `${num(x.rw)} \\cdot ${num(x.p)}`))} = ${num(value)}`,
    say(lang, `Query ${i} and key ${j} share a bucket in ${shared.length} of ${s.rounds} rounds; in each, key ${j} gets exp(s − lse) of the round, weighted by the round's weight: ${parts.map((x) => `${plain(x.rw)} × ${plain(x.p)}`).join(' + ')} = ${plain(value)}.`,
      `查询 ${i} 与键 ${j} 在 ${s.rounds} 轮中有 ${shared.length} 轮同桶；每一轮键 ${j} 得到该轮的 exp(s − lse)，再乘以该轮的权重：${parts.map((x) => `${plain(x.rw)} × ${plain(x.p)}`).join(' + ')} = ${plain(value)}。`),
    terms, ops);
}

const context = kernelContext('q');

const explain: Explainer = (trace, scenario, field, index, lang) => {
  const s = setup(trace, scenario);
  if (!s || !inField(trace, field, index)) return null;
  if (field === 'buckets') return bucket(trace, s, index, lang);
  if (field === 'round_logsumexp') return logsumexp(trace, s, index, lang);
  if (field === 'round_weights') return roundWeight(trace, s, index, lang);
  if (field === 'weights') return weight(trace, s, index, lang);
  if (field === 'context') return context(trace, scenario, field, index, lang);
  return null;
};
export default explain;
