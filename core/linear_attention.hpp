// Linear (kernel) attention, Su Jianlin's note (seed 002, "Softmax 妙用" / "核函数" / "作者自己的构思"),
// and the linear-attention pass it shares with Performer (performer_attention.hpp).
// Not to be confused with nn_linear.hpp (torch's nn.Linear).
#pragma once

#include <string>

#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// sim(q, k) of linear attention:
//   elu1        phi(x) = elu(x) + 1                      sim = phi(q) . phi(k)
//   relu        phi(x) = max(x, 0)                       sim = phi(q) . phi(k)
//   softmax_qk  softmax_E(q) . softmax_{L_K}(k column)   no normalisation (the note's trick)
//   cosine1     phi(x) = [1, x / |x|] (E + 1 features)   sim = 1 + cos(q, k)
enum class FeatureMap { elu1, relu, softmax_qk, cosine1 };

// The library matched (SPEC §2 "reference"): SPEC's formulas, fast-transformers' LinearAttention /
// CausalLinearAttention, or performer-pytorch (its no_projection path for softmax_qk; its
// softmax_kernel in performer_attention.hpp).
enum class KernelReference { spec, fast_transformers, performer_pytorch };

// A library's guards in the pass:
//   den     added once to every denominator (fast-transformers' eps 1e-6)
//   prefix  causal only: added to every component of the keys' prefix sum z (performer-pytorch's
//           causal_linear_attention_noncuda, eps 1e-6), so the denominator gains prefix * sum_f phi(q_i)_f
struct KernelEps {
  double den = 0.0;
  double prefix = 0.0;
};
// The library's eps (none for SPEC's formulas).
KernelEps kernel_eps(KernelReference ref);

// The linear-attention pass of every kernel method (linear, performer). Given the features
// phi_q (B, L_Q, H, F), phi_k (B, L_K, H, F) and v (B, L_K, H, D), per batch item and head:
//   KV = sum_j phi_k_j v_j^T  (F, D),   z = sum_j phi_k_j  (F)       (over j <= i when causal:
//   context_i = phi_q_i^T KV / (phi_q_i . z)                          prefix sums, query by query)
// or, with normalise = false (softmax_qk), context_i = phi_q_i^T KV. A query whose denominator
// is 0 (or below) gets zero context and a warning. Sets, in this order, `weights`
// (B, H, L_Q, L_K) = the implied normalised weights, at TraceLevel::full only, and `context`
// (B, L_Q, H, D); adds the pass's share of `cost` (docs/semantics.md, "Linear attention").
// A sum that is not finite throws OverflowError on "k" (sum of phi(k)), "v" (KV) or "q".
void linear_attention_pass(const Tensor& phi_q, const Tensor& phi_k, const Tensor& v, bool causal,
                           bool normalise, TraceLevel level, Trace& trace, KernelEps eps = {});

// Linear attention with a feature map. q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D);
// `scale` is used only for the exact softmax attention beside it (exact_context). `mask` must be
// none or causal. Trace: features_q, features_k (B, L, H, F), weights (full), context,
// exact_context, max_abs_error (full).
// `ref`: fast_transformers (elu1, relu) adds eps 1e-6 to the denominator; performer_pytorch
// (softmax_qk) takes exp(k) unnormalised under the causal mask and adds its causal eps; both
// need L_Q <= L_K when causal (InputError on "q").
Trace linear_attention(const Tensor& q, const Tensor& k, const Tensor& v, FeatureMap map, double scale,
                       const Mask& mask, TraceLevel level, KernelReference ref = KernelReference::spec);

// A reference mode under the causal mask needs L_Q <= L_K: InputError on "q" otherwise.
void check_causal_lengths(KernelReference ref, std::size_t L_Q, std::size_t L_K);

// "q[0][2][1]": the path of the vector x[b, l, h, :] of an input named `name`.
std::string row_field(const char* name, std::size_t b, std::size_t l, std::size_t h);

// The kernel methods take mask "none" or "causal" only: throws InputError(field) otherwise.
void check_kernel_mask_kind(const std::string& kind, const std::string& field, const std::string& algorithm);

}  // namespace attnplay
