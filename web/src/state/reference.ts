// The "reference" switch (SPEC §2 "Matching the library a learner reads", issue 17): which
// library's numbers an algorithm matches, one row in each module's props (`referenceProp`); ''
// (the key absent) is SPEC's formulas. How far the chosen library is from SPEC is
// views/reference.ts's, a chunk of its own loaded when a switch is set.
import type { Scenario } from '../engine/compute';
import type { Prop } from './props';
import { isAlg } from '../algorithms/module';

/** A `reference` row for algorithm `name` with its `modes`; `usable`: the modes this scenario can take. */
export const referenceProp = (name: string, modes: readonly string[], usable?: (s: Scenario) => readonly string[]): Prop => ({
  key: 'reference', kind: 'enum', panel: 'options', label: { en: 'match the library', zh: '对齐的库' },
  options: (s) => ['', ...(usable ? usable(s) : modes)], applies: isAlg(name), optional: true, default: '',
  choices: [{ value: '', label: { en: 'SPEC', zh: 'SPEC' } }],
});

/** The scenario with its library choice (reference, mask.align) removed: SPEC's formulas; null without one. */
export function specScenario(s: Scenario): Scenario | null {
  const mask = s.mask as Scenario | undefined;
  const aligned = mask?.align === 'bottom_right';
  if (s.reference === undefined && !aligned) return null;
  const out: Scenario = { ...s };
  delete out.reference;
  if (aligned) {
    const m = { ...mask };
    delete m.align;
    out.mask = m;
  }
  return out;
}
