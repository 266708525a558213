#pragma once

#include <cstdint>

#include "trace.hpp"

namespace attnplay {

// Linformer's projections E_proj and F_proj, (k, L_K) each.
struct LinformerProjections {
  Tensor E_proj, F_proj;
};

// Seeded projections as the authors' code (fairseq examples/linformer) initialises its
// compress_k / compress_v = nn.Linear(L_K, k, bias=False): xavier_uniform_ with gain 1/sqrt(2),
// i.e. uniform in [-sqrt(3 / (L_K + k)), sqrt(3 / (L_K + k))), drawn from
// Rng(seed, RngStream::weights) row-major, all of E_proj before F_proj.
LinformerProjections linformer_projections(std::uint64_t seed, std::size_t proj_len, std::size_t L_K);

// Linformer: softmax(scale * Q (E_proj K)^T) (F_proj V) per batch and head (see linformer_attention.cpp).
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D), E_proj and F_proj (k, L_K)
//   -> context (B, L_Q, H, D)
// Trace at TraceLevel::full: E_proj, F_proj, projected_k (B, k, H, E), projected_v (B, k, H, D),
// scores and weights (B, H, L_Q, k), context, exact_context, max_abs_error; at
// TraceLevel::context: context. Throws OverflowError on "k" / "v" for a projection that is not
// finite, on "q" / "scale" for a score that is not.
Trace linformer_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                          const LinformerProjections& projections, TraceLevel level);

}  // namespace attnplay
