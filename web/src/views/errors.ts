// Errors beside what they are about. Each error has a field path (the core's Error.field, or the
// key of a control whose text did not read): it is shown beside the nearest control or error slot
// that the path or one of its parents names ("q[0][1][0]" -> the q grid's slot, "mask.window" ->
// that control), else in the slot of its property's panel, else in the general slot above the
// results. The inputs it names are marked aria-invalid. DOM only.
import { h } from '../dom';
import { PROP, parentPaths, type FieldError } from '../state';

/** An empty error slot; `name` is a field path (q, k, v, mask, json), a panel or "general". */
export function errorSlot(name: string): HTMLElement {
  return h('p', { class: 'error', hidden: true, dataset: { slot: name }, attrs: { role: 'alert' } });
}

const shownIn = (el: Element | null) => el !== null && !el.closest('[hidden]');

/** The slot for an error about `field`: made beside a control that the path names, when there is one. */
function slotFor(root: ShadowRoot, field: string): string {
  for (const path of parentPaths(field)) {
    const control = root.querySelector(`.field[data-field="${CSS.escape(path)}"]`);
    if (shownIn(control)) {
      const name = 'field:' + path;
      if (!root.querySelector(`[data-slot="${CSS.escape(name)}"]`)) control!.after(errorSlot(name));
      return name;
    }
    for (const name of [path, PROP[path]?.panel]) {
      const slot = name ? root.querySelector(`[data-slot="${CSS.escape(name)}"]`) : null;
      if (slot && shownIn(slot.parentElement)) return name!;
    }
  }
  return 'general';
}

/** The roots whose last showErrors had no error to show and nothing stale. */
const CLEAN = new WeakSet<ShadowRoot>();

/** Shows every error in its slot (data-fields lists the fields it shows), marks the inputs they
 * name aria-invalid, and marks the results stale (the last good ones) while there is an error. */
export function showErrors(root: ShadowRoot, errors: readonly FieldError[], stale: boolean): void {
  // no error now and none shown before: nothing to clear (slots and notes are built hidden and
  // empty); an edit at L = 64 would otherwise walk its 7,000 nodes three times for nothing
  const clean = errors.length === 0 && !stale;
  if (clean && CLEAN.has(root)) return;
  if (clean) CLEAN.add(root);
  else CLEAN.delete(root);
  for (const el of root.querySelectorAll('[data-slot^="field:"]')) el.remove();
  const bySlot = new Map<string, FieldError[]>();
  for (const e of errors) {
    const name = slotFor(root, e.field);
    bySlot.set(name, [...(bySlot.get(name) ?? []), e]);
  }
  for (const el of root.querySelectorAll<HTMLElement>('[data-slot]')) {
    const list = bySlot.get(el.dataset.slot!);
    el.hidden = !list;
    el.textContent = list ? list.map((e) => e.message).join('\n') : '';
    if (list) el.dataset.fields = list.map((e) => e.field).join(' ');
    else delete el.dataset.fields;
  }
  // the inputs the errors name: each error's own control and the cells under it (q -> q[0][1][0][2]),
  // looked up by key (a page at L = 64 has thousands of cells; most edits have no error)
  const named = new Set<Element>();
  for (const { field } of errors) {
    const key = CSS.escape(field);
    for (const el of root.querySelectorAll(`input[data-key="${key}"], select[data-key="${key}"], input[data-key^="${CSS.escape(field + '[')}"], select[data-key^="${CSS.escape(field + '[')}"]`)) named.add(el);
  }
  for (const el of root.querySelectorAll('[aria-invalid]')) {
    if (!named.has(el) && (el.tagName === 'INPUT' || el.tagName === 'SELECT') && (el as HTMLElement).dataset.key !== undefined) el.removeAttribute('aria-invalid');
  }
  for (const el of named) if (el.getAttribute('aria-invalid') !== 'true') el.setAttribute('aria-invalid', 'true');
  for (const panel of ['results', 'prob']) root.querySelector(`[data-panel="${panel}"]`)?.classList.toggle('stale', stale);
  const note = root.querySelector<HTMLElement>('.stale-note');
  if (note) note.hidden = !stale;
}
