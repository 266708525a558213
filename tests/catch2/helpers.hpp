// Shared helpers of the Catch2 suites: running scenarios and comparing tensors.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "../../core/mask.hpp"
#include "../../core/rng.hpp"
#include "../../core/scenario/presets.hpp"
#include "../../core/scenario/scenario.hpp"

namespace attnplay::testing {

// The checkout's root (tests/catch2/source_dir.cpp): the one file compiled with the clone's path,
// so every other test file's object is the same in any clone (ccache).
const char* source_dir();

inline json run(const json& scenario) { return run_scenario(scenario); }

inline json run_preset(const std::string& name) {
  const Preset* p = find_preset(name);
  REQUIRE(p != nullptr);
  return run_scenario(p->scenario);
}

inline json read_json_file(const std::string& relative) {
  std::ifstream in(std::string(source_dir()) + "/" + relative);
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
  if (a.is_object() || b.is_object()) {  // a group of tensors (bahdanau's gradients): the same keys
    if (!a.is_object() || !b.is_object() || a.size() != b.size()) return INFINITY;
    double m = 0;
    for (const auto& [key, value] : b.items()) m = std::max(m, a.contains(key) ? max_rel_diff(a[key], value) : INFINITY);
    return m;
  }
  if (a.is_boolean() || b.is_boolean()) return a == b ? 0.0 : INFINITY;
  if (a.is_string() || b.is_string()) return a == b ? 0.0 : INFINITY;  // "reference"
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

// A scenario of `algorithm` with q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D) of standard
// normals from Rng(seed, data), and the fields of `extra`; L_K = 0: no k, and v (B, L_Q, H, D)
// (lsh's shared QK).
inline json random_qkv(const std::string& algorithm, unsigned seed, std::size_t B, std::size_t H, std::size_t L_Q,
                       std::size_t L_K, std::size_t E, std::size_t D, const json& extra = json::object()) {
  Rng rng(seed, RngStream::data);
  json s = {{"algorithm", algorithm}, {"q", random_nested(rng, {B, L_Q, H, E})}};
  if (L_K) s["k"] = random_nested(rng, {B, L_K, H, E});
  s["v"] = random_nested(rng, {B, L_K ? L_K : L_Q, H, D});
  s.update(extra);
  return s;
}

/** A structured mask (local, atrous, strided, causal, ...) with its sizes. */
inline Mask structured_mask(MaskKind kind, std::int64_t window = 0, std::int64_t dilation = 1, std::int64_t stride = 1,
                            bool causal = false) {
  Mask m;
  m.kind = kind;
  m.window = window;
  m.dilation = dilation;
  m.stride = stride;
  m.causal = causal;
  return m;
}

}  // namespace attnplay::testing
