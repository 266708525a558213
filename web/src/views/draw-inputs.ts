// Seeded draws (SPEC §2: {shape, random, seed, scale}) on the page, a chunk of its own (loaded after
// the first trace): "Random, seeded" beside each tensor's grid, which makes it a draw of its shape;
// a tensor given as a draw shows its distribution, seed and scale as controls, its numbers (the
// core's, state/draws.ts) read-only where the slice is small, and "Write out as numbers" at toy
// sizes, which makes them the scenario's own numbers to edit; when every tensor is drawn, the size
// bar takes typed sizes (L = 4096 in a short link). The scenario (and so the link) keeps the draw,
// not its numbers. DOM only: changes go out through `set` and `resize`.
import { h } from '../dom';
import { grouped } from '../format';
import { isDraw, isFlat, nested, shapeOf, type Scenario } from '../engine/compute';
import { t, tx, type Lang, type Text } from '../i18n';
import { PROP, dims, traits, type DimName, type Session } from '../state';
import { canDraw, drawing, drawn as drawnOf } from '../engine/draws';
import type { tensorEditor } from './grid-editor';

/** A draw of at most this many numbers can be written out as numbers (then edited cell by cell). */
export const WRITE_OUT_MAX = 4096;
/** The drawn (b, h) slice is shown up to this many cells. */
const SHOW_MAX = 1024;

/** Sizes a seeded draw may take (the core's kMaxDimension): typed into the size bar when every tensor is drawn. */
const DRAWN_DIM_MAX = 65536;

const T = {
  make: { en: 'Random, seeded', zh: '随机（种子）' },
  makeHelp: { en: 'Draw this tensor from a seed (normal or uniform): the link stores the seed, not the numbers',
    zh: '由种子生成这个张量（正态或均匀分布）：链接只保存种子，不保存数值' },
  random: { en: 'distribution', zh: '分布' },
  normal: { en: 'normal (mean 0, std. scale)', zh: '正态（均值 0，标准差 scale）' },
  uniform: { en: 'uniform on [−scale, scale)', zh: '均匀分布 [−scale, scale)' },
  seed: { en: 'seed', zh: '种子' },
  scale: { en: 'scale', zh: '尺度 scale' },
  writeOut: { en: 'Write out as numbers', zh: '写成数值' },
  writeOutHelp: { en: 'Replace the draw by its numbers, to edit them cell by cell (the link then holds every number)',
    zh: '用其数值替换此随机生成，以便逐格编辑（链接随之保存全部数值）' },
  tooMany: { en: 'Over {n} numbers: it stays a draw (the link holds its seed, not its numbers).',
    zh: '超过 {n} 个数：保持为随机生成（链接只保存种子，不保存数值）。' },
  drawn: { en: 'Drawn by the core ({random}, seed {seed}, scale {scale}; SplitMix64, row-major): the link stores these, not the {n} numbers.',
    zh: '由核心生成（{random}，种子 {seed}，scale {scale}；SplitMix64，行优先）：链接只保存这些参数，而非 {n} 个数值。' },
  hidden: { en: 'Too many to show as a grid ({rows} × {cols} per slice).', zh: '太多，无法以网格显示（每个切片 {rows} × {cols}）。' },
} satisfies Record<string, Text>;

const fill = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ''));

export interface DrawsOptions {
  /** The page's grid editor, lent by views/inputs.ts (imported here it would leave the first load). */
  tensorEditor: typeof tensorEditor;
  session: Session;
  lang: Lang;
  /** After an edit of the session (views/inputs.ts). */
  edited: (ok: boolean, change?: 'inputs') => void;
}

/** Fills every draw slot: own-inputs.ts's (`.draw-slot[data-draw]`), and one made here in each
 * q/k/v box of views/panels.ts (before its error slot; none for a tied X): the draw's box where the
 * tensor is a draw, else the button that makes it one; with every tensor drawn, the size bar's
 * sizes typed. */
export function mountDraws(panel: HTMLElement, o: DrawsOptions): void {
  const s = o.session.scenario;
  let waiting = false;
  for (const box of panel.querySelectorAll<HTMLElement>('.editors > .editor-box')) {
    const error = box.querySelector<HTMLElement>(':scope > p.error[data-slot]');
    const name = error?.dataset.slot;
    if (!error || !name || !PROP[name] || box.querySelector(':scope > .draw-slot') || (o.session.tied && name === 'q')) continue;
    box.insertBefore(h('div', { class: 'draw-slot', dataset: { draw: name, title: PROP[name].label[o.lang] } }), error);
  }
  for (const slot of panel.querySelectorAll<HTMLElement>('.draw-slot[data-draw]')) {
    const name = slot.dataset.draw!;
    if (!isDraw(s[name])) {
      const make = h('button', { type: 'button', class: 'small draw-make', text: tx(o.lang, T.make), title: tx(o.lang, T.makeHelp),
        dataset: { key: `${name}.random.make` }, on: { click: () => set(o, name, newDraw(s, name)) } });
      // on the grid's caption line, beside its size (a row of its own pushed the results down)
      const caption = slot.parentElement?.querySelector<HTMLElement>(':scope > figure.editor > figcaption');
      caption?.querySelector(':scope > .draw-make')?.remove();
      if (caption) caption.append(make);
      slot.replaceChildren(...(caption ? [] : [make]));
      continue;
    }
    const box = drawBox(name, slot.dataset.title ?? name, s, o);
    waiting ||= box.waiting;
    slot.replaceChildren(...box.nodes);
  }
  typedSizes(panel, s, o);
  // the numbers come with the whole module: shown once it is there
  if (waiting) void drawing().then(() => { if (panel.isConnected && o.session.scenario === s) mountDraws(panel, o); });
}

/** Tensor `name` becomes `value` (a draw, or nested numbers). */
function set(o: DrawsOptions, name: string, value: unknown): void {
  o.session.setProp(name, value);
  o.edited(true, 'inputs');
}

/** "Random, seeded" on tensor `name`: a standard normal draw of its shape, seeded by its place among
 * the scenario's tensors (q 1, k 2, v 3: different numbers each). */
function newDraw(s: Scenario, name: string): Scenario {
  const names: readonly string[] = traits(s).grids?.map((g) => g.key) ?? traits(s).tensors;
  return { shape: shapeOf(s[name]), random: 'normal', seed: names.indexOf(name) + 1, scale: 1 };
}

/** Every tensor drawn: the size bar's − n + become typed sizes, up to the core's limit. */
function typedSizes(panel: HTMLElement, s: Scenario, o: DrawsOptions): void {
  const tr = traits(s);
  const names = tr.grids ? tr.grids.map((g) => g.key) : tr.tensors;
  if (!names.every((n) => s[n] === undefined || isDraw(s[n]))) return;
  const d = dims(s);
  for (const span of panel.querySelectorAll<HTMLElement>('.dims > .dim[data-dim]')) {
    const name = span.dataset.dim as DimName;
    if (d[name] === undefined) continue;
    const label = tr.dimLabels?.[name] ?? name;
    const input = h('input', { type: 'number', min: '1', max: String(DRAWN_DIM_MAX), step: '1', value: String(d[name]),
      dataset: { key: `dim.${name}` }, attrs: { 'aria-label': label } });
    let applied = false; // once: the redraw removes the focused input, whose blur fires change again
    input.addEventListener('change', () => {
      const n = Number(input.value);
      if (applied) return;
      if (Number.isInteger(n) && n >= 1 && n <= DRAWN_DIM_MAX && n !== d[name]) { applied = true; o.session.resize(name, n); o.edited(true, 'inputs'); }
      else input.value = String(d[name]);
    });
    span.replaceWith(h('label', { class: 'dim', dataset: { dim: name } }, h('span', { class: 'dim-name', text: label }), input));
  }
}

function drawBox(name: string, title: string, s: Scenario, o: DrawsOptions): { nodes: HTMLElement[]; waiting: boolean } {
  const { lang, session } = o;
  const spec = s[name] as { shape: number[]; random: string; seed?: number; scale?: number };
  const shape = Array.isArray(spec.shape) ? spec.shape : [];
  const total = shape.reduce((a, b) => a * b, 1);
  const change = (key: 'random' | 'seed' | 'scale', value: unknown) => set(o, name, { ...spec, [key]: value });

  const kind = h('select', { dataset: { key: `${name}.random` }, attrs: { 'aria-label': `${name}: ${tx(lang, T.random)}` } },
    ...(['normal', 'uniform'] as const).map((k) => h('option', { value: k, text: tx(lang, T[k]), selected: spec.random === k })));
  kind.addEventListener('change', () => change('random', kind.value));
  const number = (key: 'seed' | 'scale', value: number, step: string) => {
    const input = h('input', { type: 'number', min: '0', step, value: String(value), dataset: { key: `${name}.${key}` },
      attrs: { 'aria-label': `${name}: ${tx(lang, T[key])}` } });
    // on change, not on each keystroke: a draw at L = 4096 runs again for each value
    let applied = false; // once: the redraw removes the focused input, whose blur fires change again
    input.addEventListener('change', () => {
      const n = Number(input.value);
      if (applied) return;
      if (input.value.trim() === '' || !Number.isFinite(n)) input.value = String(value);
      else if (n !== value) { applied = true; change(key, n); }
    });
    return h('label', { class: 'field', dataset: { field: `${name}.${key}` } }, h('span', { text: tx(lang, T[key]) }), input);
  };
  // the (b, h) slice read-only: (B, L, H, E) at head h, (B, L, d) without
  const rows = shape[1] ?? 0, cols = shape[shape.length - 1] ?? 0;
  // the core's numbers (null while the whole module loads, or on an error), drawn only where they
  // are shown or can be written out: an L = 4096 draw is not made on the main thread for nothing
  // (issue 18, part 4: 0.2 s for q, k and v; the run's workers draw their own)
  const needed = rows * cols <= SHOW_MAX || total <= WRITE_OUT_MAX;
  const drawn = needed ? drawnOf(spec, name) : null;
  const writeOut = h('button', { type: 'button', class: 'small', text: tx(lang, T.writeOut), title: tx(lang, T.writeOutHelp),
    dataset: { key: `${name}.random.write` }, disabled: total > WRITE_OUT_MAX || !isFlat(drawn) });
  writeOut.addEventListener('click', () => { if (isFlat(drawn)) set(o, name, nested(drawn)); });
  const row = h('div', { class: 'row draw-controls' },
    h('label', { class: 'field', dataset: { field: `${name}.random` } }, h('span', { text: tx(lang, T.random) }), kind),
    number('seed', spec.seed ?? 0, '1'), number('scale', spec.scale ?? 1, 'any'), writeOut);

  const help = h('p', { class: 'help', text: fill(tx(lang, T.drawn), { random: spec.random, seed: spec.seed ?? 0, scale: spec.scale ?? 1,
    n: grouped(total) }) + (total > WRITE_OUT_MAX ? ' ' + fill(tx(lang, T.tooMany), { n: WRITE_OUT_MAX }) : '') });

  let grid: HTMLElement;
  if (isFlat(drawn) && rows * cols <= SHOW_MAX) {
    grid = o.tensorEditor({ name, title, tensor: nested(drawn), b: session.b, h: shape.length === 4 ? session.h : null,
      rowPrefix: name.length === 1 ? name : name[0], colPrefix: name === 'v' ? 'd' : shape.length === 4 ? 'e' : 'f',
      invalid: session.invalid, tooLarge: t(lang, 'tooLargeEdit'), onEdit: () => {} });
    for (const input of grid.querySelectorAll('input')) input.readOnly = true; // shown, not edited
  } else {
    grid = h('figure', { class: 'editor', dataset: { tensor: name } },
      h('figcaption', null, h('span', { class: 'fig-title', text: title }), h('span', { class: 'fig-caption', text: shape.join(' × ') })),
      h('p', { class: 'note', text: isFlat(drawn) || !needed ? fill(tx(lang, T.hidden), { rows, cols }) : '' }));
  }
  grid.classList.add('drawn');
  return { nodes: [grid, row, help], waiting: needed && drawn === null && !canDraw() };
}
