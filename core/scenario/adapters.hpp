// One file per algorithm, run_<algorithm>.cpp beside this one, holds its reader (scenario fields
// -> typed arguments -> the core algorithm -> Trace) and its presets; algorithms.cpp registers
// both under the algorithm's name.
#pragma once

#include "../rng.hpp"
#include "presets.hpp"
#include "scenario.hpp"

namespace attnplay {

Trace run_full(ScenarioContext& ctx);
Trace run_additive(ScenarioContext& ctx);
Trace run_positional_encoding(ScenarioContext& ctx);
Trace run_nadaraya_watson(ScenarioContext& ctx);
Trace run_prob(ScenarioContext& ctx);
Trace run_multihead(ScenarioContext& ctx);

std::vector<Preset> full_presets();
std::vector<Preset> additive_presets();
std::vector<Preset> nadaraya_watson_presets();
std::vector<Preset> positional_encoding_presets();
std::vector<Preset> prob_presets();
std::vector<Preset> multihead_presets();

// The prob fields (factor, sample_index, output_attention and the pitfall switches) for H heads;
// shared by run_prob and run_multihead's inner "prob" (run_prob.cpp).
struct ProbOptions;
ProbOptions read_prob_options(ScenarioContext& ctx, std::size_t L_Q, std::size_t L_K, std::size_t H);
// The prob trace tensors (attn, scores_top, q_k_sample) must fit the tensor limit; attn is blamed
// on attn_field.
void check_prob_sizes(const ScenarioContext& ctx, const ProbOptions& o, std::size_t B, std::size_t H, std::size_t L_Q,
                      std::size_t L_K, const std::string& attn_field);
// read_mask, refusing every kind but "none" and "causal" first (message names mask.kind).
Mask read_prob_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K);

// ---- bahdanau (d2l's seq2seq with attention; run_bahdanau.cpp) ----
Trace run_bahdanau(ScenarioContext& ctx);
std::vector<Preset> bahdanau_presets();

// ---- linformer, pooling and lsh (the shortened keys; run_linformer.cpp, run_pooling.cpp, run_lsh.cpp) ----
Trace run_linformer(ScenarioContext& ctx);
Trace run_pooling(ScenarioContext& ctx);
Trace run_lsh(ScenarioContext& ctx);
std::vector<Preset> linformer_presets();
std::vector<Preset> pooling_presets();
std::vector<Preset> lsh_presets();
// For an algorithm that takes no mask: reads "mask" as read_mask does and refuses any kind but
// "none" (error on mask.kind, checked first: "<algorithm> takes no mask: <why> ...") and
// "causal": true (error on mask.causal). run_pooling.cpp.
void read_no_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K, const std::string& algorithm,
                  const std::string& why);

// ---- flash (FlashAttention's online softmax, the fused kernel made visible; run_flash.cpp) ----
Trace run_flash(ScenarioContext& ctx);
std::vector<Preset> flash_presets();

// ---- linear and performer (the kernel family; run_linear.cpp, run_performer.cpp) ----
Trace run_linear(ScenarioContext& ctx);
Trace run_performer(ScenarioContext& ctx);
std::vector<Preset> linear_presets();
std::vector<Preset> performer_presets();
// read_mask for the kernel methods: "none" or "causal" only (error on mask.kind, checked first),
// and no fill but "-inf" (error on mask.fill).
Mask read_kernel_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K, const std::string& algorithm);
// Every tensor a kernel method makes must fit the tensor limit: weights at trace "full" (blamed on
// k), the features (F per vector) and the sum KV (F, D) (blamed on q, k, v, or on features_field if
// not empty: "num_features" or "projection"), the context (v).
void check_kernel_sizes(const ScenarioContext& ctx, const AttentionDims& d, std::size_t F, const std::string& features_field);

}  // namespace attnplay
