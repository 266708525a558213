// Rotary position embedding (RoFormer, Su et al. 2021; Llama): q at position m and k at position
// n are rotated pair by pair before the scores, so that q_m . k_n depends on m - n only.
//
//   angle[m][p] = m * base^(-2p/E)                        p < E/2, E even (rope_angles: (P, E/2))
//   style half        (Hugging Face's rotate_half):  pair p = entries (p, p + E/2)
//   style interleaved (RoFormer, Meta's Llama):      pair p = entries (2p, 2p + 1)
//   (x, y) of pair p  ->  (x cos a - y sin a, y cos a + x sin a),  a = angle[position][p]
//
// Shapes: x (B, L, H, E) with one position per l (any integers >= 0, not necessarily 0..L-1).
// The two styles rotate the same pairs of different entries: interleaved = half after the
// permutation (0, E/2, 1, E/2 + 1, ...) of the last axis (what converting a Meta checkpoint to
// Hugging Face's layout permutes in W_q and W_k).
#pragma once

#include <cstdint>
#include <vector>

#include "tensor.hpp"
#include "trace.hpp"

namespace attnplay {

enum class RopeStyle { half, interleaved };

struct Rope {
  double base = 10000;
  RopeStyle style = RopeStyle::half;
  std::vector<std::int64_t> positions_q, positions_k;  // one per query row / key row
};

const char* rope_style_name(RopeStyle style);

// angle[m][p] = m * (1 / base^(2p/E)) for m < P, p < E/2 (Hugging Face's inv_freq times the position).
Tensor rope_angles(std::size_t P, std::size_t E, double base);

// Rotates x (B, L, H, E) in place: row l by the angles of row positions[l] of `angles`.
void rotate_in_place(Tensor& x, const std::vector<std::int64_t>& positions, const Tensor& angles, RopeStyle style);

// q and k rotated in place at rope's positions; returns rope_angles (max position + 1, E/2).
Tensor apply_rope(Tensor& q, Tensor& k, const Rope& rope);

// Trace fields: q_rotated, k_rotated (moved in) and rope_angles.
void add_rope_trace(Trace& trace, Tensor&& q_rotated, Tensor&& k_rotated, Tensor&& angles);

// RoFormer §3.4.3, the long-term decay: with h_i = q_[2i:2i+1] k*_[2i:2i+1] (pair i as a complex
// number) and S_j = sum_{k<j} e^{i r theta_k} (S_0 = 0, h_{E/2} = 0), Abel summation gives
//   |sum_i h_i e^{i r theta_i}| <= (max_i |h_{i+1} - h_i|) sum_{j=1}^{E/2} |S_j|,
// and the paper plots (1 / (E/2)) sum_{j=1}^{E/2} |S_j| against the relative distance r = m - n:
//   rope_decay[r] = (2/E) sum_{j=1}^{E/2} | sum_{k=0}^{j-1} (cos(r theta_k), sin(r theta_k)) |,
//   theta_k = base^(-2k/E),  r = 0 .. distances - 1   (rope_decay[0] = (E/2 + 1) / 2).
// Trace field rope_decay (kRopeDecayDistances) at trace "full" whenever RoPE is on (full, flash).
constexpr std::size_t kRopeDecayDistances = 512;
Tensor rope_decay_bound(std::size_t E, double base, std::size_t distances);

}  // namespace attnplay
