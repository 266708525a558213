// linear: the note's kernel (linear) attention (issue 7), its feature maps; scale is the exact
// softmax's. Its view draws the implied weights beside exact attention's.
import type { Prop } from '../state/props';
import type { Text } from '../i18n';
import { flow, isAlg, view, snippet, type PageAlgorithm } from './module';
import { referenceProp } from '../state/reference';

/** The title of a kernel attention's weights (performer's too). */
export const IMPLIED: Text = { en: 'implied weights = sim(q_i, k_j) / Σ_j sim(q_i, k_j)', zh: '隐含权重 = sim(q_i, k_j) / Σ_j sim(q_i, k_j)' };

const props: Prop[] = [
  { key: 'feature_map', kind: 'enum', panel: 'options', label: { en: 'feature map φ', zh: '特征映射 φ' },
    options: () => ['elu1', 'relu', 'softmax_qk', 'cosine1'], applies: isAlg('linear'), optional: true, default: 'elu1',
    choices: [
      { value: 'elu1', label: { en: 'elu1: φ(x) = elu(x) + 1', zh: 'elu1：φ(x) = elu(x) + 1' } },
      { value: 'relu', label: { en: 'relu: φ(x) = max(x, 0)', zh: 'relu：φ(x) = max(x, 0)' } },
      { value: 'softmax_qk', label: { en: 'softmax_qk: softmax₁(Q) softmax₂(K)ᵀ (the note\'s trick)', zh: 'softmax_qk：softmax₁(Q) softmax₂(K)ᵀ（笔记中的 softmax 妙用）' } },
      { value: 'cosine1', label: { en: 'cosine1: sim = 1 + cos(q, k) (the author\'s idea)', zh: 'cosine1：sim = 1 + cos(q, k)（作者自己的构思）' } },
    ],
    help: { en: 'sim(q_i, k_j) = φ(q_i)·φ(k_j) ≥ 0; context_i = Σ_j sim v_j / Σ_j sim', zh: 'sim(q_i, k_j) = φ(q_i)·φ(k_j) ≥ 0；context_i = Σ_j sim v_j / Σ_j sim' } },
  // fast-transformers has elu1 and relu, performer-pytorch's no_projection softmax_qk
  referenceProp('linear', ['fast-transformers', 'performer-pytorch'], (s) => {
    const fm = String(s.feature_map ?? 'elu1');
    return fm === 'elu1' || fm === 'relu' ? ['fast-transformers'] : fm === 'softmax_qk' ? ['performer-pytorch'] : [];
  }),
];

export default {
  name: 'linear',
  traits: { scale: true, scaleUnused: { en: 'unused: sim = φ(q)·φ(k) has no scale (only the exact softmax beside reads it)',
    zh: '不起作用：sim = φ(q)·φ(k) 没有缩放（只有旁边的精确 softmax 读取它）' } },
  props,
  maps: { weights: IMPLIED },
  approximates: true,
  exact: 'weights',
  view: view(() => import('../views/linear'), (m, host, trace) => {
    const { session, lang } = host;
    return m && m.linearView({ trace, exact: session.exact, featureMap: String(session.scenario.feature_map ?? props[0].default),
      b: session.b, h: session.h, lang });
  }),
  measured: [{ name: 'linear', fields: () => ({ algorithm: 'linear' }) }],
  flow: flow('linear'),
  pytorch: snippet('linearSnippet'),
} satisfies PageAlgorithm;
