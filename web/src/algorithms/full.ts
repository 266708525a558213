// full: softmax attention, every mask kind. Its views: the note's sparse patterns beside a local,
// atrous or strided mask (views/sparse.ts) and d2l's 1/√d argument (the chapter's scale view).
import { h } from '../dom';
import { t } from '../i18n';
import type { Prop } from '../state/props';
import { shapeOf } from '../format';
import { isAlg, maskKind, view, snippet, type PageAlgorithm, type ViewHost } from './module';

// Today's models' forms (issue 16), on full and flash (one row each: keys are unique in the table).
// GQA/MQA is k's and v's head count (the grids; q's H alone changes while k's heads divide it).
const modern = isAlg('full', 'flash');
const roped = isAlg('full', 'flash', 'decode');  // modern-b: decode takes rope too
/** The scenario uses a form views/modern.ts shows (checked without loading it). */
const hasForms = (host: ViewHost) => {
  const s = host.session.scenario;
  return !!s.rope || !!s.alibi || maskKind(s) === 'sink' || shapeOf(s.k)[2] !== shapeOf(s.q)[2];
};
/** One deep dive (layout.ts section() names it by its data-field): the sparse patterns, the forms, or
 * both under the sparse patterns' name. */
const both = (sparse: HTMLElement | null, forms: HTMLElement | null) =>
  sparse && forms ? h('div', { dataset: { field: 'sparse-view' } }, sparse, forms) : sparse ?? forms;
const props: Prop[] = [
  { key: 'alibi', kind: 'bool', panel: 'options', label: { en: 'ALiBi', zh: 'ALiBi' }, applies: modern, optional: true, default: false,
    help: { en: 'scores − slope_h |i − j|', zh: '分数 − slope_h |i − j|' } },
  { key: 'rope.style', kind: 'enum', panel: 'options', label: { en: 'RoPE style', zh: 'RoPE 风格' }, options: () => ['half', 'interleaved'],
    applies: (s) => roped(s) && !!s.rope, optional: true, default: 'half' },
  { key: 'rope.base', kind: 'number', panel: 'options', label: { en: 'RoPE base', zh: 'RoPE base' },
    applies: (s) => roped(s) && !!s.rope, optional: true, default: 10000 },
  // flash-attn >= 2.1 aligns causal and local masks to the last key (issue 17); flash's too (one row for both)
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
  // the sparse patterns beside a local, atrous or strided mask; GQA, RoPE, ALiBi and sinks (views/modern.ts)
  view: view(() => Promise.all([import('../views/sparse'), import('../views/modern')]), (m, host, trace) => (m
    ? both(m[0].sparseFor(host), m[1].modernFor(host, trace))
    : h('p', { class: 'loading', text: t(host.lang, 'loading') })), { when: (host) => host.session.sparse !== null || hasForms(host) }),
  chapter: { views: (c, lang) => [c.scale(lang)] },
  measured: [{ name: 'full', fields: () => ({ algorithm: 'full' }) },
    { name: 'local', fields: (p) => ({ algorithm: 'full', mask: { kind: 'local', window: Math.floor(p.k / 2) } }) }],
  pytorch: snippet('fullSnippet'),
} satisfies PageAlgorithm;
