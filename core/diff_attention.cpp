// Differential attention (Ye et al. 2024, microsoft/unilm Diff-Transformer/multihead_diffattn.py):
//
//   q = [q1, q2], k = [k1, k2]               halves of each head's last axis, e = E / 2
//   A1 = softmax(mask(s q1 k1^T)),  A2 = softmax(mask(s q2 k2^T))      s = scale or 1/sqrt(e)
//   weights = A1 - lambda A2                 (rows sum to 1 - lambda; entries may be negative)
//   context = weights v
//   normed_context = RMSNorm_D(context) (1 - lambda_init)       RMSNorm: x / sqrt(mean(x^2) + 1e-5)
//
// Shapes: q, k (B, L, H, 2e); v (B, L_K, H, D); weights1, weights2, weights (B, H, L_Q, L_K);
// context, normed_context (B, L_Q, H, D).
// The toy (run_diff.cpp, "diff-toy"): e = 1, q = [1, 1], k = [[2, 0], [1, 0], [0, 0]], s = 1,
// lambda 0.5: A1 = softmax([2, 1, 0]) = [0.665, 0.245, 0.090], A2 = softmax([0, 0, 0]) = 1/3 each,
// weights = [0.499, 0.078, -0.077] (sum 0.5); v = [[10, 0], [0, 20], [10, 10]] -> context
// [4.219, 0.795]; RMS 3.036, lambda_init 0.2 (depth 1) -> normed_context [1.112, 0.209].
//
// Passes, one query row at a time (the row kernels of attention_rows.hpp, no L x L matrix at
// trace "context"):
//   1. split q, k into their halves (xtensor views, O(L E));
//   2. scores of q1 against k1, masked softmax -> A1; the same for q2, k2 -> A2;
//   3. weights = A1 - lambda A2;
//   4. context = weights v (weighted_values);
//   5. normed_context over D, times (1 - lambda_init).
#include "diff_attention.hpp"

#include <cmath>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attnplay {

double diff_lambda_init(double depth) { return 0.8 - 0.6 * std::exp(-0.3 * (depth - 1)); }

// lambda_1 = torch.exp(torch.sum(lambda_q1 * lambda_k1, dim=-1)); the same for lambda_2
double diff_lambda(const DiffLambdaVectors& p) {
  const double l1 = std::exp(xt::sum(p.q1 * p.k1)()), l2 = std::exp(xt::sum(p.q2 * p.k2)());
  return l1 - l2 + p.init;
}

Trace diff_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, double lambda,
                     double lambda_init, const Mask& mask, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const std::size_t e = E / 2;
  const bool full = level == TraceLevel::full;
  // 1. the halves: q.view(bsz, tgt_len, 2 * num_heads, head_dim) puts q1 in [:e], q2 in [e:]
  const auto half = [](const Tensor& x, std::size_t from, std::size_t to) -> Tensor {
    return xt::view(x, xt::all(), xt::all(), xt::all(), xt::range(from, to));
  };
  const Tensor q1 = half(q, 0, e), q2 = half(q, e, E), k1 = half(k, 0, e), k2 = half(k, e, E);

  Tensor weights1, weights2, weights;
  if (full) {
    weights1 = Tensor::from_shape({B, H, L_Q, L_K});
    weights2 = Tensor::from_shape({B, H, L_Q, L_K});
    weights = Tensor::from_shape({B, H, L_Q, L_K});
  }
  Tensor context = Tensor::from_shape({B, L_Q, H, D});
  std::vector<double> s1(L_K), s2(L_K), a1(L_K), a2(L_K), w(L_K);
  EmptyRowWarnings empty_rows;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i) {
        double* A1 = full ? &weights1(b, h, i, 0) : a1.data();
        double* A2 = full ? &weights2(b, h, i, 0) : a2.data();
        double* W = full ? &weights(b, h, i, 0) : w.data();
        // 2. the two maps, each through full's masked softmax
        score_row(q1, k1, b, i, h, scale, s1.data());
        score_row(q2, k2, b, i, h, scale, s2.data());
        const bool some = masked_softmax_row(s1.data(), mask, b, i, L_K, A1);
        masked_softmax_row(s2.data(), mask, b, i, L_K, A2);
        if (!some) empty_rows.add(b, h, i);
        // 3. attn_weights[:, :, 0] - lambda_full * attn_weights[:, :, 1]
        for (std::size_t j = 0; j < L_K; ++j) W[j] = A1[j] - lambda * A2[j];
        // 4. torch.matmul(attn_weights, v)
        weighted_values(W, v, b, h, row_ptr(context, b, i, h));
      }
  // 5. self.subln(attn) (RMSNorm over D, eps 1e-5; its weight is 1 at init), * (1 - lambda_init)
  const Tensor mean_square = xt::mean(xt::square(context), {3}, xt::keep_dims);
  Tensor normed_context = context / xt::sqrt(mean_square + 1e-5) * (1.0 - lambda_init);

  Trace trace;
  if (full) {
    trace.set("allowed", allowed_tensor(mask, B, H, L_Q, L_K));
    trace.set("weights1", std::move(weights1));
    trace.set("weights2", std::move(weights2));
    trace.set("weights", std::move(weights));
  }
  trace.set("lambda", lambda);
  trace.set("lambda_init", lambda_init);
  trace.set("context", std::move(context));
  trace.set("normed_context", std::move(normed_context));
  const std::uint64_t dense = std::uint64_t{B} * H * L_Q * L_K;  // 64-bit also in wasm32
  // two maps of e-long products (together E per pair), then the values: 2 (E + D) flops a pair
  trace.cost = {2 * dense, dense, 2 * dense * (E + D)};
  empty_rows.flush(trace.warnings);
  return trace;
}

}  // namespace attnplay
