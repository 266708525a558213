// performer: FAVOR+ random features (issue 7) and its seed sweep: the view draws the implied weights
// beside exact attention's, and a sweep over seeds starts by itself a moment after the inputs settle
// (its wiring, views/performer.ts's Sweep, comes with the view's chunk).
import type { Prop } from '../state/props';
import { dims } from '../state/scenario';
import { flow, isAlg, view, snippet, type PageAlgorithm } from './module';
import { IMPLIED } from './linear';
import { referenceProp } from '../state/reference';

const props: Prop[] = [
  { key: 'num_features', kind: 'int', panel: 'options', label: { en: 'random features m', zh: '随机特征数 m' }, min: 1, max: 512,
    applies: (s) => isAlg('performer')(s) && s.projection === undefined, initial: (s) => dims(s).E,
    help: { en: 'φ(x) = exp(W x̃ − |x̃|²/2) / √m, W (m, E)', zh: 'φ(x) = exp(W x̃ − |x̃|²/2) / √m，W 为 (m, E)' } },
  { key: 'orthogonal', kind: 'bool', panel: 'options', label: { en: 'directions of the rows of W', zh: 'W 各行的方向' },
    applies: (s) => isAlg('performer')(s) && s.projection === undefined, optional: true, default: true,
    choices: [
      { value: true, label: { en: 'orthogonal (blocks of E rows)', zh: '正交化（每 E 行一组）' } },
      { value: false, label: { en: 'iid normal', zh: '独立同分布（正态）' } },
    ] },
  { key: 'norms', kind: 'enum', panel: 'options', label: { en: 'lengths of the rows of W', zh: 'W 各行的模长' },
    options: () => ['chi', 'sqrt_d', 'quantile'], applies: (s) => isAlg('performer')(s) && s.projection === undefined,
    optional: true, default: 'chi',
    choices: [
      { value: 'chi', label: { en: 'chi: drawn, as a normal vector\'s', zh: 'chi：随机抽取（同正态向量）' } },
      { value: 'sqrt_d', label: { en: 'sqrt_d: all √E', zh: 'sqrt_d：全部为 √E' } },
      { value: 'quantile', label: { en: 'quantile: the i/(m+1) quantiles of χ_E (the note)', zh: 'quantile：χ_E 分布的 i/(m+1) 分位数（笔记）' } },
    ] },
  referenceProp('performer', ['performer-pytorch']),
];

const load = () => import('../views/performer');

export default {
  name: 'performer',
  traits: { scale: true },
  props,
  maps: { weights: IMPLIED },
  approximates: true,
  exact: 'weights',
  view: view(load, (m, host, trace) => m && m.performerFor(host, trace)),
  // a sweep is due (new inputs of a small performer scenario): it starts once the edits pause
  afterRender: (host) => { if (host.session.sweepDue) host.need(load)?.sweepOf(host).maybe(); },
  measured: [{ name: 'performer', fields: (p) => ({ algorithm: 'performer', num_features: p.d }) }],
  flow: flow('performer'),
  pytorch: snippet('performerSnippet'),
} satisfies PageAlgorithm;
