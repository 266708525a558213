// How far the chosen library's answer is from SPEC's formulas (issue 17): one number and the
// reason, beside the results; the session runs the scenario without its library choice
// (state/session.ts, specBeside) only when one is set. A chunk of its own (lazy.ts). DOM only.
import { h } from '../dom';
import { fmt } from '../format';
import { isFlat, type Outcome, type Scenario, type Trace } from '../engine/compute';
import type { Lang, Text } from '../i18n';

/** Why a library differs from SPEC (docs/semantics.md, "Where the libraries differ"), by mode/algorithm. */
const REASONS: Record<string, Text> = {
  'performer-pytorch/performer': { en: 'eps 1e-4 in the features, after a max stabiliser (causal: eps 1e-6 in the prefix sums)',
    zh: '特征中加了 eps 1e-4，且先减去最大值（因果时前缀和中加 eps 1e-6）' },
  'fast-transformers/linear': { en: 'eps 1e-6 in the denominator', zh: '分母中加了 eps 1e-6' },
  'performer-pytorch/linear': { en: 'normalised; causal: exp(k) with prefix sums and eps 1e-6', zh: '做了归一化；因果时用 exp(k) 的前缀和并加 eps 1e-6' },
  'informer-mix/multihead': { en: 'heads and positions mixed (transpose, then view) before W_o', zh: 'W_o 之前先转置再 view，混合了头与位置' },
  'd2l-en/nadaraya_watson': { en: 'MSELoss / 2: the loss and its gradient halved', zh: 'MSELoss / 2：损失与梯度减半' },
  'reformer-pytorch/lsh': { en: 'keys unit length, self −5e4, sorted chunks attending one back', zh: '键归一化、自身 −5e4、排序分块并回看前一块' },
  'bottom_right': { en: 'causal and local masks aligned to the last key', zh: '因果与局部掩码对齐到最后一个键' },
};

const LABEL: Text = { en: 'against SPEC\'s formulas', zh: '与 SPEC 公式相比' };

/** The numbers of a trace field, flat (typed `{shape, data}` or nested arrays). */
function flat(v: unknown): number[] {
  if (isFlat(v)) return Array.from((v as { data: ArrayLike<number> }).data);
  return Array.isArray(v) ? v.flatMap(flat) : typeof v === 'number' ? [v] : [];
}

/** The trace's main field (SPEC §3): context, output or y_hat. */
const mainField = (t: Trace) => (['context', 'output', 'y_hat'] as const).find((f) => t[f] !== undefined) ?? 'context';

/** max |library - SPEC| over the main field, with the reason; null without a library choice. */
export function referenceLine(s: Scenario, trace: Trace, spec: Outcome | null, lang: Lang): HTMLElement | null {
  const aligned = (s.mask as Scenario | undefined)?.align === 'bottom_right';
  const mode = typeof s.reference === 'string' ? s.reference : aligned ? 'bottom_right' : null;
  if (!mode) return null;
  const reason = REASONS[aligned && !s.reference ? 'bottom_right' : `${mode}/${trace.algorithm}`];
  const box = h('p', { class: 'reference-line', dataset: { field: 'reference-line' }, attrs: { role: 'status' } },
    h('strong', { text: `${mode}` }), ` ${LABEL[lang]}: `);
  if (!spec?.ok) {
    box.append(spec ? spec.error : '—');
    return box;
  }
  const field = mainField(trace);
  const a = flat(trace[field]), b = flat(spec.trace[field]);
  const d = a.length === b.length ? a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0) : NaN;
  box.append(h('span', { dataset: { field: 'reference.diff', value: String(d) }, text: `max |Δ ${field}| = ${fmt(d, 3)}` }),
    reason ? ` (${reason[lang]})` : '');
  return box;
}
