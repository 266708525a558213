// Rotary position embedding (see rope.hpp for the formula and the two styles).
//   1. inv_freq[p] = 1 / base^(2p / E)                (Hugging Face's LlamaRotaryEmbedding, float64)
//   2. angle[m][p] = m * inv_freq[p]                  (torch.outer(t, inv_freq))
//   3. x' = x cos + rotate(x) sin per pair            (apply_rotary_pos_emb; Meta: x * e^{i angle})
#include "rope.hpp"

#include <algorithm>
#include <cmath>

namespace attnplay {

const char* rope_style_name(RopeStyle style) { return style == RopeStyle::half ? "half" : "interleaved"; }

Tensor rope_angles(std::size_t P, std::size_t E, double base) {
  const std::size_t half = E / 2;
  Tensor angles = Tensor::from_shape({P, half});
  std::vector<double> inv_freq(half);
  for (std::size_t p = 0; p < half; ++p)  // 1.
    inv_freq[p] = 1.0 / std::pow(base, static_cast<double>(2 * p) / static_cast<double>(E));
  for (std::size_t m = 0; m < P; ++m)  // 2.
    for (std::size_t p = 0; p < half; ++p) angles(m, p) = static_cast<double>(m) * inv_freq[p];
  return angles;
}

void rotate_in_place(Tensor& x, const std::vector<std::int64_t>& positions, const Tensor& angles, RopeStyle style) {
  const auto& s = x.shape();
  const std::size_t B = s[0], L = s[1], H = s[2], E = s[3], half = E / 2;
  std::vector<double> c(half), sn(half);
  for (std::size_t l = 0; l < L; ++l) {
    const double* a = &angles(static_cast<std::size_t>(positions[l]), 0);
    for (std::size_t p = 0; p < half; ++p) {
      c[p] = std::cos(a[p]);
      sn[p] = std::sin(a[p]);
    }
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h) {
        double* r = row_ptr(x, b, l, h);
        for (std::size_t p = 0; p < half; ++p) {  // 3.
          double& u = style == RopeStyle::half ? r[p] : r[2 * p];
          double& w = style == RopeStyle::half ? r[p + half] : r[2 * p + 1];
          const double x0 = u, x1 = w;
          u = x0 * c[p] - x1 * sn[p];
          w = x1 * c[p] + x0 * sn[p];
        }
      }
  }
}

Tensor apply_rope(Tensor& q, Tensor& k, const Rope& rope) {
  std::int64_t top = 0;
  for (const auto m : rope.positions_q) top = std::max(top, m);
  for (const auto n : rope.positions_k) top = std::max(top, n);
  Tensor angles = rope_angles(static_cast<std::size_t>(top) + 1, q.shape()[3], rope.base);
  rotate_in_place(q, rope.positions_q, angles, rope.style);
  rotate_in_place(k, rope.positions_k, angles, rope.style);
  return angles;
}

void add_rope_trace(Trace& trace, Tensor&& q_rotated, Tensor&& k_rotated, Tensor&& angles) {
  trace.set("q_rotated", std::move(q_rotated));
  trace.set("k_rotated", std::move(k_rotated));
  trace.set("rope_angles", std::move(angles));
}

Tensor rope_decay_bound(std::size_t E, double base, std::size_t distances) {
  const std::size_t half = E / 2;
  std::vector<double> theta(half);
  for (std::size_t k = 0; k < half; ++k)  // Hugging Face's inv_freq, as rope_angles
    theta[k] = 1.0 / std::pow(base, static_cast<double>(2 * k) / static_cast<double>(E));
  Tensor bound = Tensor::from_shape({distances});
  for (std::size_t r = 0; r < distances; ++r) {
    double re = 0, im = 0, sum = 0;  // S_j as it grows, and sum_j |S_j|
    for (std::size_t k = 0; k < half; ++k) {
      const double a = static_cast<double>(r) * theta[k];
      re += std::cos(a);
      im += std::sin(a);
      sum += std::sqrt(re * re + im * im);
    }
    bound(r) = half ? sum / static_cast<double>(half) : 0.0;
  }
  return bound;
}

}  // namespace attnplay
