// torch.nn.Linear, the pieces the algorithms share: y = x W^T + b over contiguous rows (checked
// or raw), and the default initialisation uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) drawn from our Rng.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <xtensor/xstrides.hpp>

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

// Where y (B, L, out) first holds a number that is not finite: "batch b, position l, column c";
// nothing when every number is finite.
inline std::optional<std::string> not_finite_at(const Tensor& y) {
  const auto bad = std::find_if(y.begin(), y.end(), [](double x) { return !std::isfinite(x); });
  if (bad == y.end()) return std::nullopt;
  const auto at = xt::unravel_index(static_cast<std::size_t>(bad - y.begin()), y.shape());
  return "batch " + std::to_string(at[0]) + ", position " + std::to_string(at[1]) + ", column " + std::to_string(at[2]);
}

// self.W(x) over the last axis: x (B, L, in) -> x W^T + b (B, L, out). A result that is not
// finite throws OverflowError on `input`: "<formula> is not a finite number at batch b, position
// l, column c (|<input>| and the weights too large)".
inline Tensor linear(const Tensor& x, const Tensor& W, const std::optional<Tensor>& bias,
                     const std::string& input, const std::string& formula) {
  Tensor y = Tensor::from_shape({x.shape()[0], x.shape()[1], W.shape()[0]});
  linear_rows(x.data(), x.shape()[0] * x.shape()[1], x.shape()[2], W, bias, y.data());
  if (const auto at = not_finite_at(y))
    throw OverflowError(input, formula + " is not a finite number at " + *at + " (|" + input + "| and the weights too large)");
  return y;
}

// The backward pass of linear_rows for one row x (in) with output gradient dy (out): accumulates
// dW += dy x^T, db += dy (db not null) and dx += W^T dy (dx not null).
inline void linear_row_backward(const double* dy, const double* x, const Tensor& W, Tensor& dW, double* db,
                                double* dx) {
  const std::size_t out = W.shape()[0], in = W.shape()[1];
  for (std::size_t o = 0; o < out; ++o) {
    const double d = dy[o];
    if (d == 0.0) continue;
    if (db) db[o] += d;
    double* gw = dW.data() + o * in;
    const double* w = W.data() + o * in;
    for (std::size_t c = 0; c < in; ++c) gw[c] += d * x[c];
    if (dx)
      for (std::size_t c = 0; c < in; ++c) dx[c] += d * w[c];
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
