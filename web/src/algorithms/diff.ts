// diff: differential attention (Differential Transformer): two softmax maps of the halves of q and
// k, the second subtracted with weight lambda; weights may be negative (the heatmap's diverging scale).
import type { Prop } from '../state/props';
import { shapeOf } from '../format';
import { flow, isAlg, snippet, view, type PageAlgorithm } from './module';

const props: Prop[] = [
  { key: 'lambda', kind: 'number', panel: 'options', label: { en: 'λ (weight of the second map)', zh: 'λ（第二个注意力图的权重）' },
    applies: isAlg('diff'), optional: true,
    help: { en: 'default: λ_init; in the JSON also {"q1","k1","q2","k2","init"}: exp(q1·k1) − exp(q2·k2) + init', zh: '默认为 λ_init；JSON 中也可写 {"q1","k1","q2","k2","init"}：exp(q1·k1) − exp(q2·k2) + init' } },
  { key: 'depth', kind: 'int', panel: 'options', label: { en: 'depth (layer, from 1)', zh: '层深 depth（从 1 起）' }, min: 1, max: 1000,
    applies: isAlg('diff'), optional: true, default: 1,
    help: { en: 'λ_init = 0.8 − 0.6 exp(−0.3 (depth − 1))', zh: 'λ_init = 0.8 − 0.6 exp(−0.3 (depth − 1))' } },
  { key: 'lambda_init', kind: 'number', panel: 'options', label: { en: 'λ_init', zh: 'λ_init' }, applies: isAlg('diff'), optional: true,
    help: { en: 'default from depth; the output is RMSNorm(context) × (1 − λ_init)', zh: '默认由 depth 决定；输出为 RMSNorm(context) × (1 − λ_init)' } },
];

export default {
  name: 'diff',
  traits: { scale: true, scaleWidth: (s) => shapeOf(s.q)[3] / 2 },
  props,
  maps: { weights: { en: 'weights = weights1 − λ weights2 (may be negative): L_Q × L_K', zh: '权重 = weights1 − λ weights2（可为负）：L_Q × L_K' },
    weightsCaption: { en: 'each row sums to 1 − λ (0 with no allowed key)', zh: '每行之和为 1 − λ（没有可关注的键时为 0）' } },
  // modern-b (issue 16): the two maps and lambda (views/diff.ts, lazy)
  view: view(() => import('../views/diff'), (m, host, trace) =>
    m && m.diffView({ trace, scenario: host.session.scenario, b: host.session.b, h: host.session.h, lang: host.lang })),
  flow: flow('diff'),
  pytorch: snippet('diffSnippet'),
} satisfies PageAlgorithm;
