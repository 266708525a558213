// Presets: each algorithm's, in registry order (the seeds' worked examples come first within
// each). Numbers quoted in descriptions are the seeds' (rounded as the seeds round them).
#include "presets.hpp"

#include <cmath>

#include "../rng.hpp"
#include "scenario.hpp"

namespace attnplay {

json constant_nested(const std::vector<std::size_t>& shape, double value, std::size_t depth) {
  json a = json::array();
  for (std::size_t i = 0; i < shape[depth]; ++i)
    a.push_back(depth + 1 == shape.size() ? json(value) : constant_nested(shape, value, depth + 1));
  return a;
}

json normal_nested(Rng& rng, const std::vector<std::size_t>& shape, std::size_t depth) {
  json a = json::array();
  for (std::size_t i = 0; i < shape[depth]; ++i) {
    if (depth + 1 == shape.size()) a.push_back(std::round(rng.normal() * 1000.0) / 1000.0);
    else a.push_back(normal_nested(rng, shape, depth + 1));
  }
  return a;
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> list;
    for (const auto& algorithm : algorithms()) {
      if (!algorithm.presets) continue;  // the first-load module carries none (algorithms.cpp)
      auto own = algorithm.presets();
      list.insert(list.end(), own.begin(), own.end());
    }
    return list;
  }();
  return all;
}

const Preset* find_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return &p;
  return nullptr;
}

json presets_json() {
  json list = json::array();
  for (const auto& p : presets())
    list.push_back({{"name", p.name}, {"title", p.title}, {"title_zh", p.title_zh},
                    {"description", p.description}, {"scenario", p.scenario}});
  return list;
}

}  // namespace attnplay
