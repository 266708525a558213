// linformer: q, k, v, scale, and either E_proj and F_proj (k, L_K) or proj_len k (the projections
// drawn from seed); no mask.
#include <algorithm>

#include "../linformer_attention.hpp"
#include "readers.hpp"

namespace attnplay {

Trace run_linformer(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  Fields& f = ctx.fields;
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  const std::int64_t proj_len = f.has("proj_len") ? f.required_integer("proj_len", 1, big) : 0;  // 0: not given
  const bool given = f.has("E_proj") || f.has("F_proj");
  std::string size_field = "proj_len";  // the field that sets k
  LinformerProjections p;
  if (given) {
    for (const char* name : {"E_proj", "F_proj"})
      if (!f.has(name))
        throw InputError(name, "required with " + std::string(name[0] == 'E' ? "F_proj" : "E_proj") +
                                   " (give both projections, or neither and proj_len to draw them from seed)");
    const Dim rows = proj_len ? Dim::of(static_cast<std::size_t>(proj_len), "proj_len") : Dim::any("proj_len k");
    p.E_proj = ctx.tensor("E_proj", {rows, Dim::of(d.L_K, "L_K of k")});
    p.F_proj = ctx.tensor("F_proj", {Dim::of(p.E_proj.shape()[0], "rows of E_proj"), Dim::of(d.L_K, "L_K of k")});
    if (!proj_len) size_field = "E_proj";
  } else {
    if (!proj_len) throw InputError("proj_len", "required (the projected length k), or give E_proj and F_proj (k, L_K)");
    check_size(static_cast<std::uint64_t>(proj_len) * d.L_K, "proj_len", "E_proj and F_proj (k, L_K)");
  }
  const std::uint64_t k = given ? p.E_proj.shape()[0] : static_cast<std::uint64_t>(proj_len);
  check_size(std::uint64_t{d.B} * k * d.H * std::max(d.E, d.D), size_field,
             "the projected keys and values (B, k, H, E or D)");
  if (ctx.level == TraceLevel::full)
    check_size(std::uint64_t{d.B} * d.H * d.L_Q * k, size_field, "the (B, H, L_Q, k) scores and weights",
               "; use \"trace\": \"context\"");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  ctx.begin_work();
  if (!given) p = linformer_projections(ctx.seed, static_cast<std::size_t>(proj_len), d.L_K);
  return linformer_attention(in.q, in.k, in.v, in.scale, p, ctx.level);
}

json linformer_defaults() { return json::object(); }  // proj_len or E_proj and F_proj are required

Estimate estimate_linformer(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const auto d = read_attention_shapes(ctx);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const std::uint64_t k = f.has("E_proj") ? ctx.shape("E_proj", {Dim::any("proj_len k"), Dim::of(d.L_K, "L_K of k")})[0]
                                          : static_cast<std::uint64_t>(f.required_integer("proj_len", 1, static_cast<std::int64_t>(kMaxDimension)));
  const std::uint64_t BH = std::uint64_t{d.B} * d.H, pairs = BH * d.L_Q * k, mixed = BH * k * d.L_K;
  Estimate e;
  e.cost = {pairs + mixed, BH * d.L_Q * d.L_K, 2 * (mixed + pairs) * (d.E + d.D)};
  e.numbers = context_numbers(d);
  if (ctx.level == TraceLevel::full)  // E_proj, F_proj; projected k and v; scores and weights
    e.numbers += 2 * k * d.L_K + std::uint64_t{d.B} * k * d.H * (d.E + d.D) + 2 * pairs;
  add_exact_estimate(e, d, Mask{}, ctx.level);
  e.sizes["proj_len"] = k;
  return e;
}

namespace {

json linformer_demo(std::size_t L) {
  Rng rng(11, RngStream::data);
  json s = {{"algorithm", "linformer"}};
  s["q"] = normal_nested(rng, {1, L, 1, 4});
  s["k"] = normal_nested(rng, {1, L, 1, 4});
  s["v"] = normal_nested(rng, {1, L, 1, 4});
  return s;
}

}  // namespace

// The note's LinFormer: E, F (k x n) project K and V, so Q (E K)^T is n x k.
std::vector<Preset> linformer_presets() {
  std::vector<Preset> p;
  {
    json s = linformer_demo(16);
    s["proj_len"] = 4;
    p.push_back({"linformer-k4", "Linformer: 16 keys projected to k = 4", "Linformer:16 个键投影为 k = 4 个",
                 "The note's LinFormer: E and F (k x n) shorten the keys and values before attention, so Q (E K)^T "
                 "is 16 x 4 instead of 16 x 16: 64 scores, plus the 4 x 16 mixing of the keys, 128 of 256 dot products "
                 "(50%; at L = 4096, k = 256: 12.5%). E_proj and F_proj are drawn as the "
                 "Linformer code initialises them (seed 0), untrained: every projected key mixes all 16 positions, "
                 "and the context is far from exact attention (max |error| 0.98, for values of size about 1). "
                 "Raising k does not help a random projection (k = 16: still 0.98); only a learned one, or the "
                 "identity (preset linformer-identity), recovers exact attention", s});
  }
  {
    json s = linformer_demo(8);
    json identity = json::array();
    for (std::size_t r = 0; r < 8; ++r) {
      json row = json::array();
      for (std::size_t j = 0; j < 8; ++j) row.push_back(r == j ? 1 : 0);
      identity.push_back(row);
    }
    s["E_proj"] = identity;
    s["F_proj"] = identity;
    p.push_back({"linformer-identity", "Linformer with E = F = identity: full attention",
                 "E = F = 单位矩阵的 Linformer:即完整注意力", "With k = L_K = 8 and E_proj = F_proj = the identity, the projected keys and values are k and v "
                 "themselves: the context equals full attention (max |error| 0). The projections cost as much again "
                 "(128 dot products against full attention's 64, flops 2048 against 1024): Linformer saves only "
                 "when k is much smaller than L", s});
  }
  return p;
}

}  // namespace attnplay
