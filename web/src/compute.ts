// The only module that talks to the WASM core. No DOM here.
//
// The core is loaded once per page and shared by every <attention-playground> element: run() is
// synchronous and keeps no state between calls, so elements cannot disturb each other.
import { load } from '../../wasm/attnplay.mjs';
import type { Core, PresetRecord } from '../../wasm/attnplay.mjs';

export type Scenario = Record<string, unknown>;
export type Trace = Record<string, unknown> & {
  algorithm: string;
  shapes: Record<string, number[]>;
  cost?: { dot_products: number; dense_dot_products: number; flops: number };
  warnings?: string[];
};
export type Preset = PresetRecord;

export type Outcome =
  | { ok: true; trace: Trace }
  | { ok: false; error: string; field: string };

export interface Engine {
  run(scenario: Scenario): Outcome;
  presets(): Preset[];
  /** The algorithms the loaded core implements (SPEC lists more than a given build may have). */
  algorithms(): string[];
}

let enginePromise: Promise<Engine> | null = null;

/** The field an error message names: the text before the first ": " ("k[0][3]", "mask.window"). */
export function errorField(message: string): string {
  const m = /^([A-Za-z_][\w.]*(?:\[\d+\])*(?:\.[\w]+(?:\[\d+\])*)*): /.exec(message);
  return m ? m[1] : 'scenario';
}

function wrap(core: Core): Engine {
  let presetCache: Preset[] | null = null;
  let algorithmCache: string[] | null = null;
  return {
    run(scenario) {
      try {
        return { ok: true, trace: core.run(scenario) as Trace };
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        return { ok: false, error, field: errorField(error) };
      }
    },
    presets() {
      presetCache ??= core.presets();
      return presetCache;
    },
    algorithms() {
      algorithmCache ??= core.algorithms();
      return algorithmCache;
    },
  };
}

export function getEngine(): Promise<Engine> {
  enginePromise ??= load().then(wrap);
  return enginePromise;
}

/** U_part and u as ProbAttention computes them (SPEC, ProbAttention step 1). */
export function probSizes(factor: number, L_Q: number, L_K: number): { U_part: number; u: number } {
  const part = (L: number) => Math.max(1, Math.min(factor * Math.ceil(Math.log(L)), L));
  return { U_part: part(L_K), u: part(L_Q) };
}
