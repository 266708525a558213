// Ambient declarations for modules that are not TypeScript.

declare module '*/wasm/attnplay.mjs' {
  export interface PresetRecord {
    name: string;
    title: string;
    title_zh: string;
    description: string;
    description_zh?: string;
    scenario: Record<string, unknown>;
  }
  export interface Core {
    run(scenario: object | string, options?: { typed?: boolean }): Record<string, unknown>;
    presets(): PresetRecord[];
    algorithms(): string[];
  }
  export function load(): Promise<Core>;
}

declare module '*.css?inline' {
  const css: string;
  export default css;
}

declare module 'd3-color' {
  export interface RGBColor { r: number; g: number; b: number; opacity: number }
  export function rgb(specifier: string): RGBColor;
}
