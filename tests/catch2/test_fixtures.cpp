// Golden fixtures from the PyTorch reference (tests/fixtures/<algorithm>/<case>.json, written by
// tests/fixtures/generate.py): every scenario is run natively and every expected trace field
// must agree with the reference to the fixture's tolerance (max |a-b| / max(1, |b|)).
// The algorithms come from the registry (algorithms()): every registered algorithm must have
// fixtures, and every fixture folder must be a registered algorithm. One DYNAMIC_SECTION per fixture.
#include "helpers.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

using namespace attnplay;
using namespace attnplay::testing;
namespace fs = std::filesystem;

namespace {

fs::path fixtures_root() { return fs::path(source_dir()) / "tests" / "fixtures"; }

// The fixture files of one algorithm, sorted by name.
std::vector<fs::path> fixture_files(const std::string& algorithm) {
  std::vector<fs::path> files;
  const fs::path dir = fixtures_root() / algorithm;
  if (!fs::is_directory(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

json load(const fs::path& file) {
  return read_json_file(fs::relative(file, source_dir()).generic_string());
}

void check_fixtures(const std::string& algorithm, std::size_t at_least) {
  const auto files = fixture_files(algorithm);
  INFO("fixtures of " << algorithm << " in " << (fixtures_root() / algorithm).string());
  REQUIRE(files.size() >= at_least);
  for (const auto& file : files) {
    const std::string name = algorithm + "/" + file.stem().string();
    DYNAMIC_SECTION(name) {
      const json fixture = load(file);
      REQUIRE(fixture.contains("scenario"));
      REQUIRE(fixture.contains("expected"));
      REQUIRE(fixture["expected"].is_object());
      REQUIRE(!fixture["expected"].empty());
      const double tolerance = fixture.value("tolerance", 1e-9);
      CHECK(fixture["scenario"]["algorithm"] == algorithm);

      json trace;
      std::string error;
      try {
        trace = run_scenario(fixture["scenario"]);
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (!error.empty()) FAIL("fixture " << name << ": the scenario failed: " << error);
      for (const auto& warning : trace["warnings"]) {
        INFO("fixture " << name << ": " << warning.get<std::string>());
        CHECK(warning.get<std::string>().rfind("unknown field", 0) != 0);  // every field is read
      }

      for (const auto& [field, expected] : fixture["expected"].items()) {
        if (!trace.contains(field)) {
          FAIL_CHECK("fixture " << name << ": the trace has no field '" << field << "'");
          continue;
        }
        const double error_of_field = max_rel_diff(trace[field], expected);
        INFO("fixture " << name << ", field " << field << ": max relative error " << error_of_field
                        << " (tolerance " << tolerance << ")");
        CHECK(error_of_field <= tolerance);
      }
    }
  }
}

}  // namespace

// Each registered algorithm has at least this many fixtures from the PyTorch reference.
constexpr std::size_t kMinFixturesPerAlgorithm = 3;

TEST_CASE("fixtures: every fixture folder is a registered algorithm, and every algorithm has fixtures") {
  std::size_t total = 0;
  for (const auto& entry : fs::directory_iterator(fixtures_root())) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "reference" || name.rfind("__", 0) == 0) continue;  // the Python reference code
    INFO("tests/fixtures/" << name << " is not an algorithm of the registry (core/scenario/algorithms.cpp)");
    CHECK(find_algorithm(name) != nullptr);
  }
  for (const auto& algorithm : algorithms()) {
    INFO("algorithm " << algorithm.name << " needs fixtures in tests/fixtures/" << algorithm.name
                      << " (tests/fixtures/generate.py)");
    CHECK(fixture_files(algorithm.name).size() >= kMinFixturesPerAlgorithm);
    total += fixture_files(algorithm.name).size();
  }
  CHECK(total >= 60);
}

TEST_CASE("fixtures: the checker itself sees a wrong value") {
  // A fixture with one number changed by 1e-6 must fail: the comparison is not vacuous.
  const auto files = fixture_files("full");
  REQUIRE(!files.empty());
  json fixture = load(files.front());
  const json trace = run_scenario(fixture["scenario"]);
  json context = fixture["expected"]["context"];
  CHECK(max_rel_diff(trace["context"], context) <= 1e-9);
  json* first = &context;
  while (first->is_array()) first = &(*first)[0];
  *first = first->get<double>() + 1e-6;
  CHECK(max_rel_diff(trace["context"], context) > 1e-9);
}

TEST_CASE("fixtures: every registered algorithm equals its PyTorch reference") {
  for (const auto& algorithm : algorithms()) check_fixtures(algorithm.name, kMinFixturesPerAlgorithm);
}
