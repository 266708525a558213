// Autoregressive decoding with a KV cache (SPEC §2 `decode`; core/decode_attention.cpp).
#pragma once

#include <optional>

#include "mask.hpp"
#include "rope.hpp"
#include "trace.hpp"

namespace attnplay {

struct DecodeOptions {
  std::size_t prompt = 1;  // P: positions 0..P-1 are the prefill, P..L-1 one step each
  // The cache's eviction as a mask: causal (keep everything) or sink {window, sinks}: after position
  // i is appended, key j stays iff j < sinks or i - j < window (StreamingLLM's start + recent).
  Mask cache;
  std::optional<Rope> rope;   // at the positions the tokens had (positions_q = positions_k)
  bool rope_in_cache = false;  // StreamingLLM: each key at its index in the cache, the query at the last
};

// q (B, L, H, E), k (B, L, H_kv, E), v (B, L, H_kv, D), H_kv dividing H: query head h reads kv head
// h / (H / H_kv) (Llama's repeat_kv as an index).
// Trace: context (B, L, H, D) always; at TraceLevel::full also
//   allowed (the cache rule as a mask), weights (B, H, L, L) (every row, prefill and steps),
//   cache_positions (T, n_max) (the positions held after step t appended P + t; -1 past n_held),
//   step_weights (T, B, H, n_max) (step t's row over the cache; 0 past n_held), cache_numbers (T)
//   (B n_held H_kv (E + D)), prompt, and full_context / max_abs_diff (full attention under the
//   cache's mask on the same rotated q, k: what decoding must equal);
// with rope at the tokens' positions q_rotated, k_rotated and rope_angles, in the cache rope_angles.
// T = L - P steps, n_max the most keys a step holds. cost.kv_cache_numbers: the cache at its largest.
Trace decode_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const DecodeOptions& o,
                       TraceLevel level);

}  // namespace attnplay
