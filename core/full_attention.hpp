#pragma once

#include "attention_rows.hpp"
#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// Scaled dot-product attention, FullAttention / d2l DotProductAttention.
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D)  ->  context (B, L_Q, H, D)
// Trace: scores, allowed, weights (B, H, L_Q, L_K) at TraceLevel::full; context always.
Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level);

// For an approximate algorithm's trace (SPEC §3): at TraceLevel::full, `exact_context` = full
// softmax attention on the same inputs and mask (the shared row kernels, sparse where the mask
// is), and `max_abs_error` = max |trace[context_field] - exact_context|. Nothing at
// TraceLevel::context, where the point is not to pay for exact attention.
void add_exact_context(Trace& trace, const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                       const Mask& mask, TraceLevel level, const std::string& context_field = "context");

}  // namespace attnplay
