// Reformer's LSH attention (Kitaev, Kaiser, Levskaya 2020), the note's "Reformer" (seed 002): the
// sparsity pattern is found by locality-sensitive hashing, which (approximately) finds the
// largest attention values, and only those are computed. As SPEC §2 states it (shared QK: the
// keys are the queries), quoting lucidrains/reformer_pytorch (LSHAttention) beside each step:
//
//   q (B, L, H, E) = the keys, v (B, L, H, D), rotations R (n_hashes, E, n_buckets / 2), shared
//   by every batch item and head; scale default 1/sqrt(E). Per hash round r, batch item b, head h:
//   1. rotated          (L, n_buckets/2)    q R_r
//                                           `rotated_vecs = torch.einsum('btf,bfhi->bhti', dropped_vecs, random_rotations)`
//   2. buckets          (n_hashes, B, H, L) argmax([q_i R_r, -q_i R_r]), ties to the lower index (torch.argmax)
//                                           `rotated_vecs = torch.cat([rotated_vecs, -rotated_vecs], dim=-1)`
//                                           `buckets = torch.argmax(rotated_vecs, dim=-1)`
//   3. per bucket c, for each member i and the members j of c (i itself included):
//        s_ij = scale * q_i . q_j  (minus log N_ij without allow_duplicate_attention, below);
//        p_r(i, j) = softmax_j(s_ij)
//      round_logsumexp  (n_hashes, B, H, L) log sum_j exp(s_ij)
//                                           `dots_logsumexp = torch.logsumexp(dots, dim=-1, keepdim=True)`
//      round_context    (n_hashes, B, L, H, D) sum_j p_r(i, j) v_j
//   4. round_weights    (n_hashes, B, H, L) softmax over the rounds of round_logsumexp
//                                           `probs = torch.exp(logits - torch.logsumexp(logits, dim=1, keepdim=True))`
//      context          (B, L, H, D)        sum_r round_weights[r] round_context[r]
//                                           `out = torch.sum(o * probs, dim=1)`
//   5. weights          (B, H, L, L)        sum_r round_weights[r,b,h,i] p_r(i, j), at trace "full":
//                                           the implied attention of each query; rows sum to 1, zero
//                                           outside the buckets the query shares with j
//   beside it, at trace "full": exact_context (full attention with k = q) and max_abs_error.
//
// A pair that shares a bucket in N_ij rounds enters the combination N_ij times: that is SPEC's
// formula and reformer_pytorch's default (allow_duplicate_attention=True). With
// allow_duplicate_attention false, each round's score is s_ij - log N_ij
// (`dots = dots - torch.log(dup_counts + 1e-9)`, without the 1e-9: N_ij >= 1), and the combined
// weights are exactly the softmax over the union of the query's buckets. With one round and every
// query in one bucket either way is full attention over the shared keys. Unlike Reformer's code
// (SPEC): a query may attend to itself, keys are not normalised, buckets are not chunked.
//
// Only the pairs within a bucket are computed (group by bucket): cost.dot_products = the sum
// over rounds, batch items, heads and buckets of the bucket size squared; flops = 2 * that *
// (E + D) + the hashing, B*H*n_hashes*L*E*n_buckets (L*E*n_buckets/2 multiply-adds a round).
// Steps 3 and 5 are the shared row kernels over the bucket's members (a KeyList), steps 1-2 the
// shared dot() against the transposed rotations and a first-maximum scan (an O(L x n_buckets)
// pass); step 4 is xtensor expressions on (b, h) slices, reductions stored in named tensors. The
// weights of step 5 recompute step 3's rows (not counted in cost, as full's picture of scores).
#include "lsh_attention.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attention_rows.hpp"
#include "full_attention.hpp"
#include "mask.hpp"
#include "rng.hpp"

namespace attnplay {

Tensor lsh_rotations(std::uint64_t seed, std::size_t n_hashes, std::size_t E, std::size_t n_buckets) {
  Rng rng(seed, RngStream::weights);
  Tensor R = Tensor::from_shape({n_hashes, E, n_buckets / 2});
  for (double& x : R) x = rng.normal();
  return R;
}

Trace lsh_attention(const Tensor& q, const Tensor& v, double scale, const Tensor& rotations, bool allow_duplicate_attention,
                    TraceLevel level) {
  const std::size_t B = q.shape()[0], L = q.shape()[1], H = q.shape()[2], E = q.shape()[3], D = v.shape()[3];
  const std::size_t n_hashes = rotations.shape()[0], n_buckets = 2 * rotations.shape()[2];
  const bool full = level == TraceLevel::full;

  IndexTensor buckets = IndexTensor::from_shape({n_hashes, B, H, L});
  Tensor round_logsumexp = Tensor::from_shape({n_hashes, B, H, L});
  Tensor round_context = Tensor::from_shape({n_hashes, B, L, H, D});
  std::vector<KeyList> members(n_buckets);
  std::vector<std::size_t> used;  // the nonempty buckets of the current round, in order of first member
  std::vector<double> scores(L), p(L);
  std::uint64_t pairs = 0;

  // The members of each bucket of round r, ascending; O(L) however many buckets there are.
  auto group = [&](std::size_t r, std::size_t b, std::size_t h) {
    for (const std::size_t c : used) members[c].clear();
    used.clear();
    for (std::size_t i = 0; i < L; ++i) {
      const auto c = static_cast<std::size_t>(buckets(r, b, h, i));
      if (members[c].empty()) used.push_back(c);
      members[c].push_back(static_cast<std::uint32_t>(i));
    }
  };
  // Step 3 for query i against the members m of its bucket: p = the softmax, returns the logsumexp.
  auto bucket_row = [&](std::size_t b, std::size_t h, std::size_t i, const KeyList& m) {
    score_row(q, q, b, i, h, scale, scores.data(), &m);
    if (!allow_duplicate_attention)  // s_ij - log N_ij, N_ij = the rounds in which i and j share a bucket
      for (std::size_t t = 0; t < m.size(); ++t) {
        std::size_t shared = 0;
        for (std::size_t r = 0; r < n_hashes; ++r) shared += buckets(r, b, h, i) == buckets(r, b, h, m[t]);
        scores[t] -= std::log(static_cast<double>(shared));
      }
    const double top = *std::max_element(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(m.size()));
    double sum = 0.0;
    for (std::size_t t = 0; t < m.size(); ++t) sum += std::exp(scores[t] - top);
    softmax_row(scores.data(), m.size(), p.data());
    return top + std::log(sum);
  };

  const std::size_t half = n_buckets / 2;
  Tensor rotated = Tensor::from_shape({L, half});
  for (std::size_t r = 0; r < n_hashes; ++r) {
    // R_r^T (n_buckets / 2, E): a contiguous row per column of R_r, for the dot products of step 1
    const Tensor R_t = xt::transpose(xt::view(rotations, r, xt::all(), xt::all()));
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h) {
        // 1. rotated = q R_r  (L, n_buckets / 2): an O(L x n_buckets) pass, so dot() over rows
        for (std::size_t i = 0; i < L; ++i)
          for (std::size_t c = 0; c < half; ++c) {
            rotated(i, c) = dot(row_ptr(q, b, i, h), &R_t(c, 0), E);
            if (!std::isfinite(rotated(i, c)))
              throw OverflowError("q", "the hash q . rotations[" + std::to_string(r) + "] of query " + std::to_string(i) +
                                           " (batch " + std::to_string(b) + ", head " + std::to_string(h) +
                                           ") is not a finite number; use smaller q or rotations");
          }
        // 2. bucket = argmax([qR, -qR]): the first maximum of the n_buckets candidates, as torch.argmax
        //    (the candidates are not stored; xt::argmax along an axis returns the argmin of a 1-D
        //    tensor on xtensor 0.24.3)
        for (std::size_t i = 0; i < L; ++i) {
          const double* row = &rotated(i, 0);
          auto candidate = [row, half](std::size_t c) { return c < half ? row[c] : -row[c - half]; };
          std::size_t best = 0;
          for (std::size_t c = 1; c < n_buckets; ++c)
            if (candidate(c) > candidate(best)) best = c;
          buckets(r, b, h, i) = static_cast<std::int64_t>(best);
        }
      }
  }

  // Step 3 for every query of every round, batch item and head, bucket by bucket:
  // visit(r, b, h, i, members of i's bucket, logsumexp), with i's softmax row in p.
  auto each_bucket_row = [&](auto&& visit) {
    for (std::size_t r = 0; r < n_hashes; ++r)
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {
          group(r, b, h);
          for (const std::size_t c : used)
            for (const std::uint32_t i : members[c]) visit(r, b, h, i, members[c], bucket_row(b, h, i, members[c]));
        }
  };

  // 3. attention within each bucket
  each_bucket_row([&](std::size_t r, std::size_t b, std::size_t h, std::size_t i, const KeyList& m, double lse) {
    pairs += m.size();  // summed over the bucket's members: size^2
    round_logsumexp(r, b, h, i) = lse;
    weighted_values(p.data(), v, b, h, &round_context(r, b, i, h, 0), &m);
  });

  // 4. the rounds combined: softmax over the rounds of their logsumexp
  Tensor round_weights = Tensor::from_shape({n_hashes, B, H, L});
  Tensor context = Tensor::from_shape({B, L, H, D});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      const Tensor lse = xt::view(round_logsumexp, xt::all(), b, h, xt::all());  // (n_hashes, L)
      const Tensor top = xt::amax(lse, {0});
      const Tensor total = xt::sum(xt::exp(lse - top), {0});
      const Tensor w = xt::exp(lse - top) / total;
      xt::view(round_weights, xt::all(), b, h, xt::all()) = w;
      const Tensor context_bh = xt::sum(xt::view(w, xt::all(), xt::all(), xt::newaxis()) *
                                            xt::view(round_context, xt::all(), b, xt::all(), h, xt::all()),
                                        {0});  // (L, D)
      xt::view(context, b, xt::all(), h, xt::all()) = context_bh;
    }

  Trace trace;
  if (full) {
    // 5. the implied weights: each round's in-bucket softmax rows, weighted by the round weights
    Tensor weights = xt::zeros<double>({B, H, L, L});
    each_bucket_row([&](std::size_t r, std::size_t b, std::size_t h, std::size_t i, const KeyList& m, double) {
      for (std::size_t t = 0; t < m.size(); ++t) weights(b, h, i, m[t]) += round_weights(r, b, h, i) * p[t];
    });
    trace.set("rotations", rotations);
    trace.set("buckets", std::move(buckets));
    trace.set("round_logsumexp", std::move(round_logsumexp));
    trace.set("round_weights", std::move(round_weights));
    trace.set("round_context", std::move(round_context));
    trace.set("weights", std::move(weights));
  }
  trace.set("context", std::move(context));
  add_exact_context(trace, q, q, v, scale, Mask{}, level);
  const std::uint64_t BH = std::uint64_t{B} * H;
  trace.cost = {pairs, BH * L * L, 2 * pairs * (E + D) + BH * n_hashes * L * E * n_buckets};
  return trace;
}

}  // namespace attnplay
