// Undo and redo (issue 15): the element's states after each edit, newest last. A stream of edits of
// one text field (a number typed, key by key) within a second is one entry; no DOM, no copies: a
// Session never writes into a scenario it replaced (edits copy along the path they change).
import type { Scenario } from '../engine/compute';

export interface Snapshot { scenario: Scenario; preset: string; modified: boolean }

/** Edits of one field closer than this are one entry. */
const MERGE_MS = 1000;
/** Entries kept (the oldest dropped). */
const MAX_ENTRIES = 200;

export class EditHistory {
  #list: Snapshot[] = [];
  #at = -1;
  #key = '';
  #time = -Infinity;

  /** The index of the entry shown. */
  get at(): number { return this.#at; }

  /** The state after an edit of the field `key` ('' for a button, a menu, a paste): a new entry
   * (true), or the entry of the same field edited less than a second ago replaced (false). */
  record(snap: Snapshot, key: string, now = performance.now()): boolean {
    const merge = this.#at >= 0 && key !== '' && key === this.#key && now - this.#time < MERGE_MS;
    this.#key = key;
    this.#time = now;
    if (merge) {
      this.#list[this.#at] = snap;
      return false;
    }
    this.#list.splice(this.#at + 1, Infinity, snap);
    if (this.#list.length > MAX_ENTRIES) this.#list.shift();
    this.#at = this.#list.length - 1;
    return true;
  }

  /** The entry shown is now `snap` (a first scenario, a link applied, a redraw): no new entry. */
  replace(snap: Snapshot): void {
    if (this.#at < 0) this.#at = 0;
    this.#list[this.#at] = snap;
    this.#key = '';
  }

  /** The entry `step` away (-1 undo, +1 redo), now shown; null when there is none. */
  move(step: number): Snapshot | null {
    return this.go(this.#at + step);
  }

  /** Entry `i`, now shown; null when there is none. */
  go(i: number): Snapshot | null {
    if (i < 0 || i >= this.#list.length) return null;
    this.#at = i;
    this.#key = '';
    return this.#list[i];
  }

  /** Whether there is an entry `step` away. */
  can(step: number): boolean {
    const i = this.#at + step;
    return i >= 0 && i < this.#list.length;
  }
}
