// FullAttention: the seeds' worked numbers, d2l's masked softmax, and properties of masks.
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;

TEST_CASE("softmax toy: scores [2,1,0] -> weights [0.665,0.245,0.090] -> context [7.55,5.80]") {
  const json t = run_preset("softmax-toy");
  CHECK(at(t["scores"], {0, 0, 0, 0}) == Approx(2.0));
  CHECK(at(t["scores"], {0, 0, 0, 1}) == Approx(1.0));
  CHECK(at(t["weights"], {0, 0, 0, 0}) == Approx(0.665).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 0, 1}) == Approx(0.245).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 0, 2}) == Approx(0.090).margin(5e-4));
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx(7.55).margin(5e-3));
  CHECK(at(t["context"], {0, 0, 0, 1}) == Approx(5.80).margin(6e-3));
  // exact: softmax([2,1,0]) = e^(2-j) / (e^2 + e + 1)
  const double z = std::exp(2.0) + std::exp(1.0) + 1.0;
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx((10 * std::exp(2.0) + 10) / z).epsilon(1e-14));
  CHECK(t["cost"]["dot_products"] == 3);
  CHECK(t["cost"]["dense_dot_products"] == 3);
}

TEST_CASE("d2l masked softmax: valid_lens [2,3] zero the keys beyond each length") {
  const json t = run_preset("d2l-masked-softmax-1d");
  const std::size_t lens[2] = {2, 3};
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 2; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < 4; ++j) {
        const double w = at(t["weights"], {b, 0, i, j});
        sum += w;
        if (j >= lens[b]) CHECK(w == 0.0);
        else CHECK(w > 0.0);
        // the values are one-hot, so the context equals the weights
        CHECK(at(t["context"], {b, i, 0, j}) == Approx(w).epsilon(1e-15));
      }
      CHECK(sum == Approx(1.0).epsilon(1e-15));
    }
}

TEST_CASE("d2l masked softmax 2-D: valid_lens [[1,3],[2,4]]") {
  const json t = run_preset("d2l-masked-softmax-2d");
  CHECK(at(t["weights"], {0, 0, 0, 0}) == 1.0);  // d2l prints 1.0000, 0, 0, 0
  CHECK(at(t["weights"], {0, 0, 0, 1}) == 0.0);
  CHECK(at(t["weights"], {0, 0, 1, 3}) == 0.0);
  CHECK(at(t["weights"], {1, 0, 0, 2}) == 0.0);
  CHECK(at(t["weights"], {1, 0, 1, 3}) > 0.0);
}

TEST_CASE("d2l-dot-product: DotProductAttention with valid_lens [2, 6] gives [2, 3, 4, 5] and [10, 11, 12, 13]") {
  const json& s = find_preset("d2l-dot-product")->scenario;
  const json t = run_preset("d2l-dot-product");
  CHECK(t["shapes"]["context"] == json::array({2, 1, 1, 4}));
  CHECK(s.count("scale") == 0);  // d2l's 1/sqrt(d), the default
  // the keys are all ones: every valid key scores the same, so the weights are 1/2 and 1/6
  const std::size_t lens[2] = {2, 6};
  for (std::size_t b = 0; b < 2; ++b) {
    const double q0 = s["q"][b][0][0][0].get<double>(), q1 = s["q"][b][0][0][1].get<double>();
    for (std::size_t j = 0; j < 10; ++j) {
      CHECK(at(t["scores"], {b, 0, 0, j}) == Approx((q0 + q1) / std::sqrt(2.0)).epsilon(1e-14));
      CHECK(at(t["weights"], {b, 0, 0, j}) == (j < lens[b] ? Approx(1.0 / lens[b]).epsilon(1e-14) : Approx(0.0).margin(0)));
    }
  }
  for (std::size_t d = 0; d < 4; ++d) {
    CHECK(at(t["context"], {0, 0, 0, d}) == Approx(2.0 + d).epsilon(1e-14));
    CHECK(at(t["context"], {1, 0, 0, d}) == Approx(10.0 + d).epsilon(1e-14));
  }
}

TEST_CASE("self-attention: queries = keys = values = X; symmetric scores, row-normalised weights") {
  const json& s = find_preset("self-attention")->scenario;
  CHECK(s["q"] == s["k"]);
  CHECK(s["k"] == s["v"]);
  const json t = run_preset("self-attention");
  const double X[4][2] = {{1, 0}, {0, 1}, {1, 1}, {2, 0}};
  for (std::size_t i = 0; i < 4; ++i) {
    double z = 0, e[4];
    for (std::size_t j = 0; j < 4; ++j) {
      const double sij = (X[i][0] * X[j][0] + X[i][1] * X[j][1]) / std::sqrt(2.0);
      CHECK(at(t["scores"], {0, 0, i, j}) == Approx(sij).epsilon(1e-14));
      CHECK(at(t["scores"], {0, 0, i, j}) == at(t["scores"], {0, 0, j, i}));
      z += (e[j] = std::exp(sij));
    }
    for (std::size_t d = 0; d < 2; ++d) {
      double c = 0;
      for (std::size_t j = 0; j < 4; ++j) c += e[j] / z * X[j][d];
      CHECK(at(t["context"], {0, i, 0, d}) == Approx(c).epsilon(1e-14));
    }
  }
  // the description's numbers
  CHECK(at(t["weights"], {0, 0, 0, 3}) == Approx(0.449).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 0, 0}) == Approx(0.221).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 3, 3}) == Approx(0.647).margin(5e-4));
  CHECK(at(t["context"], {0, 1, 0, 0}) == Approx(0.830).margin(5e-4));
  CHECK(at(t["context"], {0, 1, 0, 1}) == Approx(0.670).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 0, 3}) != at(t["weights"], {0, 0, 3, 0}));  // not symmetric
}

namespace {
json random_scenario(unsigned seed, std::size_t L, const json& mask) {
  Rng rng(seed, RngStream::data);
  auto tensor = [&](std::size_t B, std::size_t L_, std::size_t H, std::size_t E) {
    json t = json::array();
    for (std::size_t b = 0; b < B; ++b) {
      json lb = json::array();
      for (std::size_t l = 0; l < L_; ++l) {
        json hb = json::array();
        for (std::size_t h = 0; h < H; ++h) {
          json eb = json::array();
          for (std::size_t e = 0; e < E; ++e) eb.push_back(rng.normal());
          hb.push_back(eb);
        }
        lb.push_back(hb);
      }
      t.push_back(lb);
    }
    return t;
  };
  return {{"algorithm", "full"}, {"q", tensor(2, L, 2, 3)}, {"k", tensor(2, L, 2, 3)},
          {"v", tensor(2, L, 2, 4)}, {"mask", mask}};
}
}  // namespace

TEST_CASE("every mask kind: rows sum to 1, masked weights are exactly 0") {
  const std::vector<json> masks = {
      {{"kind", "causal"}},
      {{"kind", "local"}, {"window", 1}},
      {{"kind", "atrous"}, {"dilation", 2}},
      {{"kind", "strided"}, {"window", 1}, {"stride", 3}},
      {{"kind", "strided"}, {"window", 1}, {"stride", 3}, {"causal", true}},
      {{"kind", "valid_lens"}, {"valid_lens", {3, 5}}},
      {{"kind", "explicit"}, {"allowed", json::parse("[[1,0,0,0,0],[1,1,0,0,1],[0,0,1,0,0],[1,1,1,1,1],[0,1,0,1,0]]")}},
  };
  for (const auto& m : masks) {
    INFO(m.dump());
    const json t = run(random_scenario(7, 5, m));
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 5; ++i) {
          double sum = 0;
          for (std::size_t j = 0; j < 5; ++j) {
            const double w = at(t["weights"], {b, h, i, j});
            if (!t["allowed"][b][h][i][j].get<bool>()) CHECK(w == 0.0);
            sum += w;
          }
          CHECK(sum == Approx(1.0).epsilon(1e-14));
        }
  }
}

TEST_CASE("local with window >= L equals no mask") {
  const json none = run(random_scenario(3, 6, {{"kind", "none"}}));
  const json local = run(random_scenario(3, 6, {{"kind", "local"}, {"window", 6}}));
  CHECK(max_rel_diff(local["context"], none["context"]) == 0.0);
  CHECK(max_rel_diff(local["weights"], none["weights"]) == 0.0);
}

TEST_CASE("causal mask: allowed iff j <= i") {
  const json t = run(random_scenario(5, 4, {{"kind", "causal"}}));
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) CHECK(t["allowed"][0][1][i][j].get<bool>() == (j <= i));
}

TEST_CASE("fill -inf: a row with no allowed key is zero with a warning, never NaN") {
  json s = random_scenario(1, 3, {{"kind", "explicit"}, {"allowed", json::parse("[[0,0,0],[1,1,0],[1,1,1]]")}});
  const json t = run(s);
  for (std::size_t j = 0; j < 3; ++j) CHECK(at(t["weights"], {0, 0, 0, j}) == 0.0);
  for (std::size_t d = 0; d < 4; ++d) CHECK(at(t["context"], {1, 0, 1, d}) == 0.0);
  REQUIRE(!t["warnings"].empty());
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("no allowed key"));
  // a finite fill gives d2l's uniform row instead
  s["mask"]["fill"] = -1e6;
  const json u = run(s);
  CHECK(at(u["weights"], {0, 0, 0, 0}) == Approx(1.0 / 3));
}

TEST_CASE("trace: context only keeps context and cost") {
  json s = random_scenario(2, 4, {{"kind", "none"}});
  s["trace"] = "context";
  const json t = run(s);
  CHECK(t.contains("context"));
  CHECK(!t.contains("scores"));
  CHECK(!t.contains("weights"));
  CHECK(t["shapes"]["context"] == json::array({2, 4, 2, 4}));
}

TEST_CASE("bad input names the field") {
  json s = random_scenario(1, 3, {{"kind", "none"}});
  s["k"][0][2][1] = {1.0, 2.0};
  CHECK(error_of(s) == "k[0][2][1]: expected 3 numbers (E of q), got 2");
  s = random_scenario(1, 3, {{"kind", "none"}});
  s["q"][1][0][0][2] = "x";
  CHECK(error_of(s) == "q[1][0][0][2]: expected a number, got a string");
  s = random_scenario(1, 3, {{"kind", "local"}});
  CHECK(error_of(s) == "mask.window: required");
  s = random_scenario(1, 3, {{"kind", "nope"}});
  CHECK_THAT(error_of(s), Contains("mask.kind: expected one of"));
  s = random_scenario(1, 3, {{"kind", "valid_lens"}, {"valid_lens", {1, 2, 3}}});
  CHECK(error_of(s) == "mask.valid_lens: expected 2 integers (B of q), got 3");
  s = random_scenario(1, 3, {{"kind", "none"}});
  s["algorithm"] = "fast";
  CHECK_THAT(error_of(s), Contains("algorithm: expected one of"));
  CHECK_THAT(error_of(json::array()), Contains("scenario: expected an object"));
}

// ---- sparse masks computed sparsely (seed 002): only the allowed pairs ----------------------

TEST_CASE("allowed_keys lists exactly the keys the mask allows, ascending") {
  std::vector<std::uint32_t> keys;
  for (const MaskKind kind : {MaskKind::none, MaskKind::causal, MaskKind::local, MaskKind::atrous, MaskKind::strided})
    for (const bool causal : {false, true})
      for (std::int64_t w = 0; w <= 3; ++w)
        for (std::int64_t s = 1; s <= 4; ++s) {
          const Mask m = structured_mask(kind, w, s, s, causal);
          for (const std::size_t L_K : {1, 5, 13})
            for (std::size_t i = 0; i < 16; ++i) {  // queries beyond L_K too (L_Q > L_K)
              std::vector<std::uint32_t> expected;
              for (std::size_t j = 0; j < L_K; ++j)
                if (m.allows(0, i, j)) expected.push_back(static_cast<std::uint32_t>(j));
              allowed_keys(m, 0, i, L_K, keys);
              INFO("kind " << mask_kind_name(kind) << " causal " << causal << " w " << w << " s " << s << " L_K " << L_K
                           << " i " << i);
              CHECK(keys == expected);
            }
        }
}

TEST_CASE("a sparse mask's context equals the dense masked computation, and costs its allowed pairs") {
  const std::vector<json> masks = {
      {{"kind", "causal"}},
      {{"kind", "local"}, {"window", 2}},
      {{"kind", "local"}, {"window", 1}, {"causal", true}},
      {{"kind", "atrous"}, {"dilation", 3}},
      {{"kind", "atrous"}, {"dilation", 2}, {"causal", true}},
      {{"kind", "strided"}, {"window", 1}, {"stride", 3}},
      {{"kind", "strided"}, {"window", 2}, {"stride", 4}, {"causal", true}},
      {{"kind", "valid_lens"}, {"valid_lens", {3, 7}}, {"fill", "-inf"}},
      {{"kind", "explicit"}, {"allowed", json::parse("[[1,0,0,0,0,0,0],[1,1,0,0,1,0,0],[0,0,1,0,0,0,1],[1,1,1,1,1,1,1],"
                                                       "[0,1,0,1,0,0,0],[0,0,0,0,0,0,0],[1,0,0,0,0,0,1]]")}},
  };
  for (const auto& m : masks) {
    INFO(m.dump());
    const json scenario = random_scenario(11, 7, m);
    const json sparse = run(scenario);
    // the dense computation: the same mask with a finite fill far below every score is computed
    // over every pair, and its masked weights underflow to exactly 0
    json dense_scenario = scenario;
    dense_scenario["mask"]["fill"] = -1e300;
    const json dense = run(dense_scenario);
    CHECK(dense["cost"]["dot_products"] == 2 * 2 * 7 * 7);
    std::uint64_t allowed = 0;
    for (const auto& b : sparse["allowed"])
      for (const auto& h : b)
        for (const auto& i : h)
          for (const auto& j : i) allowed += j.get<bool>() ? 1 : 0;
    CHECK(sparse["cost"]["dot_products"] == allowed);
    CHECK(sparse["cost"]["dense_dot_products"] == 2 * 2 * 7 * 7);
    if (m["kind"] == "explicit") {  // row 5 has no allowed key: zero in the sparse trace, uniform with a finite fill
      CHECK(sparse["warnings"].size() == 4);
      continue;
    }
    CHECK(max_rel_diff(sparse["context"], dense["context"]) <= 1e-15);
    CHECK(max_rel_diff(sparse["weights"], dense["weights"]) <= 1e-15);
    CHECK(max_rel_diff(sparse["scores"], dense["scores"]) == 0.0);
  }
}

TEST_CASE("a local window at L = 512 computes (2w + 1) L - w (w + 1) products per head, not L^2") {
  Rng rng(5, RngStream::data);
  const std::size_t L = 512, w = 16;
  const json s = {{"algorithm", "full"}, {"trace", "context"},
                  {"q", random_nested(rng, {1, L, 1, 4})}, {"k", random_nested(rng, {1, L, 1, 4})},
                  {"v", random_nested(rng, {1, L, 1, 2})}, {"mask", {{"kind", "local"}, {"window", w}}}};
  const json t = run(s);
  CHECK(t["cost"]["dot_products"] == (2 * w + 1) * L - w * (w + 1));
  CHECK(t["cost"]["dense_dot_products"] == L * L);
}
