#include <algorithm>
#include <cmath>

#include "../performer_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

const auto big = static_cast<std::int64_t>(kMaxDimension);

// num_features: performer-pytorch's default nb_features = int(dim_heads * log(dim_heads)), at least 1
std::int64_t read_num_features(Fields& f, std::size_t E) {
  const auto default_m = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(E) * std::log(static_cast<double>(E))));
  return f.integer("num_features", std::min(default_m, big), 1, big);
}

std::vector<Dim> projection_dims(Fields& f, std::int64_t m, std::size_t E) {
  return {f.has("num_features") ? Dim::of(static_cast<std::size_t>(m), "num_features") : Dim::any("m"), Dim::of(E, "E of q")};
}

}  // namespace

json performer_defaults() {
  return {{"num_features", "max(1, floor(E ln E))"}, {"orthogonal", true}, {"norms", "chi"}};
}

Estimate estimate_performer(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const auto d = read_attention_shapes(ctx);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  std::int64_t m = read_num_features(f, d.E);
  if (f.has("projection")) m = static_cast<std::int64_t>(ctx.shape("projection", projection_dims(f, m, d.E))[0]);
  const auto M = static_cast<std::uint64_t>(m);
  Estimate e = kernel_estimate(d, M, true, mask, ctx.level);
  const std::uint64_t projections = std::uint64_t{d.B} * d.H * (std::uint64_t{d.L_Q} + d.L_K) * M;
  e.cost.dot_products += projections;
  e.cost.flops += 2 * projections * d.E;
  if (ctx.level == TraceLevel::full) e.numbers += M * d.E;  // the projection
  e.sizes["num_features"] = M;
  return e;
}

Trace run_performer(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  std::int64_t m = read_num_features(f, d.E);
  Tensor projection;
  const bool given = f.has("projection");
  bool orthogonal = false;
  ProjectionNorms norms = ProjectionNorms::chi;
  if (given) {
    projection = ctx.tensor("projection", projection_dims(f, m, d.E));
    m = static_cast<std::int64_t>(projection.shape()[0]);
    if (f.has("orthogonal") || f.has("norms"))
      ctx.warnings.push_back("orthogonal and norms are ignored: the projection is given");
    f.ignore({"orthogonal", "norms"});
  } else {
    const json defaults = performer_defaults();
    orthogonal = f.boolean("orthogonal", defaults["orthogonal"]);
    const auto norms_name = f.choice("norms", {"chi", "sqrt_d", "quantile"}, defaults["norms"]);
    norms = norms_name == "sqrt_d" ? ProjectionNorms::sqrt_d : norms_name == "quantile" ? ProjectionNorms::quantile : ProjectionNorms::chi;
    const std::uint64_t M = static_cast<std::uint64_t>(m);
    check_size(M * d.E, "num_features", "the projection (m, E)");
    // Gram-Schmidt: each row against up to E - 1 earlier rows of its block, twice
    const std::uint64_t work = M * d.E * std::min<std::uint64_t>(M, d.E);
    if (orthogonal && work > (std::uint64_t{1} << 31))
      throw InputError("num_features", "drawing " + std::to_string(m) + " orthogonal rows of E = " + std::to_string(d.E) +
                                           " takes about " + std::to_string(work) +
                                           " multiply-adds, more than the limit 2147483648; use fewer features, "
                                           "\"orthogonal\": false or a given projection");
  }
  check_kernel_sizes(ctx, d, static_cast<std::size_t>(m), given ? "projection" : "num_features");
  const KernelReference ref = kernel_reference(ctx);
  if (ref == KernelReference::performer_pytorch && f.has("scale"))
    ctx.warnings.push_back("performer-pytorch's softmax_kernel scales x by E^-1/4 always: scale is used only for exact_context");
  ctx.begin_work();
  if (!given) projection = draw_projection(static_cast<std::size_t>(m), d.E, orthogonal, norms, ctx.seed);
  return performer_attention(in.q, in.k, in.v, projection, in.scale, mask, ctx.level, ref);
}

namespace {

// One sequence of L = 8, one head, E = 8, D = 4, m = E = 8 features. q and k are normals times
// 0.3 (data stream, seed 2, rounded to 3 decimals): the regime where the estimate is usable and
// orthogonal rows visibly help; at N(0, 1) inputs the variance of exp swamps the effect.
json performer_example(bool orthogonal, const std::string& norms) {
  Rng rng(2, RngStream::data);
  const auto small = [&](const std::vector<std::size_t>& shape) {
    json x = normal_nested(rng, shape);
    for (auto& b : x)
      for (auto& l : b)
        for (auto& h : l)
          for (auto& e : h) e = std::round(300.0 * e.get<double>()) / 1000.0;
    return x;
  };
  json s = {{"algorithm", "performer"}, {"num_features", 8}, {"orthogonal", orthogonal}, {"norms", norms}, {"seed", 2}};
  s["q"] = small({1, 8, 1, 8});
  s["k"] = small({1, 8, 1, 8});
  s["v"] = normal_nested(rng, {1, 8, 1, 4});
  return s;
}

}  // namespace

// The note's Performer section: e^{q.k} as the mean of e^{w.q - |q|^2/2} e^{w.k - |k|^2/2} over
// Gaussian w, sampled m times; orthogonal directions, and the note's own quantile lengths.
std::vector<Preset> performer_presets() {
  std::vector<Preset> p;
  p.push_back({"performer-orthogonal", "Performer: m = E = 8 orthogonal random features",
               "Performer:m = E = 8 个正交随机特征",
               "FAVOR+: phi(x) = exp(W x~ - |x~|^2/2) / sqrt(m) with x~ = x E^(-1/4) turns exp(q.k / sqrt(E)) into "
               "phi(q) . phi(k), so softmax attention becomes linear attention with head size m = 8. The 8 rows of W "
               "are orthogonal (Gram-Schmidt of Gaussian rows) with chi-distributed lengths. The implied weights "
               "follow softmax's closely: max |context - exact_context| = 0.079 for seed 2; over seeds 0-99 the "
               "mean is 0.090 (iid rows 0.097, quantile lengths 0.084). Change the seed to see the estimate vary.",
               performer_example(true, "chi")});
  p.push_back({"performer-iid", "Performer: m = E = 8 iid random features", "Performer:m = E = 8 个独立随机特征",
               "The same inputs and seed with independent Gaussian rows w ~ N(0, I_8), as the note first samples "
               "them: unbiased but noisier, max |context - exact_context| = 0.105 here against 0.079 orthogonal. "
               "Orthogonal directions spread the samples evenly and lower the variance (the note): over seeds 0-99 "
               "the mean error is 0.097 iid against 0.090 orthogonal; the gap is larger at m = E = 16 (0.077 "
               "against 0.063, tests/catch2/test_performer.cpp).",
               performer_example(false, "chi")});
  p.push_back({"performer-quantile", "Performer: orthogonal rows with quantile lengths", "Performer:正交方向 + 分位数模长",
               "The note's last step: make the lengths even too. Row i gets the length R_i with P_8(r <= R_i) = "
               "i / 9, the i/(m+1) quantiles of the chi distribution with 8 degrees of freedom: 1.905, 2.193, "
               "2.414, 2.613, 2.809, 3.018, 3.264, 3.609 instead of random ones. max |context - exact_context| = "
               "0.078 here; over seeds 0-99 the mean is 0.084, the lowest of the three.",
               performer_example(true, "quantile")});
  return p;
}

}  // namespace attnplay
