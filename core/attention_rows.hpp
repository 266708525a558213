// The row kernels of every softmax attention here (full, prob, additive, and the efficient
// family's exact_context): the O(L_Q x L_K) hot passes, written once.
//
//   score_row            out[j] = scale * q[b,i,h,:] . k[b,j,h',:]            for every key j
// (h' = kv_head(h, H, H_kv): k and v may have fewer heads than q, GQA/MQA; weighted_values takes
// the kv head itself)
//   masked_softmax_row   out = softmax(mask(scores)), fill where masked, -inf rows -> 0
//   softmax_row          out = softmax(scores), in place allowed
//   weighted_values      out[:] = sum_j weights[j] v[b,j,h,:]
// score_row and weighted_values also take a list of keys (a sparse mask's allowed keys,
// KeyList): then only those keys are touched, and out / weights are indexed by position in the list.
//   EmptyRowWarnings     "query i has no allowed key" as a bounded list of warnings
//   throw_score_overflow the OverflowError naming "q" or "scale" for a score that is not finite
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "mask.hpp"
#include "tensor.hpp"

namespace attnplay {

// 1/sqrt(E), the default scale of every dot-product algorithm.
double default_scale(std::size_t E);

// Throws OverflowError for the score scale * q[b,i,h] . k[b,j,h] found not finite: on "scale"
// when q.k itself is finite, on "q" otherwise.
[[noreturn]] void throw_score_overflow(const Tensor& q, const Tensor& k, std::size_t b,
                                       std::size_t i, std::size_t h, std::size_t j);

// The keys of one query that a sparse mask allows, ascending (Mask::allowed_keys).
using KeyList = std::vector<std::uint32_t>;

// out[t] = scale * q[b,i,h,:] . k[b,j,h,:] for the keys j = keys[t] (keys = nullptr: every key,
// j = t); a score that is not finite throws (OverflowError on "q" or "scale", see
// throw_score_overflow).
inline void score_row(const Tensor& q, const Tensor& k, std::size_t b, std::size_t i, std::size_t h,
                      double scale, double* out, const KeyList* keys = nullptr) {
  const std::size_t n = keys ? keys->size() : k.shape()[1], E = q.shape()[3];
  const double* qi = row_ptr(q, b, i, h);
  const std::size_t hk = kv_head(h, q.shape()[2], k.shape()[2]);
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t j = keys ? (*keys)[t] : t;
    out[t] = scale * dot(qi, row_ptr(k, b, j, hk), E);
    if (!std::isfinite(out[t])) throw_score_overflow(q, k, b, i, h, j);
  }
}

// out = exp(s - max) / sum exp(s - max) over n scores (out may be scores). n = 0 does nothing.
void softmax_row(const double* scores, std::size_t n, double* out);

// Masked softmax of one row of n scaled scores, written to out.
//   1. masked entries take the mask's fill;
//   2. out = exp(s - max) / sum exp(s - max).
// With fill = -inf and no allowed key, the row is all zeros and the function returns false
// (the caller warns); a finite fill gives d2l's behaviour (a uniform row).
bool masked_softmax_row(const double* scores, const Mask& mask, std::size_t b, std::size_t i,
                        std::size_t n, double* out);

// out[:] = sum_t weights[t] v[b,j,h,:] over the keys j = keys[t] (keys = nullptr: all L_K keys,
// j = t); keys of weight 0 are skipped.
inline void weighted_values(const double* weights, const Tensor& v, std::size_t b, std::size_t h, double* out,
                            const KeyList* keys = nullptr) {
  const std::size_t n = keys ? keys->size() : v.shape()[1], D = v.shape()[3];
  std::fill(out, out + D, 0.0);
  for (std::size_t t = 0; t < n; ++t) {
    const double w = weights[t];
    if (w == 0.0) continue;
    const double* vj = row_ptr(v, b, keys ? (*keys)[t] : t, h);
    for (std::size_t d = 0; d < D; ++d) out[d] += w * vj[d];
  }
}

// Collects rows that come out empty ("no allowed key", or a zero denominator) and turns them into
// a bounded number of warnings: "batch b, head h, query i<what>", then "... and N <more>".
class EmptyRowWarnings {
 public:
  explicit EmptyRowWarnings(std::string what = " has no allowed key: its weights and context are 0",
                            std::string more = "more queries with no allowed key")
      : what_(std::move(what)), more_(std::move(more)) {}
  void add(std::size_t b, std::size_t h, std::size_t i);
  void flush(std::vector<std::string>& warnings) const;

 private:
  std::string what_, more_;
  std::vector<std::string> first_;
  std::size_t count_ = 0;
};

}  // namespace attnplay
