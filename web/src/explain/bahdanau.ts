// Bahdanau attention's cells explained (core/bahdanau.cpp, d2l 10.4): the decoder step t's
// weight on source position j is the masked softmax of the additive scores
// s_tj = w_v · tanh(W_q q_t + W_k k_j), q_t = dec_queries[b, t], k_j = enc_outputs[b, j]
// (positions at or past enc_valid_lens[b] read d2l's −1e6); an output logit is the dense layer
// on the decoder's output of the step. W_q, W_k, w_v and the dense layer are the scenario's, or
// drawn from the seed as the core draws them (seq2seq-weights.ts); trained ones are not in the
// trace, so after training a weight is explained by its row alone.
import { nested, type Scenario, type Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import { seededSeq2seq, seq2seqState } from '../seq2seq-weights';
import type { CellRef, Explainer, Explanation, Term } from './explanation';
import { dotSum, explained, factor, num, plain, ref, say, sum } from './common';
import { cell, inField, input, row, softmaxStep, term } from './parts';


/** The attention's and the dense layer's weights (flat, torch's (out, in) row-major); null after training. */
interface Params { W_q: number[]; W_k: number[]; w_v: number[]; dense: number[]; bias: number[]; drawn: boolean }

const flat = (v: unknown): number[] => (Array.isArray(v) ? (v as unknown[]).flat(Infinity) as number[] : []);

function paramsOf(trace: Trace, scenario: Scenario): Params | null {
  if (scenario.train !== undefined) return null;
  const h = trace.shapes.enc_outputs?.[2];
  if (!h) return null;
  const given = scenario.weights as Record<string, unknown> | undefined;
  const w: Record<string, unknown> = given ?? seededSeq2seq(Number(scenario.seed ?? 0),
    seq2seqState(Number(scenario.src_vocab ?? 10), Number(scenario.tgt_vocab ?? 10), Number(scenario.embed_size ?? 8), h,
      Number(scenario.num_layers ?? 1)), h);
  const get = (name: string) => flat(nested(w[`decoder.${name}`]));
  const p = { W_q: get('attention.W_q.weight'), W_k: get('attention.W_k.weight'), w_v: get('attention.w_v.weight'),
    dense: get('dense.weight'), bias: get('dense.bias'), drawn: given === undefined };
  return p.W_q.length === h * h && p.W_k.length === h * h && p.w_v.length === h ? p : null;
}

/** s_tj = Σ_r w_v[r] tanh((W_q q_t)_r + (W_k k_j)_r). */
function additive(trace: Trace, p: Params, b: number, t: number, j: number, queries: string) {
  const q = row(trace[queries], [b, t]);
  const k = row(trace.enc_outputs, [b, j]);
  const h = q.length;
  const a = Array.from({ length: h }, (_, r) => {
    let x = 0;
    for (let c = 0; c < h; c++) x += p.W_q[r * h + c] * q[c] + p.W_k[r * h + c] * k[c];
    return x;
  });
  const th = a.map(Math.tanh);
  let s = 0;
  for (let r = 0; r < h; r++) s += p.w_v[r] * th[r];
  return { q, k, a, th, s };
}

/** enc_valid_lens[b] (T_src without one). */
const validLen = (trace: Trace, scenario: Scenario, b: number): number => {
  const lens = input(scenario, trace, 'enc_valid_lens');
  return lens === undefined ? trace.shapes.enc_outputs[1] : cell(lens, [b]);
};

/** weights[b, t, j] (and the held-out example's heldout_weights[t, j]). */
function weight(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation {
  const held = field === 'heldout_weights';
  const [b, t, j] = held ? [0, ...index] : index;
  const value = cell(trace[field], index);
  const ws = held ? row(trace[field], [t]) : row(trace[field], [b, t]);
  const p = held ? null : paramsOf(trace, scenario);
  if (!p) {
    // trained parameters are not in the trace: the row alone fixes the score differences
    const top = Math.max(...ws);
    const argmax = ws.indexOf(top);
    const terms = ws.map((x, jj) => term(`w[${t},${jj}]`, x, field, held ? [t, jj] : [b, t, jj]));
    // what the scores read (the query and every encoder output), without the trained weights
    const ops: CellRef[] = held ? [] : [...row(trace.dec_queries, [b, t]).map((_, c) => ({ field: 'dec_queries', index: [b, t, c] })),
      ...ws.flatMap((_, jj) => row(trace.enc_outputs, [b, jj]).map((_, c) => ({ field: 'enc_outputs', index: [b, jj, c] })))];
    const softmax = `w_{${t},:} = (${ws.map(num).join(', ')}), \\quad w_{${t}${j}} = \\frac{e^{s_{${t}${j}} - \\max_{j'} s_{${t}j'}}}{\\sum_{j'} e^{s_{${t}j'} - \\max}}`;
    if (value === 0) {
      return explained(field, index, value, `${softmax} = 0`,
        say(lang, `Decoder step ${t} gives source position ${j} no attention: the position is past the valid length, its score replaced by −1e6 before the softmax (the trained W_q, W_k, w_v are not in the trace).`,
          `解码第 ${t} 步不关注源位置 ${j}：该位置超出有效长度，分数在 softmax 前被替换为 −1e6（训练后的 W_q、W_k、w_v 不在 trace 中）。`),
        terms, ops);
    }
    const gap = Math.log(value / top);
    return explained(field, index, value,
      `${softmax}, \\quad s_{${t}${j}} - s_{${t}${argmax}} = \\ln\\frac{${num(value)}}{${num(top)}} = ${num(gap)}`,
      say(lang, `Decoder step ${t} puts ${plain(value)} of its attention on source position ${j}: the softmax of the trained model's additive scores w_v·tanh(W_q q + W_k k) (its W_q, W_k, w_v are not in the trace), ${argmax === j ? 'the largest of the row' : `this one ${plain(-gap)} below that of position ${argmax}`}.`,
        `解码第 ${t} 步把 ${plain(value)} 的注意力放在源位置 ${j}：训练后模型的加性分数 w_v·tanh(W_q q + W_k k) 的 softmax（其 W_q、W_k、w_v 不在 trace 中），${argmax === j ? '此处分数为该行最大' : `此处的分数比位置 ${argmax} 的低 ${plain(-gap)}`}。`),
      terms, ops);
  }
  const T = ws.length;
  const len = validLen(trace, scenario, b);
  const scores = Array.from({ length: T }, (_, jj) => additive(trace, p, b, t, jj, 'dec_queries').s);
  const own = additive(trace, p, b, t, j, 'dec_queries');
  const h = own.q.length;
  const step = softmaxStep({ scores, i: t, j, value, lang, masked: scores.map((_, jj) => jj >= len), fill: -1e6 });
  const masked = j >= len;
  const terms: Term[] = [
    ...own.a.map((x, r) => term(`(W_q q_${t} + W_k k_${j})_${r}`, x)),
    ...p.w_v.map((x, r) => term(`w_v[${r}]`, x)),
    term(`s_${t},${j}`, own.s), ...(masked ? [term('enc_valid_lens', len, 'enc_valid_lens', [b])] : []), ...step.terms,
  ];
  const ops: CellRef[] = [
    ...own.q.map((_, c) => ({ field: 'dec_queries', index: [b, t, c] })),
    ...Array.from({ length: T }, (_, jj) => Array.from({ length: h }, (_, c) => ({ field: 'enc_outputs', index: [b, jj, c] }))).flat(),
  ];
  const drawn = p.drawn ? say(lang, ' (W_q, W_k, w_v drawn from the seed)', '（W_q、W_k、w_v 由种子抽取）') : '';
  return explained(field, index, value,
    `s_{${t}${j}} = w_v \\cdot \\tanh(W_q q_{${t}} + W_k k_{${j}}) = ${sum(p.w_v.map((x, r) => `${factor(x)} \\tanh(${num(own.a[r])})`))} = ${num(own.s)}${masked ? `\\ \\to -10^{6}\\ (j = ${j} \\ge \\text{valid\\_len} = ${len})` : ''}, \\quad ${step.formula}`,
    (masked
      ? say(lang, `Source position ${j} is at or past enc_valid_lens = ${len}: its additive score ${plain(own.s)} is replaced by −1e6 before the softmax over the source positions: `,
        `源位置 ${j} 不小于 enc_valid_lens = ${len}：它的加性分数 ${plain(own.s)} 在对源位置做 softmax 前被替换为 −1e6：`)
      : say(lang, `Decoder step ${t}'s additive score for source position ${j} is w_v·tanh(W_q q_${t} + W_k k_${j}) = ${plain(own.s)}${drawn}, then the softmax over the source positions: `,
        `解码第 ${t} 步对源位置 ${j} 的加性分数是 w_v·tanh(W_q q_${t} + W_k k_${j}) = ${plain(own.s)}${drawn}，再对源位置做 softmax：`)) + step.text,
    terms, ops);
}

/** output[b, t, v] = dense.weight[v] · o_t + dense.bias[v], o_t the top GRU layer's output at step t. */
function output(trace: Trace, scenario: Scenario, index: number[], lang: Lang): Explanation {
  const [b, t, v] = index;
  const value = cell(trace.output, index);
  const T = trace.shapes.output[1];
  const L = trace.shapes.dec_state[0];
  // the step's output is the state the next step attends with; the last step's is the final state
  const ref = t + 1 < T ? { field: 'dec_queries', at: [b, t + 1] } : { field: 'dec_state', at: [L - 1, b] };
  const o = row(trace[ref.field], ref.at);
  const logits = row(trace.output, [b, t]);
  const top = Math.max(...logits);
  const prob = Math.exp(value - top) / logits.reduce((a, x) => a + Math.exp(x - top), 0);
  const p = paramsOf(trace, scenario);
  const ops = o.map((_, c) => ({ field: ref.field, index: [...ref.at, c] }));
  const probText = say(lang, `; softmax over the ${logits.length} target tokens makes it probability ${plain(prob)}`,
    `；对 ${logits.length} 个目标词做 softmax 后概率为 ${plain(prob)}`);
  if (!p || p.dense.length !== logits.length * o.length) {
    return explained('output', index, value, `\\mathrm{logit}_{${t},${v}} = W_{\\mathrm{dense}}[${v}] \\cdot o_{${t}} + b_{${v}} = ${num(value)}, \\quad p = \\mathrm{softmax}(\\mathrm{logit}_{${t}})_{${v}} = ${num(prob)}`,
      say(lang, `Logit of token ${v} at decoder step ${t}: the trained dense layer (not in the trace) on the step's GRU output`, `解码第 ${t} 步词 ${v} 的 logit：训练后的全连接层（不在 trace 中）作用于这一步的 GRU 输出`) + probText + '.',
      [term('p', prob)], ops);
  }
  const h = o.length;
  const wd = p.dense.slice(v * h, (v + 1) * h);
  return explained('output', index, value,
    `\\mathrm{logit}_{${t},${v}} = W_{\\mathrm{dense}}[${v}] \\cdot o_{${t}} + b_{${v}} = ${sum(wd.map((x, c) => `${factor(x)} \\cdot ${factor(o[c])}`))} + ${factor(p.bias[v])} = ${num(value)}, \\quad p = \\mathrm{softmax}(\\mathrm{logit}_{${t}})_{${v}} = ${num(prob)}`,
    say(lang, `Logit of token ${v} at decoder step ${t}: the dense layer's row ${v} times the step's GRU output (${ref.field === 'dec_queries' ? `the state step ${t + 1} attends with` : 'the final state'}) plus its bias ${plain(p.bias[v])}: ${plain(value)}`,
      `解码第 ${t} 步词 ${v} 的 logit：全连接层第 ${v} 行乘以这一步的 GRU 输出（${ref.field === 'dec_queries' ? `第 ${t + 1} 步注意时所用的状态` : '最终状态'}）再加偏置 ${plain(p.bias[v])}：${plain(value)}`) + probText + '.',
    [...wd.map((x, c) => term(`dense.weight[${v},${c}]`, x)), ...o.map((x, c) => term(`o_${t}[${c}]`, x, ref.field, [...ref.at, c])), term('dense.bias', p.bias[v]), term('p', prob)],
    ops);
}

/** dec_context[b, t, c] = Σ_j weights[b, t, j] enc_outputs[b, j, c] (the keys are the values). */
function context(trace: Trace, index: number[], lang: Lang): Explanation {
  const [b, t, c] = index;
  const value = cell(trace.dec_context, index);
  const p = dotSum(trace.shapes.weights[2], (j) => `w[${t},${j}]·enc_outputs[${j},${c}]`,
    (j) => [cell(trace.weights, [b, t, j]), cell(trace.enc_outputs, [b, j, c]), ref('weights', [b, t, j]), ref('enc_outputs', [b, j, c])]);
  return explained('dec_context', index, value, `c_{${t},${c}} = \\sum_j w_{${t}j}\\, h^{\\mathrm{enc}}_{j,${c}} = ${p.tex} = ${num(value)}`,
    say(lang, `Decoder step ${t}'s context, entry ${c}: the encoder outputs weighted by the step's attention, ${p.text} = ${plain(value)}.`,
      `解码第 ${t} 步的上下文第 ${c} 个分量：以这一步的注意力加权编码器输出，${p.text} = ${plain(value)}。`),
    p.terms, p.operands);
}

const explain: Explainer = (trace, scenario, field, index, lang) => {
  if (!inField(trace, field, index)) return null;
  if (field === 'weights' || field === 'heldout_weights') return weight(trace, scenario, field, index, lang);
  if (field === 'output') return output(trace, scenario, index, lang);
  if (field === 'dec_context') return context(trace, index, lang);
  return null;
};
export default explain;
