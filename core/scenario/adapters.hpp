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

}  // namespace attnplay
