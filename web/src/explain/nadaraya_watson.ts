// Nadaraya-Watson's cells explained (core/nadaraya_watson.cpp, d2l 10.2): a weight as the kernel
// value K(u), u = (x_query − x_train) · w (w trained where the scenario trains it), normalised
// over the training points (the gaussian as d2l computes it, a softmax of −u²/2 with the row's
// max subtracted), and y_hat as Σ_i weights · y_train.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explainer, Explanation, Term } from './explanation';
import { capNote, capped, explained, factor, num, plain, product, say, sum } from './common';
import { cell, inField, row, softmaxStep, term } from './parts';

const KERNEL: Record<string, (u: number) => number> = {
  boxcar: (u) => (Math.abs(u) < 1 ? 1 : 0),
  constant: () => 1,
  epanechnikov: (u) => Math.max(1 - Math.abs(u), 0),
};
const KERNEL_TEX: Record<string, (u: string) => string> = {
  boxcar: (u) => `[\\,|${u}| < 1\\,]`,
  constant: () => '1',
  epanechnikov: (u) => `\\max(0, 1 - |${u}|)`,
};

/** w as the trace reports it ("trained" where the scenario trains it). */
const wWords = (trace: Trace, scenario: Scenario, lang: Lang) => (scenario.train !== undefined
  ? say(lang, `w = ${plain(Number(trace.w))}, trained`, `w = ${plain(Number(trace.w))}，训练所得`)
  : `w = ${plain(Number(trace.w))}`);

/** weights[q, i] = K(u_qi) / Σ_i' K(u_qi'), u = (x_query[q] − x_train[i]) · w. */
function weight(trace: Trace, scenario: Scenario, index: number[], lang: Lang): Explanation {
  const [q, i] = index;
  const value = cell(trace.weights, index);
  const w = Number(trace.w);
  const kernel = String(scenario.kernel ?? 'gaussian');
  const xq = cell(trace.x_query, [q]);
  const xs = row(trace.x_train, []);
  const us = xs.map((x) => (xq - x) * w);
  const u = us[i];
  const ops = [{ field: 'x_query', index: [q] }, ...xs.map((_, n) => ({ field: 'x_train', index: [n] }))];
  const terms: Term[] = [term(`x_query[${q}]`, xq, 'x_query', [q]), term(`x_train[${i}]`, xs[i], 'x_train', [i]), term('w', w),
    term(`u = (x_query − x_train)·w`, u)];
  const uTex = `(${num(xq)} - ${factor(xs[i])}) \\cdot ${factor(w)}`;
  if (kernel === 'gaussian') {
    // d2l: softmax(−u²/2) over the training points
    const step = softmaxStep({ scores: us.map((x) => -(x * x) / 2), i: q, j: i, value, lang });
    terms.push(term('s = −u²/2', -(u * u) / 2), ...step.terms);
    return explained('weights', index, value,
      `u = ${uTex} = ${num(u)}, \\quad s = -u^2/2 = ${num(-(u * u) / 2)}, \\quad ${step.formula}`,
      say(lang, `Query x = ${plain(xq)} and training point ${i} at ${plain(xs[i])} are u = ${plain(u)} apart (${wWords(trace, scenario, lang)}); the Gaussian kernel exp(−u²/2) = ${plain(Math.exp(-(u * u) / 2))} is normalised over the ${xs.length} training points as d2l does, a softmax of s = −u²/2: `,
        `查询 x = ${plain(xq)} 与位于 ${plain(xs[i])} 的训练点 ${i} 相距 u = ${plain(u)}（${wWords(trace, scenario, lang)}）；高斯核 exp(−u²/2) = ${plain(Math.exp(-(u * u) / 2))} 按 d2l 的做法对 ${xs.length} 个训练点归一化，即 s = −u²/2 的 softmax：`) + step.text,
      terms, ops);
  }
  const K = KERNEL[kernel];
  if (!K) return explained('weights', index, value, num(value), kernel, terms, ops);
  const ks = us.map(K);
  const total = ks.reduce((a, x) => a + x, 0);
  terms.push(term('K(u)', ks[i]), term('Σ_i K(u_i)', total));
  if (!(total > 0)) {
    return explained('weights', index, value, `u = ${uTex} = ${num(u)}, \\quad K(u) = ${num(ks[i])}, \\quad \\sum_{i'} K(u_{i'}) = 0 \\Rightarrow \\alpha = 0`,
      say(lang, `No training point is in the ${kernel} kernel's reach of x = ${plain(xq)}: every weight of this query is 0.`,
        `没有训练点落在 x = ${plain(xq)} 的 ${kernel} 核范围内：这个查询的权重都是 0。`), terms, ops);
  }
  return explained('weights', index, value,
    `u = ${uTex} = ${num(u)}, \\quad \\alpha = \\frac{K(u)}{\\sum_{i'} K(u_{i'})} = \\frac{${KERNEL_TEX[kernel](num(u))}}{${num(total)}} = \\frac{${num(ks[i])}}{${num(total)}} = ${num(value)}`,
    say(lang, `Query x = ${plain(xq)} and training point ${i} at ${plain(xs[i])} are u = ${plain(u)} apart (${wWords(trace, scenario, lang)}); the ${kernel} kernel gives ${plain(ks[i])}, over the row's sum ${plain(total)}: ${plain(value)}.`,
      `查询 x = ${plain(xq)} 与位于 ${plain(xs[i])} 的训练点 ${i} 相距 u = ${plain(u)}（${wWords(trace, scenario, lang)}）；${kernel} 核值 ${plain(ks[i])} 除以行和 ${plain(total)}：${plain(value)}。`),
    terms, ops);
}

/** y_hat[q] = Σ_i weights[q, i] y_train[i]. */
function yHat(trace: Trace, index: number[], lang: Lang): Explanation {
  const [q] = index;
  const value = cell(trace.y_hat, index);
  const ws = row(trace.weights, [q]);
  const ys = row(trace.y_train, []);
  // the terms by size, largest first: the formula shows the three largest and the smallest
  const order = ws.map((_, i) => i).sort((x, y) => Math.abs(ws[y] * ys[y]) - Math.abs(ws[x] * ys[x]));
  const terms = capped(order.map((i) => product(`weights[${q},${i}]·y_train[${i}]`, ws[i], ys[i], { field: 'weights', index: [q, i] },
    { field: 'y_train', index: [i] })));
  return explained('y_hat', index, value,
    `\\hat y_{${q}} = \\sum_i \\alpha_{${q} i}\\, y_i = ${sum(order.map((i) => `${num(ws[i])} \\cdot ${factor(ys[i])}`))} = ${num(value)}`,
    say(lang, `The prediction at query ${q} is the sum of its ${ys.length} weights times the training targets, written largest term first: ${plain(value)}; the largest terms are those of training points ${order.slice(0, 3).join(', ')}.`,
      `查询 ${q} 的预测是它的 ${ys.length} 个权重乘以训练目标之和（按项的大小排列）：${plain(value)}；最大的几项来自训练点 ${order.slice(0, 3).join('、')}。`) + capNote(lang, ys.length),
    terms, [...ws.map((_, i) => ({ field: 'weights', index: [q, i] })), ...ys.map((_, i) => ({ field: 'y_train', index: [i] }))]);
}

const explain: Explainer = (trace, scenario, field, index, lang) => {
  if (!inField(trace, field, index)) return null;
  if (field === 'weights') return weight(trace, scenario, index, lang);
  if (field === 'y_hat') return yHat(trace, index, lang);
  return null;
};
export default explain;
