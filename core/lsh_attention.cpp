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
#include <limits>
#include <numeric>

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

namespace {

// What both modes hand over to the trace.
struct LshParts {
  const Tensor& q;
  const Tensor& v;
  const Tensor& rotations;
  IndexTensor buckets;
  Tensor round_logsumexp, round_weights, round_context, weights, context;
};

// The trace of either mode: its fields at trace "full", the context, exact_context with `scale`
// and the cost of `pairs` dot products.
Trace lsh_trace(LshParts x, double scale, std::uint64_t pairs, TraceLevel level) {
  const std::size_t B = x.q.shape()[0], L = x.q.shape()[1], H = x.q.shape()[2], E = x.q.shape()[3], D = x.v.shape()[3];
  const std::size_t n_hashes = x.rotations.shape()[0], n_buckets = 2 * x.rotations.shape()[2];
  Trace trace;
  if (level == TraceLevel::full) {
    trace.set("rotations", x.rotations);
    trace.set("buckets", std::move(x.buckets));
    trace.set("round_logsumexp", std::move(x.round_logsumexp));
    trace.set("round_weights", std::move(x.round_weights));
    trace.set("round_context", std::move(x.round_context));
    trace.set("weights", std::move(x.weights));
  }
  trace.set("context", std::move(x.context));
  add_exact_context(trace, x.q, x.q, x.v, scale, Mask{}, level);
  const std::uint64_t BH = std::uint64_t{B} * H;
  trace.cost = {pairs, BH * L * L, 2 * pairs * (E + D) + BH * n_hashes * L * E * n_buckets};
  return trace;
}

}  // namespace

// Steps 1-2 (both modes): buckets (n_hashes, B, H, L) = argmax([q R_r, -q R_r]), the first maximum.
IndexTensor lsh_buckets(const Tensor& q, const Tensor& rotations) {
  const std::size_t B = q.shape()[0], L = q.shape()[1], H = q.shape()[2], E = q.shape()[3];
  const std::size_t n_hashes = rotations.shape()[0], n_buckets = 2 * rotations.shape()[2];
  IndexTensor buckets = IndexTensor::from_shape({n_hashes, B, H, L});
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

  return buckets;
}

Trace lsh_attention(const Tensor& q, const Tensor& v, double scale, const Tensor& rotations, bool allow_duplicate_attention,
                    TraceLevel level) {
  const std::size_t B = q.shape()[0], L = q.shape()[1], H = q.shape()[2], D = v.shape()[3];
  const std::size_t n_hashes = rotations.shape()[0], n_buckets = 2 * rotations.shape()[2];
  const bool full = level == TraceLevel::full;

  IndexTensor buckets = lsh_buckets(q, rotations);  // 1-2.
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

  Tensor weights;
  if (full) {
    // 5. the implied weights: each round's in-bucket softmax rows, weighted by the round weights
    weights = xt::zeros<double>({B, H, L, L});
    each_bucket_row([&](std::size_t r, std::size_t b, std::size_t h, std::size_t i, const KeyList& m, double) {
      for (std::size_t t = 0; t < m.size(); ++t) weights(b, h, i, m[t]) += round_weights(r, b, h, i) * p[t];
    });
  }
  return lsh_trace({q, v, rotations, std::move(buckets), std::move(round_logsumexp), std::move(round_weights),
                    std::move(round_context), std::move(weights), std::move(context)}, scale, pairs, level);
}


// ---- reference "reformer-pytorch" (issue 17): lucidrains' LSHAttention.forward, step by step ----
//
// Per (b, h), with bucket_size = L / n_buckets and C = n_hashes * n_buckets chunks:
//   a. `buckets_and_t = seqlen * buckets + (ticker % seqlen)` (buckets offset by r * n_buckets per
//      round), sorted: the (round, position) slots in order of round, bucket, position
//   b. chunks of bucket_size slots; each attends to its own chunk and the one before (cyclic:
//      `look_one_back`, chunk 0 to chunk C - 1)
//   c. `dots = bq . bk * dim ** -0.5` with the keys made unit length (`F.normalize`, eps 1e-12);
//      a query's score with itself `TOKEN_SELF_ATTN_VALUE` = -5e4; without attend_across_buckets
//      a key of another bucket -DBL_MAX (`max_neg_value`); without allow_duplicate_attention
//      `dots - log(dup_counts + 1e-9)`, dup_counts = the rounds r' in which j sits in i's chunk, or
//      in the chunk before it (of the same bucket without attend_across_buckets)
//   d. softmax per slot (its logsumexp kept), `bo = dots @ bv`; unsorted back to (round, position)
//   e. `probs = exp(logits - logsumexp over the rounds)`, `out = sum_r o * probs`
Trace reformer_lsh_attention(const Tensor& q, const Tensor& v, const Tensor& rotations, const ReformerOptions& o,
                             double exact_scale, TraceLevel level) {
  const std::size_t B = q.shape()[0], L = q.shape()[1], H = q.shape()[2], E = q.shape()[3], D = v.shape()[3];
  const std::size_t n_hashes = rotations.shape()[0], n_buckets = 2 * rotations.shape()[2];
  if (L % n_buckets != 0)
    throw InputError("n_buckets", "reformer-pytorch's bucket_size = L / n_buckets must be a whole number (its "
                                  "assert: L divisible by bucket_size * 2), got L = " + std::to_string(L) +
                                  ", n_buckets = " + std::to_string(n_buckets));
  if (D != E)
    throw InputError("v", "reformer-pytorch reshapes v with q's width (`torch.reshape(sv, (batch_size, chunk_size, -1, dim))`): "
                          "D must equal E, got D = " + std::to_string(D) + ", E = " + std::to_string(E));
  const bool full = level == TraceLevel::full;
  const std::size_t bs = L / n_buckets, C = n_hashes * n_buckets, N = n_hashes * L, W = 2 * bs;
  const double scale = 1.0 / std::sqrt(static_cast<double>(E)), lowest = -std::numeric_limits<double>::max();
  const IndexTensor buckets = lsh_buckets(q, rotations);

  Tensor round_logsumexp = Tensor::from_shape({n_hashes, B, H, L});
  Tensor round_context = xt::zeros<double>({n_hashes, B, L, H, D});
  Tensor round_weights = Tensor::from_shape({n_hashes, B, H, L});
  Tensor context = xt::zeros<double>({B, L, H, D});
  Tensor weights;
  if (full) weights = xt::zeros<double>({B, H, L, L});
  std::vector<std::uint64_t> key(N);
  std::vector<std::size_t> sticker(N), undo(N), bucket(N);
  std::vector<std::int64_t> loc1(N), loc2(N);
  std::vector<double> norm(E), dots(W), p(W);
  Tensor unit = Tensor::from_shape({L, E});  // bk: the keys of (b, h) made unit length
  // (round, slot of the chunk row) -> the row's p and key slots, kept for the weights
  std::vector<double> p_all(full ? N * W : 0);
  std::uint64_t pairs = 0;

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      // a. the sort (keys distinct: position in the low digits)
      for (std::size_t r = 0; r < n_hashes; ++r)
        for (std::size_t t = 0; t < L; ++t) {
          bucket[r * L + t] = static_cast<std::size_t>(buckets(r, b, h, t)) + r * n_buckets;
          key[r * L + t] = std::uint64_t{L} * bucket[r * L + t] + t;
        }
      std::iota(sticker.begin(), sticker.end(), std::size_t{0});
      std::sort(sticker.begin(), sticker.end(), [&](std::size_t x, std::size_t y) { return key[x] < key[y]; });
      for (std::size_t s = 0; s < N; ++s) undo[sticker[s]] = s;
      // `locs1 = undo_sort // bq_t.shape[-1]`, `locs2 = (locs1 + 1) % chunk_size` (+ buckets * chunk_size)
      for (std::size_t x = 0; x < N; ++x) {
        const auto chunk = static_cast<std::int64_t>(undo[x] / bs);
        const std::int64_t offset = o.attend_across_buckets ? 0 : static_cast<std::int64_t>(bucket[x] * C);
        loc1[x] = offset + chunk;
        loc2[x] = offset + (chunk + 1) % static_cast<std::int64_t>(C);
      }
      // `bk = F.normalize(bqk, p=2, dim=-1)`: x / max(|x|, 1e-12)
      for (std::size_t t = 0; t < L; ++t) {
        const double* x = row_ptr(q, b, t, h);
        const double n = std::max(std::sqrt(dot(x, x, E)), 1e-12);
        for (std::size_t e = 0; e < E; ++e) unit(t, e) = x[e] / n;
      }
      // b-d. each chunk row against its chunk and the one before
      for (std::size_t s = 0; s < N; ++s) {
        const std::size_t c = s / bs, prev = (c + C - 1) % C;
        const std::size_t i = sticker[s] % L, r = sticker[s] / L;
        const auto slot_of = [&](std::size_t w) { return w < bs ? c * bs + w : prev * bs + (w - bs); };
        for (std::size_t w = 0; w < W; ++w) {
          const std::size_t ks = slot_of(w), j = sticker[ks] % L;
          double d = dot(row_ptr(q, b, i, h), &unit(j, 0), E) * scale;
          if (!std::isfinite(d)) throw_score_overflow(q, q, b, i, h, j);
          if (i == j) d = -5e4;                                                    // TOKEN_SELF_ATTN_VALUE
          if (!o.attend_across_buckets && bucket[sticker[s]] != bucket[sticker[ks]]) d = lowest;  // max_neg_value
          if (!o.allow_duplicate_attention) {
            std::size_t count = 0;
            for (std::size_t r2 = 0; r2 < n_hashes; ++r2)
              count += (loc1[r2 * L + i] == loc1[r2 * L + j]) + (loc1[r2 * L + i] == loc2[r2 * L + j]);
            d -= std::log(static_cast<double>(count) + 1e-9);
          }
          dots[w] = d;
        }
        pairs += W;
        // `dots_logsumexp = torch.logsumexp(dots, dim=-1)`, `dots = torch.exp(dots - dots_logsumexp)`
        const double top = *std::max_element(dots.begin(), dots.end());
        double sum = 0.0;
        for (std::size_t w = 0; w < W; ++w) sum += std::exp(dots[w] - top);
        const double lse = top + std::log(sum);
        double* out = &round_context(r, b, i, h, 0);
        for (std::size_t w = 0; w < W; ++w) {
          p[w] = std::exp(dots[w] - lse);
          const double* vj = row_ptr(v, b, sticker[slot_of(w)] % L, h);
          for (std::size_t d = 0; d < D; ++d) out[d] += p[w] * vj[d];
        }
        round_logsumexp(r, b, h, i) = lse;
        if (full) std::copy(p.begin(), p.end(), p_all.begin() + static_cast<std::ptrdiff_t>(s * W));
      }
      // e. the rounds combined
      for (std::size_t i = 0; i < L; ++i) {
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t r = 0; r < n_hashes; ++r) top = std::max(top, round_logsumexp(r, b, h, i));
        double sum = 0.0;
        for (std::size_t r = 0; r < n_hashes; ++r) sum += std::exp(round_logsumexp(r, b, h, i) - top);
        const double lse = top + std::log(sum);
        for (std::size_t r = 0; r < n_hashes; ++r) {
          const double pr = round_weights(r, b, h, i) = std::exp(round_logsumexp(r, b, h, i) - lse);
          for (std::size_t d = 0; d < D; ++d) context(b, i, h, d) += round_context(r, b, i, h, d) * pr;
        }
      }
      // the implied weights (return_attn's scatter_add of each round's rows, weighted by probs)
      if (full)
        for (std::size_t s = 0; s < N; ++s) {
          const std::size_t c = s / bs, prev = (c + C - 1) % C, i = sticker[s] % L, r = sticker[s] / L;
          for (std::size_t w = 0; w < W; ++w) {
            const std::size_t ks = w < bs ? c * bs + w : prev * bs + (w - bs);
            weights(b, h, i, sticker[ks] % L) += round_weights(r, b, h, i) * p_all[s * W + w];
          }
        }
    }

  return lsh_trace({q, v, rotations, buckets, std::move(round_logsumexp), std::move(round_weights),
                    std::move(round_context), std::move(weights), std::move(context)}, exact_scale, pairs, level);
}

}  // namespace attnplay
