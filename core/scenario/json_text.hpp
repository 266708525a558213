// The limits of JSON text (parse_scenario_text, declared in scenario.hpp; json_text.cpp): at most
// 256 MiB, and 64 levels of arrays and objects (a tensor needs 4, a scenario a few more).
#pragma once

#include <cstddef>

namespace attnplay {

constexpr std::size_t kMaxScenarioBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxJsonDepth = 64;

}  // namespace attnplay
