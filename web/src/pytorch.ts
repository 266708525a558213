// "Copy as PyTorch" (SPEC §1): `el.export('pytorch')` gives a runnable Python snippet in the seeds'
// reference style (d2l, Time-Series-Library, Informer; float64) that rebuilds the scenario's inputs,
// everything the core drew from a seed written out as literal tensors (taken from the trace), runs
// the reference code, prints the result and leaves it in a variable named as the trace's main field
// (`context`, `output`, `y_hat`, `P`), equal to the trace to 1e-9.
//
// A chunk of its own, loaded by export.ts when a snippet is first asked for: the reference sources
// below are text. They are the project's reference code (tests/fixtures/reference/*.py and
// tests/fixtures/generate.py, which make the golden fixtures), each changed line marked `# CHANGED:`
// as those files mark theirs. No DOM. Bahdanau's seeded weights are drawn with the core's
// generator (rng.ts, core/rng.hpp's streams).

import { flashBlock } from './compute';
import { Rng, RNG_STREAM } from './rng';
import D2L_PY from '../../tests/fixtures/reference/d2l.py?raw';
import TSLIB_PY from '../../tests/fixtures/reference/tslib.py?raw';
import INFORMER_PY from '../../tests/fixtures/reference/informer_prob.py?raw';
import D2L_SEQ2SEQ_PY from '../../tests/fixtures/reference/d2l_seq2seq.py?raw';
import PERFORMER_PY from '../../tests/fixtures/reference/performer.py?raw';

type Json = unknown;
type Dict = Record<string, Json>;

/** An Error whose `field` names the argument at fault, as export.ts's are. */
function fail(message: string): never {
  throw Object.assign(new Error(`export: ${message}`), { field: 'kind' });
}

export const PYTORCH_ALGORITHMS = ['full', 'multihead', 'additive', 'nadaraya_watson', 'positional_encoding', 'prob',
  'flash', 'linear', 'performer', 'linformer', 'lsh', 'pooling', 'bahdanau'] as const;

// ---- Python literals ----

/** A float64 as Python reads it back exactly (JS String round-trips a double). */
export function pyNum(x: Json): string {
  if (typeof x === 'boolean') return x ? 'True' : 'False';
  if (typeof x !== 'number') fail(`expected a number, got ${JSON.stringify(x)}`);
  if (Number.isNaN(x)) return "float('nan')";
  if (x === Infinity) return "float('inf')";
  if (x === -Infinity) return "float('-inf')";
  if (Object.is(x, -0)) return '-0.0';
  return String(x);
}

/** `{shape, data}` (typed tensors) as nested arrays. */
function nested(v: Json): Json {
  if (v && typeof v === 'object' && !Array.isArray(v) && 'shape' in (v as Dict) && 'data' in (v as Dict)) {
    const { shape, data } = v as { shape: number[]; data: ArrayLike<number> };
    let offset = 0;
    const build = (d: number): Json => (d === shape.length ? data[offset++] : Array.from({ length: shape[d] }, () => build(d + 1)));
    return build(0);
  }
  return v;
}

/** A nested list literal: the innermost rows on one line each. */
function pyList(v: Json, indent = ''): string {
  v = nested(v);
  if (!Array.isArray(v)) return pyNum(v);
  if (!v.some(Array.isArray)) return `[${v.map(pyNum).join(', ')}]`;
  const inner = indent + ' ';
  return `[${v.map((x, i) => (i === 0 ? '' : inner) + pyList(x, inner)).join(',\n')}]`;
}

/** `torch.tensor([...], dtype=...)` of a nested array. */
function tensor(v: Json, dtype: 'float64' | 'long' | 'bool' = 'float64', indent = ''): string {
  const head = 'torch.tensor(';
  return `${head}${pyList(v, indent + ' '.repeat(head.length))}, dtype=torch.${dtype})`;
}

const assign = (name: string, v: Json, dtype: 'float64' | 'long' | 'bool' = 'float64', note = ''): string =>
  `${name} = ${tensor(v, dtype, ' '.repeat(name.length + 3))}${note ? `  # ${note}` : ''}`;

const shapeOf = (v: Json): number[] => {
  v = nested(v);
  const s: number[] = [];
  for (let x = v; Array.isArray(x); x = x[0]) s.push(x.length);
  return s;
};

// ---- the reference sources ----
//
// The reference files themselves, as text (Vite's ?raw): the snippet runs the very lines that make
// the fixtures, cut out between their "# snippet: NAME" and "# end snippet: NAME" comments.

/** The lines of a reference file between its markers for `name`. */
function snippet(file: string, name: string): string {
  const start = file.indexOf(`# snippet: ${name} `), end = file.indexOf(`# end snippet: ${name}`);
  if (start < 0 || end < start) throw new Error(`the reference sources have no snippet ${name}`);
  return file.slice(file.indexOf('\n', start) + 1, end - 1);
}

/** `code` with its one line `original` replaced by `text` (a marked change of the reference). */
function replaceLine(code: string, original: string, text: string): string {
  const at = code.indexOf(original + '\n');
  if (at < 0 || code.indexOf(original + '\n', at + 1) >= 0) throw new Error(`the reference has no single line "${original.trim()}"`);
  return code.slice(0, at) + text + code.slice(at + original.length);
}

const D2L_MASKED_SOFTMAX = `# d2l (zh), chapter "注意力评分函数" (tests/fixtures/reference/d2l.py)
` + snippet(D2L_PY, 'd2l_masked_softmax') + "\n";

const D2L_DOT = `
` + snippet(D2L_PY, 'd2l_dot') + "\n";

const D2L_ADDITIVE = `
` + snippet(D2L_PY, 'd2l_additive') + "\n";

const D2L_MULTIHEAD = '\n' + snippet(D2L_PY, 'd2l_multihead') + '\n';

/** The playground's masks on d2l's (batch, queries, keys) scores: masked_fill on the scaled scores. */
const MASKED_DOT = `
class MaskedDotProductAttention(nn.Module):
    """DotProductAttention with a boolean mask (True: key allowed) instead of valid_lens: the scaled
    scores masked_fill-ed with \`fill\` (SPEC §2), torch.softmax; under fill -inf a row with no allowed
    key gets zero weights and zero context (docs/semantics.md). (The playground's extension of d2l.)"""
    def __init__(self, allowed, fill, scale):
        super().__init__()
        self.allowed, self.fill, self.scale = allowed, fill, scale

    def forward(self, queries, keys, values, valid_lens=None):
        scores = torch.bmm(queries, keys.transpose(1, 2)) * self.scale
        self.attention_weights = torch.softmax(scores.masked_fill(~self.allowed, self.fill), dim=-1)
        if self.fill == float('-inf'):
            empty = ~self.allowed.any(dim=-1, keepdim=True)
            self.attention_weights = self.attention_weights.masked_fill(empty, 0.0)
        return torch.bmm(self.attention_weights, values)
`;

const LINEAR_HELPER = `
def linear(weight, bias=None):
    """nn.Linear holding the given weight (out, in) and bias (torch's layout)."""
    layer = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    with torch.no_grad():
        layer.weight.copy_(weight)
        if bias is not None:
            layer.bias.copy_(bias)
    return layer
`;

const TSLIB_FULL = `# Time-Series-Library, layers/SelfAttention_Family.py and utils/masking.py
# (tests/fixtures/reference/tslib.py)
` + snippet(TSLIB_PY, 'tslib_full') + "\n";

const TSLIB_LAYER = `

` + snippet(TSLIB_PY, 'tslib_layer') + "\n";

const PROB_MASK = `# Time-Series-Library utils/masking.py (tests/fixtures/reference/informer_prob.py)
` + snippet(INFORMER_PY, 'prob_mask') + "\n";

/** The lines of the seed's ProbAttention that a snippet may change, as informer_prob.py has them. */
const PROB_LINES: Record<string, string> = {
  sample: '        index_sample = torch.randint(L_K, (L_Q, sample_k))',
  K_sample: '        K_sample = K_expand[:, :, torch.arange(L_Q).unsqueeze(1), index_sample, :]',
  squeeze: '        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze()',
  M: '        M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)',
  topk: '        M_top = M.topk(n_top, sorted=False)[1]',
  cumsum: '            contex = V.cumsum(dim=-2)',
  fill: '            scores.masked_fill_(attn_mask.mask, -np.inf)',
};

/** The seed's ProbAttention (Informer / TSLib; informer_prob.py's own lines): the sample index an
 * attribute instead of torch's draw, and the lines `changes` names replaced (each marked). */
function probAttentionSource(changes: Record<string, string>): string {
  const all: Record<string, string> = {
    sample: '        index_sample = self.index_sample  # CHANGED: the reference draws it here, (L_Q, sample_k) uniform in [0, L_K)',
    ...changes,
  };
  const code = Object.entries(all).reduce((c, [key, text]) => replaceLine(c, PROB_LINES[key], text), snippet(INFORMER_PY, 'prob_attention'));
  return `

# Informer / Time-Series-Library ProbAttention, as the seed quotes it (000; tests/fixtures/reference/
# informer_prob.py): the playground's sample index is an attribute instead of torch's draw.
` + code + '\n';
}

const D2L_NW = `# d2l (zh), chapter "注意力汇聚:Nadaraya-Watson 核回归" (tests/fixtures/reference/d2l.py)
` + replaceLine(snippet(D2L_PY, 'd2l_nw'), '        self.w = nn.Parameter(torch.rand((1,), requires_grad=True))',
  '        self.w = nn.Parameter(torch.ones((1,), requires_grad=True))  # CHANGED: was a random initial w; set below') + `


# d2l (current edition), "Attention Pooling by Similarity"
` + snippet(D2L_PY, 'd2l_nw_kernels') + '\n';

const NW_KERNEL_MODULE = `

class NWKernel(nn.Module):
    """NWKernelRegression with another kernel of u = (query - key) * w (the playground's extension)."""
    def __init__(self, kernel):
        super().__init__()
        self.kernel = kernel
        self.w = nn.Parameter(torch.ones((1,), requires_grad=True))

    def forward(self, queries, keys, values):
        queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        k = self.kernel((queries - keys) * self.w)
        self.attention_weights = k / k.sum(dim=1, keepdim=True)
        return torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)
`;

const D2L_PE = `# d2l (zh), chapter "自注意力和位置编码" (tests/fixtures/reference/d2l.py)
` + snippet(D2L_PY, 'd2l_pe') + "\n";

const KERNEL_LINEAR = `# performer-pytorch's linear attention (tests/fixtures/reference/performer.py)
` + snippet(PERFORMER_PY, 'kernel_linear') + '\n';

const SOFTMAX_KERNEL = '\n\n' + snippet(PERFORMER_PY, 'softmax_kernel') + '\n';

// ---- per algorithm ----

interface Snippet {
  /** Where the reference code comes from (the header names it). */
  source: string;
  /** numpy / math needed besides torch. */
  numpy?: boolean;
  /** The reference code (definitions). */
  code: string[];
  /** The inputs (literal tensors and sizes). */
  inputs: string[];
  /** The run, ending with the main variable set. */
  run: string[];
  main: string;
}

const isNum = (x: Json): x is number => typeof x === 'number' && Number.isFinite(x);

/** A trace field the snippet needs (seeded tensors are in the trace at trace "full" only). */
function fromTrace(trace: Dict, name: string): Json {
  if (trace[name] === undefined) fail(`copy as PyTorch needs the trace's "${name}" (the draws from the seed): run the scenario with "trace": "full"`);
  return trace[name];
}

function scenarioTensor(scn: Dict, trace: Dict, name: string): Json {
  const v = scn[name] ?? trace[name];
  if (v === undefined) fail(`copy as PyTorch needs "${name}"`);
  return nested(v);
}

/** The mask's fill (SPEC §2) as a number (-Infinity for "-inf"). */
function fillOf(mask: Dict): number {
  const kind = mask.kind ?? 'none';
  const fill = mask.fill ?? (kind === 'valid_lens' ? -1e6 : '-inf');
  return fill === '-inf' ? -Infinity : Number(fill);
}

/** Python lines building `allowed` (B, L_Q, L_K) booleans from the scenario's mask (SPEC §2). */
function allowedLines(mask: Dict): string[] {
  const kind = String(mask.kind ?? 'none');
  const lines = ['# the mask (SPEC §2): allowed[b, i, j] is whether query i may attend to key j',
    'i, j = torch.arange(L_Q)[:, None], torch.arange(L_K)[None, :]'];
  let expr: string;
  switch (kind) {
    case 'none': expr = 'torch.ones(L_Q, L_K, dtype=torch.bool)'; break;
    case 'causal': expr = 'j <= i'; break;
    case 'local': expr = `(i - j).abs() <= ${pyNum(mask.window)}`; break;
    case 'atrous': expr = `(i - j).abs() % ${pyNum(mask.dilation)} == 0`; break;
    case 'strided': expr = `((i - j).abs() <= ${pyNum(mask.window)}) | ((i - j).abs() % ${pyNum(mask.stride)} == 0)`; break;
    case 'explicit': lines.push(assign('allowed', mask.allowed, 'bool')); expr = 'allowed'; break;
    case 'valid_lens': {
      const lens = nested(mask.valid_lens);
      lines.push(assign('valid_lens', lens, 'long', "d2l's valid lengths"));
      expr = shapeOf(lens).length === 1 ? 'j[None] < valid_lens[:, None, None]' : 'j[None] < valid_lens[:, :, None]';
      break;
    }
    default: fail(`copy as PyTorch does not know the mask kind "${kind}"`);
  }
  const causal = mask.causal === true && kind !== 'explicit' && kind !== 'valid_lens' && kind !== 'causal';
  if (causal) expr = `(${expr}) & (j <= i)`;
  lines.push(`allowed = (${expr}).expand(B, L_Q, L_K)${causal ? '  # "causal": true: also j <= i' : ''}`);
  return lines;
}

const fillPy = (fill: number): string => pyNum(fill);

/** q, k, v inputs in the reference layout (B, L, H, E). */
function qkv(scn: Dict, trace: Dict, names = ['q', 'k', 'v']): string[] {
  const notes: Record<string, string> = { q: '(B, L_Q, H, E)', k: '(B, L_K, H, E)', v: '(B, L_K, H, D)' };
  return names.map((n) => assign(n, scenarioTensor(scn, trace, n), 'float64', notes[n]));
}

function fullSnippet(scn: Dict, trace: Dict): Snippet {
  const q = shapeOf(scenarioTensor(scn, trace, 'q')), k = shapeOf(scenarioTensor(scn, trace, 'k'));
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const kind = mask.kind ?? 'none';
  const fill = fillOf(mask);
  const scale = scn.scale;
  const hasScale = isNum(scale) && scale !== 0;
  const inputs = qkv(scn, trace);
  inputs.push('B, L_Q, H, E = q.shape', 'L_K = k.shape[1]');
  if (scale !== undefined) inputs.push(`scale = ${pyNum(scale)}`);
  else inputs.push('scale = 1.0 / math.sqrt(E)');
  const causalFlag = mask.causal === true;
  if ((kind === 'none' && !causalFlag && (scale === undefined || hasScale))
    || (kind === 'causal' && !causalFlag && q[1] === k[1] && fill === -Infinity && (scale === undefined || hasScale))) {
    return {
      source: "Time-Series-Library's FullAttention", numpy: true, code: [TSLIB_FULL], inputs, main: 'context',
      run: [`attention = FullAttention(mask_flag=${kind === 'causal' ? 'True' : 'False'}, scale=${hasScale ? 'scale' : 'None'}, attention_dropout=0.0, output_attention=True).eval()`,
        'context, weights = attention(q, k, v, None)  # context (B, L_Q, H, D), weights (B, H, L_Q, L_K)'],
    };
  }
  const toHeads = ['# d2l\'s layout: (B, L, H, E) -> (B*H, L, E), batch-major as transpose_qkv',
    'to_heads = lambda x: x.permute(0, 2, 1, 3).reshape(B * H, x.shape[1], x.shape[3])'];
  const back = 'context = context.reshape(B, H, L_Q, -1).permute(0, 2, 1, 3)  # (B, L_Q, H, D) as the trace';
  if (kind === 'valid_lens' && fill === -1e6) {
    const lens = nested(mask.valid_lens);
    inputs.push(assign('valid_lens', lens, 'long', "d2l's valid lengths"));
    const run = [...toHeads, 'lens = torch.repeat_interleave(valid_lens, repeats=H, dim=0)  # as MultiHeadAttention does'];
    if (scale === undefined) {
      return {
        source: "d2l's DotProductAttention and masked_softmax", code: [D2L_MASKED_SOFTMAX, D2L_DOT], inputs, main: 'context',
        run: [...run, 'attention = DotProductAttention(dropout=0.0).eval()',
          'context = attention(to_heads(q), to_heads(k), to_heads(v), lens)', back,
          'weights = attention.attention_weights.reshape(B, H, L_Q, L_K)'],
      };
    }
    return {
      source: "d2l's masked_softmax on the scaled scores", code: [D2L_MASKED_SOFTMAX], inputs, main: 'context',
      run: [...run, 'scores = scale * torch.bmm(to_heads(q), to_heads(k).transpose(1, 2))',
        'weights = masked_softmax(scores, lens)', 'context = torch.bmm(weights, to_heads(v))', back,
        'weights = weights.reshape(B, H, L_Q, L_K)'],
    };
  }
  return {
    source: "d2l's DotProductAttention with the playground's boolean mask (masked_fill on the scaled scores)",
    code: [MASKED_DOT], inputs: [...inputs, ...allowedLines(mask), `fill = ${fillPy(fill)}`], main: 'context',
    run: [...toHeads, 'attention = MaskedDotProductAttention(torch.repeat_interleave(allowed, repeats=H, dim=0), fill, scale).eval()',
      'context = attention(to_heads(q), to_heads(k), to_heads(v))', back,
      'weights = attention.attention_weights.reshape(B, H, L_Q, L_K)'],
  };
}

function flashSnippet(scn: Dict, trace: Dict): Snippet {
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const inputs = qkv(scn, trace);
  inputs.push('B, L_Q, H, E = q.shape', 'L_K, D = k.shape[1], v.shape[3]');
  inputs.push(scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(E)');
  const bk = isNum(trace.block_k) ? trace.block_k : isNum(scn.block_k) ? scn.block_k : flashBlock('block_k', shapeOf(scenarioTensor(scn, trace, 'k'))[1]);
  inputs.push(`block_k = ${pyNum(bk)}  # keys per block (block_q orders the work, changes no number)`);
  inputs.push(...allowedLines(mask), `fill = ${fillPy(fillOf(mask))}`);
  return {
    source: "FlashAttention's online softmax, tile by tile (tests/fixtures/generate.py's reference_flash)", code: [], inputs, main: 'context',
    run: [
      '# masked keys take the fill, or are skipped when it is -inf (exp gives 0), as full attention',
      's_all = (scale * torch.einsum("blhe,bshe->bhls", q, k)).masked_fill(~allowed[:, None], fill)',
      'm = torch.full((B, H, L_Q), float(\'-inf\'))  # running max',
      'l = torch.zeros(B, H, L_Q)                  # running sum',
      'O = torch.zeros(B, H, L_Q, D)               # unnormalised context',
      'vt = v.permute(0, 2, 1, 3)  # (B, H, L_K, D)',
      'for t in range((L_K + block_k - 1) // block_k):',
      '    s = s_all[..., t * block_k:(t + 1) * block_k]',
      '    m_new = torch.maximum(m, s.max(dim=-1).values)',
      "    alpha = torch.where(m == float('-inf'), torch.zeros_like(m), torch.exp(m - m_new))",
      "    p = torch.where(m_new[..., None] == float('-inf'), torch.zeros_like(s), torch.exp(s - m_new[..., None]))",
      '    l = alpha * l + p.sum(dim=-1)',
      '    O = alpha[..., None] * O + p @ vt[:, :, t * block_k:(t + 1) * block_k]',
      '    m = m_new',
      '    print(f"after key block {t}: running max {m.flatten().tolist()}")',
      '# a row that saw no allowed key (fill -inf) keeps zero context',
      'context = torch.where(l[..., None] > 0, O / l.clamp(min=1e-300)[..., None], torch.zeros_like(O))',
      'context = context.permute(0, 2, 1, 3)  # (B, L_Q, H, D) as the trace',
    ],
  };
}

function additiveSnippet(scn: Dict, trace: Dict): Snippet {
  const W = (scn.weights ?? {}) as Dict;
  const get = (n: string) => nested(W[n] ?? fromTrace(trace, n));
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const kind = mask.kind ?? 'none';
  const fill = fillOf(mask);
  const W_q = get('W_q'), W_k = get('W_k');
  const w_v = (get('w_v') as Json[]).flat();
  const inputs = [
    '# H = 1: the head axis of the (B, L, H, E) inputs dropped, as d2l\'s (batch, queries, features)',
    assign('queries', (scenarioTensor(scn, trace, 'q') as Json[][][]).map((b) => b.map((r) => r[0])), 'float64', '(B, L_Q, E_q)'),
    assign('keys', (scenarioTensor(scn, trace, 'k') as Json[][][]).map((b) => b.map((r) => r[0])), 'float64', '(B, L_K, E_k)'),
    assign('values', (scenarioTensor(scn, trace, 'v') as Json[][][]).map((b) => b.map((r) => r[0])), 'float64', '(B, L_K, D)'),
    assign('W_q', W_q, 'float64', `(h, E_q)${W.W_q === undefined ? ', drawn from the seed' : ''}`),
    assign('W_k', W_k, 'float64', '(h, E_k)'),
    assign('w_v', w_v, 'float64', '(h)'),
    'B, L_Q, L_K = queries.shape[0], queries.shape[1], keys.shape[1]',
  ];
  const setup = [`attention = AdditiveAttention(key_size=${shapeOf(W_k)[1]}, query_size=${shapeOf(W_q)[1]}, num_hiddens=${shapeOf(W_q)[0]}, dropout=0.0).eval()`,
    'with torch.no_grad():', '    attention.W_q.weight.copy_(W_q)', '    attention.W_k.weight.copy_(W_k)', '    attention.w_v.weight.copy_(w_v[None, :])'];
  const code = [D2L_MASKED_SOFTMAX, D2L_ADDITIVE];
  if (kind === 'none' || (kind === 'valid_lens' && fill === -1e6)) {
    if (kind === 'valid_lens') inputs.push(assign('valid_lens', nested(mask.valid_lens), 'long', "d2l's valid lengths"));
    return {
      source: "d2l's AdditiveAttention", code, inputs, main: 'context',
      run: [...setup, 'with torch.no_grad():', `    context = attention(queries, keys, values, ${kind === 'none' ? 'None' : 'valid_lens'})`,
        'weights = attention.attention_weights', 'context = context.unsqueeze(2)  # (B, L_Q, H=1, D) as the trace'],
    };
  }
  return {
    source: "d2l's AdditiveAttention's scores with the playground's boolean mask (masked_fill, softmax)", code, main: 'context',
    inputs: [...inputs, ...allowedLines(mask), `fill = ${fillPy(fill)}`],
    run: [...setup, 'with torch.no_grad():',
      '    features = torch.tanh(attention.W_q(queries).unsqueeze(2) + attention.W_k(keys).unsqueeze(1))',
      '    scores = attention.w_v(features).squeeze(-1)  # (B, L_Q, L_K), as AdditiveAttention.forward',
      'weights = torch.softmax(scores.masked_fill(~allowed, fill), dim=-1)',
      "if fill == float('-inf'):  # a row with no allowed key: zero weights",
      '    weights = weights.masked_fill(~allowed.any(dim=-1, keepdim=True), 0.0)',
      'context = torch.bmm(weights, values).unsqueeze(2)  # (B, L_Q, H=1, D) as the trace'],
  };
}

/** The prob pitfall switches and selection as changes to ProbAttention's lines. */
function probChanges(scn: Dict, trace: Dict, B: number, H: number, L_Q: number, U_part: number, fill: number): { changes: Record<string, string>; notes: string[]; inputs: string[]; attrs: string[] } {
  const changes: Record<string, string> = {};
  const notes: string[] = [];
  const inputs: string[] = [];
  const attrs: string[] = [];
  const perHead = scn.sample_per_head === true;
  const sample = nested(scn.sample_index ?? fromTrace(trace, 'sample_index'));
  inputs.push(assign('sample_index', sample, 'long', perHead ? '(H, L_Q, U_part): one sample per head (sample_per_head)' : `(L_Q, U_part)${scn.sample_index === undefined ? ': the playground\'s draw from the seed' : ''}`));
  attrs.push('attention.index_sample = sample_index');
  if (perHead) changes.K_sample = '        K_sample = K_expand[:, torch.arange(H)[:, None, None], torch.arange(L_Q)[None, :, None], index_sample, :]  # CHANGED: sample_per_head';
  const squeezeBug = scn.squeeze_bug !== false;
  if (!squeezeBug) changes.squeeze = '        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze(-2)  # CHANGED: "squeeze_bug": false';
  else if (U_part === 1) changes.squeeze = '        Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze(-2)  # CHANGED: .squeeze() would drop U_part = 1 too';
  if (scn.sparsity_divisor === 'U_part') changes.M = '        M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), sample_k)  # CHANGED: "sparsity_divisor": "U_part"';
  if (scn.causal_initial === 'mean') changes.cumsum = '            contex = V.cumsum(dim=-2) / torch.arange(1, L_V + 1)[:, None]  # CHANGED: "causal_initial": "mean"';
  if (fill !== -Infinity) changes.fill = `            scores.masked_fill_(attn_mask.mask, ${fillPy(fill)})  # CHANGED: the scenario's fill`;
  const top = scn.top_index !== undefined ? nested(scn.top_index) : null;
  if (top) {
    inputs.push(assign('top_index', top, 'long', 'the selected queries, given (no ranking by M)'));
    attrs.push('attention.top_index = top_index');
    changes.topk = '        M_top = self.top_index.expand(*M.shape[:-1], n_top)  # CHANGED: the selection given ("top_index")';
  } else if (tieAtCut(trace)) {
    inputs.push(assign('top_index', trace.top_index, 'long', '(B, H, u): the playground\'s selection (ties at the cut)'));
    attrs.push('attention.top_index = top_index');
    notes.push('# Some queries tie in M at the selection\'s cut: torch\'s topk order on ties is unspecified',
      '# (PyTorch 1.13 on the CPU may pick another of them), so the playground\'s choice (descending M,',
      '# ties to the lower index) is written in below.');
    changes.topk = '        M_top = self.top_index.reshape(*M.shape[:-1], n_top)  # CHANGED: the playground\'s tie-break (see above)';
  }
  void B; void H; void L_Q;
  return { changes, notes, inputs, attrs };
}

/** Whether some (b, h) has a tie in the sparsity at the u-th place. */
function tieAtCut(trace: Dict): boolean {
  const M = trace.sparsity as number[][][] | undefined;
  const u = trace.u as number | undefined;
  if (!Array.isArray(M) || typeof u !== 'number') return false;
  return M.some((b) => b.some((row) => {
    if (u >= row.length) return false;
    const s = [...row].sort((x, y) => y - x);
    return Math.abs(s[u - 1] - s[u]) <= 1e-12 * Math.max(1, Math.abs(s[u]));
  }));
}

function probSnippet(scn: Dict, trace: Dict): Snippet {
  const [B, L_Q, H] = shapeOf(scenarioTensor(scn, trace, 'q'));
  const L_K = shapeOf(scenarioTensor(scn, trace, 'k'))[1];
  if (L_K < 2 || L_Q < 2) fail('copy as PyTorch: the reference ProbAttention raises (or updates no query) at L = 1; use L_Q, L_K >= 2');
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const causal = mask.kind === 'causal' || mask.causal === true;
  const U_part = Number(trace.U_part ?? 0);
  const { changes, notes, inputs, attrs } = probChanges(scn, trace, B, H, L_Q, U_part, fillOf(mask));
  const factor = scn.factor ?? 5;
  const oa = scn.output_attention === true;
  return {
    source: 'Informer / Time-Series-Library ProbAttention and ProbMask', numpy: true, main: 'context',
    code: [PROB_MASK, probAttentionSource(changes)],
    inputs: [...qkv(scn, trace), ...inputs, ...notes],
    run: [`attention = ProbAttention(mask_flag=${causal ? 'True' : 'False'}, factor=${pyNum(factor)}, scale=${scn.scale !== undefined ? pyNum(scn.scale) : 'None'}, attention_dropout=0.0, output_attention=${oa ? 'True' : 'False'}).eval()`,
      ...attrs,
      'with torch.no_grad():',
      '    context, attn = attention(q, k, v, None)',
      'context = context.transpose(1, 2)  # the reference returns (B, H, L_Q, D); the trace is (B, L_Q, H, D)'],
  };
}

function multiheadSnippet(scn: Dict, trace: Dict): Snippet {
  const W = (scn.weights ?? {}) as Dict;
  const weight = (n: string) => nested(W[n] ?? fromTrace(trace, n));
  const bias = (n: string): Json | null => nested(W[n] ?? scn[n] ?? trace[n] ?? null) as Json | null;
  const biased = ['b_q', 'b_k', 'b_v', 'b_o'].some((n) => bias(n) !== null);
  const nh = Number(scn.num_heads);
  const inner = scn.inner ?? 'full';
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const kind = mask.kind ?? 'none';
  const fill = fillOf(mask);
  const inputs = [
    assign('queries', scenarioTensor(scn, trace, 'queries'), 'float64', '(B, L_Q, d_q)'),
    assign('keys', scenarioTensor(scn, trace, 'keys'), 'float64', '(B, L_K, d_k)'),
    assign('values', scenarioTensor(scn, trace, 'values'), 'float64', '(B, L_K, d_v)'),
    `num_heads = ${nh}`,
  ];
  const drawn = W.W_q === undefined ? ' (drawn from the seed)' : '';
  for (const n of ['W_q', 'W_k', 'W_v', 'W_o']) inputs.push(assign(n, weight(n), 'float64', `torch Linear layout (out, in)${drawn}`));
  for (const n of ['b_q', 'b_k', 'b_v', 'b_o']) {
    const b = bias(n);
    inputs.push(b === null ? `${n} = None` : assign(n, b));
  }
  inputs.push('B, L_Q, L_K = queries.shape[0], queries.shape[1], keys.shape[1]');
  const setProj = (obj: string, names: [string, string][]) => names.map(([attr, n]) => `${obj}.${attr} = linear(W_${n}, b_${n})`);
  if (inner === 'prob') {
    const [B, L_Q] = shapeOf(scenarioTensor(scn, trace, 'queries'));
    const L_K = shapeOf(scenarioTensor(scn, trace, 'keys'))[1];
    if (L_K < 2 || L_Q < 2) fail('copy as PyTorch: the reference ProbAttention raises (or updates no query) at L = 1; use L_Q, L_K >= 2');
    const causal = kind === 'causal' || mask.causal === true;
    const { changes, notes, inputs: pIn, attrs } = probChanges(scn, trace, B, nh, L_Q, Number(trace.U_part ?? 0), fill);
    const oa = scn.output_attention === true;
    return {
      source: "Time-Series-Library's AttentionLayer with Informer's ProbAttention (heads concatenated in order)", numpy: true,
      code: [TSLIB_FULL, TSLIB_LAYER, '\n\n' + PROB_MASK, probAttentionSource(changes), `

class ProbAttentionHeadsInOrder(ProbAttention):
    """SPEC §2: the heads concatenated in order. TSLib's ProbAttention returns (B, H, L, D), which
    AttentionLayer's out.view(B, L, -1) would scramble; Informer's own returns context.transpose(2, 1)."""
    def forward(self, queries, keys, values, attn_mask, tau=None, delta=None):
        context, attn = super().forward(queries, keys, values, attn_mask)
        return context.transpose(2, 1).contiguous(), attn
`, LINEAR_HELPER],
      inputs: [...inputs, ...pIn, ...notes], main: 'output',
      run: [`attention = ProbAttentionHeadsInOrder(mask_flag=${causal ? 'True' : 'False'}, factor=${pyNum(scn.factor ?? 5)}, scale=${scn.scale !== undefined ? pyNum(scn.scale) : 'None'}, attention_dropout=0.0, output_attention=${oa ? 'True' : 'False'})`,
        ...attrs,
        'layer = AttentionLayer(attention, queries.shape[-1], num_heads)',
        '# the projections (AttentionLayer\'s nn.Linear layers) hold the scenario\'s weights',
        ...setProj('layer', [['query_projection', 'q'], ['key_projection', 'k'], ['value_projection', 'v'], ['out_projection', 'o']]),
        'layer.eval()',
        'with torch.no_grad():',
        '    output, attn = layer(queries, keys, values, None)  # output (B, L_Q, num_hiddens)'],
    };
  }
  const d2lPlain = (kind === 'none' && mask.causal !== true) || (kind === 'valid_lens' && fill === -1e6);
  const sizes = `MultiHeadAttention(keys.shape[-1], queries.shape[-1], values.shape[-1], W_q.shape[0], num_heads, dropout=0.0, bias=${biased ? 'True' : 'False'})`;
  const run = [`attention = ${sizes}`,
    "# the projections hold the scenario's weights (nn.Linear layers of these shapes)",
    ...setProj('attention', [['W_q', 'q'], ['W_k', 'k'], ['W_v', 'v'], ['W_o', 'o']])];
  if (d2lPlain && scn.scale === undefined) {
    if (kind === 'valid_lens') inputs.push(assign('valid_lens', nested(mask.valid_lens), 'long', "d2l's valid lengths"));
    run.push('attention.eval()', 'with torch.no_grad():', `    output = attention(queries, keys, values, ${kind === 'valid_lens' ? 'valid_lens' : 'None'})  # (B, L_Q, num_hiddens)`);
    return { source: "d2l's MultiHeadAttention", code: [D2L_MASKED_SOFTMAX, D2L_DOT, D2L_MULTIHEAD, LINEAR_HELPER], inputs, run, main: 'output' };
  }
  inputs.push(...allowedLines(mask), `fill = ${fillPy(fill)}`);
  inputs.push(scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(W_q.shape[0] // num_heads)  # 1/sqrt(d_head), as d2l');
  run.push('# each head attends with the playground\'s mask (the same for every head, d2l\'s repeat_interleave)',
    'attention.attention = MaskedDotProductAttention(torch.repeat_interleave(allowed, repeats=num_heads, dim=0), fill, scale)',
    'attention.eval()', 'with torch.no_grad():', '    output = attention(queries, keys, values, None)  # (B, L_Q, num_hiddens)');
  return { source: "d2l's MultiHeadAttention with the playground's boolean mask", code: [D2L_MASKED_SOFTMAX, D2L_DOT, D2L_MULTIHEAD, MASKED_DOT, LINEAR_HELPER], inputs, run, main: 'output' };
}

function nadarayaSnippet(scn: Dict, trace: Dict): Snippet {
  const kernel = String(scn.kernel ?? 'gaussian');
  const fn = ({ gaussian: 'gaussian', boxcar: 'boxcar', constant: 'constant', epanechnikov: 'epanechikov' } as Record<string, string>)[kernel];
  if (!fn) fail(`copy as PyTorch does not know the kernel "${kernel}"`);
  const drawn = scn.x_train === undefined ? ' (d2l\'s data set, drawn from the seed)' : '';
  const inputs = [assign('x_train', nested(scn.x_train ?? fromTrace(trace, 'x_train')), 'float64', `keys${drawn}`),
    assign('y_train', nested(scn.y_train ?? fromTrace(trace, 'y_train')), 'float64', 'values'),
    assign('x_query', nested(scn.x_query ?? fromTrace(trace, 'x_query')), 'float64', 'queries'),
    `w = ${pyNum(scn.w ?? 1)}`];
  const code = [D2L_NW];
  const run: string[] = [];
  const train = scn.train as Dict | undefined;
  if (train) {
    if (kernel !== 'gaussian') code.push(NW_KERNEL_MODULE);
    inputs.push(`epochs, lr = ${pyNum(train.epochs)}, ${pyNum(train.lr)}`);
    run.push("# d2l's training: every training point a query of the others (leave-one-out), MSELoss, SGD",
      kernel === 'gaussian' ? 'net = NWKernelRegression()' : `net = NWKernel(${fn})`,
      'with torch.no_grad():', '    net.w.copy_(torch.tensor([w]))',
      'n_train = len(x_train)',
      'X_tile = x_train.repeat((n_train, 1))',
      'Y_tile = y_train.repeat((n_train, 1))',
      'keys = X_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))',
      'values = Y_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))',
      "loss = nn.MSELoss(reduction='none')",
      'trainer = torch.optim.SGD(net.parameters(), lr=lr)',
      'for epoch in range(epochs):',
      '    trainer.zero_grad()',
      '    l = loss(net(x_train, keys, values), y_train)',
      '    l.sum().backward()',
      '    trainer.step()',
      "    print(f'epoch {epoch + 1}, loss {float(l.sum()):.6f}')",
      'w = net.w.detach()[0]');
  }
  run.push(`y_hat, attention_w = nadaraya_watson(x_train, y_train, x_query, lambda x: ${fn}(x * w))`,
    'weights = attention_w.T  # (queries, keys)',
    '# a query with no key in reach (0 / 0 in d2l): zero weights and y_hat 0, as the playground',
    'empty = ~torch.isfinite(weights).all(dim=1)',
    'weights = weights.masked_fill(empty[:, None], 0.0)',
    'y_hat = y_hat.masked_fill(empty, 0.0)');
  return { source: "d2l's Nadaraya-Watson kernel regression", code, inputs, run, main: 'y_hat' };
}

function positionalSnippet(scn: Dict): Snippet {
  return {
    source: "d2l's PositionalEncoding", code: [D2L_PE], main: 'P',
    inputs: [`num_steps, encoding_dim = ${pyNum(scn.num_steps)}, ${pyNum(scn.encoding_dim)}`, `base = ${pyNum(scn.base ?? 10000)}`],
    run: ['pos_encoding = PositionalEncoding(encoding_dim, 0, max_len=num_steps, base=base).eval()',
      'X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))',
      'P = pos_encoding.P[:, :X.shape[1], :][0]  # (num_steps, encoding_dim)'],
  };
}

function linearSnippet(scn: Dict, trace: Dict): Snippet {
  const fm = String(scn.feature_map ?? 'elu1');
  const causal = ((scn.mask ?? {}) as Dict).kind === 'causal';
  const features: Record<string, string[]> = {
    elu1: ['# Katharopoulos et al.: phi(x) = elu(x) + 1', 'phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1'],
    relu: ['phi_q, phi_k = F.relu(q), F.relu(k)'],
    cosine1: ['# sim = 1 + cos(q, k) as the features [1, x / |x|]',
      'unit = lambda x: torch.cat([torch.ones_like(x[..., :1]), x / x.norm(dim=-1, keepdim=True)], dim=-1)',
      'phi_q, phi_k = unit(q), unit(k)'],
    softmax_qk: ['# softmax_1(Q) over E, softmax_2(K) over L_K (no further normalisation)',
      'phi_q, phi_k = torch.softmax(q, dim=-1), torch.softmax(k, dim=1)'],
  };
  if (!features[fm]) fail(`copy as PyTorch does not know the feature map "${fm}"`);
  return {
    source: "kernel (linear) attention as performer-pytorch's linear_attention writes it", code: [KERNEL_LINEAR], main: 'context',
    inputs: qkv(scn, trace),
    run: [...features[fm], `context, den = kernel_linear_attention(phi_q, phi_k, v, causal=${causal ? 'True' : 'False'}, normalise=${fm === 'softmax_qk' ? 'False' : 'True'})  # (B, L_Q, H, D)`],
  };
}

function performerSnippet(scn: Dict, trace: Dict): Snippet {
  const causal = ((scn.mask ?? {}) as Dict).kind === 'causal';
  const proj = nested(scn.projection ?? fromTrace(trace, 'projection'));
  return {
    source: "FAVOR+ (performer-pytorch's softmax_kernel) with linear attention", code: [KERNEL_LINEAR, SOFTMAX_KERNEL], main: 'context',
    inputs: [...qkv(scn, trace), assign('projection', proj, 'float64', `(m, E)${scn.projection === undefined ? ': the random features drawn from the seed' : ''}`),
      scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(q.shape[-1])'],
    run: ['to_bhle = lambda x: x.permute(0, 2, 1, 3)  # (B, L, H, E) <-> performer-pytorch\'s (B, H, L, E)',
      'phi_q = to_bhle(softmax_kernel(to_bhle(q), projection, scale))',
      'phi_k = to_bhle(softmax_kernel(to_bhle(k), projection, scale))',
      `context, den = kernel_linear_attention(phi_q, phi_k, v, causal=${causal ? 'True' : 'False'}, normalise=True)  # (B, L_Q, H, D)`],
  };
}

function linformerSnippet(scn: Dict, trace: Dict): Snippet {
  const drawn = scn.E_proj === undefined ? ' (drawn from the seed)' : '';
  return {
    source: "Linformer as lucidrains/linformer writes it (sequence projections by einsum, softmax attention)", code: [], main: 'context',
    inputs: [...qkv(scn, trace), assign('E_proj', nested(scn.E_proj ?? fromTrace(trace, 'E_proj')), 'float64', `(k, L_K)${drawn}`),
      assign('F_proj', nested(scn.F_proj ?? fromTrace(trace, 'F_proj')), 'float64', '(k, L_K)'),
      scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(q.shape[-1])'],
    run: ['keys = torch.einsum("bnhe,kn->bkhe", k, E_proj)  # (B, k, H, E)',
      'values = torch.einsum("bnhd,kn->bkhd", v, F_proj)',
      'scores = scale * torch.einsum("blhe,bkhe->bhlk", q, keys)',
      'weights = torch.softmax(scores, dim=-1)',
      'context = torch.einsum("bhlk,bkhd->blhd", weights, values)  # (B, L_Q, H, D)'],
  };
}

function lshSnippet(scn: Dict, trace: Dict): Snippet {
  const dup = scn.allow_duplicate_attention === false;
  const drawn = scn.rotations === undefined ? ': drawn from the seed' : '';
  return {
    source: "LSH attention (Reformer's hash, shared QK), written densely as tests/fixtures/generate.py's reference_lsh", code: [], main: 'context',
    inputs: [...qkv(scn, trace, ['q', 'v']), assign('rotations', nested(scn.rotations ?? fromTrace(trace, 'rotations')), 'float64', `(n_hashes, E, n_buckets / 2)${drawn}`),
      'B, L, H, E = q.shape',
      scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(E)'],
    run: ['# the hash: bucket = argmax([qR, -qR]) per round; the keys are the queries (shared QK)',
      'rotated = torch.einsum("blhe,rec->rbhlc", q, rotations)',
      'buckets = torch.argmax(torch.cat([rotated, -rotated], dim=-1), dim=-1)  # (n_hashes, B, H, L)',
      'scores = scale * torch.einsum("blhe,bjhe->bhlj", q, q)',
      'same = buckets[..., :, None] == buckets[..., None, :]  # (n_hashes, B, H, L, L): j in i\'s bucket',
      ...(dup ? ['# "allow_duplicate_attention": false: each round\'s scores lose log N_ij, the rounds in which i and j share a bucket',
        'scores = scores - torch.log(same.sum(0).clamp(min=1).to(torch.float64))'] : []),
      "masked = scores[None].masked_fill(~same, float('-inf'))",
      'round_logsumexp = torch.logsumexp(masked, dim=-1)',
      'round_context = torch.einsum("rbhlj,bjhd->rblhd", torch.softmax(masked, dim=-1), v)',
      '# the rounds combined by the softmax over rounds of their logsumexp',
      'round_weights = torch.softmax(round_logsumexp, dim=0)',
      'context = torch.einsum("rbhl,rblhd->blhd", round_weights, round_context)  # (B, L, H, D)'],
  };
}

function poolingSnippet(scn: Dict, trace: Dict): Snippet {
  const kernel = Number(scn.kernel), stride = Number(scn.stride ?? kernel);
  const pool = scn.pool === 'max' ? 'max' : 'avg';
  if (scn.scale === 0) fail('copy as PyTorch: TSLib\'s FullAttention reads scale 0 as "not given"');
  return {
    source: `torch's ${pool}_pool1d over the sequence, then Time-Series-Library's FullAttention`, numpy: true, code: [TSLIB_FULL], main: 'context',
    inputs: [...qkv(scn, trace), `kernel, stride = ${kernel}, ${stride}`],
    run: ['def pool_seq(x):  # (B, L, H, F) -> (B, L\', H, F), pooled along L (no padding)',
      '    B, L, H, F_ = x.shape',
      `    y = nn.functional.${pool}_pool1d(x.permute(0, 2, 3, 1).reshape(B, H * F_, L), kernel, stride)`,
      '    return y.reshape(B, H, F_, -1).permute(0, 3, 1, 2)',
      '',
      'pooled_k, pooled_v = pool_seq(k), pool_seq(v)',
      `attention = FullAttention(mask_flag=False, scale=${scn.scale !== undefined ? pyNum(scn.scale) : 'None'}, attention_dropout=0.0, output_attention=True).eval()`,
      'context, weights = attention(q, pooled_k, pooled_v, None)  # (B, L_Q, H, D)'],
  };
}

const D2L_SEQ2SEQ = `# d2l (zh), chapter "Bahdanau 注意力" and its seq2seq chapter (tests/fixtures/reference/d2l_seq2seq.py)
` + snippet(D2L_SEQ2SEQ_PY, 'd2l_seq2seq') + "\n";

/** torch's state_dict of d2l's EncoderDecoder(Seq2SeqEncoder, Seq2SeqAttentionDecoder): names and sizes. */
function seq2seqState(srcVocab: number, tgtVocab: number, e: number, h: number, layers: number): [string, number][] {
  const gru = (prefix: string, input: number): [string, number][] => Array.from({ length: layers }, (_, l) => [
    [`${prefix}.weight_ih_l${l}`, 3 * h * (l === 0 ? input : h)], [`${prefix}.weight_hh_l${l}`, 3 * h * h],
    [`${prefix}.bias_ih_l${l}`, 3 * h], [`${prefix}.bias_hh_l${l}`, 3 * h]] as [string, number][]).flat();
  return [['encoder.embedding.weight', srcVocab * e], ...gru('encoder.rnn', e),
    ['decoder.attention.W_k.weight', h * h], ['decoder.attention.W_q.weight', h * h], ['decoder.attention.w_v.weight', h],
    ['decoder.embedding.weight', tgtVocab * e], ...gru('decoder.rnn', e + h),
    ['decoder.dense.weight', tgtVocab * h], ['decoder.dense.bias', tgtVocab]];
}

/** The seeded weights (docs/semantics.md, "Bahdanau attention"): torch's default inits drawn in
 * state_dict order from Rng(seed, weights): embeddings N(0, 1), the rest U(-1/sqrt(h), 1/sqrt(h)). */
function seededSeq2seq(seed: number, state: [string, number][], h: number): Record<string, number[]> {
  const rng = new Rng(seed, RNG_STREAM.weights);
  const bound = 1 / Math.sqrt(h);
  return Object.fromEntries(state.map(([name, n]) => [name, Array.from({ length: n }, () =>
    (name.includes('embedding') ? rng.normal() : -bound + 2 * bound * rng.uniform()))]));
}

function bahdanauSnippet(scn: Dict, trace: Dict): Snippet {
  if (scn.train !== undefined) fail('copy as PyTorch is not available for bahdanau with "train" yet (the training is not written out): remove "train" to copy the forward pass');
  const [V_s, V_t, e, h, L] = ['src_vocab', 'tgt_vocab', 'embed_size', 'num_hiddens', 'num_layers'].map((k) => Number(scn[k]));
  const state = seq2seqState(V_s, V_t, e, h, L);
  const given = scn.weights as Dict | undefined;
  const weights: Record<string, Json> = given ?? seededSeq2seq(Number(scn.seed ?? 0), state, h);
  const inputs = [assign('X', nested(scn.src), 'long', 'src token ids (B, T_src)'), assign('Y', nested(scn.tgt), 'long', 'tgt token ids (B, T_tgt), teacher forcing'),
    scn.enc_valid_lens !== undefined ? assign('enc_valid_lens', nested(scn.enc_valid_lens), 'long') : 'enc_valid_lens = None',
    `src_vocab, tgt_vocab, embed_size, num_hiddens, num_layers = ${V_s}, ${V_t}, ${e}, ${h}, ${L}`,
    `# the weights in torch's state_dict order${given ? '' : ": torch's default inits as the playground drew them from the seed"}`,
    'weights = {}'];
  for (const [name] of state) {
    if (weights[name] === undefined) fail(`copy as PyTorch needs "weights.${name}"`);
    inputs.push(`weights[${JSON.stringify(name)}] = ${tensor(weights[name], 'float64', ' '.repeat(name.length + 13))}`);
  }
  return {
    source: "d2l's Seq2SeqEncoder and Seq2SeqAttentionDecoder (Bahdanau attention, dropout 0)", code: [D2L_MASKED_SOFTMAX, D2L_ADDITIVE, '\n\n' + D2L_SEQ2SEQ], main: 'output',
    inputs,
    run: ['encoder = Seq2SeqEncoder(src_vocab, embed_size, num_hiddens, num_layers)',
      'decoder = Seq2SeqAttentionDecoder(tgt_vocab, embed_size, num_hiddens, num_layers)',
      'net = EncoderDecoder(encoder, decoder)',
      'net.load_state_dict({name: w.reshape(net.state_dict()[name].shape) for name, w in weights.items()})',
      'net.eval()',
      'with torch.no_grad():',
      '    enc_outputs = net.encoder(X, enc_valid_lens)',
      '    state = net.decoder.init_state(enc_outputs, enc_valid_lens)',
      '    output, dec_state = net.decoder(Y, state)  # (B, T_tgt, tgt_vocab)',
      'weights = torch.cat(net.decoder.attention_weights, 1)  # (B, T_tgt, T_src)'],
  };
}

// ---- the snippet ----

/** The main field of a trace (SPEC §3). */
export const mainField = (trace: Dict): string => (['context', 'output', 'y_hat', 'P'].find((f) => trace[f] !== undefined) ?? 'context');

/** The Python snippet for the scenario whose trace this is. Throws (field 'kind') where there is none. */
export function pytorchSnippet(scenario: Dict, trace: Dict): string {
  const algorithm = String(trace.algorithm ?? scenario.algorithm);
  const make: Record<string, (s: Dict, t: Dict) => Snippet> = {
    full: fullSnippet, flash: flashSnippet, additive: additiveSnippet, multihead: multiheadSnippet, prob: probSnippet,
    nadaraya_watson: nadarayaSnippet, positional_encoding: positionalSnippet, linear: linearSnippet,
    performer: performerSnippet, linformer: linformerSnippet, lsh: lshSnippet, pooling: poolingSnippet, bahdanau: bahdanauSnippet,
  };
  if (!make[algorithm]) fail(`copy as PyTorch is not available for ${algorithm} yet`);
  const s = make[algorithm](scenario, trace);
  const float32 = scenario.dtype === 'float32';
  const lines = [
    `# Attention Playground: "${algorithm}" as PyTorch. The reference: ${s.source}.`,
    '# Runs in float64 on the scenario\'s inputs (every number the playground drew from its seed is written',
    `# out below); leaves the result in \`${s.main}\`, equal to the playground's trace to 1e-9.`,
    ...(float32 ? ['# The scenario asked for "dtype": "float32": this computes in float64 (the trace agrees to ~1e-5).'] : []),
    'import math',
    ...(s.numpy ? ['from math import sqrt', '', 'import numpy as np'] : ['']),
    'import torch',
    'from torch import nn',
    ...(algorithm === 'linear' ? ['import torch.nn.functional as F'] : []),
    '',
    'torch.set_default_dtype(torch.float64)',
    '',
  ];
  if (s.code.length) lines.push('', s.code.join('').trim(), '', '');
  lines.push("# ---- the scenario's inputs ----", ...s.inputs, '', '# ---- run ----', ...s.run, '',
    `print("${s.main}", tuple(${s.main}.shape))`, `print(${s.main})`);
  return lines.join('\n') + '\n';
}
