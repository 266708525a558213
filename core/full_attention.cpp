// FullAttention (TSLib) / DotProductAttention (d2l):
//
//   context[b, i, h, :] = sum_j softmax_j( mask( scale * q[b,i,h,:] . k[b,j,h,:] ) ) v[b,j,h,:]
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D).
// The seed's worked example (one query, one head): scores [2, 1, 0] -> weights
// [0.665, 0.245, 0.090] -> with v = [[10,0],[0,20],[10,10]] the context [7.55, 5.80].
//
// The work is done one query row at a time, so that TraceLevel::context never holds an
// L_Q x L_K matrix: only a row of scores and a row of weights.
#include "full_attention.hpp"

#include <cmath>
#include <cstdio>

namespace attnplay {

double default_scale(std::size_t E) { return 1.0 / std::sqrt(static_cast<double>(E)); }

void throw_score_overflow(const Tensor& q, const Tensor& k, std::size_t b, std::size_t i,
                          std::size_t h, std::size_t j) {
  const double qk = dot(row_ptr(q, b, i, h), row_ptr(k, b, j, h), q.shape()[3]);
  const std::string where = "query " + std::to_string(i) + " and key " + std::to_string(j) + " (batch " +
                            std::to_string(b) + ", head " + std::to_string(h) + ")";
  if (std::isfinite(qk))
    throw OverflowError("scale", "scale * q.k of " + where + " is not a finite number (q.k = " +
                                     number_text(qk) + "); use a smaller scale");
  throw OverflowError("q", "q.k of " + where + " is not a finite number (|q| and |k| too large)");
}

void EmptyRowWarnings::add(std::size_t b, std::size_t h, std::size_t i) {
  if (first_.size() < 5)
    first_.push_back("batch " + std::to_string(b) + ", head " + std::to_string(h) + ", query " +
                     std::to_string(i) + " has no allowed key: its weights and context are 0");
  ++count_;
}

void EmptyRowWarnings::flush(std::vector<std::string>& warnings) const {
  warnings.insert(warnings.end(), first_.begin(), first_.end());
  if (count_ > first_.size())
    warnings.push_back("... and " + std::to_string(count_ - first_.size()) +
                       " more queries with no allowed key");
}

Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const bool full = level == TraceLevel::full;

  Tensor scores, weights;
  if (full) {
    scores = Tensor::from_shape({B, H, L_Q, L_K});
    weights = Tensor::from_shape({B, H, L_Q, L_K});
  }
  Tensor context = xt::zeros<double>({B, L_Q, H, D});
  std::vector<double> scores_i(L_K), weight_row(L_K);
  EmptyRowWarnings empty_rows;

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i) {
        // 1. scaled scores of query i against every key
        score_row(q, k, b, i, h, scale, scores_i.data());
        // 2. mask and softmax over the keys (dim=-1)
        if (!masked_softmax_row(scores_i.data(), mask, b, i, L_K, weight_row.data()))
          empty_rows.add(b, h, i);
        // 3. weighted sum of the values
        weighted_values(weight_row.data(), v, b, h, row_ptr(context, b, i, h));
        if (full) {
          std::copy(scores_i.begin(), scores_i.end(), &scores(b, h, i, 0));
          std::copy(weight_row.begin(), weight_row.end(), &weights(b, h, i, 0));
        }
      }

  Trace trace;
  trace.algorithm = "full";
  if (full) {
    trace.set("scores", std::move(scores));
    trace.set("allowed", allowed_tensor(mask, B, H, L_Q, L_K));
    trace.set("weights", std::move(weights));
  }
  trace.set("context", std::move(context));
  const std::uint64_t pairs = std::uint64_t{B} * H * L_Q * L_K;  // 64-bit also in wasm32
  trace.cost = {pairs, pairs, 2 * pairs * (E + D)};
  empty_rows.flush(trace.warnings);
  return trace;
}

}  // namespace attnplay
