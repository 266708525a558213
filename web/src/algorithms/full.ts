// full: softmax attention, every mask kind. Its views: the note's sparse patterns beside a local,
// atrous or strided mask (views/sparse.ts) and d2l's 1/√d argument (the chapter's scale view).
import { h } from '../dom';
import { t } from '../i18n';
import { view, snippet, type PageAlgorithm } from './module';

export default {
  name: 'full',
  traits: { scale: true },
  sparsePatterns: true,
  view: view(() => import('../views/sparse'), (m, host) => (m ? m.sparseFor(host)
    : h('p', { class: 'loading', text: t(host.lang, 'loading') })), { when: (host) => host.session.sparse !== null }),
  chapter: { views: (c, lang) => [c.scale(lang)] },
  measured: [{ name: 'full', fields: () => ({ algorithm: 'full' }) },
    { name: 'local', fields: (p) => ({ algorithm: 'full', mask: { kind: 'local', window: Math.floor(p.k / 2) } }) }],
  pytorch: snippet('fullSnippet'),
} satisfies PageAlgorithm;
