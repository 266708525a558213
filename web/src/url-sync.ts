// The scenario in the URL hash (index.html, `sync-hash`): the element's edits written to
// location.hash (a `#z=` link compressed first, link.ts, off the edit's path), a hash typed or
// followed read back into the Session, and the "Copy link" button. The encoding is state/hash.ts's;
// the element owns one UrlSync and draws what a link changed (LinkTarget).
import { load } from './lazy';
import type { Lang } from './i18n';
import { THEMES, hashPrefs, parseHash, type Theme } from './state/hash';
import type { Session } from './state/session';

/** How long the edits pause before the URL is written. */
const PAUSE_MS = 300;

/** What the element does for a link. */
export interface LinkTarget {
  /** A preset's link: loaded as picking it does. */
  preset(name: string): void;
  /** A scenario's link is about to be applied (its errors are reported even if the same). */
  applying(): void;
  /** It was: draw it whole. */
  whole(): void;
  /** No scenario yet (a first link that could not be read): the preset attribute's. */
  fallback(): void;
  /** A link that could not be read: its error is shown beside the scenario JSON (opened). */
  failed(): void;
  /** The hash's tail for the element's language and theme (state/hash.ts prefsTail). */
  prefs(): string;
}

/** The preset `el` opens on (its link's with `sync-hash`, else its attribute's), or null when it
 * opens on a scenario (a link's or the attribute's) or on the first preset. */
export function openingPreset(el: HTMLElement): string | null {
  const wanted = el.hasAttribute('sync-hash') ? parseHash(location.hash) : null;
  if (wanted) return 'preset' in wanted ? wanted.preset : null;
  return el.getAttribute('scenario') ? null : el.getAttribute('preset');
}

/** The reader's choices of language and theme (index.html), kept where storage is allowed. */
const STORE = 'attention-playground.';
export function remember(name: 'lang' | 'theme', value: string): void {
  try { localStorage.setItem(STORE + name, value); } catch { /* no storage here (file://, a private mode) */ }
}
function remembered(name: 'lang' | 'theme'): string | null {
  try { return localStorage.getItem(STORE + name); } catch { return null; }
}

/** index.html's language and theme on load: the link's, else the reader's remembered choice, else
 * the browser's (Chinese when a zh-* language comes before any en-*; the theme follows the system's
 * scheme: auto). Set as the element's attributes. */
export function openingPrefs(el: HTMLElement): void {
  const link = hashPrefs(location.hash);
  const browser = (navigator.languages ?? [navigator.language]).find((l) => /^(en|zh)\b/i.test(l))?.slice(0, 2).toLowerCase();
  const lang = link.lang ?? remembered('lang') ?? browser;
  const theme = link.theme ?? remembered('theme') ?? el.getAttribute('theme') ?? 'auto';
  if (lang === 'en' || lang === 'zh') el.setAttribute('lang', lang);
  if (THEMES.includes(theme as Theme)) el.setAttribute('theme', theme);
}

export class UrlSync {
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Writes the waiting hash when the page is left or hidden (a reload keeps the last edit). */
  #leaving: (() => void) | null = null;
  /** The hash write in flight (a `#z=` link is compressed first). */
  #done: Promise<void> = Promise.resolve();
  /** Bumped by every hash write asked for: a compression that ends after a later one began is dropped. */
  #seq = 0;
  /** The last JSON compressed and its `#z=` hash. */
  #zCache = ['', ''];
  /** The hash last written (or read): not applied again when the browser reports it. */
  #last = '';
  /** Bumped by every whole scenario: a `#z=` link applies only if nothing replaced the scenario
   * while it was inflated. */
  #gen = 0;
  /** The error of a link that could not be read, shown until the next edit. */
  #linkError: string | null = null;
  readonly #session: Session;
  readonly #target: LinkTarget;

  constructor(session: Session, target: LinkTarget) {
    this.#session = session;
    this.#target = target;
    window.addEventListener('hashchange', () => this.read());
  }

  /** A whole new scenario (preset, setScenario, attribute): a link still inflating is dropped. */
  replaced(): void {
    this.#gen++;
  }

  /** An edit (a control, the API): the error of a link that could not be read is old news. */
  edited(): void {
    if (this.#linkError === null) return;
    if (this.#session.jsonError === this.#linkError) this.#session.jsonError = null;
    this.#linkError = null;
  }

  /** Applies the URL hash; false when it asks for nothing (or is the one last written). A `#z=`
   * link is inflated first (link.ts): the promise settles once it is applied or refused. */
  read(): false | Promise<void> {
    const hash = location.hash;
    if (!hash || hash === this.#last) return false;
    const wanted = parseHash(hash);
    if (!wanted) return false;
    const gen = ++this.#gen;
    if ('preset' in wanted) this.#target.preset(wanted.preset);
    else if ('scenario' in wanted) this.#apply(wanted.scenario);
    else {
      return load('link').then((m) => m.inflate(wanted.z)).then(
        (text) => { if (gen === this.#gen) this.#apply(text); },
        (e: unknown) => { if (gen === this.#gen) this.#apply(null, e instanceof Error ? e.message : String(e)); });
    }
    return Promise.resolve();
  }

  /** A scenario's JSON from the URL, or (null) the error of a link that could not be read: the
   * error stays until the next edit, and the last scenario with it (on the first load, the preset
   * attribute's). */
  #apply(text: string | null, error = ''): void {
    const s = this.#session;
    this.#target.applying();
    if (text !== null && s.fromText(text)) {
      this.#target.whole();
      return;
    }
    if (error) s.jsonError = error;
    if (!Object.keys(s.scenario).length) this.#target.fallback();
    this.#linkError = s.jsonError;
    this.#target.failed();
  }

  /** Writes the scenario to the URL once the edits pause for PAUSE_MS (a task of its own, off the
   * edit's path; the last edit wins). history.replaceState costs milliseconds (tens with a long
   * URL: L = 64's) and Chromium throttles a stream of them, so a stream of edits (typing, a slider)
   * writes it once, when it stops, not between keystrokes; leaving the page writes it at once. */
  write(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#now(), PAUSE_MS);
    if (!this.#leaving) {
      this.#leaving = () => { if (this.#timer) this.#now(); };
      window.addEventListener('pagehide', this.#leaving);
      document.addEventListener('visibilitychange', this.#leaving);
    }
  }

  /** A new entry of the undo history: a new entry of the browser's too (its hash written after, by
   * replaceState, which keeps `state`), so Back and Forward move between edits; `push` false: the
   * state of the entry shown (the first one's). */
  entry(state: unknown, push = true): void {
    try {
      if (push) history.pushState(state, '', location.href);
      else history.replaceState(state, '');
    } catch {
      // Chromium refuses a flood of pushState: the entry is the undo history's only
    }
  }

  /** The hash shown now came from the browser's history (Back, Forward): not applied again. */
  skip(hash: string): void {
    this.#last = hash;
  }

  /** The "Copy link" button: the URL (its hash written now) to the clipboard (link.ts). */
  async copyLink(button: HTMLElement, lang: Lang, root: ShadowRoot): Promise<void> {
    const link = load('link');
    this.#now();
    await this.#done;
    const m = await link;
    // a scenario too large for the address bar (state/hash.ts ADDRESS_NUMBERS): its whole link is
    // made for the clipboard only
    const shown = this.#session.hashFor(), whole = this.#session.hashFor(true);
    const url = 'hash' in shown && !shown.hash && 'json' in whole
      ? location.href.replace(/#.*$/, '#z=') + await m.deflate(whole.json) + this.#target.prefs() : location.href;
    return m.copyUrl(url, button, lang, root);
  }

  /** The hash write due now (after the pause, on leaving, for "Copy link"). */
  #now(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    // no scenario yet (a preset waiting for the whole module): the URL keeps asking for it
    if (!Object.keys(this.#session.scenario).length) return;
    const want = this.#session.hashFor();
    const seq = ++this.#seq;
    if ('hash' in want) {
      this.#write(want.hash);
      return;
    }
    const { json } = want;
    this.#done = (this.#zCache[0] === json ? Promise.resolve(this.#zCache[1])
      : load('link').then((m) => m.deflate(json)).then((z) => { this.#zCache = [json, '#z=' + z]; return this.#zCache[1]; }))
      .catch(() => '#scenario=' + encodeURIComponent(json))
      .then((hash) => { if (seq === this.#seq) this.#write(hash); });
  }

  #write(hash: string): void {
    // no hash (a scenario too large for the address bar): '#', an empty one
    const text = (hash || '#') + this.#target.prefs();
    if (text === this.#last) return;
    this.#last = text;
    try {
      history.replaceState(history.state, '', text);
    } catch {
      // a URL too long for this browser: the hash keeps the last scenario that fitted
    }
  }
}
