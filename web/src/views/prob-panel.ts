// The ProbAttention panel (algorithms/prob.ts's panelView, a lazy chunk): where the samples come
// from, the pitfalls against the reference and the steps. Its own module so that views/prob.ts and
// views/pitfalls.ts (which reads prob's samples) import each other in one direction only: a cycle
// of lazily imported modules never finishes loading in the single file (one inlined bundle).
import { h } from '../dom';
import type { Trace } from '../engine/compute';
import { at, shapeOf } from '../format';
import type { Lang } from '../i18n';
import type { GivenIndexKey } from '../state/prob';
import { toggleSample, toggleTop } from '../state/prob-clicks';
import { lazyPart, type LazyPart } from './patch';
import { pitfallHint, pitfallView } from './pitfalls';
import { probView, t, tf } from './prob';  // t, tf: prob's strings
import { maskKind, type ViewHost } from '../algorithms/module';

/** The ProbAttention panel of the element's prob trace (algorithms/prob.ts): where the samples come
 * from, the pitfalls against the reference (or the hint that opens their switches) and the steps;
 * `shown(key)` is a property's value, else its default. */
export function probPanel(host: ViewHost, trace: Trace, defaultOf: (key: string) => unknown): (Node | LazyPart)[] {
  const { session, lang, root } = host;
  const { scenario: s, b, h: hh, reference: ref } = session;
  // the numbers drawn are the trace's: its scenario's factor and switches (the scenario may have an error)
  const traced = session.traced;
  const seed = Number(s.seed ?? 0);
  const shown = (key: string) => traced[key] ?? defaultOf(key);
  // the hint's button opens the switches and moves the focus to the first one
  const showPitfalls = () => {
    const details = root.querySelector<HTMLDetailsElement>('details.pitfalls');
    if (!details) return;
    details.open = true;
    details.querySelector<HTMLElement>('select, input')?.focus();
  };
  // clicks set the scenario's sample_index / top_index (state/prob.ts), from the trace's when not given
  const given = (key: GivenIndexKey, value: unknown[] | null | undefined, focus?: string) => {
    if (value === null) return;
    session.setGivenIndex(key, value);
    host.update();
    if (focus) host.refocus(focus);
  };
  // read at click time: a patched map keeps the listener it was drawn with (views/patch.ts)
  const onSample = (i: number, j: number) => given('sample_index',
    toggleSample(session.scenario.sample_index ?? session.trace?.sample_index, session.h, i, j));
  const onTop = (i: number) => {
    const now = session.trace, slice = [session.b, session.h];
    const ranked = (at(now?.top_index, slice) as number[] | undefined) ?? [];
    const sparsity = (at(now?.sparsity, slice) as number[] | undefined) ?? [];
    given('top_index', toggleTop((session.scenario.top_index as number[] | undefined) ?? ranked, sparsity, i), `top_index.${i}`);
  };
  return [
    h('div', { class: 'samples-source', dataset: { field: 'samples-source' } },
      h('p', null, s.sample_index !== undefined ? t(lang, 'samplesGiven') : `${t(lang, 'samplesDrawn')} (seed = ${seed})`, ' ',
        s.sample_index !== undefined ? h('button', { type: 'button', class: 'link', dataset: { key: 'sample_index.draw' },
          text: t(lang, 'drawFromSeed'), on: { click: () => given('sample_index', undefined, 'resample') } }) : null),
      ...putAsideNotes(session, trace, lang)),
    lazyPart('pitfalls', () => (ref
      ? pitfallView({ trace, reference: ref.outcome, changed: ref.changed, samples: ref.samples, b, h: hh, lang, seed })
      : pitfallHint(lang, showPitfalls))),
    lazyPart('steps', () => probView({
      trace, full: session.full, b, h: hh, lang,
      factor: Number(shown('factor')),
      causal: maskKind(traced) === 'causal',
      causalInitial: String(shown('causal_initial')),
      divisor: String(shown('sparsity_divisor')),
      topGiven: traced.top_index !== undefined,
      onSample, onTop,
      onRank: () => given('top_index', undefined, 'top_index.0'),
    }))];
}

/** What fitSamples put aside (a given sample_index or top_index that does not fit the sizes the
 * trace has) and what is used instead. */
function putAsideNotes(session: ViewHost['session'], trace: Trace, lang: Lang): HTMLElement[] {
  const notes: HTMLElement[] = [];
  const samples = session.putAside('sample_index');
  // (a shared one set aside while samples are per head: the pitfalls view says so)
  if (samples !== undefined && session.scenario.sample_index === undefined && session.reference?.samples !== 'set-aside') {
    notes.push(h('p', { class: 'note', dataset: { field: 'sample_index-aside' }, text: tf(lang, 'samplesAside',
      { shape: shapeOf(samples).join(' × '), U: String(trace.U_part), want: shapeOf(trace.sample_index).join(' × ') }) }));
  }
  const top = session.putAside('top_index');
  if (top !== undefined && session.scenario.top_index === undefined) {
    notes.push(h('p', { class: 'note', dataset: { field: 'top_index-aside' }, text: tf(lang, 'topAside',
      { top: `[${(top as number[]).join(', ')}]`, u: String(trace.u) }) }));
  }
  return notes;
}
