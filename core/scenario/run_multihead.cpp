#include <algorithm>

#include "../multihead_attention.hpp"
#include "../nn_linear.hpp"
#include "readers.hpp"

namespace attnplay {

json multihead_inner() { return {{"field", "inner"}, {"default", "full"}, {"choices", {"full", "prob"}}}; }

namespace {

// b_q .. b_o: inside "weights" or at the top level, not both.
std::optional<Tensor> read_bias(ScenarioContext& ctx, Fields& w, const std::string& name, std::size_t rows,
                                const std::string& label) {
  const std::vector<Dim> dims{Dim::of(rows, label)};
  if (w.has(name) && ctx.fields.has(name))
    throw InputError(ctx.fields.path_of(name), "given both here and as " + w.path_of(name));
  std::optional<Tensor> b = w.has(name) ? std::optional<Tensor>(w.tensor(name, dims)) : ctx.fields.optional_tensor(name, dims);
  if (!w.has(name)) w.ignore({name});
  if (b) ctx.record_shape(name, Shape(b->shape().begin(), b->shape().end()));
  return b;
}

InnerAttention read_inner(Fields& f) {
  const json inner = multihead_inner();
  return f.choice("inner", inner["choices"], inner["default"]) == "full" ? InnerAttention::full : InnerAttention::prob;
}

std::string divides_message(std::int64_t heads, std::size_t n, const std::string& what) {
  return std::to_string(heads) + " does not divide " + what + " = " + std::to_string(n);
}

}  // namespace

Trace run_multihead(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const Tensor queries = ctx.tensor("queries", {Dim::any("B"), Dim::any("L_Q"), Dim::any("d_q")});
  const std::size_t B = queries.shape()[0], L_Q = queries.shape()[1];
  const Tensor keys = ctx.tensor("keys", {Dim::of(B, "B of queries"), Dim::any("L_K"), Dim::any("d_k")});
  const std::size_t L_K = keys.shape()[1];
  const Tensor values = ctx.tensor("values", {Dim::of(B, "B of queries"), Dim::of(L_K, "L_K of keys"), Dim::any("d_v")});
  const std::size_t d_q = queries.shape()[2], d_k = keys.shape()[2], d_v = values.shape()[2];

  MultiheadOptions options;
  const auto heads = f.required_integer("num_heads", 1, static_cast<std::int64_t>(kMaxDimension));
  options.num_heads = static_cast<std::size_t>(heads);
  options.inner = read_inner(f);

  MultiheadWeights weights;
  std::size_t seeded_hiddens = 0;  // drawn after every check (begin_work)
  bool seeded_bias = false;
  if (f.has("weights")) {
    Fields w = f.object("weights");
    weights.W_q = w.tensor("W_q", {Dim::any("num_hiddens"), Dim::of(d_q, "d_q of queries")});
    const std::size_t hq = weights.W_q.shape()[0];
    weights.W_k = w.tensor("W_k", {Dim::of(hq, "rows of W_q"), Dim::of(d_k, "d_k of keys")});
    weights.W_v = w.tensor("W_v", {Dim::any("H * d_v_head"), Dim::of(d_v, "d_v of values")});
    const std::size_t hv = weights.W_v.shape()[0];
    weights.W_o = w.tensor("W_o", {Dim::any("out"), Dim::of(hv, "rows of W_v")});
    check_size(std::uint64_t{B} * L_Q * hq, "weights.W_q", "the projected queries (B, L_Q, rows of W_q)");
    check_size(std::uint64_t{B} * L_K * hq, "weights.W_k", "the projected keys (B, L_K, rows of W_k)");
    check_size(std::uint64_t{B} * std::max(L_Q, L_K) * hv, "weights.W_v", "the projected values and head contexts (B, L, rows of W_v)");
    check_size(std::uint64_t{B} * L_Q * weights.W_o.shape()[0], "weights.W_o", "the output (B, L_Q, rows of W_o)");
    if (hq % options.num_heads != 0) throw InputError("num_heads", divides_message(heads, hq, "the rows of weights.W_q"));
    if (hv % options.num_heads != 0) throw InputError("num_heads", divides_message(heads, hv, "the rows of weights.W_v"));
    if (f.has("num_hiddens") && f.required_integer("num_hiddens", 1, static_cast<std::int64_t>(kMaxDimension)) !=
                                    static_cast<std::int64_t>(hq))
      throw InputError("num_hiddens", "expected " + std::to_string(hq) + " (the rows of weights.W_q), got " +
                       f.raw("num_hiddens").dump());
    weights.b_q = read_bias(ctx, w, "b_q", hq, "rows of W_q");
    weights.b_k = read_bias(ctx, w, "b_k", hq, "rows of W_k");
    weights.b_v = read_bias(ctx, w, "b_v", hv, "rows of W_v");
    weights.b_o = read_bias(ctx, w, "b_o", weights.W_o.shape()[0], "rows of W_o");
    const auto record = [&ctx](const std::string& name, const Tensor& t) {
      ctx.record_shape(name, Shape(t.shape().begin(), t.shape().end()));
    };
    record("W_q", weights.W_q);
    record("W_k", weights.W_k);
    record("W_v", weights.W_v);
    record("W_o", weights.W_o);
    if (f.has("bias"))
      ctx.warnings.push_back("bias: ignored, the weights are given (give b_q, b_k, b_v, b_o for biases)");
    f.ignore({"bias"});
    w.warn_unused(ctx.warnings);
  } else {
    if (!f.has("num_hiddens")) throw InputError("num_hiddens", "required when weights are not given");
    const auto nh = static_cast<std::size_t>(f.required_integer("num_hiddens", 1, static_cast<std::int64_t>(kMaxDimension)));
    if (nh % options.num_heads != 0) throw InputError("num_heads", divides_message(heads, nh, "num_hiddens"));
    const std::size_t widest = std::max({d_q, d_k, d_v, nh, B * L_Q, B * L_K});
    if (nh > kMaxTensorElements / widest)
      throw InputError("num_hiddens", std::to_string(nh) + " gives tensors of more than " +
                       std::to_string(kMaxTensorElements) + " numbers");
    // d2l's MultiHeadAttention has bias=False; TSLib's AttentionLayer (around ProbAttention) nn.Linear's True
    seeded_bias = f.boolean("bias", options.inner == InnerAttention::prob);
    seeded_hiddens = nh;
    for (const char* name : {"b_q", "b_k", "b_v", "b_o"})
      if (f.has(name)) throw InputError(std::string(name), "biases are given with the weights (\"weights\": {...}); "
                                        "with num_hiddens use \"bias\": true");
  }

  options.scale = f.optional_number("scale");  // absent: 1/sqrt(d_head)
  if (options.inner == InnerAttention::prob) {
    options.mask = read_mask(ctx, B, L_Q, L_K, find_algorithm("prob")->masks);
    options.prob = read_prob_options(ctx, L_Q, L_K, options.num_heads);
    ProbOptions inner = options.prob;  // multihead_attention asks for attn at trace "full"
    const bool asked = inner.output_attention;
    inner.output_attention = asked || ctx.level == TraceLevel::full;
    check_prob_sizes(ctx, inner, B, options.num_heads, L_Q, L_K, asked ? "output_attention" : "keys");
  } else {
    options.mask = read_mask(ctx, B, L_Q, L_K, ctx.entry->masks);
    check_pair_tensors(ctx, std::uint64_t{B} * options.num_heads * L_Q * L_K, "keys");
  }
  options.informer_mix = ctx.reference == "informer-mix";
  if (options.informer_mix && options.inner == InnerAttention::prob) {
    // Informer2020's ProbAttention squeezes with .squeeze(-2): no H = 1 pitfall
    if (f.has("squeeze_bug") && options.prob.squeeze_bug)
      throw InputError("squeeze_bug", "reference \"informer-mix\" runs Informer2020's ProbAttention, whose .squeeze(-2) has "
                                      "no H = 1 pitfall: squeeze_bug must be false");
    options.prob.squeeze_bug = false;
  }
  ctx.begin_work();
  if (seeded_hiddens) weights = seeded_multihead_weights(ctx.seed, d_q, d_k, d_v, seeded_hiddens, seeded_bias);
  Trace trace = multihead_attention(queries, keys, values, weights, options, ctx.level);
  // head contexts are averages of the projected values; W_o (or, seeded, values near 1e308) can overflow
  if (const auto at = not_finite_at(trace.tensor("output")))
    throw InputError(f.has("weights") ? "weights.W_o" : "values",
                     "the output (head contexts W_o^T + b_o) is not a finite number at " + *at);
  return trace;
}

Estimate estimate_multihead(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const Shape qs = ctx.shape("queries", {Dim::any("B"), Dim::any("L_Q"), Dim::any("d_q")});
  const std::uint64_t B = qs[0], L_Q = qs[1], d_q = qs[2];
  const Shape ks = ctx.shape("keys", {Dim::of(B, "B of queries"), Dim::any("L_K"), Dim::any("d_k")});
  const std::uint64_t L_K = ks[1], d_k = ks[2];
  const std::uint64_t d_v = ctx.shape("values", {Dim::of(B, "B of queries"), Dim::of(L_K, "L_K of keys"), Dim::any("d_v")})[2];
  const auto H = static_cast<std::size_t>(f.required_integer("num_heads", 1, static_cast<std::int64_t>(kMaxDimension)));
  const InnerAttention inner = read_inner(f);
  std::uint64_t hq, hv, out, biases = 0;
  if (f.has("weights")) {
    Fields w = f.object("weights");
    hq = w.shape("W_q", {Dim::any("num_hiddens"), Dim::of(d_q, "d_q of queries")}, ctx.shapes_only)[0];
    hv = w.shape("W_v", {Dim::any("H * d_v_head"), Dim::of(d_v, "d_v of values")}, ctx.shapes_only)[0];
    out = w.shape("W_o", {Dim::any("out"), Dim::of(hv, "rows of W_v")}, ctx.shapes_only)[0];
    const std::uint64_t rows[4] = {hq, hq, hv, out};
    const char* names[4] = {"b_q", "b_k", "b_v", "b_o"};
    for (int i = 0; i < 4; ++i) biases += (w.has(names[i]) || f.has(names[i])) ? rows[i] : 0;
  } else {
    hq = hv = out = static_cast<std::uint64_t>(f.required_integer("num_hiddens", 1, static_cast<std::int64_t>(kMaxDimension)));
    biases = f.boolean("bias", inner == InnerAttention::prob) ? 4 * hq : 0;
  }
  if (hq % H != 0 || hv % H != 0) throw InputError("num_heads", divides_message(static_cast<std::int64_t>(H), hq, "num_hiddens"));
  const AttentionDims d{qs[0], qs[1], ks[1], H, static_cast<std::size_t>(hq / H), static_cast<std::size_t>(hv / H)};
  Estimate e;
  if (inner == InnerAttention::prob) {
    const Mask mask = read_mask(ctx, B, L_Q, L_K, find_algorithm("prob")->masks);
    ProbOptions o = read_prob_options(ctx, L_Q, L_K, H);
    o.output_attention = o.output_attention || ctx.level == TraceLevel::full;  // the head weights
    e = prob_estimate(d, o, mask, ctx.level);
  } else {
    e = softmax_estimate(d, read_mask(ctx, B, L_Q, L_K, ctx.entry->masks), ctx.level);
  }
  // the head contexts are kept at trace "full" only (head_context), the output always
  if (ctx.level != TraceLevel::full) e.numbers -= context_numbers(d);
  e.numbers += B * L_Q * out;
  if (ctx.level == TraceLevel::full)  // W_q .. W_o and the biases; the projected q, k, v
    e.numbers += hq * (d_q + d_k) + hv * d_v + out * hv + biases + B * (L_Q + L_K) * hq + B * L_K * hv;
  e.cost.flops += 2 * (B * L_Q * d_q * hq + B * L_K * d_k * hq + B * L_K * d_v * hv + B * L_Q * hv * out);
  e.sizes["d_head"] = hq / H;
  return e;
}

json multihead_defaults() { return {{"inner", multihead_inner()["default"]}}; }

// d2l's MultiHeadAttention (seed 003), the basic-operations shape chain (seed 004), Informer's layer.
std::vector<Preset> multihead_presets() {
  std::vector<Preset> p;
  {
    json s = {{"algorithm", "multihead"}, {"num_hiddens", 100}, {"num_heads", 5}};
    s["queries"] = constant_nested({2, 4, 100}, 1.0);
    s["keys"] = constant_nested({2, 6, 100}, 1.0);
    s["values"] = constant_nested({2, 6, 100}, 1.0);
    s["mask"] = json::parse(R"({"kind": "valid_lens", "valid_lens": [3, 2]})");
    p.push_back({"d2l-multihead", "d2l MultiHeadAttention: 5 heads of 20, output (2, 4, 100)",
                 "d2l 多头注意力:5 个 20 维的头,输出 (2, 4, 100)",
                 "MultiHeadAttention(100, 100, 100, 100, num_heads=5): X = ones(2, 4, 100) queries Y = "
                 "ones(2, 6, 100) with valid_lens [3, 2]. transpose_qkv splits each projection into 5 heads "
                 "of 20: (10, 4, 20), (10, 6, 20); each head attends, the heads are concatenated back to "
                 "(2, 4, 100) and W_o gives the output (2, 4, 100). The weights are drawn from the seed "
                 "(bias=False, as d2l).",
                 s});
  }
  {
    Rng rng(1, RngStream::data);
    const json x = normal_nested(rng, {2, 6, 16});
    json s = {{"algorithm", "multihead"}, {"num_hiddens", 16}, {"num_heads", 2}, {"bias", true}};
    s["queries"] = x;
    s["keys"] = x;
    s["values"] = x;
    p.push_back({"tslib-shape-chain", "AttentionLayer shapes: (2,6,16) -> view(B,L,H,-1) -> (2,6,2,8)",
                 "AttentionLayer 形状链:(2,6,16) -> view(B,L,H,-1) -> (2,6,2,8)",
                 "The basic-operations toy: B = 2, L = S = 6, H = 2, d_model = 16. The Linear keeps (2, 6, 16); "
                 "view(B, L, H, -1) splits it into (2, 6, 2, 8) (the -1 is inferred as 8); einsum "
                 "\"blhe,bshe->bhls\" gives scores (2, 2, 6, 6), softmax over the last axis (the keys), and "
                 "\"bhls,bshd->blhd\" the context (2, 6, 2, 8), concatenated back to (2, 6, 16).",
                 s});
  }
  {
    Rng rng(2, RngStream::data);
    json s = {{"algorithm", "multihead"}, {"inner", "prob"}, {"num_hiddens", 16}, {"num_heads", 2},
              {"factor", 2}, {"output_attention", true}};
    const json x = normal_nested(rng, {1, 12, 16});
    s["queries"] = x;
    s["keys"] = x;
    s["values"] = x;
    p.push_back({"informer-prob-layer", "Informer: AttentionLayer around ProbAttention, L = 12, factor 2",
                 "Informer:AttentionLayer 包裹 ProbAttention,L = 12,factor 2",
                 "An Informer encoder self-attention: d_model 16, 2 heads of 8, L = 12, factor 2, so U_part = "
                 "u = 2 * ceil(ln 12) = 6: each query is scored against 6 sampled keys, the 6 queries of "
                 "largest M per head attend exactly, the other 6 keep the mean of V. The projections are "
                 "nn.Linear with bias, drawn from the seed.",
                 s});
  }
  return p;
}

}  // namespace attnplay
