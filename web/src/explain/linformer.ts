// Linformer's own cells explained (core/linformer_attention.cpp): the projected keys and values
// projected_k[b, r, h, e] = Σ_j E_proj[r, j] k[b, j, h, e] (F_proj and v likewise) and the
// projections' entries; its scores, weights and context are softmax attention's on the
// projected keys and values.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explainer, Explanation } from './explanation';
import { explained, factor, num, plain, product, say, sum } from './common';
import { cell, inField, input, term } from './parts';
import { scaleOf, softmaxExplainer } from './softmax';

/** projected_k[b, r, h, e] = Σ_j E_proj[r, j] k[b, j, h, e]; projected_v with F_proj and v. */
function projected(trace: Trace, scenario: Scenario, field: 'projected_k' | 'projected_v', index: number[], lang: Lang): Explanation | null {
  if (!inField(trace, field, index)) return null;
  const [name, P] = field === 'projected_k' ? ['k', 'E_proj'] : ['v', 'F_proj'];
  const x = input(scenario, trace, name);
  if (x === undefined || trace[P] === undefined) return null;
  const [b, r, hh, e] = index;
  const value = cell(trace[field], index);
  const L_K = trace.shapes[P][1];
  const js = Array.from({ length: L_K }, (_, j) => j);
  const p = js.map((j) => cell(trace[P], [r, j]));
  const xs = js.map((j) => cell(x, [b, j, hh, e]));
  const terms = js.map((j) => product(`${P}[${r},${j}]·${name}[${j},${e}]`, p[j], xs[j], { field: P, index: [r, j] }, { field: name, index: [b, j, hh, e] }));
  const mat = P === 'E_proj' ? 'E' : 'F';
  return explained(field, index, value,
    `(${mat}${name.toUpperCase()})_{${r},${e}} = \\sum_{j=0}^{${L_K - 1}} ${mat}_{${r} j}\\, ${name}_{j,${e}} = ${sum(js.map((j) => `${factor(p[j])} \\cdot ${factor(xs[j])}`))} = ${num(value)}`,
    say(lang, `Projected ${name === 'k' ? 'key' : 'value'} ${r}, entry ${e}, mixes all ${L_K} ${name === 'k' ? 'keys' : 'values'}: Σ_j ${P}[${r}, j] · ${name}[j, ${e}] = ${plain(value)}.`,
      `第 ${r} 个投影${name === 'k' ? '键' : '值'}的第 ${e} 个分量混合了全部 ${L_K} 个${name === 'k' ? '键' : '值'}：Σ_j ${P}[${r}, j] · ${name}[j, ${e}] = ${plain(value)}。`),
    terms, [...js.map((j) => ({ field: P, index: [r, j] })), ...js.map((j) => ({ field: name, index: [b, j, hh, e] }))]);
}

/** E_proj[r, j] (F_proj): given, or drawn from the seed as the authors initialise compress_k. */
function projection(trace: Trace, scenario: Scenario, field: 'E_proj' | 'F_proj', index: number[], lang: Lang): Explanation | null {
  if (!inField(trace, field, index)) return null;
  const [r, j] = index;
  const value = cell(trace[field], index);
  const [k, L_K] = trace.shapes[field];
  if (scenario[field] !== undefined) {
    return explained(field, index, value, `${field === 'E_proj' ? 'E' : 'F'}_{${r} ${j}} = ${num(value)}`,
      say(lang, `How much position ${j} weighs in projected row ${r}, as the scenario gives it.`, `位置 ${j} 在第 ${r} 个投影行中的权重，由场景给出。`), [], []);
  }
  const bound = Math.sqrt(3 / (L_K + k));
  return explained(field, index, value,
    `${field === 'E_proj' ? 'E' : 'F'}_{${r} ${j}} = ${num(value)} \\sim U(-a, a), \\quad a = \\tfrac{1}{\\sqrt 2}\\sqrt{\\tfrac{6}{${L_K} + ${k}}} = ${num(bound)}`,
    say(lang, `How much position ${j} weighs in projected row ${r}: drawn from seed ${String(scenario.seed ?? 0)}, uniform on ±${plain(bound)} (xavier_uniform_ with gain 1/√2, as the authors initialise compress_k).`,
      `位置 ${j} 在第 ${r} 个投影行中的权重：由种子 ${String(scenario.seed ?? 0)} 抽取，在 ±${plain(bound)} 上均匀分布（与作者初始化 compress_k 一样，xavier_uniform_，gain 1/√2）。`),
    [term('a', bound)], []);
}

/** scores, weights and context: softmax attention over the projected keys and values. */
const family = softmaxExplainer((c) => ({ q: 'q', k: 'projected_k', v: 'projected_v', scores: 'scores', weights: 'weights',
  context: 'context', ...scaleOf(c.scenario, c.shape('q')[3]), mask: null }));

const explain: Explainer = (trace, scenario, field, index, lang) => {
  if (field === 'scores' || field === 'weights' || field === 'context') return family(trace, scenario, field, index, lang);
  if (field === 'projected_k' || field === 'projected_v') return projected(trace, scenario, field, index, lang);
  if (field === 'E_proj' || field === 'F_proj') return projection(trace, scenario, field, index, lang);
  return null;
};
export default explain;
