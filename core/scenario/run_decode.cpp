// decode: q, k, v of the whole sequence (L_Q = L_K = L; k and v may have H_kv heads), `prompt` P
// (1..L, default max(L - 4, 1)), `cache` {"window", "sinks"} (default: keep everything), `rope`
// {"base", "style", "positions": [..L] or "cache"}; no mask (the cache is the mask).
#include <algorithm>
#include <cmath>
#include <limits>

#include "../decode_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

constexpr std::int64_t kMaxPosition = std::int64_t{1} << 24;

// The cache rule as a mask: causal, or sink {window >= 1, sinks <= window} (the `sink` mask's rule).
Mask read_cache(ScenarioContext& ctx) {
  Mask m;
  m.fill = -std::numeric_limits<double>::infinity();
  m.kind = MaskKind::causal;
  if (!ctx.fields.has("cache")) {
    ctx.fields.ignore({"cache"});
    return m;
  }
  if (!ctx.fields.raw("cache").is_object())
    throw InputError(ctx.fields.path_of("cache"), "expected an object {\"window\", \"sinks\"}, got " +
                                                      json_type_name(ctx.fields.raw("cache")));
  Fields c = ctx.fields.object("cache");
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  m.kind = MaskKind::sink;
  m.window = c.required_integer("window", 1, big);
  m.sinks = c.integer("sinks", 0, 0, m.window);
  c.warn_unused(ctx.warnings);
  return m;
}

struct DecodeRope {
  std::optional<Rope> rope;
  bool in_cache = false;
};

// "rope": {"base", "style", "positions": [..L] (the tokens' positions, default 0..L-1) or "cache"}.
DecodeRope read_decode_rope(ScenarioContext& ctx, std::size_t L, std::size_t E) {
  DecodeRope out;
  if (!ctx.fields.has("rope")) {
    ctx.fields.ignore({"rope"});
    return out;
  }
  const std::string at = ctx.fields.path_of("rope");
  if (!ctx.fields.raw("rope").is_object())
    throw InputError(at, "expected an object {\"base\", \"style\", \"positions\"}, got " + json_type_name(ctx.fields.raw("rope")));
  if (E % 2 != 0) throw InputError(at, "rotates pairs of entries: E of q must be even, got E = " + std::to_string(E));
  Fields r = ctx.fields.object("rope");
  for (const char* two : {"positions_q", "positions_k"})
    if (r.has(two))
      throw InputError(r.path_of(two), "decode's tokens have one position each: give \"positions\" ([..L] or \"cache\")");
  Rope rope;
  rope.base = r.number("base", rope.base);
  if (!(rope.base > 0) || !std::isfinite(rope.base))
    throw InputError(r.path_of("base"), "expected a positive number (10000 in RoFormer and Llama), got " + number_text(rope.base));
  rope.style = r.choice("style", {"half", "interleaved"}, "half") == "half" ? RopeStyle::half : RopeStyle::interleaved;
  std::vector<std::int64_t> p(L);
  for (std::size_t l = 0; l < L; ++l) p[l] = static_cast<std::int64_t>(l);
  if (r.has("positions")) {
    const json& raw = r.raw("positions");
    if (raw.is_string()) {
      if (raw.get<std::string>() != "cache")
        throw InputError(r.path_of("positions"), "expected \"cache\" or one position per token, got " + raw.dump());
      out.in_cache = true;
    } else {
      const IndexTensor t = r.index_tensor("positions", {Dim::of(L, "L of q")}, 0, kMaxPosition - 1);
      std::copy(t.begin(), t.end(), p.begin());
    }
  }
  const std::int64_t top = *std::max_element(p.begin(), p.end());
  check_size(static_cast<std::uint64_t>(top + 1) * (E / 2), at, "rope_angles (max position + 1, E/2)", "; use smaller positions");
  rope.positions_q = p;
  rope.positions_k = std::move(p);
  r.warn_unused(ctx.warnings);
  out.rope = std::move(rope);
  return out;
}

std::size_t read_prompt(ScenarioContext& ctx, std::size_t L) {
  const auto fallback = static_cast<std::int64_t>(L > 5 ? L - 4 : 1);
  return static_cast<std::size_t>(ctx.fields.integer("prompt", fallback, 1, static_cast<std::int64_t>(L)));
}

void check_square(const AttentionDims& d) {
  if (d.L_Q != d.L_K)
    throw InputError("k", "decode runs one sequence: k must have L_Q = " + std::to_string(d.L_Q) + " positions, got L_K = " +
                              std::to_string(d.L_K));
}

// The most keys a row keeps (the last row's), and the allowed pairs.
std::size_t held_at_most(const Mask& cache, std::size_t L) {
  std::vector<std::uint32_t> keys;
  allowed_keys(cache, 0, L - 1, L, keys);
  return keys.size();
}

}  // namespace

json decode_defaults() {
  return {{"prompt", "max(L - 4, 1)"}, {"cache", "keep everything"}, {"rope", {{"style", "half"}, {"base", 10000}, {"positions", "0..L-1"}}}};
}

Trace run_decode(ScenarioContext& ctx) {
  AttentionInputs in = read_attention_inputs(ctx, true);
  const auto d = attention_dims(in.q, in.v);
  check_square(d);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);  // refuses a mask: the cache is decode's
  DecodeOptions o;
  o.prompt = read_prompt(ctx, d.L_Q);
  o.cache = read_cache(ctx);
  DecodeRope r = read_decode_rope(ctx, d.L_Q, d.E);
  o.rope = std::move(r.rope);
  o.rope_in_cache = r.in_cache;
  check_pair_tensors(ctx, std::uint64_t{d.B} * d.H * d.L_Q * d.L_K, "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L, H, D)");
  ctx.begin_work();
  return decode_attention(in.q, in.k, in.v, in.scale, o, ctx.level);
}

Estimate estimate_decode(ScenarioContext& ctx) {
  std::size_t H_kv = 0;
  const auto d = read_attention_shapes(ctx, &H_kv);
  check_square(d);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const std::size_t P = read_prompt(ctx, d.L_Q), L = d.L_Q, T = L - P;
  const Mask cache = read_cache(ctx);
  const DecodeRope r = read_decode_rope(ctx, L, d.E);
  const std::uint64_t pairs = attended_pairs(cache, d.B, d.H, L, L), dense = std::uint64_t{d.B} * d.H * L * L;
  const std::size_t n_max = held_at_most(cache, L);
  Estimate e;
  e.cost = {pairs, dense, 2 * pairs * (d.E + d.D)};
  e.cost.kv_cache_numbers = std::uint64_t{d.B} * n_max * H_kv * (d.E + d.D);
  const std::uint64_t context = std::uint64_t{d.B} * L * d.H * d.D;
  e.numbers = context;
  if (ctx.level == TraceLevel::full) {
    // weights, step_weights, full_context (max_abs_diff is a number, not a tensor)
    e.numbers += dense + std::uint64_t{T} * d.B * d.H * (T ? n_max : 0) + context;
    if (r.rope && !r.in_cache) {
      const std::int64_t top = *std::max_element(r.rope->positions_q.begin(), r.rope->positions_q.end());
      e.numbers += std::uint64_t{d.B} * L * d.E * (d.H + H_kv) + static_cast<std::uint64_t>(top + 1) * (d.E / 2);
    } else if (r.rope) {
      e.numbers += std::uint64_t{L} * (d.E / 2);
    }
  }
  e.sizes["prompt"] = P;
  e.sizes["steps"] = T;
  e.sizes["cache_held_at_most"] = n_max;
  return e;
}

// A toy with GQA (2 query heads, 1 kv head), then StreamingLLM's cache (window and sinks) under RoPE.
std::vector<Preset> decode_presets() {
  const auto toy = [](unsigned seed, std::size_t L, std::size_t H, std::size_t H_kv, std::size_t E, std::size_t D) {
    Rng rng(seed, RngStream::data);
    json s = {{"algorithm", "decode"}};
    s["q"] = normal_nested(rng, {1, L, H, E});
    s["k"] = normal_nested(rng, {1, L, H_kv, E});
    s["v"] = normal_nested(rng, {1, L, H_kv, D});
    return s;
  };
  std::vector<Preset> p;
  json plain = toy(23, 8, 2, 1, 2, 2);
  plain["prompt"] = 4;
  p.push_back({"decode-toy", "Decoding with a KV cache: prefill 4, then one token a step",
               "用 KV 缓存解码:预填充 4 个,然后每步一个词元",
               "The first 4 positions are processed at once (the prefill, causal), then positions 4..7 one at a time: "
               "each appends its key and value to the cache and its query attends over the whole cache. Each step's "
               "row of weights equals row i of full causal attention (max |difference| below 1e-15), and the cache "
               "grows by one token a step. Two query heads share one kv head (MQA): the cache holds 1 x (2 + 2) "
               "numbers a token.",
               plain});
  json streaming = toy(24, 12, 1, 1, 4, 2);
  streaming["prompt"] = 4;
  streaming["cache"] = {{"window", 4}, {"sinks", 2}};
  streaming["rope"] = json::object();
  p.push_back({"decode-sinks", "StreamingLLM's cache: 2 sinks + the last 4 tokens, with RoPE",
               "StreamingLLM 的缓存:2 个汇点 + 最近 4 个词元,带 RoPE",
               "The cache keeps the first 2 tokens (the attention sinks) and the 4 most recent: from position 6 on, "
               "each step evicts one token, so the cache stays at 6 tokens however long the text. Keys are rotated at "
               "the positions the tokens had, so each step equals full attention under the sink mask {window 4, "
               "sinks 2}.",
               streaming});
  return p;
}

}  // namespace attnplay
