// Performer / FAVOR+ (Choromanski et al. 2020; performer-pytorch's softmax_kernel without its eps
// and max-subtraction), as Su Jianlin's note (seed 002) explains it:
//
//   e^{q.k} = E_{w ~ N(0, I_d)} [ e^{w.q - |q|^2/2} e^{w.k - |k|^2/2} ]
//           ~ phi(q) . phi(k),   phi(x) = exp(W x - |x|^2/2) / sqrt(m)   (m random rows w_r of W)
//
// so softmax attention becomes linear attention with the positive features phi (head size E
// becomes m). To estimate softmax(scale q.k) the inputs are scaled first: x~ = x sqrt(scale),
// i.e. x E^(-1/4) at the default scale 1/sqrt(E) (performer-pytorch's data_normalizer).
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D); projection W (m, E), shared by
// every batch item and head.
//   0. projection  (m, E)         given, or drawn from `seed` (draw_projection):
//                                 orthogonal: blocks of E orthonormal rows (Gram-Schmidt of
//                                 Gaussian rows, "将这些 w 正交化"; m > E: one block per E rows,
//                                 the last truncated); iid: Gaussian rows N(0, I_E);
//                                 then the row lengths: chi (as long as a fresh Gaussian vector),
//                                 sqrt_d (sqrt(E)), quantile (the note's P_d(r <= R_i) = i/(m+1))
//   1. features_q  (B, L_Q, H, m) phi(q~) = exp(W q~ - |q~|^2/2) / sqrt(m)
//      features_k  (B, L_K, H, m) phi(k~)
//   2-4. the linear-attention pass of linear_attention.cpp: KV = sum_j phi(k_j) v_j^T,
//      z = sum_j phi(k_j) (prefix sums under "causal"), context_i = phi(q_i)^T KV / phi(q_i).z,
//      and at trace "full" the implied weights (B, H, L_Q, L_K) phi(q_i).phi(k_j) / phi(q_i).z
//   5. at trace "full": exact_context = softmax(scale Q K^T + mask) V, max_abs_error
//
// No eps and no max-subtraction (SPEC: no eps): a feature exp(.) that overflows is an
// OverflowError naming its row (q[b][i][h] or k[b][j][h]); a query whose features all underflow
// to 0 gets zero context and a warning (the pass).
//
// Cost: the pass's (linear_attention.cpp) plus the projections: B*H*(L_Q + L_K)*m products
// w_r . x~ of length E (dot_products), 2*B*H*(L_Q + L_K)*m*E flops.
#include "performer_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "full_attention.hpp"
#include "linear_attention.hpp"
#include "rng.hpp"

namespace attnplay {

namespace {

// P(a, x), the regularised lower incomplete gamma function: the series for x < a + 1, the
// continued fraction of Q = 1 - P otherwise (Numerical Recipes' gser / gcf, modified Lentz).
double regularized_gamma_p(double a, double x) {
  if (x <= 0.0) return 0.0;
  const double log_prefix = a * std::log(x) - x - std::lgamma(a);
  constexpr double eps = std::numeric_limits<double>::epsilon() / 4;
  if (x < a + 1.0) {
    double ap = a, term = 1.0 / a, sum = term;
    for (int n = 0; n < 1000000; ++n) {
      ap += 1.0;
      term *= x / ap;
      sum += term;
      if (term < sum * eps) break;
    }
    return sum * std::exp(log_prefix);
  }
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int n = 1; n < 1000000; ++n) {
    const double an = -n * (n - a);
    b += 2.0;
    d = an * d + b;
    if (std::abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < eps) break;
  }
  return 1.0 - std::exp(log_prefix) * h;
}

// The chi density with k degrees of freedom: x^(k-1) e^(-x^2/2) / (2^(k/2-1) Gamma(k/2)).
double chi_pdf(double x, std::size_t k) {
  if (x <= 0.0) return k == 1 ? std::sqrt(2.0 / 3.141592653589793) : 0.0;
  const double a = 0.5 * static_cast<double>(k);
  return std::exp((2.0 * a - 1.0) * std::log(x) - 0.5 * x * x - (a - 1.0) * std::log(2.0) - std::lgamma(a));
}

// E standard normals into row (the row-major draw of one projection row).
void draw_normals(Rng& rng, double* row, std::size_t E) {
  for (std::size_t e = 0; e < E; ++e) row[e] = rng.normal();
}

double norm_of(const double* row, std::size_t E) { return std::sqrt(dot(row, row, E)); }

}  // namespace

double chi_cdf(double x, std::size_t k) { return regularized_gamma_p(0.5 * static_cast<double>(k), 0.5 * x * x); }

// Solves chi_cdf(x, k) = p: a bracket [lo, hi] with chi_cdf(lo) < p <= chi_cdf(hi), Newton steps
// that stay inside it, bisection when one would leave it; until the step is below 1e-15 x.
double chi_quantile(double p, std::size_t k) {
  double lo = 0.0, hi = std::sqrt(static_cast<double>(k)) + 10.0;
  while (chi_cdf(hi, k) < p) hi *= 2.0;
  double x = std::min(std::sqrt(static_cast<double>(k)), 0.5 * hi);
  for (int iteration = 0; iteration < 400; ++iteration) {
    const double gap = chi_cdf(x, k) - p;
    if (gap == 0.0) return x;
    if (gap < 0.0) lo = x;
    else hi = x;
    const double pdf = chi_pdf(x, k);
    double next = pdf > 0.0 ? x - gap / pdf : lo;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::abs(next - x) <= 1e-15 * next || hi - lo <= 1e-15 * hi) return next;
    x = next;
  }
  return x;
}

// Draws, in this order from Rng(seed, weights): the m direction rows (E normals each, row-major;
// orthogonal: each orthogonalised against the earlier rows of its block of E, Gram-Schmidt run
// twice; a row left shorter than 1e-12 of its drawn length, or all zero, is drawn again), then,
// for chi norms of orthogonal rows only, m more rows of E normals whose lengths become the rows'
// lengths. iid rows with chi norms keep their own lengths.
Tensor draw_projection(std::size_t m, std::size_t E, bool orthogonal, ProjectionNorms norms, std::uint64_t seed) {
  Rng rng(seed, RngStream::weights);
  Tensor W = Tensor::from_shape({m, E});
  for (std::size_t r = 0; r < m; ++r) {
    double* w = W.data() + r * E;
    const std::size_t block_start = r - r % E;
    for (;;) {
      draw_normals(rng, w, E);
      const double drawn = norm_of(w, E);
      if (drawn == 0.0) continue;
      if (!orthogonal) break;
      // w -= (w . u) u for every earlier unit row u of the block, twice ("twice is enough")
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t s = block_start; s < r; ++s) {
          const double* u = W.data() + s * E;
          const double c = dot(w, u, E);
          for (std::size_t e = 0; e < E; ++e) w[e] -= c * u[e];
        }
      const double left = norm_of(w, E);
      if (left <= 1e-12 * drawn) continue;
      for (std::size_t e = 0; e < E; ++e) w[e] /= left;  // unit length; the norms come next
      break;
    }
  }
  std::vector<double> g(E);
  for (std::size_t r = 0; r < m; ++r) {
    double* w = W.data() + r * E;
    double length = 1.0;  // wanted length / current length
    switch (norms) {
      case ProjectionNorms::chi:
        if (!orthogonal) continue;  // a Gaussian row is already as long as a Gaussian vector
        draw_normals(rng, g.data(), E);
        length = norm_of(g.data(), E);
        break;
      case ProjectionNorms::sqrt_d:
        length = std::sqrt(static_cast<double>(E));
        break;
      case ProjectionNorms::quantile:
        length = chi_quantile(static_cast<double>(r + 1) / static_cast<double>(m + 1), E);
        break;
    }
    const double current = orthogonal ? 1.0 : norm_of(w, E);
    for (std::size_t e = 0; e < E; ++e) w[e] *= length / current;
  }
  return W;
}

// 1. `data_dash = einsum('...id,...jd->...ij', data_normalizer * data, projection)`;
//    `diag_data = (data ** 2).sum(-1) / 2 * data_normalizer ** 2`;
//    `ratio * exp(data_dash - diag_data)` (no eps, no max)
Tensor performer_features(const Tensor& x, const Tensor& projection, double scale, const char* name) {
  const auto& s = x.shape();
  const std::size_t E = s[3], m = projection.shape()[0];
  const double normalizer = std::sqrt(scale), ratio = 1.0 / std::sqrt(static_cast<double>(m));
  constexpr double largest_exponent = 709.782712893384;  // log(DBL_MAX)
  Tensor phi = Tensor::from_shape({s[0], s[1], s[2], m});
  std::vector<double> xt(E);
  for (std::size_t b = 0; b < s[0]; ++b)
    for (std::size_t l = 0; l < s[1]; ++l)
      for (std::size_t h = 0; h < s[2]; ++h) {
        const double* xr = row_ptr(x, b, l, h);
        for (std::size_t e = 0; e < E; ++e) xt[e] = normalizer * xr[e];
        const double diag = 0.5 * dot(xt.data(), xt.data(), E);
        double* out = row_ptr(phi, b, l, h);
        for (std::size_t r = 0; r < m; ++r) {
          const double exponent = dot(projection.data() + r * E, xt.data(), E) - diag;
          if (!(exponent <= largest_exponent))  // too large, or NaN / -inf from |x~|^2 = inf
            throw OverflowError(row_field(name, b, l, h),
                                "the Performer feature exp(w.x~ - |x~|^2/2) is not a finite number (w_" +
                                    std::to_string(r) + ".x~ - |x~|^2/2 = " + number_text(exponent) + ", x~ = " +
                                    name + " sqrt(scale)): |" + name + "| or the projection too large");
          out[r] = ratio * std::exp(exponent);
        }
      }
  return phi;
}

Tensor performer_pytorch_features(const Tensor& x, const Tensor& projection, bool is_query, const char* name) {
  const auto& s = x.shape();
  const std::size_t E = s[3], m = projection.shape()[0];
  const double normalizer = std::pow(static_cast<double>(E), -0.25), ratio = std::pow(static_cast<double>(m), -0.5);
  constexpr double eps = 1e-4;  // softmax_kernel(eps=1e-4)
  Tensor dash = Tensor::from_shape({s[0], s[1], s[2], m});  // data_dash, then the features
  Tensor diag = Tensor::from_shape({s[0], s[1], s[2]});
  std::vector<double> xt(E);
  for (std::size_t b = 0; b < s[0]; ++b)
    for (std::size_t l = 0; l < s[1]; ++l)
      for (std::size_t h = 0; h < s[2]; ++h) {
        const double* xr = row_ptr(x, b, l, h);
        for (std::size_t e = 0; e < E; ++e) xt[e] = normalizer * xr[e];
        // `diag_data = (data ** 2).sum(-1) / 2 * data_normalizer ** 2`
        diag(b, l, h) = dot(xr, xr, E) / 2.0 * (normalizer * normalizer);
        double* out = row_ptr(dash, b, l, h);
        for (std::size_t r = 0; r < m; ++r) out[r] = dot(xt.data(), projection.data() + r * E, E);
      }
  for (std::size_t b = 0; b < s[0]; ++b)
    for (std::size_t h = 0; h < s[2]; ++h) {
      // keys: `torch.amax(data_dash, dim=(-1, -2))`, one max per (b, h)
      double c = -std::numeric_limits<double>::infinity();
      if (!is_query)
        for (std::size_t l = 0; l < s[1]; ++l) {
          const double* row = row_ptr(dash, b, l, h);
          c = std::max(c, *std::max_element(row, row + m));
        }
      for (std::size_t l = 0; l < s[1]; ++l) {
        double* row = row_ptr(dash, b, l, h);
        const double c_row = is_query ? *std::max_element(row, row + m) : c;  // queries: per row
        for (std::size_t r = 0; r < m; ++r) {
          row[r] = ratio * (std::exp(row[r] - diag(b, l, h) - c_row) + eps);
          if (!std::isfinite(row[r]))
            throw OverflowError(row_field(name, b, l, h), "performer-pytorch's feature exp(w.x' - |x'|^2/2 - max) is not a "
                                                          "finite number: |" + std::string(name) + "| or the projection too large");
        }
      }
    }
  return dash;
}

Trace performer_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& projection, double scale,
                          const Mask& mask, TraceLevel level, KernelReference ref) {
  check_kernel_mask_kind(mask_kind_name(mask.kind), "mask.kind", "performer");
  if (!(scale >= 0.0)) throw InputError("scale", "performer needs scale >= 0 (x~ = x sqrt(scale)), got " + number_text(scale));
  const std::size_t B = q.shape()[0], L_Q = q.shape()[1], H = q.shape()[2], E = q.shape()[3], L_K = k.shape()[1];
  const std::size_t m = projection.shape()[0];
  const bool full = level == TraceLevel::full;
  Trace trace;
  // 0-1. the projection and the features
  if (full) trace.set("projection", projection);
  const bool library = ref == KernelReference::performer_pytorch;
  if (library && mask.requires_causal()) check_causal_lengths(ref, L_Q, L_K);
  Tensor phi_q = library ? performer_pytorch_features(q, projection, true, "q") : performer_features(q, projection, scale, "q");
  Tensor phi_k = library ? performer_pytorch_features(k, projection, false, "k") : performer_features(k, projection, scale, "k");
  if (full) {
    trace.set("features_q", phi_q);
    trace.set("features_k", phi_k);
  }
  // 2-4. the linear-attention pass, shared with linear attention
  linear_attention_pass(phi_q, phi_k, v, mask.requires_causal(), true, level, trace, kernel_eps(ref));
  const std::uint64_t projections = std::uint64_t{B} * H * (std::uint64_t{L_Q} + L_K) * m;
  trace.cost.dot_products += projections;
  trace.cost.flops += 2 * projections * E;
  // 5. against exact softmax attention with the same scale
  add_exact_context(trace, q, k, v, scale, mask, level);
  return trace;
}

}  // namespace attnplay
