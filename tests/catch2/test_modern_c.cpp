// Issue 16's last parts (helper modern-c): RoPE's long-range decay of the score bound (RoFormer
// §3.4.3) against the formula evaluated here with std::complex; StreamingLLM's eviction on the
// learner's tensors (the weight on the sinks, the context without them = full attention under the
// window alone); ALiBi past a trained length (the preset's bias on one line at every distance, its
// rows of weights softmaxes); the per-token KV cache of Llama-2-70B and DeepSeek-V2 from the core's
// estimate (cost.kv_cache_numbers) at their real sizes.
#include <cmath>
#include <complex>

#include "../../core/rope.hpp"
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;

namespace {

json toy_full(unsigned seed, std::size_t H, std::size_t L, std::size_t E, std::size_t D) {
  Rng rng(seed, RngStream::data);
  return {{"algorithm", "full"},
          {"q", random_nested(rng, {2, L, H, E})},
          {"k", random_nested(rng, {2, L, H, E})},
          {"v", random_nested(rng, {2, L, H, D})}};
}

// (2/E) sum_{j=1}^{E/2} |S_j|, S_j = sum_{k<j} e^{i r theta_k}, written with std::complex in long
// double (the core sums cos and sin in double).
double decay_by_hand(std::size_t E, double base, std::size_t r) {
  std::complex<long double> S = 0;
  long double sum = 0;
  for (std::size_t k = 0; k < E / 2; ++k) {
    const long double theta = std::pow(static_cast<long double>(base), -2.0L * k / E);
    S += std::polar(1.0L, static_cast<long double>(r) * theta);
    sum += std::abs(S);
  }
  return static_cast<double>(sum / (E / 2));
}

}  // namespace

TEST_CASE("RoPE decay: rope_decay[r] = (2/E) sum_j |S_j| for every r, at the scenario's E and base") {
  for (const std::size_t E : {std::size_t{2}, std::size_t{4}, std::size_t{8}, std::size_t{64}})
    for (const double base : {10000.0, 500.0}) {
      json s = toy_full(7, 1, 3, E, 2);
      s["rope"] = {{"base", base}};
      const json t = run(s);
      REQUIRE(t["shapes"]["rope_decay"] == json::array({kRopeDecayDistances}));
      CAPTURE(E, base);
      double worst = 0;
      for (std::size_t r = 0; r < kRopeDecayDistances; ++r)
        worst = std::max(worst, std::abs(t["rope_decay"][r].get<double>() - decay_by_hand(E, base, r)));
      CHECK(worst < 1e-12);
      // r = 0: every S_j = j, so the bound is (2/E) (1 + ... + E/2) = (E/2 + 1) / 2
      CHECK(t["rope_decay"][0].get<double>() == Approx((E / 2.0 + 1) / 2).epsilon(1e-15));
    }
  // E = 4, base 100: theta = (1, 0.1); at r = 10, S_1 = e^{10i}, S_2 = e^{10i} + e^{i}
  json s = toy_full(7, 1, 3, 4, 2);
  s["rope"] = {{"base", 100}};
  const json t = run(s);
  const double re = std::cos(10.0) + std::cos(1.0), im = std::sin(10.0) + std::sin(1.0);
  CHECK(t["rope_decay"][10].get<double>() == Approx((1 + std::sqrt(re * re + im * im)) / 2).epsilon(1e-14));
  // the bound decays: at E = 64, base 10000 (RoFormer's figure) its mean over r in [256, 512) is
  // below a third of its value at 0
  s = toy_full(7, 1, 3, 64, 2);
  s["rope"] = json::object();
  const json u = run(s);
  double far = 0;
  for (std::size_t r = 256; r < 512; ++r) far += u["rope_decay"][r].get<double>() / 256;
  CHECK(far < u["rope_decay"][0].get<double>() / 3);
  // only at trace "full", only with RoPE (flash too)
  s["trace"] = "context";
  CHECK_FALSE(run(s).contains("rope_decay"));
  s.erase("trace");
  s.erase("rope");
  CHECK_FALSE(run(s).contains("rope_decay"));
  s["rope"] = json::object();
  s["algorithm"] = "flash";
  CHECK(max_rel_diff(run(s)["rope_decay"], u["rope_decay"]) == 0);
}

TEST_CASE("Sinks evicted: evicted_context = full attention under the window alone; sink_mass = the weight on the sinks") {
  for (const auto& [w, sinks] : {std::pair{2, 1}, std::pair{3, 2}, std::pair{3, 3}, std::pair{4, 1}}) {
    for (const bool forms : {false, true}) {
      json s = toy_full(11 + w, 2, 9, 4, 3);
      s["mask"] = {{"kind", "sink"}, {"window", w}, {"sinks", sinks}};
      if (forms) {
        s["rope"] = {{"style", "interleaved"}};
        s["alibi"] = true;
      }
      const json t = run(s);
      json window = s;
      window["mask"]["sinks"] = 0;
      const json alone = run(window);
      CAPTURE(w, sinks, forms);
      REQUIRE(t["shapes"]["evicted_context"] == t["shapes"]["context"]);
      CHECK(max_rel_diff(t["evicted_context"], alone["context"]) < 1e-15);
      REQUIRE(t["shapes"]["sink_mass"] == json::array({2, 2, 9}));
      for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t h = 0; h < 2; ++h)
          for (std::size_t i = 0; i < 9; ++i) {
            double m = 0;
            for (int j = 0; j < sinks; ++j) m += t["weights"][b][h][i][j].get<double>();
            CHECK(std::abs(t["sink_mass"][b][h][i].get<double>() - m) < 1e-15);
          }
      // the query that still sees its sinks through the window alone loses nothing: i < w
      for (std::size_t i = 0; i < static_cast<std::size_t>(w) && i < 9; ++i)
        CHECK(max_rel_diff(t["evicted_context"][0][i], t["context"][0][i]) < 1e-15);
      // the cost is the sink mask's alone (the eviction is for the picture)
      json no_eviction = s;
      no_eviction["trace"] = "context";
      CHECK(run(no_eviction)["cost"] == t["cost"]);
      CHECK_FALSE(run(no_eviction).contains("evicted_context"));
    }
  }
  // sink-window's query 9: its weight on the two sinks, and its context without them differs
  const json t = run_preset("sink-window");
  const double mass = t["sink_mass"][0][0][9].get<double>();
  CHECK(mass == Approx(t["weights"][0][0][9][0].get<double>() + t["weights"][0][0][9][1].get<double>()).epsilon(1e-15));
  CHECK(mass > 0.05);
  CHECK(max_rel_diff(t["evicted_context"][0][9], t["context"][0][9]) > 1e-3);
  // no sinks, another mask: no eviction fields
  json s = toy_full(3, 1, 5, 2, 2);
  s["mask"] = {{"kind", "sink"}, {"window", 2}, {"sinks", 0}};
  CHECK_FALSE(run(s).contains("sink_mass"));
  s["mask"] = {{"kind", "causal"}};
  CHECK_FALSE(run(s).contains("evicted_context"));
}

TEST_CASE("ALiBi past the trained length (alibi-extrapolate): the bias on one line at every distance, weights softmaxes") {
  const json t = run_preset("alibi-extrapolate");
  REQUIRE(t["shapes"]["bias"] == json::array({4, 24, 24}));
  const double slopes[4] = {0.25, 1.0 / 16, 1.0 / 64, 1.0 / 256};
  for (std::size_t h = 0; h < 4; ++h)
    for (std::size_t j = 0; j < 24; ++j) {
      const double d = 23.0 - static_cast<double>(j);
      CHECK(t["bias"][h][23][j].get<double>() == -slopes[h] * d);  // exact: slope a power of two
    }
  CHECK(t["bias"][0][23][0].get<double>() == -5.75);
  for (std::size_t h = 0; h < 4; ++h)
    for (std::size_t i = 0; i < 24; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < 24; ++j) {
        const double w = t["weights"][0][h][i][j].get<double>();
        CHECK(std::isfinite(w));
        sum += w;
      }
      CHECK(sum == Approx(1).epsilon(1e-14));
    }
  // the steep head's farthest key (distance 23, bias -5.75) gets far less weight than its nearest
  CHECK(t["weights"][0][0][23][0].get<double>() < t["weights"][0][0][23][23].get<double>());
}

TEST_CASE("KV cache per token at real sizes from the core's estimate: Llama-2-70B (GQA) and DeepSeek-V2 (MLA)") {
  // Llama-2-70B: one token, one layer: 64 query heads, 8 kv heads, head size 128
  const auto full = [](std::size_t H_kv) {
    return json{{"algorithm", "full"}, {"q", {{"shape", {1, 1, 64, 128}}}}, {"k", {{"shape", {1, 1, H_kv, 128}}}},
                {"v", {{"shape", {1, 1, H_kv, 128}}}}};
  };
  CHECK(estimate_scenario(full(64))["cost"]["kv_cache_numbers"] == 16384);  // MHA
  CHECK(estimate_scenario(full(8))["cost"]["kv_cache_numbers"] == 2048);    // GQA: x 80 layers = 163,840
  CHECK(estimate_scenario(full(1))["cost"]["kv_cache_numbers"] == 256);     // MQA
  // DeepSeek-V2: kv_lora_rank 512, qk_rope_head_dim 64, 128 heads of 128 + 64 (keys) and 128 (values)
  const json mla = {{"algorithm", "mla"}, {"x", {{"shape", {1, 1, 5120}}}}, {"num_heads", 128}, {"q_lora_rank", 1536},
                    {"kv_lora_rank", 512}, {"qk_nope_head_dim", 128}, {"qk_rope_head_dim", 64}, {"v_head_dim", 128}};
  const json e = estimate_scenario(mla);
  CHECK(e["cost"]["kv_cache_numbers"] == 576);             // x 60 layers = 34,560
  CHECK(e["sizes"]["mha_kv_cache_numbers"] == 40960);      // x 60 layers = 2,457,600
}
