// The built-in scenarios: every worked example of the seeds, named and described. Each
// algorithm's presets live beside its reader (run_<name>.cpp) and are listed in the registry
// (algorithms.cpp); presets() is their concatenation in registry order.
#pragma once

#include <string>
#include <vector>

#include "fields.hpp"

namespace attnplay {

class Rng;

struct Preset {
  std::string name;
  std::string title;        // one line, English
  std::string title_zh;     // one line, Chinese
  std::string description;  // what the learner should see, with the seed's numbers
  json scenario;
};

const std::vector<Preset>& presets();
const Preset* find_preset(const std::string& name);

// [{name, title, title_zh, description, scenario}], as the CLI's `presets --json` and WASM print it.
json presets_json();

// Helpers for writing presets: a nested array of the given shape filled with `value`; one of
// standard normals (Rng's data stream, row-major) rounded to 3 decimals, so that the scenario
// (and the page's URL) stays short.
json constant_nested(const std::vector<std::size_t>& shape, double value, std::size_t depth = 0);
json normal_nested(Rng& rng, const std::vector<std::size_t>& shape, std::size_t depth = 0);

}  // namespace attnplay
