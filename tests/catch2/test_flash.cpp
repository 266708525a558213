// flash: the online softmax, tile by tile. Its context equals full's to 1e-12 under every mask and
// block size; its running max, running sum and partial context equal their definitions, computed
// here independently (std::exp, every key of blocks 0..t at once); float32 agrees with float64.
#include <cmath>
#include <limits>

#include "../../core/attention_kernel.hpp"
#include "../../core/simd.hpp"
#include "../../core/flash_attention.hpp"
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;

namespace {

const std::vector<json>& every_mask() {
  static const std::vector<json> masks = {
      {{"kind", "none"}},
      {{"kind", "causal"}},
      {{"kind", "causal"}, {"fill", -5}},
      {{"kind", "local"}, {"window", 1}},
      {{"kind", "local"}, {"window", 2}, {"causal", true}},
      {{"kind", "atrous"}, {"dilation", 3}},
      {{"kind", "strided"}, {"window", 1}, {"stride", 3}},
      {{"kind", "strided"}, {"window", 0}, {"stride", 2}, {"causal", true}, {"fill", -1e6}},
      {{"kind", "valid_lens"}, {"valid_lens", {3, 0}}},
      {{"kind", "valid_lens"}, {"valid_lens", {3, 0}}, {"fill", "-inf"}},
      {{"kind", "explicit"},
       {"allowed", json::parse("[[1,0,0,0,0,1,0],[0,0,0,0,0,0,0],[0,0,1,0,0,0,1],[1,1,1,1,1,1,1],[0,1,0,1,0,0,0],"
                               "[0,0,0,0,0,0,1]]")}},
  };
  return masks;
}

json scenario(const std::string& algorithm, unsigned seed, std::size_t L_Q, std::size_t L_K, const json& mask,
              const json& extra = json::object()) {
  json s = random_qkv(algorithm, seed, 2, 2, L_Q, L_K, 3, 4, extra);
  s["mask"] = mask;
  return s;
}

}  // namespace

TEST_CASE("flash: context equals full's to 1e-12 for every mask and block sizes 1..L") {
  for (const json& mask : every_mask()) {
    const std::size_t L_Q = 6, L_K = 7;
    const json full = run(scenario("full", 11, L_Q, L_K, mask));
    for (std::size_t bk = 1; bk <= L_K + 1; ++bk)
      for (std::size_t bq : {std::size_t{1}, std::size_t{2}, std::size_t{5}, L_Q}) {
        INFO(mask.dump() << " block_q " << bq << " block_k " << bk);
        const json flash = run(scenario("flash", 11, L_Q, L_K, mask, {{"block_q", bq}, {"block_k", bk}}));
        CHECK(max_rel_diff(flash["context"], full["context"]) <= 1e-12);
        CHECK(flash["running_max"].size() == 2);
        CHECK(flash["partial_context"][0][0].size() == (L_K + bk - 1) / bk);
        CHECK(flash["warnings"] == full["warnings"]);
        CHECK(flash["cost"] == full["cost"]);
      }
  }
}

TEST_CASE("flash: running max, running sum and partial context equal their definitions") {
  for (const json& mask : every_mask()) {
    const std::size_t B = 2, H = 2, L_Q = 6, L_K = 7, E = 3, D = 4;
    const json full = run(scenario("full", 23, L_Q, L_K, mask));  // the allowed picture and the scores
    const json s = scenario("flash", 23, L_Q, L_K, mask);
    const bool skip = !s["mask"].contains("fill") ? s["mask"]["kind"] != "valid_lens" && s["mask"]["kind"] != "none"
                                                  : s["mask"]["fill"] == "-inf";
    const double fill = s["mask"].contains("fill") && s["mask"]["fill"].is_number() ? s["mask"]["fill"].get<double>()
                                                                                    : -1e6;
    for (std::size_t bk : {std::size_t{1}, std::size_t{2}, std::size_t{3}, L_K}) {
      json sc = s;
      sc["block_k"] = bk;
      const json t = run(sc);
      const std::size_t T = (L_K + bk - 1) / bk;
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t h = 0; h < H; ++h)
          for (std::size_t i = 0; i < L_Q; ++i)
            for (std::size_t blk = 0; blk < T; ++blk) {
              INFO(mask.dump() << " block_k " << bk << " b " << b << " h " << h << " i " << i << " t " << blk);
              // keys of blocks 0..blk; their scores as the definition says
              std::vector<double> scores;
              std::vector<std::size_t> keys;
              for (std::size_t j = 0; j < std::min(L_K, (blk + 1) * bk); ++j) {
                double x = 0;
                for (std::size_t e = 0; e < E; ++e) x += at(sc["q"], {b, i, h, e}) * at(sc["k"], {b, j, h, e});
                x /= std::sqrt(double(E));
                const bool allowed = full["allowed"][b][h][i][j].get<bool>();
                if (!allowed && skip) continue;
                scores.push_back(allowed ? x : fill);
                keys.push_back(j);
              }
              double m = -std::numeric_limits<double>::infinity(), l = 0;
              for (double x : scores) m = std::max(m, x);
              std::vector<double> O(D, 0.0);
              for (std::size_t c = 0; c < scores.size(); ++c) {
                const double p = std::exp(scores[c] - m);
                l += p;
                for (std::size_t d = 0; d < D; ++d) O[d] += p * at(sc["v"], {b, keys[c], h, d});
              }
              const double shown_m = scores.empty() ? kNoKeyYet : m;
              CHECK(at(t["running_max"], {b, h, i, blk}) == Approx(shown_m).epsilon(1e-13).margin(1e-13));
              CHECK(at(t["running_sum"], {b, h, i, blk}) == Approx(l).epsilon(1e-13).margin(1e-13));
              for (std::size_t d = 0; d < D; ++d)
                CHECK(at(t["partial_context"], {b, h, blk, i, d}) == Approx(O[d]).epsilon(1e-12).margin(1e-12));
              if (blk + 1 == T)
                for (std::size_t d = 0; d < D; ++d)
                  CHECK(at(t["context"], {b, i, h, d}) == Approx(l > 0 ? O[d] / l : 0.0).epsilon(1e-12).margin(1e-12));
            }
    }
  }
}

TEST_CASE("the fused kernel: full's context equals its row-kernel weights times V, at sizes that use every tile path") {
  // L and D not multiples of the vector width or the 4-row register block; many key blocks
  for (const json& mask : {json{{"kind", "none"}}, json{{"kind", "causal"}}, json{{"kind", "local"}, {"window", 5}},
                           json{{"kind", "valid_lens"}, {"valid_lens", {17, 40}}}}) {
    INFO(mask.dump());
    json s = random_qkv("full", 5, 2, 1, 37, 45, 7, 9);
    s["mask"] = mask;
    const json t = run(s);
    double worst = 0;
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t i = 0; i < 37; ++i)
        for (std::size_t d = 0; d < 9; ++d) {
          double x = 0;
          for (std::size_t j = 0; j < 45; ++j) x += at(t["weights"], {b, 0, i, j}) * at(s["v"], {b, j, 0, d});
          worst = std::max(worst, std::abs(x - at(t["context"], {b, i, 0, d})) / std::max(1.0, std::abs(x)));
        }
    CHECK(worst <= 1e-13);
    for (std::size_t bk : {1, 4, 13, 64}) {
      json f = s;
      f["algorithm"] = "flash";
      f["block_k"] = bk;
      f["block_q"] = 3;
      f["trace"] = "context";
      CHECK(max_rel_diff(run(f)["context"], t["context"]) <= 1e-12);
    }
  }
}

TEST_CASE("dtype float32: full and flash compute in float32, within 1e-5 of float64") {
  for (const json& mask : {json{{"kind", "none"}}, json{{"kind", "causal"}}, json{{"kind", "valid_lens"}, {"valid_lens", {9, 30}}}})
    for (const std::string algorithm : {"full", "flash"}) {
      INFO(algorithm << " " << mask.dump());
      json s = random_qkv(algorithm, 9, 2, 2, 33, 30, 16, 12);
      s["mask"] = mask;
      s["trace"] = "context";
      const json f64 = run(s);
      s["dtype"] = "float32";
      const json f32 = run(s);
      const double d = max_rel_diff(f32["context"], f64["context"]);
      CHECK(d <= 1e-5);
      CHECK(d > 0);  // really float32
      for (const auto& w : f32["warnings"]) CHECK(w.get<std::string>().find("float32") == std::string::npos);
    }
}

TEST_CASE("the fused kernel at sizes that leave a remainder in every blocking: float32 within 1e-5 of float64, "
          "float64 equal to its weights times V") {
  // rows not a multiple of the 4-row register block or of the 32-row tile, keys not a multiple of
  // the vector width or of the 128-key block, E and D not multiples of the vector width
  struct Size {
    std::size_t B, H, L_Q, L_K, E, D;
  };
  for (const Size& z : {Size{2, 2, 5, 3, 1, 1}, Size{2, 1, 37, 131, 7, 9}, Size{1, 2, 70, 260, 64, 64},
                        Size{1, 1, 33, 129, 13, 5}, Size{1, 1, 130, 257, 4, 8}})
    for (const json& mask : {json{{"kind", "none"}}, json{{"kind", "causal"}}, json{{"kind", "causal"}, {"fill", -5}}}) {
      INFO(z.B << " " << z.H << " " << z.L_Q << " " << z.L_K << " " << z.E << " " << z.D << " " << mask.dump());
      json s = random_qkv("full", 31, z.B, z.H, z.L_Q, z.L_K, z.E, z.D);
      s["mask"] = mask;
      const json f64 = run(s);
      double worst = 0;
      for (std::size_t b = 0; b < z.B; ++b)
        for (std::size_t h = 0; h < z.H; ++h)
          for (std::size_t i = 0; i < z.L_Q; ++i)
            for (std::size_t d = 0; d < z.D; ++d) {
              double x = 0;
              for (std::size_t j = 0; j < z.L_K; ++j) x += at(f64["weights"], {b, h, i, j}) * at(s["v"], {b, j, h, d});
              worst = std::max(worst, std::abs(x - at(f64["context"], {b, i, h, d})) / std::max(1.0, std::abs(x)));
            }
      CHECK(worst <= 1e-13);
      s["trace"] = "context";
      s["dtype"] = "float32";
      const double d = max_rel_diff(run(s)["context"], f64["context"]);
      CHECK(d <= 1e-5);
      CHECK(d > 0);
      json f = s;  // flash's fast path (no recorder) with its own block sizes
      f["algorithm"] = "flash";
      f["block_q"] = 3;
      f["block_k"] = 5;
      CHECK(max_rel_diff(run(f)["context"], f64["context"]) <= 1e-5);
      f["dtype"] = "float64";
      CHECK(max_rel_diff(run(f)["context"], f64["context"]) <= 1e-12);
    }
}

TEST_CASE("the fused kernel names the first score that is not finite, in row order, inside a large tile") {
  // query 40 x key 150 is inf - inf (NaN), query 45 x key 130 is inf: both in the second 32-row tile
  // and the second key block; every other score is finite (about 1e300 at most)
  json s = random_qkv("full", 7, 1, 1, 70, 260, 4, 3);
  s["trace"] = "context";
  const auto set = [&](const char* x, std::size_t row, std::vector<double> e) { s[x][0][row][0] = e; };
  set("q", 40, {1e300, 1e300, 0, 0});
  set("k", 150, {1e300, -1e300, 0, 0});
  set("q", 45, {0, 0, 1e300, 1e300});
  set("k", 130, {0, 0, 1e300, 1e300});
  CHECK(error_of(s) == "q: q.k of query 40 and key 150 (batch 0, head 0) is not a finite number (|q| and |k| too large)");
  s["algorithm"] = "flash";
  CHECK(error_of(s) == "q: q.k of query 40 and key 150 (batch 0, head 0) is not a finite number (|q| and |k| too large)");
  s["algorithm"] = "full";
  set("q", 40, {0.5, 0.5, 0, 0});  // only the infinity is left
  CHECK(error_of(s) == "q: q.k of query 45 and key 130 (batch 0, head 0) is not a finite number (|q| and |k| too large)");
  set("q", 45, {0.5, 0.5, 0, 0});  // only a NaN (which a max can drop) is left
  set("q", 50, {1e300, 1e300, 0, 0});
  CHECK(error_of(s) == "q: q.k of query 50 and key 150 (batch 0, head 0) is not a finite number (|q| and |k| too large)");
}

TEST_CASE("dtype float32: a score beyond the float32 range names dtype") {
  json s = random_qkv("full", 3, 1, 1, 2, 2, 2, 2);
  s["q"][0][0][0] = json::array({1e30, 1e30});
  s["k"][0][1][0] = json::array({1e30, 1e30});
  s["trace"] = "context";
  CHECK(error_of(s).empty());
  s["dtype"] = "float32";
  CHECK(error_of(s).rfind("dtype: ", 0) == 0);
}

TEST_CASE("the kernel's exp is std::exp to 2e-16 (float64) and 2e-7 (float32), 0 below the normals") {
  double worst = 0, worst32 = 0;
  for (double x = -745.0; x <= 0.0; x += 0.0137) {
    const double ref = std::exp(x);
    if (x >= -708.0) worst = std::max(worst, std::abs(kernel_exp(x) - ref) / ref);
    if (x >= -87.0) worst32 = std::max(worst32, std::abs(double(kernel_exp(float(x))) - std::exp(double(float(x)))) /
                                                    std::exp(double(float(x))));
  }
  CHECK(worst <= 2e-16 * 2);
  CHECK(worst32 <= 2e-7);
  CHECK(kernel_exp(0.0) == 1.0);
  CHECK(kernel_exp(0.0f) == 1.0f);
  CHECK(kernel_exp(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(kernel_exp(-1000.0) == 0.0);
  CHECK(kernel_exp(-std::numeric_limits<float>::infinity()) == 0.0f);
}

TEST_CASE("flash-toy preset: the running max rises, the old sum rescales, the context is the seed's") {
  const json t = run_preset("flash-toy");
  const double e1 = std::exp(-1.0);
  CHECK(at(t["running_max"], {0, 0, 0, 0}) == Approx(1.0));
  CHECK(at(t["running_max"], {0, 0, 0, 1}) == Approx(2.0));
  CHECK(at(t["running_sum"], {0, 0, 0, 0}) == Approx(e1 + 1).epsilon(1e-15));
  CHECK(at(t["running_sum"], {0, 0, 0, 1}) == Approx(e1 * (e1 + 1) + 1).epsilon(1e-15));
  CHECK(at(t["partial_context"], {0, 0, 0, 0, 0}) == Approx(10 * e1).epsilon(1e-15));
  CHECK(at(t["partial_context"], {0, 0, 0, 0, 1}) == Approx(10 * e1 + 20).epsilon(1e-15));
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx(7.5527).epsilon(1e-4));
  CHECK(at(t["context"], {0, 0, 0, 1}) == Approx(5.7949).epsilon(1e-4));
  const json causal = run_preset("flash-causal");
  CHECK(causal["running_max"][0][0].size() == 6);
  CHECK(causal["running_max"][0][0][0].size() == 3);
}

TEST_CASE("flash: bad block sizes name their field") {
  json s = random_qkv("flash", 1, 1, 1, 3, 3, 2, 2);
  s["block_k"] = 0;
  CHECK(error_of(s).rfind("block_k: ", 0) == 0);
  s["block_k"] = 2;
  s["block_q"] = 1.5;
  CHECK(error_of(s).rfind("block_q: ", 0) == 0);
}
