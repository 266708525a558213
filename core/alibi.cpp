// ALiBi's slopes and bias picture (see alibi.hpp).
#include "alibi.hpp"

#include <cmath>

namespace attnplay {

namespace {

// start = 2^(-2^-(log2 n - 3)) = 2^(-8/n); slope i = start * start^i (the upstream expression,
// rounding included)
std::vector<double> power_of_two_slopes(std::size_t n) {
  const double start = std::pow(2.0, -std::pow(2.0, -(std::log2(static_cast<double>(n)) - 3.0)));
  std::vector<double> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = start * std::pow(start, static_cast<double>(i));
  return s;
}

}  // namespace

std::vector<double> alibi_slopes(std::size_t H) {
  std::size_t closest = 1;
  while (closest * 2 <= H) closest *= 2;
  if (closest == H) return power_of_two_slopes(H);
  std::vector<double> s = power_of_two_slopes(closest);
  const std::vector<double> extra = alibi_slopes(2 * closest);  // get_slopes(2P)[0::2][:H - P]
  for (std::size_t i = 0; s.size() < H; i += 2) s.push_back(extra[i]);
  return s;
}

Tensor alibi_bias(const std::vector<double>& slopes, std::size_t L_Q, std::size_t L_K) {
  Tensor bias = Tensor::from_shape({slopes.size(), L_Q, L_K});
  for (std::size_t h = 0; h < slopes.size(); ++h)
    for (std::size_t i = 0; i < L_Q; ++i)
      for (std::size_t j = 0; j < L_K; ++j) bias(h, i, j) = alibi_term(slopes[h], i, j);
  return bias;
}

}  // namespace attnplay
