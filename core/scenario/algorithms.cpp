// The algorithm registry: one entry per algorithm, in the order menus show them.
#include "adapters.hpp"

namespace attnplay {

const std::vector<AlgorithmEntry>& algorithms() {
  static const std::vector<AlgorithmEntry> table{
      {"full", "Scaled dot-product attention", "缩放点积注意力",
       "softmax(scale * Q K^T + mask) V per batch and head (TSLib FullAttention, d2l DotProductAttention)",
       run_full, full_presets},
      {"additive", "Additive attention", "加性注意力",
       "w_v^T tanh(W_q q + W_k k), masked softmax, weighted V (d2l AdditiveAttention)", run_additive,
       additive_presets},
      {"nadaraya_watson", "Nadaraya-Watson kernel regression", "Nadaraya-Watson 核回归",
       "y_hat = sum_i softmax_i(K((x - x_i) w)) y_i, with d2l's training loop (d2l NWKernelRegression)",
       run_nadaraya_watson, nadaraya_watson_presets},
      {"positional_encoding", "Sinusoidal positional encoding", "正弦位置编码",
       "P[i, 2j] = sin(i / base^(2j/d)), P[i, 2j+1] = cos(same) (d2l PositionalEncoding)",
       run_positional_encoding, positional_encoding_presets},
      {"prob", "ProbAttention (Informer)", "ProbSparse 注意力(Informer)",
       "sampled sparsity M ranks the queries; the top u attend exactly, the rest keep the mean of V "
       "(Informer / TSLib ProbAttention)",
       run_prob, prob_presets},
      {"multihead", "Multi-head attention", "多头注意力",
       "project, split into heads, attend (full or prob) per head, concatenate, W_o (d2l MultiHeadAttention, "
       "TSLib AttentionLayer)",
       run_multihead, multihead_presets},
  };
  return table;
}

const AlgorithmEntry* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

json algorithms_json() {
  json list = json::array();
  for (const auto& a : algorithms())
    list.push_back({{"name", a.name}, {"title", a.title}, {"title_zh", a.title_zh}, {"description", a.description}});
  return list;
}

}  // namespace attnplay
