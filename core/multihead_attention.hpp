#pragma once

#include <optional>

#include "mask.hpp"
#include "prob_attention.hpp"
#include "trace.hpp"

namespace attnplay {

// The four projections of multi-head attention in torch.nn.Linear layout: W (out, in), b (out).
//   W_q (H * d_head, d_q), W_k (H * d_head, d_k), W_v (H * d_v_head, d_v), W_o (out, H * d_v_head)
struct MultiheadWeights {
  Tensor W_q, W_k, W_v, W_o;
  std::optional<Tensor> b_q, b_k, b_v, b_o;
};

// nn.Linear's default initialisation with the product's generator (docs/semantics.md):
// Rng(seed, RngStream::weights), uniform in [-1/sqrt(in), 1/sqrt(in)), row-major, in the order
// W_q, W_k, W_v, W_o, then (with bias) b_q, b_k, b_v, b_o. Every projection has num_hiddens
// outputs (d2l: W_o is (num_hiddens, num_hiddens)).
MultiheadWeights seeded_multihead_weights(std::uint64_t seed, std::size_t d_q, std::size_t d_k,
                                          std::size_t d_v, std::size_t num_hiddens, bool bias);

enum class InnerAttention { full, prob };

struct MultiheadOptions {
  std::size_t num_heads = 1;
  InnerAttention inner = InnerAttention::full;
  std::optional<double> scale;  // default 1/sqrt(d_head), d2l's DotProductAttention
  Mask mask;                    // any kind for full; none or causal for prob
  ProbOptions prob;             // for inner prob
  // reference "informer-mix" (Informer2020's AttentionLayer(mix=True)): the heads' output
  // (B, L_Q, H, D) is transposed to (B, H, L_Q, D) and viewed as (B, L_Q, H*D) before W_o
  bool informer_mix = false;
};

// d2l MultiHeadAttention / TSLib AttentionLayer, heads concatenated in order.
//   queries (B, L_Q, d_q), keys (B, L_K, d_k), values (B, L_K, d_v)  ->  output (B, L_Q, out)
// Throws InputError naming num_heads when it does not divide the projections' rows, and
// OverflowError naming queries, keys or values when a projection is not finite.
// Trace at TraceLevel::full: W_q, W_k, W_v, W_o (b_*), q, k, v (B, L, H, d_head), the inner
// attention's intermediates, head_weights (B, H, L_Q, L_K), head_context (B, L_Q, H, d_v_head),
// output; at TraceLevel::context: output (and head_weights for inner prob with output_attention).
Trace multihead_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                          const MultiheadWeights& weights, const MultiheadOptions& options,
                          TraceLevel level);

}  // namespace attnplay
