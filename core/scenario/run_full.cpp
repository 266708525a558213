#include <algorithm>
#include <cmath>

#include "../alibi.hpp"
#include "../full_attention.hpp"
#include "readers.hpp"

namespace attnplay {

// ---- today's models' forms (SPEC §2 "Modern attention"), shared by full and flash ----

namespace {

constexpr double kMaxSlope = 1e100;  // |slope| |i - j| stays finite for every L
constexpr std::int64_t kMaxPosition = std::int64_t{1} << 24;

std::vector<std::int64_t> read_positions(Fields& r, const char* key, std::size_t L, const char* label) {
  std::vector<std::int64_t> p(L);
  if (!r.has(key)) {
    r.ignore({key});
    for (std::size_t l = 0; l < L; ++l) p[l] = static_cast<std::int64_t>(l);
    return p;
  }
  const IndexTensor t = r.index_tensor(key, {Dim::of(L, label)}, 0, kMaxPosition - 1);
  std::copy(t.begin(), t.end(), p.begin());
  return p;
}

}  // namespace

std::optional<Rope> read_rope(ScenarioContext& ctx, std::size_t L_Q, std::size_t L_K, std::size_t E) {
  if (!ctx.fields.has("rope")) {
    ctx.fields.ignore({"rope"});
    return std::nullopt;
  }
  const std::string at = ctx.fields.path_of("rope");
  if (!ctx.fields.raw("rope").is_object())
    throw InputError(at, "expected an object {\"base\", \"style\", \"positions_q\", \"positions_k\"}, got " +
                             json_type_name(ctx.fields.raw("rope")));
  if (E % 2 != 0)
    throw InputError(at, "rotates pairs of entries: E of q must be even, got E = " + std::to_string(E));
  Fields r = ctx.fields.object("rope");
  Rope rope;
  rope.base = r.number("base", rope.base);
  if (!(rope.base > 0) || !std::isfinite(rope.base))
    throw InputError(r.path_of("base"), "expected a positive number (10000 in RoFormer and Llama), got " + number_text(rope.base));
  rope.style = r.choice("style", {"half", "interleaved"}, "half") == "half" ? RopeStyle::half : RopeStyle::interleaved;
  rope.positions_q = read_positions(r, "positions_q", L_Q, "L_Q of q");
  rope.positions_k = read_positions(r, "positions_k", L_K, "L_K of k");
  std::int64_t top = 0;
  for (const auto m : rope.positions_q) top = std::max(top, m);
  for (const auto n : rope.positions_k) top = std::max(top, n);
  check_size(static_cast<std::uint64_t>(top + 1) * (E / 2), at, "rope_angles (max position + 1, E/2)",
             "; use smaller positions");
  r.warn_unused(ctx.warnings);
  return rope;
}

std::vector<double> read_alibi(ScenarioContext& ctx, std::size_t H) {
  if (!ctx.fields.has("alibi")) {
    ctx.fields.ignore({"alibi"});
    return {};
  }
  const json& a = ctx.fields.raw("alibi");
  const std::string at = ctx.fields.path_of("alibi");
  if (a.is_boolean()) return a.get<bool>() ? alibi_slopes(H) : std::vector<double>{};
  if (!a.is_object())
    throw InputError(at, "expected true, false or {\"slopes\": [one per head]}, got " + json_type_name(a));
  Fields f = ctx.fields.object("alibi");
  if (!f.has("slopes")) {
    f.warn_unused(ctx.warnings);
    return alibi_slopes(H);
  }
  const Tensor s = f.tensor("slopes", {Dim::of(H, "H of q")});
  for (std::size_t h = 0; h < H; ++h)
    if (std::fabs(s(h)) > kMaxSlope)
      throw InputError(f.path_of("slopes") + "[" + std::to_string(h) + "]",
                       "expected a slope within +-1e100 (the paper's are 2^-1 .. 2^-8), got " + number_text(s(h)));
  f.warn_unused(ctx.warnings);
  return std::vector<double>(s.begin(), s.end());
}

ModernForms read_modern_forms(ScenarioContext& ctx, const AttentionDims& d) {
  ModernForms m;
#ifdef ATTNPLAY_FIRST_LOAD
  // The page's first-load module leaves RoPE and ALiBi out (their sin, cos and pow are a fifth of
  // its size); the page runs such scenarios on the whole module (engine/compute.ts needsWhole).
  for (const char* form : {"rope", "alibi"})
    if (ctx.fields.has(form)) throw InputError(ctx.fields.path_of(form), "needs the whole module (still loading)");
#else
  m.rope = read_rope(ctx, d.L_Q, d.L_K, d.E);
  m.alibi_slopes = read_alibi(ctx, d.H);
#endif
  return m;
}

Tensor apply_modern_forms(AttentionInputs& in, const ModernForms& m) {
#ifdef ATTNPLAY_FIRST_LOAD
  (void)in, (void)m;
  return Tensor();
#else
  return m.rope ? apply_rope(in.q, in.k, *m.rope) : Tensor();
#endif
}

void add_modern_trace(Trace& trace, AttentionInputs&& in, const ModernForms& m, Tensor&& angles, TraceLevel level) {
  add_kv_and_bias_trace(trace, in.q, in.k, in.v, m.alibi_slopes, level);
#ifndef ATTNPLAY_FIRST_LOAD  // (no RoPE there: its cos, sin and pow stay out of the first-load module)
  if (m.rope && level == TraceLevel::full)  // RoFormer §3.4.3's decay of the bound (rope.hpp)
    trace.set("rope_decay", rope_decay_bound(in.q.shape()[3], m.rope->base, kRopeDecayDistances));
#endif
  if (m.rope) add_rope_trace(trace, std::move(in.q), std::move(in.k), std::move(angles));
}

[[maybe_unused]] static bool evicts_sinks(const Mask& mask) { return mask.kind == MaskKind::sink && mask.sinks > 0; }

// StreamingLLM's finding on the learner's tensors: the weight each query puts on the sinks
// (sink_mass (B, H, L_Q) = sum_{j < sinks} weights[b, h, i, j]) and the context when the sinks are
// evicted, the window alone (evicted_context (B, L_Q, H, D): full attention, float64, under the
// same mask with sinks 0, i.e. Mistral's sliding window). For the picture: its products are not
// counted in the cost.
[[maybe_unused]] static void add_sink_eviction(Trace& trace, const AttentionInputs& in, const Mask& mask, const std::vector<double>& alibi_slopes) {
  const Tensor& w = trace.tensor("weights");
  const std::size_t B = w.shape()[0], H = w.shape()[1], L_Q = w.shape()[2], L_K = w.shape()[3];
  const std::size_t s = std::min<std::size_t>(static_cast<std::size_t>(mask.sinks), L_K);
  Tensor mass = Tensor::from_shape({B, H, L_Q});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i) {
        double m = 0;
        for (std::size_t j = 0; j < s; ++j) m += w(b, h, i, j);
        mass(b, h, i) = m;
      }
  Mask window;  // the same rule with sinks 0 (a sink mask has no tensors of its own to copy)
  window.kind = MaskKind::sink;
  window.window = mask.window;
  window.fill = mask.fill;
  Trace evicted = full_attention(in.q, in.k, in.v, in.scale, window, TraceLevel::context, Dtype::float64, alibi_slopes);
  trace.set("sink_mass", std::move(mass));
  for (auto& [name, value] : evicted.fields)
    if (name == "context") trace.set("evicted_context", std::move(value));
}

void add_modern_estimate(Estimate& e, const AttentionDims& d, std::size_t H_kv, const ModernForms& m, TraceLevel level) {
  e.cost.kv_cache_numbers = std::uint64_t{d.B} * d.L_K * H_kv * (d.E + d.D);
  if (m.rope) {
    std::int64_t top = 0;
    for (const auto p : m.rope->positions_q) top = std::max(top, p);
    for (const auto p : m.rope->positions_k) top = std::max(top, p);
    e.numbers += std::uint64_t{d.B} * d.E * (d.L_Q * d.H + d.L_K * H_kv) + static_cast<std::uint64_t>(top + 1) * (d.E / 2);
    if (level == TraceLevel::full) e.numbers += kRopeDecayDistances;  // rope_decay
  }
  if (level == TraceLevel::full && !m.alibi_slopes.empty()) e.numbers += std::uint64_t{d.H} * d.L_Q * d.L_K;
}

Trace run_full(ScenarioContext& ctx) {
  AttentionInputs in = read_attention_inputs(ctx, true);
  const auto d = attention_dims(in.q, in.v);
  check_pair_tensors(ctx, std::uint64_t{d.B} * d.H * d.L_Q * d.L_K, "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const ModernForms forms = read_modern_forms(ctx, d);
  ctx.begin_work();
  Tensor angles = apply_modern_forms(in, forms);  // RoPE: q and k rotated in place
  ctx.dtype_honoured = true;  // the context in float32 when asked (the pictures stay float64)
  Trace trace = full_attention(in.q, in.k, in.v, in.scale, mask, ctx.level, ctx.dtype, forms.alibi_slopes);
#ifndef ATTNPLAY_FIRST_LOAD  // a picture the first-load module leaves out (its size: docs/semantics.md)
  if (ctx.level == TraceLevel::full && evicts_sinks(mask)) add_sink_eviction(trace, in, mask, forms.alibi_slopes);
#endif
  add_modern_trace(trace, std::move(in), forms, std::move(angles), ctx.level);
  return trace;
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
  std::size_t H_kv = 0;
  const auto d = read_attention_shapes(ctx, &H_kv);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  Estimate e = softmax_estimate(d, mask, ctx.level);
  add_modern_estimate(e, d, H_kv, read_modern_forms(ctx, d), ctx.level);
#ifndef ATTNPLAY_FIRST_LOAD
  if (ctx.level == TraceLevel::full && evicts_sinks(mask))  // sink_mass, evicted_context
    e.numbers += std::uint64_t{d.B} * d.H * d.L_Q + context_numbers(d);
#endif
  return e;
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
  // ---- today's models' forms (issue 16, modern-a): GQA/MQA, RoPE, ALiBi, sinks ----
  const auto toy = [](unsigned seed, std::size_t H, std::size_t H_kv, std::size_t L, std::size_t E) {
    Rng rng(seed, RngStream::data);
    json s = {{"algorithm", "full"}};
    s["q"] = normal_nested(rng, {1, L, H, E});
    s["k"] = normal_nested(rng, {1, L, H_kv, E});
    s["v"] = normal_nested(rng, {1, L, H_kv, 2});
    s["mask"] = {{"kind", "causal"}};
    return s;
  };
  p.push_back({"gqa-toy", "Grouped-query attention: 4 query heads share 2 kv heads",
               "分组查询注意力:4 个查询头共享 2 个键值头",
               "Llama 2 70B's grouping at toy scale: query heads 0 and 1 read kv head 0, heads 2 and 3 kv head 1 "
               "(kv_head = h // (H / H_kv)). The kernel reads the group's one copy by index: the KV cache holds "
               "2 heads of keys and values instead of 4, half of multi-head attention's, while every query head "
               "keeps its own weights.",
               toy(16, 4, 2, 6, 4)});
  p.push_back({"mqa-toy", "Multi-query attention: 4 query heads, 1 kv head", "多查询注意力:4 个查询头,1 个键值头",
               "Shazeer's multi-query attention (PaLM, Falcon): every query head reads the same keys and values, "
               "so the KV cache is a quarter of multi-head attention's here (1 / H in general). The heads still "
               "attend differently: their queries differ.",
               toy(17, 4, 1, 6, 4)});
  json rope = toy(18, 1, 1, 6, 4);
  rope["rope"] = json::object();
  p.push_back({"rope-toy", "RoPE: q and k rotated by their positions", "RoPE:按位置旋转 q 和 k",
               "Rotary position embedding as Llama applies it (style \"half\", base 10000): each pair of entries "
               "of the query at position m turns by m theta_p, theta_p = 10000^(-2p/E), and each key at n by n "
               "theta_p. The score of q_m and k_n then depends on m - n only, and no position vector is added.",
               rope});
  json shifted = rope;
  shifted["rope"] = {{"positions_q", {100, 101, 102, 103, 104, 105}}, {"positions_k", {100, 101, 102, 103, 104, 105}}};
  p.push_back({"rope-shift", "RoPE: every position + 100, the same scores", "RoPE:所有位置 + 100,分数不变",
               "rope-toy's tensors at positions 100..105 instead of 0..5: q_rotated and k_rotated are different "
               "vectors, yet every score and weight equals rope-toy's to 1e-12, because the rotations of q and k "
               "cancel up to their difference (m - n) theta.",
               shifted});
  json alibi = toy(19, 4, 4, 8, 2);
  alibi["alibi"] = true;
  p.push_back({"alibi-toy", "ALiBi: linear distance penalties, slopes 1/4 .. 1/256",
               "ALiBi:按距离线性惩罚,斜率 1/4 .. 1/256",
               "Press et al.'s ALiBi with 4 heads: head h adds -slope_h |i - j| to its scores, slopes 2^-2, 2^-4, "
               "2^-6, 2^-8 (get_slopes). Head 0 looks mostly nearby, head 3 almost ignores distance; with no "
               "position embedding at all, the model still knows how far each key is.",
               alibi});
  json sink = toy(20, 1, 1, 10, 2);
  sink["mask"] = {{"kind", "sink"}, {"window", 3}, {"sinks", 2}};
  p.push_back({"sink-window", "Sliding window of 3 with 2 attention sinks", "窗口 3 的滑动窗口加 2 个注意力汇点",
               "StreamingLLM's cache as a mask: each query sees the last 3 keys (Mistral's sliding window) and "
               "always the first 2 tokens, the sinks. Without the sinks (sinks 0) the weight that softmax pours "
               "onto the first tokens has nowhere to go once they leave the window.",
               sink});
  // ---- issue 16 (modern-c): ALiBi past the trained length ----
  json extrapolate = toy(23, 4, 4, 24, 2);
  extrapolate["alibi"] = true;
  p.push_back({"alibi-extrapolate", "ALiBi past the trained length: trained on 8, run on 24",
               "ALiBi 超出训练长度:训练长度 8,运行长度 24",
               "Press et al. train ALiBi on short inputs and run it on longer ones: the bias -slope_h |i - j| is a "
               "rule, not a learned table, so it has a value at every distance. Here 4 heads (slopes 2^-2 .. 2^-8), "
               "causal, L = 24, three times a trained length of 8: the last query's bias keeps falling on the same "
               "line past distance 8 (head 0 reaches -5.75 at distance 23), and every row of weights is still a "
               "softmax that sums to 1, with the far keys of the steep heads near 0.",
               extrapolate});
  return p;
}

}  // namespace attnplay
