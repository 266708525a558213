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
// Computed in the order of d2l's code, in float64:
//   X = torch.arange(max_len).reshape(-1, 1) / torch.pow(10000, torch.arange(0, d, 2) / d)
//   1. the denominators base^(2j/d), with the exponent 2j/d rounded as a double first;
//   2. X[i, j] = i / denominator[j] (a division, not a multiplication by the inverse);
//   3. P[:, 0::2] = sin(X), P[:, 1::2] = cos(X).
// No dot products: cost 0 of 0.
#include "positional_encoding.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnplay {

Trace positional_encoding(std::size_t num_steps, std::size_t encoding_dim, double base) {
  const std::size_t half = encoding_dim / 2;
  // 1. denominators base^(2j/d)
  std::vector<double> denominator(half);
  for (std::size_t j = 0; j < half; ++j)
    denominator[j] = std::pow(base, static_cast<double>(2 * j) / static_cast<double>(encoding_dim));
  Tensor P = Tensor::from_shape({num_steps, encoding_dim});
  for (std::size_t i = 0; i < num_steps; ++i)
    for (std::size_t j = 0; j < half; ++j) {
      // 2. X[i, j];  3. sine in the even column, cosine in the odd one
      const double x = static_cast<double>(i) / denominator[j];
      if (!std::isfinite(x))  // base^(2j/d) underflowed to 0 (or a subnormal)
        throw InputError("base: " + number_text(base) + " is too small: position " + std::to_string(i) + " / base^(" +
                         std::to_string(2 * j) + "/" + std::to_string(encoding_dim) + ") is not a finite number");
      P(i, 2 * j) = std::sin(x);
      P(i, 2 * j + 1) = std::cos(x);
    }

  Trace trace;
  trace.algorithm = "positional_encoding";
  trace.set("P", std::move(P));
  trace.cost = {0, 0, 0};
  return trace;
}

}  // namespace attnplay
