// libFuzzer target: JSON text -> parse_scenario_text -> run_scenario (the CLI's `run -` and WASM
// run(text)). Seeds: tests/fuzz/corpus/parser (presets, the bad-input corpus, the fixtures'
// scenarios); dictionary: build/fuzz/scenario.dict (scripts/fuzz.sh writes it from the registry).
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  attnplay::json scenario;
  try {
    scenario = attnplay::parse_scenario_text(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const attnplay::InputError& e) {
    attnplay::fuzz::check_error(e);
    return 0;
  }
  attnplay::fuzz::run_one(std::move(scenario));
  return 0;
}
