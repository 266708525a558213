// Seeded draws' numbers (SPEC §2, {shape, random, seed, scale}) for what reads numbers rather than
// running the scenario: explanations, copy as PyTorch, the draws' read-only grids. The core draws
// them (the whole module's draw(): core/scenario/draws.cpp), the numbers its readers draw. Only lazy
// chunks import this module (views/draw-inputs.ts, export.ts, explain/dispatch.ts): not the first load (not under state/, which
// vite.config.ts bundles with the first load).
import { load, type Core } from '../../../wasm/attnplay.mjs';
import { getEngine, isDraw, isFlat, type Scenario, type TypedTensor } from './compute';

let core: Core | null = null;
let loading: Promise<Core> | null = null;
/** Resolves once draws can be made: the whole module is there (getEngine() loads it, where this
 * page's bundle says; load() then gives the same instance). Asking starts loading it. */
export const drawing = (): Promise<Core> => (loading ??= getEngine().then(() => load()).then((c) => (core = c)));

/** Whether draws can be made now (the whole module is there). */
export const canDraw = (): boolean => core !== null;

/** The latest draws by their JSON (an L = 4096 draw takes milliseconds: not again for each view). */
const kept = new Map<string, TypedTensor>();

/** Draw `spec`'s numbers ({shape, data}), or null: before the whole module is there (then it starts
 * loading: drawing()), or where the draw has an error (the run names it, beside the tensor). */
export function drawn(spec: Scenario, field: string): TypedTensor | null {
  const key = JSON.stringify(spec);
  const hit = kept.get(key);
  if (hit) return hit;
  if (!core) { void drawing(); return null; }
  let tensor: TypedTensor;
  try {
    tensor = core.draw(spec, field);
  } catch {
    return null;
  }
  if (kept.size >= 8) kept.delete(kept.keys().next().value!);
  kept.set(key, tensor);
  return tensor;
}

/** Whether a scenario has a seeded draw, at its top level or in an object of it (weights). */
const hasDraw = (s: Scenario): boolean => Object.entries(s).some(([key, v]) => isDraw(v) ||
  (key !== 'mask' && v !== null && typeof v === 'object' && !Array.isArray(v) && !isFlat(v) && hasDraw(v as Scenario)));

/** `s` with its seeded draws (at the top level and inside objects such as weights) replaced by their
 * numbers, as `draw` gives them; `s` itself when it has none; a draw `draw` cannot make (null) stays. */
export function withDrawsWritten(s: Scenario, draw: (spec: Scenario, field: string) => TypedTensor | null): Scenario {
  let out: Scenario | null = null;
  for (const [key, value] of Object.entries(s)) {
    let next: unknown = value;
    if (isDraw(value)) next = draw(value, key) ?? value;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value) && key !== 'mask') {
      const inner = withDrawsWritten(value as Scenario, (spec, field) => draw(spec, `${key}.${field}`));
      if (inner !== value) next = inner;
    }
    if (next !== value) (out ??= { ...s })[key] = next;
  }
  return out ?? s;
}

/** `s` with its draws written out as the core's numbers (waits for the whole module where it has any). */
export async function written(s: Scenario): Promise<Scenario> {
  if (!hasDraw(s)) return s;
  await drawing();
  return withDrawsWritten(s, drawn);
}
