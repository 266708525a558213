#pragma once

#include "attention_kernel.hpp"
#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// FlashAttention: exact attention computed tile by tile with the online softmax (see
// flash_attention.cpp for the shapes and recurrences). The same kernel as full's context
// (attend()); at TraceLevel::full a recorder keeps each key block's running max, running sum and
// unnormalised context. block_q and block_k >= 1.
Trace flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                      std::size_t block_q, std::size_t block_k, TraceLevel level, Dtype dtype = Dtype::float64,
                      const std::vector<double>& alibi_slopes = {});

// The running max of a query that has seen no allowed key yet is -inf; the trace (JSON has no
// infinities) shows it as this number, the lowest double.
constexpr double kNoKeyYet = -1.7976931348623157e308;

}  // namespace attnplay
