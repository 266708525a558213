// Presets: the seeds' worked examples first, then small demonstrations of each mask.
// Numbers quoted in descriptions are the seeds' (rounded as the seeds round them).
#include "presets.hpp"

#include <cmath>

#include "../rng.hpp"

namespace attnplay {

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

// ---- d2l's attention pooling and scoring: additive attention, Nadaraya-Watson, positional
// encoding (seed 003). Kept together; one function, called at the end of make_presets().

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

void add_d2l_pooling_presets(std::vector<Preset>& p) {
  p.push_back({"d2l-additive", "d2l additive attention, valid_lens [2, 6]", "d2l 加性注意力,valid_lens [2, 6]",
               "AdditiveAttention(key_size=2, query_size=20, num_hiddens=8): the keys are all ones, so every "
               "key gets the same score and the weights are uniform over the valid keys (1/2 in item 0, 1/6 "
               "in item 1). The context is [2, 3, 4, 5] and [10, 11, 12, 13], as d2l prints.",
               d2l_additive_demo()});
  p.push_back({"d2l-average-pooling", "d2l average pooling (constant kernel)", "d2l 平均汇聚(常数核)",
               "The baseline before attention: every test point predicts the mean of y_train, ignoring x "
               "(y_hat = repeat_interleave(y_train.mean(), n_test)). 50 training points of "
               "y = 2 sin x + x^0.8 + noise.",
               json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "constant",
                   "dataset": {"n_train": 50, "seed": 0}})")});
  p.push_back({"d2l-nadaraya-watson", "d2l Nadaraya-Watson kernel regression", "d2l Nadaraya-Watson 核回归",
               "Non-parametric attention pooling: weights = softmax(-(x - x_i)^2 / 2) over the 50 training "
               "points. Both axes are sorted, so the heavy weights lie on the diagonal; y_hat follows the "
               "truth 2 sin x + x^0.8 smoothly.",
               json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "gaussian",
                   "dataset": {"n_train": 50, "seed": 0}})")});
  p.push_back({"d2l-nadaraya-watson-trained", "d2l parametric Nadaraya-Watson, 5 epochs of SGD",
               "d2l 带参数的 Nadaraya-Watson,SGD 训练 5 轮",
               "NWKernelRegression: weights = softmax(-((x - x_i) w)^2 / 2), w learned by leave-one-out SGD "
               "(lr 0.5, 5 epochs, loss = sum of squared errors). The loss falls, w grows, the kernel narrows "
               "and y_hat follows the noisy training points: less smooth than with w = 1.",
               json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "gaussian", "w": 1,
                   "dataset": {"n_train": 50, "seed": 0}, "train": {"epochs": 5, "lr": 0.5}})")});
  p.push_back({"d2l-positional-encoding", "d2l sinusoidal positional encoding, 60 x 32",
               "d2l 正弦位置编码,60 x 32",
               "P[i, 2j] = sin(i / 10000^(2j/32)), P[i, 2j+1] = cos(same). Row 0 is [0, 1, 0, 1, ...]; "
               "columns 6 and 7 are a sine and a cosine of one frequency (a phase shift apart), columns 8 and 9 "
               "have a longer period: higher columns change more slowly, like the higher bits of a binary count.",
               json::parse(R"({"algorithm": "positional_encoding", "num_steps": 60, "encoding_dim": 32})")});
}

// ---- end of d2l attention pooling and scoring presets

// ---- ProbAttention and multi-head attention (seeds 000, 003, 004). Kept together; one function,
// add_prob_multihead_presets(), called at the end of make_presets().

// A nested array of the given shape filled with `value`.
json constant_nested(const std::vector<std::size_t>& shape, double value, std::size_t depth = 0) {
  json a = json::array();
  for (std::size_t i = 0; i < shape[depth]; ++i)
    a.push_back(depth + 1 == shape.size() ? json(value) : constant_nested(shape, value, depth + 1));
  return a;
}

// A nested array of standard normals (SplitMix64, data stream of `seed`, row-major), rounded to
// 3 decimals so that the scenario (and the page's URL) stays short.
json normal_nested(Rng& rng, const std::vector<std::size_t>& shape, std::size_t depth = 0) {
  json a = json::array();
  for (std::size_t i = 0; i < shape[depth]; ++i) {
    if (depth + 1 == shape.size()) a.push_back(std::round(rng.normal() * 1000.0) / 1000.0);
    else a.push_back(normal_nested(rng, shape, depth + 1));
  }
  return a;
}

json prob_toy(bool causal) {
  json s = json::parse(R"({"algorithm": "prob", "factor": 1, "output_attention": true,
      "q": [[[[1, 0]], [[0, 1]], [[1, 1]], [[2, 0]]]],
      "k": [[[[1, 0]], [[0, 1]], [[1, 1]], [[1, -1]]]],
      "v": [[[[10, 11]], [[20, 21]], [[30, 31]], [[40, 41]]]],
      "sample_index": [[0, 2], [1, 3], [0, 2], [2, 3]]})");
  if (causal) s["mask"] = json::parse(R"({"kind": "causal"})");
  return s;
}

void add_prob_multihead_presets(std::vector<Preset>& p) {
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
}

// ---- end of ProbAttention and multi-head presets

// ---- sparse attention patterns (seed 002, Su Jianlin's note on sparse attention): the same
// L = 8 sequence under Local, Atrous and OpenAI's Sparse (local + atrous) masks, so the page shows
// each pattern's allowed cells and how the weights redistribute over them.

json sparse_pattern_demo(const json& mask) {
  Rng rng(3, RngStream::data);
  json s = {{"algorithm", "full"}};
  s["q"] = normal_nested(rng, {1, 8, 1, 2});
  s["k"] = normal_nested(rng, {1, 8, 1, 2});
  s["v"] = normal_nested(rng, {1, 8, 1, 2});
  s["mask"] = mask;
  return s;
}

void add_sparse_pattern_presets(std::vector<Preset>& p) {
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
}

// ---- end of sparse attention patterns

std::vector<Preset> make_presets() {
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
  add_d2l_pooling_presets(p);
  add_prob_multihead_presets(p);
  add_sparse_pattern_presets(p);
  return p;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = make_presets();
  return all;
}

const Preset* find_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace attnplay
