// Today's models' forms on full and flash (SPEC §2 "Modern attention"): GQA/MQA, RoPE, ALiBi and
// the sink mask. Each against an independent computation here (repeated k/v, a rotation by hand,
// softmax with the bias written out, the window of Mistral) and their properties (RoPE's shift
// invariance, interleaved = half after the pair permutation, get_slopes' values).
#include <algorithm>
#include <cmath>

#include "../../core/alibi.hpp"
#include "../../core/mask.hpp"
#include "../../core/rope.hpp"
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;

namespace {

// q (B, L_Q, H, E), k and v with H_kv heads, standard normals.
json grouped(const std::string& algorithm, unsigned seed, std::size_t H, std::size_t H_kv, std::size_t L_Q,
             std::size_t L_K, std::size_t E, std::size_t D) {
  Rng rng(seed, RngStream::data);
  return {{"algorithm", algorithm},
          {"q", random_nested(rng, {2, L_Q, H, E})},
          {"k", random_nested(rng, {2, L_K, H_kv, E})},
          {"v", random_nested(rng, {2, L_K, H_kv, D})}};
}

// Llama's repeat_kv on nested (B, L, H_kv, X): each kv head repeated n_rep times along axis 2.
json repeat_kv(const json& x, std::size_t n_rep) {
  json out = x;
  for (auto& batch : out)
    for (auto& row : batch) {
      json heads = json::array();
      for (const auto& head : row)
        for (std::size_t r = 0; r < n_rep; ++r) heads.push_back(head);
      row = heads;
    }
  return out;
}

const std::vector<json>& masks() {
  static const std::vector<json> m = {
      {{"kind", "none"}},
      {{"kind", "causal"}},
      {{"kind", "local"}, {"window", 1}},
      {{"kind", "causal"}, {"fill", -3}},
      {{"kind", "sink"}, {"window", 2}, {"sinks", 1}},
  };
  return m;
}

std::vector<std::vector<double>> nested2(const json& t) { return t.get<std::vector<std::vector<double>>>(); }

}  // namespace

TEST_CASE("GQA/MQA: full and flash equal full on k and v repeated per group (repeat_kv), every mask") {
  for (const std::size_t H_kv : {std::size_t{1}, std::size_t{2}, std::size_t{4}})
    for (const json& mask : masks())
      for (const std::string algorithm : {"full", "flash"}) {
        json s = grouped(algorithm, 3 + H_kv, 4, H_kv, 5, 6, 3, 2);
        s["mask"] = mask;
        json repeated = s;
        repeated["algorithm"] = "full";
        repeated["k"] = repeat_kv(s["k"], 4 / H_kv);
        repeated["v"] = repeat_kv(s["v"], 4 / H_kv);
        const json got = run(s), want = run(repeated);
        CAPTURE(algorithm, H_kv, mask.dump());
        CHECK(max_rel_diff(got["context"], want["context"]) < 1e-12);
        if (algorithm == "full") CHECK(max_rel_diff(got["weights"], want["weights"]) < 1e-12);
        // kv_head only when grouped; the cache holds H_kv heads of keys and values
        CHECK(got.contains("kv_head") == (H_kv != 4));
        if (H_kv == 2) CHECK(got["kv_head"] == json::array({0, 0, 1, 1}));
        if (H_kv == 1) CHECK(got["kv_head"] == json::array({0, 0, 0, 0}));
        CHECK(got["cost"]["kv_cache_numbers"] == 2 * 6 * H_kv * (3 + 2));
        // float32 reads the same kv heads
        s["dtype"] = "float32";
        s["trace"] = "context";
        CHECK(max_rel_diff(run(s)["context"], want["context"]) < 1e-5);
      }
}

TEST_CASE("GQA: refusals name k") {
  json s = grouped("full", 1, 4, 3, 2, 2, 2, 2);
  CHECK(error_of(s).rfind("k: k's 3 kv heads (axis 2, H_kv) must divide q's 4 heads (H)", 0) == 0);
  s = grouped("full", 1, 4, 2, 2, 2, 2, 2);
  s["v"] = grouped("full", 2, 4, 4, 2, 2, 2, 2)["v"];  // v with 4 heads, k with 2
  CHECK(error_of(s).find("H_kv of k") != std::string::npos);
  s = grouped("prob", 1, 4, 2, 2, 2, 2, 2);  // only full, flash (and decode) take grouped k
  CHECK(error_of(s).find("H of q") != std::string::npos);
}

TEST_CASE("RoPE: a vector of position m turns pair p by m base^(-2p/E); trace fields") {
  json s = {{"algorithm", "full"}, {"q", json::parse("[[[[1, 0, 0, 2]], [[1, 0, 0, 2]]]]")},
            {"k", json::parse("[[[[0, 1, 3, 0]]]]")}, {"v", json::parse("[[[[1]]]]")},
            {"rope", {{"base", 100}, {"positions_q", {0, 3}}}}};
  json t = run(s);
  // half: pairs (0, 2) and (1, 3); position 3: angles 3 and 3 / 100^(2/4) = 0.3
  const double a0 = 3, a1 = 0.3;
  const json want_q3 = {1 * std::cos(a0) - 0 * std::sin(a0), 0 * std::cos(a1) - 2 * std::sin(a1),
                        0 * std::cos(a0) + 1 * std::sin(a0), 2 * std::cos(a1) + 0 * std::sin(a1)};
  CHECK(max_rel_diff(t["q_rotated"][0][1][0], want_q3) < 1e-15);
  CHECK(max_rel_diff(t["q_rotated"][0][0][0], json::array({1, 0, 0, 2})) == 0);  // position 0: unchanged
  CHECK(max_rel_diff(t["k_rotated"], s["k"]) == 0);                               // key at position 0
  CHECK(t["shapes"]["rope_angles"] == json::array({4, 2}));
  CHECK(max_rel_diff(t["rope_angles"][3], json::array({3.0, 0.3})) < 1e-15);
  // interleaved: pairs (0, 1) and (2, 3)
  s["rope"]["style"] = "interleaved";
  t = run(s);
  const json want_i = {std::cos(a0), std::sin(a0), -2 * std::sin(a1), 2 * std::cos(a1)};
  CHECK(max_rel_diff(t["q_rotated"][0][1][0], want_i) < 1e-15);
}

TEST_CASE("RoPE: shifting every position changes no score beyond 1e-12 (full and flash, both styles)") {
  for (const std::string style : {"half", "interleaved"})
    for (const std::int64_t shift : {1, 17, 1000}) {
      json s = grouped("full", 8, 2, 1, 5, 7, 6, 3);
      s["rope"] = {{"style", style}, {"positions_q", {0, 1, 2, 3, 4}}, {"positions_k", {0, 1, 2, 3, 4, 5, 6}}};
      json shifted = s;
      for (auto& p : shifted["rope"]["positions_q"]) p = p.get<std::int64_t>() + shift;
      for (auto& p : shifted["rope"]["positions_k"]) p = p.get<std::int64_t>() + shift;
      const json a = run(s), b = run(shifted);
      CAPTURE(style, shift);
      CHECK(max_rel_diff(b["scores"], a["scores"]) < 1e-12);
      CHECK(max_rel_diff(b["context"], a["context"]) < 1e-12);
      CHECK(max_rel_diff(b["q_rotated"], a["q_rotated"]) > 1e-3);  // the vectors themselves do turn
      s["algorithm"] = "flash";
      CHECK(max_rel_diff(run(s)["context"], a["context"]) < 1e-12);
    }
}

TEST_CASE("RoPE: interleaved equals half after the pair permutation (0, E/2, 1, E/2 + 1, ...)") {
  const std::size_t E = 6;
  json s = grouped("full", 9, 2, 2, 4, 4, E, 2);
  s["rope"] = {{"style", "interleaved"}, {"positions_q", {3, 1, 4, 1}}};
  // half layout h from interleaved x: h[p] = x[2p], h[p + E/2] = x[2p + 1]
  const auto to_half = [E](json t) {
    for (auto& b : t)
      for (auto& l : b)
        for (auto& head : l) {
          json h = head;
          for (std::size_t p = 0; p < E / 2; ++p) {
            h[p] = head[2 * p];
            h[p + E / 2] = head[2 * p + 1];
          }
          head = h;
        }
    return t;
  };
  json half = s;
  half["rope"]["style"] = "half";
  half["q"] = to_half(s["q"]);
  half["k"] = to_half(s["k"]);
  const json a = run(s), b = run(half);
  CHECK(max_rel_diff(b["q_rotated"], to_half(a["q_rotated"])) < 1e-15);
  CHECK(max_rel_diff(b["k_rotated"], to_half(a["k_rotated"])) < 1e-15);
  CHECK(max_rel_diff(b["scores"], a["scores"]) < 1e-12);
  CHECK(max_rel_diff(b["context"], a["context"]) < 1e-12);
}

TEST_CASE("RoPE: refusals name the field") {
  json s = grouped("full", 1, 1, 1, 3, 2, 3, 1);
  s["rope"] = json::object();
  CHECK(error_of(s) == "rope: rotates pairs of entries: E of q must be even, got E = 3");
  s = grouped("full", 1, 1, 1, 3, 2, 2, 1);
  s["rope"] = {{"positions_q", {0, 1}}};
  CHECK(error_of(s).rfind("rope.positions_q", 0) == 0);
  CHECK(error_of(s).find("L_Q of q") != std::string::npos);
  s["rope"] = {{"positions_k", {0, -1}}};
  CHECK(error_of(s).rfind("rope.positions_k[1]", 0) == 0);
  s["rope"] = {{"base", 0}};
  CHECK(error_of(s).rfind("rope.base: expected a positive number", 0) == 0);
  s["rope"] = {{"style", "complex"}};
  CHECK(error_of(s).rfind("rope.style", 0) == 0);
  s["rope"] = true;
  CHECK(error_of(s).rfind("rope: expected an object", 0) == 0);
}

TEST_CASE("ALiBi: get_slopes for H = 8 (2^-1 .. 2^-8) and H = 12 (8's, then 16's odd ones)") {
  const auto s8 = alibi_slopes(8);
  REQUIRE(s8.size() == 8);
  for (std::size_t h = 0; h < 8; ++h) CHECK(std::abs(s8[h] - std::pow(2.0, -static_cast<double>(h + 1))) < 1e-15);
  const auto s12 = alibi_slopes(12);
  REQUIRE(s12.size() == 12);
  for (std::size_t h = 0; h < 8; ++h) CHECK(s12[h] == s8[h]);
  for (std::size_t x = 0; x < 4; ++x)  // get_slopes(16)[0::2][:4] = 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5
    CHECK(std::abs(s12[8 + x] - std::pow(2.0, -0.5 - static_cast<double>(x))) < 1e-15);
  CHECK(alibi_slopes(1) == std::vector<double>{std::pow(2.0, -8.0)});
  const auto s3 = alibi_slopes(3);  // 2's slopes (2^-4, 2^-8), then 4's first (2^-2)
  CHECK(std::abs(s3[0] - 0.0625) < 1e-15);
  CHECK(std::abs(s3[2] - 0.25) < 1e-15);
}

TEST_CASE("ALiBi: the kernel adds -slope |i - j| before the mask (full and flash, sparse and dense)") {
  for (const json& mask : masks()) {
    json s = grouped("full", 21, 2, 2, 5, 6, 3, 2);
    s["mask"] = mask;
    s["alibi"] = {{"slopes", {0.5, 2.0}}};
    const json t = run(s);
    // independently: scores written out, the mask's fill, softmax, weighted values
    const std::string kind = mask["kind"];
    const double fill = mask.contains("fill") ? mask["fill"].get<double>() : -INFINITY;
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t i = 0; i < 5; ++i) {
          std::vector<double> w(6);
          double mx = -INFINITY, sum = 0;
          for (std::size_t j = 0; j < 6; ++j) {
            double qk = 0;
            for (std::size_t e = 0; e < 3; ++e) qk += s["q"][b][i][h][e].get<double>() * s["k"][b][j][h][e].get<double>();
            const double slope = h == 0 ? 0.5 : 2.0;
            const double sc = qk / std::sqrt(3.0) - slope * std::abs(double(i) - double(j));
            CHECK(std::abs(t["scores"][b][h][i][j].get<double>() - sc) < 1e-12);
            const bool ok = t["allowed"][b][h][i][j].get<bool>();
            w[j] = ok ? sc : fill;
            mx = std::max(mx, w[j]);
          }
          for (auto& x : w) sum += x == -INFINITY ? 0 : (x = std::exp(x - mx));
          for (std::size_t d = 0; d < 2; ++d) {
            double c = 0;
            for (std::size_t j = 0; j < 6; ++j) c += (w[j] == -INFINITY ? 0 : w[j] / sum) * s["v"][b][j][h][d].get<double>();
            CAPTURE(kind, b, h, i, d);
            CHECK(std::abs(t["context"][b][i][h][d].get<double>() - c) < 1e-12);
          }
        }
    CHECK(t["shapes"]["bias"] == json::array({2, 5, 6}));
    CHECK(t["bias"][1][4][0].get<double>() == -8.0);
    s["algorithm"] = "flash";
    CHECK(max_rel_diff(run(s)["context"], t["context"]) < 1e-12);
    s["trace"] = "context";
    CHECK_FALSE(run(s).contains("bias"));
  }
  json s = grouped("full", 1, 2, 2, 2, 2, 2, 2);
  s["alibi"] = true;
  CHECK(max_rel_diff(run(s)["bias"][1][0][1], json(-std::pow(2.0, -8.0))) == 0);
  s["alibi"] = {{"slopes", {1}}};
  CHECK(error_of(s).rfind("alibi.slopes", 0) == 0);
  s["alibi"] = {{"slopes", {1, 1e200}}};
  CHECK(error_of(s).rfind("alibi.slopes[1]: expected a slope within", 0) == 0);
  s["alibi"] = 3;
  CHECK(error_of(s).rfind("alibi: expected true, false or", 0) == 0);
}

TEST_CASE("sink mask: the allowed keys are the predicate's; sinks 0 is Mistral's window (local w-1, causal)") {
  for (std::int64_t w = 1; w <= 5; ++w)
    for (std::int64_t sinks = 0; sinks <= w; ++sinks) {
      Mask m;
      m.kind = MaskKind::sink;
      m.window = w;
      m.sinks = sinks;
      std::vector<std::uint32_t> keys;
      for (std::size_t i = 0; i < 9; ++i) {
        allowed_keys(m, 0, i, 7, keys);
        std::vector<std::uint32_t> want;
        for (std::size_t j = 0; j < 7; ++j)
          if (j <= i && (static_cast<std::int64_t>(i - j) < w || static_cast<std::int64_t>(j) < sinks))
            want.push_back(static_cast<std::uint32_t>(j));
        CAPTURE(w, sinks, i);
        CHECK(keys == want);
        for (std::size_t j = 0; j < 7; ++j)
          CHECK(m.allows(0, i, j) == (std::find(want.begin(), want.end(), j) != want.end()));
      }
      CHECK(attended_pairs(m, 1, 2, 9, 7) == 2 * [&] {
        std::uint64_t n = 0;
        for (std::size_t i = 0; i < 9; ++i) {
          allowed_keys(m, 0, i, 7, keys);
          n += keys.size();
        }
        return n;
      }());
    }
  for (const std::int64_t w : {1, 2, 4}) {
    json s = grouped("full", 5, 2, 2, 8, 8, 3, 2);
    s["mask"] = {{"kind", "sink"}, {"window", w}, {"sinks", 0}};
    json local = s;
    local["mask"] = {{"kind", "local"}, {"window", w - 1}, {"causal", true}};
    const json a = run(s), b = run(local);
    CHECK(a["allowed"] == b["allowed"]);
    CHECK(max_rel_diff(a["context"], b["context"]) == 0);
    CHECK(a["cost"]["dot_products"] == b["cost"]["dot_products"]);
  }
  json s = grouped("full", 5, 1, 1, 4, 4, 2, 2);
  s["mask"] = {{"kind", "sink"}, {"window", 2}, {"sinks", 3}};
  CHECK(error_of(s).rfind("mask.sinks", 0) == 0);
  s["mask"] = {{"kind", "sink"}, {"window", 0}};
  CHECK(error_of(s).rfind("mask.window", 0) == 0);
  s["mask"] = {{"kind", "sink"}, {"sinks", 1}};
  CHECK(error_of(s).rfind("mask.window", 0) == 0);
}

TEST_CASE("Modern forms: estimates equal the trace's cost and count its numbers") {
  json s = grouped("full", 2, 4, 2, 5, 6, 4, 3);
  s["rope"] = {{"positions_q", {9, 1, 2, 3, 4}}};
  s["alibi"] = true;
  s["mask"] = {{"kind", "sink"}, {"window", 2}, {"sinks", 1}};
  for (const std::string algorithm : {"full", "flash"})
    for (const std::string level : {"full", "context"}) {
      s["algorithm"] = algorithm;
      s["trace"] = level;
      const json t = run(s), e = estimate_scenario(s);
      CAPTURE(algorithm, level);
      CHECK(e["cost"] == t["cost"]);
      std::uint64_t numbers = 0;
      for (const auto& [name, shape] : t["shapes"].items()) {
        if (name == "q" || name == "k" || name == "v" || name == "allowed" || name == "kv_head") continue;
        std::uint64_t n = 1;
        for (const auto& x : shape) n *= x.get<std::uint64_t>();
        numbers += n;
      }
      CHECK(e["numbers"] == numbers);
    }
}
