// additive: d2l's AdditiveAttention (core/additive_attention.cpp):
//   features[b,i,j,c] = tanh(Σ_e W_q[c,e] q[b,i,0,e] + Σ_e W_k[c,e] k[b,j,0,e])
//   scores[b,0,i,j]   = Σ_c w_v[c] features[b,i,j,c]          (no scale)
//   weights, context, allowed: softmax.ts (d2l's −1e6 fill for valid_lens)
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { Explanation } from './explanation';
import { Cells, capNote, dotSum, exactTex, exactText, explained, num, plain, ref, say } from './common';
import { explainAllowed, explainContext, explainWeight, maskOf, type SoftmaxSpec } from './softmax';

/** A weight's field: the trace's (drawn from the seed), else the scenario's `weights`. */
const param = (c: Cells, name: string) => (c.has(name) ? name : `weights.${name}`);

const spec = (c: Cells): SoftmaxSpec => ({ q: 'q', k: 'k', v: 'v', scores: 'scores', allowed: 'allowed', weights: 'weights', context: 'context',
  scale: 1, scaleTex: '1', mask: maskOf(c.scenario) });

function explainFeature(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, j, h] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const Wq = param(c, 'W_q'), Wk = param(c, 'W_k');
  const pq = dotSum(c.shape('q')[3], (e) => `W_q[${h},${e}]·q[${i},${e}]`, (e) => {
    const rw = ref(Wq, [h, e]), rq = ref('q', [b, i, 0, e]);
    return [c.num(Wq, rw.index), c.num('q', rq.index), rw, rq];
  });
  const pk = dotSum(c.shape('k')[3], (e) => `W_k[${h},${e}]·k[${j},${e}]`, (e) => {
    const rw = ref(Wk, [h, e]), rk = ref('k', [b, j, 0, e]);
    return [c.num(Wk, rw.index), c.num('k', rk.index), rw, rk];
  });
  const x = pq.total + pk.total;
  return explained(field, index, value,
    `\\tanh\\big((W_q q_{${i}})_{${h}} + (W_k k_{${j}})_{${h}}\\big) = \\tanh\\big((${pq.tex}) + (${pk.tex})\\big) = \\tanh(${num(pq.total)} + ${num(pk.total)}) = \\tanh(${num(x)}) = ${num(value)}${exactTex(value)}`,
    say(lang, `feature ${h} of (query ${i}, key ${j}) = tanh((W_q q)[${h}] + (W_k k)[${h}]) = tanh(${plain(pq.total)} + ${plain(pk.total)}) = tanh(${plain(x)}) = ${plain(value)}${exactText(value)}`,
      `（查询 ${i}，键 ${j}）的特征 ${h} = tanh((W_q q)[${h}] + (W_k k)[${h}]) = tanh(${plain(pq.total)} + ${plain(pk.total)}) = tanh(${plain(x)}) = ${plain(value)}${exactText(value)}`) + capNote(lang, Math.max(pq.n, pk.n)),
    [...pq.terms, ...pk.terms, { name: '(W_q q)[c]', value: pq.total }, { name: '(W_k k)[c]', value: pk.total }], [...pq.operands, ...pk.operands]);
}

function explainScore(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, , i, j] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const wv = param(c, 'w_v');
  const p = dotSum(c.shape('features')[3], (h) => `w_v[${h}]·features[${i},${j},${h}]`, (h) => {
    const rw = ref(wv, [h]), rf = ref('features', [b, i, j, h]);
    return [c.num(wv, rw.index), c.num('features', rf.index), rw, rf];
  });
  return explained(field, index, value, `s_{${i}${j}} = \\sum_c w_v[c]\\, \\text{features}_{${i}${j}c} = ${p.tex} = ${num(value)}${exactTex(value)}`,
    say(lang, `additive score = w_v · tanh(W_q q + W_k k) = ${p.text} = ${plain(value)}${exactText(value)} (no scale)`,
      `加性分数 = w_v · tanh(W_q q + W_k k) = ${p.text} = ${plain(value)}${exactText(value)}（无缩放）`) + capNote(lang, p.n),
    p.terms, p.operands);
}

function explainParam(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const name = param(c, field);
  const value = c.value(name, index);
  if (typeof value !== 'number') return null;
  const drawn = name === field;
  return explained(field, index, value, `${field.replace('_', '\\_')}[${index.join(', ')}] = ${num(value)}${exactTex(value)}`,
    say(lang, `a weight of the scoring layer, ${drawn ? `drawn from the seed ${Number(c.scenario.seed ?? 0)} as nn.Linear initialises it` : "given by the scenario's weights"}`,
      `打分层的权重，${drawn ? `由种子 ${Number(c.scenario.seed ?? 0)} 按 nn.Linear 的初始化抽取` : '由场景的 weights 给出'}`), [], []);
}

export default function explainAdditive(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  switch (field) {
    case 'features': return explainFeature(c, field, index, lang);
    case 'scores': return explainScore(c, field, index, lang);
    case 'allowed': return explainAllowed(c, spec(c), field, index, lang);
    case 'weights': return explainWeight(c, spec(c), field, index, lang);
    case 'context': return explainContext(c, spec(c), field, index, lang);
    case 'W_q':
    case 'W_k':
    case 'w_v': return explainParam(c, field, index, lang);
    default: return null;
  }
}
