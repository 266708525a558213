// flash: the online softmax's maps (core/flash_attention.cpp), key block t = keys [t·block_k, (t+1)·block_k):
//   running_max      m_t = max(m_{t−1}, max_{j∈t} s_j)                       (m_{−1} = −∞)
//   flash.factor     a_t = exp(m_{t−1} − m_t)                                 (the view's rescale factor)
//   running_sum      ℓ_t = a_t ℓ_{t−1} + Σ_{j∈t} exp(s_j − m_t)               (ℓ_{−1} = 0)
//   partial_context  O_t = a_t O_{t−1} + Σ_{j∈t} exp(s_j − m_t) v_j
//   flash.output     O_t / ℓ_t;  context = O_{T−1} / ℓ_{T−1}
// with s_j = scale · q_i·k_j (a masked key reads the fill, or is skipped under −∞, as full's).
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explanation, Term } from './explanation';
import { Cells, capped, exactTex, exactText, explained, factor, num, plain, ref, say, sum, sumText } from './common';
import { allows, fullSpec, scoreParts, type SoftmaxSpec } from './softmax';

/** The core's running max before any allowed key (kNoKeyYet: JSON has no −∞). */
const NO_KEY_YET = -1.7976931348623157e308;
const m = (x: number) => (x === NO_KEY_YET ? -Infinity : x);

interface Block { t: number; keys: number[]; s: number[]; operands: CellRef[] }

/** Block t of query (b, h, i): its keys (allowed, or read as the fill) and their scores. */
function block(c: Cells, sp: SoftmaxSpec, b: number, h: number, i: number, t: number, lang: Lang): Block {
  const bk = Number(c.trace.block_k), L_K = c.shape('k')[1];
  const keys: number[] = [], s: number[] = [], operands: CellRef[] = [];
  for (let j = t * bk; j < Math.min((t + 1) * bk, L_K); j++) {
    const ok = !sp.mask || allows(c, sp.mask, b, i, j, lang).ok;
    if (!ok && sp.mask!.fill === -Infinity) continue;
    const p = scoreParts(c, sp, b, h, i, j);
    keys.push(j);
    s.push(ok ? sp.scale * p.total : sp.mask!.fill);
    operands.push(...p.operands);
  }
  return { t, keys, s, operands };
}

const before = (c: Cells, field: string, b: number, h: number, i: number, t: number, none: number) =>
  (t > 0 ? m(c.num(field, [b, h, i, t - 1])) : none);

function explainMax(c: Cells, sp: SoftmaxSpec, field: string, index: number[], lang: Lang, old: boolean): Explanation | null {
  const [b, h, i, t] = index;
  if (Number.isNaN(c.num('running_max', index))) return null;
  // the trace's number (kNoKeyYet where no key is allowed yet), written −∞
  const value = old ? (t > 0 ? c.num('running_max', [b, h, i, t - 1]) : -Infinity) : c.num('running_max', index);
  if (Number.isNaN(value) || t >= c.shape('running_max')[3]) return null;
  if (old) {
    const terms: Term[] = t > 0 ? [{ name: 'm_{t−1}', value, ref: ref('running_max', [b, h, i, t - 1]) }] : [];
    return explained(field, index, value, t > 0 ? `m_{${t - 1}} = ${num(m(value))}` : 'm_{-1} = -\\infty',
      say(lang, t > 0 ? `the running max after key block ${t - 1}: ${plain(m(value))}` : 'before the first key block the running max is −∞',
        t > 0 ? `键块 ${t - 1} 之后的运行最大值：${plain(m(value))}` : '第一个键块之前，运行最大值为 −∞'), terms, terms.map((x) => x.ref!));
  }
  const bl = block(c, sp, b, h, i, t, lang);
  const prev = before(c, 'running_max', b, h, i, t, -Infinity);
  const terms: Term[] = [{ name: 'm_{t−1}', value: prev, ...(t > 0 ? { ref: ref('running_max', [b, h, i, t - 1]) } : {}) },
    ...bl.s.map((x, n) => ({ name: `s_${bl.keys[n]}`, value: x }))];
  const formula = `m_{${t}} = \\max(m_{${t - 1}}, ${bl.keys.map((j) => `s_{${j}}`).join(', ') || '\\varnothing'}) = \\max(${[prev, ...bl.s].map(num).join(', ')}) = ${num(m(value))}${exactTex(m(value))}`;
  const text = say(lang,
    `running max after key block ${t} (keys ${bl.keys.join(', ') || 'none allowed'}) = max(${[prev, ...bl.s].map(plain).join(', ')}) = ${plain(m(value))}${exactText(m(value))}`,
    `键块 ${t}（键 ${bl.keys.join(', ') || '无'}）之后的运行最大值 = max(${[prev, ...bl.s].map(plain).join(', ')}) = ${plain(m(value))}${exactText(m(value))}`);
  return explained(field, index, value, formula, text, terms, [...(t > 0 ? [ref('running_max', [b, h, i, t - 1])] : []), ...bl.operands]);
}

/** a_t = exp(m_{t−1} − m_t): 0 at the first block with a key (nothing to rescale), 1 while there is none. */
function rescale(prev: number, now: number): number {
  return prev === -Infinity ? (now === -Infinity ? 1 : 0) : Math.exp(prev - now);
}

function explainFactor(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i, t] = index;
  const now = m(c.num('running_max', index));
  if (Number.isNaN(now)) return null;
  const prev = before(c, 'running_max', b, h, i, t, -Infinity);
  const value = rescale(prev, now);
  const terms: Term[] = [{ name: 'm_{t−1}', value: prev, ...(t > 0 ? { ref: ref('running_max', [b, h, i, t - 1]) } : {}) },
    { name: 'm_t', value: now, ref: ref('running_max', index) }];
  return explained(field, index, value, `a_{${t}} = e^{m_{${t - 1}} - m_{${t}}} = e^{${num(prev)} - ${factor(now)}} = ${num(value)}${exactTex(value)}`,
    say(lang, `rescale factor = exp(m_old − m_new) = exp(${plain(prev)} − ${plain(now)}) = ${plain(value)}${exactText(value)}: what is summed so far is multiplied by it`,
      `缩放因子 = exp(m_旧 − m_新) = exp(${plain(prev)} − ${plain(now)}) = ${plain(value)}${exactText(value)}：之前累加的部分都乘以它`),
    terms, terms.filter((x) => x.ref).map((x) => x.ref!));
}

/** ℓ_t (d < 0) or O_t[d] = a_t · old + Σ_{j∈t} exp(s_j − m_t) (· v_jd). */
function explainRunning(c: Cells, sp: SoftmaxSpec, field: string, index: number[], lang: Lang): Explanation | null {
  const isSum = field === 'running_sum';
  const [b, h, i, t, d] = isSum ? [...index, -1] : [index[0], index[1], index[3], index[2], index[4]];
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const now = m(c.num('running_max', [b, h, i, t]));
  const prev = before(c, 'running_max', b, h, i, t, -Infinity);
  const a = rescale(prev, now);
  const oldRef = t > 0 ? ref(field, isSum ? [b, h, i, t - 1] : [b, h, t - 1, i, d]) : null;
  const old = oldRef ? c.num(field, oldRef.index) : 0;
  const bl = block(c, sp, b, h, i, t, lang);
  const exps = bl.s.map((x) => Math.exp(x - now));
  const vs = bl.keys.map((j) => (isSum ? 1 : c.num(sp.v, [b, j, h, d])));
  const vRefs = bl.keys.map((j) => ref(sp.v, [b, j, h, Math.max(d, 0)]));
  const terms: Term[] = [{ name: 'a_t', value: a }, { name: isSum ? 'ℓ_{t−1}' : 'O_{t−1}', value: old, ...(oldRef ? { ref: oldRef } : {}) },
    ...capped(exps.map((e, n) => (isSum ? { name: `exp(s_${bl.keys[n]} − m_t)`, value: e }
      : { name: `exp(s_${bl.keys[n]} − m_t)·v[${bl.keys[n]},${d}]`, value: e * vs[n], refs: [vRefs[n]] })))];
  const parts = exps.map((e, n) => (isSum ? `e^{${num(bl.s[n])} - ${factor(now)}}` : `e^{${num(bl.s[n])} - ${factor(now)}} \\cdot ${factor(vs[n])}`));
  const partsText = exps.map((e, n) => (isSum ? plain(e) : `${plain(e)}·${plain(vs[n])}`));
  const sym = isSum ? '\\ell' : 'O';
  const formula = `${sym}_{${t}} = a_{${t}}\\, ${sym}_{${t - 1}} + \\sum_{j \\in ${t}} e^{s_j - m_{${t}}}${isSum ? '' : ` v_{j${d}}`} = ${num(a)} \\cdot ${factor(old)} + ${sum(parts)} = ${sum([num(a * old), ...exps.map((e, n) => num(e * vs[n]))])} = ${num(value)}${exactTex(value)}`;
  const text = say(lang,
    `${isSum ? 'running sum' : 'unnormalised output'} after key block ${t} = rescale ${plain(a)} × ${plain(old)} + (${sumText(partsText)}) = ${plain(value)}${exactText(value)}`,
    `键块 ${t} 之后的${isSum ? '运行和' : '未归一化输出'} = 缩放 ${plain(a)} × ${plain(old)} + (${sumText(partsText)}) = ${plain(value)}${exactText(value)}`);
  const operands = [ref('running_max', [b, h, i, t]), ...(t > 0 ? [ref('running_max', [b, h, i, t - 1])] : []), ...(oldRef ? [oldRef] : []),
    ...bl.operands, ...(isSum ? [] : vRefs)];
  return explained(field, index, value, formula, text, terms, operands);
}

/** context (b, i, h, d) = O_{T−1}/ℓ_{T−1}, or the view's output so far O_t/ℓ_t (flash.output, index (b, h, t, i, d)). */
function explainOutput(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const T = c.shape('running_sum')[3];
  const [b, h, t, i, d] = field === 'context' ? [index[0], index[2], T - 1, index[1], index[3]] : index;
  const oRef = ref('partial_context', [b, h, t, i, d]), lRef = ref('running_sum', [b, h, i, t]);
  const O = c.num(oRef.field, oRef.index), l = c.num(lRef.field, lRef.index);
  if (Number.isNaN(O) || Number.isNaN(l)) return null;
  const value = field === 'context' ? c.value(field, index) : O / l;
  if (typeof value !== 'number') return null;
  return explained(field, index, value, `${field === 'context' ? `c_{${i}${d}}` : `\\tilde{c}_{${i}${d}}`} = \\frac{O_{${t}}}{\\ell_{${t}}} = \\frac{${num(O)}}{${num(l)}} = ${num(value)}${exactTex(value)}`,
    say(lang, `${field === 'context' ? 'context' : `output after key block ${t}`} = unnormalised output / running sum = ${plain(O)} / ${plain(l)} = ${plain(value)}${exactText(value)}${l === 0 ? ' (no allowed key: 0)' : ''}`,
      `${field === 'context' ? '上下文' : `键块 ${t} 之后的输出`} = 未归一化输出 / 运行和 = ${plain(O)} / ${plain(l)} = ${plain(value)}${exactText(value)}${l === 0 ? '（没有允许的键：0）' : ''}`),
    [{ name: 'O_t', value: O, ref: oRef }, { name: 'ℓ_t', value: l, ref: lRef }], [oRef, lRef]);
}

function explainLOld(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, h, i, t] = index;
  if (Number.isNaN(c.num('running_sum', index))) return null;
  const value = before(c, 'running_sum', b, h, i, t, 0);
  const r = t > 0 ? [ref('running_sum', [b, h, i, t - 1])] : [];
  return explained(field, index, value, t > 0 ? `\\ell_{${t - 1}} = ${num(value)}` : '\\ell_{-1} = 0',
    say(lang, t > 0 ? `the running sum after key block ${t - 1}: ${plain(value)}` : 'before the first key block the running sum is 0',
      t > 0 ? `键块 ${t - 1} 之后的运行和：${plain(value)}` : '第一个键块之前，运行和为 0'),
    r.map((x) => ({ name: 'ℓ_{t−1}', value, ref: x })), r);
}

export default function explainFlash(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  const sp = fullSpec(c);
  switch (field) {
    case 'running_max': return explainMax(c, sp, field, index, lang, false);
    case 'flash.m_old': return explainMax(c, sp, field, index, lang, true);
    case 'flash.factor': return explainFactor(c, field, index, lang);
    case 'flash.l_old': return explainLOld(c, field, index, lang);
    case 'running_sum':
    case 'partial_context': return explainRunning(c, sp, field, index, lang);
    case 'context':
    case 'flash.output': return explainOutput(c, field, index, lang);
    default: return null;
  }
}
