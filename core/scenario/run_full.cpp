#include "../full_attention.hpp"
#include "readers.hpp"

namespace attnplay {

Trace run_full(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  check_pair_tensors(ctx, std::uint64_t{d.B} * d.H * d.L_Q * d.L_K, "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  ctx.dtype_honoured = true;  // the context in float32 when asked (the pictures stay float64)
  return full_attention(in.q, in.k, in.v, in.scale, mask, ctx.level, ctx.dtype);
}

std::uint64_t context_numbers(const AttentionDims& d) { return std::uint64_t{d.B} * d.L_Q * d.H * d.D; }

Estimate softmax_estimate(const AttentionDims& d, const Mask& mask, TraceLevel level) {
  Estimate e;
  const std::uint64_t pairs = attended_pairs(mask, d.B, d.H, d.L_Q, d.L_K), dense = std::uint64_t{d.B} * d.H * d.L_Q * d.L_K;
  e.cost = {pairs, dense, 2 * pairs * (d.E + d.D)};
  e.numbers = context_numbers(d) + (level == TraceLevel::full ? 2 * dense : 0);  // scores, weights
  return e;
}

void add_exact_estimate(Estimate& e, const AttentionDims& d, const Mask& mask, TraceLevel level) {
  if (level != TraceLevel::full) return;
  e.numbers += context_numbers(d);
  e.sizes["exact_flops"] = softmax_estimate(d, mask, TraceLevel::context).cost.flops;
}

Estimate estimate_full(ScenarioContext& ctx) {
  const auto d = read_attention_shapes(ctx);
  return softmax_estimate(d, read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks), ctx.level);
}

json full_defaults() { return json::object(); }

namespace {

// d2l's masked_softmax demo: X is a (2, 2, 4) batch of scores. With one-hot queries, keys that
// carry X's columns, scale 1 and identity values, the scores are X and the context equals the
// weights, so the page shows exactly d2l's printout.
json masked_softmax_demo(const json& valid_lens) {
  const double X[2][2][4] = {{{0.5488, 0.7152, 0.6028, 0.5449}, {0.4237, 0.6459, 0.4376, 0.8918}},
                             {{0.9637, 0.3834, 0.7917, 0.5289}, {0.5680, 0.9256, 0.0710, 0.0871}}};
  json q = json::array(), k = json::array(), v = json::array();
  for (int b = 0; b < 2; ++b) {
    q.push_back(json::parse("[[[1, 0]], [[0, 1]]]"));
    json kb = json::array(), vb = json::array();
    for (int j = 0; j < 4; ++j) {
      kb.push_back(json::array({json::array({X[b][0][j], X[b][1][j]})}));
      json onehot = json::array({0.0, 0.0, 0.0, 0.0});
      onehot[j] = 1.0;
      vb.push_back(json::array({onehot}));  // explicit: a one-element brace list is compiler-dependent
    }
    k.push_back(kb);
    v.push_back(vb);
  }
  return {{"algorithm", "full"}, {"scale", 1},  {"q", q}, {"k", k}, {"v", v},
          {"mask", {{"kind", "valid_lens"}, {"valid_lens", valid_lens}}}};
}

// d2l's DotProductAttention example (seed 003): queries (2, 1, 2) drawn normal (SplitMix64, data
// stream of seed 0, rounded to 3 digits), keys ones((2, 10, 2)), values arange(40).reshape(1, 10,
// 4) for both batch items, valid_lens [2, 6]; the scale is d2l's 1/sqrt(d), the default.
json d2l_dot_product_demo() {
  Rng rng(0, RngStream::data);
  json v = json::array();
  for (int b = 0; b < 2; ++b) {
    json vb = json::array();
    for (int j = 0; j < 10; ++j) vb.push_back(json::array({json::array({4 * j, 4 * j + 1, 4 * j + 2, 4 * j + 3})}));
    v.push_back(vb);
  }
  return {{"algorithm", "full"}, {"q", normal_nested(rng, {2, 1, 1, 2})}, {"k", constant_nested({2, 10, 1, 2}, 1.0)},
          {"v", v}, {"mask", {{"kind", "valid_lens"}, {"valid_lens", {2, 6}}}}};
}

json sparse_pattern_demo(const json& mask) {
  Rng rng(3, RngStream::data);
  json s = {{"algorithm", "full"}};
  s["q"] = normal_nested(rng, {1, 8, 1, 2});
  s["k"] = normal_nested(rng, {1, 8, 1, 2});
  s["v"] = normal_nested(rng, {1, 8, 1, 2});
  s["mask"] = mask;
  return s;
}

}  // namespace

// The seeds' softmax toy, d2l's masked softmax, and the sparse patterns of seed 002 (Su Jianlin's
// note): the same L = 8 sequence under Local, Atrous and OpenAI's Sparse (local + atrous) masks.
std::vector<Preset> full_presets() {
  std::vector<Preset> p;
  p.push_back({"softmax-toy", "scores [2,1,0] -> weights -> context", "分数 [2,1,0] -> 权重 -> 上下文",
               "One query, one head (basic-operations note, level 5): scores [2, 1, 0] give weights "
               "[0.665, 0.245, 0.090] and, with v0=[10,0], v1=[0,20], v2=[10,10], the context [7.55, 5.80].",
               json::parse(R"({"algorithm": "full", "q": [[[[1]]]], "k": [[[[2]], [[1]], [[0]]]],
                   "v": [[[[10, 0]], [[0, 20]], [[10, 10]]]]})")});
  p.push_back({"d2l-masked-softmax-1d", "d2l masked softmax, valid_lens [2, 3]", "d2l 掩蔽 softmax,valid_lens [2, 3]",
               "masked_softmax(X, [2, 3]): in batch item 0 only the first 2 keys get weight, in item 1 the "
               "first 3; the rest are exactly 0 and every row sums to 1. The context equals the weights.",
               masked_softmax_demo({2, 3})});
  p.push_back({"d2l-masked-softmax-2d", "d2l masked softmax, valid_lens [[1,3],[2,4]]",
               "d2l 掩蔽 softmax,valid_lens [[1,3],[2,4]]",
               "A 2-D valid_lens gives one length per query: row (0,0) keeps 1 key (weight 1.0), row (0,1) "
               "3 keys, row (1,0) 2 keys, row (1,1) all 4.",
               masked_softmax_demo({{1, 3}, {2, 4}})});
  p.push_back({"d2l-dot-product", "d2l DotProductAttention, valid_lens [2, 6]", "d2l DotProductAttention,valid_lens [2, 6]",
               "DotProductAttention with d2l's inputs: one random query per batch item, ten keys that are all "
               "ones, values arange(40) in rows of 4, scale 1/sqrt(d). Every key scores the same against a "
               "query, so masked_softmax spreads the weight evenly over the valid keys (1/2 in item 0, 1/6 in "
               "item 1, exactly 0 beyond). The context is the mean of those values: [2, 3, 4, 5] and [10, 11, "
               "12, 13], as d2l prints, whatever the queries.",
               d2l_dot_product_demo()});
  p.push_back({"self-attention", "Self-attention: queries = keys = values = X", "自注意力:查询 = 键 = 值 = X",
               "d2l's self-attention: every token x_i is a query, a key and a value at once (here X = the "
               "ProbAttention note's Q, [1, 0], [0, 1], [1, 1], [2, 0]). The scores X X^T / sqrt(2) are "
               "symmetric, the weights are not (each row is normalised on its own): x0 gives x3 0.449, more than "
               "itself (0.221), while x3 keeps 0.647 for itself. Each output is a mix of the tokens: x1 becomes "
               "[0.830, 0.670].",
               json::parse(R"({"algorithm": "full", "q": [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]],
                   "k": [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]], "v": [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]]})")});
  p.push_back({"sparse-local", "Local self-attention: |i - j| <= 2", "局部自注意力:|i - j| <= 2",
               "Each query attends only to itself and the 2 keys on either side (2k + 1 = 5 keys): the cost "
               "grows like k n instead of n^2, and long-range links are gone.",
               sparse_pattern_demo(json::parse(R"({"kind": "local", "window": 2})"))});
  p.push_back({"sparse-atrous", "Atrous (dilated) self-attention: |i - j| mod 3 = 0",
               "空洞(膨胀)自注意力:|i - j| mod 3 = 0",
               "Like a dilated convolution, each query attends to the keys at distance 0, k, 2k, ... (k = 3): "
               "about n / k keys per query.",
               sparse_pattern_demo(json::parse(R"({"kind": "atrous", "dilation": 3})"))});
  p.push_back({"sparse-strided", "OpenAI Sparse Transformer: local (2) + atrous (3), causal",
               "OpenAI Sparse Transformer:局部 (2) + 空洞 (3),因果",
               "The Sparse Transformer merges the two: keys within distance 2 or at a multiple of 3, and "
               "(for generation) none from the future. Local links stay dense, distant ones sparse.",
               sparse_pattern_demo(json::parse(R"({"kind": "strided", "window": 2, "stride": 3, "causal": true})"))});
  return p;
}

}  // namespace attnplay
