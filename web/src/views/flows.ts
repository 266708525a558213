// The algorithms' own flows (views/results.ts draws them; each algorithm's module names its own
// with `flow: flow('<name>')`): a chunk of its own, not in the first load, which has full
// attention's (results.ts, FLOW). Data only.
import { MASK, type FlowStep } from '../algorithms/module';

/** Multi-head attention: the basic-operations seed's shape chain (Linear, view, the two einsums, view, Linear). */
export const multihead: FlowStep[] = [
  { field: 'q', from: ['queries'], op: 'Linear W_q, view(B, L, H, -1)', shape: '(B, L, d_model) → (B, L, H, E)', inputs: ['queries', 'keys', 'values'] },
  { field: 'scores', from: ['q', 'k'], op: 'einsum blhe,bshe→bhls · scale', shape: '(B, L, H, E) × (B, S, H, E) → (B, H, L, S)' },
  { field: 'allowed', op: MASK },
  { field: 'head_weights', from: ['scores'], op: 'softmax(dim=-1)', shape: '(B, H, L, S) → (B, H, L, S)' },
  { field: 'head_context', from: ['head_weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '(B, H, L, S) × (B, S, H, D) → (B, L, H, D)' },
  { field: 'output', from: ['head_context'], op: 'view(B, L, -1), Linear W_o', shape: '(B, L, H, D) → (B, L, d_model)' },
];

/** An algorithm that shortens the keys and values to k (`op` K, `op` V) before softmax attention. */
const reduced = (kf: string, vf: string, op: string): FlowStep[] => [
  { field: kf, from: ['k'], op: `${op} K`, shape: '(B, L_K, H, E) → (B, k, H, E)' },
  { field: 'scores', from: ['q', kf], op: 'einsum blhe,bshe→bhls · scale', shape: '(B, L_Q, H, E) × (B, k, H, E) → (B, H, L_Q, k)' },
  { field: 'weights', from: ['scores'], op: 'softmax(dim=-1)', shape: '(B, H, L_Q, k) → (B, H, L_Q, k)' },
  { field: 'context', from: ['weights', vf], op: `einsum bhls,bshd→blhd, ${op} V`, shape: '(B, H, L_Q, k) × (B, k, H, D) → (B, L_Q, H, D)' },
];
export const linformer = reduced('projected_k', 'projected_v', 'E_proj');
export const pooling = reduced('pooled_k', 'pooled_v', 'pool');

/** Additive attention (d2l): features, then scores through w_v. */
export const additive: FlowStep[] = [
  { field: 'features', from: ['q', 'k'], op: 'tanh(W_q q + W_k k)', shape: '(B, L_Q, 1, E_q) × (B, L_K, 1, E_k) → (B, L_Q, L_K, h)' },
  { field: 'scores', from: ['features'], op: '· w_v', shape: '(B, L_Q, L_K, h) → (B, 1, L_Q, L_K)' },
  { field: 'allowed', op: MASK },
  { field: 'weights', from: ['scores'], op: 'softmax(dim=-1)', shape: '(B, 1, L_Q, L_K) → (B, 1, L_Q, L_K)' },
  { field: 'context', from: ['weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '(B, 1, L_Q, L_K) × (B, L_K, 1, D) → (B, L_Q, 1, D)' },
];

/** ProbAttention (Informer): sampled scores, the sparsity M, the top u queries' softmax, the lazy rest. */
export const prob: FlowStep[] = [
  { field: 'q_k_sample', from: ['q', 'k'], op: { en: 'Q · K_sample (U_part keys each)', zh: 'Q · K_sample（每个查询 U_part 个键）' }, shape: '(B, L_Q, H, E) × (B, L_K, H, E) → (B, H, L_Q, U_part)' },
  { field: 'sparsity', from: ['q_k_sample'], op: 'M = max − sum / L_K', shape: '(B, H, L_Q, U_part) → (B, H, L_Q)' },
  { field: 'scores_top', from: ['q', 'k'], op: 'topk(M, u): Q_top Kᵀ · scale', shape: '→ (B, H, u, L_K)' },
  { field: 'attn', from: ['scores_top'], op: { en: 'softmax(dim=-1); other rows 1/L_K', zh: 'softmax(dim=-1)；其余行 1/L_K' }, shape: '(B, H, u, L_K) → (B, H, L_Q, L_K)' },
  { field: 'context', from: ['v'], op: { en: 'top rows attn · V; the rest mean(V) (cumsum, causal)', zh: '选中行 attn · V；其余行 mean(V)（因果时 cumsum）' }, shape: '(B, L_K, H, D) → (B, L_Q, H, D)' },
];

/** Linear attention and Performer: features, then φ(Q) (φ(K)ᵀ V) over its row sums. */
const features: FlowStep[] = [
  { field: 'features_q', from: ['q'], op: 'φ(q)', shape: '(B, L_Q, H, E) → (B, L_Q, H, M)' },
  { field: 'features_k', from: ['k'], op: 'φ(k)', shape: '(B, L_K, H, E) → (B, L_K, H, M)' },
  { field: 'weights', from: ['features_q', 'features_k'], op: { en: 'φ(q_i)·φ(k_j) / Σ_j (implied)', zh: 'φ(q_i)·φ(k_j) / Σ_j（隐含）' }, shape: '→ (B, H, L_Q, L_K)' },
  { field: 'context', from: ['features_q', 'features_k', 'v'], op: 'φ(Q) (φ(K)ᵀ V) / (φ(Q) Σ_j φ(k_j))', shape: '→ (B, L_Q, H, D)' },
];
export const linear = features;
export const performer = features;

/** LSH attention (Reformer): buckets, softmax within them, the rounds combined. */
export const lsh: FlowStep[] = [
  { field: 'buckets', from: ['q'], op: 'argmax([qR; −qR])', shape: '(B, L, H, E) → (rounds, B, H, L)' },
  { field: 'weights', from: ['q', 'buckets'], op: { en: 'softmax within each bucket, rounds combined', zh: '桶内 softmax，各轮合并' }, shape: '→ (B, H, L, L)' },
  { field: 'context', from: ['weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '(B, H, L, L) × (B, L, H, D) → (B, L, H, D)' },
];

/** Differential attention: two softmax maps, their difference. */
export const diff: FlowStep[] = [
  { field: 'weights1', from: ['q', 'k'], op: 'softmax(scale · Q₁ K₁ᵀ)', shape: '→ (B, H, L_Q, L_K)' },
  { field: 'weights2', from: ['q', 'k'], op: 'softmax(scale · Q₂ K₂ᵀ)', shape: '→ (B, H, L_Q, L_K)' },
  { field: 'allowed', op: MASK },
  { field: 'weights', from: ['weights1', 'weights2'], op: 'weights1 − λ weights2' },
  { field: 'context', from: ['weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '(B, H, L_Q, L_K) × (B, L_K, H, D) → (B, L_Q, H, D)' },
];

/** FlashAttention: full attention's context, key block by key block. */
export const flash: FlowStep[] = [
  { field: 'context', from: ['q', 'k', 'v'], op: { en: 'online softmax over key blocks', zh: '按键块做在线 softmax' }, shape: '→ (B, L_Q, H, D)' },
];

/** Nadaraya-Watson kernel regression (d2l). */
export const nadaraya_watson: FlowStep[] = [
  { field: 'weights', from: ['x_query', 'x_train'], op: 'softmax(−((x − x_i) w)² / 2)', shape: '(n_q) × (n) → (n_q, n)', inputs: ['x_query', 'x_train', 'y_train'] },
  { field: 'y_hat', from: ['weights', 'y_train'], op: 'weights · y_train', shape: '(n_q, n) × (n) → (n_q)' },
];

/** Sinusoidal positional encoding (d2l). */
export const positional_encoding: FlowStep[] = [
  { field: 'P', op: 'sin / cos(i / 10000^(2j / d))', shape: '→ (L, d)', inputs: [] },
];

/** Bahdanau's decoder (d2l): additive attention over the encoder's outputs at every step. */
export const bahdanau: FlowStep[] = [
  { field: 'weights', from: ['dec_queries', 'enc_outputs'], op: 'softmax(w_vᵀ tanh(W_q q + W_k k))', shape: '(B, T_tgt, h) × (B, T_src, h) → (B, T_tgt, T_src)', inputs: ['enc_outputs', 'dec_queries'] },
  { field: 'dec_context', from: ['weights', 'enc_outputs'], op: 'weights · enc_outputs', shape: '→ (B, T_tgt, h)' },
  { field: 'output', from: ['dec_context'], op: 'GRU, Linear', shape: '→ (B, T_tgt, vocab)' },
];

// ---- modern-b (issue 16) ----
/** DeepSeek's multi-head latent attention: the latent cache, the textbook path, the absorbed path. */
export const mla: FlowStep[] = [
  { field: 'latent', from: ['x'], op: 'RMSNorm(kv_a_proj_with_mqa x [:C])', shape: '(B, L, d_model) → (B, L, C)', inputs: ['x'] },
  { field: 'k_rope', from: ['x'], op: 'RoPE(kv_a_proj_with_mqa x [C:])', shape: '(B, L, d_model) → (B, L, r)' },
  { field: 'q', from: ['x'], op: 'q_proj (or q_b_proj RMSNorm q_a_proj), RoPE on q[..., n:]', shape: '→ (B, L, H, n + r)' },
  { field: 'k', from: ['latent', 'k_rope'], op: 'cat(kv_b_proj latent [:n], k_rope)', shape: '→ (B, L, H, n + r)' },
  { field: 'allowed', op: 'mask (causal)' },
  { field: 'weights', from: ['q', 'k'], op: 'softmax(scale · Q Kᵀ)', shape: '→ (B, H, L, L)' },
  { field: 'head_context', from: ['weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '→ (B, L, H, v)' },
  { field: 'output', from: ['head_context'], op: 'view(B, L, -1), o_proj', shape: '(B, L, H, v) → (B, L, d_model)' },
  { field: 'output_absorbed', from: ['latent', 'k_rope'], op: 'q W_UK · latent + q_rot · k_rope; W_UV Σ w latent; o_proj', shape: '→ (B, L, d_model)' },
];

/** decode (modern-b, issue 16): the prefill, then one position a step over the cache. */
export const decode: FlowStep[] = [
  { field: 'allowed', op: { en: 'the cache: j ≤ i (and j < sinks or i − j < window)', zh: '缓存：j ≤ i（且 j < sinks 或 i − j < window）' } },
  { field: 'weights', from: ['q', 'k'], op: { en: 'prefill rows < P at once; then per step: cache += (k_i, v_i), evict, softmax(scale · q_i · cacheᵀ)', zh: '前 P 行一次算完；之后每步：缓存 += (k_i, v_i)，逐出，softmax(scale · q_i · 缓存ᵀ)' }, shape: '→ (B, H, L, L)' },
  { field: 'context', from: ['weights', 'v'], op: 'Σ_j w_ij v_j', shape: '→ (B, L, H, D)' },
];
