#include "../full_attention.hpp"
#include "adapters.hpp"

namespace attnplay {

Trace run_full(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  check_pair_tensors(ctx, std::uint64_t{d.B} * d.H * d.L_Q * d.L_K, "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K);
  return full_attention(in.q, in.k, in.v, in.scale, mask, ctx.level);
}

}  // namespace attnplay
