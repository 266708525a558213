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

/** Tables drawn or updated since the last idle pass, with their number spans (rows x columns). */
const pending = new Map<HTMLTableElement, readonly (readonly HTMLElement[])[]>();
let scheduled = false;

/** Checks `table`'s numbers in idle time: their blocks are fitted if they are not (first draw,
 * or a number outgrew its block). `spans[i][j]` is the element holding cell (i, j)'s number. */
export function holdCells(table: HTMLTableElement, spans: readonly (readonly HTMLElement[])[]): void {
  pending.set(table, spans);
  if (scheduled) return;
  scheduled = true;
  const idle = globalThis.requestIdleCallback ?? ((f: () => void) => setTimeout(f, 50));
  idle(settle, { timeout: 500 });
}

const visible = (el: HTMLElement): boolean =>
  el.checkVisibility ? el.checkVisibility({ contentVisibilityAuto: true }) : el.offsetParent !== null;

function release(table: HTMLTableElement, spans: readonly (readonly HTMLElement[])[]): void {
  table.classList.remove('held');
  for (const s of spans[0] ?? []) s.parentElement?.style.removeProperty('min-width');
}

/** One idle pass: reads (the layout is clean after a frame), writes, one layout for the tables
 * measured, writes. */
function settle(): void {
  scheduled = false;
  const away: [HTMLTableElement, readonly (readonly HTMLElement[])[]][] = [];
  const refit: [HTMLTableElement, readonly (readonly HTMLElement[])[]][] = [];
  for (const [table, spans] of pending) {
    if (!table.isConnected) continue;
    const held = table.classList.contains('held');
    if (!visible(table)) { if (held) away.push([table, spans]); continue; }
    if (!held || spans.some((row) => row.some((s) => s.scrollWidth > s.clientWidth))) refit.push([table, spans]);
  }
  pending.clear();
  for (const [table, spans] of [...away, ...refit]) release(table, spans);
  // each column's width, as laid out without the blocks (a column is as wide as its widest cell)
  const widths = refit.map(([table, spans]) => {
    // client rects are scaled by a transform (a page that embeds the element scaled): in CSS px
    const scale = table.offsetWidth ? table.getBoundingClientRect().width / table.offsetWidth : 1;
    return (spans[0] ?? []).map((s) => (s.parentElement?.getBoundingClientRect().width ?? 0) / (scale || 1));
  });
  refit.forEach(([table, spans], k) => {
    const w = widths[k];
    if (!w.some((x) => x > 0)) return;  // not laid out (a closed section): left as it is
    // the first row's cells keep the columns' widths (a cell has its own style already, its colour)
    (spans[0] ?? []).forEach((s, j) => s.parentElement?.style.setProperty('min-width', `${w[j]}px`));
    table.classList.add('held');
  });
}
