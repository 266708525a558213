// mla: x (B, L, d_model); num_heads, q_lora_rank (null: q_proj), kv_lora_rank, qk_nope_head_dim,
// qk_rope_head_dim (even), v_head_dim; weights by DeepseekV3Attention.state_dict() names or seeded;
// scale (default (qk_nope_head_dim + qk_rope_head_dim)^-0.5); mask as full, default causal.
#include <array>
#include <cmath>

#include "../mla_attention.hpp"
#include "../nn_linear.hpp"
#include "readers.hpp"


namespace attnplay {

namespace {

constexpr double kRopeBase = 10000.0, kRmsEps = 1e-6;

struct MlaShapes {
  std::size_t B, L, d_model;
  MlaConfig config;
};

std::size_t size_field(Fields& f, const std::string& key, std::int64_t min) {
  return static_cast<std::size_t>(f.required_integer(key, min, static_cast<std::int64_t>(kMaxDimension)));
}

// The sizes, checked; x's shape is read by the caller (tensor or shape alone).
MlaConfig read_config(Fields& f) {
  MlaConfig c;
  c.num_heads = size_field(f, "num_heads", 1);
  if (f.has("q_lora_rank") && !f.raw("q_lora_rank").is_null()) c.q_lora_rank = size_field(f, "q_lora_rank", 1);
  f.ignore({"q_lora_rank"});
  c.kv_lora_rank = size_field(f, "kv_lora_rank", 1);
  c.qk_nope_head_dim = size_field(f, "qk_nope_head_dim", 0);
  c.qk_rope_head_dim = size_field(f, "qk_rope_head_dim", 2);
  if (c.qk_rope_head_dim % 2 != 0)
    throw InputError("qk_rope_head_dim", "expected an even number (RoPE turns pairs of entries), got " +
                                             std::to_string(c.qk_rope_head_dim));
  c.v_head_dim = size_field(f, "v_head_dim", 1);
  c.scale = f.number("scale", 1.0 / std::sqrt(static_cast<double>(c.qk_nope_head_dim + c.qk_rope_head_dim)));
  c.rope_base = kRopeBase;
  c.eps = kRmsEps;
  return c;
}

// The numbers of each weight, in state_dict order: {name, rows, columns (0: a vector)}.
struct WeightShape {
  const char* name;
  std::size_t rows, cols;
  const char* rows_label;
  const char* cols_label;
};
std::vector<WeightShape> weight_shapes(std::size_t d_model, const MlaConfig& c) {
  const std::size_t H = c.num_heads, qk = c.qk_nope_head_dim + c.qk_rope_head_dim;
  std::vector<WeightShape> w;
  if (c.q_lora_rank) {
    w.push_back({"q_a_proj.weight", *c.q_lora_rank, d_model, "q_lora_rank", "d_model of x"});
    w.push_back({"q_a_layernorm.weight", *c.q_lora_rank, 0, "q_lora_rank", ""});
    w.push_back({"q_b_proj.weight", H * qk, *c.q_lora_rank, "num_heads (qk_nope_head_dim + qk_rope_head_dim)", "q_lora_rank"});
  } else {
    w.push_back({"q_proj.weight", H * qk, d_model, "num_heads (qk_nope_head_dim + qk_rope_head_dim)", "d_model of x"});
  }
  w.push_back({"kv_a_proj_with_mqa.weight", c.kv_lora_rank + c.qk_rope_head_dim, d_model,
               "kv_lora_rank + qk_rope_head_dim", "d_model of x"});
  w.push_back({"kv_a_layernorm.weight", c.kv_lora_rank, 0, "kv_lora_rank", ""});
  w.push_back({"kv_b_proj.weight", H * (c.qk_nope_head_dim + c.v_head_dim), c.kv_lora_rank,
               "num_heads (qk_nope_head_dim + v_head_dim)", "kv_lora_rank"});
  w.push_back({"o_proj.weight", d_model, H * c.v_head_dim, "d_model of x", "num_heads v_head_dim"});
  return w;
}

std::vector<Dim> weight_dims(const WeightShape& s) {
  if (s.cols == 0) return {Dim::of(s.rows, s.rows_label)};
  return {Dim::of(s.rows, s.rows_label), Dim::of(s.cols, s.cols_label)};
}

// The tensors a run makes, each within the tensor limit (the field that makes it large named).
void check_mla_sizes(const ScenarioContext& ctx, std::size_t B, std::size_t L, const MlaConfig& c) {
  const std::uint64_t tokens = std::uint64_t{B} * L, H = c.num_heads;
  check_size(tokens * H * (c.qk_nope_head_dim + c.qk_rope_head_dim), "num_heads", "the queries (B, L, H, qk_nope_head_dim + qk_rope_head_dim)");
  if (ctx.level == TraceLevel::full)
    check_size(tokens * H * (c.qk_nope_head_dim + c.v_head_dim), "num_heads", "the textbook path's keys and values (B, L, H, qk_nope_head_dim + v_head_dim)");
  check_size(tokens * (c.kv_lora_rank + c.qk_rope_head_dim), "kv_lora_rank", "the compressed kv (B, L, kv_lora_rank + qk_rope_head_dim)");
  check_pair_tensors(ctx, tokens * H * L, "x");
}

Mask read_mla_mask(ScenarioContext& ctx, std::size_t B, std::size_t L) {
  if (ctx.fields.has("mask")) return read_mask(ctx, B, L, L, ctx.entry->masks);
  Mask causal;  // DeepseekV3Attention.is_causal
  causal.kind = MaskKind::causal;
  return causal;
}

// The weights given, checked against the sizes; a weight of the other q path is refused by name.
MlaWeights read_weights(Fields& f, std::size_t d_model, const MlaConfig& c) {
  Fields w = f.object("weights");
  const char* other = c.q_lora_rank ? "q_proj.weight" : "q_a_proj.weight";
  if (w.has(other))
    throw InputError(w.path_of(other), c.q_lora_rank ? "given, but q_lora_rank is set (q_a_proj, q_a_layernorm, q_b_proj expected)"
                                                     : "given, but q_lora_rank is null (q_proj expected)");
  MlaWeights m;
  for (const WeightShape& s : weight_shapes(d_model, c)) {
    Tensor t = w.tensor(s.name, weight_dims(s));
    const std::string name = s.name;
    if (name == "q_a_proj.weight") m.q_a_proj = std::move(t);
    else if (name == "q_a_layernorm.weight") m.q_a_layernorm = std::move(t);
    else if (name == "q_b_proj.weight") m.q_b_proj = std::move(t);
    else if (name == "q_proj.weight") m.q_proj = std::move(t);
    else if (name == "kv_a_proj_with_mqa.weight") m.kv_a_proj_with_mqa = std::move(t);
    else if (name == "kv_a_layernorm.weight") m.kv_a_layernorm = std::move(t);
    else if (name == "kv_b_proj.weight") m.kv_b_proj = std::move(t);
    else m.o_proj = std::move(t);
  }
  return m;
}

}  // namespace

json mla_defaults() {
  return {{"q_lora_rank", nullptr}, {"scale", "(qk_nope_head_dim + qk_rope_head_dim)^-0.5"}, {"mask", "causal"},
          {"rope", {{"style", "half"}, {"base", kRopeBase}}}, {"rms_norm_eps", kRmsEps}};
}

Estimate estimate_mla(ScenarioContext& ctx) {
  const Shape xs = ctx.shape("x", {Dim::any("B"), Dim::any("L"), Dim::any("d_model")});
  const std::uint64_t B = xs[0], L = xs[1], d_model = xs[2];
  const MlaConfig c = read_config(ctx.fields);
  const Mask mask = read_mla_mask(ctx, B, L);
  const bool given = ctx.fields.has("weights");
  std::uint64_t weight_numbers = 0;
  if (given) {
    Fields w = ctx.fields.object("weights");
    for (const WeightShape& s : weight_shapes(d_model, c)) {
      w.shape(s.name, weight_dims(s), ctx.shapes_only);
      weight_numbers += s.rows * (s.cols ? s.cols : 1);
    }
  } else {
    for (const WeightShape& s : weight_shapes(d_model, c)) weight_numbers += s.rows * (s.cols ? s.cols : 1);
  }
  const std::uint64_t H = c.num_heads, n = c.qk_nope_head_dim, r = c.qk_rope_head_dim, C = c.kv_lora_rank, dv = c.v_head_dim;
  const std::uint64_t pairs = attended_pairs(mask, B, H, L, L), dense = B * H * L * L, tokens = B * L;
  const std::uint64_t per_token = (c.q_lora_rank ? *c.q_lora_rank * (d_model + H * (n + r)) : d_model * H * (n + r)) +
                                  d_model * (C + r) + H * n * C + H * dv * C + H * dv * d_model;
  Estimate e;
  e.cost = {pairs, dense, 2 * pairs * (2 * C + r) + 2 * tokens * per_token};
  e.cost.kv_cache_numbers = mla_cache_numbers(B, L, c);
  e.sizes["mha_kv_cache_numbers"] = mla_mha_cache_numbers(B, L, c);
  e.numbers = tokens * d_model;  // output
  if (ctx.level == TraceLevel::full)  // latent, k_rope, q, k, v, weights, head_context, output_absorbed, the seeded state_dict
    e.numbers += tokens * (C + r) + 2 * tokens * H * (n + r) + tokens * H * dv + dense + tokens * H * dv + tokens * d_model +
                 (given ? 0 : weight_numbers);
  e.sizes["qk_head_dim"] = n + r;
  return e;
}

Trace run_mla(ScenarioContext& ctx) {
  const Tensor x = ctx.tensor("x", {Dim::any("B"), Dim::any("L"), Dim::any("d_model")});
  const std::size_t B = x.shape()[0], L = x.shape()[1], d_model = x.shape()[2];
  const MlaConfig c = read_config(ctx.fields);
  const Mask mask = read_mla_mask(ctx, B, L);
  check_mla_sizes(ctx, B, L, c);
  const bool given = ctx.fields.has("weights");
  if (!given)  // given weights were checked as inputs
    for (const WeightShape& s : weight_shapes(d_model, c))
      check_size(std::uint64_t{s.rows} * (s.cols ? s.cols : 1), "num_heads", std::string("the seeded weight ") + s.name);
  MlaWeights w;
  if (given) w = read_weights(ctx.fields, d_model, c);
  ctx.begin_work();  // every field read and checked: the budget, then the seeded weights
  if (!given) w = seeded_mla_weights(ctx.seed, d_model, c);
  Trace trace = mla_attention(x, w, c, mask, ctx.level);
  if (!given && ctx.level == TraceLevel::full) {  // the drawn weights, for copy as PyTorch
    const auto put = [&trace](const char* name, const std::optional<Tensor>& t) {
      if (t) trace.set(std::string("state_dict/") + name, *t);
    };
    put("q_a_proj.weight", w.q_a_proj);
    put("q_a_layernorm.weight", w.q_a_layernorm);
    put("q_b_proj.weight", w.q_b_proj);
    put("q_proj.weight", w.q_proj);
    put("kv_a_proj_with_mqa.weight", w.kv_a_proj_with_mqa);
    put("kv_a_layernorm.weight", w.kv_a_layernorm);
    put("kv_b_proj.weight", w.kv_b_proj);
    put("o_proj.weight", w.o_proj);
  }
  return trace;
}

// The toy (q_proj, 2 heads) and DeepSeek-V2's layout at toy sizes (q_lora_rank). Real sizes (DeepSeek-V2:
// 128 heads, kv_lora_rank 512, rope 64) are the page's size-only table (views/mla.ts): their weights
// alone pass the tensor limit.
std::vector<Preset> mla_presets() {
  // a seeded x (1, L, d_model) and the sizes {num_heads, q_lora_rank (0: null), kv_lora_rank, n, r, v}
  const auto toy = [](std::uint64_t seed, std::size_t L, std::size_t d_model, const std::array<int, 6>& sizes) {
    Rng rng(seed, RngStream::data);
    json s = {{"algorithm", "mla"}, {"num_heads", sizes[0]}, {"q_lora_rank", sizes[1] ? json(sizes[1]) : json(nullptr)},
              {"kv_lora_rank", sizes[2]}, {"qk_nope_head_dim", sizes[3]}, {"qk_rope_head_dim", sizes[4]}, {"v_head_dim", sizes[5]}};
    s["x"] = normal_nested(rng, {1, L, d_model});
    return s;
  };
  std::vector<Preset> p;
  p.push_back({"mla-toy", "MLA toy: 2 heads share a latent of 4 + a rope key of 2",
               "MLA 示例:2 个头共享 4 维潜向量和 2 维旋转键",
               "DeepseekV3Attention at toy sizes: d_model = 8, 2 heads, kv_lora_rank = 4, qk_nope_head_dim = 2, "
               "qk_rope_head_dim = 2, v_head_dim = 2, q_proj directly (q_lora_rank null), causal. Each token "
               "caches 4 + 2 = 6 numbers (the latent and the rotated rope key) where multi-head attention "
               "would cache 2 x (2 + 2 + 2) = 12 (every head's key and value); the absorbed path computes the same "
               "output from the latent alone.",
               toy(21, 5, 8, {2, 0, 4, 2, 2, 2})});
  p.push_back({"mla-q-lora", "MLA with a low-rank query (q_lora_rank 6), 4 heads, L = 8",
               "MLA 带低秩查询(q_lora_rank 6),4 个头,L = 8",
               "DeepSeek-V2's full layout at toy sizes: q = q_b_proj(RMSNorm(q_a_proj x)) with q_lora_rank = 6; "
               "kv_lora_rank = 4, qk_nope_head_dim = 4, qk_rope_head_dim = 4, v_head_dim = 4, 4 heads, causal. "
               "A token caches 4 + 4 = 8 numbers against 4 x (4 + 4 + 4) = 48 for multi-head attention.",
               toy(22, 8, 16, {4, 6, 4, 4, 4, 4})});
  return p;
}

}  // namespace attnplay
