// attnplay: the command-line face of the core.
//   attnplay run FILE|-            scenario JSON (file or stdin) -> trace JSON on stdout
//   attnplay run --preset NAME     a built-in scenario
//   attnplay estimate FILE|-       its cost, trace size and derived sizes without running it
//   attnplay estimate --preset NAME
//   attnplay presets [--json]      the built-in scenarios
//   attnplay algorithms [--json]   the registered algorithms
// Errors: one line on stderr naming the field, exit status 1 (2 for usage).
#include <fstream>
#include <iostream>
#include <string>

#include "../core/scenario/presets.hpp"
#include "../core/scenario/json_text.hpp"
#include "../core/scenario/scenario.hpp"

namespace {

int usage() {
  std::cerr << "usage: attnplay run|estimate FILE|- | attnplay run|estimate --preset NAME | attnplay presets [--json] | attnplay algorithms [--json]\n";
  return 2;
}

// At most one byte past kMaxScenarioBytes: parse_scenario_text then refuses the text's size
// (a larger file is never read whole).
std::string read_capped(std::istream& in) {
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= attnplay::kMaxScenarioBytes && in.read(chunk, sizeof chunk).gcount() > 0)
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  return text;
}

std::string read_input(const std::string& file) {
  if (file == "-") return read_capped(std::cin);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw attnplay::InputError(file, "cannot open file");
  return read_capped(in);
}

int list_presets(bool as_json) {
  if (as_json) {
    std::cout << attnplay::presets_json().dump() << "\n";
    return 0;
  }
  for (const auto& p : attnplay::presets()) std::cout << p.name << "\t" << p.title << "\n";
  return 0;
}

int list_algorithms(bool as_json) {
  if (as_json) {
    std::cout << attnplay::algorithms_json().dump() << "\n";
    return 0;
  }
  for (const auto& a : attnplay::algorithms()) std::cout << a.name << "\t" << a.title << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 1 && args[0] == "presets") return list_presets(args.size() == 2 && args[1] == "--json");
    if (args.size() >= 1 && args[0] == "algorithms") return list_algorithms(args.size() == 2 && args[1] == "--json");
    if ((args.size() == 2 || args.size() == 3) && (args[0] == "run" || args[0] == "estimate")) {
      attnplay::json scenario;
      if (args.size() == 2) {
        scenario = attnplay::parse_scenario_text(read_input(args[1]));
      } else {
        const auto* preset = args[1] == "--preset" ? attnplay::find_preset(args[2]) : nullptr;
        if (args[1] != "--preset") return usage();
        if (!preset) throw attnplay::InputError("--preset", "no preset named \"" + args[2] + "\" (see attnplay presets)");
        scenario = preset->scenario;
      }
      const bool run = args[0] == "run";
      std::cout << (run ? attnplay::run_scenario(scenario) : attnplay::estimate_scenario(scenario)).dump() << "\n";
      return 0;
    }
    return usage();
  } catch (const attnplay::InputError& e) {
    std::cerr << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "attnplay: out of memory (the scenario is too large)\n";
  } catch (const std::exception& e) {
    std::cerr << "attnplay: internal error: " << e.what() << "\n";
  }
  return 1;
}
