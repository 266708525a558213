// Shared helpers of the Catch2 suites: running scenarios and comparing tensors.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "../../core/rng.hpp"
#include "../../core/scenario/presets.hpp"
#include "../../core/scenario/scenario.hpp"

namespace attnplay::testing {

inline json run(const json& scenario) { return run_scenario(scenario); }

inline json run_preset(const std::string& name) {
  const Preset* p = find_preset(name);
  REQUIRE(p != nullptr);
  return run_scenario(p->scenario);
}

inline json read_json_file(const std::string& relative) {
  std::ifstream in(std::string(ATTNPLAY_SOURCE_DIR) + "/" + relative);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

// Largest |a - b| / max(1, |b|) over two nested arrays of the same shape (numbers or booleans).
// Shape mismatches count as infinite error.
inline double max_rel_diff(const json& a, const json& b) {
  if (a.is_array() != b.is_array()) return INFINITY;
  if (a.is_array()) {
    if (a.size() != b.size()) return INFINITY;
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, max_rel_diff(a[i], b[i]));
    return m;
  }
  if (a.is_boolean() || b.is_boolean()) return a == b ? 0.0 : INFINITY;
  if (!a.is_number() || !b.is_number()) return INFINITY;
  const double x = a.get<double>(), y = b.get<double>();
  return std::abs(x - y) / std::max(1.0, std::abs(y));
}

// Element of a nested array by index list.
inline double at(const json& t, std::initializer_list<std::size_t> idx) {
  const json* p = &t;
  for (auto i : idx) p = &(*p)[i];
  return p->get<double>();
}

inline std::string error_of(const json& scenario) {
  try {
    run_scenario(scenario);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A nested array of standard normals of the given shape, unrounded (Rng's draws, row-major).
inline json random_nested(Rng& rng, const std::vector<std::size_t>& shape, std::size_t depth = 0) {
  json a = json::array();
  for (std::size_t i = 0; i < shape[depth]; ++i)
    a.push_back(depth + 1 == shape.size() ? json(rng.normal()) : random_nested(rng, shape, depth + 1));
  return a;
}

}  // namespace attnplay::testing
