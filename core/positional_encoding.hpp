#pragma once

#include "trace.hpp"

namespace attnplay {

// Sinusoidal positional encoding, d2l PositionalEncoding (Vaswani et al. 2017).
//   P (num_steps, encoding_dim), encoding_dim even:
//   P[i, 2j] = sin(i / base^(2j/d)),  P[i, 2j+1] = cos(i / base^(2j/d))
// Trace: P.
Trace positional_encoding(std::size_t num_steps, std::size_t encoding_dim, double base);

}  // namespace attnplay
