// The first load's part of "every number explains itself" (SPEC §1): one set of delegated
// listeners on the element's shadow root. The first hover, focus or tap of a map cell (or of a
// canvas map, or a map's scroll box) loads views/explain-panel.ts, which takes every event after it.
type Panel = typeof import('./explain-panel');

const TYPES = ['pointerover', 'pointerout', 'mousemove', 'pointerdown', 'focusin', 'focusout', 'click', 'keydown'];

export function explainHook(root: ShadowRoot): void {
  let panel: Panel | null = null;
  let loading = false;
  const on = (e: Event): void => {
    if (panel) return panel.handle(root, e);
    const t = e.target;
    if (loading || !(t instanceof Element) || !/^(pointerover|focusin|click)$/.test(e.type)
      || !t.closest('figure[data-field] :is(td[data-index],canvas,.scroll)')) return;
    loading = true;
    // e.target is cleared once the event leaves the shadow tree: the target goes with it
    import('./explain-panel').then((m) => { panel = m; m.handle(root, e, t); }, () => { loading = false; });
  };
  for (const type of TYPES) root.addEventListener(type, on);
}
