// ProbAttention (Informer; TSLib layers/SelfAttention_Family.py), exactly as the reference, in the
// reference's own functions: prob_QK (_prob_QK), initial_context (_get_initial_context),
// update_context (_update_context) and the driver prob_attention (forward). The steps are SPEC
// §2's; step N means the same step in SPEC, this file, the page and docs/semantics.md.
//
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D); scale (default 1/sqrt(E))
//   1. U_part = min(factor * ceil(ln L_K), L_K), u = min(factor * ceil(ln L_Q), L_Q), each >= 1
//   2. sample_index    (L_Q, U_part)       keys drawn with replacement per query, shared by batch
//                                          and heads ((H, L_Q, U_part) with sample_per_head)
//   3. q_k_sample      (B, H, L_Q, U_part) q_i . k_{sample_index[i,s]}, unscaled
//   4. sparsity M      (B, H, L_Q)         max_s q_k_sample - sum_s q_k_sample / L_K
//   5. top_index       (B, H, u)           the u queries of largest M, descending M, ties to the
//                                          lower index; or the scenario's top_index (u), broadcast
//   6. scores_top      (B, H, u, L_K)      scale * q_{top_t} . k_j, before ProbMask;
//      allowed_top     (B, H, u, L_K)      ProbMask: key j > top_t gets -inf (causal only)
//   7. initial_context (B, L_Q, H, D)      mean_j v_j for every query; causal: sum_{j<=i} v_j
//   8. weights_top     (B, H, u, L_K)      softmax_j of the masked scores_top;
//      context         (B, L_Q, H, D)      initial_context with row top_t replaced by weights_top[t] V
//   9. attn            (B, H, L_Q, L_K)    1/L_K everywhere but the replaced rows (output_attention)
//   beside it, at trace "full" (not counted in `cost`):
//      sparsity_exact  (B, H, L_Q)         M against every key: max_j q.k_j - sum_j q.k_j / L_K
//      exact_context   (B, L_Q, H, D)      full softmax attention, same mask (full_attention)
//      max_abs_error   number              max |context - exact_context|
//
// The seed's toy (000_*.txt; B = H = 1, L = 4, D = 2, factor 1 -> U_part = u = 2): with
// sample_index [[0,2],[1,3],[0,2],[2,3]], M = [0.5, 1, 1.25, 1] -> top_index [2, 1]; against all
// keys q0.k = [1, 0, 1, 1], q2.k = [1, 1, 2, 0], so sparsity_exact = [0.25, 0.75, 1, 0.5]; the
// initial context is [25, 26] for every query. The note's walk-through fixes index = [0, 2]
// ("top_index": [0, 2]).
//
// The reference's .squeeze() of Q_K_sample drops H when H = 1: with B > 1 its M_top (B, u) then
// broadcasts against the batch index into (B, B, u), and batch item b updates the top rows of
// every batch item, each with its own exact softmax row (verified with PyTorch 1.13,
// tests/fixtures/reference/informer_prob.py). Reproduced when squeeze_bug is set.
//
// Cost per batch item and head: L_Q * U_part + (updated rows) * L_K dot products, never
// L_Q * L_K; no L_Q x L_K matrix unless attn is asked for, and nothing of trace "full" at trace
// "context". The updated rows (6, 8) are the fused kernel's (attention_kernel.hpp): without a
// mask all of them in one call on the gathered queries (K and V read once, not once per row),
// under ProbMask one row at a time (attend_row), which also gives the rows' scores and weights
// where the trace shows them. Steps 3, 4 and 7 are loops over contiguous rows that compute the
// reference's lines quoted above them in the same order, bit for bit (xtensor's strided views of
// a (b, h) slice cost more than the products at L = 8192; tests/catch2/test_prob_attention.cpp
// checks them against the xtensor expressions).
#include "prob_attention.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attention_rows.hpp"
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
    throw InputError("sample_index", "expected shape " + shape_text(expected) + ", got " + shape_text(got));
  const std::int64_t* entry = idx.data();
  const std::size_t n_entries = idx.size();
  for (std::size_t n = 0; n < n_entries; ++n)
    if (entry[n] < 0 || entry[n] >= static_cast<std::int64_t>(L_K))
      throw InputError("sample_index", "entry " + std::to_string(n) + " is " + std::to_string(entry[n]) +
                       ", expected an integer from 0 to " + std::to_string(L_K - 1));
}

// A given top_index: u distinct queries, each in [0, L_Q).
void check_top_index(const IndexTensor& idx, std::size_t u, std::size_t L_Q) {
  const Shape got(idx.shape().begin(), idx.shape().end());
  if (got != Shape{u})
    throw InputError("top_index", "expected shape (" + std::to_string(u) +
                     ") (u = min(factor * ceil(ln L_Q), L_Q)), got " + shape_text(got));
  std::vector<std::size_t> first(L_Q, u);  // the t that selected query i, or u
  for (std::size_t t = 0; t < u; ++t) {
    const std::int64_t i = idx(t);
    const std::string field = "top_index[" + std::to_string(t) + "]";
    if (i < 0 || i >= static_cast<std::int64_t>(L_Q))
      throw InputError(field, "expected an integer from 0 to " + std::to_string(L_Q - 1) + ", got " + std::to_string(i));
    const auto row = static_cast<std::size_t>(i);
    if (first[row] < u)
      throw InputError(field, "query " + std::to_string(i) + " is already selected by top_index[" +
                       std::to_string(first[row]) + "]; expected " + std::to_string(u) + " distinct queries");
    first[row] = t;
  }
}

OverflowError v_overflow(const std::string& what, std::size_t b, std::size_t h, std::size_t d) {
  return OverflowError("v", what + " is not a finite number in column " + std::to_string(d) + " (batch " +
                                std::to_string(b) + ", head " + std::to_string(h) + "); use smaller v");
}

// The flat position of the first number of t that is not finite, or t.size() when all are.
std::size_t first_not_finite(const Tensor& t) {
  return static_cast<std::size_t>(std::find_if(t.data(), t.data() + t.size(), [](double x) { return !std::isfinite(x); }) -
                                  t.data());
}

// Step 4 for each row of products (rows, n):
//   `M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)`
// (also sparsity_exact, with the products against every key: `which` names them). Throws
// OverflowError on "q" for an M that is not finite (the sum of large products overflows).
// One pass over each row, max and sum in order over s (the bits of xt::amax and xt::sum over axis
// 1, pinned by tests/catch2/test_prob_attention.cpp; the reducers cost more than the products).
Tensor sparsity_of(const Tensor& products, double divisor, std::size_t b, std::size_t h, const char* which) {
  const std::size_t rows = products.shape()[0], n = products.shape()[1];
  Tensor M = Tensor::from_shape({rows});
  const double* x = products.data();
  double* out = M.data();
  for (std::size_t i = 0; i < rows; ++i, x += n) {
    double max = x[0], total = 0.0;
    for (std::size_t s = 0; s < n; ++s) {
      max = x[s] > max ? x[s] : max;  // the products are finite (checked as they are formed)
      total += x[s];
    }
    out[i] = max - total / divisor;
  }
  if (const std::size_t i = first_not_finite(M); i < M.size())
    throw OverflowError("q", "the sparsity M = max - sum / " + std::to_string(static_cast<std::size_t>(divisor)) +
                                 " of query " + std::to_string(i) + " (batch " + std::to_string(b) + ", head " +
                                 std::to_string(h) + ") is not a finite number (the " + which + " q.k are too large)");
  return M;
}

// Step 5: `M_top = M.topk(n_top, sorted=False)[1]`, in descending M, ties to the lower index.
IndexTensor top_queries(const Tensor& M, std::size_t u) {
  std::vector<std::size_t> order(M.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const double* m = M.data();
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(u), order.end(),
                    [m](std::size_t a, std::size_t c) { return m[a] > m[c] || (m[a] == m[c] && a < c); });
  IndexTensor top = IndexTensor::from_shape({u});
  for (std::size_t t = 0; t < u; ++t) top(t) = static_cast<std::int64_t>(order[t]);
  return top;
}

// A tie at the top-u cut (issue 17): queries whose M equals the last selected query's (to 1e-12
// relative: torch sums the samples in its own order), some selected and some not. The project
// keeps the lower index (step 5); torch.topk may keep any of them, so the warning names them all.
std::optional<std::string> cut_tie(const Tensor& M, const IndexTensor& top, std::size_t b, std::size_t h) {
  const std::size_t u = top.size(), L = M.size();
  if (u >= L) return std::nullopt;
  const double cut = M(static_cast<std::size_t>(top(u - 1)));  // descending M: the smallest selected
  std::vector<bool> chosen(L, false);
  for (std::size_t t = 0; t < u; ++t) chosen[static_cast<std::size_t>(top(t))] = true;
  std::vector<std::size_t> tied, kept;
  bool left_out = false;
  for (std::size_t i = 0; i < L; ++i)
    if (std::abs(M(i) - cut) <= 1e-12 * std::max(1.0, std::abs(cut))) {
      tied.push_back(i);
      if (chosen[i]) kept.push_back(i);
      else left_out = true;
    }
  if (!left_out) return std::nullopt;
  return "batch " + std::to_string(b) + ", head " + std::to_string(h) + ": a tie at the top-u cut (u = " +
         std::to_string(u) + "): queries " + row_list(tied) + " have M = " + number_text(cut) +
         "; the project keeps the lower index (" + row_list(kept) + "), torch.topk may keep any of them";
}

struct ProbQK {
  std::vector<std::string> ties;  // 5. one warning per (b, h) with a tie at the cut (cut_tie)
  std::size_t U_part = 0, u = 0;  // 1.
  IndexTensor sample_index;       // 2. (L_Q, U_part), or (H, L_Q, U_part) with sample_per_head
  Tensor q_k_sample;              // 3. (B, H, L_Q, U_part), kept only when asked (trace "full")
  Tensor sparsity;                // 4. (B, H, L_Q)
  IndexTensor top_index;          // 5. (B, H, u)
};

// Steps 1-5: forward()'s sizes and _prob_QK up to M_top (its Q_K of the top queries is step 6,
// computed row by row in update_context).
ProbQK prob_QK(const Tensor& q, const Tensor& k, const ProbOptions& o, bool keep_samples) {
  const std::size_t B = q.shape()[0], L_Q = q.shape()[1], H = q.shape()[2], E = q.shape()[3], L_K = k.shape()[1];
  ProbQK r;
  // 1. `U_part = self.factor * np.ceil(np.log(L_K)).astype("int").item()`
  //    `U_part = U_part if U_part < L_K else L_K` (u the same with L_Q), here at least 1
  const ProbSizes sizes = prob_sizes(o.factor, L_Q, L_K);
  const std::size_t U_part = r.U_part = sizes.U_part, u = r.u = sizes.u;
  // 2. `index_sample = torch.randint(L_K, (L_Q, sample_k))`
  const bool per_head = o.sample_per_head;
  if (o.sample_index) {
    r.sample_index = *o.sample_index;
    check_sample_index(r.sample_index, per_head ? Shape{H, L_Q, U_part} : Shape{L_Q, U_part}, L_K);
  } else {  // in range by construction
    r.sample_index = draw_sample_index(o.seed, H, L_Q, U_part, L_K, per_head);
  }
  if (o.top_index) check_top_index(*o.top_index, u, L_Q);

  const auto divisor = static_cast<double>(o.sparsity_divisor == SparsityDivisor::L_K ? L_K : U_part);
  if (keep_samples) r.q_k_sample = Tensor::from_shape({B, H, L_Q, U_part});
  r.sparsity = Tensor::from_shape({B, H, L_Q});
  r.top_index = IndexTensor::from_shape({B, H, u});
  Tensor products = Tensor::from_shape({L_Q, U_part});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      // 3. `K_sample = K_expand[:, :, torch.arange(L_Q).unsqueeze(1), index_sample, :]`
      //    `Q_K_sample = torch.matmul(Q.unsqueeze(-2), K_sample.transpose(-2, -1)).squeeze()`
      const std::int64_t* idx = r.sample_index.data() + (per_head ? h * L_Q * U_part : 0);
      double* out = products.data();
      constexpr std::size_t N = 4;  // keys at a time (dot_rows)
      const std::size_t stride = H * E;  // from one position to the next in (B, L, H, E)
      const double* q_bh = row_ptr(q, b, 0, h);
      const double* k_bh = row_ptr(k, b, 0, h);
      for (std::size_t i = 0; i < L_Q; ++i) {
        const double* qi = q_bh + i * stride;
        const std::int64_t* idx_i = idx + i * U_part;
        double* out_i = out + i * U_part;
        const double* rows[N];
        std::size_t s = 0;
        for (; s + N <= U_part; s += N) {
          for (std::size_t r = 0; r < N; ++r) rows[r] = k_bh + static_cast<std::size_t>(idx_i[s + r]) * stride;
          dot_rows<N>(qi, rows, E, out_i + s);
        }
        for (; s < U_part; ++s) {
          rows[0] = k_bh + static_cast<std::size_t>(idx_i[s]) * stride;
          dot_rows<1>(qi, rows, E, out_i + s);
        }
        for (s = 0; s < U_part; ++s)
          if (!__builtin_isfinite(out_i[s])) throw_score_overflow(q, k, b, i, h, static_cast<std::size_t>(idx_i[s]));
      }
      if (keep_samples) xt::view(r.q_k_sample, b, h, xt::all(), xt::all()) = products;
      // 4. `M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)`
      const Tensor M = sparsity_of(products, divisor, b, h, "sampled");
      std::copy(M.begin(), M.end(), r.sparsity.data() + (b * H + h) * L_Q);
      // 5. `M_top = M.topk(n_top, sorted=False)[1]` (or the given index, for every b and h)
      if (o.top_index) {
        xt::view(r.top_index, b, h, xt::all()) = *o.top_index;
      } else {
        const IndexTensor chosen = top_queries(M, u);
        if (auto tie = cut_tie(M, chosen, b, h)) r.ties.push_back(std::move(*tie));
        xt::view(r.top_index, b, h, xt::all()) = chosen;
      }
    }
  return r;
}

// Step 7, _get_initial_context: every query starts from the mean of V over the keys, or, with
// the causal mask, from the cumulative SUM of V (the cumulative mean with CausalInitial::mean).
// Returns (B, L_Q, H, D). Throws OverflowError on "v" for a sum that is not finite.
// Loops over each (b, h) slice's rows in place of the xtensor expressions they compute
// (xt::mean(V_bh, {0}), xt::cumsum(V_bh, 0), the broadcast into the context): the same sums in
// the same order, bit for bit (pinned by tests/catch2/test_prob_attention.cpp), without the
// strided views' stepping, which made this O(L D) step cost more than the sampled products.
Tensor initial_context(const Tensor& v, std::size_t L_Q, bool causal, CausalInitial how) {
  const std::size_t B = v.shape()[0], L_K = v.shape()[1], H = v.shape()[2], D = v.shape()[3];
  Tensor context = Tensor::from_shape({B, L_Q, H, D});
  const std::size_t stride = H * D;  // from one position to the next in (B, L, H, D)
  std::vector<double> sum(D);
  double* acc = sum.data();
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const double* v_bh = row_ptr(v, b, 0, h);
      double* context_bh = row_ptr(context, b, 0, h);
      std::fill(acc, acc + D, 0.0);
      if (!causal) {
        // `V_sum = V.mean(dim=-2)`: the sum over the keys in order, divided by L_K
        for (std::size_t j = 0; j < L_K; ++j) {
          const double* vj = v_bh + j * stride;
          for (std::size_t d = 0; d < D; ++d) acc[d] += vj[d];
        }
        const auto n = static_cast<double>(L_K);
        for (std::size_t d = 0; d < D; ++d) acc[d] /= n;
        for (std::size_t d = 0; d < D; ++d)
          if (!__builtin_isfinite(acc[d]))
            throw v_overflow("the sum of v over the keys (the initial context is its mean)", b, h, d);
        // `contex = V_sum.unsqueeze(-2).expand(B, H, L_Q, V_sum.shape[-1]).clone()`
        for (std::size_t i = 0; i < L_Q; ++i) std::copy(acc, acc + D, context_bh + i * stride);
      } else {
        // `assert L_Q == L_V`; `contex = V.cumsum(dim=-2)` (the alternative divides row j by the
        // j + 1 keys it summed)
        const bool mean = how == CausalInitial::mean;
        for (std::size_t j = 0; j < L_K; ++j) {
          const double* vj = v_bh + j * stride;
          double* cj = context_bh + j * stride;
          const auto count = static_cast<double>(j + 1);
          for (std::size_t d = 0; d < D; ++d) {
            acc[d] += vj[d];
            if (!__builtin_isfinite(acc[d]))
              throw v_overflow("the cumulative sum of v up to key " + std::to_string(j) + " (the causal initial context)",
                               b, h, d);
            cj[d] = mean ? acc[d] / count : acc[d];
          }
        }
      }
    }
  return context;
}

// The rows each (b, h) replaces in step 8: its own top rows, or, with the .squeeze() bug
// (H = 1, B > 1), the union of every batch item's top rows. (B, H, L_Q)
BoolTensor rows_to_update(const IndexTensor& top_index, std::size_t L_Q, bool squeeze) {
  const std::size_t B = top_index.shape()[0], H = top_index.shape()[1], u = top_index.shape()[2];
  BoolTensor rows = BoolTensor::from_shape({B, H, L_Q});
  rows.fill(false);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t t = 0; t < u; ++t) {
        const auto i = static_cast<std::size_t>(top_index(b, h, t));
        if (squeeze) xt::view(rows, xt::all(), h, i) = true;
        else rows(b, h, i) = true;
      }
  return rows;
}

struct UpdatedContext {
  Tensor scores_top, weights_top;  // 6., 8. (B, H, u, L_K), kept only when asked (trace "full")
  BoolTensor allowed_top;          // 6.     (B, H, u, L_K), the same
  Tensor attn;                     // 9.     (B, H, L_Q, L_K), with output_attention
  std::uint64_t rows_computed = 0;
  EmptyRowWarnings empty_rows;
};

// Steps 6 and 8 for every updated row at once, without a mask: the rows of each (b, h), ascending,
// gathered into a compact q_top (B, n, H, E) and one call of the fused kernel (attention_kernel.hpp:
// tiles of queries x keys, so each block of K and V is read once for all the rows instead of once
// per row, which made this step memory-bound), the context rows scattered back in place. It is the
// kernel that computes full attention's context: with every row updated (u = L_Q) the context
// is full attention's, bit for bit. Returns false, having written nothing, where it does not
// apply: under ProbMask (each row sees its own prefix of keys), when the (b, h) update different
// numbers of rows (never: see rows_to_update), or when a score is not finite (the row-by-row pass
// then throws the error that names the original query).
bool update_rows_fused(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                       const BoolTensor& updated_rows, Tensor& context, std::uint64_t& rows_computed) {
  if (!mask.is_none()) return false;
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  (void)L_K;
  std::vector<std::size_t> rows;  // rows[(b H + h) n + t]: the t-th updated row of (b, h)
  std::size_t n = 0;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t first = rows.size();
      const bool* updated = updated_rows.data() + (b * H + h) * L_Q;
      for (std::size_t i = 0; i < L_Q; ++i)
        if (updated[i]) rows.push_back(i);
      if (b == 0 && h == 0) n = rows.size();
      else if (rows.size() - first != n) return false;
    }
  if (n == 0) return false;
  Tensor q_top = Tensor::from_shape({B, n, H, E});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t t = 0; t < n; ++t) {
        const double* qi = row_ptr(q, b, rows[(b * H + h) * n + t], h);
        std::copy(qi, qi + E, row_ptr(q_top, b, t, h));
      }
  Tensor context_top;
  EmptyRowWarnings no_empty_rows;  // no mask: every row has its keys
  try {
    attend(q_top, k, v, scale, mask, AttentionOptions{}, context_top, no_empty_rows);
  } catch (const OverflowError&) {
    return false;
  }
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t t = 0; t < n; ++t) {
        const double* ct = row_ptr(context_top, b, t, h);
        std::copy(ct, ct + D, row_ptr(context, b, rows[(b * H + h) * n + t], h));
      }
  rows_computed = std::uint64_t{B} * H * n;
  return true;
}

// Steps 6, 8 and 9: _prob_QK's last line (Q_K of the top queries) and _update_context; the rows of
// `context` are replaced in place. The context rows come from update_rows_fused where it applies,
// else one updated row at a time (the fused kernel's row, attend_row); the rows' scores and
// weights (the pictures of trace "full", attn) from attend_row, only when asked.
UpdatedContext update_context(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                              const IndexTensor& top_index, const BoolTensor& updated_rows, bool output_attention,
                              bool keep_top, Tensor& context) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const std::size_t u = top_index.shape()[2];
  UpdatedContext r;
  if (keep_top) {
    r.scores_top = Tensor::from_shape({B, H, u, L_K});
    r.weights_top = Tensor::from_shape({B, H, u, L_K});
    r.allowed_top = BoolTensor::from_shape({B, H, u, L_K});
  }
  if (output_attention) {
    // 9. `attns = (torch.ones([B, H, L_V, L_V]) / L_V)`
    r.attn = Tensor::from_shape({B, H, L_Q, L_K});
    r.attn.fill(1.0 / static_cast<double>(L_K));
  }
  // 6. `Q_K = torch.matmul(Q_reduce, K.transpose(-2, -1))`; `scores_top = scores_top * scale`
  //    `scores.masked_fill_(attn_mask.mask, -np.inf)` (ProbMask), and
  // 8. `attn = torch.softmax(scores, dim=-1)`
  //    `context_in[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :] = torch.matmul(attn, V)`
  std::uint64_t fused_rows = 0;
  const bool fused = update_rows_fused(q, k, v, scale, mask, updated_rows, context, fused_rows);
  if (fused && !keep_top && !output_attention) {  // nothing else asked for
    r.rows_computed = fused_rows;
    return r;
  }
  std::vector<double> scores_i(L_K), weight_row(L_K), context_row(D);
  std::vector<std::size_t> slot(L_Q);  // the t with top_index[b,h,t] = i, or u
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      std::fill(slot.begin(), slot.end(), u);
      for (std::size_t t = 0; t < u; ++t) slot[static_cast<std::size_t>(top_index(b, h, t))] = t;
      for (std::size_t i = 0; i < L_Q; ++i) {
        if (!updated_rows(b, h, i)) continue;
        ++r.rows_computed;
        // 6, 8 for one row (the fused kernel's row: scores, weights, context); its context only
        // where the fused pass did not write the rows
        double* out = fused ? context_row.data() : row_ptr(context, b, i, h);
        if (!attend_row(q, k, v, scale, mask, b, i, h, scores_i.data(), weight_row.data(), out) && !fused)
          r.empty_rows.add(b, h, i);
        // 9. `attns[torch.arange(B)[:, None, None], torch.arange(H)[None, :, None], index, :] = attn`
        if (output_attention) std::copy(weight_row.begin(), weight_row.end(), &r.attn(b, h, i, 0));
        if (keep_top && slot[i] < u) {
          const std::size_t t = slot[i];
          std::copy(scores_i.begin(), scores_i.end(), &r.scores_top(b, h, t, 0));
          std::copy(weight_row.begin(), weight_row.end(), &r.weights_top(b, h, t, 0));
          for (std::size_t j = 0; j < L_K; ++j) r.allowed_top(b, h, t, j) = mask.allows(b, i, j);
        }
      }
    }
  return r;
}

// M with the products of every key (the mean over all L_K keys, whichever sparsity_divisor): what
// ProbAttention estimates (trace "full"; exact_context and max_abs_error beside it come from
// add_exact_context). Where a q.k that ProbAttention never formed is not finite, none of the three,
// with a warning.
std::optional<Tensor> exact_sparsity(const Tensor& q, const Tensor& k, std::vector<std::string>& warnings) {
  const std::size_t B = q.shape()[0], L_Q = q.shape()[1], H = q.shape()[2], L_K = k.shape()[1];
  try {
    Tensor sparsity = Tensor::from_shape({B, H, L_Q});
    Tensor products = Tensor::from_shape({1, L_K});
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < L_Q; ++i) {
          score_row(q, k, b, i, h, 1.0, products.data());  // unscaled, as q_k_sample
          sparsity(b, h, i) = sparsity_of(products, static_cast<double>(L_K), b, h, "exact")(0);
        }
    return sparsity;
  } catch (const OverflowError& e) {
    warnings.push_back(std::string("sparsity_exact, exact_context and max_abs_error are left out: ") + e.what());
    return std::nullopt;
  }
}

// Where this trace and the reference part: sizes the reference cannot run, the .squeeze() union.
void reference_warnings(const ProbQK& top, std::size_t L_K, const BoolTensor& updated_rows, bool squeeze,
                        std::vector<std::string>& warnings) {
  const std::size_t B = updated_rows.shape()[0], L_Q = updated_rows.shape()[2];
  if (L_K == 1)
    warnings.push_back("L_K = 1: the reference raises here (ln 1 = 0 samples no key); U_part = 1 is used");
  if (L_Q == 1)
    warnings.push_back("L_Q = 1: the reference updates no query here (ln 1 = 0 gives u = 0); u = 1 is used");
  if (top.U_part == 1 && L_K > 1)
    warnings.push_back("U_part = 1: the reference's .squeeze() also drops the sample axis here and ranks "
                       "something else; this trace ranks the queries by M as intended");
  if (!squeeze) return;
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < L_Q; ++i)
    if (updated_rows(0, 0, i)) rows.push_back(i);
  if (rows.size() > top.u)
    warnings.push_back("H = 1 with B = " + std::to_string(B) + ": as in the reference's .squeeze(), every "
                       "batch item updates the top rows of all batch items (rows " + row_list(rows) +
                       ", not only its own " + std::to_string(top.u) + "); \"squeeze_bug\": false turns this off");
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
  // rng.below(L_K) for each entry, its rejection threshold computed once (one 64-bit division per
  // draw instead of two): the same draws (tests/catch2/test_prob_attention.cpp)
  const std::uint64_t n = L_K, threshold = (0 - n) % n;
  std::int64_t* out = idx.data();
  const std::size_t count = idx.size();
  for (std::size_t e = 0; e < count; ++e) {
    std::uint64_t x;
    do x = rng.next();
    while (x < threshold);
    out[e] = static_cast<std::int64_t>(x % n);
  }
  return idx;
}

void check_prob_mask_kind(const std::string& kind, const std::string& field) {
  if (kind != "none" && kind != "causal")
    throw InputError(field, "ProbAttention takes \"none\" or \"causal\" (ProbMask), got \"" + kind + "\"");
}

// forward(): steps 1-5, 7, then 6, 8, 9, and the trace.
Trace prob_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, const ProbOptions& options, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const bool full = level == TraceLevel::full;
  check_prob_mask_kind(mask_kind_name(mask.kind), "mask.kind");
  const bool causal = mask.requires_causal();
  if (causal && L_Q != L_K)
    throw InputError("mask", "the causal mask of ProbAttention needs L_Q = L_K (its initial context is the "
                     "cumulative sum of V), got L_Q = " + std::to_string(L_Q) + ", L_K = " + std::to_string(L_K));

  // 1-5. `scores_top, index = self._prob_QK(queries, keys, sample_k=U_part, n_top=u)`
  ProbQK top = prob_QK(q, k, options, full);
  const bool squeeze = options.squeeze_bug && H == 1 && B > 1;
  BoolTensor updated_rows = rows_to_update(top.top_index, L_Q, squeeze);
  // 7. `context = self._get_initial_context(values, L_Q)`
  Tensor context = initial_context(v, L_Q, causal, options.causal_initial);
  Tensor initial;
  if (full) initial = context;
  // 6, 8, 9. `context, attn = self._update_context(context, values, scores_top, index, L_Q, attn_mask)`
  UpdatedContext updated = update_context(q, k, v, scale, mask, top.top_index, updated_rows, options.output_attention,
                                          full, context);

  Trace trace;
  std::optional<Tensor> sparsity_exact;
  if (full) {
    sparsity_exact = exact_sparsity(q, k, trace.warnings);
    trace.set("U_part", static_cast<std::int64_t>(top.U_part));
    trace.set("u", static_cast<std::int64_t>(top.u));
    trace.set("sample_index", std::move(top.sample_index));
    trace.set("q_k_sample", std::move(top.q_k_sample));
    trace.set("sparsity", std::move(top.sparsity));
    if (sparsity_exact) trace.set("sparsity_exact", std::move(*sparsity_exact));
    trace.set("top_index", top.top_index);
    trace.set("updated_rows", updated_rows);
    trace.set("scores_top", std::move(updated.scores_top));
    trace.set("allowed_top", std::move(updated.allowed_top));
    trace.set("weights_top", std::move(updated.weights_top));
    trace.set("initial_context", std::move(initial));
  }
  trace.set("context", std::move(context));
  if (options.output_attention) trace.set("attn", std::move(updated.attn));
  if (sparsity_exact) add_exact_context(trace, q, k, v, scale, mask, level);

  const std::uint64_t BH = std::uint64_t{B} * H;  // 64-bit also in wasm32
  const std::uint64_t sampled_products = BH * L_Q * top.U_part;
  trace.cost.dot_products = sampled_products + updated.rows_computed * L_K;
  trace.cost.dense_dot_products = BH * L_Q * L_K;
  trace.cost.flops = 2 * (sampled_products * E + updated.rows_computed * L_K * (E + D));

  reference_warnings(top, L_K, updated_rows, squeeze, trace.warnings);  // after the comparison's, if any
  trace.warnings.insert(trace.warnings.end(), top.ties.begin(), top.ties.end());
  updated.empty_rows.flush(trace.warnings);
  return trace;
}

}  // namespace attnplay
