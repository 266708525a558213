// Multi-head attention: a tiny case done by hand, head order, seeded weights, the seeds' d2l
// and AttentionLayer examples, inner ProbAttention, and error messages.
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

// B = 1, L_Q = 2, L_K = 3, d = 2, num_heads 2 of d_head 2 (num_hiddens 4), biases, valid_lens [2].
json tiny() {
  return json::parse(R"({"algorithm": "multihead", "num_heads": 2,
    "queries": [[[1, 2], [0, -1]]],
    "keys": [[[1, 0], [0, 1], [1, 1]]],
    "values": [[[2, 0], [0, 3], [1, -1]]],
    "weights": {
      "W_q": [[1, 0], [0, 1], [1, 1], [0.5, -1]],
      "W_k": [[0, 1], [1, 0], [1, -1], [2, 0]],
      "W_v": [[1, 2], [3, 4], [-1, 0], [0, 1]],
      "W_o": [[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 1, 1]],
      "b_q": [0.1, 0, 0, -0.2], "b_k": [0, 0.5, 0, 0], "b_v": [1, 0, 0, 0], "b_o": [0, 0, 0.25]},
    "mask": {"kind": "valid_lens", "valid_lens": [2]}})");
}

}  // namespace

TEST_CASE("multihead inner full equals doing it by hand") {
  const json s = tiny();
  const json t = run(s);
  const json& W = s["weights"];
  const auto X = s["queries"][0], Y = s["keys"][0], Z = s["values"][0];
  auto lin = [](const json& x, const json& w, const json& b) {
    std::vector<double> y(w.size());
    for (std::size_t o = 0; o < w.size(); ++o) {
      y[o] = b[o].get<double>();
      for (std::size_t i = 0; i < x.size(); ++i) y[o] += x[i].get<double>() * w[o][i].get<double>();
    }
    return y;
  };
  std::vector<std::vector<double>> Q, K, V;
  for (const auto& x : X) Q.push_back(lin(x, W["W_q"], W["b_q"]));
  for (const auto& y : Y) K.push_back(lin(y, W["W_k"], W["b_k"]));
  for (const auto& z : Z) V.push_back(lin(z, W["W_v"], W["b_v"]));
  const double scale = 1.0 / std::sqrt(2.0);  // d_head = 2
  for (std::size_t i = 0; i < 2; ++i) {
    std::vector<double> concat(4, 0.0);
    for (std::size_t h = 0; h < 2; ++h) {
      // keys 0 and 1 valid; key 2 gets d2l's -1e6, so exp underflows to exactly 0
      double s0 = 0, s1 = 0;
      for (std::size_t d = 0; d < 2; ++d) {
        s0 += Q[i][2 * h + d] * K[0][2 * h + d];
        s1 += Q[i][2 * h + d] * K[1][2 * h + d];
        CHECK(at(t["q"], {0, i, h, d}) == Approx(Q[i][2 * h + d]).epsilon(1e-15));
      }
      const double w0 = 1.0 / (1.0 + std::exp(scale * (s1 - s0))), w1 = 1.0 - w0;
      CHECK(at(t["head_weights"], {0, h, i, 0}) == Approx(w0).epsilon(1e-13));
      CHECK(at(t["head_weights"], {0, h, i, 1}) == Approx(w1).epsilon(1e-13));
      CHECK(at(t["head_weights"], {0, h, i, 2}) == 0.0);
      for (std::size_t d = 0; d < 2; ++d) {
        concat[2 * h + d] = w0 * V[0][2 * h + d] + w1 * V[1][2 * h + d];
        CHECK(at(t["head_context"], {0, i, h, d}) == Approx(concat[2 * h + d]).epsilon(1e-13));
      }
    }
    const auto out = lin(json(concat), W["W_o"], W["b_o"]);
    for (std::size_t o = 0; o < 3; ++o) CHECK(at(t["output"], {0, i, o}) == Approx(out[o]).epsilon(1e-13));
  }
  CHECK(t["shapes"]["output"] == json::array({1, 2, 3}));
  CHECK(t["shapes"]["head_context"] == json::array({1, 2, 2, 2}));
  CHECK(t["cost"]["dot_products"] == 2 * 2 * 3);
}

TEST_CASE("multihead concatenates the heads in order") {
  json s = tiny();
  s["weights"]["W_o"] = json::parse("[[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]]");
  s["weights"].erase("b_o");
  const json t = run(s);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t d = 0; d < 2; ++d)
        CHECK(at(t["output"], {0, i, 2 * h + d}) == at(t["head_context"], {0, i, h, d}));
}

TEST_CASE("multihead seeded weights: nn.Linear's uniform bounds from Rng(seed, weights), W_q..W_o then biases") {
  json s = tiny();
  s.erase("weights");
  s["num_hiddens"] = 4;
  s["seed"] = 9;
  const json t = run(s);
  CHECK(!t.contains("b_q"));  // d2l: bias=False
  Rng rng(9, RngStream::weights);
  const double bq = 1.0 / std::sqrt(2.0), bo = 0.5;
  for (std::size_t o = 0; o < 4; ++o)
    for (std::size_t i = 0; i < 2; ++i) CHECK(at(t["W_q"], {o, i}) == rng.uniform(-bq, bq));
  for (std::size_t n = 0; n < 16; ++n) rng.next();  // W_k, W_v
  CHECK(at(t["W_o"], {0, 0}) == rng.uniform(-bo, bo));
  s["bias"] = true;
  const json b = run(s);
  REQUIRE(b.contains("b_o"));
  CHECK(b["W_o"] == t["W_o"]);
  Rng after(9, RngStream::weights);
  for (std::size_t n = 0; n < 8 + 8 + 8 + 16; ++n) after.next();
  CHECK(at(b["b_q"], {0}) == after.uniform(-bq, bq));
  s["seed"] = 10;
  CHECK(run(s)["W_q"] != b["W_q"]);
}

TEST_CASE("d2l MultiHeadAttention: ones (2,4,100) and (2,6,100), valid_lens [3, 2] -> (2, 4, 100)") {
  const json t = run_preset("d2l-multihead");
  CHECK(t["shapes"]["output"] == json::array({2, 4, 100}));
  CHECK(t["shapes"]["q"] == json::array({2, 4, 5, 20}));  // transpose_qkv's (10, 4, 20) per head
  CHECK(t["shapes"]["k"] == json::array({2, 6, 5, 20}));
  CHECK(t["shapes"]["head_weights"] == json::array({2, 5, 4, 6}));
  CHECK(t["shapes"]["W_o"] == json::array({100, 100}));
  // identical queries and keys: uniform over the valid keys
  for (std::size_t h = 0; h < 5; ++h)
    for (std::size_t j = 0; j < 6; ++j) {
      CHECK(at(t["head_weights"], {0, h, 1, j}) == Approx(j < 3 ? 1.0 / 3 : 0.0).margin(1e-15));
      CHECK(at(t["head_weights"], {1, h, 3, j}) == Approx(j < 2 ? 0.5 : 0.0).margin(1e-15));
    }
  // identical values: every output row is the same, whatever the lengths
  CHECK(max_rel_diff(t["output"][0], t["output"][1]) < 1e-14);
  CHECK(max_rel_diff(t["output"][0][0], t["output"][0][3]) < 1e-14);
  CHECK(std::abs(at(t["output"], {0, 0, 0})) > 0.0);
}

TEST_CASE("AttentionLayer shape chain: (2,6,16) -> view(B,L,H,-1) -> (2,6,2,8)") {
  const json t = run_preset("tslib-shape-chain");
  CHECK(t["shapes"]["queries"] == json::array({2, 6, 16}));
  CHECK(t["shapes"]["q"] == json::array({2, 6, 2, 8}));
  CHECK(t["shapes"]["scores"] == json::array({2, 2, 6, 6}));
  CHECK(t["shapes"]["head_context"] == json::array({2, 6, 2, 8}));
  CHECK(t["shapes"]["output"] == json::array({2, 6, 16}));
  CHECK(t["shapes"]["b_q"] == json::array({16}));  // AttentionLayer's nn.Linear has a bias
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 6; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < 6; ++j) sum += at(t["head_weights"], {b, 1, i, j});
      CHECK(sum == Approx(1.0).epsilon(1e-14));
    }
}

TEST_CASE("multihead inner prob: u = L_Q equals inner full; Informer layer shapes") {
  Rng rng(3, RngStream::data);
  json s = {{"algorithm", "multihead"}, {"num_heads", 2}, {"num_hiddens", 8}, {"bias", true}, {"seed", 4}};
  s["queries"] = random_nested(rng, {2, 5, 8});
  s["keys"] = s["queries"];
  s["values"] = s["queries"];
  const json full = run(s);
  s["inner"] = "prob";
  s["factor"] = 10;
  const json prob = run(s);
  CHECK(max_rel_diff(prob["output"], full["output"]) < 1e-12);
  CHECK(max_rel_diff(prob["head_weights"], full["head_weights"]) < 1e-12);
  CHECK(prob["W_q"] == full["W_q"]);

  const json t = run_preset("informer-prob-layer");
  CHECK(t["U_part"] == 6);
  CHECK(t["u"] == 6);
  CHECK(t["shapes"]["top_index"] == json::array({1, 2, 6}));
  CHECK(t["shapes"]["output"] == json::array({1, 12, 16}));
  CHECK(t["cost"]["dot_products"] == 2 * (12 * 6 + 6 * 12));
  std::size_t uniform_rows = 0;
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t i = 0; i < 12; ++i) uniform_rows += at(t["head_weights"], {0, h, i, 5}) == 1.0 / 12;
  CHECK(uniform_rows == 12);  // 6 rows per head keep the uniform 1/L_K
  // trace "context": output only (head_weights because output_attention is set)
  json c = find_preset("informer-prob-layer")->scenario;
  c["trace"] = "context";
  const json ct = run(c);
  CHECK(ct.contains("output"));
  CHECK(ct.contains("head_weights"));
  CHECK(!ct.contains("sparsity"));
  CHECK(!ct.contains("W_q"));
  c["output_attention"] = false;
  CHECK(!run(c).contains("head_weights"));
}

TEST_CASE("multihead bad inputs name the field") {
  json s = find_preset("d2l-multihead")->scenario;
  s["num_heads"] = 3;
  CHECK(error_of(s) == "num_heads: 3 does not divide num_hiddens = 100");
  s = tiny();
  s["num_heads"] = 3;
  CHECK(error_of(s) == "num_heads: 3 does not divide the rows of weights.W_q = 4");
  s = tiny();
  s["weights"]["W_k"].erase(3);
  CHECK(error_of(s) == "weights.W_k: expected 4 entries (rows of W_q), got 3");
  s = tiny();
  s["weights"]["b_o"] = json::array({1, 2});
  CHECK(error_of(s) == "weights.b_o: expected 3 numbers (rows of W_o), got 2");
  s = tiny();
  s.erase("weights");
  CHECK(error_of(s) == "num_hiddens: required when weights are not given");
  s = tiny();
  s["num_hiddens"] = 8;
  CHECK(error_of(s) == "num_hiddens: expected 4 (the rows of weights.W_q), got 8");
  s = tiny();
  s["keys"] = json::parse("[[[1, 0]], [[0, 1]]]");
  CHECK(error_of(s) == "keys: expected 1 entry (B of queries), got 2");
  s = tiny();
  s["inner"] = "sparse";
  CHECK(error_of(s) == "inner: expected one of \"full\", \"prob\", got \"sparse\"");
  s = tiny();
  s["inner"] = "prob";
  CHECK_THAT(error_of(s), StartsWith("mask.kind: ProbAttention takes"));
  s = tiny();
  s["num_heads"] = 0;
  CHECK_THAT(error_of(s), StartsWith("num_heads: expected an integer from 1"));
  // numbers that overflow: a projection (position and column of the (B, L, num_hiddens) result), the output
  s = tiny();
  s["queries"][0][1] = {1e308, 1e308};
  CHECK(error_of(s) == "queries: queries W_q^T + b_q is not a finite number at batch 0, position 1, column 2 "
                       "(|queries| and the weights too large)");
  s = tiny();
  s["weights"]["W_o"][2] = {1e308, 1e308, 1e308, 1e308};
  CHECK(error_of(s) == "weights.W_o: the output (head contexts W_o^T + b_o) is not a finite number at batch 0, "
                       "position 0, column 2");
}
