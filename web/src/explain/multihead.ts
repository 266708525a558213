// multihead: d2l's MultiHeadAttention / TSLib's AttentionLayer (core/multihead_attention.cpp):
// per head, the inner attention on the projected q, k, v (B, L, H, d_head) — softmax.ts for
// "full" (scores, allowed, head_weights, head_context), prob.ts for "prob" (its fields, with
// head_weights its attn and head_context its context) —, then
//   output[b,i,o] = Σ_c concat[b,i,c] W_o[o,c] (+ b_o[o]),  concat[b,i,h·d_head + d] = head_context[b,i,h,d].
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import type { CellRef, Explanation, Term } from './explanation';
import { Cells, capNote, dotSum, exactTex, exactText, explained, num, plain, ref, say } from './common';
import { maskOf, scaleOf, softmaxExplainer } from './softmax';
import explainProb from './prob';

const full = softmaxExplainer((c) => ({ q: 'q', k: 'k', v: 'v', scores: 'scores', allowed: 'allowed', weights: 'head_weights',
  context: 'head_context', ...scaleOf(c.scenario, c.shape('q')[3] ?? 1), mask: maskOf(c.scenario) }));

/** A projection's field: the trace's (drawn from the seed), else the scenario's weights. */
const param = (c: Cells, name: string) => (c.has(name) ? name : `weights.${name}`);

function explainOutput(c: Cells, field: string, index: number[], lang: Lang): Explanation | null {
  const [b, i, o] = index;
  const value = c.value(field, index);
  if (typeof value !== 'number') return null;
  const [, , H, dh] = c.shape('head_context');
  const W = param(c, 'W_o'), bias = c.has('b_o') || c.has('weights.b_o') ? param(c, 'b_o') : null;
  const p = dotSum(H * dh, (n) => `head_context[${i},${Math.floor(n / dh)},${n % dh}]·W_o[${o},${n}]`, (n) => {
    const rc = ref('head_context', [b, i, Math.floor(n / dh), n % dh]), rw = ref(W, [o, n]);
    return [c.num(rc.field, rc.index), c.num(W, rw.index), rc, rw];
  });
  const terms: Term[] = [...p.terms];
  const operands: CellRef[] = [...p.operands];
  let tail = '', tailText = '';
  if (bias) {
    const rb = ref(bias, [o]);
    const bo = c.num(bias, [o]);
    terms.push({ name: 'b_o', value: bo, ref: rb });
    operands.push(rb);
    tail = ` + ${num(bo)}`;
    tailText = ` + b_o ${plain(bo)}`;
  }
  return explained(field, index, value,
    `\\text{out}_{${i}${o}} = \\sum_c \\text{concat}_{${i}c} W_o[${o}, c]${bias ? ' + b_o' : ''} = ${p.tex}${tail} = ${num(value)}${exactTex(value)}`,
    say(lang, `output = the ${H} heads' contexts concatenated (${H} × ${dh}) times row ${o} of W_o${bias ? ', plus b_o' : ''} = ${p.text}${tailText} = ${plain(value)}${exactText(value)}`,
      `输出 = ${H} 个头的上下文拼接（${H} × ${dh}）乘以 W_o 的第 ${o} 行${bias ? '，再加 b_o' : ''} = ${p.text}${tailText} = ${plain(value)}${exactText(value)}`) + capNote(lang, p.n),
    terms, operands);
}

/** The prob explainer on the inner fields: head_weights is its attn, head_context its context. */
function explainInnerProb(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const as: Record<string, string> = { head_weights: 'attn', head_context: 'context' };
  const inner = { ...trace, attn: trace.head_weights, context: trace.head_context } as Trace;
  const out = explainProb(inner, scenario, as[field] ?? field, index, lang);
  const back = (r: CellRef): CellRef => ({ ...r, field: r.field === 'attn' ? 'head_weights' : r.field === 'context' ? 'head_context' : r.field });
  return out && { ...out, field, operands: out.operands.map(back),
    terms: out.terms.map((t) => ({ ...t, ...(t.ref ? { ref: back(t.ref) } : {}), ...(t.refs ? { refs: t.refs.map(back) } : {}) })) };
}

export default function explainMultihead(trace: Trace, scenario: Scenario, field: string, index: number[], lang: Lang): Explanation | null {
  const c = new Cells(trace, scenario);
  if (field === 'output') return explainOutput(c, field, index, lang);
  return scenario.inner === 'prob' ? explainInnerProb(trace, scenario, field, index, lang) : full(trace, scenario, field, index, lang);
}
