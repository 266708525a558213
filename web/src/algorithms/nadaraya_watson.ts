// nadaraya_watson: d2l's Nadaraya-Watson kernel regression (attention pooling), its kernels and
// its training of w; its view draws the regression over the data set.
import type { Prop } from '../state/props';
import { flow, isAlg, view, snippet, type PageAlgorithm } from './module';
import { referenceProp } from '../state/reference';

const props: Prop[] = [
  { key: 'kernel', kind: 'enum', panel: 'options', label: { en: 'kernel K(u)', zh: '核函数 K(u)' },
    options: () => ['gaussian', 'boxcar', 'constant', 'epanechnikov'],
    applies: isAlg('nadaraya_watson'), optional: true, default: 'gaussian',
    choices: [
      { value: 'gaussian', label: { en: 'gaussian exp(−u²/2)', zh: '高斯 exp(−u²/2)' } },
      { value: 'boxcar', label: { en: 'boxcar [|u| < 1]', zh: '矩形 [|u| < 1]' } },
      { value: 'constant', label: { en: 'constant 1 (average pooling)', zh: '常数 1（平均汇聚）' } },
      { value: 'epanechnikov', label: { en: 'epanechnikov max(0, 1 − |u|)', zh: 'Epanechnikov max(0, 1 − |u|)' } },
    ],
    help: { en: 'u = (x_query − x_train) · w; weights = K(u) / Σ K(u)', zh: 'u = (x_query − x_train) · w；权重 = K(u) / Σ K(u)' } },
  { key: 'dataset.n_train', kind: 'int', panel: 'options', label: { en: 'training points n_train', zh: '训练样本数 n_train' },
    min: 1, max: 1000, applies: (s) => isAlg('nadaraya_watson')(s) && s.x_train === undefined, initial: () => 50,
    help: { en: 'd2l\'s data set: x = 5u sorted, y = 2 sin x + x^0.8 + 0.5z', zh: 'd2l 的数据集：x = 5u 排序，y = 2 sin x + x^0.8 + 0.5z' } },
  { key: 'w', kind: 'number', panel: 'options', label: { en: 'w (kernel width⁻¹)', zh: 'w（核宽度的倒数）' },
    applies: isAlg('nadaraya_watson'), optional: true, default: 1,
    help: { en: 'with train: the starting w', zh: '训练时：w 的初始值' } },
  referenceProp('nadaraya_watson', ['d2l-en']),
];

export default {
  name: 'nadaraya_watson',
  traits: {},
  props,
  maps: { axes: { weights: ['axisTest', 'axisTrain'], y_hat: ['axisPred', 'axisTest'] } },
  view: view(() => import('../views/nadaraya'), (m, host, trace) =>
    m && m.nadarayaView({ trace, scenario: host.session.scenario, lang: host.lang }), { part: 'nadaraya' }),
  flow: flow('nadaraya_watson'),
  pytorch: snippet('nadarayaSnippet'),
} satisfies PageAlgorithm;
