// The only module that talks to the WASM core. No DOM here.
//
// The core is loaded once per page and shared by every <attention-playground> element: run() is
// synchronous and keeps no state between calls, so elements cannot disturb each other.
//
// The .wasm is an asset of its own (Vite's `?url`): the core's loader fetches it and compiles it
// while it streams (WebAssembly.instantiateStreaming). The single-file page's build turns the URL
// into a data: URL (vite.config.ts); it is decoded here and handed over as bytes, nothing fetched.
import { load } from '../../wasm/attnplay.mjs';
import type { AlgorithmRecord, Core, PresetRecord } from '../../wasm/attnplay.mjs';
import wasmUrl from '../../build/wasm/attnplay_core.wasm?url';

export type Scenario = Record<string, unknown>;
export type Trace = Record<string, unknown> & {
  algorithm: string;
  shapes: Record<string, number[]>;
  cost?: { dot_products: number; dense_dot_products: number; flops: number };
  warnings?: string[];
};
export type Preset = PresetRecord;
export type Algorithm = AlgorithmRecord;

/** A run's result: the trace, or the core's message and the path of the field it is about
 * ("q[0][2][0]", "mask.window"; "" for the scenario as a whole), as the core's Error carries them. */
export type Outcome =
  | { ok: true; trace: Trace }
  | { ok: false; error: string; field: string };

/** Progress of a long run (training): fraction in (0, 1], a line, and {epoch, epochs, loss}. */
export type RunProgress = (fraction: number, what: string, detail: Record<string, unknown>) => void;

export interface Engine {
  run(scenario: Scenario): Outcome;
  /** run() reporting progress after each training epoch (SPEC §1: long work reports progress). */
  runWithProgress(scenario: Scenario, onProgress: RunProgress): Outcome;
  presets(): Preset[];
  /** The core's algorithm registry: the algorithms this build implements. */
  algorithms(): Algorithm[];
}

let enginePromise: Promise<Engine> | null = null;

/** A registry entry; a core that lists bare names gets its names as titles. */
function algorithmRecord(entry: string | AlgorithmRecord): Algorithm {
  return typeof entry === 'string' ? { name: entry, title: entry, title_zh: entry, description: '' } : entry;
}

function wrap(core: Core): Engine {
  let presetCache: Preset[] | null = null;
  let algorithmCache: Algorithm[] | null = null;
  return {
    run(scenario) {
      try {
        return { ok: true, trace: core.run(scenario) as Trace };
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        const field = (e as { field?: unknown } | null)?.field;
        return { ok: false, error, field: typeof field === 'string' ? field : '' };
      }
    },
    runWithProgress(scenario, onProgress) {
      try {
        return { ok: true, trace: core.run(scenario, { onProgress: (f, w, d) => { onProgress(f, w, d); return true; } }) as Trace };
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        const field = (e as { field?: unknown } | null)?.field;
        return { ok: false, error, field: typeof field === 'string' ? field : '' };
      }
    },
    presets() {
      presetCache ??= core.presets();
      return presetCache;
    },
    algorithms() {
      algorithmCache ??= core.algorithms().map(algorithmRecord);
      return algorithmCache;
    },
  };
}

function loadOptions(): { wasmUrl?: string; wasmBinary?: Uint8Array } {
  const inline = /^data:[^,]*;base64,/.exec(wasmUrl);
  if (!inline) return { wasmUrl };
  const text = atob(wasmUrl.slice(inline[0].length));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return { wasmBinary: bytes };
}

export function getEngine(): Promise<Engine> {
  enginePromise ??= load(loadOptions()).then(wrap);
  return enginePromise;
}
