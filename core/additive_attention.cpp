// AdditiveAttention (d2l 10.3.2, Bahdanau-style scoring):
//
//   features[b, i, j, :] = tanh( W_q q[b,i,0,:] + W_k k[b,j,0,:] )
//   scores[b, 0, i, j]   = w_v . features[b, i, j, :]
//   weights              = masked_softmax_j(scores)            (no scale; d2l's -1e6 for valid_lens)
//   context[b, i, 0, :]  = sum_j weights[b, 0, i, j] v[b,j,0,:]
//
// Shapes: q (B, L_Q, 1, E_q), k (B, L_K, 1, E_k), v (B, L_K, 1, D); W_q (h, E_q), W_k (h, E_k),
// w_v (h); features (B, L_Q, L_K, h). E_q and E_k may differ: that is what the additive score is
// for. One head only.
// The seed's worked example: queries (2, 1, 20), keys all ones (2, 10, 2), values
// arange(40).reshape(1, 10, 4) twice, valid_lens [2, 6], h = 8. Equal keys give equal scores,
// so the weights are uniform over the valid keys and the context is [2, 3, 4, 5] and
// [10, 11, 12, 13], whatever the queries and weights.
//
// The passes follow d2l's forward():
//   1. queries, keys = self.W_q(queries), self.W_k(keys): (B, L_Q, h), (B, L_K, h)  (x W^T)
//   2. features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1)), one query row (L_K, h)
//      at a time (the whole (B, L_Q, L_K, h) is kept for the trace at trace "full" only);
//   3. scores = self.w_v(features).squeeze(-1): (L_K) per query row;
//   4. masked softmax over the keys, then the weighted sum of the values (attention_rows.hpp).
#include "additive_attention.hpp"
#include "portable_math.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attention_rows.hpp"
#include "nn_linear.hpp"

namespace attnplay {

AdditiveWeights seeded_additive_weights(std::uint64_t seed, std::size_t hidden, std::size_t E_q,
                                        std::size_t E_k) {
  Rng rng(seed, RngStream::weights);
  AdditiveWeights out;
  out.W_q = linear_init(rng, {hidden, E_q}, E_q);
  out.W_k = linear_init(rng, {hidden, E_k}, E_k);
  out.w_v = linear_init(rng, {hidden}, hidden);
  return out;
}

Trace additive_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                         const AdditiveWeights& weights, const Mask& mask, TraceLevel level) {
  const std::size_t B = q.shape()[0], L_Q = q.shape()[1], E_q = q.shape()[3];
  const std::size_t L_K = k.shape()[1], E_k = k.shape()[3], D = v.shape()[3];
  const std::size_t hidden = weights.w_v.size();
  const bool full = level == TraceLevel::full;

  // 1. queries, keys = self.W_q(queries), self.W_k(keys), on d2l's (B, L, E) (the H = 1 axis
  // dropped); projections that are not finite would give tanh(inf - inf) = NaN
  const Tensor queries = linear(xt::view(q, xt::all(), xt::all(), 0, xt::all()), weights.W_q, std::nullopt, "q", "W_q q");
  const Tensor keys = linear(xt::view(k, xt::all(), xt::all(), 0, xt::all()), weights.W_k, std::nullopt, "k", "W_k k");

  Tensor features, scores, attention;
  if (full) {
    features = Tensor::from_shape({B, L_Q, L_K, hidden});
    scores = Tensor::from_shape({B, 1, L_Q, L_K});
    attention = Tensor::from_shape({B, 1, L_Q, L_K});
  }
  Tensor context = xt::zeros<double>({B, L_Q, std::size_t{1}, D});
  std::vector<double> weight_row(L_K);
  EmptyRowWarnings empty_rows;

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L_Q; ++i) {
      // 2. features = torch.tanh(queries.unsqueeze(2) + keys.unsqueeze(1)), query i of batch b: (L_K, h)
      // (portable_tanh, not libm's: the same bits natively and in wasm, which Bahdanau training needs)
      Tensor features_i = xt::view(queries, b, i, xt::newaxis(), xt::all()) + xt::view(keys, b);
      for (double& f : features_i) f = portable_tanh(f);
      // 3. scores = self.w_v(features).squeeze(-1): (L_K)
      const Tensor scores_i = xt::sum(features_i * weights.w_v, {1});
      const auto overflow = std::find_if(scores_i.begin(), scores_i.end(), [](double s) { return !std::isfinite(s); });
      if (overflow != scores_i.end())
        throw OverflowError("weights.w_v", "the score w_v . tanh(W_q q + W_k k) of query " + std::to_string(i) +
                                               " and key " + std::to_string(overflow - scores_i.begin()) + " (batch " +
                                               std::to_string(b) + ") is not a finite number (|w_v| too large)");
      // 4. mask, softmax over the keys, weighted sum of the values
      if (!masked_softmax_row(scores_i.data(), mask, b, i, L_K, weight_row.data())) empty_rows.add(b, 0, i);
      weighted_values(weight_row.data(), v, b, 0, row_ptr(context, b, i, 0));
      if (full) {
        xt::view(features, b, i) = features_i;
        xt::view(scores, b, 0, i) = scores_i;
        std::copy(weight_row.begin(), weight_row.end(), &attention(b, 0, i, 0));
      }
    }

  Trace trace;
  if (full) {
    trace.set("features", std::move(features));
    trace.set("scores", std::move(scores));
    trace.set("allowed", allowed_tensor(mask, B, 1, L_Q, L_K));
    trace.set("weights", std::move(attention));
  }
  trace.set("context", std::move(context));
  // A q.k "dot product" here is one additive score: tanh of h sums and a dot with w_v.
  const std::uint64_t pairs = std::uint64_t{B} * L_Q * L_K;  // 64-bit also in wasm32
  const std::uint64_t projections = std::uint64_t{B} * L_Q * hidden * E_q + std::uint64_t{B} * L_K * hidden * E_k;
  trace.cost = {pairs, pairs, 2 * (projections + pairs * (hidden + D))};
  empty_rows.flush(trace.warnings);
  return trace;
}

}  // namespace attnplay
