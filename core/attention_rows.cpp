// The shared row kernels' out-of-line parts (see attention_rows.hpp).
#include "attention_rows.hpp"
#include "portable_math.hpp"

#include <limits>

namespace attnplay {

double default_scale(std::size_t E) { return 1.0 / std::sqrt(static_cast<double>(E)); }

void throw_score_overflow(const Tensor& q, const Tensor& k, std::size_t b, std::size_t i,
                          std::size_t h, std::size_t j) {
  const double qk = dot(row_ptr(q, b, i, h), row_ptr(k, b, j, kv_head(h, q.shape()[2], k.shape()[2])), q.shape()[3]);
  const std::string where = "query " + std::to_string(i) + " and key " + std::to_string(j) + " (batch " +
                            std::to_string(b) + ", head " + std::to_string(h) + ")";
  if (std::isfinite(qk))
    throw OverflowError("scale", "scale * q.k of " + where + " is not a finite number (q.k = " +
                                     number_text(qk) + "); use a smaller scale");
  throw OverflowError("q", "q.k of " + where + " is not a finite number (|q| and |k| too large)");
}

void EmptyRowWarnings::add(std::size_t b, std::size_t h, std::size_t i) {
  if (first_.size() < 5)
    first_.push_back("batch " + std::to_string(b) + ", head " + std::to_string(h) + ", query " + std::to_string(i) + what_);
  ++count_;
}

void EmptyRowWarnings::flush(std::vector<std::string>& warnings) const {
  warnings.insert(warnings.end(), first_.begin(), first_.end());
  if (count_ > first_.size())
    warnings.push_back("... and " + std::to_string(count_ - first_.size()) + " " + more_);
}

void softmax_row(const double* scores, std::size_t n, double* out) {
  double max = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) max = std::max(max, scores[j]);
  double sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    out[j] = portable_exp(scores[j] - max);  // the same bits natively and in wasm
    sum += out[j];
  }
  for (std::size_t j = 0; j < n; ++j) out[j] /= sum;
}

bool masked_softmax_row(const double* scores, const Mask& mask, std::size_t b, std::size_t i,
                        std::size_t n, double* out) {
  const bool unmasked = mask.is_none();
  double max = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    out[j] = (unmasked || mask.allows(b, i, j)) ? scores[j] : mask.fill;
    max = std::max(max, out[j]);
  }
  if (std::isinf(max) && max < 0) {  // every key masked with -inf
    std::fill(out, out + n, 0.0);
    return false;
  }
  softmax_row(out, n, out);
  return true;
}

}  // namespace attnplay
