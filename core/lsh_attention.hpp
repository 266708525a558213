#pragma once

#include <cstdint>

#include "trace.hpp"

namespace attnplay {

// Seeded rotations (n_hashes, E, n_buckets / 2): standard normals (as Reformer's
// `random_rotations = np.random.normal(size=...)`), from Rng(seed, RngStream::weights), row-major.
Tensor lsh_rotations(std::uint64_t seed, std::size_t n_hashes, std::size_t E, std::size_t n_buckets);

// Reformer's LSH attention with shared QK, as SPEC §2 states it (see lsh_attention.cpp).
//   q (B, L, H, E) (the keys too), v (B, L, H, D), rotations (n_hashes, E, n_buckets / 2)
//   -> context (B, L, H, D)
// allow_duplicate_attention (reformer_pytorch's name; true is SPEC's formula): false subtracts
// log N_ij from each round's score, N_ij = the rounds in which i and j share a bucket.
// Trace at TraceLevel::full: rotations, buckets (n_hashes, B, H, L), round_logsumexp and
// round_weights (n_hashes, B, H, L), round_context (n_hashes, B, L, H, D), weights (B, H, L, L),
// context, exact_context, max_abs_error; at TraceLevel::context: context. Throws OverflowError on
// "q" for a hash q . R or a score that is not finite ("scale" when q . q is finite).
Trace lsh_attention(const Tensor& q, const Tensor& v, double scale, const Tensor& rotations, bool allow_duplicate_attention,
                    TraceLevel level);

// Steps 1-2: buckets (n_hashes, B, H, L) = argmax([q R_r, -q R_r]) (the first maximum, as torch.argmax).
IndexTensor lsh_buckets(const Tensor& q, const Tensor& rotations);

// reference "reformer-pytorch" (SPEC §2): lucidrains' LSHAttention with bucket_size = L / n_buckets
// (InputError on "n_buckets" otherwise): keys unit length, self -5e4, sorted chunks attending one
// back, scale E^-1/2. The same trace fields as lsh_attention.
struct ReformerOptions {
  bool attend_across_buckets = true;
  bool allow_duplicate_attention = true;
};
// `exact_scale`: the scale of exact_context only.
Trace reformer_lsh_attention(const Tensor& q, const Tensor& v, const Tensor& rotations, const ReformerOptions& o,
                             double exact_scale, TraceLevel level);

}  // namespace attnplay
