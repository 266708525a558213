// The scenario's properties, declared once. Controls are generated from this table, and the
// scenario is normalised with it: a property that does not apply to the current algorithm or mask
// kind is put aside and comes back when it applies again.
//
// The scenario object itself (SPEC §2) is the state: the table describes how to read, edit and
// clean it, so fields it does not know (a multihead preset's weights, say) pass through intact.
// The rows every scenario has are here; each algorithm's own rows are in its module
// (web/src/algorithms/<name>.ts, `applies: isAlg('name')`), spliced in the registry's order.
import { shapeOf } from '../format';
import type { Scenario } from '../engine/compute';
import { zhTitle, type Text } from '../i18n';
import { PAGE_ALGORITHMS } from '../algorithms';
import { isProb, maskKind, traits } from '../algorithms/module';
import { algorithmRegistry } from './algorithms';
import { dims, get, set } from './scenario';

export { isProb };

export type Kind = 'enum' | 'int' | 'number' | 'bool' | 'fill' | 'scale' | 'tensor' | 'lens' | 'allowed' | 'index';
export type Panel = 'algorithm' | 'tensors' | 'mask' | 'prob' | 'options';
export interface Choice { value: string | boolean; label: Text }

export interface Prop {
  /** Dotted path in the scenario. */
  key: string;
  kind: Kind;
  panel: Panel;
  label: Text;
  help?: Text;
  options?: (s: Scenario) => readonly string[];
  /** What each value does, shown as the option's text (an enum, or a bool drawn as a select). */
  choices?: readonly Choice[] | (() => readonly Choice[]);
  min?: number;
  max?: number;
  /** A bound that follows the scenario (a slider up to L_K). */
  maxOf?: (s: Scenario) => number;
  step?: number;
  /** 'range' draws a slider for an int. */
  control?: 'range';
  /** Whether the property applies; it may read only the properties above it in the table
   * (normalise goes through the table once, in order). */
  applies: (s: Scenario) => boolean;
  /** Absent means the core's default; `initial` fills it when it starts to apply. */
  optional?: boolean;
  /** The core's default, shown when the property is absent. */
  default?: unknown;
  /** A default that depends on the scenario (flash's block sizes), from the catalog. */
  defaultOf?: (s: Scenario) => unknown;
  initial?: (s: Scenario) => unknown;
  /** Why the control cannot apply to this scenario (it is shown disabled, with the reason); for an
   * enum, `option` names the one value that cannot (the others stay). */
  /** Other controls show what it changes (multihead's num_heads: the default scale): drawn again on each edit. */
  structural?: boolean;
  disabled?: (s: Scenario) => { why: Text; option?: string } | null;
}

const FLOAT64_ONLY: Text = { en: 'float32 "not implemented yet" here (full and flash only)', zh: '此处 float32 "not implemented yet"（仅 full 与 flash）' };
const hasMask = (s: Scenario) => traits(s).masks.length > 0;
const maskIs = (...kinds: string[]) => (s: Scenario) => hasMask(s) && kinds.includes(maskKind(s));
const reads = (tensor: 'q' | 'k' | 'v') => (s: Scenario) => traits(s).tensors.includes(tensor);
/** An algorithm's menu entry: its name and the registry's title. */
const titled = (name: string, title: string) => (title && title !== name ? `${name} — ${title}` : name);

export const PROPS: readonly Prop[] = [
  { key: 'algorithm', kind: 'enum', panel: 'algorithm', label: { en: 'Algorithm', zh: '算法' },
    options: () => algorithmRegistry().map((a) => a.name),
    choices: () => algorithmRegistry().map((a) => ({ value: a.name,
      label: { en: titled(a.name, a.title), zh: titled(a.name, zhTitle('algorithms', a) || a.title) } })),
    applies: () => true, initial: () => 'full' },
  { key: 'q', kind: 'tensor', panel: 'tensors', label: { en: 'Q (queries)', zh: 'Q（查询）' },
    applies: reads('q'), initial: () => [[[[1, 0]], [[0, 1]]]] },
  { key: 'k', kind: 'tensor', panel: 'tensors', label: { en: 'K (keys)', zh: 'K（键）' },
    applies: reads('k'), initial: () => [[[[1, 0]], [[0, 1]], [[1, 1]]]] },
  { key: 'v', kind: 'tensor', panel: 'tensors', label: { en: 'V (values)', zh: 'V（值）' },
    applies: reads('v'), initial: () => [[[[10, 0]], [[0, 10]], [[5, 5]]]] },

  { key: 'mask.kind', kind: 'enum', panel: 'mask', label: { en: 'kind', zh: '类型' },
    options: (s) => traits(s).masks, applies: hasMask, optional: true, default: 'none' },
  { key: 'mask.window', kind: 'int', panel: 'mask', label: { en: 'window w', zh: '窗口 w' }, min: 0, max: 64,
    help: { en: 'allowed iff |i−j| ≤ w (sink: i − j < w)', zh: '当 |i−j| ≤ w 时允许（sink：i − j < w）' },
    applies: maskIs('local', 'strided', 'sink'), initial: () => 1 },
  { key: 'mask.dilation', kind: 'int', panel: 'mask', label: { en: 'dilation k', zh: '膨胀 k' }, min: 1, max: 64,
    help: { en: 'allowed iff |i−j| mod k = 0', zh: '当 |i−j| mod k = 0 时允许' },
    applies: maskIs('atrous'), initial: () => 2 },
  { key: 'mask.stride', kind: 'int', panel: 'mask', label: { en: 'stride s', zh: '步长 s' }, min: 1, max: 64,
    help: { en: 'also allowed iff |i−j| mod s = 0', zh: '|i−j| mod s = 0 时也允许' },
    applies: maskIs('strided'), initial: () => 2 },
  // issue 16: StreamingLLM's attention sinks beside Mistral's sliding window
  { key: 'mask.sinks', kind: 'int', panel: 'mask', label: { en: 'sinks s', zh: '汇点数 s' }, min: 0, max: 64,
    help: { en: 'or j < s', zh: '或 j < s' },
    applies: maskIs('sink'), optional: true, default: 0 },
  { key: 'mask.causal', kind: 'bool', panel: 'mask', label: { en: 'also causal (j ≤ i)', zh: '同时因果（j ≤ i）' },
    applies: maskIs('local', 'atrous', 'strided'), optional: true, default: false },
  { key: 'mask.valid_lens', kind: 'lens', panel: 'mask', label: { en: 'valid_lens', zh: 'valid_lens（有效长度）' },
    help: { en: 'key j allowed iff j < valid_len', zh: '当 j < valid_len 时允许键 j' },
    applies: maskIs('valid_lens'), initial: (s) => Array(dims(s).B).fill(dims(s).L_K) },
  { key: 'mask.allowed', kind: 'allowed', panel: 'mask', label: { en: 'allowed (click to toggle)', zh: '允许（点击切换）' },
    applies: maskIs('explicit'),
    initial: (s) => Array.from({ length: dims(s).L_Q }, () => Array(dims(s).L_K).fill(true)) },
  { key: 'mask.fill', kind: 'fill', panel: 'mask', label: { en: 'fill', zh: '填充值' },
    help: { en: 'written into masked scores before softmax', zh: 'softmax 前写入被遮挡的分数' },
    applies: (s) => hasMask(s) && maskKind(s) !== 'none', optional: true },

  { key: 'seed', kind: 'int', panel: 'options', label: { en: 'seed', zh: '随机种子' }, min: 0,
    applies: () => true, optional: true, default: 0 },
  { key: 'scale', kind: 'scale', panel: 'options', label: { en: 'scale', zh: '缩放 scale' },
    applies: (s) => traits(s).scale === true, optional: true,
    disabled: (s) => { const why = traits(s).scaleUnused; return why ? { why } : null; } },
  // each algorithm's own rows (web/src/algorithms/<name>.ts), in the registry's order
  ...PAGE_ALGORITHMS.flatMap((a) => a.props ?? []),
  { key: 'trace', kind: 'enum', panel: 'options', label: { en: 'trace', zh: '追踪' }, options: () => ['full', 'context'],
    applies: () => true, optional: true, default: 'full' },
  { key: 'dtype', kind: 'enum', panel: 'options', label: { en: 'dtype', zh: '数据类型' }, options: () => ['float64', 'float32'],
    applies: () => true, optional: true, default: 'float64',
    disabled: (s) => (traits(s).float32 ? null : { option: 'float32', why: FLOAT64_ONLY }) },
];

export const PROP = Object.fromEntries(PROPS.map((p) => [p.key, p])) as Record<string, Prop>;

/** A property's choices (the algorithm's come from the core's registry). */
export function choicesOf(prop: Prop): readonly Choice[] {
  return typeof prop.choices === 'function' ? prop.choices() : prop.choices ?? [];
}

/** Value shown for a property: its value, else the core's default. */
export function shown(s: Scenario, prop: Prop): unknown {
  const v = get(s, prop.key);
  return v === undefined ? (prop.defaultOf ? prop.defaultOf(s) : prop.default) : v;
}

/** Values put aside by normalise() (and sample_index by fitSamples), by key, to restore when they apply again. */
export type Stash = Record<string, unknown>;

/**
 * After an edit from `prev` to `s`: the properties that stopped applying (or whose value is no
 * longer one of the options) go into the stash; those that started applying come back from the
 * stash, else get their initial value. One pass in table order, so a property sees the ones above
 * it already settled. Without `prev` (a scenario loaded whole) nothing changes: what the author
 * wrote is what runs, and the core names what is wrong. Mutates s.
 */
export function normalise(s: Scenario, stash: Stash, prev?: Scenario): Scenario {
  if (!prev) return s;
  for (const prop of PROPS) {
    const value = get(s, prop.key);
    const applies = prop.applies(s);
    const applied = prop.applies(prev);
    if (!applies && applied && value !== undefined) {
      stash[prop.key] = value;
      set(s, prop.key, undefined);
    } else if (applies && prop.kind === 'enum' && value !== undefined && prop.options &&
               !prop.options(s).includes(String(value)) && prop.options(prev).includes(String(value))) {
      stash[prop.key] = value;
      set(s, prop.key, prop.optional ? undefined : prop.initial?.(s));
    } else if (applies && !applied && value === undefined) {
      const kept = stash[prop.key];
      if (kept !== undefined && fits(s, prop, kept)) {
        set(s, prop.key, kept);
        delete stash[prop.key];
      } else if (!prop.optional && prop.initial) {
        set(s, prop.key, prop.initial(s));
      }
    }
  }
  return s;
}

/** Whether a stashed value still fits the scenario's shapes. */
function fits(s: Scenario, prop: Prop, value: unknown): boolean {
  const d = dims(s);
  if (prop.kind === 'allowed') {
    const sh = shapeOf(value);
    return sh[0] === d.L_Q && sh[1] === d.L_K;
  }
  if (prop.kind === 'lens') return shapeOf(value)[0] === d.B;
  if (prop.kind === 'index') return false; // sample_index: its shape is the core's (fitSamples)
  if (prop.kind === 'enum' && prop.options) return prop.options(s).includes(String(value));
  if (prop.kind === 'int' || prop.kind === 'number') return typeof value === 'number';
  return true;
}
