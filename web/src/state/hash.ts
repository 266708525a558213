// The scenario in the URL hash (index.html, `sync-hash`): `#preset=NAME` while a preset is
// unmodified, else `#z=<base64url of deflate-raw(JSON)>` (link.ts, a chunk of its own), or
// `#scenario=<JSON, URI-encoded>` where the browser has no CompressionStream. All three are read.
// The reader's language and theme follow as `&lang=zh`, `&theme=dark` (issue 15; only where they are
// not the page's defaults, en and auto). Text only: the element reads and writes location.
import type { Scenario } from '../engine/compute';

/** Above this many numbers a scenario is not written to the address bar (issue 18, part 4): its
 * JSON takes tens of ms to write and compress, and Chromium's history.replaceState and pushState
 * with a URL of a hundred KB or more block the tab for 50 ms to seconds. Its hash is then empty
 * (a reload opens the page's preset; Back and Forward still move between the undo entries), and
 * "Copy link" still makes its whole `#z=` link (the presets have at most 3,204 numbers). */
export const ADDRESS_NUMBERS = 8192;

/** The numbers in a scenario's tensors and weights (a nested array's innermost arrays counted by
 * their length). */
export const numbersIn = (v: unknown): number => (Array.isArray(v) ? (typeof v[0] === 'number' ? v.length : v.reduce((n: number, x) => n + numbersIn(x), 0))
  : v !== null && typeof v === 'object' ? Object.values(v).reduce((n: number, x) => n + numbersIn(x), 0) : 0);

/** The hash when it needs no compression: `#preset=` (unmodified), `''` for a scenario too large
 * for the address bar (ADDRESS_NUMBERS; unless `whole`: the "Copy link" button's), else
 * `#scenario=`; `json` (when given) is the scenario's JSON, to compress instead. */
export function hashOf(preset: string, modified: boolean, scenario: Scenario, whole = false): { hash: string } | { json: string } {
  if (preset && !modified) return { hash: '#preset=' + encodeURIComponent(preset) };
  if (!whole && numbersIn(scenario) > ADDRESS_NUMBERS) return { hash: '' };
  const json = JSON.stringify(scenario);
  return typeof CompressionStream === 'function' ? { json } : { hash: '#scenario=' + encodeURIComponent(json) };
}

/** What a hash asks for: a preset's name, a scenario's JSON text, or its compressed text (z);
 * null when it asks for none. */
export function parseHash(hash: string): { preset: string } | { scenario: string } | { z: string } | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const preset = params.get('preset');
  const scenario = params.get('scenario');
  const z = params.get('z');
  if (preset) return { preset };
  if (scenario) return { scenario };
  if (z) return { z };
  return null;
}

export type Theme = 'light' | 'dark' | 'auto';
export const THEMES: readonly Theme[] = ['auto', 'light', 'dark'];

/** The language and theme a link asks for (each undefined when it names none, or one unknown). */
export function hashPrefs(hash: string): { lang?: 'en' | 'zh'; theme?: Theme } {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const lang = params.get('lang'), theme = params.get('theme') as Theme;
  return { lang: lang === 'en' || lang === 'zh' ? lang : undefined, theme: THEMES.includes(theme) ? theme : undefined };
}

/** The hash's tail for a language and theme: empty for the defaults (en, auto). */
export const prefsTail = (lang: string, theme: string): string =>
  (lang === 'zh' ? '&lang=zh' : '') + (theme !== 'auto' && THEMES.includes(theme as Theme) ? '&theme=' + theme : '');
