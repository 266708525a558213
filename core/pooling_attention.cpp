// Pooling attention: the note's "下采样技术" (seed 002): Linformer's Q (E K)^T shortens the
// sequence of keys, "and the plainest way to do that is pooling". Keys and values are pooled
// along L, without padding, as torch's avg_pool1d / max_pool1d over the (B, H*E, L) layout:
//
//   pooled_k[b,l,h,:] = pool_{j in [l*stride, l*stride + kernel)} k[b,j,h,:]    (avg or max, per column)
//   pooled_v[b,l,h,:] = the same with v
//   context = softmax(scale * Q pooled_K^T) pooled_V   per batch item and head
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D); scale default 1/sqrt(E).
//   1. L'       = floor((L_K - kernel) / stride) + 1 (kernel <= L_K; stride defaults to kernel)
//   2. pooled_k (B, L', H, E), pooled_v (B, L', H, D): the windows' mean, or max per column
//   3. scores, weights (B, H, L_Q, L') and context (B, L_Q, H, D): full_attention() on the pooled
//      keys and values (no mask: a pooled key stands for a whole window of positions)
//   beside it, at trace "full": exact_context (full attention on q, k, v) and max_abs_error.
//
// kernel 1, stride 1 pools nothing: exactly full attention. Max pooling takes each column's
// maximum on its own, so a pooled key need not be any one of the keys.
//
// Cost: dot_products = B*H*L_Q*L' (step 3); flops = step 3's flops + B*L'*H*(E + D)*(kernel - 1):
// the additions or comparisons of step 2's windows (an average's division not counted), so
// kernel 1 costs exactly what full attention does.
#include "pooling_attention.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "full_attention.hpp"
#include "mask.hpp"

namespace attnplay {

std::size_t pooled_length(std::size_t L_K, std::size_t kernel, std::size_t stride) {
  return (L_K - kernel) / stride + 1;
}

namespace {

// Step 2 for one tensor X (B, L_K, H, F) -> (B, L', H, F). Throws OverflowError on `field` for a
// window whose sum is not finite (avg of numbers near the double limit).
Tensor pool(const Tensor& X, const PoolingOptions& o, const std::string& field) {
  const std::size_t L_out = pooled_length(X.shape()[1], o.kernel, o.stride);
  Tensor pooled = Tensor::from_shape({X.shape()[0], L_out, X.shape()[2], X.shape()[3]});
  for (std::size_t l = 0; l < L_out; ++l) {
    // `F.avg_pool1d(x, kernel, stride)` / `F.max_pool1d(...)`: window l is x[:, l*stride : l*stride + kernel]
    const auto window = xt::view(X, xt::all(), xt::range(l * o.stride, l * o.stride + o.kernel), xt::all(), xt::all());
    const Tensor pooled_l = o.pool == PoolKind::avg ? Tensor(xt::mean(window, {1})) : Tensor(xt::amax(window, {1}));
    if (!std::all_of(pooled_l.begin(), pooled_l.end(), [](double x) { return std::isfinite(x); }))
      throw OverflowError(field, "the average of window " + std::to_string(l) + " of " + field +
                                     " is not a finite number (its sum overflows); use smaller " + field);
    xt::view(pooled, xt::all(), l, xt::all(), xt::all()) = pooled_l;
  }
  return pooled;
}

}  // namespace

Trace pooling_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                        const PoolingOptions& options, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  // 1-2. pooled keys and values
  Tensor pooled_k = pool(k, options, "k");
  Tensor pooled_v = pool(v, options, "v");
  const std::size_t L_out = pooled_k.shape()[1];

  // 3. full attention against them
  const Trace inner = full_attention(q, pooled_k, pooled_v, scale, Mask{}, level);

  Trace trace;
  if (level == TraceLevel::full) {
    trace.set("pooled_k", std::move(pooled_k));
    trace.set("pooled_v", std::move(pooled_v));
  }
  for (const auto& [name, value] : inner.fields)
    if (name != "allowed") trace.set(name, value);  // no mask: every pooled key is allowed
  add_exact_context(trace, q, k, v, scale, Mask{}, level);
  trace.cost = inner.cost;
  trace.cost.dense_dot_products = std::uint64_t{B} * H * L_Q * L_K;
  trace.cost.flops += std::uint64_t{B} * L_out * H * (E + D) * (options.kernel - 1);
  trace.warnings = inner.warnings;
  return trace;
}

}  // namespace attnplay
