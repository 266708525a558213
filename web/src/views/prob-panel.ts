// The ProbAttention panel (algorithms/prob.ts's panelView, a lazy chunk): where the samples come
// from, the pitfalls against the reference and the steps. Its own module so that views/prob.ts and
// views/pitfalls.ts (which reads prob's samples) import each other in one direction only: a cycle
// of lazily imported modules never finishes loading in the single file (one inlined bundle).
import { h } from '../dom';
import type { Trace } from '../engine/compute';
import { lazyPart, type LazyPart } from './patch';
import { pitfallHint, pitfallView } from './pitfalls';
import { probView, t } from './prob';  // t: prob's strings
import { maskKind, type ViewHost } from '../algorithms/module';

/** The ProbAttention panel of the element's prob trace (algorithms/prob.ts): where the samples come
 * from, the pitfalls against the reference (or the hint that opens their switches) and the steps;
 * `shown(key)` is a property's value, else its default. */
export function probPanel(host: ViewHost, trace: Trace, defaultOf: (key: string) => unknown): (Node | LazyPart)[] {
  const { session, lang, root } = host;
  const { scenario: s, b, h: hh, reference: ref } = session;
  const seed = Number(s.seed ?? 0);
  const shown = (key: string) => s[key] ?? defaultOf(key);
  // the hint's button opens the switches and moves the focus to the first one
  const showPitfalls = () => {
    const details = root.querySelector<HTMLDetailsElement>('details.pitfalls');
    if (!details) return;
    details.open = true;
    details.querySelector<HTMLElement>('select, input')?.focus();
  };
  return [
    h('p', { class: 'samples-source', dataset: { field: 'samples-source' },
      text: s.sample_index !== undefined ? t(lang, 'samplesGiven') : `${t(lang, 'samplesDrawn')} (seed = ${seed})` }),
    lazyPart('pitfalls', () => (ref
      ? pitfallView({ trace, reference: ref.outcome, changed: ref.changed, samples: ref.samples, b, h: hh, lang, seed })
      : pitfallHint(lang, showPitfalls))),
    lazyPart('steps', () => probView({
      trace, full: session.full, b, h: hh, lang,
      factor: Number(shown('factor')),
      causal: maskKind(s) === 'causal',
      causalInitial: String(shown('causal_initial')),
      divisor: String(shown('sparsity_divisor')),
    }))];
}
