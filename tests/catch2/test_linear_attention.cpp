// Linear (kernel) attention: each feature map against its quadratic form computed densely here,
// the note's softmax trick against its formula, and the pitfalls (zero denominators, cosine of a
// zero vector, masks).
#include "helpers.hpp"

#include <algorithm>

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;

namespace {

const char* const kMaps[] = {"elu1", "relu", "softmax_qk", "cosine1"};

json linear_scenario(const std::string& map, bool causal, std::uint64_t seed, std::size_t B, std::size_t H,
                     std::size_t L_Q, std::size_t L_K, std::size_t E, std::size_t D) {
  Rng rng(seed, RngStream::data);
  json s = {{"algorithm", "linear"}, {"feature_map", map}};
  s["q"] = random_nested(rng, {B, L_Q, H, E});
  s["k"] = random_nested(rng, {B, L_K, H, E});
  s["v"] = random_nested(rng, {B, L_K, H, D});
  if (causal) s["mask"] = {{"kind", "causal"}};
  return s;
}

std::vector<double> vec(const json& x, std::size_t b, std::size_t l, std::size_t h) {
  return x[b][l][h].get<std::vector<double>>();
}

double dot_of(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t e = 0; e < a.size(); ++e) s += a[e] * b[e];
  return s;
}

// sim(q_i, k_j) straight from the definitions (softmax_qk: softmax over E of q_i times the
// softmax over all L_K keys of each column of K).
double sim(const std::string& map, const json& q, const json& k, std::size_t b, std::size_t h, std::size_t i,
           std::size_t j) {
  const auto qi = vec(q, b, i, h), kj = vec(k, b, j, h);
  const std::size_t E = qi.size(), L_K = k[b].size();
  double s = 0;
  if (map == "cosine1") return 1.0 + dot_of(qi, kj) / std::sqrt(dot_of(qi, qi) * dot_of(kj, kj));
  if (map == "softmax_qk") {
    double zq = 0;
    for (double x : qi) zq += std::exp(x);
    for (std::size_t e = 0; e < E; ++e) {
      double zk = 0;
      for (std::size_t t = 0; t < L_K; ++t) zk += std::exp(k[b][t][h][e].get<double>());
      s += std::exp(qi[e]) / zq * std::exp(kj[e]) / zk;
    }
    return s;
  }
  for (std::size_t e = 0; e < E; ++e) {
    const auto phi = [&](double x) { return map == "elu1" ? (x > 0 ? x + 1 : std::exp(x)) : std::max(x, 0.0); };
    s += phi(qi[e]) * phi(kj[e]);
  }
  return s;
}

// The quadratic form: weights w_ij = sim_ij / sum_{j allowed} sim_ij (softmax_qk: sim_ij), 0 for
// j > i under causal; context_i = sum_j w_ij v_j. Checks the trace's weights and context.
void check_quadratic_form(const json& s, const json& t) {
  const std::string map = s["feature_map"];
  const bool causal = s.contains("mask");
  const json &q = s["q"], &k = s["k"], &v = s["v"];
  const std::size_t B = q.size(), L_Q = q[0].size(), H = q[0][0].size(), L_K = k[0].size(), D = v[0][0][0].size();
  double worst = 0;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i) {
        std::vector<double> w(L_K, 0.0);
        double total = 0;
        for (std::size_t j = 0; j < L_K && (!causal || j <= i); ++j) total += (w[j] = sim(map, q, k, b, h, i, j));
        if (map != "softmax_qk")
          for (double& x : w) x /= total;
        for (std::size_t j = 0; j < L_K; ++j) worst = std::max(worst, std::abs(w[j] - at(t["weights"], {b, h, i, j})));
        for (std::size_t d = 0; d < D; ++d) {
          double c = 0;
          for (std::size_t j = 0; j < L_K; ++j) c += w[j] * v[b][j][h][d].get<double>();
          worst = std::max(worst, std::abs(c - at(t["context"], {b, i, h, d})));
        }
      }
  INFO(map << (causal ? " causal" : ""));
  CHECK(worst < 1e-12);
}

}  // namespace

TEST_CASE("linear: every feature map equals its quadratic form sum_j sim v_j / sum_j sim, causal and not") {
  std::uint64_t seed = 10;
  for (const char* map : kMaps)
    for (bool causal : {false, true}) {
      for (const auto& [B, H, L_Q, L_K, E, D] : {std::array<std::size_t, 6>{1, 1, 6, 6, 3, 2},
                                               std::array<std::size_t, 6>{2, 2, 5, 7, 4, 3},
                                               std::array<std::size_t, 6>{2, 1, 7, 4, 2, 5}}) {
        const json s = linear_scenario(map, causal, ++seed, B, H, L_Q, L_K, E, D);
        check_quadratic_form(s, run(s));
      }
    }
}

TEST_CASE("linear: softmax_qk equals softmax_E(Q) (softmax_L(K)^T V), no further normalisation") {
  const json s = linear_scenario("softmax_qk", false, 3, 1, 1, 5, 6, 3, 2);
  const json t = run(s);
  const std::size_t L_Q = 5, L_K = 6, E = 3, D = 2;
  // softmax_L(K)^T V first: an (E, D) matrix, the note's order of multiplication
  std::vector<double> col_sum(E, 0.0), KtV(E * D, 0.0);
  for (std::size_t j = 0; j < L_K; ++j)
    for (std::size_t e = 0; e < E; ++e) col_sum[e] += std::exp(at(s["k"], {0, j, 0, e}));
  for (std::size_t j = 0; j < L_K; ++j)
    for (std::size_t e = 0; e < E; ++e)
      for (std::size_t d = 0; d < D; ++d)
        KtV[e * D + d] += std::exp(at(s["k"], {0, j, 0, e})) / col_sum[e] * at(s["v"], {0, j, 0, d});
  for (std::size_t i = 0; i < L_Q; ++i) {
    double zq = 0;
    for (std::size_t e = 0; e < E; ++e) zq += std::exp(at(s["q"], {0, i, 0, e}));
    double row = 0;
    for (std::size_t j = 0; j < L_K; ++j) row += at(t["weights"], {0, 0, i, j});
    CHECK(row == Approx(1.0).epsilon(1e-14));  // normalised by construction
    for (std::size_t d = 0; d < D; ++d) {
      double c = 0;
      for (std::size_t e = 0; e < E; ++e) c += std::exp(at(s["q"], {0, i, 0, e})) / zq * KtV[e * D + d];
      CHECK(at(t["context"], {0, i, 0, d}) == Approx(c).epsilon(1e-13).margin(1e-15));
    }
  }
  // the features are the two softmaxes: rows of features_q and columns of features_k sum to 1
  for (std::size_t e = 0; e < E; ++e) {
    double c = 0;
    for (std::size_t j = 0; j < L_K; ++j) c += at(t["features_k"], {0, j, 0, e});
    CHECK(c == Approx(1.0).epsilon(1e-14));
  }
}

TEST_CASE("linear: softmax_qk under the causal mask: column softmax over all keys, then prefix sums") {
  const json s = linear_scenario("softmax_qk", true, 4, 1, 1, 6, 6, 3, 2);
  const json t = run(s);
  check_quadratic_form(s, t);  // sim over the whole-column softmax, no normalisation
  double last = 0;
  for (std::size_t j = 0; j < 6; ++j) last += at(t["weights"], {0, 0, 5, j});
  CHECK(last == Approx(1.0).epsilon(1e-14));  // the last query sees every key
  double first = at(t["weights"], {0, 0, 0, 0});
  CHECK(first < 1.0);
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("sum to less than 1"));
}

TEST_CASE("linear: elu1 (and relu, cosine1) weight rows sum to 1; causal row 0 is v_0") {
  for (const char* map : {"elu1", "relu", "cosine1"})
    for (bool causal : {false, true}) {
      const json s = linear_scenario(map, causal, 21, 2, 2, 6, 6, 4, 3);
      const json t = run(s);
      for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t h = 0; h < 2; ++h)
          for (std::size_t i = 0; i < 6; ++i) {
            double sum = 0;
            for (std::size_t j = 0; j < 6; ++j) {
              const double w = at(t["weights"], {b, h, i, j});
              CHECK(w >= (std::string(map) == "cosine1" ? -1e-15 : 0.0));
              if (causal && j > i) CHECK(w == 0.0);
              sum += w;
            }
            if (t["warnings"].empty()) CHECK(sum == Approx(1.0).epsilon(1e-14));
          }
      if (causal)
        for (std::size_t d = 0; d < 3; ++d)
          CHECK(at(t["context"], {0, 0, 0, d}) == Approx(at(s["v"], {0, 0, 0, d})).epsilon(1e-14));
    }
}

TEST_CASE("linear: a relu query with no feature in common gets zero context and a warning, never NaN") {
  json s = linear_scenario("relu", false, 5, 1, 1, 3, 4, 2, 2);
  s["q"][0][1][0] = {-1.0, -2.0};
  json t = run(s);
  CHECK(at(t["context"], {0, 1, 0, 0}) == 0.0);
  CHECK(at(t["context"], {0, 1, 0, 1}) == 0.0);
  for (std::size_t j = 0; j < 4; ++j) CHECK(at(t["weights"], {0, 0, 1, j}) == 0.0);
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("query 1") && Contains("is 0"));
  // every key negative in every feature: no query has a denominator
  s["k"] = json::parse("[[[[-1, -1]], [[-2, -0.5]], [[-3, -1]], [[-0.1, -9]]]]");
  s["q"][0][1][0] = {1.0, 2.0};
  t = run(s);
  CHECK(t["warnings"].size() == 3);
  CHECK(max_rel_diff(t["context"], json::parse("[[[[0, 0]], [[0, 0]], [[0, 0]]]]")) == 0.0);
}

TEST_CASE("linear: cosine1 of a zero vector is an error naming the row") {
  json s = linear_scenario("cosine1", false, 6, 1, 2, 3, 3, 2, 2);
  s["k"][0][2][1] = {0.0, 0.0};
  CHECK(error_of(s).rfind("k[0][2][1]: cosine1 needs a nonzero vector", 0) == 0);
  s = linear_scenario("cosine1", false, 6, 1, 2, 3, 3, 2, 2);
  s["q"][0][1][0] = {0.0, 0.0};
  CHECK(error_of(s).rfind("q[0][1][0]: ", 0) == 0);
  // tiny and huge vectors are fine: |x| is computed with the largest entry factored out
  s["q"][0][1][0] = {1e-320, -1e-320};
  s["k"][0][0][0] = {1e300, 3e300};
  const json t = run(s);
  CHECK(at(t["features_q"], {0, 1, 0, 1}) == Approx(std::sqrt(0.5)).epsilon(1e-15));
  CHECK(at(t["features_k"], {0, 0, 0, 2}) == Approx(3 / std::sqrt(10.0)).epsilon(1e-15));
}

TEST_CASE("linear: only the causal mask (and none), with the -inf fill") {
  json s = linear_scenario("elu1", false, 7, 1, 1, 3, 3, 2, 2);
  s["mask"] = {{"kind", "local"}};  // without its window: the kind is what is wrong
  CHECK(error_of(s).rfind("mask.kind: linear attention takes the mask \"none\" or \"causal\"", 0) == 0);
  s["mask"] = {{"kind", "valid_lens"}, {"valid_lens", {2}}};
  CHECK(error_of(s).rfind("mask.kind: ", 0) == 0);
  s["mask"] = {{"kind", "causal"}, {"fill", -1e6}};
  CHECK(error_of(s).rfind("mask.fill: ", 0) == 0);
  s["mask"] = {{"kind", "none"}, {"causal", true}};  // the causal flag counts as causal
  json c = linear_scenario("elu1", true, 7, 1, 1, 3, 3, 2, 2);
  CHECK(max_rel_diff(run(s)["context"], run(c)["context"]) == 0.0);
  s["feature_map"] = "gelu";
  CHECK(error_of(s).rfind("feature_map: expected one of", 0) == 0);
}

TEST_CASE("linear: exact_context is softmax attention with the scale; cost is O(L E D)") {
  json s = linear_scenario("elu1", true, 8, 2, 2, 5, 5, 3, 4);
  s["scale"] = 0.7;
  const json t = run(s);
  json f = s;
  f["algorithm"] = "full";
  f.erase("feature_map");
  const json exact = run(f);
  CHECK(max_rel_diff(t["exact_context"], exact["context"]) == 0.0);
  double worst = 0;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t d = 0; d < 4; ++d)
          worst = std::max(worst, std::abs(at(t["context"], {b, i, h, d}) - at(exact["context"], {b, i, h, d})));
  CHECK(t["max_abs_error"].get<double>() == worst);
  // B*H*(L_Q + L_K)*(D + 1) products of length E
  CHECK(t["cost"]["dot_products"] == 2 * 2 * 10 * 5);
  CHECK(t["cost"]["dense_dot_products"] == 2 * 2 * 5 * 5);
  CHECK(t["cost"]["flops"] == 2 * 3 * 2 * 2 * 10 * 5);
  CHECK(t["shapes"]["features_q"] == json::array({2, 5, 2, 3}));
  s["feature_map"] = "cosine1";
  CHECK(run(s)["shapes"]["features_k"] == json::array({2, 5, 2, 4}));
}

TEST_CASE("linear: trace context has no L x L matrix and the same context") {
  json s = linear_scenario("cosine1", true, 9, 1, 2, 6, 6, 3, 2);
  const json full = run(s);
  s["trace"] = "context";
  const json t = run(s);
  for (const char* field : {"weights", "features_q", "features_k", "exact_context", "max_abs_error"})
    CHECK_FALSE(t.contains(field));
  CHECK(max_rel_diff(t["context"], full["context"]) == 0.0);
  // a long sequence: 2^14 keys at E = D = 2 runs without any L x L matrix
  Rng rng(1, RngStream::data);
  json big = {{"algorithm", "linear"}, {"trace", "context"}};
  big["q"] = {{"shape", {1, 16384, 1, 2}}, {"data", std::vector<double>(32768, 0.5)}};
  big["k"] = big["q"];
  big["v"] = big["q"];
  big["mask"] = {{"kind", "causal"}};
  const json l = run(big);
  CHECK(l["cost"]["dense_dot_products"] == 16384ull * 16384ull);
  CHECK(at(l["context"], {0, 16383, 0, 1}) == Approx(0.5).epsilon(1e-14));
}

TEST_CASE("linear: overflow names the input") {
  json s = linear_scenario("elu1", false, 11, 1, 1, 2, 3, 2, 2);
  s["v"][0][1][0] = {1e308, 1e308};
  s["k"][0][1][0] = {10.0, 10.0};
  CHECK(error_of(s).rfind("v: ", 0) == 0);
  s = linear_scenario("elu1", false, 11, 1, 1, 2, 3, 2, 2);
  s["k"][0][1][0] = {1.5e308, 1.5e308};
  s["k"][0][2][0] = {1.5e308, 1.5e308};
  CHECK(error_of(s).rfind("k: ", 0) == 0);
  // cosine1 does not care how long q and k are, exact softmax attention does: its q.k overflows,
  // so exact_context is left out with a warning instead of failing the run
  s = linear_scenario("cosine1", false, 11, 1, 1, 2, 3, 2, 2);
  s["q"][0][0][0] = {1e300, -1e300};
  s["k"][0][1][0] = {1e300, 1e300};
  s["k"][0][2][0] = {-1e300, 1e300};
  const json t = run(s);
  CHECK_FALSE(t.contains("exact_context"));
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("exact_context and max_abs_error left out"));
  // q_0 ~ [1, -1]: cos = 0 against k_1 ~ [1, 1] (sim 1), -1 against k_2 ~ [-1, 1] (sim 0)
  const double k00 = at(s["k"], {0, 0, 0, 0}), k01 = at(s["k"], {0, 0, 0, 1});
  const double sim0 = 1 + (k00 - k01) / std::sqrt(2 * (k00 * k00 + k01 * k01));
  CHECK(at(t["weights"], {0, 0, 0, 1}) == Approx(1 / (sim0 + 1)).epsilon(1e-14));
  CHECK(at(t["weights"], {0, 0, 0, 2}) == Approx(0).margin(1e-15));
}

TEST_CASE("linear presets: the note's examples") {
  const json elu = run_preset("linear-elu1");
  const json soft = run_preset("linear-softmax-qk");
  const json cosine = run_preset("linear-cosine");
  const json causal = run_preset("linear-causal");
  const json relu = run_preset("linear-relu-zero");
  // the numbers their descriptions quote
  CHECK(elu["max_abs_error"].get<double>() == Approx(0.89).margin(0.005));
  CHECK(soft["max_abs_error"].get<double>() == Approx(0.78).margin(0.005));
  CHECK(cosine["max_abs_error"].get<double>() == Approx(0.85).margin(0.005));
  CHECK(causal["max_abs_error"].get<double>() == Approx(1.22).margin(0.005));
  CHECK(elu["cost"]["dot_products"] == 80);
  CHECK(causal["weights"][0][0][0][0] == 1.0);
  REQUIRE(relu["warnings"].size() == 1);
  CHECK_THAT(relu["warnings"][0].get<std::string>(), Contains("query 3"));
  for (const json* t : {&elu, &soft, &cosine, &causal, &relu}) CHECK((*t)["algorithm"] == "linear");
}
