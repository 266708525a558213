// flash: FlashAttention (issue 8), exact attention tile by tile with the online softmax; the masks
// of full. Its view steps through the key blocks beside full attention on the same scenario.
import { flashBlock } from '../engine/compute';
import type { Prop } from '../state/props';
import { dims } from '../state/scenario';
import { isAlg, view, snippet, type PageAlgorithm } from './module';

const props: Prop[] = [
  { key: 'block_q', kind: 'int', panel: 'options', label: { en: 'query block size block_q', zh: '查询块大小 block_q' }, min: 1,
    maxOf: (s) => dims(s).L_Q, control: 'range', applies: isAlg('flash'), optional: true, defaultOf: (s) => flashBlock('block_q', dims(s).L_Q),
    help: { en: 'queries per tile (FlashAttention)', zh: '每个分块的查询数（FlashAttention）' } },
  { key: 'block_k', kind: 'int', panel: 'options', label: { en: 'key block size block_k', zh: '键块大小 block_k' }, min: 1,
    maxOf: (s) => dims(s).L_K, control: 'range', applies: isAlg('flash'), optional: true, defaultOf: (s) => flashBlock('block_k', dims(s).L_K),
    help: { en: 'keys per block: the running max and sum are updated once per key block', zh: '每块的键数：每个键块更新一次运行最大值与运行和' } },
];

export default {
  name: 'flash',
  traits: { scale: true },
  props,
  exact: 'full',
  view: view(() => import('../views/flash'), (m, host, trace) => {
    const { session, lang } = host;
    return m && m.flashView({ trace, b: session.b, h: session.h, lang, step: session.flashStep, full: session.exact,
      onStep: (step) => { session.flashStep = step; host.redraw(); host.refocus('flash.step'); } });
  }),
  pytorch: snippet('flashSnippet'),
} satisfies PageAlgorithm;
