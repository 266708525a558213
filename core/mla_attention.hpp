#pragma once

#include <optional>

#include "mask.hpp"
#include "trace.hpp"

namespace attnplay {

// DeepSeek-V2/V3 multi-head latent attention: sizes (Hugging Face DeepseekV3Config's names).
struct MlaConfig {
  std::size_t num_heads = 1;
  std::optional<std::size_t> q_lora_rank;  // none: q_proj directly
  std::size_t kv_lora_rank = 1, qk_nope_head_dim = 1, qk_rope_head_dim = 2, v_head_dim = 1;
  double scale = 1.0;          // (qk_nope_head_dim + qk_rope_head_dim)^-0.5
  double rope_base = 10000.0;  // rope_theta
  double eps = 1e-6;           // rms_norm_eps
};

// Weights keyed as DeepseekV3Attention.state_dict() names them, torch Linear layout (out, in).
struct MlaWeights {
  std::optional<Tensor> q_a_proj, q_a_layernorm, q_b_proj;  // with q_lora_rank
  std::optional<Tensor> q_proj;                             // without
  Tensor kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj;
};

// The class's own initialisation, drawn from the seed (RngStream::weights) in state_dict order:
// every Linear uniform(-1/sqrt(in), 1/sqrt(in)) (torch's default), every RMSNorm weight 1.
MlaWeights seeded_mla_weights(std::uint64_t seed, std::size_t d_model, const MlaConfig& c);

// Multi-head latent attention (core/mla_attention.cpp):
//   x (B, L, d_model) -> output (B, L, d_model)
// Trace at TraceLevel::full: latent (B, L, kv_lora_rank), k_rope (B, L, qk_rope_head_dim), the
// textbook path's q, k (B, L, H, n + r) and v (B, L, H, v_head_dim), allowed, weights (B, H, L, L), head_context (B, L, H, v_head_dim), output, output_absorbed;
// at TraceLevel::context only output (the absorbed path: no per-head key is ever formed).
Trace mla_attention(const Tensor& x, const MlaWeights& w, const MlaConfig& c, const Mask& mask, TraceLevel level);

// B L (kv_lora_rank + qk_rope_head_dim): what MLA caches; and what multi-head attention with the
// same heads would: B L H (qk_nope_head_dim + qk_rope_head_dim + v_head_dim).
std::uint64_t mla_cache_numbers(std::uint64_t B, std::uint64_t L, const MlaConfig& c);
std::uint64_t mla_mha_cache_numbers(std::uint64_t B, std::uint64_t L, const MlaConfig& c);

}  // namespace attnplay
