// Performer (FAVOR+): the formula with a given projection, the estimate improving with m and
// with orthogonal rows, the chi quantiles of the note's quantile lengths, and seeded draws.
#include "helpers.hpp"

#include <algorithm>

#include "../../core/performer_attention.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;

namespace {

json performer_scenario(std::uint64_t seed, std::size_t B, std::size_t H, std::size_t L_Q, std::size_t L_K,
                        std::size_t E, std::size_t D, std::size_t m, double sigma = 1.0) {
  Rng rng(seed, RngStream::data);
  const auto scaled = [&](const std::vector<std::size_t>& shape) {
    json x = random_nested(rng, shape);
    for (auto& b : x)
      for (auto& l : b)
        for (auto& h : l)
          for (auto& e : h) e = sigma * e.get<double>();
    return x;
  };
  json s = {{"algorithm", "performer"}};
  s["q"] = scaled({B, L_Q, H, E});
  s["k"] = scaled({B, L_K, H, E});
  s["v"] = random_nested(rng, {B, L_K, H, D});
  s["projection"] = random_nested(rng, {m, E});
  return s;
}

// phi(x) = exp(W x~ - |x~|^2/2) / sqrt(m), x~ = x sqrt(scale), straight from the formula
std::vector<double> phi(const json& W, const json& x, double scale) {
  std::vector<double> f;
  double sq = 0;
  for (const auto& e : x) sq += scale * e.get<double>() * e.get<double>();
  for (const auto& w : W) {
    double wx = 0;
    for (std::size_t e = 0; e < x.size(); ++e) wx += w[e].get<double>() * std::sqrt(scale) * x[e].get<double>();
    f.push_back(std::exp(wx - sq / 2) / std::sqrt(static_cast<double>(W.size())));
  }
  return f;
}

// context_i = sum_j (phi_i . phi_j) v_j / sum_j phi_i . phi_j over the allowed j, densely
double check_formula(const json& s, const json& t) {
  const json &q = s["q"], &k = s["k"], &v = s["v"], &W = s["projection"];
  const bool causal = s.contains("mask");
  const double scale = s.value("scale", 1.0 / std::sqrt(static_cast<double>(q[0][0][0].size())));
  const std::size_t B = q.size(), L_Q = q[0].size(), H = q[0][0].size(), L_K = k[0].size(), D = v[0][0][0].size();
  double worst = 0;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i) {
        const auto pq = phi(W, q[b][i][h], scale);
        std::vector<double> w(L_K, 0.0);
        double total = 0;
        for (std::size_t j = 0; j < L_K && (!causal || j <= i); ++j) {
          const auto pk = phi(W, k[b][j][h], scale);
          for (std::size_t r = 0; r < pq.size(); ++r) w[j] += pq[r] * pk[r];
          total += w[j];
        }
        for (std::size_t j = 0; j < L_K; ++j) {
          w[j] /= total;
          worst = std::max(worst, std::abs(w[j] - at(t["weights"], {b, h, i, j})));
        }
        for (std::size_t d = 0; d < D; ++d) {
          double c = 0;
          for (std::size_t j = 0; j < L_K; ++j) c += w[j] * v[b][j][h][d].get<double>();
          worst = std::max(worst, std::abs(c - at(t["context"], {b, i, h, d})));
        }
      }
  return worst;
}

// Mean max_abs_error over seeds 0..n-1 of drawn projections on one input (the core, not JSON).
double mean_error(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t m, bool orthogonal,
                  ProjectionNorms norms, std::uint64_t n) {
  double total = 0;
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.shape()[3]));
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    const Tensor W = draw_projection(m, q.shape()[3], orthogonal, norms, seed);
    const Trace t = performer_attention(q, k, v, W, scale, Mask{}, TraceLevel::full);
    total += std::get<double>(*t.find("max_abs_error"));
  }
  return total / static_cast<double>(n);
}

Tensor normals(Rng& rng, const Shape& shape, double sigma) {
  Tensor x = Tensor::from_shape(shape);
  for (auto& e : x) e = sigma * rng.normal();
  return x;
}

}  // namespace

TEST_CASE("performer: with a given projection it equals the formula, causal and not, any scale") {
  std::uint64_t seed = 40;
  for (bool causal : {false, true})
    for (const auto& [B, H, L_Q, L_K, E, D, m] : {std::array<std::size_t, 7>{1, 1, 5, 5, 3, 2, 4},
                                                std::array<std::size_t, 7>{2, 2, 4, 6, 4, 3, 7},
                                                std::array<std::size_t, 7>{1, 2, 6, 3, 2, 4, 1}}) {
      json s = performer_scenario(++seed, B, H, L_Q, L_K, E, D, m);
      if (causal) s["mask"] = {{"kind", "causal"}};
      CHECK(check_formula(s, run(s)) < 1e-12);
      s["scale"] = 0.3;
      CHECK(check_formula(s, run(s)) < 1e-12);
    }
}

TEST_CASE("performer: the features and the trace fields") {
  json s = performer_scenario(3, 1, 1, 3, 4, 2, 2, 5);
  const json t = run(s);
  CHECK(t["shapes"]["projection"] == json::array({5, 2}));
  CHECK(t["shapes"]["features_q"] == json::array({1, 3, 1, 5}));
  CHECK(t["shapes"]["features_k"] == json::array({1, 4, 1, 5}));
  CHECK(t["shapes"]["weights"] == json::array({1, 1, 3, 4}));
  CHECK(max_rel_diff(t["projection"], s["projection"]) == 0.0);
  const auto f = phi(s["projection"], s["k"][0][2][0], 1 / std::sqrt(2.0));
  for (std::size_t r = 0; r < 5; ++r) CHECK(at(t["features_k"], {0, 2, 0, r}) == Approx(f[r]).epsilon(1e-14));
  // cost: the pass, B*H*(L_Q+L_K)*(D+1), plus the projections B*H*(L_Q+L_K)*m
  CHECK(t["cost"]["dot_products"] == 7 * 3 + 7 * 5);
  CHECK(t["cost"]["flops"] == 2 * (7 * 3 * 5 + 7 * 5 * 2));
  CHECK(t["cost"]["dense_dot_products"] == 12);
  s["trace"] = "context";
  const json c = run(s);
  for (const char* field : {"projection", "features_q", "features_k", "weights", "exact_context", "max_abs_error"})
    CHECK_FALSE(c.contains(field));
  CHECK(max_rel_diff(c["context"], t["context"]) == 0.0);
}

TEST_CASE("performer: the error falls as m grows (mean over 20 seeds, E = 8, L = 16)") {
  // q, k ~ N(0, 0.5^2): measured means, orthogonal 0.257, 0.199, 0.098, 0.055 and iid 0.281,
  // 0.220, 0.137, 0.074 at m = 4, 16, 64, 256 (from m = 16 on each step about halves the error,
  // 1/sqrt(m); at m = 4 the weights cannot stray far from uniform, which bounds the error)
  Rng rng(77, RngStream::data);
  const Tensor q = normals(rng, {1, 16, 1, 8}, 0.5), k = normals(rng, {1, 16, 1, 8}, 0.5), v = normals(rng, {1, 16, 1, 4}, 1);
  for (bool orthogonal : {true, false}) {
    double previous = INFINITY;
    for (std::size_t m : {4, 16, 64, 256}) {
      const double e = mean_error(q, k, v, m, orthogonal, ProjectionNorms::chi, 20);
      INFO("orthogonal " << orthogonal << ", m = " << m << ": mean max_abs_error " << e);
      CHECK(e < 0.9 * previous);
      previous = e;
    }
  }
}

TEST_CASE("performer: orthogonal features beat iid ones on average at m = E = 16 (200 seeds)") {
  // q, k ~ N(0, 0.25^2), E = L = 16, D = 4: measured means orthogonal 0.0626, iid 0.0770,
  // orthogonal with quantile lengths 0.0594. On other inputs of this size the gap was 4.7 to 6.2
  // standard errors of the mean difference. With q, k ~ N(0, 1) the estimator's variance swamps
  // the effect (1.245 orthogonal against 1.237 iid): orthogonality helps where |q~|, |k~| are small.
  Rng rng(5, RngStream::data);
  const Tensor q = normals(rng, {1, 16, 1, 16}, 0.25), k = normals(rng, {1, 16, 1, 16}, 0.25),
               v = normals(rng, {1, 16, 1, 4}, 1);
  const double orthogonal = mean_error(q, k, v, 16, true, ProjectionNorms::chi, 200);
  const double iid = mean_error(q, k, v, 16, false, ProjectionNorms::chi, 200);
  const double quantile = mean_error(q, k, v, 16, true, ProjectionNorms::quantile, 200);
  INFO("orthogonal " << orthogonal << ", iid " << iid << ", orthogonal + quantile " << quantile);
  CHECK(orthogonal < 0.95 * iid);
  CHECK(quantile < iid);
}

TEST_CASE("chi quantiles: known values and the inverse of the CDF") {
  CHECK(chi_quantile(0.5, 1) == Approx(0.6744897501960817).epsilon(1e-14));     // the normal's 0.75 quantile
  CHECK(chi_quantile(0.5, 2) == Approx(std::sqrt(2 * std::log(2.0))).epsilon(1e-14));
  CHECK(chi_quantile(0.99, 1) == Approx(2.5758293035489004).epsilon(1e-14));
  // mpmath (40 digits): findroot(gammainc(k/2, 0, x^2/2, regularized=True) - p)
  CHECK(chi_quantile(0.5, 3) == Approx(1.5381722544550523).epsilon(1e-14));
  CHECK(chi_quantile(0.1, 3) == Approx(0.76444383322464135).epsilon(1e-14));
  CHECK(chi_quantile(0.5, 8) == Approx(2.7100039663627417).epsilon(1e-14));
  CHECK(chi_quantile(1.0 / 17, 8) == Approx(1.6994698645471591).epsilon(1e-14));
  CHECK(chi_quantile(16.0 / 17, 8) == Approx(3.8751255137609041).epsilon(1e-14));
  CHECK(chi_quantile(0.5, 64) == Approx(7.9583027099710128).epsilon(1e-14));
  CHECK(chi_quantile(0.01, 64) == Approx(6.3756225444243868).epsilon(1e-14));
  // chi_2 in closed form: F(x) = 1 - exp(-x^2/2), so x = sqrt(-2 ln(1 - p))
  for (double p : {0.001, 0.2, 0.7, 0.999}) CHECK(chi_quantile(p, 2) == Approx(std::sqrt(-2 * std::log1p(-p))).epsilon(1e-13));
  // even k = 2n in closed form: F(x) = 1 - e^{-t} sum_{i<n} t^i / i!, t = x^2/2
  for (std::size_t k : {4, 10, 30})
    for (double p : {0.05, 0.5, 0.95}) {
      const double x = chi_quantile(p, k), t = x * x / 2;
      double term = 1, sum = 0;
      for (std::size_t i = 0; i < k / 2; ++i) {
        sum += term;
        term *= t / static_cast<double>(i + 1);
      }
      CHECK(1 - std::exp(-t) * sum == Approx(p).epsilon(1e-13));
      CHECK(chi_cdf(x, k) == Approx(p).epsilon(1e-14));
    }
  // large k, both ends: chi_k is about N(sqrt(k - 1/2), 1/2)
  CHECK(chi_quantile(0.5, 4096) == Approx(std::sqrt(4096 - 0.5)).epsilon(1e-4));
  CHECK(chi_cdf(chi_quantile(1.0 / 65537, 1000), 1000) == Approx(1.0 / 65537).epsilon(1e-12));
  CHECK(chi_cdf(chi_quantile(65536.0 / 65537, 1000), 1000) == Approx(65536.0 / 65537).epsilon(1e-14));
}

TEST_CASE("performer: quantile norms are the chi quantiles i/(m+1), in row order") {
  for (bool orthogonal : {true, false})
    for (const auto& [m, E] : {std::pair<std::size_t, std::size_t>{8, 8}, {20, 8}, {3, 5}}) {
      const Tensor W = draw_projection(m, E, orthogonal, ProjectionNorms::quantile, 9);
      for (std::size_t r = 0; r < m; ++r) {
        double n = 0;
        for (std::size_t e = 0; e < E; ++e) n += W(r, e) * W(r, e);
        CHECK(std::sqrt(n) == Approx(chi_quantile(static_cast<double>(r + 1) / static_cast<double>(m + 1), E)).epsilon(1e-14));
      }
    }
}

TEST_CASE("performer: seeded draws are deterministic; orthogonal blocks are orthogonal; norms") {
  for (bool orthogonal : {true, false})
    for (ProjectionNorms norms : {ProjectionNorms::chi, ProjectionNorms::sqrt_d, ProjectionNorms::quantile}) {
      const Tensor a = draw_projection(11, 4, orthogonal, norms, 123), b = draw_projection(11, 4, orthogonal, norms, 123);
      CHECK(a == b);
      CHECK_FALSE(a == draw_projection(11, 4, orthogonal, norms, 124));
    }
  const std::size_t m = 11, E = 4;
  const Tensor W = draw_projection(m, E, true, ProjectionNorms::sqrt_d, 5);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t s = 0; s < m; ++s) {
      double d = 0;
      for (std::size_t e = 0; e < E; ++e) d += W(r, e) * W(s, e);
      if (r == s) CHECK(d == Approx(4.0).epsilon(1e-14));                // sqrt_d: |w| = sqrt(E)
      else if (r / E == s / E) CHECK(std::abs(d) < 1e-14);              // the same block: orthogonal
      else CHECK(std::abs(d) > 1e-6);                                   // different blocks: independent
    }
  // iid with chi norms: the rows are the Gaussian draws themselves, in row-major order
  Rng rng(5, RngStream::weights);
  const Tensor G = draw_projection(3, 2, false, ProjectionNorms::chi, 5);
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t e = 0; e < 2; ++e) CHECK(G(r, e) == rng.normal());
  // the scenario's seed: the same projection, shown in the trace
  json s = performer_scenario(1, 1, 1, 3, 3, 4, 2, 11);
  s.erase("projection");
  s["num_features"] = 11;
  s["seed"] = 5;
  s["norms"] = "sqrt_d";
  const json t = run(s);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t e = 0; e < E; ++e) CHECK(at(t["projection"], {r, e}) == W(r, e));
  CHECK(t["warnings"].empty());
}

TEST_CASE("performer: defaults, errors and overflow") {
  json s = performer_scenario(2, 1, 1, 3, 3, 8, 2, 4);
  s.erase("projection");
  CHECK(run(s)["shapes"]["projection"] == json::array({16, 8}));  // int(8 ln 8) = 16, performer-pytorch
  s["num_features"] = 0;
  CHECK(error_of(s).rfind("num_features: ", 0) == 0);
  s["num_features"] = 4;
  s["norms"] = "unit";
  CHECK(error_of(s).rfind("norms: expected one of", 0) == 0);
  s["norms"] = "chi";
  s["orthogonal"] = "yes";
  CHECK(error_of(s).rfind("orthogonal: ", 0) == 0);
  s = performer_scenario(2, 1, 1, 3, 3, 4, 2, 4);
  s["projection"][2] = {1.0, 2.0, 3.0};
  CHECK(error_of(s).rfind("projection[2]: ", 0) == 0);
  s = performer_scenario(2, 1, 1, 3, 3, 4, 2, 4);
  s["num_features"] = 5;
  CHECK(error_of(s).rfind("projection: ", 0) == 0);
  s["num_features"] = 4;
  s["orthogonal"] = false;
  const json t = run(s);
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("ignored"));
  s.erase("orthogonal");
  s["scale"] = -1;
  CHECK(error_of(s).rfind("scale: ", 0) == 0);
  s.erase("scale");
  s["mask"] = {{"kind", "strided"}, {"window", 1}, {"stride", 2}};
  CHECK(error_of(s).rfind("mask.kind: performer takes", 0) == 0);
  // exp overflows: an error naming the row, never inf
  s.erase("mask");
  s["projection"][0] = {1e3, 1e3, 1e3, 1e3};
  for (auto& row : s["q"][0]) row[0] = {-1.0, -1.0, -1.0, -1.0};
  for (auto& row : s["k"][0]) row[0] = {-1.0, -1.0, -1.0, -1.0};
  s["q"][0][1][0] = {1.0, 1.0, 1.0, 1.0};
  CHECK(error_of(s).rfind("q[0][1][0]: the Performer feature", 0) == 0);
  s["q"][0][1][0] = {-1.0, -1.0, -1.0, -1.0};
  s["k"][0][2][0] = {3.0, 1.0, 1.0, 1.0};
  CHECK(error_of(s).rfind("k[0][2][0]: ", 0) == 0);
  // every feature of a query underflows: zero context and a warning
  s = performer_scenario(2, 1, 1, 3, 3, 4, 2, 4);
  s["q"][0][0][0] = {-90.0, 90.0, -90.0, 90.0};
  s["scale"] = 1.0;
  const json u = run(s);
  CHECK(u["warnings"].size() == 1);
  CHECK(at(u["context"], {0, 0, 0, 0}) == 0.0);
}

TEST_CASE("performer presets: orthogonal, iid and quantile at the same inputs") {
  const json o = run_preset("performer-orthogonal");
  const json i = run_preset("performer-iid");
  const json qn = run_preset("performer-quantile");
  CHECK(max_rel_diff(o["exact_context"], i["exact_context"]) == 0.0);
  CHECK(max_rel_diff(o["exact_context"], qn["exact_context"]) == 0.0);
  CHECK(o["shapes"]["projection"] == json::array({8, 8}));
  // the numbers their descriptions quote
  CHECK(o["max_abs_error"].get<double>() == Approx(0.079).margin(0.0005));
  CHECK(i["max_abs_error"].get<double>() == Approx(0.105).margin(0.0005));
  CHECK(qn["max_abs_error"].get<double>() == Approx(0.078).margin(0.0005));
  const double lengths[8] = {1.905, 2.193, 2.414, 2.613, 2.809, 3.018, 3.264, 3.609};
  for (std::size_t r = 0; r < 8; ++r) {
    double n = 0;
    for (std::size_t e = 0; e < 8; ++e) n += at(qn["projection"], {r, e}) * at(qn["projection"], {r, e});
    CHECK(std::sqrt(n) == Approx(lengths[r]).margin(0.0005));
  }
}
