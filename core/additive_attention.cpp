// AdditiveAttention (d2l 10.3.2, Bahdanau-style scoring):
//
//   scores[b, 0, i, j] = w_v . tanh( W_q q[b,i,0,:] + W_k k[b,j,0,:] )
//   weights            = masked_softmax_j(scores)            (no scale; d2l's -1e6 for valid_lens)
//   context[b, i, 0, :] = sum_j weights[b, 0, i, j] v[b,j,0,:]
//
// Shapes: q (B, L_Q, 1, E_q), k (B, L_K, 1, E_k), v (B, L_K, 1, D); W_q (h, E_q), W_k (h, E_k),
// w_v (h). E_q and E_k may differ: that is what the additive score is for. One head only.
// The seed's worked example: queries (2, 1, 20), keys all ones (2, 10, 2), values
// arange(40).reshape(1, 10, 4) twice, valid_lens [2, 6], h = 8. Equal keys give equal scores,
// so the weights are uniform over the valid keys and the context is [2, 3, 4, 5] and
// [10, 11, 12, 13], whatever the queries and weights.
//
// The passes follow d2l's forward():
//   1. queries = W_q(q): (B, L_Q, h);  keys = W_k(k): (B, L_K, h)   (nn.Linear: x W^T)
//   2. features = tanh(queries[:, :, None] + keys[:, None, :]): (B, L_Q, L_K, h), one row at a time
//   3. scores = w_v(features): (B, L_Q, L_K)
//   4. masked softmax over the keys, then the weighted sum of the values.
#include "additive_attention.hpp"

#include <cmath>

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

namespace {

// x (B, L, 1, E) -> x W^T (B, L, hidden), the bias-free nn.Linear.
Tensor project(const Tensor& x, const Tensor& W) {
  const std::size_t B = x.shape()[0], L = x.shape()[1], E = x.shape()[3], hidden = W.shape()[0];
  Tensor out = Tensor::from_shape({B, L, hidden});
  linear_rows(x.data(), B * L, E, W, std::nullopt, out.data());
  return out;
}

// The projections must be finite: tanh(inf - inf) would be NaN.
void check_projection(const Tensor& x, const char* input, const char* what) {
  for (std::size_t n = 0; n < x.size(); ++n)
    if (!std::isfinite(x.data()[n])) {
      const std::size_t hidden = x.shape()[2], row = n / hidden, L = x.shape()[1];
      throw OverflowError(input, std::string(what) + " is not a finite number at batch " + std::to_string(row / L) +
                                     ", position " + std::to_string(row % L) + ", hidden unit " +
                                     std::to_string(n % hidden) + " (|" + input + "| and the weights too large)");
    }
}

}  // namespace

Trace additive_attention(const Tensor& q, const Tensor& k, const Tensor& v,
                         const AdditiveWeights& weights, const Mask& mask, TraceLevel level) {
  const std::size_t B = q.shape()[0], L_Q = q.shape()[1], E_q = q.shape()[3];
  const std::size_t L_K = k.shape()[1], E_k = k.shape()[3], D = v.shape()[3];
  const std::size_t hidden = weights.w_v.size();
  const bool full = level == TraceLevel::full;

  // 1. project the queries and the keys into the hidden space
  const Tensor queries = project(q, weights.W_q);
  const Tensor keys = project(k, weights.W_k);
  check_projection(queries, "q", "W_q q");
  check_projection(keys, "k", "W_k k");

  Tensor scores, attention;
  if (full) {
    scores = Tensor::from_shape({B, 1, L_Q, L_K});
    attention = Tensor::from_shape({B, 1, L_Q, L_K});
  }
  Tensor context = xt::zeros<double>({B, L_Q, std::size_t{1}, D});
  std::vector<double> score_row(L_K), weight_row(L_K);
  EmptyRowWarnings empty_rows;

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L_Q; ++i) {
      const double* qi = &queries(b, i, 0);
      for (std::size_t j = 0; j < L_K; ++j) {
        // 2. features = tanh(W_q q_i + W_k k_j);  3. score = w_v . features
        const double* kj = &keys(b, j, 0);
        double s = 0.0;
        for (std::size_t h = 0; h < hidden; ++h) s += std::tanh(qi[h] + kj[h]) * weights.w_v(h);
        if (!std::isfinite(s))
          throw OverflowError("weights.w_v", "the score w_v . tanh(W_q q + W_k k) of query " + std::to_string(i) +
                                                 " and key " + std::to_string(j) + " (batch " + std::to_string(b) +
                                                 ") is not a finite number (|w_v| too large)");
        score_row[j] = s;
      }
      // 4. mask, softmax over the keys, weighted sum of the values
      if (!masked_softmax_row(score_row.data(), mask, b, i, L_K, weight_row.data()))
        empty_rows.add(b, 0, i);
      weighted_values(weight_row.data(), v, b, 0, row_ptr(context, b, i, 0));
      if (full) {
        std::copy(score_row.begin(), score_row.end(), &scores(b, 0, i, 0));
        std::copy(weight_row.begin(), weight_row.end(), &attention(b, 0, i, 0));
      }
    }

  Trace trace;
  trace.algorithm = "additive";
  if (full) {
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
