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
//
// Sparse masks are computed sparsely (Mask::is_sparse: any mask with the fill -inf): for each
// query only its allowed keys are scored, softmaxed and summed, so a local window w costs
// (2w + 1) L products instead of L^2 (Su Jianlin's note, seed 002) and cost.dot_products counts
// exactly the allowed pairs. At TraceLevel::full the trace still shows every scaled score before
// the mask, as the reference computes them (those extra products are for the picture and are
// not counted).
#include "full_attention.hpp"

#include <xtensor/xmath.hpp>

namespace attnplay {

Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const bool full = level == TraceLevel::full;
  const bool sparse = mask.is_sparse();

  Tensor scores, weights;
  if (full) {
    scores = Tensor::from_shape({B, H, L_Q, L_K});
    weights = xt::zeros<double>({B, H, L_Q, L_K});
  }
  Tensor context = xt::zeros<double>({B, L_Q, H, D});
  std::vector<double> scores_i(L_K), weight_row(L_K);
  KeyList keys;
  const KeyList* row_keys = sparse ? &keys : nullptr;  // nullptr: every key
  std::uint64_t pairs = 0;
  EmptyRowWarnings empty_rows;

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L_Q; ++i) {
      if (sparse) allowed_keys(mask, b, i, L_K, keys);  // the same for every head
      const std::size_t n = sparse ? keys.size() : L_K;
      for (std::size_t h = 0; h < H; ++h) {
        pairs += n;
        // 1. scaled scores of query i against every (allowed) key
        score_row(q, k, b, i, h, scale, scores_i.data(), row_keys);
        // 2. mask and softmax over the keys (dim=-1); a sparse row holds allowed keys only
        bool any = n > 0;
        if (sparse) softmax_row(scores_i.data(), n, weight_row.data());
        else any = masked_softmax_row(scores_i.data(), mask, b, i, L_K, weight_row.data());
        if (!any) empty_rows.add(b, h, i);
        // 3. weighted sum of the values
        weighted_values(weight_row.data(), v, b, h, row_ptr(context, b, i, h), row_keys);
        if (full) {
          double* w = &weights(b, h, i, 0);
          for (std::size_t t = 0; t < n; ++t) w[sparse ? keys[t] : t] = weight_row[t];
          if (sparse) score_row(q, k, b, i, h, scale, &scores(b, h, i, 0));  // the picture: every score
          else std::copy(scores_i.begin(), scores_i.end(), &scores(b, h, i, 0));
        }
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
  const std::uint64_t dense = std::uint64_t{B} * H * L_Q * L_K;  // 64-bit also in wasm32
  trace.cost = {pairs, dense, 2 * pairs * (E + D)};
  empty_rows.flush(trace.warnings);
  return trace;
}

void add_exact_context(Trace& trace, const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                       const Mask& mask, TraceLevel level, const std::string& context_field) {
  if (level != TraceLevel::full) return;
  Tensor exact = full_attention(q, k, v, scale, mask, TraceLevel::context).tensor("context");
  const Tensor& approximate = trace.tensor(context_field);
  const double max_abs_error = xt::amax(xt::abs(approximate - exact))();
  trace.set("exact_context", std::move(exact));
  trace.set("max_abs_error", max_abs_error);
}

}  // namespace attnplay
