// The only module that talks to the WASM core. No DOM here.
//
// The core is loaded once per page and shared by every <attention-playground> element: run() is
// synchronous and keeps no state between calls, so elements cannot disturb each other.
//
// First load (issue 8): two builds of the same core objects (CMakeLists.txt). The whole module
// (build/wasm/attnplay_core.*) runs every algorithm; the first-load module
// (build/wasm/attnplay_first.*, a third of its size) runs `full` only and has no presets. An element
// whose first scenario the first-load module runs asks for it (getEngine({first})): its first trace
// comes from there, and the whole module is loaded after it (whole()); from then on every run uses
// the whole module. The menus come from build/wasm/catalog.json, the whole module's registry and
// presets written at build time (scripts/catalog.mjs), so they are there before any module is.
//
// Each .wasm is an asset of its own (Vite's `?url`): the core's loader fetches it and compiles it
// while it streams (WebAssembly.instantiateStreaming). The single-file page's build turns the URL
// into a data: URL (vite.config.ts); it is decoded here and handed over as bytes, nothing fetched;
// that build has no first-load module (__ATTNPLAY_FIRST_MODULE__ is false: nothing to save).
import { api, load } from '../../../wasm/attnplay.mjs';
import type { AlgorithmRecord, Core, EstimateRecord, PresetRecord } from '../../../wasm/attnplay.mjs';
import wasmUrl from '../../../build/wasm/attnplay_core.wasm?url';
// a URL only (no chunk of its own for one line); unused, so left out, in the single file
import firstWasmUrl from '../../../build/wasm/attnplay_first.wasm?url';
import catalog from '../../../build/wasm/catalog.json';
// the one nested <-> {shape, data} conversion (wasm/nested.mjs), for the page's modules: from here,
// it is bundled with the core's API (imported directly, it would be a first-load file of its own)
export { fromNested, isDraw, isFlat, isTypedTensor, nested, shapeOf, type TypedTensor } from '../../../wasm/nested.mjs';
import { isDraw, isFlat, shapeOf } from '../../../wasm/nested.mjs';

declare const __ATTNPLAY_FIRST_MODULE__: boolean;

export type Scenario = Record<string, unknown>;
export type Trace = Record<string, unknown> & {
  algorithm: string;
  shapes: Record<string, number[]>;
  cost?: { dot_products: number; dense_dot_products: number; flops: number; kv_cache_numbers?: number };
  warnings?: string[];
};
/** A preset; its scenario and description are missing until the whole module is loaded where the first-load
 * module does not run it (build/wasm/catalog.json). */
export type Preset = Omit<PresetRecord, 'scenario'> & { scenario?: PresetRecord['scenario'] };
export type Algorithm = AlgorithmRecord;
/** What a run will cost and carry, from the scenario's shapes (the core's estimate). */
export type Estimate = EstimateRecord;

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
  /** The run's cost (equal to its trace's where `exact`), its trace's float numbers and the sizes the
   * algorithm derives, from the scenario's shapes: nothing is run, no tensor is copied. Null where
   * no module estimates it yet or the scenario is invalid (run() names the error). */
  estimate(scenario: Scenario): Estimate | null;
  presets(): Preset[];
  /** The core's algorithm registry: the algorithms this build implements. */
  algorithms(): Algorithm[];
  /** Whether run() computes this algorithm (and this scenario, where given: the first-load module
   * leaves RoPE, ALiBi and seeded draws out) now; false while the whole module loads. */
  has(algorithm: string, scenario?: Scenario): boolean;
  /** Resolves when the whole module runs every algorithm (starts loading it on the first call). */
  whole(): Promise<void>;
}

/** A registry entry; a core that lists bare names gets its names as titles. */
function algorithmRecord(entry: string | AlgorithmRecord): Algorithm {
  return typeof entry === 'string' ? { name: entry, title: entry, title_zh: entry, description: '' } : entry;
}

// the catalog leaves out what the first load does not show (descriptions but the opening preset's;
// the Chinese titles, which come with the Chinese strings: i18n.ts zhTitle)
const catalogPresets = (catalog as { presets: Partial<Preset>[] }).presets
  .map((p) => ({ name: '', title: '', title_zh: '', description: '', ...p }));
/** Whether the first-load module runs preset `name` (the catalog carries the scenarios of those
 * only): a page that opens on another preset loads the whole module alone. */
export const firstRunsPreset = (name: string): boolean =>
  catalogPresets.some((p) => p.name === name && p.scenario !== undefined);
const catalogAlgorithms = (catalog as { algorithms: Partial<Algorithm>[] }).algorithms
  .map((a) => ({ name: '', title: '', title_zh: '', description: '', ...a }));

/** The catalog's entry of an algorithm (build/wasm/catalog.json: there before any module is). */
export const catalogEntry = (name: string): Algorithm | undefined => catalogAlgorithms.find((a) => a.name === name);

/** flash's block_q or block_k for L queries or keys when the scenario gives none: the core's
 * defaults (run_flash.cpp), small blocks at toy sizes so that every block shows. */
export function flashBlock(key: 'block_q' | 'block_k', L: number): number {
  const d = (catalogEntry('flash')?.defaults ?? {}) as Record<string, number>;
  return L <= d.toy_length ? d.toy_block : d[key];
}

/** The scenario with the tensors its algorithm reads as grids (the catalog's `tensors`) as their
 * shapes alone: what estimate() needs of them. */
function shapesOnly(scenario: Scenario): Scenario {
  const entry = catalogEntry(String(scenario.algorithm));
  const out = { ...scenario };
  for (const name of entry?.tensors ?? []) if (Array.isArray(out[name])) out[name] = { shape: shapeOf(out[name]) };
  return out;
}

function failure(e: unknown): Outcome {
  const error = e instanceof Error ? e.message : String(e);
  const field = (e as { field?: unknown } | null)?.field;
  return { ok: false, error, field: typeof field === 'string' ? field : '' };
}

let wholeCore: Core | null = null;
let wholePresets: Preset[] | null = null;
let wholePromise: Promise<Core> | null = null;
let firstPromise: Promise<{ core: Core; runs: Set<string> } | null> | null = null;

/** The whole module's .wasm: this bundle's, or the one a worker's page names (worker/worker.ts: a
 * host's bundler may copy the worker's file as it is, away from the .wasm it named when built). */
let coreWasmUrl: string = wasmUrl;

function loadOptions(): { wasmUrl?: string; wasmBinary?: Uint8Array } {
  // only the single file inlines its .wasm (the build with a first-load module never does)
  const inline = !__ATTNPLAY_FIRST_MODULE__ && /^data:[^,]*;base64,/.exec(coreWasmUrl);
  if (!inline) return { wasmUrl: coreWasmUrl };
  const text = atob(coreWasmUrl.slice(inline[0].length));
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return { wasmBinary: bytes };
}

/** Every preset whole (build/wasm/presets.json, written from the same core by scripts/catalog.mjs),
 * fetched with the whole module: the core's presets() took 67-91 ms of the main thread at its
 * first call; this is parsed JSON. Null until it is there (the core's then). */
let presetFile: Preset[] | null = null;

function loadWhole(): Promise<Core> {
  if (!wholePromise) {
    wholePromise = load(loadOptions()).then((core) => (wholeCore = core));
    void import('../../../build/wasm/presets.json').then((m) => { presetFile ??= m.default as Preset[]; }, () => undefined);
  }
  return wholePromise;
}

/** The first-load module and the algorithms it runs (null where there is none, or it failed). */
function loadFirst(): Promise<{ core: Core; runs: Set<string> } | null> {
  firstPromise ??= !__ATTNPLAY_FIRST_MODULE__ ? Promise.resolve(null) : import('../../../build/wasm/attnplay_first.mjs').then(async (factory) => {
    const module = await factory.default({
      locateFile: (file: string, dir: string) => (file.endsWith('.wasm') ? firstWasmUrl : dir + file),
    });
    const core = api(module);
    return { core, runs: new Set(core.algorithms().map((a) => algorithmRecord(a).name)) };
  }).catch(() => null);  // the whole module will do
  return firstPromise;
}

/** Whether a scenario has no mask: the first-load module leaves the masks' tiles out
 * (core/attention_kernel.cpp by_tiles), so a masked first trace waits for the whole module. */
const unmasked = (s: Scenario): boolean => {
  const m = s.mask as { kind?: unknown } | string | null | undefined;
  return m == null || m === 'none' || (typeof m === 'object' && (m.kind == null || m.kind === 'none'));
};

/** Whether a scenario has a seeded draw (SPEC §2), at its top level or in an object of it (weights). */
const hasDraw = (s: Scenario): boolean => Object.values(s).some((v) => isDraw(v) ||
  (v !== null && typeof v === 'object' && !Array.isArray(v) && !isFlat(v) && Object.values(v).some(isDraw)));

function makeEngine(first: { core: Core; runs: Set<string> } | null): Engine {
  const has = (algorithm: string): boolean => wholeCore != null || (first != null && first.runs.has(algorithm));
  const coreFor = (scenario: Scenario): Core | null =>
    wholeCore ?? (runsFirst(scenario) ? first!.core : null);
  // the first-load module leaves RoPE, ALiBi (core/scenario/run_full.cpp), seeded draws
  // (core/scenario/draws.hpp) and the masks' tiles (core/attention_kernel.cpp) out
  const runsFirst = (scenario: Scenario): boolean => has(String(scenario.algorithm)) &&
    (wholeCore != null || (scenario.rope == null && (scenario.alibi == null || scenario.alibi === false) && !hasDraw(scenario) &&
      unmasked(scenario)));
  const loading = (scenario: Scenario): Outcome => ({ ok: false, field: '',
    error: `the module that runs "${String(scenario.algorithm)}" is still loading` });
  // the whole module follows the first trace: fetched once that is on screen, not before
  const followFirst = (core: Core): void => {
    if (core !== wholeCore && !wholePromise) setTimeout(() => void loadWhole().catch(() => {}), 250);
  };
  // the last estimates by the scenario's shapes: an edit asks for its run's and for the runs beside
  // it (state/long.ts), which one entry would evict from each other at every edit
  const estimates = new Map<string, { core: Core; value: Estimate | null }>();
  /** One run on the module that runs the scenario: its trace, or the error it names. */
  const attempt = (scenario: Scenario, call: (core: Core) => Record<string, unknown>): Outcome => {
    const core = coreFor(scenario);
    if (!core) return loading(scenario);
    followFirst(core);
    try {
      return { ok: true, trace: call(core) as Trace };
    } catch (e) {
      return failure(e);
    }
  };
  return {
    run: (scenario) => attempt(scenario, (core) => core.run(scenario)),
    runWithProgress: (scenario, onProgress) => attempt(scenario, (core) =>
      core.run(scenario, { onProgress: (f, w, d) => { onProgress(f, w, d); return true; } })),
    estimate: (scenario) => {
      const core = coreFor(scenario);
      if (!core) return null;
      // an edit of a number changes no shape: the last answer stands (the core parses the scenario)
      // keyed by the shape of every top-level grid, the algorithms' own too (multihead's queries,
      // mla's x: 1 ms of the core a d2l-multihead edit); no preset's estimate follows their numbers
      const key = JSON.stringify(scenario, function (this: unknown, _k, v) { return this === scenario && v?.[0]?.map ? shapeOf(v) : v; });
      const known = estimates.get(key);
      if (known?.core === core) return known.value;
      let value: Estimate | null = null;
      try {
        value = core.estimate(shapesOnly(scenario));
      } catch {
        value = null;
      }
      if (estimates.size >= 16) estimates.delete(estimates.keys().next().value!);
      estimates.set(key, { core, value });
      return value;
    },
    presets: () => (wholeCore ? (wholePresets ??= presetFile ?? wholeCore.presets()) : catalogPresets),
    algorithms: () => catalogAlgorithms,
    has: (algorithm, scenario) => (scenario ? runsFirst(scenario) : has(algorithm)),
    whole: () => loadWhole().then(() => undefined),
  };
}

/**
 * The engine. With `first`, it resolves as soon as the first-load module is ready (where there is
 * one): run() then computes what it runs (has()), and the whole module is fetched after the first
 * run; whole() waits for it. Without, it resolves with the whole module loaded (workers, batches);
 * `wasmUrl`: the whole module's .wasm is there (a worker's, from its page).
 */
export async function getEngine(options: { first?: boolean; wasmUrl?: string } = {}): Promise<Engine> {
  if (options.wasmUrl && !wholePromise) coreWasmUrl = options.wasmUrl;
  if (options.first && !wholeCore) {
    const first = await loadFirst();
    if (first) return makeEngine(first);
  }
  await loadWhole();
  return makeEngine(null);
}
