#include <cmath>

#include "../linear_attention.hpp"
#include "readers.hpp"

namespace attnplay {

void check_kernel_sizes(const ScenarioContext& ctx, const AttentionDims& d, std::size_t F, const std::string& features_field) {
  const auto blame = [&](const char* own) { return features_field.empty() ? std::string(own) : features_field; };
  const std::uint64_t BH = std::uint64_t{d.B} * d.H;
  check_pair_tensors(ctx, BH * d.L_Q * d.L_K, "k");
  check_size(BH * d.L_Q * F, blame("q"), "the features of q (B, L_Q, H, F)");
  check_size(BH * d.L_K * F, blame("k"), "the features of k (B, L_K, H, F)");
  check_size(std::uint64_t{F} * d.D, blame("v"), "the sum KV (F, D)");
  check_size(BH * d.L_Q * d.D, "v", "the context (B, L_Q, H, D)");
}

KernelReference kernel_reference(const ScenarioContext& ctx) {
  return ctx.reference == "fast-transformers"   ? KernelReference::fast_transformers
         : ctx.reference == "performer-pytorch" ? KernelReference::performer_pytorch
                                                : KernelReference::spec;
}

Estimate kernel_estimate(const AttentionDims& d, std::size_t F, bool normalise, const Mask& mask, TraceLevel level) {
  const std::uint64_t BH = std::uint64_t{d.B} * d.H, dense = BH * d.L_Q * d.L_K;
  const std::uint64_t products = BH * (std::uint64_t{d.L_Q} + d.L_K) * (d.D + (normalise ? 1 : 0));  // linear_attention_pass
  Estimate e;
  e.cost = {products, dense, 2 * products * F};
  e.numbers = context_numbers(d);
  if (level == TraceLevel::full) e.numbers += BH * (std::uint64_t{d.L_Q} + d.L_K) * F + dense;  // features, weights
  add_exact_estimate(e, d, mask, level);
  return e;
}

namespace {

constexpr const char* kDefaultFeatureMap = "elu1";

FeatureMap read_feature_map(ScenarioContext& ctx) {
  const auto name = ctx.fields.choice("feature_map", {"elu1", "relu", "softmax_qk", "cosine1"}, kDefaultFeatureMap);
  return name == "relu"         ? FeatureMap::relu
         : name == "softmax_qk" ? FeatureMap::softmax_qk
         : name == "cosine1"    ? FeatureMap::cosine1
                                : FeatureMap::elu1;
}

std::size_t feature_count(FeatureMap map, std::size_t E) { return map == FeatureMap::cosine1 ? E + 1 : E; }

}  // namespace

json linear_defaults() { return {{"feature_map", kDefaultFeatureMap}}; }

Estimate estimate_linear(ScenarioContext& ctx) {
  const auto d = read_attention_shapes(ctx);
  const FeatureMap map = read_feature_map(ctx);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const bool normalise = map != FeatureMap::softmax_qk || kernel_reference(ctx) == KernelReference::performer_pytorch;
  Estimate e = kernel_estimate(d, feature_count(map, d.E), normalise, mask, ctx.level);
  e.sizes["features"] = feature_count(map, d.E);
  return e;
}

Trace run_linear(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  const FeatureMap map = read_feature_map(ctx);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  check_kernel_sizes(ctx, d, feature_count(map, d.E), "");
  const KernelReference ref = kernel_reference(ctx);
  ctx.begin_work();
  return linear_attention(in.q, in.k, in.v, map, in.scale, mask, ctx.level, ref);
}

namespace {

// The note's small example: one sequence of L = 8, one head, E = D = 4 (normals rounded to 3
// decimals, data stream, seed 8).
json linear_example(const std::string& feature_map, bool causal) {
  Rng rng(8, RngStream::data);
  json s = {{"algorithm", "linear"}, {"feature_map", feature_map}};
  s["q"] = normal_nested(rng, {1, 8, 1, 4});
  s["k"] = normal_nested(rng, {1, 8, 1, 4});
  s["v"] = normal_nested(rng, {1, 8, 1, 4});
  if (causal) s["mask"] = {{"kind", "causal"}};
  return s;
}

}  // namespace

// Su Jianlin's note (seed 002): sim(q_i, k_j) >= 0 in place of exp(q_i . k_j), three ways, and
// the prefix sums that keep it linear under the causal mask.
std::vector<Preset> linear_presets() {
  std::vector<Preset> p;
  p.push_back({"linear-elu1", "Linear attention: phi(x) = elu(x) + 1 against softmax",
               "线性 Attention:phi(x) = elu(x) + 1 对比 softmax",
               "The note's kernel idea: sim(q, k) = phi(q) . phi(k) with a non-negative phi, here elu(x) + 1, so "
               "context_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / phi(q_i) . sum_j phi(k_j) never forms the 8 x 8 "
               "matrix: the cost grows with L E D, not L^2 (at L = 8 it is still 80 products against 64; at "
               "L = 4096, E = D = 64 it is 0.5 M against 16.8 M). The implied weights rows still sum to 1 but "
               "are flatter than softmax's (0.044 to 0.228 against 0.005 to 0.570): max |context - "
               "exact_context| = 0.89.",
               linear_example("elu1", false)});
  p.push_back({"linear-softmax-qk", "The note's softmax trick: softmax_E(Q) softmax_L(K)^T V",
               "妙用 Softmax:softmax_1(Q) softmax_2(K)^T V",
               "Normalise each q over its E = 4 dimensions and each column of K over the L = 8 keys, then "
               "multiply, K^T V first: Q K^T is normalised by construction (every weight row sums to 1) with no "
               "division afterwards. Weights 0.033 to 0.306 against softmax's 0.005 to 0.570: max |context - "
               "exact_context| = 0.78.",
               linear_example("softmax_qk", false)});
  p.push_back({"linear-cosine", "The author's idea: sim = 1 + cos(q, k)", "作者自己的构思:sim = 1 + cos(q, k)",
               "From e^{q.k} ~ 1 + q.k, kept non-negative by l2-normalising q and k: sim = 1 + cos(q_i, k_j) in "
               "[0, 2]. As features phi(x) = [1, x / |x|] (E + 1 = 5 of them) it is linear attention too. "
               "Weights 0.010 to 0.233: max |context - exact_context| = 0.85 (row 2); row 7 is off by only "
               "0.07.",
               linear_example("cosine1", false)});
  p.push_back({"linear-causal", "Causal linear attention by prefix sums", "因果线性 Attention:前缀和",
               "With the causal mask query i may only use keys j <= i: sum_j phi(k_j) v_j^T and sum_j phi(k_j) "
               "become prefix sums, grown key by key, still O(L E D). Row 0 puts all its weight on key 0, so "
               "its context is v_0 exactly, as in softmax attention; later rows differ, at most by 1.22 "
               "(row 5).",
               linear_example("elu1", true)});
  {
    json s = linear_example("relu", false);
    s["q"][0][3][0] = {-0.5, -1.2, -0.3, -2.0};  // query 3: no positive feature
    p.push_back({"linear-relu-zero", "relu features: a query with nothing in common", "relu 特征:分母为 0 的查询",
                 "phi = relu keeps only the positive features; query 3 is negative everywhere, so "
                 "sum_j sim(q_3, k_j) = 0: its weights and context are 0 and a warning says so (no NaN). The "
                 "other rows are still averages of V.",
                 s});
  }
  return p;
}

}  // namespace attnplay
