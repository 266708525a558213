// The element's frame: its stylesheet and the panels the `controls` attribute asks for, laid out
// (the preset bar on top, the side panels, the main column with the results). views/inputs.ts and
// the element fill them. DOM only.
import css from '../styles.css?inline';
import { clear, h } from '../dom';

const PANELS = ['preset', 'algorithm', 'tensors', 'mask', 'options', 'prob', 'json'] as const;

let sharedSheet: CSSStyleSheet | null = null;
/** The styles so far: the first load's, then the lazily loaded views' (addStyles). */
let text = css;
/** The <style>s of elements where no constructable sheet can be made (addStyles updates them). */
const fallbacks = new Set<HTMLStyleElement>();

/** The stylesheet, shared by every element; a <style> where no constructable sheet can be made. */
export function adoptStyles(root: ShadowRoot): void {
  try {
    sharedSheet ??= new CSSStyleSheet();
    if (sharedSheet.cssRules.length === 0) sharedSheet.replaceSync(text);
    root.adoptedStyleSheets = [sharedSheet];
  } catch {
    const style = h('style', { text });
    fallbacks.add(style);
    root.append(style);
  }
}

/** Rules added to every element's styles (the lazily loaded views', views/view-styles.ts). */
export function addStyles(more: string): void {
  text += more;
  sharedSheet?.replaceSync(text);
  for (const style of fallbacks) style.textContent = text;
}

/** Replaces an element's children. */
export function fill(el: HTMLElement | null, children: readonly Node[]): void {
  if (!el) return;
  clear(el);
  el.append(...children);
}

/** The panel `name` (data-panel), if it is shown. The panels are children of the app, its side and
 * its main column, looked at first: a selector walks every node of the page (an edit asks for
 * several panels, one of which most presets do not have). */
export function part(root: ShadowRoot, name: string): HTMLElement | null {
  const child = (el: ParentNode | null | undefined, test: (c: HTMLElement) => boolean): HTMLElement | null => {
    for (let c = el?.firstElementChild; c; c = c.nextElementSibling) if (test(c as HTMLElement)) return c as HTMLElement;
    return null;
  };
  const app = child(root, (c) => c.classList.contains('app')), body = child(app, (c) => c.classList.contains('body'));
  for (const box of [app, child(body, (c) => c.classList.contains('main')), child(body, (c) => c.classList.contains('side'))]) {
    const found = child(box, (c) => c.dataset.panel === name);
    if (found) return found;
  }
  return root.querySelector(`[data-panel="${name}"]`);
}

/** Closed until opened: the deep dives no preset is about (the others are the algorithm's own view). */
const CLOSED = ['scale', 'complexity'];

/** Whether the named section is open: the user's choice kept by the element, else unless it is a
 * deep dive no preset is about. */
export const isOpen = (name: string, open: ReadonlyMap<string, boolean>): boolean => open.get(name) ?? !CLOSED.includes(name);

/** The view `el` as a named section below the flow (<details>, its heading the summary), named by
 * its data-field without "-view" (docs/page.md); null where `controls` hides it (`-name`, or `flow`:
 * the flow alone). Open: the user's choice kept by the element, else unless a deep dive no preset is about. */
export function section(el: HTMLElement, controls: string | null, open: ReadonlyMap<string, boolean>): HTMLElement | null {
  const name = (el.dataset.field ?? '').replace(/-view$/, '');
  const words = controls?.split(/[\s,]+/) ?? [];
  if (words.includes('flow') || words.includes(`-${name}`)) return null;
  const head = el.querySelector(':scope > h3');
  head?.classList.add('dive-head');
  return h('details', { class: 'dive', open: isOpen(name, open), dataset: { dive: name } },
    h('summary', null, h('h3', { text: head?.textContent ?? name })), el);
}

/** The panels of the `controls` attribute (empty, missing or "all": every one), empty, in `app`. */
export function layout(app: HTMLElement, controls: string | null): void {
  const words = controls?.split(/[\s,]+/) ?? [];
  // every panel: no attribute, empty, or `all` (with a section's `-name`, say)
  const all = controls === null || controls.trim() === '' || words.includes('all');
  const shown = new Set(all ? PANELS : PANELS.filter((p) => words.includes(p)));
  clear(app);
  if (shown.has('preset')) app.append(h('header', { class: 'top', dataset: { panel: 'preset' } }));
  const side = h('aside', { class: 'side' });
  const main = h('div', { class: 'main' });
  for (const p of ['algorithm', 'mask', 'options'] as const) {
    if (shown.has(p)) side.append(h('section', { class: `panel panel-${p}`, dataset: { panel: p } }));
  }
  main.append(h('div', { class: 'slicebar', dataset: { panel: 'slice' } }));
  if (shown.has('tensors')) main.append(h('section', { class: 'panel panel-tensors', dataset: { panel: 'tensors' } }));
  main.append(h('section', { class: 'panel panel-results', dataset: { panel: 'results' },
    attrs: { 'aria-live': 'polite' } }));
  if (shown.has('prob')) main.append(h('section', { class: 'panel panel-prob', dataset: { panel: 'prob' } },
    h('div', { class: 'prob-controls' }), h('div', { class: 'prob-body' })));
  if (shown.has('json')) main.append(h('details', { class: 'panel panel-json', dataset: { panel: 'json' } }));
  app.append(h('div', { class: side.childElementCount ? 'body' : 'body single' }, side.childElementCount ? side : null, main));
}
