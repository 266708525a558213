// Tensor types of the core. Everything is float64 and row-major (xtensor's default), with the
// reference layout (B, L, H, E) for q/k/v.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

namespace attnplay {

using Tensor = xt::xarray<double>;
using BoolTensor = xt::xarray<bool>;
using IndexTensor = xt::xarray<std::int64_t>;
using Shape = std::vector<std::size_t>;

// A scenario that cannot be computed: the message names the offending field
// ("k[0][3]: expected 2 numbers (E of q), got 3"). Shown verbatim to the user.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Dimensions of an attention call in the reference layout.
struct AttentionDims {
  std::size_t B, L_Q, L_K, H, E, D;
};

inline AttentionDims attention_dims(const Tensor& q, const Tensor& v) {
  return {q.shape()[0], q.shape()[1], v.shape()[1], q.shape()[2], q.shape()[3], v.shape()[3]};
}

// Dot product of two contiguous vectors of length n.
inline double dot(const double* a, const double* b, std::size_t n) {
  double s = 0.0;
  for (std::size_t e = 0; e < n; ++e) s += a[e] * b[e];
  return s;
}

// Pointer to the vector x[b, l, h, :] of a contiguous (B, L, H, E) tensor.
inline const double* row_ptr(const Tensor& x, std::size_t b, std::size_t l, std::size_t h) {
  const auto& s = x.shape();
  return x.data() + ((b * s[1] + l) * s[2] + h) * s[3];
}
inline double* row_ptr(Tensor& x, std::size_t b, std::size_t l, std::size_t h) {
  const auto& s = x.shape();
  return x.data() + ((b * s[1] + l) * s[2] + h) * s[3];
}

}  // namespace attnplay
