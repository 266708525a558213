#pragma once

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
