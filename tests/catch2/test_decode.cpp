// decode (core/decode_attention.cpp): the context equals full attention with the causal mask (no
// eviction) and with the sink mask (window and sinks) to 1e-12, with GQA and RoPE at the tokens'
// positions, for every prompt; each step's weights are the full map's rows over the cache; the
// cache's positions and numbers step by step; in-cache RoPE (StreamingLLM) equals the tokens'
// positions until the first eviction; errors name the field.
#include "helpers.hpp"

#include <algorithm>

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

double max_abs(const json& a, const json& b) {
  if (a.is_array()) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, max_abs(a[i], b[i]));
    return m;
  }
  return std::fabs(a.get<double>() - b.get<double>());
}

json decode_scenario(unsigned seed, std::size_t B, std::size_t L, std::size_t H, std::size_t H_kv, std::size_t E, std::size_t D) {
  Rng rng(seed, RngStream::data);
  return {{"algorithm", "decode"}, {"q", random_nested(rng, {B, L, H, E})}, {"k", random_nested(rng, {B, L, H_kv, E})},
          {"v", random_nested(rng, {B, L, H_kv, D})}};
}

}  // namespace

TEST_CASE("decode: equals full attention under the causal or sink mask, to 1e-12 (GQA, RoPE, every prompt)") {
  unsigned seed = 160;
  for (const auto& [H, H_kv] : {std::pair{2, 2}, std::pair{4, 2}, std::pair{3, 1}})
    for (const bool rope : {false, true})
      for (const auto& [window, sinks] : {std::pair{0, 0}, std::pair{3, 0}, std::pair{3, 2}, std::pair{1, 1}, std::pair{4, 4}}) {
        const std::size_t L = 9;
        json s = decode_scenario(seed++, 2, L, H, H_kv, 4, 3);
        s["scale"] = 0.7;
        json f = s;
        f["algorithm"] = "full";
        f["mask"] = window ? json{{"kind", "sink"}, {"window", window}, {"sinks", sinks}} : json{{"kind", "causal"}};
        if (window) s["cache"] = {{"window", window}, {"sinks", sinks}};
        if (rope) {
          const json positions = {3, 5, 6, 9, 10, 11, 20, 21, 22};  // any positions the tokens had
          s["rope"] = {{"positions", positions}, {"style", "interleaved"}};
          f["rope"] = {{"positions_q", positions}, {"positions_k", positions}, {"style", "interleaved"}};
        }
        const json full = run(f);
        for (const std::size_t prompt : {std::size_t{1}, std::size_t{4}, L}) {
          INFO("H " << H << " H_kv " << H_kv << " rope " << rope << " window " << window << " sinks " << sinks << " prompt " << prompt);
          s["prompt"] = prompt;
          const json d = run(s);
          CHECK(max_abs(d["context"], full["context"]) <= 1e-12);
          CHECK(max_abs(d["weights"], full["weights"]) <= 1e-12);
          CHECK(d["max_abs_diff"].get<double>() <= 1e-12);
          CHECK(d["cost"]["dot_products"] == full["cost"]["dot_products"]);
          if (rope) CHECK(max_abs(d["k_rotated"], full["k_rotated"]) == 0.0);
          // each step's row of weights is the full map's row i = P + t at the held positions
          const json& pos = d["cache_positions"];
          REQUIRE(pos.size() == L - prompt);
          for (std::size_t t = 0; t < pos.size(); ++t)
            for (std::size_t b = 0; b < 2; ++b)
              for (std::size_t h = 0; h < static_cast<std::size_t>(H); ++h) {
                double sum = 0;
                for (std::size_t n = 0; n < pos[t].size() && pos[t][n] >= 0; ++n) {
                  const double w = d["step_weights"][t][b][h][n].get<double>();
                  CHECK(w == full["weights"][b][h][prompt + t][pos[t][n].get<std::size_t>()].get<double>());
                  sum += w;
                }
                CHECK(sum == Approx(1.0).epsilon(1e-14));
              }
        }
      }
}

TEST_CASE("decode: the cache step by step (window 3, sinks 1, prompt 4 of 8, MQA)") {
  json s = decode_scenario(17, 1, 8, 2, 1, 2, 3);
  s["prompt"] = 4;
  s["cache"] = {{"window", 3}, {"sinks", 1}};
  const json d = run(s);
  // after appending 4: {0 (the sink), 2, 3, 4}; 5: {0, 3, 4, 5}; ... 4 held each, H_kv = 1, E + D = 5
  CHECK(d["cache_positions"] == json::parse("[[0, 2, 3, 4], [0, 3, 4, 5], [0, 4, 5, 6], [0, 5, 6, 7]]"));
  CHECK(d["cache_numbers"] == json::parse("[20, 20, 20, 20]"));
  CHECK(d["cost"]["kv_cache_numbers"] == 20);
  CHECK(d["prompt"] == 4);
  CHECK(d["kv_head"] == json::parse("[0, 0]"));
  // no eviction: the cache grows by one token a step, as full's cache would hold at the end
  json grow = decode_scenario(17, 1, 8, 2, 1, 2, 3);
  grow["prompt"] = 5;
  const json g = run(grow);
  CHECK(g["cache_numbers"] == json::parse("[30, 35, 40]"));
  CHECK(g["cache_positions"][0] == json::parse("[0, 1, 2, 3, 4, 5, -1, -1]"));
  grow["algorithm"] = "full";
  grow.erase("prompt");
  CHECK(run(grow)["cost"]["kv_cache_numbers"] == g["cost"]["kv_cache_numbers"]);
  // the default prompt: max(L - 4, 1); prompt = L: no step
  grow["algorithm"] = "decode";
  CHECK(run(grow)["prompt"] == 4);
  grow["prompt"] = 8;
  const json none = run(grow);
  CHECK(none["cache_numbers"].empty());
  CHECK(none["shapes"]["step_weights"] == json::parse("[0, 1, 2, 0]"));
}

TEST_CASE("decode: RoPE inside the cache (StreamingLLM) equals the tokens' positions until a token is evicted") {
  json s = decode_scenario(18, 1, 10, 2, 2, 4, 2);
  s["prompt"] = 3;
  s["cache"] = {{"window", 3}, {"sinks", 2}};
  s["rope"] = json::object();
  const json at_tokens = run(s);
  s["rope"]["positions"] = "cache";
  const json in_cache = run(s);
  CHECK(in_cache.contains("rope_angles"));
  CHECK_FALSE(in_cache.contains("k_rotated"));
  // rows 0..4 hold every earlier token (nothing evicted yet: 5 = 2 sinks + window 3), so their
  // positions in the cache are the tokens' own; from row 5 on the cache re-numbers the kept tokens
  double before = 0, after = 0;
  for (std::size_t i = 0; i < 10; ++i)
    for (std::size_t h = 0; h < 2; ++h) {
      const double d = max_abs(in_cache["context"][0][i][h], at_tokens["context"][0][i][h]);
      (i < 5 ? before : after) = std::max(i < 5 ? before : after, d);
    }
  CHECK(before <= 1e-12);
  CHECK(after > 1e-6);
  CHECK(in_cache["max_abs_diff"].get<double>() == Approx(after).epsilon(1e-9));
}

TEST_CASE("decode: trace \"context\" holds the context alone; the estimate is the run's") {
  json s = decode_scenario(19, 2, 12, 2, 1, 4, 2);
  s["cache"] = {{"window", 4}, {"sinks", 1}};
  s["rope"] = json::object();
  const json full = run(s);
  s["trace"] = "context";
  const json ctx = run(s);
  CHECK(ctx["context"] == full["context"]);
  CHECK_FALSE(ctx.contains("weights"));
  CHECK_FALSE(ctx.contains("step_weights"));
  CHECK(ctx["cost"] == full["cost"]);
  CHECK(full["cost"]["kv_cache_numbers"] == 2 * 5 * 1 * 6);
  const json e = estimate_scenario(s);
  CHECK(e["cost"] == full["cost"]);
}

TEST_CASE("decode: errors name the field") {
  const json s = decode_scenario(20, 1, 5, 2, 1, 2, 2);
  const auto with = [&s](const char* key, const json& value) {
    json t = s;
    t[key] = value;
    return error_of(t);
  };
  CHECK_THAT(with("prompt", 0), StartsWith("prompt:"));
  CHECK_THAT(with("prompt", 6), StartsWith("prompt:"));
  CHECK_THAT(with("cache", json{{"window", 0}}), StartsWith("cache.window:"));
  CHECK_THAT(with("cache", json{{"window", 2}, {"sinks", 3}}), StartsWith("cache.sinks:"));
  CHECK_THAT(with("cache", json{{"sinks", 1}}), StartsWith("cache.window:"));
  CHECK_THAT(with("cache", 3), StartsWith("cache: expected an object"));
  CHECK_THAT(with("rope", json{{"positions", "tokens"}}), StartsWith("rope.positions: expected \"cache\""));
  CHECK_THAT(with("rope", json{{"positions_q", {0, 1, 2, 3, 4}}}), StartsWith("rope.positions_q: decode's tokens"));
  CHECK_THAT(with("rope", json{{"positions", {0, 1}}}), StartsWith("rope.positions"));
  CHECK_THAT(with("mask", json{{"kind", "causal"}}), StartsWith("mask"));
  json odd = decode_scenario(20, 1, 5, 1, 1, 3, 2);
  odd["rope"] = json::object();
  CHECK_THAT(error_of(odd), StartsWith("rope: rotates pairs"));
  json k_short = s;
  k_short["k"][0].erase(0);
  k_short["v"][0].erase(0);
  CHECK_THAT(error_of(k_short), StartsWith("k"));
  json k3 = decode_scenario(20, 1, 5, 2, 1, 2, 2);
  k3["k"] = decode_scenario(21, 1, 5, 3, 3, 2, 2)["k"];
  CHECK_THAT(error_of(k3), StartsWith("k"));
}
