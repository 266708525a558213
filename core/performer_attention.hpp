// Performer (FAVOR+): positive random features for the softmax kernel, then linear attention
// (the pass shared with linear_attention.hpp). Su Jianlin's note (seed 002), "采用随机投影将
// Attention 的复杂度线性化".
#pragma once

#include <cstdint>

#include "linear_attention.hpp"
#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// How the rows of a drawn projection get their lengths:
//   chi       each row as long as an independent standard Gaussian vector in R^E (Performer)
//   sqrt_d    every row sqrt(E)
//   quantile  row i (1-based) as long as the i/(m+1) quantile of the chi distribution with E
//             degrees of freedom (the note's idea: the lengths spread evenly, not sampled)
enum class ProjectionNorms { chi, sqrt_d, quantile };

// The (m, E) projection drawn from Rng(seed, RngStream::weights) (docs/semantics.md, "Random
// numbers"): orthogonal = blocks of E orthonormal rows (Gram-Schmidt of Gaussian rows, the last
// block truncated), or iid N(0, I_E) rows; then the lengths of `norms`.
Tensor draw_projection(std::size_t m, std::size_t E, bool orthogonal, ProjectionNorms norms, std::uint64_t seed);

// The chi distribution with k degrees of freedom: CDF P(k/2, x^2/2) (regularised lower
// incomplete gamma) and its inverse, to about 1e-15 relative. p in (0, 1), k >= 1.
double chi_cdf(double x, std::size_t k);
double chi_quantile(double p, std::size_t k);

// FAVOR+ features of x (B, L, H, E) with projection W (m, E): (B, L, H, m),
//   phi(x) = exp(W x~ - |x~|^2 / 2) / sqrt(m),   x~ = x sqrt(scale)   (scale 1/sqrt(E): x E^(-1/4)).
// A feature that overflows throws OverflowError naming the row (`name`[b][l][h]).
Tensor performer_features(const Tensor& x, const Tensor& projection, double scale, const char* name);

// Performer attention: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D), projection (m, E),
// scale >= 0 (the kernel estimated is exp(scale q.k)); mask none or causal. Trace: projection,
// features_q, features_k, weights (full), context, exact_context, max_abs_error (full).
// ref = performer_pytorch: lucidrains' softmax_kernel features (E^-1/4, the max stabiliser, eps 1e-4;
// `scale` then only for exact_context) and its causal eps 1e-6 (L_Q <= L_K).
Trace performer_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& projection, double scale,
                          const Mask& mask, TraceLevel level, KernelReference ref = KernelReference::spec);

// performer-pytorch's softmax_kernel(x, projection_matrix, is_query) in our layout (B, L, H, m):
//   ratio (exp(w.x' - |x'|^2/2 - c) + 1e-4),  x' = E^-1/4 x,  ratio = m^-1/2,
//   c = max_r w_r.x' of each row (queries), or over every row and feature of each (b, h) (keys).
Tensor performer_pytorch_features(const Tensor& x, const Tensor& projection, bool is_query, const char* name);

}  // namespace attnplay
