// libFuzzer target, structure-aware: every registered algorithm through run_scenario. The input
// bytes choose a preset (every algorithm's small presets are the bases) and a few edits of its
// JSON tree (FuzzedDataProvider): a number replaced by an extreme one (0, -0, denormals, 1e308,
// 2^53, 2^63, ...), a string by a word the readers know, an array shortened, grown or emptied,
// a key removed or added (the keys of every preset and every algorithm's defaults), a boolean
// flipped. So the fuzzer spends its time on scenarios the readers accept or almost accept, where
// the algorithms run, not on JSON syntax (fuzz_parser's part).
#include <cstdio>
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "../../core/scenario/presets.hpp"
#include "fuzz_common.hpp"

namespace {

using attnplay::json;

struct Bases {
  std::vector<json> scenarios;   // every preset whose run is small (and one per algorithm at least)
  std::vector<std::string> keys;  // every key of every preset and default
  std::vector<std::string> words;  // every string value, the algorithm names, mask kinds
};

void collect(const json& v, std::set<std::string>& keys, std::set<std::string>& words) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) {
      keys.insert(k);
      collect(x, keys, words);
    }
  } else if (v.is_array()) {
    for (const auto& x : v) collect(x, keys, words);
  } else if (v.is_string()) {
    words.insert(v.get<std::string>());
  }
}

const Bases& bases() {
  static const Bases b = [] {
    Bases out;
    std::set<std::string> keys, words{"none", "causal", "valid_lens", "local", "atrous", "strided", "explicit",
                                       "-inf", "full", "context", "float32", "float64", ""};
    for (const auto& a : attnplay::algorithms()) {
      words.insert(a.name);
      if (!a.defaults) continue;
      const json defaults = a.defaults();  // named: items() of a temporary outlives it (found by ASan)
      collect(defaults, keys, words);
    }
    for (const auto& p : attnplay::presets()) {
      collect(p.scenario, keys, words);
      try {
        const json e = attnplay::estimate_scenario(p.scenario);
        if (e["cost"]["flops"].get<double>() + e["sizes"].value("exact_flops", 0.0) > attnplay::fuzz::kFuzzMaxFlops) continue;
      } catch (const attnplay::InputError&) {
      }
      out.scenarios.push_back(p.scenario);
    }
    out.keys.assign(keys.begin(), keys.end());
    out.words.assign(words.begin(), words.end());
    return out;
  }();
  return b;
}

double interesting_number(FuzzedDataProvider& in, double old) {
  static const double table[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 7.0, 64.0, 65536.0, 65537.0, 1e6, -1e6,
                                 1e-308, 5e-324, -5e-324, 1e154, 1e300, 1.7976931348623157e308, -1.7976931348623157e308,
                                 2147483648.0, 9007199254740993.0, 9223372036854775808.0, -9223372036854775808.0,
                                 1.8446744073709552e19, 0.1};
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return table[in.ConsumeIntegralInRange<std::size_t>(0, std::size(table) - 1)];
    case 1: return old * 2;
    case 2: return old + in.ConsumeIntegralInRange<int>(-2, 2);
    case 3: return -old;
    case 4: return static_cast<double>(in.ConsumeIntegral<std::int16_t>());
    default: {
      const double x = in.ConsumeFloatingPoint<double>();
      return std::isfinite(x) ? x : 0.0;  // JSON holds finite numbers only (the parser refuses the rest)
    }
  }
}

json small_value(FuzzedDataProvider& in) {
  const Bases& b = bases();
  switch (in.ConsumeIntegralInRange<int>(0, 4)) {
    case 0: return interesting_number(in, 1.0);
    case 1: return in.ConsumeBool();
    case 2: return b.words[in.ConsumeIntegralInRange<std::size_t>(0, b.words.size() - 1)];
    case 3: return json::array({interesting_number(in, 1.0), interesting_number(in, 2.0)});
    default: return json::object({{"kind", b.words[in.ConsumeIntegralInRange<std::size_t>(0, b.words.size() - 1)]}});
  }
}

// Every value of the tree (pointers into it), the root included.
void nodes(json& v, std::vector<json*>& out) {
  out.push_back(&v);
  if (out.size() > 4096) return;
  if (v.is_object() || v.is_array())
    for (auto& x : v) nodes(x, out);
}

void mutate(json& root, FuzzedDataProvider& in) {
  std::vector<json*> all;
  nodes(root, all);
  json& v = *all[in.ConsumeIntegralInRange<std::size_t>(0, all.size() - 1)];
  const Bases& b = bases();
  if (v.is_number()) {
    v = interesting_number(in, v.get<double>());
  } else if (v.is_boolean()) {
    v = !v.get<bool>();
  } else if (v.is_string()) {
    v = b.words[in.ConsumeIntegralInRange<std::size_t>(0, b.words.size() - 1)];
  } else if (v.is_array()) {
    switch (in.ConsumeIntegralInRange<int>(0, 4)) {
      case 0: if (!v.empty()) v.erase(v.size() - 1); break;
      case 1: if (!v.empty()) v.push_back(v[in.ConsumeIntegralInRange<std::size_t>(0, v.size() - 1)]); break;
      case 2: v = json::array(); break;
      case 3: v = json::array({v}); break;
      default: v = small_value(in); break;
    }
  } else if (v.is_object()) {
    if (in.ConsumeBool() && !v.empty()) {
      auto it = v.begin();
      std::advance(it, in.ConsumeIntegralInRange<std::size_t>(0, v.size() - 1));
      v.erase(it);
    } else {
      v[b.keys[in.ConsumeIntegralInRange<std::size_t>(0, b.keys.size() - 1)]] = small_value(in);
    }
  } else {
    v = small_value(in);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto& scenarios = bases().scenarios;
  json scenario = scenarios[in.ConsumeIntegralInRange<std::size_t>(0, scenarios.size() - 1)];
  if (in.ConsumeBool()) scenario["trace"] = in.ConsumeBool() ? "context" : "full";
  if (in.ConsumeBool()) scenario["dtype"] = "float32";
  for (int n = in.ConsumeIntegralInRange<int>(0, 6); n > 0 && in.remaining_bytes() > 0; --n) mutate(scenario, in);
  // ATTNPLAY_FUZZ_PRINT=1 build/fuzz/fuzz_algorithms INPUT: the scenario an input makes, as JSON
  // (a finding becomes a scenario for the CLI and a Catch2 test)
  static const bool print = std::getenv("ATTNPLAY_FUZZ_PRINT") != nullptr;
  if (print) std::fprintf(stderr, "scenario: %s\n", scenario.dump().c_str());
  attnplay::fuzz::run_one(std::move(scenario));
  return 0;
}
