#pragma once

#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// The learnable parameters of d2l's AdditiveAttention (three bias-free nn.Linear layers), in
// torch's (out, in) layout: W_q (h, E_q), W_k (h, E_k), w_v (h) (w_v's (1, h) without the 1).
struct AdditiveWeights {
  Tensor W_q, W_k, w_v;
};

// Seeded weights, torch.nn.Linear's default init: uniform in [-1/sqrt(in), 1/sqrt(in)), drawn
// row-major from the weights stream in the order W_q (in = E_q), W_k (in = E_k), w_v (in = h).
AdditiveWeights seeded_additive_weights(std::uint64_t seed, std::size_t hidden, std::size_t E_q,
                                        std::size_t E_k);

// Additive attention, d2l AdditiveAttention (no bias, no scale, one head).
//   q (B, L_Q, 1, E_q), k (B, L_K, 1, E_k), v (B, L_K, 1, D)  ->  context (B, L_Q, 1, D)
// Trace at TraceLevel::full: features (B, L_Q, L_K, h) = tanh(W_q q + W_k k), then scores, allowed,
// weights (B, 1, L_Q, L_K); context always. Projections or scores that are not finite throw
// OverflowError on "q", "k" or "weights.w_v".
Trace additive_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                         const AdditiveWeights& weights, const Mask& mask, TraceLevel level);

}  // namespace attnplay
