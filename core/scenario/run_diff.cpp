// diff: q, k (B, L, H, 2e), v, scale (default 1/sqrt(e)), mask (any kind, as full), depth (>= 1,
// default 1), lambda_init (default from depth), lambda (a number, or {"q1", "k1", "q2", "k2": (e)
// vectors, "init": default lambda_init}; default lambda_init).
#include <cmath>

#include "../diff_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

constexpr std::int64_t kDefaultDepth = 1;

// e = E / 2, refused on q when E is odd.
std::size_t half_width(std::size_t E) {
  if (E % 2 != 0)
    throw InputError("q", "expected an even E (q = [q1, q2], halves of the last axis), got E = " + std::to_string(E));
  return E / 2;
}

struct DiffOptions {
  double scale, lambda_init;
  std::optional<double> lambda;                // a number
  std::optional<DiffLambdaVectors> vectors;    // or unilm's re-parameterisation
};

DiffOptions read_diff_options(ScenarioContext& ctx, std::size_t E) {
  Fields& f = ctx.fields;
  const std::size_t e = half_width(E);
  DiffOptions o;
  o.scale = f.number("scale", default_scale(e));
  const auto depth = f.integer("depth", kDefaultDepth, 1, 1000);
  o.lambda_init = f.number("lambda_init", diff_lambda_init(static_cast<double>(depth)));
  if (!f.has("lambda")) {
    f.ignore({"lambda"});
    o.lambda = o.lambda_init;  // unilm's vectors start near 0: lambda starts near lambda_init
  } else if (f.raw("lambda").is_object()) {
    Fields l = f.object("lambda");
    const std::vector<Dim> dims{Dim::of(e, "e = E/2 of q")};
    DiffLambdaVectors p{l.tensor("q1", dims), l.tensor("k1", dims), l.tensor("q2", dims), l.tensor("k2", dims),
                        l.number("init", o.lambda_init)};
    l.warn_unused(ctx.warnings);
    o.vectors = std::move(p);
  } else if (f.raw("lambda").is_number()) {
    o.lambda = f.number("lambda", 0.0);
  } else {
    throw InputError("lambda", "expected a number or {\"q1\", \"k1\", \"q2\", \"k2\", \"init\"}, got " +
                                   json_type_name(f.raw("lambda")));
  }
  return o;
}

}  // namespace

json diff_defaults() {
  return {{"scale", "1/sqrt(e)"}, {"depth", kDefaultDepth}, {"lambda_init", diff_lambda_init(kDefaultDepth)},
          {"lambda", "lambda_init"}};
}

Estimate estimate_diff(ScenarioContext& ctx) {
  const auto d = read_attention_shapes(ctx);
  read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  half_width(d.E);
  ctx.fields.ignore({"depth", "lambda_init", "lambda"});
  const std::uint64_t dense = std::uint64_t{d.B} * d.H * d.L_Q * d.L_K;
  Estimate e;
  e.cost = {2 * dense, dense, 2 * dense * (d.E + d.D)};
  e.numbers = 2 * context_numbers(d) + (ctx.level == TraceLevel::full ? 3 * dense : 0);  // weights1, 2, weights
  return e;
}

Trace run_diff(ScenarioContext& ctx) {
  const AttentionInputs in = read_attention_inputs(ctx);
  const auto d = attention_dims(in.q, in.v);
  const DiffOptions o = read_diff_options(ctx, d.E);  // E odd: refused before any size
  check_pair_tensors(ctx, std::uint64_t{d.B} * d.H * d.L_Q * d.L_K, "k");
  check_size(std::uint64_t{d.B} * d.L_Q * d.H * d.D, "v", "the context and normed_context (B, L_Q, H, D)");
  const Mask mask = read_mask(ctx, d.B, d.L_Q, d.L_K, ctx.entry->masks);
  const double lambda = o.vectors ? diff_lambda(*o.vectors) : *o.lambda;
  if (!std::isfinite(lambda)) throw InputError("lambda", "exp(q1 . k1) - exp(q2 . k2) overflows");
  ctx.begin_work();
  return diff_attention(in.q, in.k, in.v, o.scale, lambda, o.lambda_init, mask, ctx.level);
}

// The toy, then two seeded heads (B = 1, L = 8, H = 2, e = 2, D = 3): causal, and a learned lambda.
std::vector<Preset> diff_presets() {
  const auto demo = [](std::uint64_t seed, const char* extra) {
    Rng rng(seed, RngStream::data);
    json s = json::parse(extra);
    s["algorithm"] = "diff";
    for (const char* name : {"q", "k", "v"}) s[name] = normal_nested(rng, {1, 8, 2, name[0] == 'v' ? 3u : 4u});
    return s;
  };
  std::vector<Preset> p;
  p.push_back({"diff-toy", "Differential toy: [0.665, 0.245, 0.090] - 0.5 x 1/3", "差分注意力示例:[0.665, 0.245, 0.090] - 0.5 x 1/3",
               "One query, one head, e = 1: map 1 scores [2, 1, 0] give softmax [0.665, 0.245, 0.090]; map 2 "
               "scores [0, 0, 0] give 1/3 each; with lambda = 0.5 the weights are [0.499, 0.078, -0.077] (sum "
               "1 - lambda = 0.5) and with v0=[10,0], v1=[0,20], v2=[10,10] the context is [4.219, 0.795]; "
               "RMSNorm times 1 - lambda_init = 0.8 gives [1.112, 0.209].",
               json::parse(R"({"algorithm": "diff", "q": [[[[1, 1]]]], "k": [[[[2, 0]], [[1, 0]], [[0, 0]]]],
                   "v": [[[[10, 0]], [[0, 20]], [[10, 10]]]], "scale": 1, "lambda": 0.5})")});
  p.push_back({"diff-causal", "Differential attention, causal, L = 8", "差分注意力,因果,L = 8",
               "Two heads, e = 2, the causal mask on both maps, lambda = lambda_init = 0.2 (depth 1): the "
               "second map subtracts the attention both maps agree on (the noise), so weights can be negative.",
               demo(11, R"({"mask": {"kind": "causal"}})")});
  p.push_back({"diff-learned-lambda", "Re-parameterised lambda, depth 12", "重参数化的 lambda,深度 12",
               "lambda = exp(q1 . k1) - exp(q2 . k2) + lambda_init with unilm's vectors (e = 2) and lambda_init = "
               "0.8 - 0.6 exp(-0.3 x 11) = 0.778 at depth 12.",
               demo(12, R"({"depth": 12, "lambda": {"q1": [0.1, -0.05], "k1": [0.2, 0.1],
                   "q2": [-0.1, 0.15], "k2": [0.05, -0.2]}})")});
  // modern-b (issue 16): common-mode noise cancelled, lambda from unilm's vectors
  p.push_back({"diff-noise-cancel", "Noise cancelled: keys 4, 5 drop from 0.397 to 0.013, key 2 keeps 0.127",
               "噪声抵消:键 4、5 从 0.397 降到 0.013,键 2 保留 0.127",
               "One query, e = 1, scale 1. Map 1 scores [0, 0, 2, 0, 3, 3]: the signal at key 2 and the same "
               "noise at keys 4 and 5 that map 2 sees alone (scores [0, 0, 0, 0, 3, 3]). Map 1 gives the noise "
               "0.397 each and the signal 0.146; map 2 gives the noise 0.455 each. lambda = exp(0.3 x 1) - "
               "exp(0.1 x 1) + 0.6 = 0.845 from unilm's vectors; the difference leaves the signal 0.127 and the "
               "noise 0.013 each, so the context (v = [1, 0] but [0, 1] at key 2) turns from [0.854, 0.146] "
               "to [0.028, 0.127].",
               json::parse(R"({"algorithm": "diff", "q": [[[[1, 1]]]],
                   "k": [[[[0, 0]], [[0, 0]], [[2, 0]], [[0, 0]], [[3, 3]], [[3, 3]]]],
                   "v": [[[[1, 0]], [[1, 0]], [[0, 1]], [[1, 0]], [[1, 0]], [[1, 0]]]], "scale": 1,
                   "lambda": {"q1": [0.3], "k1": [1], "q2": [0.1], "k2": [1], "init": 0.6}})")});
  return p;
}

}  // namespace attnplay
