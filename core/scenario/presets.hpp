// The built-in scenarios: every worked example of the seeds, named and described.
#pragma once

#include <string>
#include <vector>

#include "fields.hpp"

namespace attnplay {

struct Preset {
  std::string name;
  std::string title;        // one line, English
  std::string title_zh;     // one line, Chinese
  std::string description;  // what the learner should see, with the seed's numbers
  json scenario;
};

const std::vector<Preset>& presets();
const Preset* find_preset(const std::string& name);

}  // namespace attnplay
