// Seeded tensor draws (SPEC §2): {"shape", "random", "seed", "scale"} in place of any input tensor's
// numbers, drawn row-major from Rng(seed, tensors); the trace equals the one with the numbers written out.
#include "helpers.hpp"

#include <functional>

#include "../../core/scenario/draws.hpp"
#include "../../core/scenario/presets.hpp"

using namespace attnplay;
using namespace attnplay::testing;

namespace {

json draw(std::vector<std::size_t> shape, const std::string& kind, std::uint64_t seed, double scale = 1.0) {
  return {{"shape", shape}, {"random", kind}, {"seed", seed}, {"scale", scale}};
}

// The draw's numbers written out, from the generator directly (row-major).
json written_out(const std::vector<std::size_t>& shape, bool normal, std::uint64_t seed, double scale) {
  Rng rng(seed, static_cast<RngStream>(4));  // the draws' stream (docs/semantics.md)
  std::function<json(std::size_t)> build = [&](std::size_t depth) {
    json a = json::array();
    for (std::size_t i = 0; i < shape[depth]; ++i)
      a.push_back(depth + 1 == shape.size() ? json(normal ? scale * rng.normal() : -scale + 2 * scale * rng.uniform())
                                            : build(depth + 1));
    return a;
  };
  return build(0);
}

std::pair<std::string, std::string> error_and_field(const json& scenario) {
  try {
    run_scenario(scenario);
  } catch (const InputError& e) {
    return {e.field, e.what()};
  }
  return {"", ""};
}

// A float tensor of the scenario (a nested array with a number that is not an integer): token ids,
// index lists and masks stay.
bool is_float_tensor(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  std::function<bool(const json&)> has_float = [&](const json& x) {
    if (x.is_array()) {
      for (const auto& e : x)
        if (has_float(e)) return true;
      return false;
    }
    return x.is_number_float() && std::floor(x.get<double>()) != x.get<double>();
  };
  return has_float(v);
}

std::vector<std::size_t> nested_shape(const json& v) {
  std::vector<std::size_t> s;
  for (const json* p = &v; p->is_array(); p = &(*p)[0]) s.push_back(p->size());
  return s;
}

// Every float tensor of `s` (top level and inside objects such as weights) replaced by a draw
// (`as_draw`) or by that draw's numbers written out; seeds 1, 2, ... in key order.
void replace_tensors(json& s, bool as_draw, std::uint64_t& seed) {
  for (auto& [key, value] : s.items()) {
    if (value.is_object() && key != "mask") replace_tensors(value, as_draw, seed);
    if (!is_float_tensor(value)) continue;
    const auto shape = nested_shape(value);
    const bool normal = seed % 2 == 1;
    value = as_draw ? draw(shape, normal ? "normal" : "uniform", seed, 0.5) : written_out(shape, normal, seed, 0.5);
    ++seed;
  }
}

}  // namespace

TEST_CASE("draws: the documented generator, Box-Muller normals and uniforms on [-s, s)") {
  // Rng(seed, tensors): state = seed ^ (4 * 0xD1B54A32D192ED03); normal = sqrt(-2 ln(1 - u1)) cos(2 pi u2)
  Rng rng(3, static_cast<RngStream>(4)), raw(3 ^ (4 * 0xD1B54A32D192ED03ULL), RngStream{0});
  for (int i = 0; i < 1000; ++i) {
    const double u1 = raw.uniform(), u2 = raw.uniform();
    const double libm = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2 * M_PI * u2);
    REQUIRE(std::abs(rng.normal() - libm) < 1e-14);
  }
  Tensor u = read_tensor(draw({2000}, "uniform", 7, 2.5), "x", {Dim::any("n")}, nullptr);
  double lo = 1, hi = -1, sum = 0;
  for (const double x : u) lo = std::min(lo, x), hi = std::max(hi, x), sum += x;
  CHECK(lo >= -2.5);
  CHECK(hi < 2.5);
  CHECK(lo < -2.4);  // the whole interval is used
  CHECK(hi > 2.4);
  CHECK(std::abs(sum / 2000) < 0.15);
  Tensor n = read_tensor(draw({20000}, "normal", 1, 3.0), "x", {Dim::any("n")}, nullptr);
  double m = 0, m2 = 0;
  for (const double x : n) m += x, m2 += x * x;
  m /= 20000;
  CHECK(std::abs(m) < 0.1);
  CHECK(std::abs(std::sqrt(m2 / 20000 - m * m) - 3.0) < 0.1);
  // row-major: the (2, 3) draw is the (6) draw reshaped; defaults seed 0, scale 1
  Tensor a = read_tensor(json{{"shape", {2, 3}}, {"random", "normal"}}, "x", {Dim::any("r"), Dim::any("c")}, nullptr);
  Tensor b = read_tensor(draw({6}, "normal", 0), "x", {Dim::any("n")}, nullptr);
  for (std::size_t i = 0; i < 6; ++i) CHECK(a.data()[i] == b.data()[i]);
  CHECK(a(1, 0) == b(3));
}

TEST_CASE("draws: every preset's float tensors as draws give the trace of their numbers written out") {
  int replaced_presets = 0;
  for (const auto& preset : presets()) {
    json drawn = preset.scenario, written = preset.scenario;
    std::uint64_t seed_a = 1, seed_b = 1;
    replace_tensors(drawn, true, seed_a);
    replace_tensors(written, false, seed_b);
    if (seed_a == 1) continue;  // no float tensor (positional_encoding, nadaraya's dataset)
    ++replaced_presets;
    INFO(preset.name);
    std::string error_a, error_b;
    json ta, tb;
    try { ta = run_scenario(drawn); } catch (const InputError& e) { error_a = e.what(); }
    try { tb = run_scenario(written); } catch (const InputError& e) { error_b = e.what(); }
    REQUIRE(error_a == error_b);
    CHECK(ta == tb);  // bit for bit: the same numbers reach the algorithm
    CHECK(estimate_scenario(drawn) == estimate_scenario(written));
  }
  CHECK(replaced_presets > 20);
}

TEST_CASE("draws: errors name the field") {
  const json base = {{"algorithm", "full"}, {"q", draw({1, 3, 1, 2}, "normal", 1)}, {"k", draw({1, 4, 1, 2}, "normal", 2)},
                     {"v", draw({1, 4, 1, 2}, "uniform", 3)}};
  REQUIRE(run_scenario(base)["context"].size() == 1);
  auto with = [&](const std::string& key, const json& value) {
    json s = base;
    s[key] = value;
    return error_and_field(s);
  };
  auto e = with("k", draw({1, 4, 1, 3}, "normal", 2));
  CHECK(e.first == "k.shape[3]");
  CHECK(e.second == "k.shape[3]: expected 2 (E of q), got 3");
  e = with("q", draw({1, 3, 2}, "normal", 1));
  CHECK(e.second == "q.shape: expected 4 dimensions, got 3");
  e = with("q", draw({1, 0, 1, 2}, "normal", 1));
  CHECK(e.second == "q.shape[1]: expected a positive integer (L_Q)");
  e = with("q", draw({1, 3, 1, 2}, "gaussian", 1));
  CHECK(e.second == "q.random: expected one of \"normal\", \"uniform\", got \"gaussian\"");
  e = with("q", draw({1, 3, 1, 2}, "normal", 1, -1.0));
  CHECK(e.second == "q.scale: expected a number >= 0, got -1.0");
  e = with("q", json{{"shape", {1, 3, 1, 2}}, {"random", "normal"}, {"scale", "big"}});
  CHECK(e.second == "q.scale: expected a number, got a string");
  e = with("q", json{{"shape", {1, 3, 1, 2}}, {"random", "normal"}, {"seed", -2}});
  CHECK(e.first == "q.seed");
  e = with("q", json{{"shape", {1, 3, 1, 2}}, {"random", "normal"}, {"seed", 1.5}});
  CHECK(e.second == "q.seed: expected an integer, got 1.5");
  e = with("q", json{{"shape", {1, 3, 1, 2}}, {"random", "normal"}, {"sead", 4}});
  CHECK(e.second == "q.sead: unknown key of a draw (expected shape, random, seed, scale)");
  e = with("q", json{{"random", "normal"}});
  CHECK(e.second == "q.shape: required (the draw's shape, 4 dimensions)");
  e = with("q", draw({1, 1 << 16, 1, 257}, "normal", 1));  // each size within the limit, 2^16 x 257 numbers not
  CHECK(e.second == "q: too many numbers (the limit is 16777216 per tensor)");
  e = with("v", draw({1, 4, 1, (1 << 16) + 1}, "normal", 1));
  CHECK(e.second == "v.shape[3]: D = 65537 is larger than the limit 65536");
  // a weight inside an object names its path (w_v drawn in its (h) layout)
  json additive = {{"algorithm", "additive"}, {"q", draw({1, 2, 1, 3}, "normal", 1)}, {"k", draw({1, 4, 1, 2}, "normal", 2)},
                   {"v", draw({1, 4, 1, 2}, "normal", 3)},
                   {"weights", {{"W_q", draw({5, 3}, "uniform", 4)}, {"W_k", draw({5, 2}, "uniform", 5)}, {"w_v", draw({5}, "uniform", 6)}}}};
  CHECK(run_scenario(additive)["context"].size() == 1);
  additive["weights"]["W_k"] = draw({5, 2}, "cauchy", 5);
  CHECK(error_and_field(additive).first == "weights.W_k.random");
  additive["weights"]["W_k"] = draw({5, 3}, "normal", 5);
  CHECK(error_and_field(additive).second == "weights.W_k.shape[1]: expected 2 (E_k of k), got 3");
}

TEST_CASE("draws: L = 4096 from a few bytes of scenario, at trace context") {
  const json s = {{"algorithm", "full"}, {"trace", "context"}, {"q", draw({1, 4096, 1, 16}, "normal", 1)},
                  {"k", draw({1, 4096, 1, 16}, "normal", 2)}, {"v", draw({1, 4096, 1, 16}, "normal", 3)}};
  CHECK(s.dump().size() < 300);
  const json t = run_scenario(s);
  CHECK(t["shapes"]["context"] == json({1, 4096, 1, 16}));
  CHECK(t["cost"]["dot_products"] == 4096.0 * 4096.0);
}

// seeded3 (issue 18): a split run's worker draws its own rows (core/seeded_draw.hpp skips the
// generator to them); they are the whole draw's rows, bit for bit.
TEST_CASE("draws: rows of a draw are the whole draw's rows, bit for bit") {
  for (const bool normal : {true, false}) {
    const std::vector<std::size_t> shape{2, 37, 3, 5};
    const json spec = draw(shape, normal ? "normal" : "uniform", 12345, 0.5);
    const std::vector<Dim> dims(4, Dim::any("size"));
    const Tensor whole = read_tensor(spec, "q", dims, nullptr);
    const std::size_t row = 3 * 5;
    for (const auto [start, end] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 37}, {0, 18}, {18, 37}, {5, 6}, {36, 37}, {7, 7}}) {
      const Tensor part = read_draw_rows(spec, "q", dims, start, end);
      REQUIRE(part.shape() == Shape{2, end - start, 3, 5});
      for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i < (end - start) * row; ++i)
          REQUIRE(part.data()[b * (end - start) * row + i] == whole.data()[(b * 37 + start) * row + i]);
    }
  }
  // from far into the stream: row 60,000 of a normal draw of 64 per row (number 3,840,000)
  {
    const std::vector<Dim> dims3(3, Dim::any("size"));
    const json big = draw({1, 65536, 64}, "normal", 9);
    Rng rng(9, static_cast<RngStream>(4));
    for (int i = 0; i < 2 * 3840000; ++i) rng.next();
    REQUIRE(read_draw_rows(big, "q", dims3, 60000, 60001).data()[0] == rng.normal());
  }
  // rows past the draw name the field
  const json spec = draw({1, 8, 1, 4}, "normal", 1);
  const std::vector<Dim> dims(4, Dim::any("size"));
  REQUIRE_THROWS_WITH(read_draw_rows(spec, "q", dims, 4, 9), Catch::Contains("rows [4, 9) outside the draw's 8 rows"));
  REQUIRE_THROWS_WITH(read_draw_rows(spec, "q", dims, 5, 4), Catch::Contains("outside"));
}
