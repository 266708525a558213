#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// The reference's pitfalls (SPEC §2, docs/semantics.md): each can be switched to the
// alternative; the defaults are what the Informer / TSLib code computes.
enum class CausalInitial { sum, mean };       // causal initial context: cumsum of V, or cumulative mean
enum class SparsityDivisor { L_K, U_part };   // M = max - sum / L_K (reference) or / U_part (a true mean)

struct ProbOptions {
  std::int64_t factor = 5;
  // (L_Q, U_part) shared by batch and heads, or (H, L_Q, U_part) with sample_per_head.
  // Absent: drawn from `seed` (draw_sample_index).
  std::optional<IndexTensor> sample_index;
  // (u) distinct query indices: the selected queries, the same for every batch item and head
  // (the seed's walk-through fixes index = [0, 2]). Absent: the u queries of largest M.
  std::optional<IndexTensor> top_index;
  std::uint64_t seed = 0;
  bool output_attention = false;  // attn (B, H, L_Q, L_K) in the trace, at every trace level
  CausalInitial causal_initial = CausalInitial::sum;
  SparsityDivisor sparsity_divisor = SparsityDivisor::L_K;
  bool sample_per_head = false;   // reference: one sample_index for all heads
  bool squeeze_bug = true;        // reference: at H = 1, B > 1 every item updates the union of top rows
};

// U_part = min(factor * ceil(ln L_K), L_K) and u = min(factor * ceil(ln L_Q), L_Q), each >= 1.
struct ProbSizes {
  std::size_t U_part, u;
};
ProbSizes prob_sizes(std::int64_t factor, std::size_t L_Q, std::size_t L_K);

// torch.randint(L_K, (L_Q, U_part)) with the product's generator: Rng(seed, RngStream::samples),
// below(L_K) row-major; with per_head one (L_Q, U_part) block per head, head-major.
IndexTensor draw_sample_index(std::uint64_t seed, std::size_t H, std::size_t L_Q, std::size_t U_part,
                              std::size_t L_K, bool per_head);

// ProbAttention takes the mask kinds "none" and "causal" (ProbMask) only: throws InputError on
// `field` (e.g. "mask.kind") for any other kind name. The one check, used by the scenario reader
// (before the mask's own fields are read) and by prob_attention().
void check_prob_mask_kind(const std::string& kind, const std::string& field);

// Informer / TSLib ProbAttention, SPEC §2 steps 1-9 (see prob_attention.cpp).
//   q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D)  ->  context (B, L_Q, H, D)
// mask: kind none or causal (ProbMask) only; causal needs L_Q = L_K. Throws InputError naming
// `mask.kind`, `mask`, `sample_index` or `top_index` otherwise.
// Trace at TraceLevel::full: U_part, u, sample_index, q_k_sample, sparsity, sparsity_exact,
// top_index, updated_rows, scores_top, allowed_top, weights_top, initial_context, context, attn
// (with output_attention), exact_context, max_abs_error; at TraceLevel::context: context (and
// attn with output_attention).
Trace prob_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                     const Mask& mask, const ProbOptions& options, TraceLevel level);

}  // namespace attnplay
