// ProbAttention (Informer; TSLib layers/SelfAttention_Family.py), exactly as the reference:
//
//   U_part = min(factor * ceil(ln L_K), L_K)              keys sampled per query (>= 1)
//   u      = min(factor * ceil(ln L_Q), L_Q)              queries computed exactly (>= 1)
//   q_k_sample[b,h,i,s] = q_i . k_{sample_index[i,s]}      (unscaled)
//   M[b,h,i]  = max_s q_k_sample[b,h,i,s] - sum_s q_k_sample[b,h,i,s] / L_K
//   top_index = the u queries of largest M, in descending M, ties to the lower index
//   scores_top[b,h,t,j] = scale * q_{top_t} . k_j          (ProbMask: j > top_t gets -inf)
//   context[b,i,h,:] = softmax_j(scores_top[b,h,t,:]) V     if i = top_t,
//                      mean_j v_j (no mask) or sum_{j<=i} v_j (causal) otherwise
//   attn[b,h,i,:]    = softmax row as above for the updated rows, 1/L_K elsewhere
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D); sample_index (L_Q, U_part)
// (or (H, L_Q, U_part) with sample_per_head); q_k_sample (B, H, L_Q, U_part); sparsity
// (B, H, L_Q); top_index (B, H, u); updated_rows (B, H, L_Q); scores_top, allowed_top,
// weights_top (B, H, u, L_K); initial_context, context (B, L_Q, H, D); attn (B, H, L_Q, L_K).
//
// The seed's steps (000_*.txt; toy B = H = 1, L = 4, D = 2, factor 1 -> U_part = u = 2):
//   _prob_QK              sample U_part keys per query, M = max - sum / L_K, top u queries,
//                         their scores against every key
//   _get_initial_context  every query starts from the mean of V (causal: the cumulative sum)
//   _update_context       ProbMask, softmax, the top rows' attention replaces their context
// With sample_index [[0,2],[1,3],[0,2],[2,3]]: M = [0.5, 1, 1.25, 1] -> top_index [2, 1];
// q0.k = [1, 0, 1, 1], q2.k = [1, 1, 2, 0]; the initial context is [25, 26] for every query.
//
// The reference's .squeeze() of Q_K_sample drops H when H = 1: with B > 1 its M_top (B, u)
// then broadcasts against the batch index into (B, B, u), and batch item b updates the top rows
// of every batch item, each with its own exact softmax row (verified with PyTorch 1.13,
// tests/fixtures/reference/informer_prob.py). Reproduced when squeeze_bug is set.
//
// Passes (cost per batch item and head: L_Q * U_part + u * L_K dot products, never L_Q * L_K;
// no L_Q x L_K matrix unless attn is asked for):
//   1. sampled products of every query and its sparsity M;
//   2. top_index by a partial sort of M; the rows to update (with the squeeze bug: the union
//      of the batch's top rows);
//   3. initial context of every query: mean of V, or cumulative sum (mean) under the mask;
//   4. every updated row: scores against all keys, ProbMask, softmax, weighted sum of V.
#include "prob_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "full_attention.hpp"
#include "rng.hpp"

namespace attnplay {

namespace {

std::string shape_text(const Shape& s) {
  std::string out = "(";
  for (std::size_t d = 0; d < s.size(); ++d) out += (d ? ", " : "") + std::to_string(s[d]);
  return out + ")";
}

std::string row_list(const std::vector<std::size_t>& rows) {
  std::string out;
  for (std::size_t n = 0; n < rows.size() && n < 12; ++n) out += (n ? ", " : "") + std::to_string(rows[n]);
  if (rows.size() > 12) out += ", ...";
  return out;
}

void check_sample_index(const IndexTensor& idx, const Shape& expected, std::size_t L_K) {
  const Shape got(idx.shape().begin(), idx.shape().end());
  if (got != expected)
    throw InputError("sample_index: expected shape " + shape_text(expected) + ", got " + shape_text(got));
  for (std::size_t n = 0; n < idx.size(); ++n)
    if (idx.data()[n] < 0 || idx.data()[n] >= static_cast<std::int64_t>(L_K))
      throw InputError("sample_index: entry " + std::to_string(n) + " is " + std::to_string(idx.data()[n]) +
                       ", expected an integer from 0 to " + std::to_string(L_K - 1));
}

OverflowError v_overflow(const std::string& what, std::size_t b, std::size_t h, std::size_t d) {
  return OverflowError("v", what + " is not a finite number in column " + std::to_string(d) + " (batch " +
                                std::to_string(b) + ", head " + std::to_string(h) + "); use smaller v");
}

}  // namespace

ProbSizes prob_sizes(std::int64_t factor, std::size_t L_Q, std::size_t L_K) {
  const auto part = [factor](std::size_t L) {
    const auto c = static_cast<std::int64_t>(std::ceil(std::log(static_cast<double>(L))));
    if (c <= 0 || factor <= 0) return std::size_t{1};  // ln 1 = 0: the reference's 0, raised to 1
    if (factor >= static_cast<std::int64_t>(L) / c + 1) return L;
    return std::clamp<std::size_t>(static_cast<std::size_t>(factor * c), 1, L);
  };
  return {part(L_K), part(L_Q)};
}

IndexTensor draw_sample_index(std::uint64_t seed, std::size_t H, std::size_t L_Q, std::size_t U_part,
                              std::size_t L_K, bool per_head) {
  Rng rng(seed, RngStream::samples);
  IndexTensor idx = per_head ? IndexTensor::from_shape({H, L_Q, U_part}) : IndexTensor::from_shape({L_Q, U_part});
  for (std::size_t n = 0; n < idx.size(); ++n) idx.data()[n] = static_cast<std::int64_t>(rng.below(L_K));
  return idx;
}

Trace prob_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, const ProbOptions& options, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const bool full = level == TraceLevel::full;
  if (mask.kind != MaskKind::none && mask.kind != MaskKind::causal)
    throw InputError(std::string("mask.kind: ProbAttention takes \"none\" or \"causal\" (ProbMask), got \"") +
                     mask_kind_name(mask.kind) + "\"");
  const bool causal = mask.requires_causal();
  if (causal && L_Q != L_K)
    throw InputError("mask: the causal mask of ProbAttention needs L_Q = L_K (its initial context is the "
                     "cumulative sum of V), got L_Q = " + std::to_string(L_Q) + ", L_K = " + std::to_string(L_K));
  const auto [U_part, u] = prob_sizes(options.factor, L_Q, L_K);
  const bool per_head = options.sample_per_head;
  const IndexTensor sample_index = options.sample_index
                                       ? *options.sample_index
                                       : draw_sample_index(options.seed, H, L_Q, U_part, L_K, per_head);
  check_sample_index(sample_index, per_head ? Shape{H, L_Q, U_part} : Shape{L_Q, U_part}, L_K);

  // 1. sampled products and sparsity M of every query
  const double divisor = static_cast<double>(options.sparsity_divisor == SparsityDivisor::L_K ? L_K : U_part);
  Tensor q_k_sample;
  if (full) q_k_sample = Tensor::from_shape({B, H, L_Q, U_part});
  Tensor sparsity = Tensor::from_shape({B, H, L_Q});
  std::vector<double> sampled(U_part);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const std::int64_t* idx_h = sample_index.data() + (per_head ? h * L_Q * U_part : 0);
      double* M = sparsity.data() + (b * H + h) * L_Q;
      for (std::size_t i = 0; i < L_Q; ++i) {
        const double* qi = row_ptr(q, b, i, h);
        const std::int64_t* idx = idx_h + i * U_part;
        double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
        for (std::size_t s = 0; s < U_part; ++s) {
          const double x = dot(qi, row_ptr(k, b, static_cast<std::size_t>(idx[s]), h), E);
          if (!std::isfinite(x)) throw_score_overflow(q, k, b, i, h, static_cast<std::size_t>(idx[s]));
          sampled[s] = x;
          max = std::max(max, x);
          sum += x;
        }
        M[i] = max - sum / divisor;
        if (!std::isfinite(M[i]))
          throw OverflowError("q", "the sparsity M = max - sum / " + std::to_string(static_cast<std::size_t>(divisor)) +
                                       " of query " + std::to_string(i) + " (batch " + std::to_string(b) + ", head " +
                                       std::to_string(h) + ") is not a finite number (the sampled q.k are too large)");
        if (full) std::copy(sampled.begin(), sampled.end(), q_k_sample.data() + ((b * H + h) * L_Q + i) * U_part);
      }
    }

  // 2. top_index: the u largest M, descending, ties to the lower index (NaN sorts last)
  IndexTensor top_index = IndexTensor::from_shape({B, H, u});
  std::vector<std::size_t> order(L_Q);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const double* M = sparsity.data() + (b * H + h) * L_Q;
      const auto key = [M](std::size_t i) {
        return std::isnan(M[i]) ? -std::numeric_limits<double>::infinity() : M[i];
      };
      std::iota(order.begin(), order.end(), std::size_t{0});
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(u), order.end(),
                        [&key](std::size_t a, std::size_t c) {
                          const double ka = key(a), kc = key(c);
                          return ka > kc || (ka == kc && a < c);
                        });
      for (std::size_t t = 0; t < u; ++t) top_index(b, h, t) = static_cast<std::int64_t>(order[t]);
    }
  // the rows each (b, h) updates: its own top rows; with the squeeze bug (H = 1, B > 1) the union
  std::vector<char> updated(B * H * L_Q, 0);
  const bool squeeze = options.squeeze_bug && H == 1 && B > 1;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t t = 0; t < u; ++t) {
        const auto i = static_cast<std::size_t>(top_index(b, h, t));
        if (squeeze)
          for (std::size_t b2 = 0; b2 < B; ++b2) updated[b2 * L_Q + i] = 1;
        else
          updated[(b * H + h) * L_Q + i] = 1;
      }

  Tensor context = Tensor::from_shape({B, L_Q, H, D});
  Tensor initial_context, scores_top, weights_top, attn;
  BoolTensor allowed_top;
  if (full) {
    initial_context = Tensor::from_shape({B, L_Q, H, D});
    scores_top = Tensor::from_shape({B, H, u, L_K});
    weights_top = Tensor::from_shape({B, H, u, L_K});
    allowed_top = BoolTensor::from_shape({B, H, u, L_K});
  }
  if (options.output_attention) {
    attn = Tensor::from_shape({B, H, L_Q, L_K});
    std::fill(attn.data(), attn.data() + attn.size(), 1.0 / static_cast<double>(L_K));
  }
  std::vector<double> acc(D), scores_i(L_K), weight_row(L_K);
  std::vector<std::int64_t> slot(L_Q);  // t with top_index[b,h,t] = i, or -1
  std::uint64_t rows_computed = 0;
  EmptyRowWarnings empty_rows;

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      // 3. initial context: mean of V over the keys, or its cumulative sum (mean) under the mask
      std::fill(acc.begin(), acc.end(), 0.0);
      if (!causal) {
        for (std::size_t j = 0; j < L_K; ++j) {
          const double* vj = row_ptr(v, b, j, h);
          for (std::size_t d = 0; d < D; ++d) acc[d] += vj[d];
        }
        for (std::size_t d = 0; d < D; ++d) {
          if (!std::isfinite(acc[d])) throw v_overflow("the sum of v over the keys (the initial context is its mean)", b, h, d);
          acc[d] /= static_cast<double>(L_K);
        }
        for (std::size_t i = 0; i < L_Q; ++i) std::copy(acc.begin(), acc.end(), row_ptr(context, b, i, h));
      } else {
        const bool mean = options.causal_initial == CausalInitial::mean;
        for (std::size_t i = 0; i < L_Q; ++i) {
          const double* vi = row_ptr(v, b, i, h);
          double* ci = row_ptr(context, b, i, h);
          for (std::size_t d = 0; d < D; ++d) {
            acc[d] += vi[d];
            if (!std::isfinite(acc[d]))
              throw v_overflow("the cumulative sum of v up to key " + std::to_string(i) + " (the causal initial context)", b, h, d);
            ci[d] = mean ? acc[d] / static_cast<double>(i + 1) : acc[d];
          }
        }
      }
      if (full)
        for (std::size_t i = 0; i < L_Q; ++i)
          std::copy(row_ptr(context, b, i, h), row_ptr(context, b, i, h) + D, row_ptr(initial_context, b, i, h));

      // 4. the updated rows: scores against every key, ProbMask, softmax, weighted sum of V
      std::fill(slot.begin(), slot.end(), -1);
      for (std::size_t t = 0; t < u; ++t) slot[static_cast<std::size_t>(top_index(b, h, t))] = static_cast<std::int64_t>(t);
      for (std::size_t i = 0; i < L_Q; ++i) {
        if (!updated[(b * H + h) * L_Q + i]) continue;
        ++rows_computed;
        score_row(q, k, b, i, h, scale, scores_i.data());
        if (!masked_softmax_row(scores_i.data(), mask, b, i, L_K, weight_row.data())) empty_rows.add(b, h, i);
        weighted_values(weight_row.data(), v, b, h, row_ptr(context, b, i, h));
        if (options.output_attention) std::copy(weight_row.begin(), weight_row.end(), &attn(b, h, i, 0));
        if (full && slot[i] >= 0) {
          const auto t = static_cast<std::size_t>(slot[i]);
          std::copy(scores_i.begin(), scores_i.end(), &scores_top(b, h, t, 0));
          std::copy(weight_row.begin(), weight_row.end(), &weights_top(b, h, t, 0));
          for (std::size_t j = 0; j < L_K; ++j) allowed_top(b, h, t, j) = mask.allows(b, i, j);
        }
      }
    }

  Trace trace;
  trace.algorithm = "prob";
  if (full) {
    BoolTensor updated_rows = BoolTensor::from_shape({B, H, L_Q});
    for (std::size_t n = 0; n < updated.size(); ++n) updated_rows.data()[n] = updated[n] != 0;
    trace.set("U_part", static_cast<std::int64_t>(U_part));
    trace.set("u", static_cast<std::int64_t>(u));
    trace.set("sample_index", sample_index);
    trace.set("q_k_sample", std::move(q_k_sample));
    trace.set("sparsity", std::move(sparsity));
    trace.set("top_index", std::move(top_index));
    trace.set("updated_rows", std::move(updated_rows));
    trace.set("scores_top", std::move(scores_top));
    trace.set("allowed_top", std::move(allowed_top));
    trace.set("weights_top", std::move(weights_top));
    trace.set("initial_context", std::move(initial_context));
  }
  trace.set("context", std::move(context));
  if (options.output_attention) trace.set("attn", std::move(attn));

  const std::uint64_t BH = std::uint64_t{B} * H;  // 64-bit also in wasm32
  const std::uint64_t sampled_products = BH * L_Q * U_part;
  trace.cost.dot_products = sampled_products + rows_computed * L_K;
  trace.cost.dense_dot_products = BH * L_Q * L_K;
  trace.cost.flops = 2 * (sampled_products * E + rows_computed * L_K * (E + D));

  if (L_K == 1)
    trace.warnings.push_back("L_K = 1: the reference raises here (ln 1 = 0 samples no key); U_part = 1 is used");
  if (L_Q == 1)
    trace.warnings.push_back("L_Q = 1: the reference updates no query here (ln 1 = 0 gives u = 0); u = 1 is used");
  if (U_part == 1 && L_K > 1)
    trace.warnings.push_back("U_part = 1: the reference's .squeeze() also drops the sample axis here and ranks "
                             "something else; this trace ranks the queries by M as intended");
  if (squeeze) {
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < L_Q; ++i)
      if (updated[i]) rows.push_back(i);
    if (rows.size() > u)
      trace.warnings.push_back("H = 1 with B = " + std::to_string(B) + ": as in the reference's .squeeze(), every "
                               "batch item updates the top rows of all batch items (rows " + row_list(rows) +
                               ", not only its own " + std::to_string(u) + "); \"squeeze_bug\": false turns this off");
  }
  empty_rows.flush(trace.warnings);
  return trace;
}

}  // namespace attnplay
