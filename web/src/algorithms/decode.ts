// decode: autoregressive decoding with a KV cache (helper modern-b, issue 16): the prompt at once,
// then one position a step, the cache growing and (with a window) evicting. The results draw its
// allowed map (the cache's rule), weights and context, equal to full attention's under that mask;
// its view (views/decode.ts, lazy) steps through generation token by token.
import { dims } from '../state/scenario';
import type { Prop } from '../state/props';
import { flow, isAlg, snippet, view, type PageAlgorithm } from './module';

const isDecode = isAlg('decode');
const cacheOf = (s: Record<string, unknown>) => s.cache as { window?: number } | undefined;
const props: Prop[] = [
  { key: 'prompt', kind: 'int', panel: 'options', label: { en: 'prompt P (the prefill)', zh: '提示长度 P（预填充）' }, min: 1,
    maxOf: (s) => dims(s).L_Q, applies: isDecode, optional: true, defaultOf: (s) => Math.max(dims(s).L_Q - 4, 1),
    help: { en: 'positions 0..P−1 at once, then one position a step', zh: '位置 0..P−1 一次处理，之后每步一个位置' } },
  { key: 'cache.window', kind: 'int', panel: 'options', label: { en: 'cache window w (empty: keep all)', zh: '缓存窗口 w（空：全部保留）' },
    min: 1, max: 1024, applies: isDecode, optional: true,
    help: { en: 'keep the last w tokens (Mistral\'s sliding window)', zh: '保留最近 w 个词元（Mistral 的滑动窗口）' } },
  { key: 'cache.sinks', kind: 'int', panel: 'options', label: { en: 'cache sinks s', zh: '缓存汇点 s' }, min: 0, max: 1024,
    applies: (s) => isDecode(s) && cacheOf(s)?.window !== undefined, optional: true, default: 0,
    help: { en: 'and always the first s tokens (StreamingLLM\'s attention sinks); s ≤ w', zh: '并始终保留前 s 个词元（StreamingLLM 的注意力汇点）；s ≤ w' } },
];

export default {
  name: 'decode',
  traits: { scale: true, oneSequence: true },
  props,
  maps: { weights: { en: 'weights: each row as its step computed it over the cache: L × L', zh: '权重：每行为该步对缓存计算所得：L × L' },
    weightsCaption: { en: 'row i < P: the prefill; row i ≥ P: step i − P over the keys the cache holds', zh: '第 i < P 行：预填充；第 i ≥ P 行：第 i − P 步，只对缓存中保留的键' } },
  view: view(() => import('../views/decode'), (m, host, trace) => {
    const state = host.own('decode.step', () => ({ step: 0 }));
    return m && m.decodeView({ trace, scenario: host.session.scenario, b: host.session.b, h: host.session.h, lang: host.lang,
      step: state.step, onStep: (step) => { state.step = step; host.redraw(); host.refocus('decode.step'); } });
  }),
  flow: flow('decode'),
  pytorch: snippet('decodeSnippet'),
} satisfies PageAlgorithm;
