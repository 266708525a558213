// torch.nn.Linear, the two pieces the algorithms share: y = x W^T + b over contiguous rows, and
// the default initialisation uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) drawn from our Rng.
#pragma once

#include <cmath>
#include <optional>

#include "rng.hpp"
#include "tensor.hpp"

namespace attnplay {

// y[r, :] = W x[r, :] + b for `rows` contiguous rows of length in; W (out, in), y rows of length out.
inline void linear_rows(const double* x, std::size_t rows, std::size_t in, const Tensor& W,
                        const std::optional<Tensor>& bias, double* y) {
  const std::size_t out = W.shape()[0];
  for (std::size_t r = 0; r < rows; ++r) {
    const double* xr = x + r * in;
    double* yr = y + r * out;
    for (std::size_t o = 0; o < out; ++o) yr[o] = dot(xr, W.data() + o * in, in) + (bias ? bias->data()[o] : 0.0);
  }
}

// A weight or bias of nn.Linear(fan_in, ...) as torch initialises it, drawn row-major.
inline Tensor linear_init(Rng& rng, const Shape& shape, std::size_t fan_in) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  Tensor t = Tensor::from_shape(shape);
  for (std::size_t n = 0; n < t.size(); ++n) t.data()[n] = rng.uniform(-bound, bound);
  return t;
}

}  // namespace attnplay
