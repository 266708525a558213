// Shared by the libFuzzer targets (issue 18, docs/testing.md "Fuzzing"): one scenario run as the
// CLI and WASM run it, where an InputError (a clean, one-line refusal naming a field) is a pass and
// anything else — a sanitizer report, another exception, a trace that does not serialise — is a bug.
#pragma once

#include <cstdlib>
#include <string>

#include "../../core/scenario/scenario.hpp"

namespace attnplay::fuzz {

// Each run's work is capped far below the default budget so the fuzzer keeps thousands of
// executions per second; big shapes are still read and refused.
constexpr double kFuzzMaxFlops = 2e7;

// A refusal must be one line that starts with its field ("scenario: ..." for the whole).
inline void check_error(const InputError& e) {
  const std::string line = e.what();
  if (line.find('\n') != std::string::npos || line.rfind((e.field.empty() ? "scenario" : e.field) + ": ", 0) != 0)
    std::abort();
  (void)json(line).dump();  // the WASM boundary writes it into JSON: must be valid UTF-8
}

inline void run_one(json scenario) {
  if (scenario.is_object()) scenario["max_flops"] = kFuzzMaxFlops;
  try {
    const json trace = run_scenario(scenario);
    (void)trace.dump();  // the CLI prints it: must be valid (UTF-8 strings, no NaN)
  } catch (const InputError& e) {
    check_error(e);
  }
}

}  // namespace attnplay::fuzz
