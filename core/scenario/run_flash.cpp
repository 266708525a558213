#include "../flash_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

// "block_q", "block_k": kToyBlock at toy sizes (L <= kToyLength, so that every key block shows),
// else kBlock. The page reads them from the catalog (flash_defaults) and the trace.
constexpr std::size_t kBlock = 64, kToyBlock = 2, kToyLength = 16;

std::size_t block_size(ScenarioContext& ctx, const char* key, std::size_t L) {
  return static_cast<std::size_t>(
      ctx.fields.integer(key, L <= kToyLength ? kToyBlock : kBlock, 1, static_cast<std::int64_t>(kMaxDimension)));
}

}  // namespace

json flash_defaults() {
  return {{"block_q", kBlock}, {"block_k", kBlock}, {"toy_block", kToyBlock}, {"toy_length", kToyLength}};
}

Estimate estimate_flash(ScenarioContext& ctx) {
  std::size_t H_kv = 0;
  const auto d = read_attention_shapes(ctx, &H_kv);
  const std::size_t block_q = block_size(ctx, "block_q", d.L_Q), block_k = block_size(ctx, "block_k", d.L_K);
  const std::uint64_t T = (d.L_K + block_k - 1) / block_k, BH = std::uint64_t{d.B} * d.H;
  Estimate e = softmax_estimate(d, read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks), TraceLevel::context);
  if (ctx.level == TraceLevel::full) e.numbers += 2 * BH * d.L_Q * T + BH * T * d.L_Q * d.D;  // running max, sum; partial context
  e.sizes = {{"block_q", block_q}, {"block_k", block_k}, {"num_key_blocks", T}};
  add_modern_estimate(e, d, H_kv, read_modern_forms(ctx, d), ctx.level);
  return e;
}

Trace run_flash(ScenarioContext& ctx) {
  AttentionInputs in = read_attention_inputs(ctx, true);
  const auto d = attention_dims(in.q, in.v);
  const std::size_t block_q = block_size(ctx, "block_q", d.L_Q), block_k = block_size(ctx, "block_k", d.L_K);
  const std::uint64_t T = (d.L_K + block_k - 1) / block_k;
  if (ctx.level == TraceLevel::full) {
    check_size(std::uint64_t{d.B} * d.H * d.L_Q * T, "block_k", "the (B, H, L_Q, T) running max and sum",
               "; use a larger block_k or \"trace\": \"context\"");
    check_size(std::uint64_t{d.B} * d.H * T * d.L_Q * d.D, "block_k", "the (B, H, T, L_Q, D) partial context",
               "; use a larger block_k or \"trace\": \"context\"");
  }
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const ModernForms forms = read_modern_forms(ctx, d);
  ctx.begin_work();
  Tensor angles = apply_modern_forms(in, forms);  // RoPE: q and k rotated in place
  ctx.dtype_honoured = true;
  Trace trace = flash_attention(in.q, in.k, in.v, in.scale, mask, block_q, block_k, ctx.level, ctx.dtype,
                                forms.alibi_slopes);
  add_modern_trace(trace, std::move(in), forms, std::move(angles), ctx.level);
  return trace;
}

// The seeds' softmax toy with its keys in reverse order (scores 0, 1, 2: the same context
// [7.55, 5.80]), in key blocks of 2, so the running max rises in the second block and the first
// block's sum and context shrink by exp(1 - 2); and a causal sequence of 6.
std::vector<Preset> flash_presets() {
  std::vector<Preset> p;
  p.push_back({"flash-toy", "Online softmax: the softmax toy in key blocks of 2",
               "在线 softmax:softmax 玩具例子,每块 2 个键",
               "The seed's toy (scores 0, 1, 2 with v = [10,10], [0,20], [10,0]) seen two keys at a time. After "
               "block 0 the running max is 1, the running sum e^-1 + 1 = 1.368 and the unnormalised context "
               "[3.68, 23.68]; block 1 brings the score 2: the max rises to 2, the old sum and context shrink by "
               "e^-1 (0.368), and the sum becomes 1.503. Context = [11.35, 8.71] / 1.503 = [7.55, 5.80], exactly "
               "full attention's.",
               json::parse(R"({"algorithm": "flash", "q": [[[[1]]]], "k": [[[[0]], [[1]], [[2]]]],
                   "v": [[[[10, 10]], [[0, 20]], [[10, 0]]]], "block_q": 2, "block_k": 2})")});
  Rng rng(5, RngStream::data);
  json s = {{"algorithm", "flash"}};
  s["q"] = normal_nested(rng, {1, 6, 1, 2});
  s["k"] = normal_nested(rng, {1, 6, 1, 2});
  s["v"] = normal_nested(rng, {1, 6, 1, 2});
  s["mask"] = {{"kind", "causal"}};
  s["block_q"] = 2;
  s["block_k"] = 2;
  p.push_back({"flash-causal", "FlashAttention with a causal mask, 6 tokens in 3 key blocks",
               "带因果掩码的 FlashAttention:6 个词元,3 个键块",
               "Query i sees keys 0..i only: in the key blocks to its right nothing is added, so its running max, "
               "sum and partial context stay as they were (a real kernel skips those tiles). The last partial "
               "context divided by the last running sum is full attention's causal context.",
               s});
  return p;
}

}  // namespace attnplay
