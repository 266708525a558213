// diff's view (helper modern-b, issue 16): the two softmax maps the weights are the difference of,
// side by side, and lambda (a number, or unilm's exp(q1·k1) − exp(q2·k2) + init): what both maps
// agree on, the common-mode noise, is subtracted. DOM only; the maps are the results' bhMap.
import { h } from '../dom';
import type { Scenario, Trace } from '../engine/compute';
import { viewText, type Lang, type Text } from '../i18n';
import { fillTemplate as fill } from './template';
import { bhMap } from './results';

const T = {
  diffTitle: { en: 'The two maps and λ', zh: '两个注意力图与 λ' },
  diffIntro: { en: 'weights = weights1 − λ weights2. Where both maps attend (the same noise in both scores), the difference cancels it; what only map 1 sees (the signal) stays. Each row sums to 1 − λ = {rest}.', zh: 'weights = weights1 − λ weights2。两个图都关注的地方（两组分数里相同的噪声）相减后被抵消；只有图 1 看到的（信号）留下。每行之和为 1 − λ = {rest}。' },
  diffLambda: { en: 'λ = {lambda}, λ_init = {init} (the output RMSNorm(context) × (1 − λ_init))', zh: 'λ = {lambda}，λ_init = {init}（输出为 RMSNorm(context) × (1 − λ_init)）' },
  diffLambdaVectors: { en: 'λ = exp(q1·k1) − exp(q2·k2) + init = exp({a}) − exp({b}) + {init0} = {lambda}; λ_init = {init}', zh: 'λ = exp(q1·k1) − exp(q2·k2) + init = exp({a}) − exp({b}) + {init0} = {lambda}；λ_init = {init}' },
  diffMap1: { en: 'weights1 = softmax(s q1 k1ᵀ)', zh: 'weights1 = softmax(s q1 k1ᵀ)' },
  diffMap2: { en: 'weights2 = softmax(s q2 k2ᵀ)', zh: 'weights2 = softmax(s q2 k2ᵀ)' },
  diffMapCaption: { en: 'the first halves of q and k', zh: 'q、k 的前一半' },
  diffMap2Caption: { en: 'the second halves of q and k', zh: 'q、k 的后一半' },
} satisfies Record<string, Text>;
const t = viewText(T);
const r4 = (x: number) => String(Number(x.toPrecision(4)));

function dotOf(a: unknown, b: unknown): number {
  if (!Array.isArray(a) || !Array.isArray(b)) return NaN;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Number(a[i]) * Number(b[i]);
  return s;
}

export function diffView(o: { trace: Trace; scenario: Scenario; b: number; h: number; lang: Lang }): HTMLElement | null {
  const { trace, scenario, b, lang } = o;
  if (trace.weights1 === undefined || trace.weights2 === undefined) return null;
  const hh = Math.min(o.h, (trace.shapes.weights1?.[1] ?? 1) - 1);
  const lambda = Number(trace.lambda), init = Number(trace.lambda_init);
  const lam = scenario.lambda as Record<string, unknown> | undefined;
  const line = lam !== null && typeof lam === 'object'
    ? fill(t(lang, 'diffLambdaVectors'), { a: r4(dotOf(lam.q1, lam.k1)), b: r4(dotOf(lam.q2, lam.k2)),
      init0: r4(Number(lam.init ?? init)), lambda: r4(lambda), init: r4(init) })
    : fill(t(lang, 'diffLambda'), { lambda: r4(lambda), init: r4(init) });
  return h('section', { class: 'diff-view' },
    h('h3', { text: t(lang, 'diffTitle') }),
    h('p', { class: 'help', text: fill(t(lang, 'diffIntro'), { rest: r4(1 - lambda) }) }),
    h('p', { class: 'diff-lambda', text: line }),
    h('div', { class: 'maps' },
      bhMap(trace, 'weights1', t(lang, 'diffMap1'), t(lang, 'diffMapCaption'), b, hh, lang, 'weights'),
      bhMap(trace, 'weights2', t(lang, 'diffMap2'), t(lang, 'diffMap2Caption'), b, hh, lang, 'weights')));
}
