// Ambient declarations for modules that are not TypeScript.

declare module '*/wasm/attnplay.mjs' {
  export interface PresetRecord {
    name: string;
    title: string;
    title_zh: string;
    description: string;
    scenario: Record<string, unknown>;
  }
  /** An entry of the core's algorithm registry. */
  export interface AlgorithmRecord {
    name: string;
    title: string;
    title_zh: string;
    description: string;
    /** The (B, L, H, E)-layout tensors it reads (edited as grids). */
    tensors?: string[];
    /** The mask kinds its reader accepts; empty: it takes no mask. */
    masks?: string[];
    /** Its options' defaults, as its reader applies them. */
    defaults?: Record<string, unknown>;
    /** The field choosing an inner algorithm (multihead). */
    inner?: { field: string; default: string; choices: string[] };
  }
  /** What a run will cost and carry (the core's estimate_scenario): cost equals the trace's where
   * exact; numbers: the float numbers of its trace; sizes: what the algorithm derives. */
  export interface EstimateRecord {
    cost: { dot_products: number; dense_dot_products: number; flops: number; kv_cache_numbers?: number };
    numbers: number;
    sizes: Record<string, unknown>;
    exact: boolean;
  }
  export interface Core {
    /** Throws an Error whose `field` is the offending field's path ("" = the whole scenario). */
    run(scenario: object | string, options?: { typed?: boolean;
      /** After each training epoch; returning false stops the run (an Error with cancelled: true). */
      onProgress?: (fraction: number, what: string, detail: Record<string, unknown>) => boolean | void }): Record<string, unknown>;
    /** The scenario's estimate from its shapes (tensors may be {shape} without data); throws as run() does. */
    estimate(scenario: object): EstimateRecord;
    presets(): PresetRecord[];
    /** A seeded draw's numbers (SPEC §2) as the core's readers draw them; throws naming `field`'s keys.
     * `rows` [start, end): rows of axis 1 only (a split run's query rows), bit for bit the whole draw's. */
    draw(spec: object, field?: string, rows?: [number, number]): { shape: number[]; data: Float64Array };
    /** The registry's entries (a core built before the registry lists bare names). */
    algorithms(): (AlgorithmRecord | string)[];
  }
  /** wasmUrl: where the .wasm is (fetched and compiled while it streams); wasmBinary: its bytes. */
  export function load(options?: { wasmUrl?: string; wasmBinary?: Uint8Array }): Promise<Core>;
  /** The same API over a module instantiated elsewhere (the page's first-load module). */
  export function api(module: unknown): Core;
}

/** wasm/nested.mjs: nested arrays <-> typed tensors, the one conversion (the core's API, the page). */
declare module '*/wasm/nested.mjs' {
  export interface TypedTensor { shape: number[]; data: Float64Array }
  export function isTypedTensor(value: unknown): value is { shape: number[]; data: Float64Array | Float32Array };
  export function isFlat(value: unknown): value is { shape: number[]; data: ArrayLike<number> };
  export function toNested(data: ArrayLike<number>, shape: number[]): unknown;
  export function nested(value: unknown): unknown;
  export function fromNested(value: unknown): TypedTensor | null;
  export function shapeOf(value: unknown): number[];
  export function isDraw(value: unknown): value is { shape: number[]; random: string; seed?: number; scale?: number };
}

/** Emscripten's factory of the first-load module (CMakeLists.txt: attnplay_first). */
declare module '*/build/wasm/attnplay_first.mjs' {
  const factory: (options: { locateFile?: (file: string, dir: string) => string }) => Promise<unknown>;
  export default factory;
}

/** build/wasm/catalog.json (scripts/catalog.mjs): the whole module's registry and presets. */
declare module '*/build/wasm/catalog.json' {
  const catalog: { algorithms: unknown[]; presets: unknown[] };
  export default catalog;
}

declare module '*.css?inline' {
  const css: string;
  export default css;
}

declare module 'd3-color' {
  export interface RGBColor { r: number; g: number; b: number; opacity: number }
  export function rgb(specifier: string): RGBColor;
}

declare module '*.wasm?url' {
  const url: string;
  export default url;
}

/** A reference Python file as text (pytorch.ts cuts its snippets out of it). */
declare module '*.py?raw' {
  const text: string;
  export default text;
}
/** The Chinese labels of web/src/state/ and web/src/algorithms/, by their English (vite.config.ts zhOutOfFirstLoad). */
declare module 'virtual:attnplay-zh-texts' {
  const texts: Record<string, string>;
  export default texts;
}
