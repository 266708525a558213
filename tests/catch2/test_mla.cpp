// Multi-head latent attention: the absorbed path equals the textbook one, trace "context" runs the
// absorbed path alone, the latent is RMS-normalised, the rope key at position 0 is unrotated, the
// cache sizes, the masks, and the errors. The equality with Hugging Face's DeepseekV3Attention is
// the fixtures' (tests/fixtures/mla, generate.py's reference_mla).
#include <cmath>

#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

json mla_scenario(std::uint64_t seed, std::size_t B, std::size_t L, std::size_t d_model, std::size_t H,
                  json q_lora_rank, std::size_t C, std::size_t n, std::size_t r, std::size_t dv) {
  Rng rng(seed, RngStream::data);
  json s = {{"algorithm", "mla"}, {"num_heads", H}, {"q_lora_rank", q_lora_rank}, {"kv_lora_rank", C},
            {"qk_nope_head_dim", n}, {"qk_rope_head_dim", r}, {"v_head_dim", dv}, {"seed", seed}};
  s["x"] = random_nested(rng, {B, L, d_model});
  return s;
}

}  // namespace

TEST_CASE("mla: the absorbed path equals the textbook path to 1e-12") {
  const json masks[] = {json(nullptr), json{{"kind", "none"}}, json{{"kind", "local"}, {"window", 1}},
                        json{{"kind", "valid_lens"}, {"valid_lens", {3, 5}}},
                        json{{"kind", "strided"}, {"window", 1}, {"stride", 2}, {"causal", true}}};
  std::uint64_t seed = 1;
  for (const json& mask : masks)
    for (const json& q_lora : {json(nullptr), json(3)}) {
      json s = mla_scenario(seed++, 2, 5, 6, 3, q_lora, 4, 2, 4, 3);
      if (!mask.is_null()) s["mask"] = mask;
      INFO(s.dump().substr(0, 200));
      const json t = run(s);
      CHECK(max_rel_diff(t["output_absorbed"], t["output"]) <= 1e-12);
      CHECK(max_rel_diff(t["output"], t["output_absorbed"]) > 0);  // two computations, not one copied
    }
}

TEST_CASE("mla: trace context is the absorbed output alone") {
  json s = mla_scenario(7, 1, 6, 8, 2, 4, 4, 2, 2, 2);
  const json full = run(s);
  s["trace"] = "context";
  const json ctx = run(s);
  CHECK(ctx["output"] == full["output_absorbed"]);
  CHECK_FALSE(ctx.contains("weights"));
  CHECK_FALSE(ctx.contains("latent"));
  CHECK(ctx["cost"] == full["cost"]);
}

TEST_CASE("mla: latent, rope key, weights and cache sizes") {
  const std::size_t B = 2, L = 5, d = 6, H = 3, C = 4, n = 2, r = 4, dv = 3;
  const json t = run(mla_scenario(3, B, L, d, H, nullptr, C, n, r, dv));
  // RMSNorm with weight 1: mean(latent^2) = ms / (ms + 1e-6) for each token's ms of c
  for (const auto& b : t["latent"])
    for (const auto& row : b) {
      double m = 0;
      for (const auto& x : row) m += x.get<double>() * x.get<double>() / C;
      CHECK(m == Approx(1.0).margin(1e-4));
      CHECK(m < 1.0);
    }
  // position 0 turns by angle 0: k_rope[b, 0] is kv_a_proj_with_mqa's last r rows times x[b, 0]
  const json& W = t["state_dict"]["kv_a_proj_with_mqa.weight"];
  const json x = mla_scenario(3, B, L, d, H, nullptr, C, n, r, dv)["x"];
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t c = 0; c < r; ++c) {
      double k = 0;
      for (std::size_t i = 0; i < d; ++i) k += W[C + c][i].get<double>() * x[b][0][i].get<double>();
      CHECK(at(t["k_rope"], {b, 0, c}) == Approx(k).epsilon(1e-13));
    }
  // causal by default: rows sum to 1, nothing above the diagonal
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < L; ++j) {
          sum += at(t["weights"], {b, h, i, j});
          if (j > i) CHECK(at(t["weights"], {b, h, i, j}) == 0.0);
        }
        CHECK(sum == Approx(1.0).epsilon(1e-14));
      }
  CHECK(t["cost"]["kv_cache_numbers"] == B * L * (C + r));
  CHECK(t["mha_kv_cache_numbers"] == B * L * H * (n + r + dv));  // beside it, a trace field
  CHECK(t["cost"]["dot_products"] == B * H * L * (L + 1) / 2);
  CHECK(t["cost"]["dense_dot_products"] == B * H * L * L);
}

TEST_CASE("mla: the rope parts make scores depend on distance: position 0's key is unrotated, later ones turn") {
  // With every token equal, the textbook scores differ only through the rotation of the rope parts.
  json s = mla_scenario(5, 1, 4, 4, 1, nullptr, 2, 0, 2, 2);
  for (auto& row : s["x"][0]) row = s["x"][0][0];
  s["mask"] = {{"kind", "none"}};
  const json t = run(s);
  const json& w = t["weights"][0][0];
  // equal tokens: the weight of key j seen from query i depends on i - j only
  CHECK(w[1][0].get<double>() / w[1][1].get<double>() == Approx(w[2][1].get<double>() / w[2][2].get<double>()).epsilon(1e-12));
  CHECK(w[1][0].get<double>() != Approx(w[1][1].get<double>()).epsilon(1e-6));
}

TEST_CASE("mla: errors name the field") {
  json s = mla_scenario(1, 1, 3, 4, 2, nullptr, 2, 2, 2, 2);
  json odd = s;
  odd["qk_rope_head_dim"] = 3;
  CHECK_THAT(error_of(odd), StartsWith("qk_rope_head_dim: expected an even number"));
  json zero = s;
  zero["kv_lora_rank"] = 0;
  CHECK_THAT(error_of(zero), StartsWith("kv_lora_rank:"));
  json missing = s;
  missing.erase("num_heads");
  CHECK_THAT(error_of(missing), StartsWith("num_heads:"));
  const json t = run(s);
  json given = s;
  given["weights"] = t["state_dict"];
  CHECK(run(given)["output"] == t["output"]);  // the drawn weights, given back: the same run
  json wrong = given;
  wrong["weights"]["kv_b_proj.weight"].erase(0);
  CHECK_THAT(error_of(wrong), StartsWith("weights.kv_b_proj.weight"));
  json other = given;
  other["weights"]["q_a_proj.weight"] = other["weights"]["q_proj.weight"];
  CHECK_THAT(error_of(other), StartsWith("weights.q_a_proj.weight: given, but q_lora_rank is null"));
  json x = s;
  x["x"] = json::array({json::array({json::array({1, 2})})});
  x["x"][0].push_back(json::array({1, 2, 3}));
  CHECK_THAT(error_of(x), StartsWith("x[0][1]"));
}
