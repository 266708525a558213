// ProbAttention's scenario logic (SPEC §2): the given sample_index kept while its shape fits, and
// the runs shown beside a prob trace (full attention on the same inputs; the same scenario with
// the pitfall switches at the reference). Shapes and numbers come from the core (its estimate,
// its traces), never from a formula here.
import { clone, shapeOf } from '../format';
import type { Estimate, Outcome, Scenario, Trace } from '../engine/compute';
import { PROP, isProb, type Stash } from './props';
import { dims, get } from './scenario';

type Run = (s: Scenario) => Outcome;

// ---- sample_index and top_index ----

/** The keys whose change can change the shape of sample_index or top_index (L and H changes drop
 * sample_index: resize). */
export const SAMPLE_SHAPE_KEYS: readonly string[] = ['algorithm', 'inner', 'factor', 'sample_per_head'];

/** The given indices fitSamples keeps while they fit, else puts aside. */
export const GIVEN_INDEX_KEYS = ['sample_index', 'top_index'] as const;
export type GivenIndexKey = (typeof GIVEN_INDEX_KEYS)[number];

/**
 * Keeps a given sample_index and top_index (the scenario's, else the one put aside) while each fits
 * the shapes the core would use for the scenario ((L_Q, U_part), or (H, L_Q, U_part) with
 * sample_per_head; u distinct queries < L_Q), puts it aside otherwise: a factor change then
 * redraws from the seed / ranks by M instead of failing, and the given one comes back when it fits
 * again (Informer draws its samples anew on every call and ranks its queries itself: a fixed index
 * is the walk-through's, kept only where it means the same thing). The sizes are the core's
 * estimate's (sizes.sample_index, sizes.u) of the scenario without either: nothing is run. When
 * the core cannot estimate it (an error elsewhere) nothing moves. Mutates s and stash.
 */
export function fitSamples(s: Scenario, stash: Stash, estimate: (s: Scenario) => Estimate | null): void {
  if (!isProb(s) || GIVEN_INDEX_KEYS.every((key) => s[key] === undefined && stash[key] === undefined)) return;
  const probe = { ...s };
  for (const key of GIVEN_INDEX_KEYS) delete probe[key];
  const sizes = estimate(probe)?.sizes;
  const want = sizes?.sample_index;
  if (!Array.isArray(want)) return;
  const L_Q = dims(s).L_Q;
  const fits: Record<GivenIndexKey, (index: unknown) => boolean> = {
    sample_index: (index) => {
      const have = shapeOf(index);
      return have.length === want.length && have.every((n, i) => n === want[i]);
    },
    top_index: (index) => Array.isArray(index) && index.length === sizes?.u && new Set(index).size === index.length &&
      index.every((i) => Number.isInteger(i) && i >= 0 && i < L_Q),
  };
  for (const key of GIVEN_INDEX_KEYS) {
    if (s[key] !== undefined && !fits[key](s[key])) {
      stash[key] = s[key];
      delete s[key];
    } else if (s[key] === undefined && stash[key] !== undefined && fits[key](stash[key])) {
      s[key] = stash[key];
      delete stash[key];
    }
  }
}

// ---- full attention beside ProbAttention ----

/** Full attention's context beside ProbAttention's: at trace "full" the trace's own exact_context
 * (the core's full attention on the same q, k, v, scale and mask), else a run of fullScenario. */
export function fullComparison(s: Scenario, trace: Trace, run: Run): Outcome {
  if (trace.exact_context === undefined) return run(fullScenario(s));
  return { ok: true, trace: { algorithm: 'full', context: trace.exact_context, shapes: { context: trace.shapes.exact_context } } };
}

/** The same q, k, v, scale and mask through full attention (its context only). */
export function fullScenario(s: Scenario): Scenario {
  const full: Scenario = { algorithm: 'full', q: s.q, k: s.k, v: s.v, trace: 'context' };
  if (s.scale !== undefined) full.scale = s.scale;
  if (get(s, 'mask.kind') === 'causal') full.mask = { kind: 'causal' };
  return full;
}

// ---- the reference's pitfall switches: each one's default is the reference ----

export const PITFALL_KEYS = ['causal_initial', 'sparsity_divisor', 'sample_per_head', 'squeeze_bug'] as const;
export type PitfallKey = (typeof PITFALL_KEYS)[number];

/** The switches that apply to the scenario and are not at the reference's value. */
export function changedPitfalls(s: Scenario): PitfallKey[] {
  return PITFALL_KEYS.filter((key) => PROP[key].applies(s) && s[key] !== undefined && s[key] !== PROP[key].default);
}

/**
 * The same scenario with every pitfall switch at the reference's default. A sample_index given per
 * head, (H, L_Q, U_part), does not fit the reference's shared one: it is dropped, so the reference
 * draws from the seed.
 */
export function referenceScenario(s: Scenario): { scenario: Scenario; droppedSamples: boolean } {
  const r = clone(s);
  for (const key of PITFALL_KEYS) delete r[key];
  const droppedSamples = shapeOf(r.sample_index).length === 3;
  if (droppedSamples) delete r.sample_index;
  return { scenario: r, droppedSamples };
}

export interface PitfallComparison {
  /** The reference's run. */
  outcome: Outcome;
  /** The switches away from the reference, with their values. */
  changed: { key: PitfallKey; value: unknown }[];
  /** 'reference': a per-head sample_index was dropped for the reference; 'set-aside': a shared one
   * is put aside while samples are per head (both sides draw from the seed). */
  samples: 'reference' | 'set-aside' | null;
}

/** With a switch away from the reference: the reference's run beside it; else null. */
export function pitfallComparison(s: Scenario, stash: Stash, run: Run): PitfallComparison | null {
  const changed = changedPitfalls(s);
  if (!changed.length) return null;
  const { scenario, droppedSamples } = referenceScenario(s);
  const setAside = s.sample_per_head === true && s.sample_index === undefined && shapeOf(stash.sample_index).length === 2;
  return { outcome: run(scenario), changed: changed.map((key) => ({ key, value: s[key] })),
    samples: droppedSamples ? 'reference' : setAside ? 'set-aside' : null };
}
