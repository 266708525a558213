// Each flow step's formula (issue 14 item 3), beside its operation and shape chain in the step's
// `.step-formula` slot (views/results.ts): KaTeX, MathML output (no fonts, no CSS). A lazy chunk,
// loaded after the first trace (lazy.ts `formulas`).
import katex from 'katex';
import type { Lang } from '../i18n';
import { keep } from './patch';

// (computed as e^{s − max} over the same sum: the cell's panel shows that)
const SOFTMAX = 'w_{ij} = \\frac{e^{s_{ij}}}{\\sum_{j\'} e^{s_{ij\'}}}';
const DOT = 's_{ij} = \\text{scale} \\cdot (q_i \\cdot k_j)';
const CONTEXT = 'c_{id} = \\sum_j w_{ij}\\, v_{jd}';

/** The formula of step `field`, by algorithm ('' = any). A newline is where a formula too wide for
 * its step may wrap: each line is a formula of its own (MathML does not break lines). */
const FORMULAS: Record<string, Record<string, string>> = {
  q: { multihead: 'q_{i,h} = (x_i\\, W_q)_{h}' },
  features: { '': 'f_{ij} =\n\\tanh(W_q\\, q_i + W_k\\, k_j)' },
  projected_k: { '': '\\bar k_p = \\sum_j E_{pj}\\, k_j' },
  pooled_k: { '': '\\bar k_p = \\operatorname{pool}_{j \\in \\text{window}_p} k_j' },
  scores: { '': DOT, additive: 's_{ij} = w_v^\\top f_{ij}' },
  allowed: {
    '': '\\tilde s_{ij} = \\begin{cases} s_{ij} & \\text{allowed}_{ij} \\\\ -\\infty & \\text{masked} \\end{cases}',
  },
  weights: {
    '': SOFTMAX,
    linear: 'w_{ij} = \\frac{\\phi(q_i) \\cdot \\phi(k_j)}{\\sum_{j\'} \\phi(q_i) \\cdot \\phi(k_{j\'})}',
    performer: 'w_{ij} = \\frac{\\phi(q_i) \\cdot \\phi(k_j)}{\\sum_{j\'} \\phi(q_i) \\cdot \\phi(k_{j\'})}',
    diff: 'w_{ij} = \\operatorname{softmax}_j(s^{(1)})_{ij}\n{} - \\lambda \\operatorname{softmax}_j(s^{(2)})_{ij}',
    nadaraya_watson: 'w_{ij} = \\operatorname{softmax}_j\\!\\left(-\\tfrac{1}{2}\\big((x_i - x_j)\\, w\\big)^2\\right)',
    bahdanau: '\\alpha_{tj} = \\operatorname{softmax}_j(e_{tj}),\ne_{tj} = w_v^\\top \\tanh(W_q\\, s_{t-1} + W_k\\, h_j)',
  },
  head_weights: { '': SOFTMAX },
  attn: { '': SOFTMAX },
  context: { '': CONTEXT },
  head_context: { '': CONTEXT },
  output: { '': '\\text{output} = \\operatorname{concat}_h\\big(c^{(h)}\\big)\\, W_o',
    // d2l's Seq2SeqAttentionDecoder: the GRU takes [context; embedding], a dense layer gives the vocabulary's scores
    bahdanau: 's_t = \\operatorname{GRU}\\big([c_t;\\, e(y_{t-1})],\\, s_{t-1}\\big),\n\\text{output}_t = \\operatorname{dense}(s_t)',
    flash: 'o_i = \\frac{\\sum_j e^{s_{ij} - m_i}\\, v_j}{\\ell_i}' },
  y_hat: { '': '\\hat y_i = \\sum_j w_{ij}\\, y_j' },
  P: { '': 'P_{i,2j} = \\sin\\frac{i}{10000^{2j/d}},\nP_{i,2j+1} = \\cos\\frac{i}{10000^{2j/d}}' },
};

/** The step formula's TeX for `field` of `algorithm` (null: none). */
export function stepTex(algorithm: string, field: string): string | null {
  const f = FORMULAS[field];
  return f ? f[algorithm] ?? f[''] ?? null : null;
}

/** One element's step formulas (element.ts makes one per element): each rendered once, and the
 * same node given back to every later render, kept (views/patch.ts) where it is drawn: an edit
 * costs a map lookup, no KaTeX, no copy, no patch of the formula. */
export function formulas(): (algorithm: string, field: string, lang: Lang) => Node | null {
  const mine = new Map<string, Node>();
  return (algorithm, field, lang) => {
    const en = stepTex(algorithm, field);
    if (!en) return null;
    const tex = lang === 'zh' ? en.replace('\\text{allowed}', '\\text{允许}').replace('\\text{masked}', '\\text{被掩蔽}') : en;
    let node = mine.get(tex);
    if (!node) {
      const el = document.createElement('span');
      el.setAttribute('lang', lang);
      tex.split('\n').forEach((line, k) => {
        if (k) el.append(' ');  // where the line may wrap
        katex.render(line, el.appendChild(document.createElement('span')), { output: 'mathml', throwOnError: false, strict: 'ignore' });
      });
      node = keep(el);
      mine.set(tex, node);
    }
    return node;
  };
}
