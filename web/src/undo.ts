// Undo, redo, Back and Forward (issue 15), and the grids' paste and drop (paste.ts): a chunk of its
// own, fetched once the first trace is shown (lazy.ts); the element queues the states recorded
// before (its first scenario, an early edit) and keeps restoring and pasting (they need its state).
import { EditHistory, type Snapshot } from './state/history';
import { dataHook, pasteInto } from './paste';
import { traits, type Session } from './state';
import type { UrlSync } from './url-sync';
import { useClone } from './format';
import { fastClone } from './clone';

// from now on the page's copies of scenarios (setScenario's, an edit's) are made without the JSON text
useClone(fastClone);

export type { Snapshot };

/** What the element lends: its root, its URL sync (index.html), its session, how it shows an
 * entry, and its redraw after a paste (false: only the error). */
export interface UndoHost {
  root: ShadowRoot;
  url: UrlSync | null;
  session: Session;
  restore(snap: Snapshot): void;
  update(ok: boolean): void;
}

/** A state after a change: an edit of field `key` ('' a button, a menu, a paste), or (edit false)
 * the state shown (a first scenario, a link, a redraw, an undo). */
export interface Recorded { snap: Snapshot; key: string; edit: boolean; time: number }

interface Mark { attnplay?: { id: string; i: number } }

export class Undo {
  readonly #history = new EditHistory();
  /** Marks this load's browser entries (an entry of an earlier load is read from its hash). */
  readonly #id = Math.random().toString(36).slice(2);
  readonly #host: UndoHost;
  /** The browser entry of the last edit, pushed in a task of its own (record). */
  #pending: { mark: Mark; timer: ReturnType<typeof setTimeout> } | null = null;

  constructor(host: UndoHost, queued: readonly Recorded[]) {
    this.#host = host;
    // a matrix pasted or a file dropped on grid `name`: q, k, v as the shown (b, h) slice, an own
    // (B, L, d) grid as batch item b, or whole
    dataHook(host.root, (name, data) => {
      const s = host.session, own = traits(s.scenario).grids !== undefined;
      void pasteInto(s, { name, title: own ? name : name.toUpperCase(), b: s.b, h: own ? null : s.h }, data).then(host.update);
    });
    // Ctrl+Z undo, Ctrl+Shift+Z and Ctrl+Y redo (the JSON editor keeps its own text undo)
    host.root.addEventListener('keydown', (ev) => {
      const e = ev as KeyboardEvent;
      const k = (e.key ?? '').toLowerCase();
      const redo = (k === 'z' && e.shiftKey) || (k === 'y' && !e.shiftKey);
      if (!(e.ctrlKey || e.metaKey) || e.altKey || (k !== 'z' && !redo) || (e.target as HTMLElement).tagName === 'TEXTAREA') return;
      e.preventDefault();
      this.step(redo ? 1 : -1);
    });
    if (host.url) {
      // Back and Forward between this load's entries: the entry's state applied, not its hash
      window.addEventListener('popstate', (e) => {
        const mark = (e.state as Mark | null)?.attnplay;
        const snap = mark?.id === this.#id ? this.#history.go(mark.i) : null;
        if (!snap) return;  // not ours: the hashchange that follows reads the hash
        host.url!.skip(location.hash);
        host.restore(snap);
      });
      host.url.entry(this.#mark(), false);  // the entry shown is entry 0
    }
    for (const r of queued) this.record(r);
  }

  /** The browser entry's state for the undo entry shown. */
  #mark(): Mark {
    return { attnplay: { id: this.#id, i: Math.max(0, this.#history.at) } };
  }

  /** A new entry of the history is a new browser entry too (index.html). */
  record(r: Recorded): void {
    if (!r.edit) this.#history.replace(r.snap);
    else if (this.#history.record(r.snap, r.key, r.time) && this.#host.url) {
      // pushState costs milliseconds (the renderer's and the browser's): in a task of its own,
      // after the edit is drawn (its hash is written after it, url-sync.ts), and after the long run
      // the edit started, if any (issue 18: not beside a split run's workers on the reader's cores);
      // a step or the next entry pushes one still waiting first
      this.#flush();
      const mark = this.#mark();
      const later = () => { if (this.#pending?.mark === mark) this.#pending.timer = setTimeout(() => this.#flush(), 0); };
      this.#pending = { mark, timer: setTimeout(() => void this.#host.session.longRunSettled().then(later), 0) };
    }
  }

  /** Pushes the browser entry still waiting, if any. */
  #flush(): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = null;
    clearTimeout(pending.timer);
    this.#host.url?.entry(pending.mark);
  }

  /** Undo (-1) or redo (+1); on index.html through the browser's history (Back, Forward). */
  step(step: number): void {
    if (!this.#history.can(step)) return;
    this.#flush();
    if (this.#host.url && (history.state as Mark | null)?.attnplay?.id === this.#id) {
      history.go(step);  // popstate restores the entry
      return;
    }
    const snap = this.#history.move(step);
    if (snap) this.#host.restore(snap);
  }
}
