// Tensor types of the core. Everything is float64 and row-major (xtensor's default), with the
// reference layout (B, L, H, E) for q/k/v.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

namespace attnplay {

using Tensor = xt::xarray<double>;
using BoolTensor = xt::xarray<bool>;
using IndexTensor = xt::xarray<std::int64_t>;
using Shape = std::vector<std::size_t>;

// A scenario that cannot be computed. `field` is the offending field's path ("k[0][3]",
// "mask.window"; "" when the scenario as a whole is at fault) and `detail` says what is wrong;
// what() is the one line users see: "k[0][3]: expected 2 numbers (E of q), got 3"
// ("scenario: ..." when field is empty).
struct InputError : std::runtime_error {
  InputError(const std::string& field_, const std::string& detail_)
      : std::runtime_error((field_.empty() ? std::string("scenario") : field_) + ": " + detail_),
        field(field_), detail(detail_) {}
  std::string field, detail;
};

// A number that stopped being finite inside the computation although every input was finite
// (|q.k| beyond 1.8e308, a sum of V that overflows, ...). Its field is the input the message
// starts with ("q", "v", "scale"); multihead, which hands its projections to the inner
// attention, renames it to its own inputs. See docs/semantics.md, "Numbers too large".
struct OverflowError : InputError {
  using InputError::InputError;
};

// A number as error messages show it ("%g": 1e+200, 0.5).
inline std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// Dimensions of an attention call in the reference layout.
struct AttentionDims {
  std::size_t B, L_Q, L_K, H, E, D;
};

inline AttentionDims attention_dims(const Tensor& q, const Tensor& v) {
  return {q.shape()[0], q.shape()[1], v.shape()[1], q.shape()[2], q.shape()[3], v.shape()[3]};
}

// Dot product of two contiguous vectors of length n (float64, or float32 in the attention
// kernel), with four running sums: independent chains are 2-4x faster than one sum on long
// vectors and vectorise without reassociation. The one dot of the core: the order of its sums is
// what makes native and WASM agree to the last bit. (Rounding differs from a single running sum
// in the last bits, far inside 1e-9.)
template <class T>
inline T dot(const T* a, const T* b, std::size_t n) {
  T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t e = 0;
  for (; e + 4 <= n; e += 4) {
    s0 += a[e] * b[e];
    s1 += a[e + 1] * b[e + 1];
    s2 += a[e + 2] * b[e + 2];
    s3 += a[e + 3] * b[e + 3];
  }
  for (; e < n; ++e) s0 += a[e] * b[e];
  return (s0 + s1) + (s2 + s3);
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
