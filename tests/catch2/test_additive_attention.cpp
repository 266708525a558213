// Additive attention: d2l's worked example, the formula on a hand-made case, seeded weights,
// and bad inputs.
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;

TEST_CASE("d2l additive: equal keys give uniform weights, context [2,3,4,5] and [10,11,12,13]") {
  const json t = run_preset("d2l-additive");
  const double expected[2][4] = {{2, 3, 4, 5}, {10, 11, 12, 13}};
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t d = 0; d < 4; ++d) CHECK(at(t["context"], {b, 0, 0, d}) == Approx(expected[b][d]).epsilon(1e-14));
  // valid_lens [2, 6]: 1/2 over the first 2 keys, 1/6 over the first 6, exactly 0 beyond
  for (std::size_t j = 0; j < 10; ++j) {
    CHECK(at(t["weights"], {0, 0, 0, j}) == (j < 2 ? 0.5 : 0.0));
    CHECK(at(t["weights"], {1, 0, 0, j}) == Approx(j < 6 ? 1.0 / 6 : 0.0).margin(1e-16));
    // every key is all ones, so every score of a query is the same number
    CHECK(at(t["scores"], {0, 0, 0, j}) == at(t["scores"], {0, 0, 0, 0}));
    CHECK(t["allowed"][1][0][0][j].get<bool>() == (j < 6));
  }
  CHECK(t["shapes"]["scores"] == json::array({2, 1, 1, 10}));
  CHECK(t["shapes"]["context"] == json::array({2, 1, 1, 4}));
  CHECK(t["shapes"]["W_q"] == json::array({8, 20}));
  CHECK(t["shapes"]["W_k"] == json::array({8, 2}));
  CHECK(t["shapes"]["w_v"] == json::array({8}));
  CHECK(t["cost"]["dot_products"] == 20);
  CHECK(t["cost"]["dense_dot_products"] == 20);
  // 2 * (B L_Q h E_q + B L_K h E_k + B L_Q L_K (h + D)) = 2 * (320 + 320 + 240)
  CHECK(t["cost"]["flops"] == 1760);
}

namespace {
// E_q = 2, E_k = 1, h = 3, D = 2, one batch item, two queries, three keys.
json hand_scenario() {
  return json::parse(R"({"algorithm": "additive",
    "q": [[[[0.5, -0.25]], [[1.0, 2.0]]]],
    "k": [[[[0.3]], [[-0.7]], [[2.0]]]],
    "v": [[[[1, 0]], [[0, 1]], [[2, 2]]]],
    "weights": {"W_q": [[1, 0], [0, 1], [0.5, 0.5]], "W_k": [[1], [-1], [2]], "w_v": [1, 2, -1]}})");
}
}  // namespace

TEST_CASE("additive: scores = w_v . tanh(W_q q + W_k k), no scale, E_k != E_q") {
  const json t = run(hand_scenario());
  const double q[2][2] = {{0.5, -0.25}, {1.0, 2.0}}, k[3] = {0.3, -0.7, 2.0};
  const double v[3][2] = {{1, 0}, {0, 1}, {2, 2}};
  for (std::size_t i = 0; i < 2; ++i) {
    const double qh[3] = {q[i][0], q[i][1], 0.5 * q[i][0] + 0.5 * q[i][1]};
    double s[3], z = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      const double kh[3] = {k[j], -k[j], 2 * k[j]};
      s[j] = std::tanh(qh[0] + kh[0]) * 1 + std::tanh(qh[1] + kh[1]) * 2 + std::tanh(qh[2] + kh[2]) * -1;
      CHECK(at(t["scores"], {0, 0, i, j}) == Approx(s[j]).epsilon(1e-15));
    }
    for (double sj : s) z += std::exp(sj);
    for (std::size_t d = 0; d < 2; ++d) {
      double c = 0;
      for (std::size_t j = 0; j < 3; ++j) c += std::exp(s[j]) / z * v[j][d];
      CHECK(at(t["context"], {0, i, 0, d}) == Approx(c).epsilon(1e-14));
    }
  }
  // given weights are inputs: in shapes, not repeated in the trace
  CHECK(!t.contains("W_q"));
  CHECK(t["shapes"]["W_k"] == json::array({3, 1}));
  CHECK(t["warnings"].empty());
}

TEST_CASE("additive: features = tanh(W_q q + W_k k) (B, L_Q, L_K, h), before w_v") {
  const json t = run(hand_scenario());
  REQUIRE(t["shapes"]["features"] == json::array({1, 2, 3, 3}));
  // query 0: W_q q = [0.5, -0.25, 0.125]; key 0: W_k k = [0.3, -0.3, 0.6]
  CHECK(at(t["features"], {0, 0, 0, 0}) == Approx(std::tanh(0.8)).epsilon(1e-15));
  CHECK(at(t["features"], {0, 0, 0, 1}) == Approx(std::tanh(-0.55)).epsilon(1e-15));
  CHECK(at(t["features"], {0, 0, 0, 2}) == Approx(std::tanh(0.725)).epsilon(1e-15));
  // query 1: W_q q = [1, 2, 1.5]; key 2: W_k k = [2, -2, 4]
  CHECK(at(t["features"], {0, 1, 2, 0}) == Approx(std::tanh(3.0)).epsilon(1e-15));
  CHECK(at(t["features"], {0, 1, 2, 1}) == 0.0);
  CHECK(at(t["features"], {0, 1, 2, 2}) == Approx(std::tanh(5.5)).epsilon(1e-15));
  // scores = w_v . features, w_v = [1, 2, -1]
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      const double s = at(t["features"], {0, i, j, 0}) + 2 * at(t["features"], {0, i, j, 1}) - at(t["features"], {0, i, j, 2});
      CHECK(at(t["scores"], {0, 0, i, j}) == Approx(s).epsilon(1e-15));
    }
  // trace "context" leaves them out
  json c = hand_scenario();
  c["trace"] = "context";
  CHECK(!run(c).contains("features"));
  // at trace "full" they must fit the tensor limit: L_Q = L_K = 64, h = 4097 is 64 x 64 numbers too many
  json big = json::parse(R"({"algorithm": "additive", "hidden": 4097})");
  json column = json::array();
  for (int j = 0; j < 64; ++j) column.push_back(json::parse("[[0.5]]"));
  big["q"] = big["k"] = big["v"] = json::array({column});
  CHECK(error_of(big) == "hidden: the features tanh(W_q q + W_k k) (B, L_Q, L_K, h) would hold 16781312 numbers, "
                         "more than the limit 16777216; use \"trace\": \"context\"");
}

TEST_CASE("additive: the mask applies; causal with -inf zeroes the future keys") {
  json s = hand_scenario();
  s["mask"] = {{"kind", "causal"}};
  const json t = run(s);
  CHECK(at(t["weights"], {0, 0, 0, 0}) == 1.0);
  CHECK(at(t["weights"], {0, 0, 0, 1}) == 0.0);
  CHECK(at(t["weights"], {0, 0, 1, 2}) == 0.0);
  CHECK(at(t["weights"], {0, 0, 1, 0}) + at(t["weights"], {0, 0, 1, 1}) == Approx(1.0).epsilon(1e-15));
  CHECK(at(t["context"], {0, 0, 0, 0}) == 1.0);
  // scores are before the mask: the same as without it
  const json u = run(hand_scenario());
  CHECK(max_rel_diff(t["scores"], u["scores"]) == 0.0);
}

TEST_CASE("additive: seeded weights are torch Linear's init, drawn W_q, W_k, w_v row-major") {
  json s = hand_scenario();
  s.erase("weights");
  s["hidden"] = 4;
  s["seed"] = 42;
  const json t = run(s);
  REQUIRE(t["shapes"]["W_q"] == json::array({4, 2}));
  REQUIRE(t["shapes"]["W_k"] == json::array({4, 1}));
  REQUIRE(t["shapes"]["w_v"] == json::array({4}));
  Rng rng(42, RngStream::weights);
  const double bq = 1 / std::sqrt(2.0), bk = 1.0, bv = 0.5;
  for (std::size_t h = 0; h < 4; ++h)
    for (std::size_t e = 0; e < 2; ++e) CHECK(at(t["W_q"], {h, e}) == rng.uniform(-bq, bq));
  for (std::size_t h = 0; h < 4; ++h) CHECK(at(t["W_k"], {h, 0}) == rng.uniform(-bk, bk));
  for (std::size_t h = 0; h < 4; ++h) CHECK(at(t["w_v"], {h}) == rng.uniform(-bv, bv));
  // feeding the drawn weights back gives the same trace
  json given = hand_scenario();
  given["weights"] = {{"W_q", t["W_q"]}, {"W_k", t["W_k"]}, {"w_v", t["w_v"]}};
  const json g = run(given);
  CHECK(max_rel_diff(g["context"], t["context"]) == 0.0);
  CHECK(max_rel_diff(g["scores"], t["scores"]) == 0.0);
  // trace "context" keeps only the context
  s["trace"] = "context";
  const json c = run(s);
  CHECK(!c.contains("W_q"));
  CHECK(!c.contains("scores"));
  CHECK(max_rel_diff(c["context"], t["context"]) == 0.0);
}

TEST_CASE("additive: bad input names the field") {
  json s = hand_scenario();
  s["q"] = json::parse("[[[[1], [2]]]]");
  CHECK(error_of(s) == "q: additive attention takes H = 1, got 2");
  s = hand_scenario();
  s.erase("weights");
  CHECK_THAT(error_of(s), Contains("hidden: required"));
  s["hidden"] = 0;
  CHECK(error_of(s) == "hidden: expected an integer from 1 to 65536, got 0");
  s = hand_scenario();
  s["weights"]["W_k"] = json::parse("[[1, 2], [3, 4], [5, 6]]");
  CHECK(error_of(s) == "weights.W_k[0]: expected 1 number (E_k of k), got 2");
  s = hand_scenario();
  s["weights"]["w_v"] = json::parse("[1, 2]");
  CHECK(error_of(s) == "weights.w_v: expected 3 numbers (h of W_q), got 2");
  s = hand_scenario();
  s["hidden"] = 5;
  CHECK(error_of(s) == "weights.W_q: expected 5 entries (hidden), got 3");
  s = hand_scenario();
  s["weights"].erase("W_q");
  CHECK(error_of(s) == "weights.W_q: required");
  s = hand_scenario();
  s["k"] = json::parse("[[[[0.3], [0.3]], [[-0.7], [1]], [[2.0], [1]]]]");
  CHECK(error_of(s) == "k[0][0]: expected 1 entry (H = 1), got 2");
  s = hand_scenario();
  s["v"] = json::parse("[[[[1, 0]], [[0, 1]]]]");
  CHECK(error_of(s) == "v[0]: expected 3 entries (L_K of k), got 2");
  s = hand_scenario();
  s["q"][0][1][0] = {1e308, 1e308};
  s["weights"]["W_q"][0] = {2, 0};
  CHECK(error_of(s) == "q: W_q q is not a finite number at batch 0, position 1, column 0 (|q| and the weights too large)");
  s = hand_scenario();
  s["mask"] = {{"kind", "valid_lens"}, {"valid_lens", {1, 2}}};
  CHECK(error_of(s) == "mask.valid_lens: expected 1 integer (B of q), got 2");
}
