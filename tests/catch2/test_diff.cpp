// Differential attention: the toy preset's numbers by hand, lambda = 0 is full attention on the
// first halves, rows sum to 1 - lambda, the masks on both maps, the re-parameterised lambda and
// lambda_init, and the errors.
#include <cmath>

#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

// The halves [from, to) of the last axis of a (B, L, H, E) nested array.
json half(const json& x, std::size_t from, std::size_t to) {
  json out = json::array();
  for (const auto& bl : x) {
    json l = json::array();
    for (const auto& lh : bl) {
      json h = json::array();
      for (const auto& row : lh) {
        json r = json::array();
        for (std::size_t c = from; c < to; ++c) r.push_back(row[c]);
        h.push_back(r);
      }
      l.push_back(h);
    }
    out.push_back(l);
  }
  return out;
}

}  // namespace

TEST_CASE("diff: the toy preset's worked numbers") {
  // q = [q1, q2] = [1, 1]; k1 = [2, 1, 0], k2 = [0, 0, 0]; scale 1, lambda 0.5, depth 1.
  //   map 1: softmax([2, 1, 0]) = [e^2, e, 1] / (e^2 + e + 1) = [0.665241, 0.244728, 0.090031]
  //   map 2: softmax([0, 0, 0]) = [1/3, 1/3, 1/3]
  //   weights = map1 - 0.5 map2 = [0.498574, 0.078062, -0.076636], sum 1 - 0.5 = 0.5
  //   context = 0.498574 [10, 0] + 0.078062 [0, 20] - 0.076636 [10, 10] = [4.219382, 0.794875]
  //   lambda_init = 0.8 - 0.6 exp(0) = 0.2; RMS = sqrt((4.219382^2 + 0.794875^2) / 2 + 1e-5) = 3.036
  //   normed_context = [4.219382, 0.794875] / 3.036 * 0.8 = [1.111813, 0.209451]
  const json t = run_preset("diff-toy");
  const double e = std::exp(1.0), z = e * e + e + 1;
  const double w[3] = {e * e / z - 0.5 / 3, e / z - 0.5 / 3, 1 / z - 0.5 / 3};
  for (std::size_t j = 0; j < 3; ++j) CHECK(at(t["weights"], {0, 0, 0, j}) == Approx(w[j]).epsilon(1e-14));
  CHECK(at(t["weights"], {0, 0, 0, 0}) == Approx(0.498574).margin(1e-6));
  CHECK(at(t["weights"], {0, 0, 0, 2}) == Approx(-0.076636).margin(1e-6));
  CHECK(at(t["weights2"], {0, 0, 0, 1}) == Approx(1.0 / 3).epsilon(1e-15));
  CHECK(t["lambda"].get<double>() == 0.5);
  CHECK(t["lambda_init"].get<double>() == Approx(0.2).epsilon(1e-15));
  const double c0 = 10 * w[0] + 10 * w[2], c1 = 20 * w[1] + 10 * w[2];
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx(c0).epsilon(1e-14));
  CHECK(at(t["context"], {0, 0, 0, 1}) == Approx(c1).epsilon(1e-14));
  CHECK(c0 == Approx(4.219382).margin(1e-6));
  CHECK(c1 == Approx(0.794875).margin(1e-6));
  const double rms = std::sqrt((c0 * c0 + c1 * c1) / 2 + 1e-5);
  CHECK(at(t["normed_context"], {0, 0, 0, 0}) == Approx(c0 / rms * 0.8).epsilon(1e-14));
  CHECK(at(t["normed_context"], {0, 0, 0, 0}) == Approx(1.111813).margin(1e-6));
  CHECK(at(t["normed_context"], {0, 0, 0, 1}) == Approx(0.209451).margin(1e-6));
}

TEST_CASE("diff: lambda = 0 gives full attention's weights (exactly) and context on q1, k1") {
  for (const char* mask : {R"({"kind": "none"})", R"({"kind": "causal"})", R"({"kind": "local", "window": 1})",
                           R"({"kind": "valid_lens", "valid_lens": [2, 4]})"}) {
    INFO(mask);
    json s = random_qkv("diff", 3, 2, 2, 5, 6, 6, 3, {{"lambda", 0}});
    s["mask"] = json::parse(mask);
    const json t = run(s);
    json f = {{"algorithm", "full"}, {"q", half(s["q"], 0, 3)}, {"k", half(s["k"], 0, 3)}, {"v", s["v"]},
              {"scale", 1 / std::sqrt(3.0)}, {"mask", s["mask"]}};
    const json full = run(f);
    CHECK(max_rel_diff(t["weights"], full["weights"]) == 0.0);
    CHECK(max_rel_diff(t["weights1"], full["weights"]) == 0.0);
    // full's context comes from the fused kernel (online softmax, another order of sums)
    CHECK(max_rel_diff(t["context"], full["context"]) < 1e-14);
  }
}

TEST_CASE("diff: every row of weights sums to 1 - lambda, under every mask kind") {
  for (const char* mask : {R"({"kind": "none"})", R"({"kind": "causal"})", R"({"kind": "atrous", "dilation": 2})",
                           R"({"kind": "strided", "window": 1, "stride": 3, "causal": true})"}) {
    INFO(mask);
    json s = random_qkv("diff", 5, 1, 3, 6, 6, 4, 2, {{"lambda", 0.37}});
    s["mask"] = json::parse(mask);
    const json t = run(s);
    for (std::size_t h = 0; h < 3; ++h)
      for (std::size_t i = 0; i < 6; ++i) {
        double sum = 0;
        for (std::size_t j = 0; j < 6; ++j) {
          sum += at(t["weights"], {0, h, i, j});
          if (!t["allowed"][0][h][i][j].get<bool>()) {  // the mask holds on both maps
            CHECK(at(t["weights1"], {0, h, i, j}) == 0.0);
            CHECK(at(t["weights2"], {0, h, i, j}) == 0.0);
          }
        }
        CHECK(sum == Approx(1 - 0.37).epsilon(1e-14));
      }
  }
}

TEST_CASE("diff: an empty row under fill -inf is zero and warned; a finite fill is uniform on both maps") {
  json s = random_qkv("diff", 7, 1, 1, 3, 4, 2, 2, {{"lambda", 0.5}});
  s["mask"] = json::parse(R"({"kind": "valid_lens", "valid_lens": [[0, 2, 4]], "fill": "-inf"})");
  json t = run(s);
  CHECK(at(t["context"], {0, 0, 0, 0}) == 0.0);
  CHECK(at(t["normed_context"], {0, 0, 0, 1}) == 0.0);
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(), StartsWith("batch 0, head 0, query 0 has no allowed key"));
  s["mask"]["fill"] = -1e6;  // d2l: a row with no key is uniform in both maps, so its weights are (1 - lambda) / L_K
  t = run(s);
  CHECK(at(t["weights"], {0, 0, 0, 3}) == Approx(0.5 / 4).epsilon(1e-14));
}

TEST_CASE("diff: the re-parameterised lambda and lambda_init from depth") {
  json s = random_qkv("diff", 9, 1, 1, 2, 3, 4, 2,
                      json::parse(R"({"depth": 4, "lambda": {"q1": [0.3, -0.1], "k1": [0.5, 0.2], "q2": [0.1, 0.1],
                                      "k2": [-0.4, 0.3]}})"));
  json t = run(s);
  const double init = 0.8 - 0.6 * std::exp(-0.9);
  CHECK(t["lambda_init"].get<double>() == Approx(init).epsilon(1e-15));
  CHECK(t["lambda"].get<double>() == Approx(std::exp(0.15 - 0.02) - std::exp(-0.04 + 0.03) + init).epsilon(1e-14));
  s["lambda"]["init"] = 0.1;
  s["lambda_init"] = 0.5;
  t = run(s);
  CHECK(t["lambda"].get<double>() == Approx(std::exp(0.13) - std::exp(-0.01) + 0.1).epsilon(1e-14));
  CHECK(t["lambda_init"].get<double>() == 0.5);
  s.erase("lambda");  // no lambda: lambda_init
  CHECK(run(s)["lambda"].get<double>() == 0.5);
}

TEST_CASE("diff: errors name their field") {
  const json ok = random_qkv("diff", 1, 1, 1, 2, 3, 4, 2);
  json s = random_qkv("diff", 1, 1, 1, 2, 3, 3, 2);
  CHECK_THAT(error_of(s), StartsWith("q: expected an even E"));
  s = ok;
  s["lambda"] = "big";
  CHECK_THAT(error_of(s), StartsWith("lambda: expected a number or"));
  s["lambda"] = json::parse(R"({"q1": [1, 2, 3], "k1": [1, 2], "q2": [1, 2], "k2": [1, 2]})");
  CHECK_THAT(error_of(s), StartsWith("lambda.q1"));
  s["lambda"] = json::parse(R"({"q1": [1, 2], "k1": [1, 2], "q2": [1, 2]})");
  CHECK_THAT(error_of(s), StartsWith("lambda.k2"));
  s["lambda"] = json::parse(R"({"q1": [30, 30], "k1": [30, 30], "q2": [1, 2], "k2": [1, 2]})");
  CHECK_THAT(error_of(s), StartsWith("lambda: exp(q1 . k1) - exp(q2 . k2) overflows"));
  s = ok;
  s["depth"] = 0;
  CHECK_THAT(error_of(s), StartsWith("depth"));
}

// modern-b (issue 16): the noise-cancelling preset, by hand.
TEST_CASE("diff: common-mode noise cancels (diff-noise-cancel), lambda from unilm's vectors") {
  const json t = run_preset("diff-noise-cancel");
  // map 1: softmax([0, 0, 2, 0, 3, 3]), map 2: softmax([0, 0, 0, 0, 3, 3]); lambda = e^0.3 - e^0.1 + 0.6
  const double e2 = std::exp(2.0), e3 = std::exp(3.0);
  const double z1 = 3 + e2 + 2 * e3, z2 = 4 + 2 * e3;
  const double lambda = std::exp(0.3) - std::exp(0.1) + 0.6;
  CHECK(t["lambda"].get<double>() == Approx(lambda).epsilon(1e-15));
  CHECK(lambda == Approx(0.8447).margin(1e-4));
  const double signal = e2 / z1 - lambda / z2, noise = e3 / z1 - lambda * e3 / z2;
  CHECK(at(t["weights"], {0, 0, 0, 2}) == Approx(signal).epsilon(1e-13));
  CHECK(at(t["weights"], {0, 0, 0, 4}) == Approx(noise).epsilon(1e-13));
  CHECK(at(t["weights1"], {0, 0, 0, 4}) == Approx(0.397).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 0, 4}) == Approx(0.013).margin(5e-4));
  CHECK(at(t["weights"], {0, 0, 0, 2}) == Approx(0.127).margin(5e-4));
  // the noise keys weighed 2.7x the signal in map 1, 0.1x after the subtraction
  CHECK(at(t["weights1"], {0, 0, 0, 4}) > 2.5 * at(t["weights1"], {0, 0, 0, 2}));
  CHECK(at(t["weights"], {0, 0, 0, 4}) < 0.15 * at(t["weights"], {0, 0, 0, 2}));
  CHECK(at(t["context"], {0, 0, 0, 1}) == Approx(signal).epsilon(1e-13));
}
