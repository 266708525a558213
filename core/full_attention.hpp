#pragma once

#include <algorithm>
#include <cmath>

#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// Scaled dot-product attention, FullAttention / d2l DotProductAttention.
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D)  ->  context (B, L_Q, H, D)
// Trace: scores, allowed, weights (B, H, L_Q, L_K) at TraceLevel::full; context always.
Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level);

// 1/sqrt(E), the default scale of every dot-product algorithm.
double default_scale(std::size_t E);

// Throws OverflowError for the score scale * q[b,i,h] . k[b,j,h] found not finite: on "scale"
// when q.k itself is finite, on "q" otherwise. Shared by full and prob attention.
[[noreturn]] void throw_score_overflow(const Tensor& q, const Tensor& k, std::size_t b,
                                       std::size_t i, std::size_t h, std::size_t j);

// The two row kernels of every softmax attention here (full, prob, additive):
// out[j] = scale * q[b,i,h,:] . k[b,j,h,:] for every key j; a score that is not finite throws
// (OverflowError on "q" or "scale", see throw_score_overflow).
inline void score_row(const Tensor& q, const Tensor& k, std::size_t b, std::size_t i, std::size_t h,
                      double scale, double* out) {
  const std::size_t L_K = k.shape()[1], E = q.shape()[3];
  const double* qi = row_ptr(q, b, i, h);
  for (std::size_t j = 0; j < L_K; ++j) {
    out[j] = scale * dot(qi, row_ptr(k, b, j, h), E);
    if (!std::isfinite(out[j])) throw_score_overflow(q, k, b, i, h, j);
  }
}

// out[:] = sum_j weights[j] v[b,j,h,:] over the L_K keys (keys of weight 0 are skipped).
inline void weighted_values(const double* weights, const Tensor& v, std::size_t b, std::size_t h, double* out) {
  const std::size_t L_K = v.shape()[1], D = v.shape()[3];
  std::fill(out, out + D, 0.0);
  for (std::size_t j = 0; j < L_K; ++j) {
    const double w = weights[j];
    if (w == 0.0) continue;
    const double* vj = row_ptr(v, b, j, h);
    for (std::size_t d = 0; d < D; ++d) out[d] += w * vj[d];
  }
}

// Collects "no allowed key" rows and turns them into a bounded number of warnings.
class EmptyRowWarnings {
 public:
  void add(std::size_t b, std::size_t h, std::size_t i);
  void flush(std::vector<std::string>& warnings) const;

 private:
  std::vector<std::string> first_;
  std::size_t count_ = 0;
};

}  // namespace attnplay
