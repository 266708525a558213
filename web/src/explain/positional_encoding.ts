// Positional encoding's cells explained (core/positional_encoding.cpp, d2l 10.6.3):
// P[i, 2j] = sin(i / base^{2j/d}), P[i, 2j+1] = cos(the same), with the argument as a number.
import type { Explainer } from './explanation';
import { explained, num, plain, say } from './common';
import { cell, inField, term } from './parts';

const explain: Explainer = (trace, scenario, field, index, lang) => {
  if (field !== 'P' || !inField(trace, field, index)) return null;
  const [i, c] = index;
  const value = cell(trace.P, index);
  const d = trace.shapes.P[1];
  const base = typeof scenario.base === 'number' ? scenario.base : 10000;
  const j = Math.floor(c / 2);
  const exponent = (2 * j) / d;
  const denominator = Math.pow(base, exponent);
  const arg = i / denominator;
  const fn = c % 2 === 0 ? 'sin' : 'cos';
  return explained('P', index, value,
    `P_{${i},${c}} = \\${fn}\\Big(\\frac{i}{${num(base)}^{2j/d}}\\Big) = \\${fn}\\Big(\\frac{${i}}{${num(base)}^{${2 * j}/${d}}}\\Big) = \\${fn}\\Big(\\frac{${i}}{${num(base)}^{${num(exponent)}}}\\Big) = \\${fn}\\Big(\\frac{${i}}{${num(denominator)}}\\Big) = \\${fn}(${num(arg)}) = ${num(value)}`,
    say(lang, `Column ${c} is the ${fn === 'sin' ? 'sine' : 'cosine'} of frequency pair j = ${j}: position ${i} divided by ${plain(base)}^(${2 * j}/${d}) = ${plain(denominator)} gives the argument ${plain(arg)}, and ${fn}(${plain(arg)}) = ${plain(value)}.`,
      `第 ${c} 列是第 j = ${j} 对频率的${fn === 'sin' ? '正弦' : '余弦'}：位置 ${i} 除以 ${plain(base)}^(${2 * j}/${d}) = ${plain(denominator)} 得到自变量 ${plain(arg)}，${fn}(${plain(arg)}) = ${plain(value)}。`),
    [term('i', i), term('2j/d', exponent), term('base^(2j/d)', denominator), term('argument i / base^(2j/d)', arg)], []);
};
export default explain;
