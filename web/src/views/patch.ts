// Updating a drawn view to a newly built one in place (issue 8: an edit changes the cells that
// changed, never the whole page). The views build their DOM from the state as before, but with the
// maps' bodies deferred (heatmap.ts); `patchChildren` then walks the new tree beside the drawn one:
// matching elements keep their node and take the new attributes and text, a map takes the new
// values into its drawn cells, and only what has no counterpart is inserted. Style and layout are
// then recomputed for what changed only. DOM only.
//
// An element that carries event listeners (form controls, buttons, anything given `on` in h())
// is replaced, not patched: its listeners close over the options it was built with.
import { building, LISTENING } from '../dom';
import { deferMaps, drawMaps, isDrawnMap, isPendingMap, updateMap } from './heatmap';

const REPLACED = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'CANVAS', 'OPTION']);

/** The attributes that name what an element shows: two elements that differ in one are not
 * patched into each other. */
const KEYS = ['data-field', 'data-key', 'data-part', 'data-slot', 'data-steps'];

/** Whether an element has a key (a named part of a view). */
const keyed = (el: Element) => KEYS.some((k) => el.hasAttribute(k));

/** Whether the drawn node `old` can be patched into `next` (same kind of node, same key). */
function matches(old: Node, next: Node): boolean {
  if (old.nodeType !== next.nodeType) return false;
  if (old.nodeType !== Node.ELEMENT_NODE) return old.nodeType === Node.TEXT_NODE || old.nodeType === Node.COMMENT_NODE;
  const o = old as Element, n = next as Element;
  if (o.tagName !== n.tagName || o.namespaceURI !== n.namespaceURI) return false;
  if (!o.hasAttributes() && !n.hasAttributes()) return true;
  // an index loop: matches runs for every node of an edit's views (no iterator garbage, issue 14)
  for (let k = 0; k < KEYS.length; k++) if (o.getAttribute(KEYS[k]) !== n.getAttribute(KEYS[k])) return false;
  return true;
}

/** Inserts `node` as it is (its maps drawn; its parts watched for being on screen; the stand-ins
 * in it replaced by their nodes). */
function insert(parent: Node, node: Node, before: Node | null): void {
  drawMaps(node);
  if (node instanceof Element) for (const s of node.querySelectorAll('kept-node')) s.replaceWith(standing.get(s)!);
  parent.insertBefore(node, before);
  if (node instanceof Element) watch(node);
}

// ---- the parts off screen: patched when the page is idle, or when scrolled to ----
//
// A view's parts (each part of a rendered panel, each map, each figure of a row of maps) that are
// not on screen when an edit comes are not patched on the edit's path: the new version waits (the
// latest one per part; a lazy part is not even built) and is patched in the page's next idle
// moment (at most IDLE_MS later), when the part scrolls into view, or when `flushPatches()` is
// called (the element's `settled`). What is on screen is patched at once, before the element's
// `trace` event.

/** How long an off-screen part may wait for an idle moment. */
const IDLE_MS = 200;

/** The parts known to be off screen (an IntersectionObserver's last word). */
const offscreen = new WeakSet<Element>();
/** The new version of each off-screen part that waits (a node, or a lazy part not built yet). */
const waiting = new Map<Element, Element | LazyPart>();
let observer: IntersectionObserver | null = null;
let scheduled = false;

/** The figures that are parts of their own wherever they are: every map, every figure of a row of maps. */
const FIGURES = 'figure.heatmap, .maps > figure';

/** A part: a child of a rendered panel, a map, or a figure in a row of maps. */
const isPart = (el: Element, parent: Node | null) =>
  parent !== null && ((parent as Element).hasAttribute?.('data-render-root') || (el.tagName === 'FIGURE' && el.matches(FIGURES)));

function watch(root: Element): void {
  if (typeof IntersectionObserver !== 'function') return;
  observer ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (e.isIntersecting) {
        offscreen.delete(e.target);
        const next = waiting.get(e.target);
        if (next) { waiting.delete(e.target); apply(e.target, next); }
      } else {
        offscreen.add(e.target);
      }
    }
  });
  const parent = root.parentNode;
  if (isPart(root, parent)) observer.observe(root);
  for (const fig of root.querySelectorAll(FIGURES)) observer.observe(fig);
}

/** Patches every part that waits (the element's `settled`, an idle moment). */
export function flushPatches(): void {
  flushing = true;
  try {
    const list = [...waiting];
    waiting.clear();
    for (const [old, next] of list) apply(old, next);
  } finally {
    flushing = false;
  }
}

/** While the waiting parts are patched, nothing waits. */
let flushing = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // the parts' layout done here too, in the idle moment: left dirty, the next edit's own layout
  // (its `trace`, a frame) would lay them out on the edit's path (issue 14: 4-10 ms of layout in
  // one edit of three on prob-seed-walkthrough)
  const run = () => {
    scheduled = false;
    const parts = [...waiting.keys()];
    flushPatches();
    parts.find((p) => p.isConnected)?.getBoundingClientRect();
  };
  if (typeof requestIdleCallback === 'function') requestIdleCallback(run, { timeout: IDLE_MS });
  else setTimeout(run, 50);
}

function patchAttributes(old: Element, next: Element): void {
  const attrs = next.attributes;
  for (let i = 0; i < attrs.length; i++) {
    const { name, value } = attrs[i];
    if (old.getAttribute(name) === value) continue;
    // a style through the CSSOM: the CSP (no 'unsafe-inline' in style-src) refuses a style attribute
    if (name === 'style') (old as HTMLElement).style.cssText = (next as HTMLElement).style.cssText;
    else old.setAttribute(name, value);
  }
  if (old.attributes.length !== attrs.length) {
    for (const { name } of Array.from(old.attributes)) if (!next.hasAttribute(name)) old.removeAttribute(name);
  }
}

/** Makes the drawn `old` show what `next` shows; returns the node now on the page (old, or next
 * when old had to be replaced). */
function patch(old: Node, next: Node): Node {
  if (old === next) return old;
  if (kept.has(next) && old instanceof Element && next instanceof Element) {
    // a kept view is drawn as it is, never emptied into another node
    replace(old, next);
    return next;
  }
  if (!(old instanceof Element) || !(next instanceof Element)) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return old;
  }
  if (REPLACED.has(old.tagName) || LISTENING.has(old) || LISTENING.has(next)) {
    replace(old, next);
    return next;
  }
  if (isDrawnMap(old) && isPendingMap(next)) {
    // the figure's attributes and caption as any element's; its body takes the new values
    const caption = next.firstElementChild;
    if (!updateMap(old, next)) {
      replace(old, next);
      return next;
    }
    patchAttributes(old, next);
    if (caption && old.firstElementChild && matches(old.firstElementChild, caption)) patch(old.firstElementChild, caption);
    return old;
  }
  if (isDrawnMap(old) || isPendingMap(next)) {
    replace(old, next);
    return next;
  }
  patchAttributes(old, next);
  patchChildren(old, next);
  return old;
}

function replace(old: Element, next: Element): void {
  const root = old.getRootNode() as ShadowRoot | Document;
  const active = root.activeElement as HTMLElement | null;
  const hadFocus = active !== null && (active === old || old.contains(active));
  const key = active?.dataset?.key;
  insert(old.parentNode!, next, old);
  old.remove();
  if (hadFocus && key) {
    const again = (next.matches(`[data-key="${CSS.escape(key)}"]`) ? next : next.querySelector(`[data-key="${CSS.escape(key)}"]`)) as HTMLElement | null;
    again?.focus();
  }
}

/** Elements a view keeps and returns again while its inputs stay (the element's memo): inserted
 * as they are, never patched into another node (that would move their children out of them). */
const kept = new WeakSet<Node>();

// ---- stand-ins: a kept node on the page stays where it is while the next views are built ----
//
// A view that puts a kept node (a memo's view, a step's formula) into an element it builds anew
// (a section's <details>, a step's operation) would take it off the page at each edit, and its
// patch would put it back: a style recalculation and a layout of all of it (issue 14: the 1/√d demo,
// the sparse patterns and the KaTeX formulas at every edit). While views are built for `render`,
// such a node is appended as a stand-in (an empty <kept-node>) that the patch reads as the node: drawn where
// it is, nothing moves; put in its place only where the stand-in is inserted.

/** The node each stand-in stands for. */
const standing = new WeakMap<Node, Node>();

/** `build()` as views built to be patched: maps deferred, kept nodes on the page stood in for. */
function buildViews<T>(build: () => T): T {
  building.standIn = (child) => {
    if (!kept.has(child) || !child.isConnected) return;
    const s = document.createElement('kept-node');
    standing.set(s, child);
    return s;
  };
  try {
    return deferMaps(build);
  } finally {
    building.standIn = undefined;
  }
}

/** Marks `el` as kept by its view (see `kept`); returns it. */
export function keep<T extends Node>(el: T): T {
  kept.add(el);
  return el;
}

/** How far ahead among the drawn siblings a match for a new node is looked for. */
const LOOKAHEAD = 6;

/** Makes `parent`'s children show `next` (nodes built by the views, or a built element's
 * children; some may be drawn nodes reused as they are): matching children are patched, the rest
 * inserted or removed. */
export function patchChildren(parent: Node, next: readonly Node[] | Element): void {
  let cur: ChildNode | null = parent.firstChild;
  // the new nodes: a list, or a built element's children walked by their sibling links (each
  // next sibling read before the node may move: no copy of the children at every element of an edit)
  const list = Array.isArray(next) ? next as readonly Node[] : null;
  let b = 0, following: Node | null = null;
  for (let built: Node | null = list ? list[0] ?? null : (next as Element).firstChild; built; built = following) {
    following = list ? list[++b] ?? null : built.nextSibling;
    const n = standing.get(built) ?? built;
    if (cur === n) { cur = cur.nextSibling; continue; }
    if (n.parentNode === parent) { // a drawn node reused further down: moved here
      parent.insertBefore(n, cur);
      continue;
    }
    if (kept.has(n)) { // a kept view, new: in place of the node it replaces
      if (cur && matches(cur, n)) {
        const x: ChildNode | null = cur.nextSibling;
        waiting.delete(cur as Element);
        parent.removeChild(cur);
        cur = x;
      }
      insert(parent, n, cur);
      continue;
    }
    if (cur && !matches(cur, n)) {
      // a drawn node left out of the new list: the first later sibling that matches (with a key)
      let ahead: ChildNode | null = cur.nextSibling;
      const found = (x: ChildNode) => x instanceof Element && matches(x, n) && keyed(x);
      for (let k = 0; ahead && k < LOOKAHEAD && !found(ahead); k++) ahead = ahead.nextSibling;
      if (ahead && found(ahead)) {
        while (cur && cur !== ahead) { const x: ChildNode | null = cur.nextSibling; parent.removeChild(cur); cur = x; }
      }
    }
    if (cur && matches(cur, n)) {
      if (!flushing && cur instanceof Element && offscreen.has(cur) && isPart(cur, parent)) {
        // off screen: patched later (the latest version wins)
        waiting.set(cur, n as Element);
        schedule();
        cur = cur.nextSibling;
        continue;
      }
      waiting.delete(cur as Element);
      const live = patch(cur, n);
      cur = (live as ChildNode).nextSibling;
      continue;
    }
    insert(parent, n, cur);
  }
  while (cur) { const x: ChildNode | null = cur.nextSibling; parent.removeChild(cur); cur = x; }
}

// ---- lazy parts ----

/** A top-level part of a rendered panel given as its key and how to build it: built only when it
 * is to be drawn (a part off screen is built when it is patched, in idle time). */
export class LazyPart {
  constructor(readonly key: string, readonly build: () => Node | null) {}
}

/** `build` as a lazy part of a rendered panel, `key` naming it among the panel's parts. */
export const lazyPart = (key: string, build: () => Node | null) => new LazyPart(key, build);

/** Builds a lazy part (its maps deferred, its key on it); a node as it is. */
function built(next: Node | LazyPart): Node | null {
  if (!(next instanceof LazyPart)) return next;
  const node = buildViews(next.build);
  if (node instanceof Element) node.setAttribute('data-view', next.key);
  return node;
}

/** Patches the waiting `next` into `old` (a lazy part that builds nothing removes it). */
function apply(old: Element, next: Element | LazyPart): void {
  if (!old.isConnected) return;
  const node = built(next);
  if (node) patch(old, node);
  else old.remove();
}

/** Builds views with their maps deferred (`build`) and patches them into `parent`'s children. */
export function render(parent: Element, build: () => readonly (Node | LazyPart | null | undefined | false)[]): void {
  parent.setAttribute('data-render-root', '');
  const items = buildViews(build);
  // the drawn parts by key: a lazy part whose drawn version is off screen is not built now
  const drawn = new Map<string, Element>();
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
    const key = c.getAttribute('data-view');
    if (key) drawn.set(key, c);
  }
  const nodes: Node[] = [];
  for (const item of items) {
    if (!item) continue;
    if (item instanceof LazyPart) {
      const old = drawn.get(item.key);
      if (old && !flushing && offscreen.has(old)) {
        waiting.set(old, item);
        schedule();
        nodes.push(old);
        continue;
      }
      const node = built(item);
      if (node) nodes.push(node);
      continue;
    }
    nodes.push(item);
  }
  patchChildren(parent, nodes);
}
