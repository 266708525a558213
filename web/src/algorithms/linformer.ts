// linformer: keys and values projected along the sequence (E_proj, F_proj), then softmax attention.
import type { Prop } from '../state/props';
import { isAlg, view, snippet, type PageAlgorithm } from './module';
import { dims } from '../state/scenario';

/** The view of an algorithm that shortens the keys (views/reduced.ts: linformer's, lsh's, pooling's). */
export const reducedView = (which: 'linformerView' | 'lshView' | 'poolingView') => view(() => import('../views/reduced'), (m, host, trace) => {
  const { session, lang } = host;
  const s = session.scenario;
  return m && m[which]({ trace, exact: session.exact, b: session.b, h: session.h, lang, pool: s.pool, kernel: s.kernel, stride: s.stride });
});

const props: Prop[] = [
  { key: 'proj_len', kind: 'int', panel: 'options', label: { en: 'projected length k', zh: '投影长度 k' }, min: 1,
    maxOf: (s) => dims(s).L_K, control: 'range',
    applies: (s) => isAlg('linformer')(s) && s.E_proj === undefined && s.F_proj === undefined,
    initial: (s) => Math.max(1, Math.floor(dims(s).L_K / 4)),
    help: { en: 'E_proj, F_proj (k, L_K) drawn from the seed: L_K keys and values become k', zh: 'E_proj、F_proj (k, L_K) 由随机种子抽取：L_K 个键和值变为 k 个' } },
];

export default {
  name: 'linformer',
  traits: { scale: true },
  props,
  maps: { scores: 'scores = scale · Q (E_proj K)ᵀ', weights: { en: 'weights = softmax(scale · Q (E_proj K)ᵀ): L_Q × k', zh: '权重 = softmax(scale · Q (E_proj K)ᵀ)：L_Q × k' } },
  approximates: true,
  exact: 'weights',
  view: reducedView('linformerView'),
  measured: [{ name: 'linformer', fields: (p) => ({ algorithm: 'linformer', proj_len: Math.max(1, Math.min(p.n, 64)) }) }],
  pytorch: snippet('linformerSnippet'),
} satisfies PageAlgorithm;
