// Sinusoidal positional encoding: d2l's 60 x 32 example, the formula, sin^2 + cos^2 = 1.
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;

TEST_CASE("d2l positional encoding: row 0 is [0, 1, 0, 1, ...]") {
  const json t = run_preset("d2l-positional-encoding");
  REQUIRE(t["shapes"]["P"] == json::array({60, 32}));
  for (std::size_t c = 0; c < 32; ++c) CHECK(at(t["P"], {0, c}) == (c % 2 == 0 ? 0.0 : 1.0));
  CHECK(t["cost"]["dot_products"] == 0);
  CHECK(t["cost"]["dense_dot_products"] == 0);
  CHECK(t["cost"]["flops"] == 0);
  CHECK(t["warnings"].empty());
}

TEST_CASE("d2l positional encoding: columns 6..9 (the seed's plot) follow the formula") {
  const json t = run_preset("d2l-positional-encoding");
  for (std::size_t i = 0; i < 60; ++i) {
    const double x3 = static_cast<double>(i) / std::pow(10000.0, 6.0 / 32);  // j = 3
    const double x4 = static_cast<double>(i) / std::pow(10000.0, 8.0 / 32);  // j = 4
    CHECK(at(t["P"], {i, 6}) == Approx(std::sin(x3)).epsilon(1e-15).margin(1e-16));
    CHECK(at(t["P"], {i, 7}) == Approx(std::cos(x3)).epsilon(1e-15).margin(1e-16));
    CHECK(at(t["P"], {i, 8}) == Approx(std::sin(x4)).epsilon(1e-15).margin(1e-16));
    CHECK(at(t["P"], {i, 9}) == Approx(std::cos(x4)).epsilon(1e-15).margin(1e-16));
  }
  // 10000^(8/32) = 10: column 8 is sin(i / 10), exactly d2l's slower sine
  CHECK(at(t["P"], {59, 8}) == Approx(std::sin(5.9)).epsilon(1e-14));
  // the last column pair has the lowest frequency: 1 / 10000^(30/32)
  CHECK(at(t["P"], {59, 30}) == Approx(std::sin(59 / std::pow(10000.0, 30.0 / 32))).epsilon(1e-15));
}

TEST_CASE("positional encoding: sin^2 + cos^2 = 1 in every column pair, any base") {
  for (double base : {10000.0, 10.0, 2.5}) {
    const json t = run({{"algorithm", "positional_encoding"}, {"num_steps", 40}, {"encoding_dim", 10}, {"base", base}});
    for (std::size_t i = 0; i < 40; ++i)
      for (std::size_t j = 0; j < 5; ++j) {
        const double s = at(t["P"], {i, 2 * j}), c = at(t["P"], {i, 2 * j + 1});
        CHECK(s * s + c * c == Approx(1.0).epsilon(1e-15));
      }
    // column pair j = 1 has frequency base^(-2/10)
    CHECK(at(t["P"], {7, 2}) == Approx(std::sin(7 / std::pow(base, 0.2))).epsilon(1e-15));
  }
}

TEST_CASE("positional encoding: bad input names the field") {
  const json ok = {{"algorithm", "positional_encoding"}, {"num_steps", 4}, {"encoding_dim", 6}};
  json s = ok;
  s["encoding_dim"] = 5;
  CHECK(error_of(s) == "encoding_dim: expected an even integer (sine and cosine columns come in pairs), got 5");
  s = ok;
  s.erase("num_steps");
  CHECK(error_of(s) == "num_steps: required");
  s = ok;
  s["num_steps"] = 0;
  CHECK(error_of(s) == "num_steps: expected an integer from 1 to 65536, got 0");
  s = ok;
  s["encoding_dim"] = 2.5;
  CHECK(error_of(s) == "encoding_dim: expected an integer, got 2.5");
  s = ok;
  s["base"] = -3;
  CHECK(error_of(s) == "base: expected a positive number, got -3");
  s = ok;
  s["base"] = "e";
  CHECK(error_of(s) == "base: expected a number, got a string");
  s = ok;
  s["num_steps"] = 65536;
  s["encoding_dim"] = 1024;
  CHECK(error_of(s) == "num_steps: num_steps * encoding_dim = 67108864 is larger than the limit 16777216");
}
