// A tensor given as a seeded draw (SPEC §2: {shape, random, seed, scale}), a chunk of its own: its
// distribution, seed and scale as controls, its numbers (the core's, Session.written) shown read-only
// where the slice is small, and "Write out as numbers" at toy sizes, which makes them the scenario's
// own numbers to edit. The scenario (and so the link) keeps the draw, not its numbers. DOM only:
// changes go out through `set`.
import { h } from '../dom';
import { isDraw, isFlat, nested, type Scenario } from '../engine/compute';
import { t, tx, type Lang, type Text } from '../i18n';
import type { Session } from '../state';
import type { tensorEditor } from './grid-editor';

/** A draw of at most this many numbers can be written out as numbers (then edited cell by cell). */
export const WRITE_OUT_MAX = 4096;
/** The drawn (b, h) slice is shown up to this many cells. */
const SHOW_MAX = 1024;

const T = {
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
  /** Tensor `name` becomes `value` (a draw, or nested numbers). */
  set: (name: string, value: unknown) => void;
}

/** Fills every draw slot (views/panels.ts drawSlot) whose tensor is a draw. */
export function mountDraws(panel: HTMLElement, o: DrawsOptions): void {
  const s = o.session.scenario;
  for (const slot of panel.querySelectorAll<HTMLElement>('[data-draw]')) {
    const name = slot.dataset.draw!;
    if (isDraw(s[name])) slot.replaceChildren(...drawBox(name, slot.dataset.title ?? name, s, o));
  }
}

function drawBox(name: string, title: string, s: Scenario, o: DrawsOptions): HTMLElement[] {
  const { lang, session } = o;
  const spec = s[name] as { shape: number[]; random: string; seed?: number; scale?: number };
  const shape = Array.isArray(spec.shape) ? spec.shape : [];
  const total = shape.reduce((a, b) => a * b, 1);
  const change = (key: 'random' | 'seed' | 'scale', value: unknown) => o.set(name, { ...spec, [key]: value });

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
  const drawn = session.written()[name]; // the core's numbers (not yet while the whole module loads)
  const writeOut = h('button', { type: 'button', class: 'small', text: tx(lang, T.writeOut), title: tx(lang, T.writeOutHelp),
    dataset: { key: `${name}.random.write` }, disabled: total > WRITE_OUT_MAX || !isFlat(drawn) });
  writeOut.addEventListener('click', () => { if (isFlat(drawn)) o.set(name, nested(drawn)); });
  const row = h('div', { class: 'row draw-controls' },
    h('label', { class: 'field', dataset: { field: `${name}.random` } }, h('span', { text: tx(lang, T.random) }), kind),
    number('seed', spec.seed ?? 0, '1'), number('scale', spec.scale ?? 1, 'any'), writeOut);

  const help = h('p', { class: 'help', text: fill(tx(lang, T.drawn), { random: spec.random, seed: spec.seed ?? 0, scale: spec.scale ?? 1,
    n: total.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en') }) + (total > WRITE_OUT_MAX ? ' ' + fill(tx(lang, T.tooMany), { n: WRITE_OUT_MAX }) : '') });

  // the (b, h) slice read-only: (B, L, H, E) at head h, (B, L, d) without
  const rows = shape[1] ?? 0, cols = shape[shape.length - 1] ?? 0;
  let grid: HTMLElement;
  if (isFlat(drawn) && rows * cols <= SHOW_MAX) {
    grid = o.tensorEditor({ name, title, tensor: nested(drawn), b: session.b, h: shape.length === 4 ? session.h : null,
      rowPrefix: name.length === 1 ? name : name[0], colPrefix: name === 'v' ? 'd' : shape.length === 4 ? 'e' : 'f',
      invalid: session.invalid, tooLarge: t(lang, 'tooLargeEdit'), onEdit: () => {}, readOnly: true });
  } else {
    grid = h('figure', { class: 'editor', dataset: { tensor: name } },
      h('figcaption', null, h('span', { class: 'fig-title', text: title }), h('span', { class: 'fig-caption', text: shape.join(' × ') })),
      h('p', { class: 'note', text: isFlat(drawn) ? fill(tx(lang, T.hidden), { rows, cols }) : '' }));
  }
  grid.classList.add('drawn');
  return [grid, row, help];
}
