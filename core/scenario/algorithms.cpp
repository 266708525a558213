// The algorithm registry: one entry per algorithm, in the order menus show them.
//
// Compiled twice (CMakeLists.txt): for every program, and with ATTNPLAY_FIRST_LOAD for the page's
// first-load WASM module, which runs `full` alone and carries no presets (the page has them from
// build/wasm/catalog.json), so the linker leaves every other algorithm out of it. The page loads
// the whole module after its first trace (web/src/compute.ts).
#include "draws.hpp"
#include "readers.hpp"

#ifdef ATTNPLAY_FIRST_LOAD
#define ONLY_WHOLE(runner_or_presets) nullptr
#define DESCRIPTION(text) ""  // nobody reads them there (scripts/catalog.mjs takes the names)
#define WHOLE_VALUE(...) {}   // tensors and masks of what it does not run: empty (smaller)
#else
#define ONLY_WHOLE(runner_or_presets) runner_or_presets
#define DESCRIPTION(text) text
#define WHOLE_VALUE(...) __VA_ARGS__
#endif

namespace attnplay {

// modern-b (issue 16): declared here rather than in readers.hpp, so that adding them recompiles no
// other reader (move into readers.hpp's list when convenient).
Trace run_mla(ScenarioContext& ctx);
Estimate estimate_mla(ScenarioContext& ctx);
json mla_defaults();
std::vector<Preset> mla_presets();
Trace run_decode(ScenarioContext& ctx);
Estimate estimate_decode(ScenarioContext& ctx);
json decode_defaults();
std::vector<Preset> decode_presets();

#ifndef ATTNPLAY_FIRST_LOAD
namespace {

// The kernel methods' causal mask is prefix sums: no scores, so no fill either.
MaskRule kernel_masks(const std::string& who) {
  return {{"none", "causal"}, who + " takes the mask", "prefix sums",
          who + " has no scores to fill: the causal mask drops the keys j > i (prefix sums); only \"-inf\" is accepted, got "};
}

MaskRule no_mask(const std::string& who, const std::string& why) { return {{}, who + " takes no mask", why, ""}; }

}  // namespace
#endif

const std::vector<AlgorithmEntry>& algorithms() {
  static const std::vector<AlgorithmEntry> table{
      {"full", "Scaled dot-product attention", "缩放点积注意力",
       DESCRIPTION("softmax(scale * Q K^T + mask) V per batch and head (TSLib FullAttention, d2l DotProductAttention)"),
       run_full, ONLY_WHOLE(full_presets),
       {"q", "k", "v"}, any_mask(), full_defaults, estimate_full},
      {"flash", "FlashAttention (online softmax, tiles)", "FlashAttention(在线 softmax,分块)",
       DESCRIPTION("exact softmax(scale * Q K^T + mask) V computed key block by key block with a running max and a running sum "
       "that rescale the partial context (FlashAttention): no L x L matrix, the same context as full"),
       ONLY_WHOLE(run_flash), ONLY_WHOLE(flash_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(any_mask()), ONLY_WHOLE(flash_defaults), ONLY_WHOLE(estimate_flash)},
      {"additive", "Additive attention", "加性注意力",
       DESCRIPTION("w_v^T tanh(W_q q + W_k k), masked softmax, weighted V (d2l AdditiveAttention)"), ONLY_WHOLE(run_additive),
       ONLY_WHOLE(additive_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(any_mask()), ONLY_WHOLE(additive_defaults), ONLY_WHOLE(estimate_additive)},
      {"nadaraya_watson", "Nadaraya-Watson kernel regression", "Nadaraya-Watson 核回归",
       DESCRIPTION("y_hat = sum_i softmax_i(K((x - x_i) w)) y_i, with d2l's training loop (d2l NWKernelRegression)"),
       ONLY_WHOLE(run_nadaraya_watson), ONLY_WHOLE(nadaraya_watson_presets),
       {}, MaskRule{}, ONLY_WHOLE(nadaraya_watson_defaults), ONLY_WHOLE(estimate_nadaraya_watson)},
      {"positional_encoding", "Sinusoidal positional encoding", "正弦位置编码",
       DESCRIPTION("P[i, 2j] = sin(i / base^(2j/d)), P[i, 2j+1] = cos(same) (d2l PositionalEncoding)"),
       ONLY_WHOLE(run_positional_encoding), ONLY_WHOLE(positional_encoding_presets),
       {}, MaskRule{}, ONLY_WHOLE(positional_encoding_defaults), ONLY_WHOLE(estimate_positional_encoding)},
      {"prob", "ProbAttention (Informer)", "ProbSparse 注意力(Informer)",
       DESCRIPTION("sampled sparsity M ranks the queries; the top u attend exactly, the rest keep the mean of V "
       "(Informer / TSLib ProbAttention)"),
       ONLY_WHOLE(run_prob), ONLY_WHOLE(prob_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(MaskRule{{"none", "causal"}, "ProbAttention takes", "ProbMask", ""}), ONLY_WHOLE(prob_defaults), ONLY_WHOLE(estimate_prob)},
      {"multihead", "Multi-head attention", "多头注意力",
       DESCRIPTION("project, split into heads, attend (full or prob) per head, concatenate, W_o (d2l MultiHeadAttention, "
       "TSLib AttentionLayer)"),
       ONLY_WHOLE(run_multihead), ONLY_WHOLE(multihead_presets),
       WHOLE_VALUE({}), WHOLE_VALUE(any_mask()), ONLY_WHOLE(multihead_defaults), ONLY_WHOLE(estimate_multihead), ONLY_WHOLE(multihead_inner)},
      {"bahdanau", "Bahdanau attention (seq2seq)", "Bahdanau 注意力(序列到序列)",
       DESCRIPTION("GRU encoder-decoder whose decoder attends over the encoder's outputs with additive attention at every step, "
       "trainable on a synthetic task (d2l Seq2SeqEncoder + Seq2SeqAttentionDecoder, train_seq2seq)"),
       ONLY_WHOLE(run_bahdanau), ONLY_WHOLE(bahdanau_presets),
       {}, MaskRule{}, ONLY_WHOLE(bahdanau_defaults), ONLY_WHOLE(estimate_bahdanau)},
      {"linear", "Linear (kernel) attention", "线性(核函数)注意力",
       DESCRIPTION("sum_j sim(q_i, k_j) v_j / sum_j sim(q_i, k_j) with sim = phi(q).phi(k) (elu1, relu, cosine1) or the note's "
       "softmax_E(Q) softmax_L(K)^T V, in O(L E D) (Su Jianlin's note)"),
       ONLY_WHOLE(run_linear), ONLY_WHOLE(linear_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(kernel_masks("linear attention")), ONLY_WHOLE(linear_defaults), ONLY_WHOLE(estimate_linear)},
      {"performer", "Performer (FAVOR+)", "Performer(FAVOR+ 随机特征)",
       DESCRIPTION("linear attention with positive random features phi(x) = exp(W x~ - |x~|^2/2) / sqrt(m) estimating "
       "exp(q.k / sqrt(E)); orthogonal or iid rows, chi, sqrt_d or quantile lengths (Performer, Su Jianlin's note)"),
       ONLY_WHOLE(run_performer), ONLY_WHOLE(performer_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(kernel_masks("performer")), ONLY_WHOLE(performer_defaults), ONLY_WHOLE(estimate_performer)},
      {"linformer", "Linformer (low-rank projection)", "Linformer(低秩投影)",
       DESCRIPTION("softmax(scale * Q (E_proj K)^T) (F_proj V): keys and values projected from L_K rows to k (Linformer, "
       "Su Jianlin's note)"),
       ONLY_WHOLE(run_linformer), ONLY_WHOLE(linformer_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(no_mask("linformer", "every projected key mixes all L_K positions")), ONLY_WHOLE(linformer_defaults), ONLY_WHOLE(estimate_linformer)},
      {"lsh", "LSH attention (Reformer)", "LSH 注意力(Reformer)",
       DESCRIPTION("shared-QK attention within the buckets argmax([qR, -qR]) of each hash round, rounds combined by softmax of "
       "their logsumexp (Reformer)"),
       ONLY_WHOLE(run_lsh), ONLY_WHOLE(lsh_presets),
       WHOLE_VALUE({"q", "v"}), WHOLE_VALUE(no_mask("lsh", "the buckets decide which keys each query sees")), ONLY_WHOLE(lsh_defaults), ONLY_WHOLE(estimate_lsh)},
      {"pooling", "Pooling attention (pooled keys and values)", "池化注意力(对键和值下采样)",
       DESCRIPTION("keys and values avg- or max-pooled along L (torch avg_pool1d / max_pool1d, no padding), then full "
       "attention (Su Jianlin's note, 下采样技术)"),
       ONLY_WHOLE(run_pooling), ONLY_WHOLE(pooling_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(no_mask("pooling", "each pooled key stands for a window of kernel positions")), ONLY_WHOLE(pooling_defaults), ONLY_WHOLE(estimate_pooling)},
      {"diff", "Differential attention", "差分注意力",
       DESCRIPTION("softmax(s q1 k1^T) - lambda softmax(s q2 k2^T) over the halves of q and k, times v, RMSNorm "
       "(1 - lambda_init) (Differential Transformer, microsoft/unilm multihead_diffattn)"),
       ONLY_WHOLE(run_diff), ONLY_WHOLE(diff_presets),
       WHOLE_VALUE({"q", "k", "v"}), WHOLE_VALUE(any_mask()), ONLY_WHOLE(diff_defaults), ONLY_WHOLE(estimate_diff)},
      // ---- modern-b (issue 16): mla, decode ----
      {"mla", "Multi-head latent attention (DeepSeek MLA)", "多头潜在注意力(DeepSeek MLA)",
       DESCRIPTION("keys and values from one cached latent per token (kv_lora_rank) plus a shared rotary key, per-head "
       "up-projections; the absorbed path folds kv_b_proj into the query and output (Hugging Face DeepseekV3Attention, "
       "DeepSeek-V3 inference attn_impl \"absorb\")"),
       ONLY_WHOLE(run_mla), ONLY_WHOLE(mla_presets),
       WHOLE_VALUE({}), WHOLE_VALUE(any_mask()), ONLY_WHOLE(mla_defaults), ONLY_WHOLE(estimate_mla)},
      {"decode", "Decoding with a KV cache", "用 KV 缓存解码",
       DESCRIPTION("the prompt at once (causal), then one position at a time: its key and value appended to the cache, "
       "evicted past a window with sinks (StreamingLLM), its query over the cache; equal to full causal (or sink-masked) "
       "attention (Hugging Face DynamicCache, StreamingLLM StartRecentKVCache)"),
       ONLY_WHOLE(run_decode), ONLY_WHOLE(decode_presets),
       WHOLE_VALUE({"q", "k", "v"}),
       WHOLE_VALUE(no_mask("decode", "the cache decides which keys each step holds (cache.window, cache.sinks)")),
       ONLY_WHOLE(decode_defaults), ONLY_WHOLE(estimate_decode)},
  };
  return table;
}

const AlgorithmEntry* find_algorithm(const std::string& name) {
  for (const auto& a : algorithms())
    if (name == a.name) return &a;
  return nullptr;
}

#ifndef ATTNPLAY_FIRST_LOAD
// Seeded tensor draws' numbers (draws.hpp), linked with the whole registry: not into the first-load module.
namespace {
[[maybe_unused]] const bool draws_linked = (draw_reader = &draws, true);
}
#endif

json algorithms_json() {
  json list = json::array();
  for (const auto& a : algorithms()) {
    if (!a.run) continue;  // not in the first-load module: it lists what it runs
    json entry = {{"name", a.name}, {"title", a.title}, {"title_zh", a.title_zh}, {"description", a.description}};
#ifndef ATTNPLAY_FIRST_LOAD  // the page reads these from the catalog, written from the whole module
    entry["tensors"] = a.tensors;
    entry["masks"] = a.masks.kinds;
    entry["defaults"] = a.defaults();
    if (a.inner) entry["inner"] = a.inner();
#endif
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace attnplay
