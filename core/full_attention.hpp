#pragma once

#include "attention_kernel.hpp"
#include "attention_rows.hpp"
#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// Scaled dot-product attention, FullAttention / d2l DotProductAttention.
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D)  ->  context (B, L_Q, H, D)
// Trace: scores, allowed, weights (B, H, L_Q, L_K) at TraceLevel::full; context always.
// The context comes from the fused kernel (attention_kernel.hpp) in the given dtype; the pictures
// of trace "full" (scores, allowed, weights) from the row kernels, in float64.
Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level);
Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level, Dtype dtype);
// Today's models' forms (SPEC §2 "Modern attention"): k and v with H_kv heads dividing H (GQA/MQA)
// and ALiBi's slopes (empty: no bias); the scores of trace "full" include the bias.
Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                     TraceLevel level, Dtype dtype, const std::vector<double>& alibi_slopes);

// What full and flash report of those forms: kv_head (H) when H_kv < H, cost.kv_cache_numbers
// (B L_K H_kv (E + D)), and at trace "full" ALiBi's bias (H, L_Q, L_K).
void add_kv_and_bias_trace(Trace& trace, const Tensor& q, const Tensor& k, const Tensor& v,
                           const std::vector<double>& alibi_slopes, TraceLevel level);

// For an approximate algorithm's trace (SPEC §3): at TraceLevel::full, `exact_context` = full
// softmax attention on the same inputs and mask (the shared row kernels, sparse where the mask
// is), and `max_abs_error` = max |trace[context_field] - exact_context|. Nothing at
// TraceLevel::context, where the point is not to pay for exact attention. Where exact attention
// overflows (scale q.k beyond 1.8e308) both are left out with a warning, not the whole run.
void add_exact_context(Trace& trace, const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                       const Mask& mask, TraceLevel level, const std::string& context_field = "context");

}  // namespace attnplay
