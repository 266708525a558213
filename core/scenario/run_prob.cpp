#include "../prob_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

constexpr std::int64_t kDefaultFactor = 5;  // Informer's factor

}  // namespace

json prob_defaults() {
  return {{"factor", kDefaultFactor}, {"output_attention", false}, {"causal_initial", "sum"}, {"sparsity_divisor", "L_K"},
          {"sample_per_head", false}, {"squeeze_bug", true}};
}

ProbOptions read_prob_options(ScenarioContext& ctx, std::size_t L_Q, std::size_t L_K, std::size_t H) {
  Fields& f = ctx.fields;
  const json defaults = prob_defaults();
  const auto flag = [&](const char* key) { return f.boolean(key, defaults.at(key).get<bool>()); };
  const auto pick = [&](const char* key, const std::vector<std::string>& options) {
    return f.choice(key, options, defaults.at(key).get<std::string>());
  };
  ProbOptions o;
  o.seed = ctx.seed;
  o.factor = f.integer("factor", kDefaultFactor, 1, static_cast<std::int64_t>(kMaxDimension));
  o.output_attention = flag("output_attention");
  o.causal_initial = pick("causal_initial", {"sum", "mean"}) == "sum" ? CausalInitial::sum : CausalInitial::mean;
  o.sparsity_divisor = pick("sparsity_divisor", {"L_K", "U_part"}) == "L_K" ? SparsityDivisor::L_K : SparsityDivisor::U_part;
  o.sample_per_head = flag("sample_per_head");
  o.squeeze_bug = flag("squeeze_bug");
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

Estimate prob_estimate(const AttentionDims& d, const ProbOptions& o, const Mask& mask, TraceLevel level) {
  const ProbSizes z = prob_sizes(o.factor, d.L_Q, d.L_K);
  const std::uint64_t BH = std::uint64_t{d.B} * d.H, sampled = BH * d.L_Q * z.U_part, dense = BH * d.L_Q * d.L_K;
  Estimate e;
  // the .squeeze() at H = 1, B > 1 updates the union of the items' top rows (at most B u), which
  // depends on the numbers, unless top_index fixes them
  const bool squeeze = o.squeeze_bug && d.H == 1 && d.B > 1 && !o.top_index;
  const std::uint64_t rows = BH * (squeeze ? std::min<std::uint64_t>(d.L_Q, std::uint64_t{d.B} * z.u) : z.u);
  e.exact = !squeeze;
  e.cost = {sampled + rows * d.L_K, dense, 2 * (sampled * d.E + rows * d.L_K * (d.E + d.D))};
  e.numbers = context_numbers(d) + (o.output_attention ? dense : 0);
  if (level == TraceLevel::full) {
    // q_k_sample; sparsity and sparsity_exact; scores_top and weights_top; initial_context
    e.numbers += sampled + 2 * BH * d.L_Q + 2 * BH * z.u * d.L_K + context_numbers(d);
    add_exact_estimate(e, d, mask, level);
    e.sizes["exact_flops"] = e.sizes["exact_flops"].get<std::uint64_t>() + 2 * dense * d.E;  // sparsity_exact
  }
  json sample_shape = json::array();
  if (o.sample_per_head) sample_shape.push_back(d.H);
  sample_shape.push_back(d.L_Q);
  sample_shape.push_back(z.U_part);
  e.sizes["U_part"] = z.U_part;
  e.sizes["u"] = z.u;
  e.sizes["sample_index"] = sample_shape;
  return e;
}

Estimate estimate_prob(ScenarioContext& ctx) {
  const auto d = read_attention_shapes(ctx);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  return prob_estimate(d, read_prob_options(ctx, d.L_Q, d.L_K, d.H), mask, ctx.level);
}

Trace run_prob(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const ProbOptions options = read_prob_options(ctx, d.L_Q, d.L_K, d.H);
  check_prob_sizes(ctx, options, d.B, d.H, d.L_Q, d.L_K, options.output_attention ? "output_attention" : "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  ctx.begin_work();
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
    json s = prob_toy(false);
    s["top_index"] = json::array({0, 2});
    s["scale"] = 1;
    p.push_back({"prob-seed-walkthrough", "The note's walk-through as written: index = [0, 2], scale 1",
                 "笔记中的逐步演算原样:index = [0, 2],scale 1",
                 "The ProbAttention note's steps 8.3 and 10.3 by its own numbers: top_index [0, 2] is given, not "
                 "ranked (the sampled M [0.5, 1, 1.25, 1] would pick q2 and q1), and the scale is 1. Against all "
                 "keys scores_top is [1, 0, 1, 1] for q0 and [1, 1, 2, 0] for q2, so the exact M (sparsity_exact) "
                 "is 1 - 0.75 = 0.25 and 2 - 1 = 1. Their softmax [0.297, 0.109, 0.297, 0.297] and [0.197, 0.197, "
                 "0.534, 0.072] give the context [25.94, 26.94] for q0 and [24.82, 25.82] for q2 (the note rounds "
                 "the weights to [0.3, 0.1, 0.3, 0.3] and [0.2, 0.2, 0.5, 0.1] and gets [26, 27] and [25, 26]); "
                 "q1 and q3 keep the mean of V, [25, 26].",
                 s});
  }
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
