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

import { seededSeq2seq, seq2seqState } from './seq2seq-weights';
import { algorithm as algorithmModule } from './algorithms';
import { flashBlock, nested } from './engine/compute'; // nested: `{shape, data}` tensors as nested arrays
import D2L_PY from '../../tests/fixtures/reference/d2l.py?raw';
import TSLIB_PY from '../../tests/fixtures/reference/tslib.py?raw';
import INFORMER_PY from '../../tests/fixtures/reference/informer_prob.py?raw';
import D2L_SEQ2SEQ_PY from '../../tests/fixtures/reference/d2l_seq2seq.py?raw';
import PERFORMER_PY from '../../tests/fixtures/reference/performer.py?raw';
import PLAYGROUND_PY from '../../tests/fixtures/reference/playground.py?raw';
import MODERN_PY from '../../tests/fixtures/reference/modern.py?raw';
import DEEPSEEK_MLA_PY from '../../tests/fixtures/reference/deepseek_mla.py?raw';  // modern-b (issue 16)
import DECODE_PY from '../../tests/fixtures/reference/decode.py?raw';  // modern-b (issue 16)
// issue 17: the libraries a scenario may name (`reference`, mask.align), restated (upstream cited there)
import LIBRARIES_PY from '../../tests/fixtures/reference/libraries.py?raw';

type Json = unknown;
type Dict = Record<string, Json>;

/** An Error whose `field` names the argument at fault, as export.ts's are. */
function fail(message: string): never {
  throw Object.assign(new Error(`export: ${message}`), { field: 'kind' });
}

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

/** The playground's own reference code (tests/fixtures/reference/playground.py): its masks on any
 * attention, other kernels, heads in order, the flash loop, pooled and hashed keys. */
const playground = (name: string) => `\n# the playground's (tests/fixtures/reference/playground.py)\n${snippet(PLAYGROUND_PY, `playground_${name}`)}\n`;
const MASK = playground('mask');
const MASKED_DOT = playground('masked_dot');
const HEADS = playground('heads');
const LINEAR_HELPER = playground('linear');

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

const NW_TRAIN = playground('nw');

const D2L_PE = `# d2l (zh), chapter "自注意力和位置编码" (tests/fixtures/reference/d2l.py)
` + snippet(D2L_PY, 'd2l_pe') + "\n";

const KERNEL_LINEAR = `# performer-pytorch's linear attention (tests/fixtures/reference/performer.py)
` + snippet(PERFORMER_PY, 'kernel_linear') + '\n';

const SOFTMAX_KERNEL = '\n\n' + snippet(PERFORMER_PY, 'softmax_kernel') + '\n';

// ---- per algorithm ----

export interface Snippet {
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

/** A JSON value as a Python literal (dicts, lists, numbers, strings, booleans, None). */
function pyValue(v: Json): string {
  v = nested(v);
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyValue).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Dict).map(([k, x]) => `${JSON.stringify(k)}: ${pyValue(x)}`).join(', ')}}`;
  return pyNum(v);
}

/** The scenario's mask (SPEC §2) as playground.py's allowed (B, L_Q, L_K) and fill (MASK's code). */
function maskLines(mask: Dict): string[] {
  return [`mask = ${pyValue(mask)}`, 'allowed = allowed_matrix(mask, B, L_Q, L_K)  # allowed[b, i, j]: query i may attend to key j',
    'fill = mask_fill(mask)'];
}

/** q, k, v inputs in the reference layout (B, L, H, E). */
function qkv(scn: Dict, trace: Dict, names = ['q', 'k', 'v']): string[] {
  const notes: Record<string, string> = { q: '(B, L_Q, H, E)', k: '(B, L_K, H, E)', v: '(B, L_K, H, D)' };
  return names.map((n) => assign(n, scenarioTensor(scn, trace, n), 'float64', notes[n]));
}

/** GQA/MQA, RoPE, ALiBi (issue 16) on full (and flash's context): Llama's and BLOOM's steps as
 * tests/fixtures/reference/modern.py re-states them, then the boolean mask's softmax. */
function modernSnippet(scn: Dict, trace: Dict): Snippet | null {
  const q = shapeOf(scenarioTensor(scn, trace, 'q')), k = shapeOf(scenarioTensor(scn, trace, 'k'));
  const rope = (scn.rope ?? null) as Dict | null, alibi = scn.alibi;
  if (q[2] === k[2] && !rope && (alibi === undefined || alibi === false)) return null;
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const inputs = qkv(scn, trace);
  inputs.push('B, L_Q, H, E = q.shape', 'L_K, H_kv = k.shape[1], k.shape[2]');
  inputs.push(scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(E)');
  const run: string[] = [];
  if (rope) {
    const pos = (key: string, L: number) => (Array.isArray(rope[key]) ? pyList(rope[key]) : `list(range(${L}))`);
    const rotate = rope.style === 'interleaved' ? 'apply_rotary_interleaved' : 'apply_rotary_half';
    inputs.push(`positions_q = torch.tensor(${pos('positions_q', q[1])})`, `positions_k = torch.tensor(${pos('positions_k', k[1])})`);
    run.push(`# RoPE (${rope.style === 'interleaved' ? "Meta's complex form" : "Hugging Face's rotate_half"}): q and k turned by their positions`,
      `angles = rope_angles(int(max(positions_q.max(), positions_k.max())) + 1, E, ${pyNum(rope.base ?? 10000)})`,
      `q = ${rotate}(q.permute(0, 2, 1, 3), angles[positions_q]).permute(0, 2, 1, 3)`,
      `k = ${rotate}(k.permute(0, 2, 1, 3), angles[positions_k]).permute(0, 2, 1, 3)`);
  }
  run.push("# GQA/MQA: each kv head repeated for its group of query heads (Llama's repeat_kv)",
    'k = repeat_kv(k.permute(0, 2, 1, 3), H // H_kv).permute(0, 2, 1, 3)',
    'v = repeat_kv(v.permute(0, 2, 1, 3), H // H_kv).permute(0, 2, 1, 3)',
    "scores = scale * torch.einsum('blhe,bshe->bhls', q, k)");
  if (alibi !== undefined && alibi !== false) {
    const slopes = typeof alibi === 'object' && alibi !== null && Array.isArray((alibi as Dict).slopes) ? pyList((alibi as Dict).slopes) : 'get_slopes(H)';
    run.push(`scores = scores + alibi_bias(${slopes}, L_Q, L_K)[None]  # ALiBi: -slope_h |i - j|`);
  }
  run.push('allowed4 = allowed[:, None].expand(B, H, L_Q, L_K)',
    'weights = torch.softmax(scores.masked_fill(~allowed4, fill), dim=-1)',
    'weights = weights.masked_fill(~allowed4.any(dim=-1, keepdim=True), 0.0)  # a row with no allowed key: 0, not NaN',
    "context = torch.einsum('bhls,bshd->blhd', weights, v)  # (B, L_Q, H, D)");
  return { source: "Llama's repeat_kv and rotary embedding, ALiBi's get_slopes (re-stated in the playground's modern.py), with the playground's boolean mask",
    code: [MASK, snippet(MODERN_PY, 'modern_forms')], inputs: [...inputs, ...maskLines(mask)], main: 'context', run };
}

export function fullSnippet(scn: Dict, trace: Dict): Snippet {
  const modern = modernSnippet(scn, trace);
  if (modern) return modern;
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
  const back = 'context = from_heads(context, B, H)  # (B, L_Q, H, D) as the trace';
  if (kind === 'valid_lens' && fill === -1e6) {
    const lens = nested(mask.valid_lens);
    inputs.push(assign('valid_lens', lens, 'long', "d2l's valid lengths"));
    const run = ["# d2l's layout (B*H, L, E), batch-major as transpose_qkv", 'lens = torch.repeat_interleave(valid_lens, repeats=H, dim=0)  # as MultiHeadAttention does'];
    if (scale === undefined) {
      return {
        source: "d2l's DotProductAttention and masked_softmax", code: [D2L_MASKED_SOFTMAX, D2L_DOT, HEADS], inputs, main: 'context',
        run: [...run, 'attention = DotProductAttention(dropout=0.0).eval()',
          'context = attention(to_heads(q), to_heads(k), to_heads(v), lens)', back,
          'weights = attention.attention_weights.reshape(B, H, L_Q, L_K)'],
      };
    }
    return {
      source: "d2l's masked_softmax on the scaled scores", code: [D2L_MASKED_SOFTMAX, HEADS], inputs, main: 'context',
      run: [...run, 'scores = scale * torch.bmm(to_heads(q), to_heads(k).transpose(1, 2))',
        'weights = masked_softmax(scores, lens)', 'context = torch.bmm(weights, to_heads(v))', back,
        'weights = weights.reshape(B, H, L_Q, L_K)'],
    };
  }
  return {
    source: "d2l's DotProductAttention with the playground's boolean mask (masked_fill on the scaled scores)",
    code: [MASK, HEADS, MASKED_DOT], inputs: [...inputs, ...maskLines(mask)], main: 'context',
    run: ["# d2l's layout (B*H, L, E), batch-major as transpose_qkv", 'attention = MaskedDotProductAttention(torch.repeat_interleave(allowed, repeats=H, dim=0), fill, scale).eval()',
      'context = attention(to_heads(q), to_heads(k), to_heads(v))', back,
      'weights = attention.attention_weights.reshape(B, H, L_Q, L_K)'],
  };
}

export function flashSnippet(scn: Dict, trace: Dict): Snippet {
  const modern = modernSnippet(scn, trace); // flash's context is full's: the modern forms' reference gives it
  if (modern) return modern;
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const inputs = qkv(scn, trace);
  inputs.push('B, L_Q, H, E = q.shape', 'L_K, D = k.shape[1], v.shape[3]');
  inputs.push(scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(E)');
  const bk = isNum(trace.block_k) ? trace.block_k : isNum(scn.block_k) ? scn.block_k : flashBlock('block_k', shapeOf(scenarioTensor(scn, trace, 'k'))[1]);
  inputs.push(`block_k = ${pyNum(bk)}  # keys per block (block_q orders the work, changes no number)`);
  inputs.push(...maskLines(mask));
  return {
    source: "FlashAttention's online softmax, tile by tile (playground.py's flash_attention, as the fixtures)", code: [MASK, playground('flash')],
    inputs, main: 'context',
    run: ['context, steps = flash_attention(q, k, v, allowed, fill, scale, block_k, log=print)  # (B, L_Q, H, D)'],
  };
}

export function additiveSnippet(scn: Dict, trace: Dict): Snippet {
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
    source: "d2l's AdditiveAttention's scores with the playground's boolean mask (masked_fill, softmax)", code: [...code, MASK], main: 'context',
    inputs: [...inputs, ...maskLines(mask)],
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
  if (fill !== -Infinity) changes.fill = `            scores.masked_fill_(attn_mask.mask, ${pyNum(fill)})  # CHANGED: the scenario's fill`;
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

export function probSnippet(scn: Dict, trace: Dict): Snippet {
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

export function multiheadSnippet(scn: Dict, trace: Dict): Snippet {
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
      code: [TSLIB_FULL, TSLIB_LAYER, '\n\n' + PROB_MASK, probAttentionSource(changes), playground('heads_in_order'), LINEAR_HELPER],
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
  inputs.push(...maskLines(mask));
  inputs.push(scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(W_q.shape[0] // num_heads)  # 1/sqrt(d_head), as d2l');
  run.push('# each head attends with the playground\'s mask (the same for every head, d2l\'s repeat_interleave)',
    'attention.attention = MaskedDotProductAttention(torch.repeat_interleave(allowed, repeats=num_heads, dim=0), fill, scale)',
    'attention.eval()', 'with torch.no_grad():', '    output = attention(queries, keys, values, None)  # (B, L_Q, num_hiddens)');
  return { source: "d2l's MultiHeadAttention with the playground's boolean mask", code: [D2L_MASKED_SOFTMAX, D2L_DOT, D2L_MULTIHEAD, MASK, MASKED_DOT, LINEAR_HELPER], inputs, run, main: 'output' };
}

export function nadarayaSnippet(scn: Dict, trace: Dict): Snippet {
  const kernel = String(scn.kernel ?? 'gaussian');
  const fn = ({ gaussian: 'gaussian', boxcar: 'boxcar', constant: 'constant', epanechnikov: 'epanechikov' } as Record<string, string>)[kernel];
  if (!fn) fail(`copy as PyTorch does not know the kernel "${kernel}"`);
  const drawn = scn.x_train === undefined ? ' (d2l\'s data set, drawn from the seed)' : '';
  const inputs = [assign('x_train', nested(scn.x_train ?? fromTrace(trace, 'x_train')), 'float64', `keys${drawn}`),
    assign('y_train', nested(scn.y_train ?? fromTrace(trace, 'y_train')), 'float64', 'values'),
    assign('x_query', nested(scn.x_query ?? fromTrace(trace, 'x_query')), 'float64', 'queries'),
    `w = ${pyNum(scn.w ?? 1)}`];
  const run: string[] = [];
  const train = scn.train as Dict | undefined;
  if (train) {
    inputs.push(`epochs, lr = ${pyNum(train.epochs)}, ${pyNum(train.lr)}`);
    run.push(kernel === 'gaussian' ? 'net = NWKernelRegression()' : `net = NWKernel(${fn})`,
      'with torch.no_grad():', '    net.w.copy_(torch.tensor([w]))',
      'losses, ws = nw_train(net, x_train, y_train, epochs, lr, log=print)',
      'w = net.w.detach()[0]');
  }
  run.push(`y_hat, weights = nw_predict(x_train, y_train, x_query, ${fn}, w)  # weights (queries, keys)`);
  return { source: "d2l's Nadaraya-Watson kernel regression", code: [D2L_NW, NW_TRAIN], inputs, run, main: 'y_hat' };
}

export function positionalSnippet(scn: Dict): Snippet {
  return {
    source: "d2l's PositionalEncoding", code: [D2L_PE], main: 'P',
    inputs: [`num_steps, encoding_dim = ${pyNum(scn.num_steps)}, ${pyNum(scn.encoding_dim)}`, `base = ${pyNum(scn.base ?? 10000)}`],
    run: ['pos_encoding = PositionalEncoding(encoding_dim, 0, max_len=num_steps, base=base).eval()',
      'X = pos_encoding(torch.zeros((1, num_steps, encoding_dim)))',
      'P = pos_encoding.P[:, :X.shape[1], :][0]  # (num_steps, encoding_dim)'],
  };
}

export function linearSnippet(scn: Dict, trace: Dict): Snippet {
  const fm = String(scn.feature_map ?? 'elu1');
  const causal = ((scn.mask ?? {}) as Dict).kind === 'causal';
  return {
    source: "kernel (linear) attention as performer-pytorch's linear_attention writes it", code: [KERNEL_LINEAR, playground('features')], main: 'context',
    inputs: qkv(scn, trace),
    run: [`phi_q, phi_k = feature_maps(${JSON.stringify(fm)}, q, k)`,
      `context, den = kernel_linear_attention(phi_q, phi_k, v, causal=${causal ? 'True' : 'False'}, normalise=${fm === 'softmax_qk' ? 'False' : 'True'})  # (B, L_Q, H, D)`],
  };
}

export function performerSnippet(scn: Dict, trace: Dict): Snippet {
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

export function linformerSnippet(scn: Dict, trace: Dict): Snippet {
  const drawn = scn.E_proj === undefined ? ' (drawn from the seed)' : '';
  return {
    source: "Linformer as lucidrains/linformer writes it (sequence projections by einsum, softmax attention)", code: [playground('linformer')], main: 'context',
    inputs: [...qkv(scn, trace), assign('E_proj', nested(scn.E_proj ?? fromTrace(trace, 'E_proj')), 'float64', `(k, L_K)${drawn}`),
      assign('F_proj', nested(scn.F_proj ?? fromTrace(trace, 'F_proj')), 'float64', '(k, L_K)'),
      scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(q.shape[-1])'],
    run: ['keys, values, scores, weights, context = linformer_attention(q, k, v, E_proj, F_proj, scale)  # context (B, L_Q, H, D)'],
  };
}

export function lshSnippet(scn: Dict, trace: Dict): Snippet {
  const drawn = scn.rotations === undefined ? ': drawn from the seed' : '';
  return {
    source: "LSH attention (Reformer's hash, shared QK), written densely as the fixtures' reference (playground.py)", code: [playground('lsh')], main: 'context',
    inputs: [...qkv(scn, trace, ['q', 'v']), assign('rotations', nested(scn.rotations ?? fromTrace(trace, 'rotations')), 'float64', `(n_hashes, E, n_buckets / 2)${drawn}`),
      'B, L, H, E = q.shape',
      scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(E)'],
    run: [`result = lsh_attention(q, v, rotations, scale, allow_duplicate_attention=${scn.allow_duplicate_attention === false ? 'False' : 'True'})`,
      'context = result["context"]  # (B, L, H, D)'],
  };
}

export function poolingSnippet(scn: Dict, trace: Dict): Snippet {
  const kernel = Number(scn.kernel), stride = Number(scn.stride ?? kernel);
  const pool = scn.pool === 'max' ? 'max' : 'avg';
  if (scn.scale === 0) fail('copy as PyTorch: TSLib\'s FullAttention reads scale 0 as "not given"');
  return {
    source: `torch's ${pool}_pool1d over the sequence, then Time-Series-Library's FullAttention`, numpy: true, code: [TSLIB_FULL, playground('pool')], main: 'context',
    inputs: [...qkv(scn, trace), `pool, kernel, stride = "${pool}", ${kernel}, ${stride}`],
    run: ['pooled_k, pooled_v = pool_seq(k, pool, kernel, stride), pool_seq(v, pool, kernel, stride)',
      `attention = FullAttention(mask_flag=False, scale=${scn.scale !== undefined ? pyNum(scn.scale) : 'None'}, attention_dropout=0.0, output_attention=True).eval()`,
      'context, weights = attention(q, pooled_k, pooled_v, None)  # (B, L_Q, H, D)'],
  };
}

export function diffSnippet(scn: Dict, trace: Dict): Snippet {
  const lam = scn.lambda;
  const inputs = [...qkv(scn, trace), 'B, L_Q, H, E = q.shape', 'L_K = k.shape[1]',
    scn.scale !== undefined ? `scaling = ${pyNum(scn.scale)}` : 'scaling = (E // 2) ** -0.5  # head_dim ** -0.5, head_dim = e = E / 2',
    ...maskLines((scn.mask ?? { kind: 'none' }) as Dict),
    scn.lambda_init !== undefined ? `lambda_init = ${pyNum(scn.lambda_init)}` : `lambda_init = lambda_init_fn(${pyNum(scn.depth ?? 1)})  # depth counted from 1`];
  if (lam !== null && typeof lam === 'object') {
    const l = lam as Dict;
    for (const n of ['q1', 'k1', 'q2', 'k2']) inputs.push(assign(`lambda_${n}`, nested(l[n]), 'float64', '(e)'));
    inputs.push(`lambda_full = diff_lambda(lambda_q1, lambda_k1, lambda_q2, lambda_k2, ${l.init !== undefined ? pyNum(l.init) : 'lambda_init'})`);
  } else {
    inputs.push(lam !== undefined ? `lambda_full = ${pyNum(lam)}` : 'lambda_full = lambda_init  # no lambda given');
  }
  return {
    source: "microsoft/unilm's MultiheadDiffAttn (Diff-Transformer/multihead_diffattn.py) after its projections, no rotary, no GQA",
    code: [MASK, playground('diff')], inputs, main: 'context',
    run: ['result = diff_attention(q, k, v, allowed, fill, scaling, lambda_full, lambda_init)',
      'weights = result["weights"]  # (B, H, L_Q, L_K): weights1 - lambda weights2, may be negative',
      'normed_context = result["normed_context"]  # subln (RMSNorm over D) * (1 - lambda_init)',
      'context = result["context"]  # (B, L_Q, H, D)'],
  };
}

const D2L_SEQ2SEQ = `# d2l (zh), chapter "Bahdanau 注意力" and its seq2seq chapter (tests/fixtures/reference/d2l_seq2seq.py)
` + snippet(D2L_SEQ2SEQ_PY, 'd2l_seq2seq') + "\n";

const D2L_SEQ2SEQ_TRAIN = `
# d2l (zh), its seq2seq chapter's loss, training loop and prediction (tests/fixtures/reference/d2l_seq2seq.py)
` + snippet(D2L_SEQ2SEQ_PY, 'd2l_seq2seq_train') + "\n";

/** Current d2l-en's state_dict says the encoder's GRU encoder.rnn.rnn.* (issue 17): d2l-zh's names. */
const d2lZhNames = (w: Dict): Dict => Object.fromEntries(Object.entries(w).map(([k, v]) => [k.replace(/^encoder\.rnn\.rnn\./, 'encoder.rnn.'), v]));

export function bahdanauSnippet(scn: Dict, trace: Dict): Snippet {
  const train = scn.train as Dict | undefined;
  const tw = (trace.trained_weights ?? {}) as Dict;
  // the sizes: the scenario's, else (defaults, with train) what the trained weights' shapes say
  const fromWeights = (k: string): number => {
    const w = d2lZhNames(tw);
    const dims: Record<string, () => number> = {
      src_vocab: () => shapeOf(nested(w['encoder.embedding.weight']))[0], tgt_vocab: () => shapeOf(nested(w['decoder.embedding.weight']))[0],
      embed_size: () => shapeOf(nested(w['encoder.embedding.weight']))[1], num_hiddens: () => shapeOf(nested(w['decoder.dense.weight']))[1],
      num_layers: () => Object.keys(w).filter((n) => /^encoder\.rnn\.weight_ih_l\d+$/.test(n)).length,
    };
    return dims[k]();
  };
  const [V_s, V_t, e, h, L] = ['src_vocab', 'tgt_vocab', 'embed_size', 'num_hiddens', 'num_layers'].map((k) =>
    (scn[k] !== undefined ? Number(scn[k]) : train ? fromWeights(k) : Number(scn[k])));
  const state = seq2seqState(V_s, V_t, e, h, L);
  const given = scn.weights !== undefined ? d2lZhNames(scn.weights as Dict) : undefined;
  const enNames = scn.weights !== undefined && Object.keys(scn.weights as Dict).some((k) => k.startsWith('encoder.rnn.rnn.'));
  const sizes = `src_vocab, tgt_vocab, embed_size, num_hiddens, num_layers = ${V_s}, ${V_t}, ${e}, ${h}, ${L}`;
  const weightLines = (weights: Record<string, Json>) => {
    const lines = [`# the weights in torch's state_dict order${enNames ? " (d2l-zh's names: current d2l-en's encoder.rnn.rnn.* is d2l.GRU holding this nn.GRU)" : ''}`, 'weights = {}'];
    for (const [name] of state) {
      if (weights[name] === undefined) fail(`copy as PyTorch needs "weights.${name}"`);
      lines.push(`weights[${JSON.stringify(name)}] = ${tensor(weights[name], 'float64', ' '.repeat(name.length + 13))}`);
    }
    return lines;
  };
  const build = ['encoder = Seq2SeqEncoder(src_vocab, embed_size, num_hiddens, num_layers)',
    'decoder = Seq2SeqAttentionDecoder(tgt_vocab, embed_size, num_hiddens, num_layers)',
    'net = EncoderDecoder(encoder, decoder)'];
  const forward = ['net.eval()',
    'with torch.no_grad():',
    '    enc_outputs = net.encoder(X, enc_valid_lens)',
    '    state = net.decoder.init_state(enc_outputs, enc_valid_lens)',
    '    output, dec_state = net.decoder(Y, state)  # (B, T_tgt, tgt_vocab)',
    'weights = torch.cat(net.decoder.attention_weights, 1)  # (B, T_tgt, T_src)'];
  const batch = () => [assign('X', nested(scn.src), 'long', 'src token ids (B, T_src)'), assign('Y', nested(scn.tgt), 'long', 'tgt token ids (B, T_tgt), teacher forcing'),
    scn.enc_valid_lens !== undefined ? assign('enc_valid_lens', nested(scn.enc_valid_lens), 'long') : 'enc_valid_lens = None'];
  if (train) {
    // d2l's train_seq2seq on the task the core draws (SplitMix64, written out in playground.py), then
    // the held-out example: predicted greedily (heldout_weights) and with teacher forcing (output)
    const num = (k: string, d: number) => (train[k] !== undefined ? Number(train[k]) : d);
    const maxLen = num('max_len', 5);
    const tr = { task: String(train.task ?? 'reverse'), n_examples: num('n_examples', 500), epochs: num('epochs', 20), batch_size: num('batch_size', 32),
      min_len: num('min_len', Math.min(3, maxLen)), max_len: maxLen, lr: num('lr', 0.01), seed: num('seed', Number(scn.seed ?? 0)) };
    const inputs = [sizes, `train = dict(task=${JSON.stringify(tr.task)}, n_examples=${tr.n_examples}, epochs=${tr.epochs}, batch_size=${tr.batch_size}, ` +
      `min_len=${tr.min_len}, max_len=${tr.max_len}, lr=${pyNum(tr.lr)}, seed=${tr.seed})`,
    ...(given ? weightLines(given as Record<string, Json>) : [`seed = ${Number(scn.seed ?? 0)}  # the weights: torch's default inits, then d2l's xavier_init_weights, drawn from the seed`]),
    ...(scn.src !== undefined ? batch() : [])];
    return {
      source: "d2l's train_seq2seq on the playground's task, then its Seq2SeqAttentionDecoder on the held-out example (Bahdanau attention, dropout 0)",
      code: [D2L_MASKED_SOFTMAX, D2L_ADDITIVE, '\n\n' + D2L_SEQ2SEQ, D2L_SEQ2SEQ_TRAIN, playground('seq2seq_task')], main: 'output', inputs,
      run: [...build,
        given ? 'net.load_state_dict({name: w.reshape(net.state_dict()[name].shape) for name, w in weights.items()})'
          : 'net.load_state_dict(seeded_state(net, seed, xavier=True))',
        "minibatches, held = task_data(train, src_vocab)  # each epoch's shuffled minibatches, and the held-out example",
        "loss = torch.tensor(train_seq2seq(net, minibatches, train['lr'], train['epochs'], {'<bos>': BOS}, 'cpu', init=False))  # per epoch",
        'print("loss", loss)',
        "steps = train['max_len'] + 1",
        'heldout_src, heldout_valid_len, heldout_label, _ = held',
        "predicted, attention = predict_seq2seq(net, heldout_src[:heldout_valid_len], {'<bos>': BOS, '<eos>': EOS, '<pad>': PAD}, steps, 'cpu', save_attention_weights=True)",
        'heldout_weights = torch.cat([w[0][0] for w in attention], 0).reshape(len(attention), steps)',
        'print("predicted", predicted)',
        ...(scn.src !== undefined ? [] : ['# the held-out example with teacher forcing: <bos> + its label[:-1]',
          'X, Y = torch.tensor([heldout_src]), torch.tensor([[BOS] + heldout_label[:-1]])', 'enc_valid_lens = torch.tensor([heldout_valid_len])']),
        ...forward],
    };
  }
  const weights: Record<string, Json> = (given as Record<string, Json> | undefined) ?? seededSeq2seq(Number(scn.seed ?? 0), state, h);
  const inputs = [...batch(), sizes, ...weightLines(weights).map((l, i) => (i === 0 && !given ? `${l}: torch's default inits as the playground drew them from the seed` : l))];
  return {
    source: "d2l's Seq2SeqEncoder and Seq2SeqAttentionDecoder (Bahdanau attention, dropout 0)", code: [D2L_MASKED_SOFTMAX, D2L_ADDITIVE, '\n\n' + D2L_SEQ2SEQ], main: 'output',
    inputs,
    run: [...build,
      'net.load_state_dict({name: w.reshape(net.state_dict()[name].shape) for name, w in weights.items()})',
      ...forward],
  };
}

// ---- the snippet ----

/** The Python snippet for the scenario whose trace this is, made by its algorithm's builder
 * (web/src/algorithms/<name>.ts). Throws (field 'kind') where there is none. */
export async function pytorchSnippet(scenario: Dict, trace: Dict): Promise<string> {
  const algorithm = String(trace.algorithm ?? scenario.algorithm);
  const builder = algorithmModule(algorithm)?.pytorch;
  if (!builder) fail(`copy as PyTorch is not available for ${algorithm} yet`);
  const s = librarySnippet(scenario, trace) ?? (await builder())(scenario, trace);
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
    '',
    'torch.set_default_dtype(torch.float64)',
    '',
  ];
  if (s.code.length) lines.push('', s.code.join('').trim(), '', '');
  lines.push("# ---- the scenario's inputs ----", ...s.inputs, '', '# ---- run ----', ...s.run, '',
    `print("${s.main}", tuple(${s.main}.shape))`, `print(${s.main})`);
  return lines.join('\n') + '\n';
}

// ---- modern-b (issue 16): mla ----
const DEEPSEEK_MLA = `# MLA as Hugging Face transformers' DeepseekV3Attention computes it (eager) and DeepSeek-V3's absorbed
# inference path, re-stated in tests/fixtures/reference/deepseek_mla.py (upstream commits and licenses there)
` + snippet(DEEPSEEK_MLA_PY, 'deepseek_mla') + "\n";

const MLA_WEIGHTS = ['q_a_proj.weight', 'q_a_layernorm.weight', 'q_b_proj.weight', 'q_proj.weight', 'kv_a_proj_with_mqa.weight',
  'kv_a_layernorm.weight', 'kv_b_proj.weight', 'o_proj.weight'];

export function mlaSnippet(scn: Dict, trace: Dict): Snippet {
  const given = scn.weights as Dict | undefined;
  const drawn = trace.state_dict as Dict | undefined;
  if (!given && !drawn) fail('copy as PyTorch needs the trace\'s "state_dict" (the weights drawn from the seed): run the scenario with "trace": "full"');
  const W = (given ?? drawn) as Dict;
  const q = scn.q_lora_rank ?? null;
  const inputs = [assign('x', scenarioTensor(scn, trace, 'x'), 'float64', '(B, L, d_model)'),
    `num_heads, q_lora_rank, kv_lora_rank = ${Number(scn.num_heads)}, ${q === null ? 'None' : Number(q)}, ${Number(scn.kv_lora_rank)}`,
    `qk_nope_head_dim, qk_rope_head_dim, v_head_dim = ${Number(scn.qk_nope_head_dim)}, ${Number(scn.qk_rope_head_dim)}, ${Number(scn.v_head_dim)}`,
    `# DeepseekV3Attention.state_dict()${given ? '' : ": torch's default Linear inits and RMSNorm ones, as the playground drew them from the seed"}`,
    'state = {}'];
  for (const name of MLA_WEIGHTS) {
    if (W[name] === undefined) continue;
    inputs.push(`state[${JSON.stringify(name)}] = ${tensor(nested(W[name]) as Json, 'float64', ' '.repeat(name.length + 11))}`);
  }
  inputs.push('B, L, d_model = x.shape', 'L_Q = L_K = L', ...maskLines((scn.mask ?? { kind: 'causal' }) as Dict));
  return {
    source: "Hugging Face transformers' DeepseekV3Attention (its forward) and DeepSeek-V3's absorbed inference path (attn_impl \"absorb\")",
    code: [MASK, DEEPSEEK_MLA], inputs, main: 'output',
    run: ['attn = LatentAttention(d_model, num_heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim)',
      'attn.load_state_dict(state)  # DeepseekV3Attention.state_dict() names',
      ...(scn.scale !== undefined ? [`attn.scaling = ${pyNum(scn.scale as Json)}`] : []),
      'attention_mask = torch.zeros(B, 1, L, L).masked_fill(~allowed[:, None], fill)  # additive, as the class takes it',
      'with torch.no_grad():  # RoPE at positions 0..L-1',
      '    output, attn_weights = latent_attention(attn, x, attention_mask)  # (B, L, d_model), (B, H, L, L)',
      '    output_absorbed, latent, k_rope = latent_attention_absorbed(attn, x, attention_mask)',
      'print((output - output_absorbed).abs().max())  # the two paths agree'],
  };
}

// ---- modern-b (issue 16): decode ----
export function decodeSnippet(scn: Dict, trace: Dict): Snippet {
  const cache = (scn.cache ?? null) as Dict | null, rope = (scn.rope ?? null) as Dict | null;
  const q = shapeOf(scenarioTensor(scn, trace, 'q'));
  const inputs = qkv(scn, trace);
  inputs.push('B, L, H, E = q.shape');
  inputs.push(scn.scale !== undefined ? `scale = ${pyNum(scn.scale)}` : 'scale = 1.0 / math.sqrt(E)');
  inputs.push(`prompt = ${Number(trace.prompt ?? scn.prompt ?? Math.max(q[1] - 4, 1))}`,
    cache ? `window, sinks = ${Number(cache.window)}, ${Number(cache.sinks ?? 0)}  # StreamingLLM: the first sinks + the last window` : 'window, sinks = None, 0  # keep every token',
    `rope = ${rope ? pyValue(rope) : 'None'}`);
  return {
    source: "a KV-cache decoder (Hugging Face's DynamicLayer.update, StreamingLLM's StartRecentKVCache; Llama's repeat_kv and rotary embedding), re-stated in the playground's decode.py and modern.py",
    code: [snippet(MODERN_PY, 'modern_forms') + '\n\n\n', snippet(DECODE_PY, 'decode') + '\n'], inputs, main: 'context',
    run: ['# (B, L, H, E) -> (B, H, L, E), the layout the cache keeps',
      'context, weights, steps = decode(q.permute(0, 2, 1, 3), k.permute(0, 2, 1, 3), v.permute(0, 2, 1, 3), scale, prompt, window, sinks, rope)',
      'for t, (held, w) in enumerate(steps):',
      '    print(f"step {t}: position {prompt + t}, the cache holds {held}")',
      'context = context.permute(0, 2, 1, 3)  # (B, L, H, D)'],
  };
}

// ---- the library a scenario names (issue 17, item 3) ----
//
// With `reference` (or mask.align "bottom_right") the snippet runs that library's function as
// tests/fixtures/reference/libraries.py restates it: our code, the same arithmetic (equal to the
// unmodified upstream function to 1e-9 in float64; its header names repository, commit, path and
// license). It imports nothing but math, torch and nn; the fixtures run the same lines.

const lib = (name: string) => `${snippet(LIBRARIES_PY, name)}\n`;

/** lucidrains/performer-pytorch's FastAttention.forward (restated), in our (B, L, H, .) layout around it. */
function performerPytorch(scn: Dict, trace: Dict, inputs: string[], features: string[]): Snippet {
  const causal = ((scn.mask ?? {}) as Dict).kind === 'causal';
  return {
    source: "performer-pytorch (lucidrains): softmax_kernel / no_projection with linear_attention, restated", main: 'context',
    code: [lib('lib_performer')],
    inputs: [...qkv(scn, trace), ...inputs],
    run: ["bhl = lambda x: x.permute(0, 2, 1, 3)  # ours (B, L, H, .) <-> performer-pytorch's (B, H, L, .)", ...features,
      `context = bhl(${causal ? 'performer_causal' : 'performer_linear'}(phi_q, phi_k, bhl(v)))  # (B, L_Q, H, D)`],
  };
}

function fastTransformers(scn: Dict, trace: Dict): Snippet {
  const causal = ((scn.mask ?? {}) as Dict).kind === 'causal';
  const fm = String(scn.feature_map ?? 'elu1');
  return {
    source: "fast-transformers (idiap): LinearAttention / CausalLinearAttention, restated", main: 'context',
    code: [lib('lib_fast_transformers')],
    inputs: qkv(scn, trace),
    run: [`context = ${causal ? 'fast_transformers_causal' : 'fast_transformers_linear'}(q, k, v, ${JSON.stringify(fm)})  # (B, L_Q, H, D)`],
  };
}

function flashAttnRef(scn: Dict, trace: Dict): Snippet {
  const mask = scn.mask as Dict;
  const causal = mask.kind === 'causal' || mask.causal === true;
  const window = mask.kind === 'local' ? `(${pyNum(mask.window)}, ${pyNum(mask.window)})` : '(-1, -1)';
  const scaled = scn.scale !== undefined;
  return {
    source: "flash-attn's attention_ref (its tests: causal and local masks aligned to the last key), restated", main: 'context',
    code: [lib('lib_flash_attn')],
    inputs: [...qkv(scn, trace), ...(scaled ? [`scale = ${pyNum(scn.scale)}`] : [])],
    run: [...(scaled ? ['q = q * (scale * math.sqrt(q.shape[-1]))  # attention_ref scales by 1/sqrt(E): the scenario\'s scale instead'] : []),
      `context, weights = flash_attention_ref(q, k, v, causal=${causal ? 'True' : 'False'}, window=${window})  # attention_ref(..., upcast=False)`],
  };
}

function informerMix(scn: Dict, trace: Dict): Snippet {
  const mask = (scn.mask ?? { kind: 'none' }) as Dict;
  const kind = mask.kind ?? 'none';
  if (kind !== 'none' && kind !== 'causal') fail(`copy as PyTorch: Informer2020's attention takes no mask but its causal one, got "${String(kind)}"`);
  const W = (scn.weights ?? {}) as Dict;
  const weight = (n: string) => nested(W[n] ?? fromTrace(trace, n));
  const bias = (n: string): Json | null => nested(W[n] ?? scn[n] ?? trace[n] ?? null) as Json | null;
  const prob = scn.inner === 'prob';
  const inputs = [assign('queries', scenarioTensor(scn, trace, 'queries'), 'float64', '(B, L_Q, d_q)'),
    assign('keys', scenarioTensor(scn, trace, 'keys'), 'float64', '(B, L_K, d_k)'),
    assign('values', scenarioTensor(scn, trace, 'values'), 'float64', '(B, L_K, d_v)'), `num_heads = ${Number(scn.num_heads)}`];
  for (const n of ['W_q', 'W_k', 'W_v', 'W_o']) inputs.push(assign(n, weight(n), 'float64', 'torch Linear layout (out, in)'));
  for (const n of ['b_q', 'b_k', 'b_v', 'b_o']) inputs.push(bias(n) === null ? `${n} = torch.zeros(W_${n.slice(2)}.shape[0])  # nn.Linear's bias, absent: 0` : assign(n, bias(n)));
  const scale = scn.scale !== undefined ? pyNum(scn.scale) : 'None';
  const causal = kind === 'causal' ? 'True' : 'False';
  const run: string[] = [];
  if (prob) {
    inputs.push(assign('sample_index', nested(scn.sample_index ?? fromTrace(trace, 'sample_index')), 'long', `(L_Q, U_part)${scn.sample_index === undefined ? ': drawn from the seed' : ''}: what ProbAttention samples`));
    run.push(`inner = lambda q, k, v: informer_prob(q, k, v, sample_index, ${causal}, factor=${pyNum(scn.factor ?? 5)}, scale=${scale})`);
  } else {
    run.push(`inner = lambda q, k, v: informer_full(q, k, v, ${causal}, scale=${scale})`);
  }
  run.push("weights, biases = dict(q=W_q, k=W_k, v=W_v, o=W_o), dict(q=b_q, k=b_k, v=b_v, o=b_o)",
    'with torch.no_grad():',
    "    output, heads = informer_layer(queries, keys, values, weights, biases, num_heads, inner, mix=True)  # (B, L_Q, d_model); mix=True: Informer's decoder");
  return { source: "Informer2020's AttentionLayer(mix=True) (heads and positions mixed before W_o), restated", main: 'output',
    code: [lib('lib_informer')], inputs, run };
}

function d2lEnNadaraya(scn: Dict, trace: Dict): Snippet {
  const base = nadarayaSnippet({ ...scn, train: undefined }, trace);
  const train = scn.train as Dict | undefined;
  if (!train) return { ...base, source: `${base.source} (d2l-en changes only the training)` };
  const kernel = String(scn.kernel ?? 'gaussian');
  return { ...base, source: "d2l-en 0.17.0's Nadaraya-Watson training (MSELoss / 2), restated",
    code: [...base.code, `\n\n${lib('lib_d2l_en_nw')}`],
    inputs: [...base.inputs, `epochs, lr = ${pyNum(train.epochs)}, ${pyNum(train.lr)}`],
    run: [kernel === 'gaussian' ? 'net = NWGaussianD2lEn(w)  # d2l-en\'s NWKernelRegression' : `net = NWKernel(${kernel === 'epanechnikov' ? 'epanechikov' : kernel})  # another kernel of u = (x - x_i) w in d2l-en's loop`,
      'with torch.no_grad():', '    net.w.copy_(torch.tensor([w]))',
      'losses, ws = train_nw_d2l_en_017(net, x_train, y_train, epochs, lr)', 'print("loss per epoch", losses)', 'w = net.w.detach()[0]',
      ...base.run] };
}

function reformerLsh(scn: Dict, trace: Dict): Snippet {
  const rotations = nested(scn.rotations ?? fromTrace(trace, 'rotations'));
  const [n_hashes, , half] = shapeOf(rotations);
  return {
    source: "reformer-pytorch's LSHAttention (lucidrains), restated", main: 'context',
    code: [lib('lib_reformer')],
    inputs: [...qkv(scn, trace, ['q', 'v']), assign('rotations', rotations, 'float64', `(n_hashes, E, n_buckets / 2)${scn.rotations === undefined ? ': drawn from the seed' : ''}: what LSHAttention draws`)],
    run: ['B, L, H, E = q.shape', 'fold = lambda x: x.permute(0, 2, 1, 3).reshape(B * H, L, x.shape[-1])  # ours -> (B*H, L, .): heads as batch items',
      `out, weights, buckets = reformer_lsh(fold(q), fold(v), rotations, bucket_size=L // ${2 * half}, attend_across_buckets=${scn.attend_across_buckets === false ? 'False' : 'True'}, allow_duplicate_attention=${scn.allow_duplicate_attention === false ? 'False' : 'True'})  # ${n_hashes} rounds`,
      'context = out.reshape(B, H, L, -1).permute(0, 2, 1, 3)  # (B, L, H, D)'],
  };
}

/** The snippet of the library the scenario names, or null (SPEC's formulas: the algorithm's own builder). */
function librarySnippet(scn: Dict, trace: Dict): Snippet | null {
  const algorithm = String(trace.algorithm ?? scn.algorithm);
  const ref = scn.reference;
  if (((scn.mask ?? {}) as Dict).align === 'bottom_right') return flashAttnRef(scn, trace);
  if (ref === undefined) return null;
  const causal = ((scn.mask ?? {}) as Dict).kind === 'causal';
  if (algorithm === 'performer') {
    return performerPytorch(scn, trace, [assign('projection', nested(scn.projection ?? fromTrace(trace, 'projection')), 'float64', '(m, E)')],
      ['phi_q = performer_features(bhl(q), projection, is_query=True)  # softmax_kernel',
        'phi_k = performer_features(bhl(k), projection, is_query=False)']);
  }
  if (algorithm === 'linear' && ref === 'performer-pytorch') {
    return performerPytorch(scn, trace, [], [`phi_q, phi_k = performer_no_projection(bhl(q), bhl(k), causal=${causal ? 'True' : 'False'})  # FastAttention(no_projection=True)`]);
  }
  if (algorithm === 'linear') return fastTransformers(scn, trace);
  if (algorithm === 'multihead') return informerMix(scn, trace);
  if (algorithm === 'nadaraya_watson') return d2lEnNadaraya(scn, trace);
  if (algorithm === 'lsh') return reformerLsh(scn, trace);
  return null;
}
