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
  const ProbSizes sizes = prob_sizes(o.factor, L_Q, L_K);
  if (f.has("sample_index")) {
    std::vector<Dim> dims;
    if (o.sample_per_head) dims.push_back(Dim::of(H, "H, with sample_per_head"));
    dims.push_back(Dim::of(L_Q, "L_Q of q"));
    dims.push_back(Dim::of(sizes.U_part, "U_part = min(factor * ceil(ln L_K), L_K)"));
    o.sample_index = f.index_tensor("sample_index", dims, 0, static_cast<std::int64_t>(L_K) - 1);
    ctx.record_shape("sample_index", Shape(o.sample_index->shape().begin(), o.sample_index->shape().end()));
  } else {
    f.ignore({"sample_index"});
  }
  if (f.has("top_index")) {  // distinct: checked by prob_attention (errors on top_index[t])
    o.top_index = f.index_tensor("top_index", {Dim::of(sizes.u, "u = min(factor * ceil(ln L_Q), L_Q)")}, 0,
                                 static_cast<std::int64_t>(L_Q) - 1);
    ctx.record_shape("top_index", Shape{sizes.u});
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
    if (kind.is_string()) check_prob_mask_kind(kind.get<std::string>(), ctx.fields.path_of("mask") + ".kind");
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

namespace {

json prob_toy(bool causal) {
  json s = json::parse(R"({"algorithm": "prob", "factor": 1, "output_attention": true,
      "q": [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]],
      "k": [[[[1, 0]], [[0, 1]], [[1, 1]], [[1, -1]]]],
      "v": [[[[10, 11]], [[20, 21]], [[30, 31]], [[40, 41]]]],
      "sample_index": [[0, 2], [1, 3], [0, 2], [2, 3]]})");
  if (causal) s["mask"] = json::parse(R"({"kind": "causal"})");
  return s;
}

}  // namespace

// The ProbAttention note's toy (seed 000), with and without ProbMask, and the .squeeze() pitfall.
std::vector<Preset> prob_presets() {
  std::vector<Preset> p;
  p.push_back({"prob-toy", "ProbAttention toy: sample, M = max - mean, top queries",
               "ProbAttention 玩具例子:抽样、M = max - mean、top 查询",
               "The ProbAttention note's toy: B = H = 1, L = 4, D = 2, factor 1, so U_part = u = 2. With the "
               "sample_index [[0,2],[1,3],[0,2],[2,3]] the sparsity M = max - sum / L_K is [0.5, 1, 1.25, 1]: "
               "the top queries are q2, then q1 (q1 and q3 tie at 1; the lower index wins). Against all keys "
               "q0.k = [1, 0, 1, 1] (M = 0.25) and q2.k = [1, 1, 2, 0] (M = 1). Every query starts from the "
               "mean of V, [25, 26]; only the top rows are replaced by exact attention (scaled by 1/sqrt(2)). "
               "The note fixes index = [0, 2] only to illustrate.",
               prob_toy(false)});
  p.push_back({"prob-toy-causal", "ProbAttention toy with ProbMask (causal)", "ProbAttention 玩具例子,带 ProbMask(因果)",
               "The same toy with the causal mask: the initial context is the cumulative SUM of V ([10, 11], "
               "[30, 32], [60, 63], [100, 104]), as the reference computes it (not a mean: compare "
               "\"causal_initial\": \"mean\"), and each selected query i attends only to keys j <= i.",
               prob_toy(true)});
  {
    Rng rng(0, RngStream::data);
    json s = {{"algorithm", "prob"}, {"factor", 1}, {"output_attention", true}};
    s["q"] = normal_nested(rng, {2, 8, 1, 2});
    s["k"] = normal_nested(rng, {2, 8, 1, 2});
    s["v"] = normal_nested(rng, {2, 8, 1, 2});
    p.push_back({"prob-squeeze-bug", "ProbAttention's .squeeze() at H = 1, B = 2",
                 "ProbAttention 在 H = 1、B = 2 时的 .squeeze() 问题",
                 "With one head the reference's Q_K_sample.squeeze() also drops the head axis, and the top "
                 "indices of both batch items broadcast over the batch: each item updates the union of both "
                 "items' top rows (each with its own exact attention), more than its u = 3. Set "
                 "\"squeeze_bug\": false to update only each item's own top rows.",
                 s});
  }
  return p;
}

}  // namespace attnplay
