// full: softmax attention, every mask kind. Its views: the note's sparse patterns beside a local,
// atrous or strided mask (views/sparse.ts) and d2l's 1/√d argument (the chapter's scale view).
import { h } from '../dom';
import { t } from '../i18n';
import type { Prop } from '../state/props';
import { isAlg, maskKind, view, snippet, type PageAlgorithm } from './module';

// flash-attn >= 2.1 aligns causal and local masks to the last key (issue 17); flash's too (one row for both)
const props: Prop[] = [
  { key: 'mask.align', kind: 'enum', panel: 'mask', label: { en: 'align (L_Q ≠ L_K)', zh: '对齐（L_Q ≠ L_K）' },
    options: () => ['top_left', 'bottom_right'], optional: true, default: 'top_left',
    applies: (s) => isAlg('full', 'flash')(s) && ['causal', 'local'].includes(maskKind(s)),
    help: { en: 'bottom_right: i at i + L_K − L_Q (flash-attn)', zh: 'bottom_right：i 位于 i + L_K − L_Q（flash-attn）' } },
];

export default {
  name: 'full',
  traits: { scale: true, float32: true },
  props,
  sparsePatterns: true,
  view: view(() => import('../views/sparse'), (m, host) => (m ? m.sparseFor(host)
    : h('p', { class: 'loading', text: t(host.lang, 'loading') })), { when: (host) => host.session.sparse !== null }),
  chapter: { views: (c, lang) => [c.scale(lang)] },
  measured: [{ name: 'full', fields: () => ({ algorithm: 'full' }) },
    { name: 'local', fields: (p) => ({ algorithm: 'full', mask: { kind: 'local', window: Math.floor(p.k / 2) } }) }],
  pytorch: snippet('fullSnippet'),
} satisfies PageAlgorithm;
