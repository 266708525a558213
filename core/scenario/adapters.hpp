// One reader per algorithm: scenario fields -> typed arguments -> the core algorithm -> Trace.
// Each lives in run_<algorithm>.cpp beside this file and is listed in algorithms.cpp.
#pragma once

#include "scenario.hpp"

namespace attnplay {

Trace run_full(ScenarioContext& ctx);

}  // namespace attnplay
