// The registry's catalog (tensors, masks, defaults) and estimate_scenario against real runs: the
// estimate's cost is the trace's cost and its numbers the trace's float numbers, for every preset
// at both trace levels, from the shapes alone.

#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

// The float numbers of a trace: its out-of-band tensors and the numbers of its groups (bahdanau's
// gradients); integer and boolean tensors (inline arrays) do not count.
std::uint64_t trace_numbers(const json& trace, const OutputBuffers& buffers) {
  std::uint64_t n = 0;
  for (const auto& t : buffers) n += t.size();
  const auto leaves = [](const json& v, auto&& self) -> std::uint64_t {
    if (v.is_number_float()) return 1;
    std::uint64_t c = 0;
    if (v.is_array() || v.is_object())
      for (const auto& x : v) c += self(x, self);
    return c;
  };
  for (const auto& [key, value] : trace.items())
    if (value.is_object() && key != "shapes" && key != "cost" && !value.contains("$buffer")) n += leaves(value, leaves);
  return n;
}

// Every tensor the catalog names replaced by its shape alone.
json shapes_only(json s) {
  const AlgorithmEntry* entry = find_algorithm(s["algorithm"]);
  for (const char* name : entry->tensors) {
    if (!s.contains(name)) continue;
    json shape = json::array();
    for (const json* v = &s[name]; v->is_array(); v = &(*v)[0]) shape.push_back(v->size());
    s[name] = {{"shape", shape}};
  }
  return s;
}

// Runs s and estimates it (as given and from its shapes): exact estimates match the trace.
void check_estimate(const json& s) {
  INFO(s.dump().substr(0, 300));
  OutputBuffers buffers;
  const json trace = run_scenario(s, nullptr, &buffers);
  const json e = estimate_scenario(s);
  CHECK(estimate_scenario(shapes_only(s)) == e);
  const json& cost = trace["cost"];
  if (e["exact"].get<bool>()) {
    CHECK(e["cost"] == cost);
    CHECK(e["numbers"].get<std::uint64_t>() == trace_numbers(trace, buffers));
  } else {
    CHECK(e["cost"]["dense_dot_products"] == cost["dense_dot_products"]);
  }
  for (const char* size : {"block_q", "block_k", "num_key_blocks", "U_part", "u"})
    if (e["sizes"].contains(size) && trace.contains(size)) CHECK(e["sizes"][size] == trace[size]);
  if (trace.contains("sample_index")) CHECK(e["sizes"]["sample_index"] == trace["shapes"]["sample_index"]);
}

json seeded(const std::string& algorithm, std::size_t B, std::size_t L_Q, std::size_t L_K, std::size_t H, std::size_t E,
            std::size_t D, std::uint64_t seed) {
  Rng rng(seed, RngStream::data);
  json s = {{"algorithm", algorithm}};
  s["q"] = normal_nested(rng, {B, L_Q, H, E});
  s["k"] = normal_nested(rng, {B, L_K, H, E});
  s["v"] = normal_nested(rng, {B, L_K, H, D});
  return s;
}

}  // namespace

TEST_CASE("estimate: every preset, both trace levels, cost and numbers as the run's") {
  for (const auto& p : presets()) {
    SECTION(p.name) {
      check_estimate(p.scenario);
      json context = p.scenario;
      context["trace"] = "context";
      check_estimate(context);
    }
  }
}

TEST_CASE("estimate: sparse masks, prob with its samples given, flash past the toy blocks") {
  const json masks[] = {
      json::parse(R"({"kind": "local", "window": 3})"),
      json::parse(R"({"kind": "local", "window": 2, "causal": true})"),
      json::parse(R"({"kind": "atrous", "dilation": 3})"),
      json::parse(R"({"kind": "strided", "window": 2, "stride": 5, "causal": true})"),
      json::parse(R"({"kind": "strided", "window": 0, "stride": 4})"),
      json::parse(R"({"kind": "causal"})"),
      json::parse(R"({"kind": "causal", "fill": -1e9})"),
      json::parse(R"({"kind": "valid_lens", "valid_lens": [3, 40]})"),
      json::parse(R"({"kind": "valid_lens", "valid_lens": [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], "fill": "-inf"})"),
  };
  for (const char* algorithm : {"full", "flash"})
    for (const auto& mask : masks)
      for (const char* level : {"full", "context"}) {
        json s = seeded(algorithm, 2, 17, 33, 2, 3, 2, 7);
        s["mask"] = mask;
        s["trace"] = level;
        check_estimate(s);
      }
  json explicit_mask = seeded("full", 1, 5, 6, 1, 2, 2, 3);
  explicit_mask["mask"] = json::parse(
      R"({"kind": "explicit", "allowed": [[1,0,0,0,0,1],[0,1,1,0,0,0],[0,0,0,0,0,0],[1,1,1,1,1,1],[0,0,0,1,0,0]]})");
  check_estimate(explicit_mask);

  json prob = seeded("prob", 2, 12, 12, 2, 3, 2, 5);
  prob["factor"] = 1;  // U_part = u = ceil(ln 12) = 3
  Rng rng(9, RngStream::data);
  json index = json::array();
  for (int i = 0; i < 12; ++i) index.push_back({rng.below(12), rng.below(12), rng.below(12)});
  prob["sample_index"] = index;
  check_estimate(prob);
  prob["mask"] = {{"kind", "causal"}};
  prob["output_attention"] = true;
  prob["trace"] = "context";
  check_estimate(prob);

  json per_head = seeded("prob", 1, 30, 40, 3, 2, 2, 2);
  per_head["sample_per_head"] = true;
  check_estimate(per_head);
  for (const char* algorithm : {"linear", "performer", "linformer", "pooling"}) {
    json s = seeded(algorithm, 2, 9, 9, 2, 3, 2, 4);
    if (std::string(algorithm) == "linformer") s["proj_len"] = 3;
    if (std::string(algorithm) == "pooling") {
      s["kernel"] = 3;
      s["stride"] = 2;
    }
    if (std::string(algorithm) == "linear") s["feature_map"] = "cosine1";
    check_estimate(s);
  }
  json flash = seeded("flash", 1, 40, 32, 1, 2, 2, 1);  // L_K > 16: key blocks of 64, one block
  const json e = estimate_scenario(flash);
  CHECK(e["sizes"]["block_k"] == 64);
  CHECK(e["sizes"]["num_key_blocks"] == 1);
  check_estimate(flash);
}

TEST_CASE("estimate: from shapes alone at L = 2048") {
  for (const char* algorithm : {"full", "flash", "prob", "performer", "linear"}) {
    json s = {{"algorithm", algorithm}, {"q", {{"shape", {1, 2048, 4, 64}}}}, {"k", {{"shape", {1, 2048, 4, 64}}}},
              {"v", {{"shape", {1, 2048, 4, 64}}}}, {"mask", {{"kind", "causal"}}}};
    const json e = estimate_scenario(s);
    INFO(algorithm);
    CHECK(e["cost"]["dense_dot_products"] == std::uint64_t{4} * 2048 * 2048);
  }
  const json local = json::parse(R"({"algorithm": "full", "q": {"shape": [1, 2048, 1, 64]}, "k": {"shape": [1, 2048, 1, 64]},
      "v": {"shape": [1, 2048, 1, 64]}, "mask": {"kind": "local", "window": 2}})");
  CHECK(estimate_scenario(local)["cost"]["dot_products"] == 2048 * 5 - 6);
  try {
    estimate_scenario(json::parse(R"({"algorithm": "full", "q": {"shape": [1, 4, 1, 2]}, "k": {"shape": [1, 4, 1, 3]},
        "v": {"shape": [1, 4, 1, 2]}})"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), StartsWith("k.shape[3]: expected 2 (E of q)"));
  }
}

TEST_CASE("catalog: every algorithm says its tensors, masks and defaults") {
  const json list = algorithms_json();
  REQUIRE(list.size() == algorithms().size());
  for (const auto& a : list) {
    INFO(a["name"]);
    CHECK(a["tensors"].is_array());
    CHECK(a["masks"].is_array());
    CHECK(a["defaults"].is_object());
    CHECK(find_algorithm(a["name"])->estimate != nullptr);
  }
  const auto entry = [&list](const std::string& name) {
    for (const auto& a : list)
      if (a["name"] == name) return a;
    return json();
  };
  CHECK(entry("full")["masks"].size() == 8);  // seven kinds and the sink mask (issue 16)
  CHECK(entry("prob")["masks"] == json({"none", "causal"}));
  CHECK(entry("linformer")["masks"] == json::array());
  CHECK(entry("lsh")["tensors"] == json({"q", "v"}));
  CHECK(entry("multihead")["tensors"] == json::array());
  CHECK(entry("flash")["defaults"]["block_k"] == 64);
  CHECK(entry("flash")["defaults"]["toy_block"] == 2);
  CHECK(entry("prob")["defaults"]["factor"] == 5);
  CHECK(entry("multihead")["inner"] == json::parse(R"({"field": "inner", "default": "full", "choices": ["full", "prob"]})"));
  CHECK_FALSE(entry("full").contains("inner"));
}

TEST_CASE("read_mask: one reader, each algorithm's refusals") {
  json s = seeded("prob", 1, 4, 4, 1, 2, 2, 1);
  s["mask"] = {{"kind", "local"}};  // no window: the kind is refused first
  CHECK(error_of(s) == "mask.kind: ProbAttention takes \"none\" or \"causal\" (ProbMask), got \"local\"");
  s["algorithm"] = "linformer";
  s["proj_len"] = 2;
  CHECK(error_of(s) == "mask.kind: linformer takes no mask: every projected key mixes all L_K positions "
                       "(expected \"none\", got \"local\")");
  s["mask"] = {{"kind", "none"}, {"causal", true}};
  CHECK(error_of(s) == "mask.causal: linformer takes no mask: every projected key mixes all L_K positions (expected false)");
  s["algorithm"] = "linear";
  s.erase("proj_len");
  s["mask"] = {{"kind", "atrous"}, {"dilation", 2}};
  CHECK(error_of(s) == "mask.kind: linear attention takes the mask \"none\" or \"causal\" (prefix sums), got \"atrous\"");
  s["mask"] = {{"kind", "causal"}, {"fill", -1e6}};
  CHECK_THAT(error_of(s), StartsWith("mask.fill: linear attention has no scores to fill"));
  s["algorithm"] = "full";
  s["mask"] = {{"kind", "diagonal"}};
  CHECK_THAT(error_of(s), StartsWith("mask.kind: expected one of"));
  s["algorithm"] = "multihead";  // inner prob: prob's kinds
  s = {{"algorithm", "multihead"}, {"inner", "prob"}, {"num_hiddens", 4}, {"num_heads", 2}, {"mask", {{"kind", "local"}, {"window", 1}}}};
  s["queries"] = s["keys"] = s["values"] = json::parse("[[[1, 2], [3, 4]]]");
  CHECK_THAT(error_of(s), StartsWith("mask.kind: ProbAttention takes"));
}
