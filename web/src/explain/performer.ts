// Performer's cells explained (core/performer_attention.cpp): a random feature
// φ_r(x) = exp(ω_r·x̃ − ‖x̃‖²/2) / √m with x̃ = x √scale, as the core computes it (no eps, no
// max subtracted), the projection's rows, and the implied weights as linear attention's.
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explainer, Explanation, Term } from './explanation';
import { kernelContext, kernelWeight } from './linear';
import { explained, factor, num, plain, product, say, sum } from './common';
import { scaleOf } from './softmax';
import { cell, dot, inField, input, row, term } from './parts';

/** features_q[b, i, h, r] = exp(ω_r·q̃_i − ‖q̃_i‖²/2) / √m (features_k likewise). */
function feature(trace: Trace, scenario: Scenario, field: 'features_q' | 'features_k', index: number[], lang: Lang): Explanation | null {
  if (!inField(trace, field, index) || trace.projection === undefined) return null;
  const name = field === 'features_q' ? 'q' : 'k';
  const x = input(scenario, trace, name);
  if (x === undefined) return null;
  const [b, l, hh, r] = index;
  const value = cell(trace[field], index);
  const xs = row(x, [b, l, hh]);
  const E = xs.length;
  const m = trace.shapes.projection[0];
  const scale = scaleOf(scenario, E).scale;
  const normalizer = Math.sqrt(scale);
  const xt = xs.map((a) => normalizer * a);
  const w = row(trace.projection, [r]);
  const wx = dot(w, xt);
  const half = 0.5 * dot(xt, xt);
  const exponent = wx - half;
  const xRef = (e: number): CellRef => ({ field: name, index: [b, l, hh, e] });
  const wRef = (e: number): CellRef => ({ field: 'projection', index: [r, e] });
  const raw = dot(w, xs);
  const terms: Term[] = [
    ...xs.map((a, e) => product(`ω_${r},${e}·${name}_${e}`, w[e], a, wRef(e), xRef(e))),
    term(`Σ_e ω_${r},e·${name}_e`, raw), term('√scale', normalizer), term(`ω_${r}·${name}̃`, wx), term(`‖${name}̃‖²/2`, half),
    term('exponent', exponent), term(`exp(exponent)`, Math.exp(exponent)), term('√m', Math.sqrt(m)),
  ];
  const t = `\\tilde ${name}_{${l}}`;
  return explained(field, index, value,
    `\\phi_{${r}}(${t}) = \\frac{1}{\\sqrt{m}} \\exp\\big(\\omega_{${r}} \\cdot ${t} - \\tfrac{1}{2}\\lVert ${t} \\rVert^2\\big), \\quad ${t} = \\sqrt{\\text{scale}}\\, ${name}_{${l}}: `
      + `\\quad \\omega_{${r}} \\cdot ${t} = ${num(normalizer)} \\left(${sum(xs.map((a, e) => `${factor(w[e])} \\cdot ${factor(a)}`))}\\right) = ${num(normalizer)} \\cdot ${factor(raw)} = ${num(wx)}, `
      + `\\quad \\tfrac{1}{2}\\lVert ${t} \\rVert^2 = ${num(half)}, \\quad \\phi_{${r}} = \\frac{e^{${num(wx)} - ${factor(half)}}}{\\sqrt{${m}}} = \\frac{e^{${num(exponent)}}}{${num(Math.sqrt(m))}} = \\frac{${num(Math.exp(exponent))}}{${num(Math.sqrt(m))}} = ${num(value)}`,
    say(lang, `Random feature ${r} of ${name}_${l} is exp(ω_${r}·${name}̃ − ‖${name}̃‖²/2) / √${m} = exp(${plain(wx)} − ${plain(half)}) / ${plain(Math.sqrt(m))} = ${plain(value)}, with ${name}̃ = ${name}_${l} √scale and no maximum subtracted (the core, like performer-pytorch's softmax_kernel without its stabiliser, overflows to an error instead).`,
      `${name}_${l} 的随机特征 ${r} 是 exp(ω_${r}·${name}̃ − ‖${name}̃‖²/2) / √${m} = exp(${plain(wx)} − ${plain(half)}) / ${plain(Math.sqrt(m))} = ${plain(value)}，其中 ${name}̃ = ${name}_${l} √scale，不减去最大值（核心与去掉稳定项的 performer-pytorch softmax_kernel 一样，溢出时报错）。`),
    terms, [...xs.map((_, e) => xRef(e)), ...w.map((_, e) => wRef(e))]);
}

/** projection[r, e]: a given number, or drawn from the seed (its row's length says which norms). */
function projection(trace: Trace, scenario: Scenario, index: number[], lang: Lang): Explanation | null {
  if (!inField(trace, 'projection', index)) return null;
  const [r, e] = index;
  const value = cell(trace.projection, index);
  const w = row(trace.projection, [r]);
  const length = Math.sqrt(dot(w, w));
  const given = scenario.projection !== undefined;
  const orthogonal = scenario.orthogonal !== false;
  const norms = String(scenario.norms ?? 'chi');
  const how = given ? say(lang, 'given in the scenario', '由场景给出')
    : say(lang, `drawn from seed ${String(scenario.seed ?? 0)}: ${orthogonal ? 'orthogonal' : 'iid Gaussian'} rows with ${norms} lengths`,
      `由种子 ${String(scenario.seed ?? 0)} 抽取：${orthogonal ? '正交' : '独立高斯'}行，长度取 ${norms}`);
  return explained('projection', index, value,
    `\\omega_{${r},${e}} = ${num(value)}, \\quad \\lVert \\omega_{${r}} \\rVert = \\sqrt{${sum(w.map((a) => `${factor(a)}^2`))}} = ${num(length)}`,
    say(lang, `Entry ${e} of the random direction ω_${r} (${how}); the row's length is ${plain(length)}.`,
      `随机方向 ω_${r} 的第 ${e} 个分量（${how}）；这一行的长度是 ${plain(length)}。`),
    [...w.map((a, f) => term(`ω_${r},${f}`, a, 'projection', [r, f])), term(`‖ω_${r}‖`, length)], []);
}

const context = kernelContext('k');

const explain: Explainer = (trace, scenario, field, index, lang) => {
  if (field === 'context') return context(trace, scenario, field, index, lang);
  if (field === 'weights') return kernelWeight(trace, scenario, index, lang, true);
  if (field === 'features_q' || field === 'features_k') return feature(trace, scenario, field, index, lang);
  if (field === 'projection') return projection(trace, scenario, index, lang);
  return null;
};
export default explain;
