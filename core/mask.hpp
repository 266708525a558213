// Which keys each query may attend to, and what is written into the scores of the others.
//
//   kind        key j allowed for query i iff            reference
//   none        always
//   causal      j <= i                                     TSLib TriangularCausalMask
//   valid_lens  j < valid_len[b] (or [b][i])               d2l masked_softmax
//   local       |i-j| <= window                            Local Self Attention
//   atrous      |i-j| mod dilation == 0                    Atrous Self Attention
//   strided     |i-j| <= window or |i-j| mod stride == 0   OpenAI Sparse Transformer
//   explicit    allowed[i][j]
//   sink        j <= i and (i - j < window or j < sinks)   Mistral's sliding window (sinks 0),
//                                                          StreamingLLM's attention sinks
// Every kind but explicit and valid_lens may add "causal": j <= i as well (sink is causal itself).
// "align": "bottom_right" (full, flash; flash-attn >= 2.1's attention_ref / construct_local_mask):
// query i sits at position i + L_K - L_Q for the causal and local rules (`shift` below).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tensor.hpp"

namespace attnplay {

enum class MaskKind { none, causal, valid_lens, local, atrous, strided, explicit_allowed, sink };

struct Mask {
  MaskKind kind = MaskKind::none;
  bool causal = false;          // the extra "causal": true flag
  std::int64_t window = 0;      // local, strided, sink
  std::int64_t sinks = 0;       // sink: the first `sinks` keys stay visible to every later query
  std::int64_t dilation = 1;    // atrous
  std::int64_t stride = 1;      // strided
  IndexTensor valid_lens;       // (B) or (B, L_Q)
  BoolTensor allowed;           // explicit: (L_Q, L_K)
  double fill = -std::numeric_limits<double>::infinity();
  std::int64_t shift = 0;       // "align": "bottom_right": L_K - L_Q (none, causal, local only)

  bool is_none() const { return kind == MaskKind::none && !causal; }

  // Whether attention under this mask is computed sparsely: only the allowed pairs, listed by
  // allowed_keys. True for every kind but none when the fill is -inf (a masked key then has
  // weight exactly 0); a finite fill gives masked keys a weight, so every pair is computed.
  bool is_sparse() const { return !is_none() && std::isinf(fill) && fill < 0; }
  bool requires_causal() const { return kind == MaskKind::causal || kind == MaskKind::sink || causal; }

  // Whether query i of batch item b may attend to key j.
  bool allows(std::size_t b, std::size_t i, std::size_t j) const {
    const std::int64_t pos = static_cast<std::int64_t>(i) + shift, key = static_cast<std::int64_t>(j);
    const std::int64_t d = pos > key ? pos - key : key - pos;
    if (causal && key > pos) return false;
    switch (kind) {
      case MaskKind::none: return true;
      case MaskKind::causal: return key <= pos;
      case MaskKind::valid_lens: {
        const auto len = valid_lens.dimension() == 1 ? valid_lens(b) : valid_lens(b, i);
        return static_cast<std::int64_t>(j) < len;
      }
      case MaskKind::local: return d <= window;
      case MaskKind::atrous: return d % dilation == 0;
      case MaskKind::strided: return d <= window || d % stride == 0;
      case MaskKind::explicit_allowed: return allowed(i, j);
      case MaskKind::sink: return j <= i && (d < window || static_cast<std::int64_t>(j) < sinks);
    }
    return true;
  }
};

const char* mask_kind_name(MaskKind kind);

// The keys j < L_K that query i of batch item b may attend to, ascending, written to keys
// (cleared first). O(allowed keys) for causal, valid_lens, local, atrous, strided and sink masks; O(L_K)
// for explicit ones and "none".
void allowed_keys(const Mask& mask, std::size_t b, std::size_t i, std::size_t L_K,
                  std::vector<std::uint32_t>& keys);

// The (b, h, i, j) pairs that attention under this mask computes (the fused kernel's count, without
// listing them): the allowed ones of a sparse mask (is_sparse), else all B H L_Q L_K. O(B L_Q) for
// every kind but explicit (O(B L_Q L_K)); atrous and strided count O(L_K / step) per row.
std::uint64_t attended_pairs(const Mask& mask, std::size_t B, std::size_t H, std::size_t L_Q, std::size_t L_K);

// The full (B, H, L_Q, L_K) boolean picture of a mask, for the trace.
BoolTensor allowed_tensor(const Mask& mask, std::size_t B, std::size_t H, std::size_t L_Q,
                          std::size_t L_K);

}  // namespace attnplay
