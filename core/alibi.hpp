// ALiBi, attention with linear biases (Press et al. 2022; BLOOM's build_alibi_tensor):
//
//   bias[h, i, j] = -slope_h * |i - j|        added to the scaled scores before the mask
//
// Default slopes (get_slopes of ofirpress/attention_with_linear_biases): for H a power of two the
// geometric sequence slope_h = 2^(-8 (h+1) / H); otherwise the slopes of the closest lower power
// of two P, then every other slope of 2P, until there are H. The kernel adds the bias inside its
// pass (attention_kernel.hpp, AttentionOptions::alibi_slopes): no L_Q x L_K tensor but the
// trace "full" picture alibi_bias.
#pragma once

#include <vector>

#include "tensor.hpp"

namespace attnplay {

// -slope |i - j|, one entry of the bias (the kernel's pass, the pictures).
inline double alibi_term(double slope, std::size_t i, std::size_t j) {
  return -slope * static_cast<double>(i > j ? i - j : j - i);
}

// get_slopes(H): H >= 1.
std::vector<double> alibi_slopes(std::size_t H);

// The (H, L_Q, L_K) picture of the bias, for the trace "full".
Tensor alibi_bias(const std::vector<double>& slopes, std::size_t L_Q, std::size_t L_K);

}  // namespace attnplay
