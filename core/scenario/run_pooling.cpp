// pooling: q, k, v, scale, pool ("avg" | "max", default "avg"), kernel (1..L_K), stride (default
// kernel, as torch); no mask. Also read_no_mask, shared by linformer and lsh.
#include <cmath>

#include "../pooling_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

// pool, kernel (1..L_K) and stride (default: the kernel, as torch).
PoolingOptions read_pooling_options(ScenarioContext& ctx, const AttentionDims& d) {
  Fields& f = ctx.fields;
  PoolingOptions o;
  o.pool = f.choice("pool", {"avg", "max"}, pooling_defaults()["pool"]) == "avg" ? PoolKind::avg : PoolKind::max;
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  const std::int64_t kernel = f.required_integer("kernel", 1, big);
  if (kernel > static_cast<std::int64_t>(d.L_K))
    throw InputError("kernel", "expected at most L_K = " + std::to_string(d.L_K) +
                                   " (no padding, as torch's avg_pool1d / max_pool1d), got " + std::to_string(kernel));
  o.kernel = static_cast<std::size_t>(kernel);
  o.stride = static_cast<std::size_t>(f.integer("stride", kernel, 1, big));
  return o;
}

}  // namespace

json pooling_defaults() { return {{"pool", "avg"}, {"stride", "kernel"}}; }

Estimate estimate_pooling(ScenarioContext& ctx) {
  const auto d = read_attention_shapes(ctx);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const PoolingOptions o = read_pooling_options(ctx, d);
  const std::size_t L_out = pooled_length(d.L_K, o.kernel, o.stride);
  // full attention against the pooled keys, then pooling_attention's own
  Estimate e = softmax_estimate({d.B, d.L_Q, L_out, d.H, d.E, d.D}, Mask{}, ctx.level);
  e.cost.dense_dot_products = std::uint64_t{d.B} * d.H * d.L_Q * d.L_K;
  e.cost.flops += std::uint64_t{d.B} * L_out * d.H * (d.E + d.D) * (o.kernel - 1);
  if (ctx.level == TraceLevel::full) e.numbers += std::uint64_t{d.B} * L_out * d.H * (d.E + d.D);  // pooled k, v
  add_exact_estimate(e, d, Mask{}, ctx.level);
  e.sizes["pooled_length"] = L_out;
  return e;
}

Trace run_pooling(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const PoolingOptions o = read_pooling_options(ctx, d);
  const std::uint64_t L_out = pooled_length(d.L_K, o.kernel, o.stride);
  if (ctx.level == TraceLevel::full)
    check_size(std::uint64_t{d.B} * d.H * d.L_Q * L_out, "k", "the (B, H, L_Q, L') scores and weights",
               "; use \"trace\": \"context\"");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context (B, L_Q, H, D)");
  ctx.begin_work();
  return pooling_attention(in.q, in.k, in.v, in.scale, o, ctx.level);
}

namespace {

// A smooth sequence (neighbours alike, where pooling loses little): k[j] and v[j] are sines and
// cosines of the position plus noise 0.1; q standard normal. Rounded to 3 decimals.
json pooling_demo(const char* pool) {
  Rng rng(7, RngStream::data);
  auto smooth = [&rng](double f1, double f2) {
    json x = json::array();
    for (std::size_t j = 0; j < 16; ++j) {
      const double t = static_cast<double>(j);
      json row = json::array();
      for (double value : {2 * std::sin(f1 * t), 2 * std::cos(f1 * t), std::sin(f2 * t), std::cos(f2 * t)})
        row.push_back(std::round((value + 0.1 * rng.normal()) * 1000.0) / 1000.0);
      x.push_back(json::array({row}));
    }
    return json::array({x});
  };
  json s = {{"algorithm", "pooling"}, {"pool", pool}, {"kernel", 4}};
  s["q"] = normal_nested(rng, {1, 16, 1, 4});
  s["k"] = smooth(0.3, 0.15);
  s["v"] = smooth(0.25, 0.1);
  return s;
}

}  // namespace

// The note's "下采样技术": Linformer's E K shortens the keys, and pooling is the plainest way to do it.
std::vector<Preset> pooling_presets() {
  std::vector<Preset> p;
  p.push_back({"pooling-avg", "Average-pooled keys and values: L = 16, kernel 4", "平均池化的键和值:L = 16,kernel 4",
               "The note's downsampling (下采样): the 16 keys and values of a smooth sequence (neighbours alike) are "
               "averaged in windows of 4 (torch's avg_pool1d, stride 4), and each query attends to the 4 pooled "
               "keys: 64 of 256 dot products (25%). Since neighbours are alike, a window's mean stands for it well: "
               "max |error| 0.12 against exact attention", pooling_demo("avg")});
  p.push_back({"pooling-max", "Max-pooled keys and values: L = 16, kernel 4", "最大池化的键和值:L = 16,kernel 4",
               "The same smooth sequence, max-pooled: each column's maximum over a window of 4, a pooled key that is "
               "none of the 4 keys, and pooled values biased upward. Same cost (64 of 256 dot products), a larger "
               "error than the average: max |error| 0.62", pooling_demo("max")});
  return p;
}

}  // namespace attnplay
