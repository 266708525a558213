#include "../prob_attention.hpp"
#include "adapters.hpp"

namespace attnplay {

ProbOptions read_prob_options(ScenarioContext& ctx, std::size_t L_Q, std::size_t L_K, std::size_t H) {
  Fields& f = ctx.fields;
  ProbOptions o;
  o.seed = ctx.seed;
  o.factor = f.integer("factor", 5, 1, static_cast<std::int64_t>(kMaxDimension));
  o.output_attention = f.boolean("output_attention", false);
  o.causal_initial = f.choice("causal_initial", {"sum", "mean"}, "sum") == "sum" ? CausalInitial::sum : CausalInitial::mean;
  o.sparsity_divisor =
      f.choice("sparsity_divisor", {"L_K", "U_part"}, "L_K") == "L_K" ? SparsityDivisor::L_K : SparsityDivisor::U_part;
  o.sample_per_head = f.boolean("sample_per_head", false);
  o.squeeze_bug = f.boolean("squeeze_bug", true);
  if (f.has("sample_index")) {
    const ProbSizes sizes = prob_sizes(o.factor, L_Q, L_K);
    std::vector<Dim> dims;
    if (o.sample_per_head) dims.push_back(Dim::of(H, "H, with sample_per_head"));
    dims.push_back(Dim::of(L_Q, "L_Q of q"));
    dims.push_back(Dim::of(sizes.U_part, "U_part = min(factor * ceil(ln L_K), L_K)"));
    o.sample_index = f.index_tensor("sample_index", dims, 0, static_cast<std::int64_t>(L_K) - 1);
    ctx.record_shape("sample_index", Shape(o.sample_index->shape().begin(), o.sample_index->shape().end()));
  } else {
    f.ignore({"sample_index"});
  }
  return o;
}

void check_prob_sizes(const ScenarioContext& ctx, const ProbOptions& o, std::size_t B, std::size_t H, std::size_t L_Q,
                      std::size_t L_K, const std::string& attn_field) {
  const ProbSizes sizes = prob_sizes(o.factor, L_Q, L_K);
  const std::uint64_t BH = std::uint64_t{B} * H;
  if (o.output_attention)
    check_size(BH * L_Q * L_K, attn_field, "attn (B, H, L_Q, L_K)",
               attn_field == "output_attention" ? "; use \"output_attention\": false" : "; use \"trace\": \"context\"");
  check_size((o.sample_per_head ? H : 1) * std::uint64_t{L_Q} * sizes.U_part, "factor",
             "sample_index (L_Q, U_part = min(factor * ceil(ln L_K), L_K))", "; use a smaller factor");
  if (ctx.level == TraceLevel::full) {
    check_size(BH * sizes.u * L_K, "factor", "scores_top (B, H, u, L_K)", "; use a smaller factor or \"trace\": \"context\"");
    check_size(BH * L_Q * sizes.U_part, "factor", "q_k_sample (B, H, L_Q, U_part)",
               "; use a smaller factor or \"trace\": \"context\"");
  }
}

Mask read_prob_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K) {
  // the kind first: "local" without its window should say that ProbAttention takes no local mask
  if (ctx.fields.has("mask") && ctx.fields.raw("mask").is_object()) {
    const json& kind = ctx.fields.raw("mask").value("kind", json("none"));
    if (kind.is_string() && kind != "none" && kind != "causal")
      throw InputError(ctx.fields.path_of("mask") + ".kind: ProbAttention takes \"none\" or \"causal\" (ProbMask), got " +
                       kind.dump());
  }
  return read_mask(ctx, B, L_Q, L_K);
}

Trace run_prob(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  const Mask mask = read_prob_mask(ctx, d.B, d.L_Q, d.L_K);
  const ProbOptions options = read_prob_options(ctx, d.L_Q, d.L_K, d.H);
  check_prob_sizes(ctx, options, d.B, d.H, d.L_Q, d.L_K, options.output_attention ? "output_attention" : "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  return prob_attention(in.q, in.k, in.v, in.scale, mask, options, ctx.level);
}

}  // namespace attnplay
