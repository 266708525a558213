#pragma once

#include "trace.hpp"

namespace attnplay {

enum class PoolKind { avg, max };

// Pooling of keys and values along L, as torch's avg_pool1d / max_pool1d (no padding).
struct PoolingOptions {
  PoolKind pool = PoolKind::avg;
  std::size_t kernel = 1;
  std::size_t stride = 1;  // the scenario's default is kernel, as torch's
};

// L' = floor((L_K - kernel) / stride) + 1, torch's output length without padding (kernel <= L_K).
std::size_t pooled_length(std::size_t L_K, std::size_t kernel, std::size_t stride);

// Keys and values pooled along L, then full attention of q against them (see pooling_attention.cpp).
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D)  ->  context (B, L_Q, H, D)
// Trace at TraceLevel::full: pooled_k (B, L', H, E), pooled_v (B, L', H, D), scores and weights
// (B, H, L_Q, L'), context, exact_context, max_abs_error; at TraceLevel::context: context.
// Throws OverflowError on "k" / "v" for an average that is not finite.
Trace pooling_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                        const PoolingOptions& options, TraceLevel level);

}  // namespace attnplay
