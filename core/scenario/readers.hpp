// One file per algorithm, run_<algorithm>.cpp beside this one, holds its reader (scenario fields
// -> typed arguments -> the core algorithm -> Trace), its estimator (the same fields' shapes and
// options -> Estimate, nothing run), its defaults and its presets; algorithms.cpp registers them
// under the algorithm's name.
#pragma once

#include <optional>

#include "../linear_attention.hpp"
#include "../rng.hpp"
#include "../rope.hpp"
#include "presets.hpp"
#include "scenario.hpp"

namespace attnplay {

#define ATTNPLAY_ALGORITHM(name)                   \
  Trace run_##name(ScenarioContext& ctx);          \
  Estimate estimate_##name(ScenarioContext& ctx);  \
  json name##_defaults();                          \
  std::vector<Preset> name##_presets();

ATTNPLAY_ALGORITHM(full)
ATTNPLAY_ALGORITHM(flash)
ATTNPLAY_ALGORITHM(additive)
ATTNPLAY_ALGORITHM(nadaraya_watson)
ATTNPLAY_ALGORITHM(positional_encoding)
ATTNPLAY_ALGORITHM(prob)
ATTNPLAY_ALGORITHM(multihead)
ATTNPLAY_ALGORITHM(bahdanau)
ATTNPLAY_ALGORITHM(linear)
ATTNPLAY_ALGORITHM(performer)
ATTNPLAY_ALGORITHM(linformer)
ATTNPLAY_ALGORITHM(lsh)
ATTNPLAY_ALGORITHM(pooling)
ATTNPLAY_ALGORITHM(diff)
#undef ATTNPLAY_ALGORITHM

// The field that chooses multihead's inner attention: {"field", "default", "choices"}.
json multihead_inner();

// ---- estimates shared by the softmax family (run_full.cpp) ----
// B L_Q H D: the context (B, L_Q, H, D).
std::uint64_t context_numbers(const AttentionDims& d);
// Softmax attention of q against k (full's run, or the inner run of flash, pooling, multihead):
// its cost (the allowed pairs of a sparse mask) and, at trace "full", scores and weights.
Estimate softmax_estimate(const AttentionDims& d, const Mask& mask, TraceLevel level);
// An approximation's exact_context at trace "full" (add_exact_context): its numbers, and its
// work as sizes.exact_flops (not part of the trace's cost).
void add_exact_estimate(Estimate& e, const AttentionDims& d, const Mask& mask, TraceLevel level);

// ---- today's models' forms on full and flash (run_full.cpp; SPEC §2 "Modern attention") ----
// "rope": {"base", "style", "positions_q", "positions_k"} (absent: nullopt); errors name
// rope.<field> (E odd on "rope", a positions list of the wrong length, base <= 0).
std::optional<Rope> read_rope(ScenarioContext& ctx, std::size_t L_Q, std::size_t L_K, std::size_t E);
// "alibi": true (get_slopes(H)), false, or {"slopes": [H numbers]}; empty: no ALiBi.
std::vector<double> read_alibi(ScenarioContext& ctx, std::size_t H);
struct ModernForms {
  std::optional<Rope> rope;
  std::vector<double> alibi_slopes;
};
ModernForms read_modern_forms(ScenarioContext& ctx, const AttentionDims& d);
// RoPE applied to in.q and in.k in place (nothing without rope); returns rope_angles (or empty).
Tensor apply_modern_forms(AttentionInputs& in, const ModernForms& m);
// kv_head, cost.kv_cache_numbers and ALiBi's bias (add_kv_and_bias_trace); with RoPE, q_rotated,
// k_rotated (in.q, in.k moved in) and rope_angles.
void add_modern_trace(Trace& trace, AttentionInputs&& in, const ModernForms& m, Tensor&& angles, TraceLevel level);
// Their numbers and cost.kv_cache_numbers in an estimate.
void add_modern_estimate(Estimate& e, const AttentionDims& d, std::size_t H_kv, const ModernForms& m, TraceLevel level);

// ---- prob (run_prob.cpp), shared with multihead's inner "prob" ----
// The prob fields (factor, sample_index, output_attention and the pitfall switches) for H heads.
struct ProbOptions;
ProbOptions read_prob_options(ScenarioContext& ctx, std::size_t L_Q, std::size_t L_K, std::size_t H);
// The prob trace tensors (attn, scores_top, q_k_sample) must fit the tensor limit; attn is blamed
// on attn_field.
void check_prob_sizes(const ScenarioContext& ctx, const ProbOptions& o, std::size_t B, std::size_t H, std::size_t L_Q,
                      std::size_t L_K, const std::string& attn_field);
Estimate prob_estimate(const AttentionDims& d, const ProbOptions& o, const Mask& mask, TraceLevel level);

// ---- linear and performer (the kernel family; run_linear.cpp, run_performer.cpp) ----
// Every tensor a kernel method makes must fit the tensor limit: weights at trace "full" (blamed on
// k), the features (F per vector) and the sum KV (F, D) (blamed on q, k, v, or on features_field if
// not empty: "num_features" or "projection"), the context (v).
void check_kernel_sizes(const ScenarioContext& ctx, const AttentionDims& d, std::size_t F, const std::string& features_field);
// The linear-attention pass over F features (normalised or not) and, at trace "full", the
// features of q and k, the implied weights and the exact comparison.
Estimate kernel_estimate(const AttentionDims& d, std::size_t F, bool normalise, const Mask& mask, TraceLevel level);
// The scenario's "reference" as the kernel methods' library (run_linear.cpp).
KernelReference kernel_reference(const ScenarioContext& ctx);

}  // namespace attnplay
