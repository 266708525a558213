// ProbAttention: the seed's toy numbers, equivalence with full attention when every query is
// selected, ProbMask, the sampling generator, the reference's pitfalls and their switches, the
// real cost at L = 4096, error messages; a given top_index (the seed's walk-through), the
// comparison with full attention (sparsity_exact, exact_context, max_abs_error), and the
// xtensor reductions the implementation relies on.
#include <set>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "../../core/full_attention.hpp"
#include "../../core/prob_attention.hpp"
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// q (B, L, H, E), k (B, L_K, H, E), v (B, L_K, H, D) of standard normals.
json random_prob(unsigned seed, std::size_t B, std::size_t L, std::size_t H, std::size_t E, std::size_t D,
                 std::size_t L_K = 0) {
  Rng rng(seed, RngStream::data);
  if (L_K == 0) L_K = L;
  json s = {{"algorithm", "prob"}};
  s["q"] = random_nested(rng, {B, L, H, E});
  s["k"] = random_nested(rng, {B, L_K, H, E});
  s["v"] = random_nested(rng, {B, L_K, H, D});
  return s;
}

std::set<std::int64_t> row_set(const json& t) {
  std::set<std::int64_t> s;
  for (const auto& x : t) s.insert(x.get<std::int64_t>());
  return s;
}

double dot_json(const json& a, const json& b) {
  double s = 0;
  for (std::size_t e = 0; e < a.size(); ++e) s += a[e].get<double>() * b[e].get<double>();
  return s;
}

}  // namespace

TEST_CASE("prob toy: the seed's sample gives M = [0.5, 1, 1.25, 1] and top_index [2, 1]") {
  const json t = run_preset("prob-toy");
  CHECK(t["U_part"] == 2);
  CHECK(t["u"] == 2);
  CHECK(t["sample_index"] == json::parse("[[0,2],[1,3],[0,2],[2,3]]"));
  CHECK(t["q_k_sample"][0][0] == json::parse("[[1.0,1.0],[1.0,-1.0],[1.0,2.0],[2.0,2.0]]"));
  CHECK(t["sparsity"][0][0] == json::parse("[0.5, 1.0, 1.25, 1.0]"));
  CHECK(t["top_index"][0][0] == json::parse("[2, 1]"));  // q1 and q3 tie at M = 1: the lower index
  // the seed's hand computation against all keys: M(q0) = 1 - 3/4 = 0.25, M(q2) = 2 - 4/4 = 1
  CHECK(t["sparsity_exact"][0][0] == json::parse("[0.25, 0.75, 1.0, 0.5]"));
  // q2 . k = [1, 1, 2, 0], before the mask, times the scale 1/sqrt(2)
  const double scale = 1.0 / std::sqrt(2.0);
  const double q2k[4] = {1, 1, 2, 0};
  for (std::size_t j = 0; j < 4; ++j) CHECK(at(t["scores_top"], {0, 0, 0, j}) / scale == Approx(q2k[j]).margin(1e-15));
  // every query starts from the mean of V; rows 0 and 3 keep it
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(at(t["initial_context"], {0, i, 0, 0}) == 25.0);
    CHECK(at(t["initial_context"], {0, i, 0, 1}) == 26.0);
  }
  CHECK(t["context"][0][0][0] == json::parse("[25.0, 26.0]"));
  CHECK(t["context"][0][3][0] == json::parse("[25.0, 26.0]"));
  CHECK(t["updated_rows"][0][0] == json::parse("[false, true, true, false]"));
  // row 2 = softmax(scale * [1, 1, 2, 0]) V
  double w[4], z = 0;
  for (std::size_t j = 0; j < 4; ++j) z += (w[j] = std::exp(scale * q2k[j]));
  const double V[4][2] = {{10, 11}, {20, 21}, {30, 31}, {40, 41}};
  for (std::size_t d = 0; d < 2; ++d) {
    double c = 0;
    for (std::size_t j = 0; j < 4; ++j) c += w[j] / z * V[j][d];
    CHECK(at(t["context"], {0, 2, 0, d}) == Approx(c).epsilon(1e-14));
  }
  CHECK(at(t["context"], {0, 2, 0, 0}) == Approx(24.4551).margin(1e-4));  // PyTorch prints 24.4551
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(at(t["attn"], {0, 0, 0, j}) == 0.25);
    CHECK(at(t["attn"], {0, 0, 2, j}) == Approx(w[j] / z).epsilon(1e-14));
  }
  CHECK(t["cost"]["dot_products"] == 4 * 2 + 2 * 4);
  CHECK(t["cost"]["dense_dot_products"] == 16);
}

TEST_CASE("prob toy against all keys: q0.k = [1,0,1,1], q2.k = [1,1,2,0], M(q0) = 0.25, M(q2) = 1") {
  json s = find_preset("prob-toy")->scenario;
  s["factor"] = 2;  // U_part = min(2 * ceil(ln 4), 4) = 4, u = 4
  s["sample_index"] = json::parse("[[0,1,2,3],[0,1,2,3],[0,1,2,3],[0,1,2,3]]");
  const json t = run(s);
  REQUIRE(t["U_part"] == 4);
  CHECK(at(t["sparsity"], {0, 0, 0}) == 0.25);
  CHECK(at(t["sparsity"], {0, 0, 2}) == 1.0);
  CHECK(t["q_k_sample"][0][0][0] == json::parse("[1.0, 0.0, 1.0, 1.0]"));
  CHECK(t["q_k_sample"][0][0][2] == json::parse("[1.0, 1.0, 2.0, 0.0]"));
  // M = [0.25, 0.75, 1, 0.5] (q1.k = [0, 1, 1, -1], q3.k = [2, 0, 2, 2]): top_index [2, 1, 3, 0]
  CHECK(t["sparsity"][0][0] == json::parse("[0.25, 0.75, 1.0, 0.5]"));
  CHECK(t["top_index"][0][0] == json::parse("[2, 1, 3, 0]"));
  const double scale = 1.0 / std::sqrt(2.0);
  const double q0k[4] = {1, 0, 1, 1}, q2k[4] = {1, 1, 2, 0};
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(at(t["scores_top"], {0, 0, 3, j}) / scale == Approx(q0k[j]).margin(1e-15));
    CHECK(at(t["scores_top"], {0, 0, 0, j}) / scale == Approx(q2k[j]).margin(1e-15));
  }
}

TEST_CASE("prob with u = L_Q equals full attention (no mask and causal)") {
  for (const char* kind : {"none", "causal"}) {
    INFO(kind);
    json s = random_prob(11, 2, 7, 2, 3, 4);
    s["factor"] = 10;  // U_part = u = 7
    s["output_attention"] = true;
    s["mask"] = {{"kind", kind}};
    const json t = run(s);
    REQUIRE(t["u"] == 7);
    json f = s;
    f["algorithm"] = "full";
    for (const char* key : {"factor", "output_attention"}) f.erase(key);
    const json full = run(f);
    CHECK(max_rel_diff(t["context"], full["context"]) < 1e-12);
    CHECK(max_rel_diff(t["attn"], full["weights"]) < 1e-12);
    CHECK(t["cost"]["dot_products"] == 2 * 2 * (7 * 7 + 7 * 7));
  }
  // the same with a different L_K (no mask)
  json s = random_prob(12, 1, 5, 3, 2, 2, 9);
  s["factor"] = 10;
  json f = s;
  f["algorithm"] = "full";
  f.erase("factor");
  CHECK(max_rel_diff(run(s)["context"], run(f)["context"]) < 1e-12);
}

TEST_CASE("prob causal (ProbMask): no selected row attends to a later key; the rest keep the cumulative sum") {
  json s = random_prob(21, 2, 10, 2, 3, 2);
  s["factor"] = 1;
  s["mask"] = {{"kind", "causal"}};
  s["output_attention"] = true;
  const json t = run(s);
  REQUIRE(t["u"] == 3);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < 2; ++h) {
      for (std::size_t r = 0; r < 3; ++r) {
        const auto i = t["top_index"][b][h][r].get<std::size_t>();
        double sum = 0;
        for (std::size_t j = 0; j < 10; ++j) {
          CHECK(t["allowed_top"][b][h][r][j].get<bool>() == (j <= i));
          if (j > i) CHECK(at(t["weights_top"], {b, h, r, j}) == 0.0);
          if (j > i) CHECK(at(t["attn"], {b, h, i, j}) == 0.0);
          sum += at(t["weights_top"], {b, h, r, j});
        }
        CHECK(sum == Approx(1.0).epsilon(1e-14));
      }
      // cumulative SUM of V for the rows not selected
      double acc[2] = {0, 0};
      for (std::size_t i = 0; i < 10; ++i) {
        for (std::size_t d = 0; d < 2; ++d) {
          acc[d] += at(s["v"], {b, i, h, d});
          CHECK(at(t["initial_context"], {b, i, h, d}) == Approx(acc[d]).epsilon(1e-14));
          if (!t["updated_rows"][b][h][i].get<bool>()) CHECK(at(t["context"], {b, i, h, d}) == at(t["initial_context"], {b, i, h, d}));
        }
      }
    }
}

TEST_CASE("prob samples: drawn from the seed, row-major by below(L_K); same seed same index") {
  json s = random_prob(31, 1, 9, 2, 2, 2);
  s["factor"] = 1;  // U_part = 3
  s["seed"] = 7;
  const json a = run(s), b = run(s);
  CHECK(a["sample_index"] == b["sample_index"]);
  Rng rng(7, RngStream::samples);
  for (std::size_t i = 0; i < 9; ++i)
    for (std::size_t k = 0; k < 3; ++k) CHECK(a["sample_index"][i][k].get<std::uint64_t>() == rng.below(9));
  s["seed"] = 8;
  const json c = run(s);
  CHECK(c["sample_index"] != a["sample_index"]);
  const bool same_draw = draw_sample_index(7, 2, 9, 3, 9, false) == draw_sample_index(7, 2, 9, 3, 9, false);
  CHECK(same_draw);
  // q_k_sample uses exactly the drawn keys (unscaled)
  for (std::size_t i = 0; i < 9; ++i)
    for (std::size_t k = 0; k < 3; ++k) {
      const auto j = a["sample_index"][i][k].get<std::size_t>();
      CHECK(at(a["q_k_sample"], {0, 1, i, k}) == Approx(dot_json(s["q"][0][i][1], s["k"][0][j][1])).epsilon(1e-15));
    }
}

TEST_CASE("prob squeeze bug: at H = 1, B > 1 every batch item updates the union of the top rows") {
  json s = random_prob(41, 3, 8, 1, 2, 3);
  s["factor"] = 1;  // u = 3 of 8
  s["output_attention"] = true;
  s["seed"] = 5;
  const json t = run(s);
  json f = s;
  f["algorithm"] = "full";
  for (const char* key : {"factor", "output_attention", "seed"}) f.erase(key);
  const json full = run(f);
  std::set<std::int64_t> all;
  for (std::size_t b = 0; b < 3; ++b) {
    const auto own = row_set(t["top_index"][b][0]);
    all.insert(own.begin(), own.end());
  }
  REQUIRE(all.size() > 3);  // the batch items chose different rows
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t i = 0; i < 8; ++i) {
      const bool in_union = all.count(static_cast<std::int64_t>(i)) > 0;
      CHECK(t["updated_rows"][b][0][i].get<bool>() == in_union);
      // each updated row is its own exact attention row; the others keep the mean of V
      const json& expected = in_union ? full["context"][b][i] : t["initial_context"][b][i];
      CHECK(max_rel_diff(t["context"][b][i], expected) < 1e-13);
      if (in_union) CHECK(max_rel_diff(t["attn"][b][0][i], full["weights"][b][0][i]) < 1e-13);
    }
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("squeeze"));
  CHECK(t["cost"]["dot_products"] == 3 * 8 * 3 + 3 * all.size() * 8);

  // switched off: only each item's own top rows
  s["squeeze_bug"] = false;
  const json o = run(s);
  CHECK(o["warnings"].empty());
  for (std::size_t b = 0; b < 3; ++b) {
    const auto own = row_set(o["top_index"][b][0]);
    for (std::size_t i = 0; i < 8; ++i) {
      const bool mine = own.count(static_cast<std::int64_t>(i)) > 0;
      CHECK(o["updated_rows"][b][0][i].get<bool>() == mine);
      const json& expected = mine ? full["context"][b][i] : o["initial_context"][b][i];
      CHECK(max_rel_diff(o["context"][b][i], expected) < 1e-13);
    }
  }
  CHECK(o["cost"]["dot_products"] == 3 * (8 * 3 + 3 * 8));

  // with two heads there is no union
  json h2 = random_prob(41, 3, 8, 2, 2, 3);
  h2["factor"] = 1;
  const json t2 = run(h2);
  for (std::size_t b = 0; b < 3; ++b)
    for (std::size_t h = 0; h < 2; ++h) {
      std::size_t n = 0;
      for (const auto& x : t2["updated_rows"][b][h]) n += x.get<bool>();
      CHECK(n == 3);
    }
}

TEST_CASE("prob pitfall switches change exactly what they name") {
  json s = random_prob(51, 2, 9, 2, 3, 2);
  s["factor"] = 1;
  s["mask"] = {{"kind", "causal"}};
  s["seed"] = 3;
  const json ref = run(s);

  SECTION("causal_initial: mean gives the cumulative mean") {
    s["causal_initial"] = "mean";
    const json t = run(s);
    for (std::size_t i = 0; i < 9; ++i)
      for (std::size_t d = 0; d < 2; ++d) {
        CHECK(at(t["initial_context"], {1, i, 0, d}) == Approx(at(ref["initial_context"], {1, i, 0, d}) / double(i + 1)).epsilon(1e-14));
        if (t["updated_rows"][1][0][i].get<bool>()) CHECK(at(t["context"], {1, i, 0, d}) == at(ref["context"], {1, i, 0, d}));
      }
    CHECK(t["top_index"] == ref["top_index"]);
    CHECK(max_rel_diff(t["context"], ref["context"]) > 0.1);
  }
  SECTION("sparsity_divisor: U_part gives max - mean of the samples") {
    s["sparsity_divisor"] = "U_part";
    const json t = run(s);
    const auto U = t["U_part"].get<std::size_t>();
    REQUIRE(U == 3);
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 9; ++i) {
          const json& row = t["q_k_sample"][b][h][i];
          double mx = -INFINITY, sum = 0;
          for (const auto& x : row) mx = std::max(mx, x.get<double>()), sum += x.get<double>();
          CHECK(at(t["sparsity"], {b, h, i}) == Approx(mx - sum / 3).margin(1e-14));
          CHECK(at(ref["sparsity"], {b, h, i}) == Approx(mx - sum / 9).margin(1e-14));
        }
    CHECK(t["q_k_sample"] == ref["q_k_sample"]);
  }
  SECTION("sample_per_head: one sample_index per head, drawn head-major") {
    s["sample_per_head"] = true;
    const json t = run(s);
    REQUIRE(t["shapes"]["sample_index"] == json::array({2, 9, 3}));
    CHECK(t["sample_index"][0] == ref["sample_index"]);  // head 0 takes the first draws
    CHECK(t["sample_index"][1] != t["sample_index"][0]);
    for (std::size_t h = 0; h < 2; ++h)
      for (std::size_t i = 0; i < 9; ++i)
        for (std::size_t k = 0; k < 3; ++k) {
          const auto j = t["sample_index"][h][i][k].get<std::size_t>();
          CHECK(at(t["q_k_sample"], {1, h, i, k}) == Approx(dot_json(s["q"][1][i][h], s["k"][1][j][h])).epsilon(1e-15));
        }
  }
}

TEST_CASE("prob cost is real: L = 4096, factor 5 computes ~45x fewer dot products, no L x L matrix") {
  const std::size_t L = 4096;
  Rng rng(61, RngStream::data);
  Tensor q = Tensor::from_shape({1, L, 1, 2}), k = Tensor::from_shape({1, L, 1, 2}), v = Tensor::from_shape({1, L, 1, 2});
  for (Tensor* t : {&q, &k, &v})
    for (std::size_t n = 0; n < t->size(); ++n) t->data()[n] = rng.normal();
  ProbOptions options;
  options.factor = 5;
  options.seed = 1;
  const Trace t = prob_attention(q, k, v, default_scale(2), Mask{}, options, TraceLevel::context);
  REQUIRE(prob_sizes(5, L, L).U_part == 45);  // 5 * ceil(ln 4096 = 8.32)
  CHECK(t.cost.dot_products == L * 45 + 45 * L);
  CHECK(t.cost.dense_dot_products == L * L);
  CHECK(double(t.cost.dense_dot_products) / double(t.cost.dot_products) >= 40.0);
  REQUIRE(t.fields.size() == 1);  // context only
  CHECK(t.fields[0].first == "context");
  // through the scenario layer, flat tensors, trace "context"
  json s = {{"algorithm", "prob"}, {"trace", "context"}, {"factor", 5}};
  for (const char* name : {"q", "k", "v"}) {
    const Tensor& x = std::string(name) == "q" ? q : std::string(name) == "k" ? k : v;
    s[name] = {{"shape", json::array({1, L, 1, 2})}, {"data", std::vector<double>(x.data(), x.data() + x.size())}};
  }
  const json j = run(s);
  CHECK(!j.contains("scores_top"));
  CHECK(!j.contains("attn"));
  CHECK(!j.contains("sparsity"));
  CHECK(j["shapes"]["context"] == json::array({1, L, 1, 2}));
  CHECK(j["cost"]["dot_products"] == 2 * 45 * L);
}

TEST_CASE("prob edge sizes: L = 1 warns as the reference would fail, never NaN") {
  json s = random_prob(71, 1, 1, 1, 2, 2);
  const json t = run(s);
  CHECK(t["U_part"] == 1);
  CHECK(t["u"] == 1);
  CHECK(t["warnings"].size() == 2);
  CHECK(max_rel_diff(t["context"], s["v"]) < 1e-15);  // one key: weight 1
}

TEST_CASE("prob bad inputs name the field") {
  json s = find_preset("prob-toy")->scenario;
  s["sample_index"][2][1] = 7;
  CHECK(error_of(s) == "sample_index[2][1]: expected an integer from 0 to 3, got 7");
  s = find_preset("prob-toy")->scenario;
  s["sample_index"][0] = json::array({0, 1, 2});
  CHECK(error_of(s) == "sample_index[0]: expected 2 integers (U_part = min(factor * ceil(ln L_K), L_K)), got 3");
  s = find_preset("prob-toy")->scenario;
  s["sample_per_head"] = true;  // now (H, L_Q, U_part)
  CHECK(error_of(s) == "sample_index: expected 1 entry (H, with sample_per_head), got 4");
  s = find_preset("prob-toy")->scenario;
  s["factor"] = 0;
  CHECK(error_of(s) == "factor: expected an integer from 1 to 65536, got 0");
  s["factor"] = 1.5;
  CHECK(error_of(s) == "factor: expected an integer, got 1.5");
  s = find_preset("prob-toy")->scenario;
  s["mask"] = {{"kind", "local"}};
  CHECK(error_of(s) == "mask.kind: ProbAttention takes \"none\" or \"causal\" (ProbMask), got \"local\"");
  s["mask"] = {{"kind", "valid_lens"}, {"valid_lens", json::array({2})}};
  CHECK_THAT(error_of(s), StartsWith("mask.kind: ProbAttention takes"));
  s = random_prob(81, 1, 3, 1, 2, 2, 5);
  s["mask"] = {{"kind", "causal"}};
  CHECK(error_of(s) == "mask: the causal mask of ProbAttention needs L_Q = L_K (its initial context is the "
                       "cumulative sum of V), got L_Q = 3, L_K = 5");
  s = find_preset("prob-toy")->scenario;
  s["causal_initial"] = "median";
  CHECK(error_of(s) == "causal_initial: expected one of \"sum\", \"mean\", got \"median\"");
  s = find_preset("prob-toy")->scenario;
  s["squeeze_bug"] = "yes";
  CHECK(error_of(s) == "squeeze_bug: expected true or false, got a string");
}

TEST_CASE("prob top_index given: the seed's walk-through fixes index = [0, 2]") {
  json s = find_preset("prob-toy")->scenario;
  s["top_index"] = json::array({0, 2});
  const json t = run(s);
  CHECK(t["top_index"] == json::parse("[[[0, 2]]]"));
  CHECK(t["updated_rows"][0][0] == json::parse("[true, false, true, false]"));
  CHECK(t["sparsity"][0][0] == json::parse("[0.5, 1.0, 1.25, 1.0]"));  // still the sampled estimate
  // the note's numbers: q0.k = [1, 0, 1, 1], q2.k = [1, 1, 2, 0]; M(q0) = 0.25, M(q2) = 1
  const double scale = 1.0 / std::sqrt(2.0);
  const double q0k[4] = {1, 0, 1, 1}, q2k[4] = {1, 1, 2, 0};
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(at(t["scores_top"], {0, 0, 0, j}) / scale == Approx(q0k[j]).margin(1e-15));
    CHECK(at(t["scores_top"], {0, 0, 1, j}) / scale == Approx(q2k[j]).margin(1e-15));
  }
  CHECK(at(t["sparsity_exact"], {0, 0, 0}) == 0.25);
  CHECK(at(t["sparsity_exact"], {0, 0, 2}) == 1.0);
  // q1 and q3 keep the mean of V; q0 and q2 get softmax(scale * q.k) V (the note's weights
  // [0.30, 0.10, 0.30, 0.30] are assumed for illustration: the softmax gives 25.7256 for q0)
  CHECK(t["context"][0][1][0] == json::parse("[25.0, 26.0]"));
  CHECK(t["context"][0][3][0] == json::parse("[25.0, 26.0]"));
  const double V[4][2] = {{10, 11}, {20, 21}, {30, 31}, {40, 41}};
  for (const auto& [row, qk] : {std::pair<std::size_t, const double*>{0, q0k}, {2, q2k}}) {
    double w[4], z = 0;
    for (std::size_t j = 0; j < 4; ++j) z += (w[j] = std::exp(scale * qk[j]));
    for (std::size_t d = 0; d < 2; ++d) {
      double c = 0;
      for (std::size_t j = 0; j < 4; ++j) c += w[j] / z * V[j][d];
      CHECK(at(t["context"], {0, row, 0, d}) == Approx(c).epsilon(1e-14));
    }
  }
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx(25.7256).margin(1e-4));
  CHECK(t["cost"]["dot_products"] == 4 * 2 + 2 * 4);

  // the same index for every batch item and head; no union under the squeeze bug
  json r = random_prob(91, 2, 8, 2, 3, 2);
  r["factor"] = 1;  // u = 3
  r["top_index"] = json::array({5, 0, 3});
  const json t2 = run(r);
  CHECK(t2["shapes"]["top_index"] == json::array({2, 2, 3}));
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < 2; ++h) {
      CHECK(t2["top_index"][b][h] == json::parse("[5, 0, 3]"));
      CHECK(row_set(t2["top_index"][b][h]) == std::set<std::int64_t>{0, 3, 5});
    }
  json sq = random_prob(92, 3, 8, 1, 2, 2);
  sq["factor"] = 1;
  sq["top_index"] = json::array({7, 1, 4});
  const json t3 = run(sq);
  CHECK(t3["warnings"].empty());
  for (std::size_t b = 0; b < 3; ++b)
    CHECK(t3["updated_rows"][b][0] == json::parse("[false, true, false, false, true, false, false, true]"));
}

TEST_CASE("prob-seed-walkthrough: the note's numbers as written (index [0, 2], scale 1)") {
  const json t = run_preset("prob-seed-walkthrough");
  const json& s = find_preset("prob-seed-walkthrough")->scenario;
  CHECK(s["top_index"] == json::parse("[0, 2]"));
  CHECK(s["scale"] == 1);
  CHECK(t["top_index"] == json::parse("[[[0, 2]]]"));
  // given, not ranked: the sampled M would pick q2 and q1
  CHECK(t["sparsity"][0][0] == json::parse("[0.5, 1.0, 1.25, 1.0]"));
  // scale 1: scores_top is q.k itself, [1, 0, 1, 1] and [1, 1, 2, 0] (8.3)
  CHECK(t["scores_top"] == json::parse("[[[[1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 2.0, 0.0]]]]"));
  // the exact M: max - mean against all keys, 1 - 0.75 and 2 - 1
  CHECK(t["sparsity_exact"][0][0] == json::parse("[0.25, 0.75, 1.0, 0.5]"));
  // 10.3: softmax of the scores times V; q0 -> [25.94, 26.94], q2 -> [24.82, 25.82], the rest the mean of V
  const double V[4][2] = {{10, 11}, {20, 21}, {30, 31}, {40, 41}};
  const double qk[2][4] = {{1, 0, 1, 1}, {1, 1, 2, 0}};
  const std::size_t rows[2] = {0, 2};
  for (std::size_t r = 0; r < 2; ++r) {
    double z = 0;
    for (double x : qk[r]) z += std::exp(x);
    for (std::size_t d = 0; d < 2; ++d) {
      double c = 0;
      for (std::size_t j = 0; j < 4; ++j) c += std::exp(qk[r][j]) / z * V[j][d];
      CHECK(at(t["context"], {0, rows[r], 0, d}) == Approx(c).epsilon(1e-14));
      CHECK(at(t["weights_top"], {0, 0, r, 0}) == Approx(std::exp(qk[r][0]) / z).epsilon(1e-14));
    }
  }
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx(25.94).margin(5e-3));
  CHECK(at(t["context"], {0, 0, 0, 1}) == Approx(26.94).margin(5e-3));
  CHECK(at(t["context"], {0, 2, 0, 0}) == Approx(24.82).margin(5e-3));
  CHECK(t["context"][0][1][0] == json::parse("[25.0, 26.0]"));
  CHECK(t["context"][0][3][0] == json::parse("[25.0, 26.0]"));
  CHECK(t["updated_rows"][0][0] == json::parse("[true, false, true, false]"));
}

TEST_CASE("prob top_index errors name top_index or top_index[i]") {
  json s = find_preset("prob-toy")->scenario;
  s["top_index"] = json::array({0, 2, 1});
  CHECK(error_of(s) == "top_index: expected 2 integers (u = min(factor * ceil(ln L_Q), L_Q)), got 3");
  s["top_index"] = json::array({0, 4});
  CHECK(error_of(s) == "top_index[1]: expected an integer from 0 to 3, got 4");
  s["top_index"] = json::array({-1, 2});
  CHECK(error_of(s) == "top_index[0]: expected an integer from 0 to 3, got -1");
  s["top_index"] = json::array({2, 2});
  CHECK(error_of(s) == "top_index[1]: query 2 is already selected by top_index[0]; expected 2 distinct queries");
  s["top_index"] = json::array({0.5, 1});
  CHECK(error_of(s) == "top_index[0]: expected an integer, got 0.5");
  s["top_index"] = "0, 2";
  CHECK_THAT(error_of(s), StartsWith("top_index: expected an array of 2 integers"));
  // the core checks a given index itself (C++ callers)
  Tensor q = xt::ones<double>({1, 4, 1, 2}), v = xt::ones<double>({1, 4, 1, 2});
  ProbOptions o;
  o.factor = 1;
  o.top_index = IndexTensor{3, 3};
  CHECK_THROWS_WITH(prob_attention(q, q, v, 1.0, Mask{}, o, TraceLevel::full),
                    "top_index[1]: query 3 is already selected by top_index[0]; expected 2 distinct queries");
  o.top_index = IndexTensor{0, 1, 2};
  CHECK_THROWS_WITH(prob_attention(q, q, v, 1.0, Mask{}, o, TraceLevel::full),
                    "top_index: expected shape (2) (u = min(factor * ceil(ln L_Q), L_Q)), got (3)");
  o.top_index.reset();
  Mask local;
  local.kind = MaskKind::local;
  CHECK_THROWS_WITH(prob_attention(q, q, v, 1.0, local, o, TraceLevel::full),
                    "mask.kind: ProbAttention takes \"none\" or \"causal\" (ProbMask), got \"local\"");
}

TEST_CASE("prob sparsity_exact is M against every key, divided by L_K whatever sparsity_divisor") {
  for (const char* divisor : {"L_K", "U_part"}) {
    INFO(divisor);
    json s = random_prob(101, 2, 7, 2, 3, 2, 10);
    s["factor"] = 1;
    s["sparsity_divisor"] = divisor;
    const json t = run(s);
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 7; ++i) {
          double mx = -INFINITY, sum = 0;
          for (std::size_t j = 0; j < 10; ++j) {
            const double x = dot_json(s["q"][b][i][h], s["k"][b][j][h]);
            mx = std::max(mx, x);
            sum += x;
          }
          CHECK(at(t["sparsity_exact"], {b, h, i}) == Approx(mx - sum / 10).margin(1e-14));
        }
  }
  // every key sampled once: the estimate is the exact M
  json s = find_preset("prob-toy")->scenario;
  s["factor"] = 2;
  s["sample_index"] = json::parse("[[0,1,2,3],[0,1,2,3],[0,1,2,3],[0,1,2,3]]");
  const json t = run(s);
  CHECK(t["sparsity"] == t["sparsity_exact"]);
  // only at trace "full"
  s["trace"] = "context";
  const json c = run(s);
  for (const char* field : {"sparsity_exact", "exact_context", "max_abs_error"}) CHECK(!c.contains(field));
}

TEST_CASE("prob exact_context: with u = L_Q ProbAttention is full attention (max_abs_error < 1e-12)") {
  Rng sizes(111, RngStream::data);
  for (unsigned n = 0; n < 8; ++n) {
    const std::size_t B = 1 + sizes.below(3), H = 1 + sizes.below(3), L = 2 + sizes.below(11);
    const std::size_t E = 1 + sizes.below(5), D = 1 + sizes.below(4);
    const bool causal = n % 2 == 1;
    const std::size_t L_K = causal ? L : 2 + sizes.below(11);
    INFO("B " << B << " H " << H << " L_Q " << L << " L_K " << L_K << " E " << E << " D " << D << " causal " << causal);
    json s = random_prob(120 + n, B, L, H, E, D, L_K);
    s["factor"] = L;  // u = L_Q
    if (causal) s["mask"] = {{"kind", "causal"}};
    const json t = run(s);
    REQUIRE(t["u"] == L);
    CHECK(t["max_abs_error"].get<double>() < 1e-12);
    json f = s;
    f["algorithm"] = "full";
    f.erase("factor");
    CHECK(max_rel_diff(t["exact_context"], run(f)["context"]) == 0.0);  // full_attention itself
  }
  // with fewer rows: max_abs_error = max |context - exact_context|, and zero on the updated rows
  json s = random_prob(131, 2, 9, 2, 3, 3);
  s["factor"] = 1;  // u = 3 of 9
  const json t = run(s);
  double worst = 0;
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 9; ++i)
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t d = 0; d < 3; ++d) {
          const double e = std::abs(at(t["context"], {b, i, h, d}) - at(t["exact_context"], {b, i, h, d}));
          worst = std::max(worst, e);
          if (t["updated_rows"][b][h][i].get<bool>()) CHECK(e < 1e-12);
        }
  CHECK(t["max_abs_error"].get<double>() == worst);
  CHECK(worst > 0.01);
}

// The seed's toy with k1 = q3 = [0, big]: the given top_index and the samples never pair them, so
// only the exact comparison forms q3.k1 = big^2.
namespace {
json prob_toy_far_pair(double big) {
  json s = find_preset("prob-toy")->scenario;
  s["k"][0][1][0] = json::array({0, big});
  s["q"][0][3][0] = json::array({0, big});
  s["sample_index"] = json::parse("[[0,2],[0,3],[0,2],[2,3]]");
  s["top_index"] = json::array({0, 2});
  return s;
}
}  // namespace

TEST_CASE("prob exact comparison: a q.k that only the comparison forms overflows -> left out, with a warning") {
  const json t = run(prob_toy_far_pair(1e200));  // q3.k1 = 1e400
  for (const char* field : {"sparsity_exact", "exact_context", "max_abs_error"}) CHECK(!t.contains(field));
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(),
             StartsWith("sparsity_exact, exact_context and max_abs_error are left out: q: q.k of query 3 and key 1"));
  CHECK(t["context"][0][3][0] == json::parse("[25.0, 26.0]"));
}

TEST_CASE("prob exact comparison: only the scaled q.k of exact attention overflows -> sparsity_exact stays") {
  // q3.k1 = 1e300 is finite (sparsity_exact is unscaled), scale 1e10 puts it beyond the double
  // range in exact attention alone (add_exact_context, as for the other approximations)
  json s = prob_toy_far_pair(1e150);
  s["scale"] = 1e10;
  const json t = run(s);
  CHECK(t.contains("sparsity_exact"));
  CHECK(t["sparsity_exact"][0][0][3].get<double>() > 1e299);
  for (const char* field : {"exact_context", "max_abs_error"}) CHECK(!t.contains(field));
  REQUIRE(t["warnings"].size() == 1);
  CHECK_THAT(t["warnings"][0].get<std::string>(),
             StartsWith("exact_context and max_abs_error left out: exact softmax attention fails on these inputs"));
}

TEST_CASE("prob relies on xtensor 0.24.3 reductions: stored sum, mean, cumsum, amax equal hand loops") {
  // A lazy `e / xt::sum(e, {1}, xt::keep_dims)` gave wrong numbers on xtensor 0.24.3 (TOOLCHAIN.md):
  // store every reduction in a named Tensor first. These are the reference's forms, which
  // prob_attention.cpp computes as the hand loops below (the last test case checks its trace).
  Rng rng(141, RngStream::data);
  Tensor e = Tensor::from_shape({5, 7});
  for (auto& x : e) x = rng.normal();
  const Tensor total = xt::sum(e, {1});
  const Tensor max = xt::amax(e, {1});
  const Tensor M = max - total / 7.0;
  const Tensor total_kept = xt::sum(e, {1}, xt::keep_dims);
  const Tensor normalised = e / total_kept;
  for (std::size_t i = 0; i < 5; ++i) {
    double s = 0, m = -INFINITY;
    for (std::size_t j = 0; j < 7; ++j) s += e(i, j), m = std::max(m, e(i, j));
    CHECK(total(i) == s);  // the same order of additions: bit for bit
    CHECK(max(i) == m);
    CHECK(M(i) == m - s / 7.0);
    for (std::size_t j = 0; j < 7; ++j) CHECK(normalised(i, j) == e(i, j) / s);
  }
  // (b, h) slices of a (B, L, H, D) tensor: mean and cumulative sum over L
  Tensor v = Tensor::from_shape({2, 6, 3, 4});
  for (auto& x : v) x = rng.normal();
  const auto V_bh = xt::view(v, 1, xt::all(), 2, xt::all());
  const Tensor V_mean = xt::mean(V_bh, {0});
  const Tensor V_cumsum = xt::cumsum(V_bh, 0);
  for (std::size_t d = 0; d < 4; ++d) {
    double acc = 0;
    for (std::size_t j = 0; j < 6; ++j) {
      acc += v(1, j, 2, d);
      CHECK(V_cumsum(j, d) == acc);
    }
    CHECK(V_mean(d) == acc / 6.0);
  }
}

TEST_CASE("prob's loops are the reference's xtensor lines bit for bit; the updated rows are the fused kernel's") {
  // prob_attention.cpp writes steps 4 and 7 as loops (the strided views' stepping cost more than the
  // products at L = 8192) and computes the updated rows of an unmasked run in one call of the fused
  // kernel: the numbers are those of the xtensor expressions and of the row kernel.
  Rng rng(151, RngStream::data);
  const std::size_t B = 2, L = 9, H = 3, E = 4, D = 5;
  Tensor q = Tensor::from_shape({B, L, H, E}), k = Tensor::from_shape({B, L, H, E}), v = Tensor::from_shape({B, L, H, D});
  for (Tensor* t : {&q, &k, &v})
    for (auto& x : *t) x = rng.normal();
  const double scale = 0.5;
  for (const bool causal : {false, true})
    for (const CausalInitial how : {CausalInitial::sum, CausalInitial::mean}) {
      INFO("causal " << causal << ", mean " << (how == CausalInitial::mean));
      Mask mask;
      if (causal) mask.kind = MaskKind::causal;
      ProbOptions o;
      o.factor = 1;  // u = U_part = 3 of 9
      o.seed = 3;
      o.causal_initial = how;
      const Trace t = prob_attention(q, k, v, scale, mask, o, TraceLevel::full);
      const Tensor& initial = t.tensor("initial_context");
      const Tensor& context = t.tensor("context");
      const Tensor& q_k_sample = t.tensor("q_k_sample");
      const Tensor& sparsity = t.tensor("sparsity");
      const auto& updated = std::get<BoolTensor>(*t.find("updated_rows"));
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h) {
          // 7. `V.mean(dim=-2)` expanded, or `V.cumsum(dim=-2)` (divided by i + 1 for the mean)
          const auto V_bh = xt::view(v, b, xt::all(), h, xt::all());
          Tensor expected;
          if (!causal) {
            const Tensor V_mean = xt::mean(V_bh, {0});
            expected = xt::broadcast(V_mean, {L, D});
          } else {
            const Tensor V_cumsum = xt::cumsum(V_bh, 0);
            const Tensor count = xt::arange<double>(1.0, static_cast<double>(L) + 1.0);
            expected = how == CausalInitial::sum ? V_cumsum : Tensor(V_cumsum / xt::view(count, xt::all(), xt::newaxis()));
          }
          for (std::size_t i = 0; i < L; ++i)
            for (std::size_t d = 0; d < D; ++d) CHECK(initial(b, i, h, d) == expected(i, d));
          // 4. `M = Q_K_sample.max(-1)[0] - torch.div(Q_K_sample.sum(-1), L_K)`
          const Tensor products = xt::view(q_k_sample, b, h, xt::all(), xt::all());
          const Tensor max = xt::amax(products, {1});
          const Tensor total = xt::sum(products, {1});
          const Tensor M = max - total / static_cast<double>(L);
          for (std::size_t i = 0; i < L; ++i) CHECK(sparsity(b, h, i) == M(i));
          // 8. each updated row: the row kernel's (ProbMask: bit for bit, it is that kernel) or the
          //    fused tiles' (no mask: the same sums, the last bits may differ)
          std::vector<double> s(L), w(L), c(D);
          for (std::size_t i = 0; i < L; ++i) {
            if (!updated(b, h, i)) {
              for (std::size_t d = 0; d < D; ++d) CHECK(context(b, i, h, d) == initial(b, i, h, d));
              continue;
            }
            attend_row(q, k, v, scale, mask, b, i, h, s.data(), w.data(), c.data());
            for (std::size_t d = 0; d < D; ++d) {
              if (causal) CHECK(context(b, i, h, d) == c[d]);
              else CHECK(context(b, i, h, d) == Approx(c[d]).margin(1e-15).epsilon(1e-14));
            }
          }
        }
    }
  // 3. the gathered products (four keys at a time, then one): dot() bit for bit, also for an E
  //    that is not a multiple of 4
  for (const std::size_t E2 : {std::size_t{4}, std::size_t{7}}) {
    Tensor q2 = Tensor::from_shape({B, L, H, E2}), k2 = Tensor::from_shape({B, L, H, E2});
    for (Tensor* t : {&q2, &k2})
      for (auto& x : *t) x = rng.normal();
    ProbOptions o;
    o.factor = 2;  // U_part = 6: one group of four keys and two single ones
    const Trace t = prob_attention(q2, k2, v, scale, Mask{}, o, TraceLevel::full);
    const Tensor& q_k_sample = t.tensor("q_k_sample");
    const auto& sample_index = std::get<IndexTensor>(*t.find("sample_index"));
    REQUIRE(sample_index.shape()[1] == 6);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < L; ++i)
          for (std::size_t s = 0; s < 6; ++s) {
            const auto j = static_cast<std::size_t>(sample_index(i, s));
            CHECK(q_k_sample(b, h, i, s) == dot(row_ptr(q2, b, i, h), row_ptr(k2, b, j, h), E2));
          }
  }
  // every row updated, no mask: full attention's context bit for bit (one kernel), at both levels
  ProbOptions all;
  all.factor = 100;  // u = L_Q
  const Tensor full = full_attention(q, k, v, scale, Mask{}, TraceLevel::context).tensor("context");
  for (const TraceLevel level : {TraceLevel::context, TraceLevel::full}) {
    const Trace t = prob_attention(q, k, v, scale, Mask{}, all, level);
    CHECK(t.tensor("context") == full);
  }
}

TEST_CASE("dot_rows gives dot()'s bits for every row, at every length (tensor.hpp)", "[prob][dot]") {
  std::vector<double> a(41), rows(4 * 41);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(1.7 * static_cast<double>(i) + 0.3) * 3.1;
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = std::cos(0.9 * static_cast<double>(i)) / 7.0;
  for (std::size_t n = 1; n <= 41; ++n) {
    const double* b[4] = {&rows[0], &rows[41], &rows[82], &rows[123]};
    double four[4], one[1];
    attnplay::dot_rows<4>(a.data(), b, n, four);
    attnplay::dot_rows<1>(a.data(), b + 2, n, one);
    for (std::size_t r = 0; r < 4; ++r) REQUIRE(four[r] == attnplay::dot(a.data(), b[r], n));
    REQUIRE(one[0] == attnplay::dot(a.data(), b[2], n));
  }
}
