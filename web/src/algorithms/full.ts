// full: softmax attention, every mask kind. Its views: the note's sparse patterns beside a local,
// atrous or strided mask (views/sparse.ts) and d2l's 1/√d argument (the chapter's scale view).
import { h } from '../dom';
import { t } from '../i18n';
import { sparseKey } from '../state/sparse';
import { MASK_KINDS, QKV, view, snippet, type PageAlgorithm } from './module';

export default {
  name: 'full',
  traits: { tensors: QKV, masks: MASK_KINDS, scale: true },
  sparsePatterns: true,
  view: view(() => import('../views/sparse'), (m, host) => {
    const { session, lang } = host;
    const { scenario: s, b } = session;
    if (!m || !session.sparse) return h('p', { class: 'loading', text: t(lang, 'loading') });
    const keys = { window: sparseKey(s, 'window'), dilation: sparseKey(s, 'dilation') };
    // the same view while the patterns are the same (an edit of a value of q, k or v keeps them)
    const patterns = session.sparse;
    return host.memo('sparse', [patterns, b, session.h, lang, session.sparseQuery, keys.window, keys.dilation], () => m.sparseView({
      patterns, b, h: session.h, lang, query: session.sparseQuery, keys,
      onParam: (param, value) => {
        const structural = sparseKey(s, param) !== null;
        session.setSparseParam(param, value);
        if (structural) host.update();
        else host.redraw();
        host.refocus(`sparse.${param}`);
      },
      onQuery: (i) => { session.selectSparseQuery(i); host.redraw(); host.refocus('sparse.query'); } }));
  }, { when: (host) => host.session.sparse !== null }),
  chapter: { views: (c, lang) => [c.scale(lang)] },
  measured: [{ name: 'full', fields: () => ({ algorithm: 'full' }) },
    { name: 'local', fields: (p) => ({ algorithm: 'full', mask: { kind: 'local', window: Math.floor(p.k / 2) } }) }],
  pytorch: snippet('fullSnippet'),
} satisfies PageAlgorithm;
