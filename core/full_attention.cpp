// FullAttention (TSLib) / DotProductAttention (d2l):
//
//   context[b, i, h, :] = sum_j softmax_j( mask( scale * q[b,i,h,:] . k[b,j,h,:] ) ) v[b,j,h,:]
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D).
// The seed's worked example (one query, one head): scores [2, 1, 0] -> weights
// [0.665, 0.245, 0.090] -> with v = [[10,0],[0,20],[10,10]] the context [7.55, 5.80].
//
// The context is the fused kernel's (attention_kernel.hpp: tiles of queries and keys, the online
// softmax, float64 or float32), so TraceLevel::context never holds an L_Q x L_K matrix: one
// tile of scores at a time. TraceLevel::full adds the pictures (scores, allowed, weights), one
// query row at a time with the row kernels, in float64.
//
// Sparse masks are computed sparsely (Mask::is_sparse: any mask with the fill -inf): for each
// query only its allowed keys are scored, softmaxed and summed, so a local window w costs
// (2w + 1) L products instead of L^2 (Su Jianlin's note, seed 002) and cost.dot_products counts
// exactly the allowed pairs. At TraceLevel::full the trace still shows every scaled score before
// the mask, as the reference computes them (those extra products are for the picture and are
// not counted).
#include "full_attention.hpp"

#include <xtensor/xmath.hpp>

#include "alibi.hpp"

namespace attnplay {

Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level) {
  return full_attention(q, k, v, scale, mask, level, Dtype::float64);
}

Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, TraceLevel level, Dtype dtype) {
  return full_attention(q, k, v, scale, mask, level, dtype, {});
}

void add_kv_and_bias_trace(Trace& trace, const Tensor& q, const Tensor& k, const Tensor& v,
                           const std::vector<double>& alibi_slopes, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const std::size_t H_kv = k.shape()[2];
  if (H_kv != H) {
    IndexTensor kv = IndexTensor::from_shape({H});
    for (std::size_t h = 0; h < H; ++h) kv(h) = static_cast<std::int64_t>(kv_head(h, H, H_kv));
    trace.set("kv_head", std::move(kv));
  }
  trace.cost.kv_cache_numbers = std::uint64_t{B} * L_K * H_kv * (E + D);
  if (level == TraceLevel::full && !alibi_slopes.empty()) trace.set("bias", alibi_bias(alibi_slopes, L_Q, L_K));
}

Trace full_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                     TraceLevel level, Dtype dtype, const std::vector<double>& alibi_slopes) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const bool alibi = !alibi_slopes.empty();
  const bool sparse = mask.is_sparse();
  Trace trace;

  if (level == TraceLevel::full) {  // the pictures: every score, the mask, every weight
    Tensor scores = Tensor::from_shape({B, H, L_Q, L_K});
    Tensor weights = xt::zeros<double>({B, H, L_Q, L_K});
    std::vector<double> scores_i(L_K), weight_row(L_K);
    KeyList keys;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t i = 0; i < L_Q; ++i) {
        if (sparse) allowed_keys(mask, b, i, L_K, keys);  // the same for every head
        for (std::size_t h = 0; h < H; ++h) {
          // 1. scaled scores of query i against every key (as the reference computes them; query
          //    head h against its kv head), plus ALiBi's bias
          score_row(q, k, b, i, h, scale, &scores(b, h, i, 0));
          if (alibi)
            for (std::size_t j = 0; j < L_K; ++j)
              scores(b, h, i, j) += alibi_term(alibi_slopes[h], i, j);
          // 2. mask and softmax over the keys (dim=-1); a sparse row holds allowed keys only
          double* w = &weights(b, h, i, 0);
          if (sparse) {
            for (std::size_t t = 0; t < keys.size(); ++t) scores_i[t] = scores(b, h, i, keys[t]);
            softmax_row(scores_i.data(), keys.size(), weight_row.data());
            for (std::size_t t = 0; t < keys.size(); ++t) w[keys[t]] = weight_row[t];
          } else {
            masked_softmax_row(&scores(b, h, i, 0), mask, b, i, L_K, w);
          }
        }
      }
    trace.set("scores", std::move(scores));
    trace.set("allowed", allowed_tensor(mask, B, H, L_Q, L_K));
    trace.set("weights", std::move(weights));
  }
  // 3. the context: the fused kernel (online softmax, tiles; only the allowed keys of a sparse mask)
  Tensor context;
  EmptyRowWarnings empty_rows;
  AttentionOptions options;
  options.dtype = dtype;
  options.alibi_slopes = alibi_slopes;
  const std::uint64_t pairs = attend(q, k, v, scale, mask, options, context, empty_rows);
  trace.set("context", std::move(context));
  const std::uint64_t dense = std::uint64_t{B} * H * L_Q * L_K;  // 64-bit also in wasm32
  trace.cost = {pairs, dense, 2 * pairs * (E + D)};
  empty_rows.flush(trace.warnings);
  return trace;
}

void add_exact_context(Trace& trace, const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                       const Mask& mask, TraceLevel level, const std::string& context_field) {
  if (level != TraceLevel::full) return;
  Tensor exact;
  try {
    exact = full_attention(q, k, v, scale, mask, TraceLevel::context).tensor("context");
  } catch (const OverflowError& e) {  // inputs the approximation handles but softmax attention does not
    trace.warnings.push_back(std::string("exact_context and max_abs_error left out: exact softmax attention fails "
                                         "on these inputs (") + e.what() + ")");
    return;
  }
  const Tensor& approximate = trace.tensor(context_field);
  const double max_abs_error = xt::amax(xt::abs(approximate - exact))();
  trace.set("exact_context", std::move(exact));
  trace.set("max_abs_error", max_abs_error);
}

}  // namespace attnplay
