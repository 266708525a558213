#pragma once

#include <optional>

#include "attention_rows.hpp"
#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// lambda_init = 0.8 - 0.6 exp(-0.3 (depth - 1)), depth counted from 1 (the paper's l; unilm's
// lambda_init_fn takes the 0-based layer index: its depth is ours minus 1).
double diff_lambda_init(double depth);

// unilm's re-parameterised lambda: exp(q1 . k1) - exp(q2 . k2) + init, vectors of length e.
struct DiffLambdaVectors {
  Tensor q1, k1, q2, k2;
  double init;
};
double diff_lambda(const DiffLambdaVectors& p);

// Differential attention (Differential Transformer, microsoft/unilm multihead_diffattn):
//   q (B, L_Q, H, 2e), k (B, L_K, H, 2e), v (B, L_K, H, D)  ->  context, normed_context (B, L_Q, H, D)
// Trace: allowed, weights1, weights2, weights (B, H, L_Q, L_K) at TraceLevel::full; lambda,
// lambda_init, context and normed_context always.
Trace diff_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, double lambda,
                     double lambda_init, const Mask& mask, TraceLevel level);

}  // namespace attnplay
