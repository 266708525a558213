// Reader of "additive": q, k, v with one head (k's E free), the mask, and the weights, given as
// weights: {W_q, W_k, w_v} or drawn from the seed with hidden: h.
#include "../additive_attention.hpp"
#include "readers.hpp"

#include <algorithm>
#include <optional>

namespace attnplay {

Trace run_additive(ScenarioContext& ctx) {
  const Tensor q = ctx.tensor("q", {Dim::any("B"), Dim::any("L_Q"), Dim::any("H"), Dim::any("E_q")});
  const auto qs = q.shape();
  if (qs[2] != 1)
    throw InputError("q", "additive attention takes H = 1, got " + std::to_string(qs[2]));
  const Tensor k = ctx.tensor("k", {Dim::of(qs[0], "B of q"), Dim::any("L_K"), Dim::of(1, "H = 1"), Dim::any("E_k")});
  const Tensor v = ctx.tensor("v", {Dim::of(qs[0], "B of q"), Dim::of(k.shape()[1], "L_K of k"), Dim::of(1, "H = 1"), Dim::any("D")});
  const std::size_t E_q = qs[3], E_k = k.shape()[3];

  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  std::optional<std::int64_t> hidden;
  if (ctx.fields.has("hidden")) hidden = ctx.fields.required_integer("hidden", 1, big);
  else ctx.fields.ignore({"hidden"});

  AdditiveWeights weights;
  const bool seeded = !ctx.fields.has("weights");
  if (seeded) {
    ctx.fields.ignore({"weights"});
    if (!hidden) throw InputError("hidden", "required (the size h of the hidden layer), unless weights: {W_q, W_k, w_v} are given");
    check_size(static_cast<std::uint64_t>(*hidden) * std::max(E_q, E_k), "hidden", "the weights W_q (h, E_q) and W_k (h, E_k)");
  } else {
    Fields w = ctx.fields.object("weights");
    const Dim h = hidden ? Dim::of(static_cast<std::size_t>(*hidden), "hidden") : Dim::any("h");
    weights.W_q = w.tensor("W_q", {h, Dim::of(E_q, "E_q of q")});
    const std::size_t H = weights.W_q.shape()[0];
    weights.W_k = w.tensor("W_k", {Dim::of(H, "h of W_q"), Dim::of(E_k, "E_k of k")});
    // (h), or torch's nn.Linear(h, 1).weight layout (1, h)
    const json& w_v = w.raw("w_v");
    if (w_v.is_array() && !w_v.empty() && w_v[0].is_array()) {
      weights.w_v = read_tensor(w_v, w.path_of("w_v"), {Dim::of(1, "out = 1"), Dim::of(H, "h of W_q")}, nullptr);
      weights.w_v.reshape({H});
    } else {
      weights.w_v = w.tensor("w_v", {Dim::of(H, "h of W_q")});
    }
    ctx.record_shape("W_q", Shape(weights.W_q.shape().begin(), weights.W_q.shape().end()));
    ctx.record_shape("W_k", Shape(weights.W_k.shape().begin(), weights.W_k.shape().end()));
    ctx.record_shape("w_v", Shape(weights.w_v.shape().begin(), weights.w_v.shape().end()));
    w.warn_unused(ctx.warnings);
  }

  const std::size_t h = seeded ? static_cast<std::size_t>(*hidden) : weights.w_v.size(), B = qs[0], L_Q = qs[1], L_K = k.shape()[1];
  check_size(std::uint64_t{B} * L_Q * h, seeded ? "hidden" : "weights.W_q", "the projected queries (B, L_Q, h)");
  check_size(std::uint64_t{B} * L_K * h, seeded ? "hidden" : "weights.W_k", "the projected keys (B, L_K, h)");
  check_pair_tensors(ctx, std::uint64_t{B} * L_Q * L_K, "k");
  if (ctx.level == TraceLevel::full)  // B L_Q L_K fits (above): h is what makes the features large
    check_size(std::uint64_t{B} * L_Q * L_K * h, seeded ? "hidden" : "weights.W_q",
               "the features tanh(W_q q + W_k k) (B, L_Q, L_K, h)", "; use \"trace\": \"context\"");
  check_size(std::uint64_t{B} * L_Q * v.shape()[3], "v", "the context (B, L_Q, 1, D)");
  const Mask mask = read_mask(ctx, qs[0], qs[1], k.shape()[1], ctx.entry->masks);
  ctx.begin_work();
  if (seeded) weights = seeded_additive_weights(ctx.seed, h, E_q, E_k);
  Trace trace = additive_attention(q, k, v, weights, mask, ctx.level);
  if (seeded && ctx.level == TraceLevel::full) {  // show the drawn weights
    trace.set("W_q", weights.W_q);
    trace.set("W_k", weights.W_k);
    trace.set("w_v", weights.w_v);
  }
  return trace;
}

Estimate estimate_additive(ScenarioContext& ctx) {
  const Shape qs = ctx.shape("q", {Dim::any("B"), Dim::any("L_Q"), Dim::of(1, "H = 1"), Dim::any("E_q")});
  const Shape ks = ctx.shape("k", {Dim::of(qs[0], "B of q"), Dim::any("L_K"), Dim::of(1, "H = 1"), Dim::any("E_k")});
  const Shape vs = ctx.shape("v", {Dim::of(qs[0], "B of q"), Dim::of(ks[1], "L_K of k"), Dim::of(1, "H = 1"), Dim::any("D")});
  const std::uint64_t B = qs[0], L_Q = qs[1], L_K = ks[1], E_q = qs[3], E_k = ks[3], D = vs[3];
  const bool seeded = !ctx.fields.has("weights");
  const std::uint64_t h = seeded ? static_cast<std::uint64_t>(ctx.fields.required_integer("hidden", 1, static_cast<std::int64_t>(kMaxDimension)))
                                 : ctx.fields.object("weights").shape("W_q", {Dim::any("h"), Dim::of(E_q, "E_q of q")}, ctx.shapes_only)[0];
  read_mask(ctx, B, L_Q, L_K, ctx.entry->masks);
  Estimate e;
  const std::uint64_t pairs = B * L_Q * L_K;  // additive_attention: every pair, whatever the mask
  e.cost = {pairs, pairs, 2 * (B * L_Q * h * E_q + B * L_K * h * E_k + pairs * (h + D))};
  e.numbers = B * L_Q * D;
  if (ctx.level == TraceLevel::full)  // features (B, L_Q, L_K, h), scores and weights; the drawn weights
    e.numbers += pairs * h + 2 * pairs + (seeded ? h * (E_q + E_k + 1) : 0);
  return e;
}

json additive_defaults() { return json::object(); }

namespace {

// d2l's AdditiveAttention example: queries (2, 1, 20) drawn normal (SplitMix64, data stream of
// seed 0, row-major), keys all ones (2, 10, 2), values arange(40).reshape(1, 10, 4) for both
// batch items, valid_lens [2, 6], hidden 8 (weights drawn from the scenario's seed).
json d2l_additive_demo() {
  Rng rng(0, RngStream::data);
  json q = json::array(), k = json::array(), v = json::array();
  for (int b = 0; b < 2; ++b) {
    json row = json::array();
    for (int e = 0; e < 20; ++e) row.push_back(rng.normal());
    json qb = json::array();
    qb.push_back(json::array({row}));  // (L_Q = 1, H = 1, E_q = 20)
    q.push_back(qb);
    json kb = json::array(), vb = json::array();
    for (int j = 0; j < 10; ++j) {
      kb.push_back(json::parse("[[1, 1]]"));
      vb.push_back(json::array({json::array({4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3})}));
    }
    k.push_back(kb);
    v.push_back(vb);
  }
  json s = {{"algorithm", "additive"}, {"hidden", 8}, {"q", q}, {"k", k}, {"v", v}};
  s["mask"] = json::parse(R"({"kind": "valid_lens", "valid_lens": [2, 6]})");
  return s;
}

}  // namespace

// d2l's AdditiveAttention example (seed 003).
std::vector<Preset> additive_presets() {
  std::vector<Preset> p;
  p.push_back({"d2l-additive", "d2l additive attention, valid_lens [2, 6]", "d2l 加性注意力,valid_lens [2, 6]",
               "AdditiveAttention(key_size=2, query_size=20, num_hiddens=8): the keys are all ones, so every "
               "key gets the same score and the weights are uniform over the valid keys (1/2 in item 0, 1/6 "
               "in item 1). The context is [2, 3, 4, 5] and [10, 11, 12, 13], as d2l prints.",
               d2l_additive_demo()});
  return p;
}

}  // namespace attnplay
