// A tiny DOM builder. Text goes in through textContent only: no innerHTML anywhere.

export type Child = Node | string | number | null | undefined | false | Child[];

export interface Props {
  class?: string;
  text?: string;
  on?: Partial<Record<string, (event: Event) => void>>;
  dataset?: Record<string, string>;
  attrs?: Record<string, string | number | boolean | null | undefined>;
  [prop: string]: unknown;
}

/** Elements given event listeners by h(): a page update replaces them rather than patching them
 * (their listeners close over the options they were built with). */
export const LISTENING = new WeakSet<Element>();

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    // for-in and index loops, not entries() and for-of: h() runs for every node of every view at
    // every edit, and those allocate where V8 has not optimised the caller (issue 14's garbage)
    for (const key in props) {
      const value = props[key];
      if (value === undefined || value === null) continue;
      if (key === 'class') el.className = String(value);
      else if (key === 'text') el.textContent = String(value);
      else if (key === 'on') {
        const on = value as Record<string, (e: Event) => void>;
        for (const type in on) {
          const fn = on[type];
          if (fn) { el.addEventListener(type, fn); LISTENING.add(el); }
        }
      } else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'attrs') {
        const attrs = value as Record<string, unknown>;
        for (const name in attrs) {
          const v = attrs[name];
          if (v === undefined || v === null || v === false) continue;
          el.setAttribute(name, v === true ? '' : String(v));
        }
      } else (el as unknown as Record<string, unknown>)[key] = value;
    }
  }
  append(el, children);
  return el;
}

/** While views are built to be patched into the page (views/patch.ts sets it): what to append
 * instead of `child` (a stand-in for a drawn node the view gives back again), or undefined. */
export const building: { standIn?: (child: Node) => Node | undefined } = {};

export function append(parent: Node, children: Child[]): void {
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(building.standIn?.(child) ?? child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

let uid = 0;
/** A page-unique id (for label/for and aria-describedby inside one shadow root). */
export function newId(prefix: string): string {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A box that scrolls a wide table sideways; focusable, so a keyboard can scroll it too. */
export function scrollBox(...children: Child[]): HTMLDivElement {
  return h('div', { class: 'scroll', attrs: { tabindex: '0' } }, ...children);
}
