// A drawn table map's numbers change inside blocks of fixed size (issue 14: edit latency).
//
// When a number of a table changes, the browser lays out the whole table again: its column widths
// from every cell, then every row (mla-q-lora: 2.3 of an edit's 7 ms, for ~140 changed numbers).
// A cell's number in a block of fixed size with `contain: size layout` is a layout boundary: a new
// number is laid out inside its block, and the table is left as it is (0.3 ms). So in idle time
// after a map is drawn, each column's width is measured and kept (a min-width on its first cell),
// and every number becomes such a block, as wide as its cell (the table looks as before). After an
// update, a number wider than its block (a longer one) has its table measured again in idle time;
// a column whose numbers got narrower keeps its width until then (the table does not jump while
// one types). A table that `content-visibility: auto` skips is let go (measuring it would lay out
// what the browser skips).

type Spans = readonly (readonly HTMLElement[])[];

/** Tables drawn or updated since the last idle pass, with their number spans (rows x columns);
 * legends (held at their height), with null. */
const pending = new Map<HTMLElement, Spans | null>();
let scheduled = false;

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  const idle = globalThis.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 50));
  idle(settle, { timeout: 500 });
}

/** Checks `table`'s numbers in idle time: their blocks are fitted if they are not (first draw,
 * or a number outgrew its block). `spans[i][j]` is the element holding cell (i, j)'s number. */
export function holdCells(table: HTMLTableElement, spans: Spans): void {
  pending.set(table, spans);
  schedule();
}

/** Checks a map's legend in idle time: held at its height (its width is its map's already,
 * styles.css), fitted again when its numbers no longer fit (a longer range, a narrower page). */
export function holdHeight(legend: HTMLElement): void {
  pending.set(legend, null);
  const host = (legend.getRootNode() as ShadowRoot).host;
  if (host && !watched.has(host)) watchWidth(host);
  schedule();
}

/** The legends held at a height: a narrower page wraps them further. */
const heldLegends = new Set<HTMLElement>();
const watched = new WeakSet<Element>();

/** When the element's width changes (the window, a phone turned, the page that embeds it), its
 * legends are let go and fitted again in idle time. */
function watchWidth(host: Element): void {
  watched.add(host);
  if (typeof ResizeObserver === 'undefined') return;
  let width = -1;
  new ResizeObserver((entries) => {
    const w = entries[entries.length - 1].contentRect.width;
    if (width >= 0 && w !== width) {
      for (const el of heldLegends) {
        release(el, null);
        if (el.isConnected) pending.set(el, null);
      }
      schedule();
    }
    width = w;
  }).observe(host);
}

const visible = (el: HTMLElement): boolean =>
  el.checkVisibility ? el.checkVisibility({ contentVisibilityAuto: true }) : el.offsetParent !== null;

function release(el: HTMLElement, spans: Spans | null): void {
  el.classList.remove('held');
  if (spans) for (const s of spans[0] ?? []) s.parentElement?.style.removeProperty('min-width');
  else {
    el.style.removeProperty('height');
    heldLegends.delete(el);
  }
}

const overflows = (el: HTMLElement) => el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;

/** One idle pass: reads (the layout is clean after a frame), writes, one layout for the elements
 * measured, writes. */
function settle(): void {
  scheduled = false;
  const away: [HTMLElement, Spans | null][] = [];
  const refit: [HTMLElement, Spans | null][] = [];
  for (const [el, spans] of pending) {
    if (!el.isConnected) continue;
    const held = el.classList.contains('held');
    if (!visible(el)) { if (held) away.push([el, spans]); continue; }
    if (!held || (spans ? spans.some((row) => row.some((s) => s.scrollWidth > s.clientWidth)) : overflows(el))) refit.push([el, spans]);
  }
  pending.clear();
  for (const el of heldLegends) if (!el.isConnected) heldLegends.delete(el);
  for (const [el, spans] of [...away, ...refit]) release(el, spans);
  // each column's width as laid out without the blocks (a column is as wide as its widest cell);
  // a legend's height
  const sizes = refit.map(([el, spans]) => {
    // client rects are scaled by a transform (a page that embeds the element scaled): in CSS px
    // (offsetWidth is rounded to a pixel: a ratio within 2% of 1 is no transform)
    const rect = el.getBoundingClientRect();
    const ratio = el.offsetWidth ? rect.width / el.offsetWidth : 1;
    const scale = ratio > 0 && Math.abs(ratio - 1) > 0.02 ? ratio : 1;
    if (!spans) return [rect.height / scale];
    return (spans[0] ?? []).map((s) => (s.parentElement?.getBoundingClientRect().width ?? 0) / scale);
  });
  refit.forEach(([el, spans], k) => {
    const size = sizes[k];
    if (!size.some((x) => x > 0)) return;  // not laid out (a closed section): left as it is
    // the first row's cells keep the columns' widths (a cell has its own style already, its colour)
    if (spans) (spans[0] ?? []).forEach((s, j) => s.parentElement?.style.setProperty('min-width', `${size[j]}px`));
    else {
      el.style.setProperty('height', `${size[0]}px`);
      heldLegends.add(el);
    }
    el.classList.add('held');
  });
}
