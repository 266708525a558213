// Presets: the seeds' worked examples first, then small demonstrations of each mask.
// Numbers quoted in descriptions are the seeds' (rounded as the seeds round them).
#include "presets.hpp"

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
