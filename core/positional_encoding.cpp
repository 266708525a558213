// PositionalEncoding (d2l 10.6.3):
//
//   X[i, j]     = i / base^(2j / d)          i < num_steps, j < d / 2, d = encoding_dim (even)
//   P[i, 2j]    = sin(X[i, j])
//   P[i, 2j+1]  = cos(X[i, j])
//
// Shapes: P (num_steps, encoding_dim). The seed's example: num_steps 60, encoding_dim 32, base
// 10000; row 0 is [0, 1, 0, 1, ...]; columns 6 and 7 are a sine and a cosine of one frequency,
// columns 8 and 9 a lower one.
//
// Computed as d2l's code, line by line, in float64 (xtensor expressions, broadcasting as torch):
//   X = torch.arange(max_len).reshape(-1, 1) / torch.pow(10000, torch.arange(0, d, 2) / d)
//   P[:, :, 0::2] = torch.sin(X)
//   P[:, :, 1::2] = torch.cos(X)
// (the exponent 2j/d is rounded as a double first; X is a division, not a product with the
// inverse, so the numbers are torch's to the last bit but for libm's sin/cos).
// No dot products: cost 0 of 0.
#include "positional_encoding.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

namespace attnplay {

Trace positional_encoding(std::size_t num_steps, std::size_t encoding_dim, double base) {
  const auto d = static_cast<double>(encoding_dim);
  const Tensor position = xt::arange<double>(static_cast<double>(num_steps));  // (num_steps)
  const Tensor denominator = xt::pow(base, xt::arange<double>(0.0, d, 2.0) / d);  // (d/2)
  // X (num_steps, d/2) = position.reshape(-1, 1) / denominator
  const Tensor X = xt::view(position, xt::all(), xt::newaxis()) / denominator;
  if (!xt::all(xt::isfinite(X))) {  // base^(2j/d) underflowed to 0 (or a subnormal)
    const auto flat = static_cast<std::size_t>(std::find_if(X.begin(), X.end(), [](double x) { return !std::isfinite(x); }) - X.begin());
    const std::size_t i = flat / X.shape()[1], j = flat % X.shape()[1];
    throw InputError("base", number_text(base) + " is too small: position " + std::to_string(i) + " / base^(" +
                     std::to_string(2 * j) + "/" + std::to_string(encoding_dim) + ") is not a finite number");
  }
  Tensor P = Tensor::from_shape({num_steps, encoding_dim});
  xt::view(P, xt::all(), xt::range(0, encoding_dim, 2)) = xt::sin(X);
  xt::view(P, xt::all(), xt::range(1, encoding_dim, 2)) = xt::cos(X);

  Trace trace;
  trace.set("P", std::move(P));
  trace.cost = {0, 0, 0};
  return trace;
}

}  // namespace attnplay
