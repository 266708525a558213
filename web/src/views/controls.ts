// Controls generated from the property table (state.ts). DOM only: changes go out through
// callbacks; the element decides what to recompute and re-render.
import { h, newId } from '../dom';
import { notANumber, parseNumber } from '../format';
import type { Scenario } from '../engine/compute';
import { PROPS, choicesOf, dims, get, shown, traits, type Panel, type Prop } from '../state';
import { t, tx, type Lang } from '../i18n';

export interface ControlContext {
  scenario: Scenario;
  lang: Lang;
  /** structural: the set of controls may change, re-render them. */
  set: (key: string, value: unknown, structural: boolean) => void;
  invalid: (key: string, message: string | null) => void;
  isInvalid: (key: string) => boolean;
}

/** Why `prop`'s control cannot apply to `s`, shown under it (its id for aria-describedby); null when it can. */
function whyNot(prop: Prop, s: Scenario, lang: Lang, id: string) {
  const no = prop.disabled?.(s);
  return no ? { option: no.option, note: h('small', { class: 'help why-disabled', id: id + '-why', text: tx(lang, no.why) }) } : null;
}

/** Disables `control` (or its option `no.option`) and points it at the reason. */
function disable(control: HTMLElement, no: ReturnType<typeof whyNot>): void {
  if (!no) return;
  const target = no.option !== undefined ? control.querySelector<HTMLOptionElement>(`option[value="${CSS.escape(no.option)}"]`) : control;
  if (target) (target as HTMLInputElement | HTMLOptionElement).disabled = true;
  const described = control.getAttribute('aria-describedby');
  control.setAttribute('aria-describedby', described ? `${described} ${no.note.id}` : no.note.id);
}

function labelled(prop: Prop, lang: Lang, control: HTMLElement, extra?: HTMLElement | null, s?: Scenario): HTMLElement {
  const id = newId('c');
  control.id = id;
  const help = prop.help ? h('small', { class: 'help', id: id + '-help', text: tx(lang, prop.help) }) : null;
  if (help) control.setAttribute('aria-describedby', help.id);
  const no = s ? whyNot(prop, s, lang, id) : null;
  disable(control, no);
  return h('div', { class: `field field-${prop.kind}`, dataset: { field: prop.key } },
    h('label', { attrs: { for: id }, text: tx(lang, prop.label) }), control, extra ?? null, help, no?.note ?? null);
}

/** 1/√d as text: "1/√20 ≈ 0.2236" ("1/√4 = 0.5" where 4 digits are exact). */
export function scaleText(d: number): string {
  const x = 1 / Math.sqrt(d), shown = Number(x.toPrecision(4));
  return `1/√${d} ${shown === x ? '=' : '≈'} ${shown}`;
}

export function propControl(prop: Prop, ctx: ControlContext): HTMLElement | null {
  const s = ctx.scenario;
  const value = shown(s, prop);
  const key = prop.key;
  switch (prop.kind) {
    case 'enum': {
      const choices = choicesOf(prop);
      const text = (o: string) => tx(ctx.lang, choices.find((c) => c.value === o)?.label) || o;
      const select = h('select', { dataset: { key } },
        ...(prop.options?.(s) ?? []).map((o) => h('option', { value: o, text: text(o), selected: o === value })));
      // an optional enum's '' option (reference: SPEC's formulas) removes the key
      select.addEventListener('change', () => ctx.set(key, select.value === '' && prop.optional ? undefined : select.value, true));
      return labelled(prop, ctx.lang, select, null, s);
    }
    case 'bool': {
      const choices = choicesOf(prop);
      if (choices.length) {
        // a switch whose two values both need saying: a select naming what each does
        const select = h('select', { dataset: { key } },
          ...choices.map((c) => h('option', { value: String(c.value), text: tx(ctx.lang, c.label), selected: c.value === (value === true) })));
        select.addEventListener('change', () => ctx.set(key, select.value === 'true', true));
        const field = labelled(prop, ctx.lang, select);
        field.className = 'field field-choice';
        return field;
      }
      const id = newId('c');
      const box = h('input', { type: 'checkbox', id, checked: value === true, dataset: { key } });
      box.addEventListener('change', () => ctx.set(key, box.checked, true));
      return h('div', { class: 'field field-bool', dataset: { field: key } },
        h('label', { class: 'check', attrs: { for: id } }, box, ' ', tx(ctx.lang, prop.label)),
        prop.help ? h('small', { class: 'help', text: tx(ctx.lang, prop.help) }) : null);
    }
    case 'int':
    case 'number': {
      const isInt = prop.kind === 'int';
      const slider = prop.control === 'range';
      const input = h('input', {
        type: slider ? 'range' : 'number', value: value === undefined ? '' : String(value),
        min: prop.min !== undefined ? String(prop.min) : undefined,
        max: (prop.maxOf?.(s) ?? prop.max) !== undefined ? String(prop.maxOf?.(s) ?? prop.max) : undefined,
        step: String(prop.step ?? (isInt ? 1 : 'any')),
        dataset: { key },
        attrs: { 'aria-invalid': ctx.isInvalid(key) ? 'true' : null },
      });
      const out = slider ? h('output', { class: 'range-value', text: String(value ?? '') }) : null;
      input.addEventListener('input', () => {
        const n = parseNumber(input.value);
        if (n === null || (isInt && !Number.isInteger(n))) {
          ctx.invalid(key, n === null ? notANumber(key, input.value, isInt ? 'an integer' : 'a number') : `${key}: expected an integer, got "${input.value}"`);
          return;
        }
        ctx.invalid(key, null);
        if (out) out.textContent = String(n);
        ctx.set(key, n, prop.structural === true);
      });
      if (!slider) return labelled(prop, ctx.lang, input);
      const field = labelled(prop, ctx.lang, input);
      field.insertBefore(h('span', { class: 'range-row' }, input, out), field.children[1] ?? null);
      return field;
    }
    case 'fill': {
      const mode = value === undefined ? 'default' : value === '-inf' ? '-inf' : 'number';
      const select = h('select', { dataset: { key: key + '.mode' } },
        h('option', { value: 'default', text: t(ctx.lang, 'fillDefault'), selected: mode === 'default' }),
        h('option', { value: '-inf', text: '-inf', selected: mode === '-inf' }),
        h('option', { value: 'number', text: t(ctx.lang, 'fillNumber'), selected: mode === 'number' }));
      const num = h('input', {
        type: 'number', step: 'any', value: typeof value === 'number' ? String(value) : '-1000000',
        hidden: mode !== 'number', dataset: { key },
        attrs: { 'aria-label': 'mask.fill', 'aria-invalid': ctx.isInvalid(key) ? 'true' : null },
      });
      select.addEventListener('change', () => {
        const m = select.value;
        const n = parseNumber(num.value);
        ctx.invalid(key, null);
        ctx.set(key, m === 'default' ? undefined : m === '-inf' ? '-inf' : (n ?? -1e6), true);
      });
      num.addEventListener('input', () => {
        const n = parseNumber(num.value);
        if (n === null) { ctx.invalid(key, notANumber(key, num.value, 'a number or "-inf"')); return; }
        ctx.invalid(key, null);
        ctx.set(key, n, false);
      });
      const field = labelled(prop, ctx.lang, select, num);
      field.append(h('small', { class: 'help', text: `${t(ctx.lang, 'fillDefault')}: ${t(ctx.lang, 'fillDefaultHelp')}` }));
      return field;
    }
    case 'scale': {
      const E = traits(s).scaleWidth?.(s) ?? dims(s).E;
      const auto = get(s, key) === undefined;
      const id = newId('c');
      const box = h('input', { type: 'checkbox', id, checked: auto, dataset: { key: key + '.auto' } });
      const num = h('input', {
        type: 'number', step: 'any', disabled: auto, dataset: { key },
        value: String(auto ? 1 / Math.sqrt(E) : value),
        attrs: { 'aria-label': 'scale', 'aria-invalid': ctx.isInvalid(key) ? 'true' : null },
      });
      const no = whyNot(prop, s, ctx.lang, newId('c'));
      if (no) box.disabled = true;
      disable(num, no);
      box.addEventListener('change', () => {
        ctx.invalid(key, null);
        ctx.set(key, box.checked ? undefined : (parseNumber(num.value) ?? 1 / Math.sqrt(E)), true);
      });
      num.addEventListener('input', () => {
        const n = parseNumber(num.value);
        if (n === null) { ctx.invalid(key, notANumber(key, num.value)); return; }
        ctx.invalid(key, null);
        ctx.set(key, n, false);
      });
      return h('div', { class: 'field field-scale', dataset: { field: key } },
        h('label', { attrs: { for: num.id = newId('c') }, text: tx(ctx.lang, prop.label) }), num,
        h('label', { class: 'check', attrs: { for: id } }, box, ' ', `${t(ctx.lang, 'scaleDefault')} ${scaleText(E)}`),
        no?.note ?? null);
    }
    default:
      return null; // tensors have their own editors
  }
}

/** The controls of a panel's properties that apply to the scenario, but those in `except`. */
export function propControls(panel: Panel, ctx: ControlContext, except: readonly string[] = []): HTMLElement[] {
  return PROPS.filter((p) => p.panel === panel && !except.includes(p.key) && p.applies(ctx.scenario))
    .map((p) => propControl(p, ctx)).filter((x): x is HTMLElement => x !== null);
}
