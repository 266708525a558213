// Editable grids: one (b, h) slice of a (B, L, H, E) tensor as text inputs, the explicit mask's
// clickable allowed grid, and valid_lens. DOM only: edits are reported through callbacks.
import { h, scrollBox } from '../dom';
import { at, fmt, range } from '../format';
import { pathText } from '../state';

/** Up to L = 64 at E = 16: an edit re-renders the results only, never the grids (issue 8). */
const MAX_EDIT_CELLS = 1024;

export interface TensorEditorOptions {
  name: string;          // 'q' | 'k' | 'v', 'queries', 'weights.W_q'
  title: string;
  tensor: unknown;       // (B, L, H, E) nested; (B, L, d) without h; (rows, cols) or (n) with `matrix`
  b: number;
  /** The head of a (B, L, H, E) tensor; null for a (B, L, d) one. */
  h: number | null;
  /** A weight: the whole (rows, cols) matrix, a vector as one row. */
  matrix?: boolean;
  /** Over this many numbers the grid is not drawn: `tooLarge` says so (default 1024). */
  max?: number;
  rowPrefix: string;     // row labels: q0, q1, ... / k0, ...
  colPrefix: string;     // column labels: e0 / d0
  /** Invalid cells: path -> message. */
  invalid: ReadonlyMap<string, string>;
  tooLarge: string;
  onEdit: (path: number[], text: string) => void;
}

export function tensorEditor(o: TensorEditorOptions): HTMLElement {
  const vector = o.matrix === true && !Array.isArray(at(o.tensor, [0]));
  const rows = (o.matrix ? (vector ? [o.tensor] : o.tensor) : at(o.tensor, [o.b])) as unknown[] | undefined ?? [];
  const first = o.matrix ? rows[0] : at(o.tensor, o.h === null ? [o.b, 0] : [o.b, 0, o.h]);
  const cols = ((first as unknown[] | undefined) ?? []).length;
  const pathOf = (i: number, j: number) => (o.matrix ? (vector ? [j] : [i, j]) : o.h === null ? [o.b, i, j] : [o.b, i, o.h, j]);
  const fig = h('figure', { class: 'editor', dataset: { tensor: o.name } },
    h('figcaption', null, h('span', { class: 'fig-title', text: o.title }),
      h('span', { class: 'fig-caption', text: vector ? String(cols) : `${rows.length} × ${cols}` })));
  if (rows.length * cols > (o.max ?? MAX_EDIT_CELLS)) {
    fig.append(h('p', { class: 'note', text: o.tooLarge }));
    return fig;
  }
  const table = h('table', { class: 'grid edit' });
  const head = h('tr', null, h('td', { class: 'corner' }));
  for (const j of range(cols)) head.append(h('th', { attrs: { scope: 'col' }, text: `${o.colPrefix}${j}` }));
  table.append(h('thead', null, head));
  const body = h('tbody');
  rows.forEach((_, i) => {
    const tr = h('tr', null, h('th', { attrs: { scope: 'row' }, text: vector ? o.rowPrefix : `${o.rowPrefix}${i}` }));
    for (const j of range(cols)) {
      const path = pathOf(i, j);
      const key = pathText(o.name, path);
      const value = at(o.tensor, path);
      const bad = o.invalid.get(key);
      const input = h('input', {
        type: 'text', value: typeof value === 'number' ? String(value) : fmt(value), spellcheck: false,
        attrs: { inputmode: 'decimal', autocomplete: 'off', 'aria-label': key, 'aria-invalid': bad ? 'true' : null },
        dataset: { key, path: key },
      });
      input.addEventListener('input', () => o.onEdit(path, input.value));
      input.addEventListener('keydown', (e: KeyboardEvent) => {
        if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
        const x = Number(input.value);
        if (!Number.isFinite(x)) return;
        e.preventDefault();
        const step = e.shiftKey ? 0.1 : 1;
        input.value = String(Math.round((x + (e.key === 'ArrowUp' ? step : -step)) * 1e9) / 1e9);
        o.onEdit(path, input.value);
      });
      tr.append(h('td', null, input));
    }
    body.append(tr);
  });
  table.append(body);
  fig.append(scrollBox(table));
  return fig;
}

export interface AllowedEditorOptions {
  allowed: unknown;      // (L_Q, L_K) booleans
  title: string;
  onToggle: (i: number, j: number) => void;
}

export function allowedEditor(o: AllowedEditorOptions): HTMLElement {
  const rows = Array.isArray(o.allowed) ? (o.allowed as unknown[][]) : [];
  const cols = rows.length ? rows[0].length : 0;
  const table = h('table', { class: 'grid toggles' });
  const head = h('tr', null, h('td', { class: 'corner' }));
  for (const j of range(cols)) head.append(h('th', { attrs: { scope: 'col' }, text: `k${j}` }));
  table.append(h('thead', null, head));
  const body = h('tbody');
  rows.forEach((row, i) => {
    const tr = h('tr', null, h('th', { attrs: { scope: 'row' }, text: `q${i}` }));
    row.forEach((v, j) => {
      const on = v === true;
      const key = `mask.allowed[${i}][${j}]`;
      tr.append(h('td', null, h('button', {
        type: 'button', class: on ? 'on' : 'off', text: on ? '✓' : '·',
        attrs: { 'aria-pressed': String(on), 'aria-label': `${key}: ${on ? 'allowed' : 'masked'}` },
        dataset: { key },
        on: { click: () => o.onToggle(i, j) },
      })));
    });
    body.append(tr);
  });
  table.append(body);
  return h('figure', { class: 'editor allowed-editor', dataset: { tensor: 'mask.allowed' } },
    h('figcaption', null, h('span', { class: 'fig-title', text: o.title })), scrollBox(table));
}

export interface LensEditorOptions {
  lens: unknown;         // (B) or (B, L_Q) ints
  title: string;
  L_K: number;
  perQueryLabel: string;
  invalid: ReadonlyMap<string, string>;
  onEdit: (path: number[], text: string) => void;
  onTwoD: (twoD: boolean) => void;
}

export function lensEditor(o: LensEditorOptions): HTMLElement {
  const lens = Array.isArray(o.lens) ? o.lens : [];
  const twoD = Array.isArray(lens[0]);
  const rows: unknown[][] = twoD ? (lens as unknown[][]) : [lens];
  const table = h('table', { class: 'grid edit lens' });
  const cols = rows[0]?.length ?? 0;
  const head = h('tr', null, twoD ? h('th', { class: 'corner', text: 'b \\ i' }) : h('td', { class: 'corner' }));
  for (const j of range(cols)) head.append(h('th', { attrs: { scope: 'col' }, text: twoD ? `q${j}` : `b${j}` }));
  table.append(h('thead', null, head));
  const body = h('tbody');
  rows.forEach((row, r) => {
    const tr = h('tr', null, h('th', { attrs: { scope: 'row' }, text: twoD ? `b${r}` : 'len' }));
    row.forEach((v, j) => {
      const path = twoD ? [r, j] : [j];
      const key = pathText('mask.valid_lens', path);
      const input = h('input', {
        type: 'number', min: '0', max: String(o.L_K), step: '1', value: String(v),
        attrs: { 'aria-label': key, 'aria-invalid': o.invalid.has(key) ? 'true' : null }, dataset: { key },
      });
      input.addEventListener('input', () => o.onEdit(path, input.value));
      tr.append(h('td', null, input));
    });
    body.append(tr);
  });
  table.append(body);
  const check = h('input', { type: 'checkbox', checked: twoD, dataset: { key: 'mask.valid_lens.2d' } });
  check.addEventListener('change', () => o.onTwoD(check.checked));
  return h('figure', { class: 'editor lens-editor', dataset: { tensor: 'mask.valid_lens' } },
    h('figcaption', null, h('span', { class: 'fig-title', text: o.title })),
    scrollBox(table),
    h('label', { class: 'check' }, check, ' ', o.perQueryLabel));
}
