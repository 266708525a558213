// Linformer: E = F = identity is full attention, the projections and scores by hand, the seeded
// projections (the documented draw), the cost, the trace levels, the preset's numbers and the
// errors that name their field.
#include <cmath>

#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

json identity(std::size_t n) {
  json m = json::array();
  for (std::size_t r = 0; r < n; ++r) {
    json row = json::array();
    for (std::size_t j = 0; j < n; ++j) row.push_back(r == j ? 1.0 : 0.0);
    m.push_back(row);
  }
  return m;
}

}  // namespace

TEST_CASE("linformer: E_proj = F_proj = identity (k = L_K) equals full attention") {
  json s = random_qkv("linformer", 1, 2, 2, 5, 6, 3, 4, {{"proj_len", 6}});
  s["E_proj"] = s["F_proj"] = identity(6);
  const json t = run(s);
  CHECK(t["max_abs_error"].get<double>() < 1e-12);
  json f = s;
  f["algorithm"] = "full";
  for (const char* key : {"proj_len", "E_proj", "F_proj"}) f.erase(key);
  const json full = run(f);
  CHECK(max_rel_diff(t["context"], full["context"]) < 1e-12);
  CHECK(max_rel_diff(t["weights"], full["weights"]) < 1e-12);
  CHECK(max_rel_diff(t["projected_k"], s["k"]) == 0.0);
  CHECK(max_rel_diff(t["projected_v"], s["v"]) == 0.0);
  // the preset says so too
  CHECK(run_preset("linformer-identity")["max_abs_error"].get<double>() < 1e-12);
}

TEST_CASE("linformer: projections, scores and context by hand") {
  // B = H = 1, L_Q = 1, L_K = 3, E = D = 1, k = 2
  const json s = json::parse(R"({"algorithm": "linformer", "scale": 1, "q": [[[[2]]]],
      "k": [[[[1]], [[0]], [[3]]]], "v": [[[[10]], [[20]], [[30]]]],
      "E_proj": [[1, 1, 0], [0, 0.5, 0.5]], "F_proj": [[1, 0, 0], [0, 0, 1]]})");
  const json t = run(s);
  // projected_k = E_proj k = [1, 1.5]; projected_v = F_proj v = [10, 30]
  CHECK(at(t["projected_k"], {0, 0, 0, 0}) == 1.0);
  CHECK(at(t["projected_k"], {0, 1, 0, 0}) == 1.5);
  CHECK(at(t["projected_v"], {0, 1, 0, 0}) == 30.0);
  // scores [2, 3] -> weights [1, e] / (1 + e) -> context (10 + 30 e) / (1 + e)
  CHECK(at(t["scores"], {0, 0, 0, 1}) == 3.0);
  const double e = std::exp(1.0);
  CHECK(at(t["weights"], {0, 0, 0, 0}) == Approx(1.0 / (1.0 + e)).epsilon(1e-15));
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx((10.0 + 30.0 * e) / (1.0 + e)).epsilon(1e-15));
  // exact: softmax([2, 0, 6]) . [10, 20, 30]
  const double z = std::exp(2.0) + 1.0 + std::exp(6.0);
  const double exact = (10.0 * std::exp(2.0) + 20.0 + 30.0 * std::exp(6.0)) / z;
  CHECK(at(t["exact_context"], {0, 0, 0, 0}) == Approx(exact).epsilon(1e-15));
  CHECK(t["max_abs_error"].get<double>() == Approx(std::abs(exact - (10.0 + 30.0 * e) / (1.0 + e))).epsilon(1e-12));
}

TEST_CASE("linformer: weights (B, H, L_Q, k), rows sum to 1, cost counts the n x k scores and E_proj K") {
  const json t = run(random_qkv("linformer", 2, 2, 3, 7, 9, 4, 2, {{"proj_len", 3}}));
  CHECK(t["shapes"]["weights"] == json::array({2, 3, 7, 3}));
  CHECK(t["shapes"]["scores"] == json::array({2, 3, 7, 3}));
  CHECK(t["shapes"]["projected_k"] == json::array({2, 3, 3, 4}));
  CHECK(t["shapes"]["projected_v"] == json::array({2, 3, 3, 2}));
  CHECK(t["shapes"]["E_proj"] == json::array({3, 9}));
  for (const auto& b : t["weights"])
    for (const auto& h : b)
      for (const auto& row : h) {
        double sum = 0;
        for (const auto& w : row) sum += w.get<double>();
        CHECK(sum == Approx(1.0).epsilon(1e-14));
      }
  // dot_products = B*H*(L_Q*k + k*L_K); flops = 2*B*H*(k*L_K*(E + D) + L_Q*k*(E + D))
  CHECK(t["cost"]["dot_products"] == 2 * 3 * (7 * 3 + 3 * 9));
  CHECK(t["cost"]["dense_dot_products"] == 2 * 3 * 7 * 9);
  CHECK(t["cost"]["flops"] == 2 * 2 * 3 * (3 * 9 * 6 + 7 * 3 * 6));
}

TEST_CASE("linformer: seeded E_proj, F_proj: xavier_uniform_(gain 1/sqrt(2)) from the weights stream") {
  json s = random_qkv("linformer", 3, 1, 1, 4, 10, 2, 2, {{"proj_len", 5}});
  s["seed"] = 42;
  const json t = run(s);
  const json again = run(s);
  CHECK(max_rel_diff(again["E_proj"], t["E_proj"]) == 0.0);
  CHECK(max_rel_diff(again["context"], t["context"]) == 0.0);
  // the documented draw: uniform(-sqrt(3 / (L_K + k)), +) row-major, E_proj then F_proj
  Rng rng(42, RngStream::weights);
  const double bound = std::sqrt(3.0 / 15.0);
  for (const char* name : {"E_proj", "F_proj"})
    for (std::size_t r = 0; r < 5; ++r)
      for (std::size_t j = 0; j < 10; ++j) CHECK(at(t[name], {r, j}) == rng.uniform(-bound, bound));
  s["seed"] = 43;
  CHECK(max_rel_diff(run(s)["E_proj"], t["E_proj"]) > 0.0);
}

TEST_CASE("linformer: trace context holds the context only") {
  json s = random_qkv("linformer", 4, 1, 2, 6, 6, 3, 3, {{"proj_len", 2}});
  s["trace"] = "context";
  const json t = run(s);
  CHECK(t.contains("context"));
  for (const char* f : {"E_proj", "F_proj", "projected_k", "projected_v", "scores", "weights", "exact_context", "max_abs_error"})
    CHECK(!t.contains(f));
  CHECK(t["cost"]["dot_products"] == 2 * (6 * 2 + 2 * 6));
}

TEST_CASE("linformer-k4: the preset's numbers") {
  const json t = run_preset("linformer-k4");
  CHECK(t["cost"]["dot_products"] == 128);
  CHECK(t["cost"]["dense_dot_products"] == 256);
  CHECK(t["max_abs_error"].get<double>() == Approx(0.978).margin(1e-3));
}

TEST_CASE("linformer: bad inputs name their field") {
  json s = random_qkv("linformer", 5, 1, 1, 2, 3, 2, 2, {{"proj_len", 2}});
  s["mask"] = {{"kind", "causal"}};
  CHECK_THAT(error_of(s), StartsWith("mask.kind: linformer takes no mask"));
  s["mask"] = {{"kind", "none"}, {"causal", true}};
  CHECK_THAT(error_of(s), StartsWith("mask.causal: "));
  s.erase("mask");
  s.erase("proj_len");
  CHECK_THAT(error_of(s), StartsWith("proj_len: required"));
  s["E_proj"] = identity(3);
  CHECK_THAT(error_of(s), StartsWith("F_proj: required with E_proj"));
  s["F_proj"] = identity(2);
  CHECK(error_of(s) == "F_proj: expected 3 entries (rows of E_proj), got 2");
  s["F_proj"] = identity(3);
  s["proj_len"] = 2;
  CHECK(error_of(s) == "E_proj: expected 2 entries (proj_len), got 3");
}
