// The algorithms' own flows (views/results.ts draws them; each algorithm's module names its own
// with `flow: flow('<name>')`): a chunk of its own, not in the first load, which has full
// attention's (results.ts, FLOW). Data only.
import type { FlowStep } from '../algorithms/module';

/** Multi-head attention: the basic-operations seed's shape chain (Linear, view, the two einsums, view, Linear). */
export const multihead: FlowStep[] = [
  { field: 'q', from: ['queries'], op: 'Linear W_q, view(B, L, H, -1)', shape: '(B, L, d_model) → (B, L, H, E)', inputs: ['queries', 'keys', 'values'] },
  { field: 'scores', from: ['q', 'k'], op: 'einsum blhe,bshe→bhls · scale', shape: '(B, L, H, E) × (B, S, H, E) → (B, H, L, S)' },
  { field: 'allowed', op: 'mask' },
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
  { field: 'allowed', op: 'mask' },
  { field: 'weights', from: ['scores'], op: 'softmax(dim=-1)', shape: '(B, 1, L_Q, L_K) → (B, 1, L_Q, L_K)' },
  { field: 'context', from: ['weights', 'v'], op: 'einsum bhls,bshd→blhd', shape: '(B, 1, L_Q, L_K) × (B, L_K, 1, D) → (B, L_Q, 1, D)' },
];
