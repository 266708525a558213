// The input panels, built from the scenario and the property table: the preset bar, the mask, the
// tensors with their size bar, the (b, h) selectors, ProbAttention's controls and the scenario
// JSON. DOM only: every change goes out through a callback.
import { h } from '../dom';
import { range, shapeOf } from '../format';
import { isDraw, type Preset, type Scenario } from '../engine/compute';
import { PITFALL_KEYS, PROP, THEMES, dimNames, dims, get, qkvEqual, traits, type DimName } from '../state';
import { presetDescription, t, zhTitle, type Lang } from '../i18n';
import { propControl, propControls, type ControlContext } from './controls';
import { errorSlot } from './errors';
import { allowedEditor, lensEditor, tensorEditor } from './grid-editor';

/** The largest size the size bar offers, per dimension. */
const DIM_MAX: Record<DimName, number> = { B: 8, H: 8, L_Q: 32, L_K: 32, E: 32, E_k: 32, D: 32 };

export interface PresetBarOptions {
  presets: readonly Preset[];
  /** The current preset's name, '' for a scenario of one's own. */
  preset: string;
  modified: boolean;
  lang: Lang;
  onPreset: (name: string) => void;
  /** Reset (shown while the preset is modified): the preset as it comes. */
  onReset: () => void;
  onLang: (lang: Lang) => void;
  /** The theme switch's value (auto, light, dark; index.html only); null: no switch. */
  theme: string | null;
  onTheme: (theme: string) => void;
  /** The "Copy link" button's click (index.html only: sync-hash); null: no button. */
  onCopyLink: ((button: HTMLElement) => void) | null;
}

export function presetBar(o: PresetBarOptions): HTMLElement[] {
  const { lang } = o;
  const select = h('select', { id: 'preset-select', dataset: { key: 'preset' } },
    o.preset ? null : h('option', { value: '', text: t(lang, 'custom'), selected: true }),
    ...o.presets.map((p) => h('option', { value: p.name, selected: p.name === o.preset,
      text: `${p.name} — ${lang === 'zh' ? zhTitle('presets', p) || p.title : p.title}` })));
  select.addEventListener('change', () => { if (select.value) o.onPreset(select.value); });
  const langButton = h('button', { type: 'button', class: 'lang', dataset: { key: 'lang' },
    // its name is what it shows (in the language it names); "Language" is its tooltip
    text: lang === 'zh' ? 'English' : '中文 (zh)', attrs: { lang: lang === 'zh' ? 'en' : 'zh', title: t(lang, 'language') } });
  langButton.addEventListener('click', () => o.onLang(lang === 'zh' ? 'en' : 'zh'));
  const theme = o.theme === null ? null : h('select', { dataset: { key: 'theme' }, attrs: { 'aria-label': t(lang, 'theme'), title: t(lang, 'theme') } },
    ...THEMES.map((th) => h('option', { value: th, selected: th === o.theme, text: t(lang, `theme_${th}`) })));
  theme?.addEventListener('change', () => o.onTheme(theme.value));
  const copy = o.onCopyLink && h('button', { type: 'button', dataset: { key: 'copy-link' }, text: t(lang, 'copyLink'),
    attrs: { title: t(lang, 'copyLinkHelp') } });
  copy?.addEventListener('click', () => o.onCopyLink!(copy));
  const preset = o.presets.find((p) => p.name === o.preset);
  return [h('div', { class: 'top-row' },
    h('label', { attrs: { for: 'preset-select' }, text: t(lang, 'preset') }), select,
    h('span', { class: 'modified', hidden: !(o.preset && o.modified), text: t(lang, 'modified') }),
    h('button', { type: 'button', dataset: { key: 'reset' }, hidden: !(o.preset && o.modified), text: t(lang, 'reset'), on: { click: o.onReset } }),
    h('span', { class: 'spacer' }), copy, theme, langButton),
  ...(preset ? [h('p', { class: 'description', dataset: { field: 'description' }, text: presetDescription(lang, preset) })] : [])];
}

export interface MaskPanelOptions {
  ctx: ControlContext;
  invalid: ReadonlyMap<string, string>;
  onToggle: (i: number, j: number) => void;
  onLens: (path: number[], text: string) => void;
  onPerQuery: (twoD: boolean) => void;
}

/** The mask's controls, the explicit mask's grid and valid_lens; nothing when no mask applies. */
export function maskPanel(o: MaskPanelOptions): HTMLElement[] {
  const s = o.ctx.scenario, lang = o.ctx.lang;
  if (!PROP['mask.kind'].applies(s)) return [];
  const out = [h('h2', { class: 'sub', text: t(lang, 'mask') }), ...propControls('mask', o.ctx, ['mask.allowed', 'mask.valid_lens'])];
  if (PROP['mask.allowed'].applies(s)) {
    out.push(allowedEditor({ allowed: get(s, 'mask.allowed'), title: PROP['mask.allowed'].label[lang], onToggle: o.onToggle }));
  }
  if (PROP['mask.valid_lens'].applies(s)) {
    out.push(lensEditor({ lens: get(s, 'mask.valid_lens'), title: PROP['mask.valid_lens'].label[lang],
      L_K: dims(s).L_K, perQueryLabel: t(lang, 'perQuery'), invalid: o.invalid, onEdit: o.onLens, onTwoD: o.onPerQuery }));
  }
  out.push(errorSlot('mask'));
  return out;
}

export interface SliceBarOptions {
  B: number;
  H: number;
  b: number;
  h: number;
  lang: Lang;
  onSelect: (b: number, h: number) => void;
}

/** The (b, h) selectors, when B or H is above 1. */
export function sliceBar(o: SliceBarOptions): HTMLElement[] {
  if (o.B <= 1 && o.H <= 1) return [];
  const sel = (label: string, key: string, n: number, value: number, onChange: (v: number) => void) => {
    const id = `slice-${key}`;
    const select = h('select', { id, dataset: { key: `slice.${key}` } },
      ...range(n).map((i) => h('option', { value: String(i), text: String(i), selected: i === value })));
    select.addEventListener('change', () => onChange(Number(select.value)));
    return h('span', { class: 'field inline' }, h('label', { attrs: { for: id }, text: label }), select);
  };
  const out = [h('span', { class: 'muted', text: t(o.lang, 'showing') + ':' })];
  if (o.B > 1) out.push(sel(t(o.lang, 'batch'), 'b', o.B, o.b, (v) => o.onSelect(v, o.h)));
  if (o.H > 1) out.push(sel(t(o.lang, 'head'), 'h', o.H, o.h, (v) => o.onSelect(o.b, v)));
  return out;
}

export interface TensorsPanelOptions {
  scenario: Scenario;
  lang: Lang;
  b: number;
  h: number;
  invalid: ReadonlyMap<string, string>;
  onResize: (dim: DimName, n: number) => void;
  onEdit: (name: string, path: number[], text: string) => void;
  /** q = k = v shown as one X (Session.tied); `onTie` ties or unties them. */
  tied?: boolean;
  onTie?: (tied: boolean) => void;
}

/** Self-attention's tie of q, k and v (short: the first load). */
const TIE = { en: 'one tensor X: an edit changes q, k and v', zh: '同一个张量 X：编辑即同时修改 q、k、v' };

/** The head of `name` that query head h reads: GQA/MQA's k and v have H_kv heads, query head h
 * reads kv head h // (H / H_kv) (issue 16); otherwise h. */
function headOf(s: Scenario, name: string, hq: number): number {
  const H = shapeOf(s.q)[2] ?? 1, Hk = shapeOf(s[name])[2] ?? H;
  return name === 'q' || Hk >= H || H % Hk !== 0 ? hq : Math.floor(hq / (H / Hk));
}

/** The size bar and a grid per tensor the algorithm reads, each with its error slot. */
export function tensorsPanel(o: TensorsPanelOptions): (HTMLElement | null)[] {
  const { lang } = o;
  const s = o.scenario;
  const d = dims(s);
  const tr = traits(s), labels = tr.dimLabels ?? {};
  const dimBar = h('div', { class: 'dims', attrs: { role: 'group', 'aria-label': t(lang, 'sizes') } });
  for (const name of dimNames(s)) {
    const minus = h('button', { type: 'button', text: '−', disabled: d[name] <= 1, dataset: { key: `dim.${name}.minus` },
      attrs: { 'aria-label': `${t(lang, 'decrease')} ${labels[name] ?? name}` } });
    const plus = h('button', { type: 'button', text: '+', disabled: d[name] >= DIM_MAX[name], dataset: { key: `dim.${name}.plus` },
      attrs: { 'aria-label': `${t(lang, 'increase')} ${labels[name] ?? name}` } });
    minus.addEventListener('click', () => o.onResize(name, d[name] - 1));
    plus.addEventListener('click', () => o.onResize(name, d[name] + 1));
    dimBar.append(h('span', { class: 'dim', dataset: { dim: name } },
      h('span', { class: 'dim-name', text: labels[name] ?? name }), minus, h('output', { text: String(d[name]) }), plus));
  }
  const editors = h('div', { class: 'editors' });
  // an algorithm's own inputs (multihead's) are views/own-inputs.ts's
  const tieBox = o.onTie && (o.tied || qkvEqual(s)) ? h('input', { type: 'checkbox', checked: !!o.tied, dataset: { key: 'tie-qkv' } }) : null;
  tieBox?.addEventListener('change', () => o.onTie!(tieBox.checked));
  for (const name of tr.grids ? [] : tr.tensors) {
    if (s[name] === undefined || (o.tied && (name === 'k' || name === 'v'))) continue;
    const grid = isDraw(s[name]) ? null : tensorEditor({
      name, title: o.tied && name === 'q' ? 'X = q = k = v' : PROP[name].label[lang], tensor: s[name], b: o.b, h: headOf(s, name, o.h), rowPrefix: o.tied ? 'x' : name, colPrefix: name === 'v' ? 'd' : 'e',
      invalid: o.invalid, tooLarge: t(lang, 'tooLargeEdit'), onEdit: (path, text) => o.onEdit(name, path, text),
    });
    if (grid && o.tied) grid.dataset.tied = 'k v';  // the explain panel lights k's and v's operands here
    // a seeded draw (no grid) and "Random, seeded": views/draw-inputs.ts, a chunk, adds them
    editors.append(h('div', { class: 'editor-box' }, grid, errorSlot(name)));
  }
  return [h('div', { class: 'panel-head' }, h('h2', { text: t(lang, 'inputs') }), dimBar),
    tr.grids ? null : h('p', { class: 'help', text: t(lang, 'dimHelp') }),
    tieBox ? h('label', { class: 'help tie' }, tieBox, ' ', TIE[lang]) : null, editors, errorSlot('tensors')];
}


export interface ProbControlsOptions {
  ctx: ControlContext;
  /** Whether the pitfall switches are open. */
  open: boolean;
  onOpen: (open: boolean) => void;
  onResample: () => void;
}

/** ProbAttention's factor, seed and Resample, then the pitfall switches in a <details>. */
export function probControls(o: ProbControlsOptions): HTMLElement[] {
  const lang = o.ctx.lang;
  const resample = h('button', { type: 'button', class: 'resample', dataset: { key: 'resample' },
    text: t(lang, 'resample'), title: t(lang, 'resampleHelp'), attrs: { 'aria-describedby': 'resample-help' } });
  resample.addEventListener('click', o.onResample);
  const details = h('details', { class: 'pitfalls', dataset: { field: 'pitfall-switches' }, open: o.open },
    h('summary', { text: t(lang, 'pitfallsSummary') }),
    h('div', { class: 'pitfall-switches' }, ...propControls('prob', o.ctx, ['factor', 'sample_index', 'output_attention'])),
    h('div', { class: 'prob-options' }, ...propControls('prob', o.ctx, ['factor', 'sample_index', ...PITFALL_KEYS])));
  details.addEventListener('toggle', () => { if (details.isConnected) o.onOpen(details.open); });
  return [h('h2', { text: t(lang, 'probTitle') }), h('p', { class: 'intro', text: t(lang, 'probIntro') }),
    h('div', { class: 'row' }, propControl(PROP.factor, o.ctx), propControl(PROP.seed, o.ctx),
      h('div', { class: 'field' }, resample, h('small', { class: 'help', id: 'resample-help', text: t(lang, 'resampleHelp') }))),
    details, errorSlot('prob')];
}

/** The whole scenario as editable JSON. */
export function jsonPanel(lang: Lang, onInput: (text: string) => void): HTMLElement[] {
  const area = h('textarea', { spellcheck: false, rows: 14, dataset: { key: 'json' },
    attrs: { 'aria-label': t(lang, 'scenarioJson'), 'aria-describedby': 'json-help' } });
  area.addEventListener('input', () => onInput(area.value));
  return [h('summary', { text: t(lang, 'scenarioJson') }),
    h('p', { class: 'help', id: 'json-help', text: t(lang, 'scenarioJsonHelp') }), area, errorSlot('json')];
}
