// Scenario JSON in, trace JSON out: the one entry point shared by the CLI, the WASM module and
// the tests. See SPEC §2 (scenario) and §3 (trace); docs/semantics.md for our choices.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../attention_kernel.hpp"
#include "../mask.hpp"
#include "../rng.hpp"
#include "../trace.hpp"
#include "fields.hpp"

namespace attnplay {

// Progress of a long run (training): `fraction` in (0, 1], increasing; `what` a short English
// line ("epoch 3 of 20"); `detail` an object ({"epoch": 3, "epochs": 20, "loss": 0.12}).
// Returning false stops the run: run_scenario then throws Cancelled (docs/semantics.md).
using ProgressFn = std::function<bool(double fraction, const std::string& what, const json& detail)>;

// Thrown when a ProgressFn returned false: an InputError on the scenario as a whole.
struct Cancelled : InputError {
  using InputError::InputError;
};

struct AlgorithmEntry;

// The "reference" modes an algorithm accepts (SPEC §2, "Matching the library a learner reads"):
// empty for one without.
const std::vector<std::string>& reference_modes(const std::string& algorithm);

// What every algorithm's reader gets: the scenario's fields and its common settings.
struct ScenarioContext {
  Fields& fields;               // the top-level scenario object
  std::uint64_t seed = 0;       // "seed"
  TraceLevel level = TraceLevel::full;  // "trace"
  json input_shapes = json::object();   // name -> shape of every input tensor read
  std::vector<std::string> warnings;    // from reading (unknown fields, ...)
  Dtype dtype = Dtype::float64;         // "dtype"
  bool dtype_honoured = false;          // set by a reader that computes in `dtype` (full, flash)
  ProgressFn progress;                  // empty: nobody listens (called by training loops)
  const AlgorithmEntry* entry = nullptr;  // the algorithm being read (its masks, defaults)
  bool shapes_only = false;             // estimate_scenario: tensors may come as {"shape": [...]}
  std::string reference;                // "reference" (SPEC §2, issue 17): "" = SPEC's formulas

  // The work budget (run_scenario, docs/semantics.md "Work budget"): the refusal begin_work()
  // throws when the run's estimate is above "max_flops" (empty detail: within the budget).
  std::optional<InputError> budget_refusal;
  bool work_begun = false;              // begin_work() was called

  // Every reader calls this once it has read and checked every field, before it draws or computes
  // anything large: a bad field is named before the budget speaks, and a run above the budget is
  // refused before its work starts. (run_scenario refuses a reader that never calls it.)
  void begin_work();

  // Reads only a tensor's shape (nested arrays, {"shape", "data"}, a buffer reference or, for
  // estimates, {"shape"} alone) and records it: no number is read or copied.
  Shape shape(const std::string& key, const std::vector<Dim>& dims);

  // Calls `progress` (if any); throws Cancelled when it returns false.
  void report(double fraction, const std::string& what, const json& detail = json::object()) const;

  // Reads a tensor of the top-level scenario and records its shape.
  Tensor tensor(const std::string& key, const std::vector<Dim>& dims);
  std::optional<Tensor> optional_tensor(const std::string& key, const std::vector<Dim>& dims);
  void record_shape(const std::string& name, const Shape& shape);
};

// q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D) and the scale (default 1/sqrt(E)).
struct AttentionInputs {
  Tensor q, k, v;
  double scale;
};
// grouped: k and v may have H_kv heads, a divisor of H (GQA/MQA: full, flash, decode); an H_kv
// that does not divide H is refused on "k".
AttentionInputs read_attention_inputs(ScenarioContext& ctx, bool grouped = false);
// Their shapes only, checked as read_attention_inputs checks them (estimates; "scale" is read too);
// with H_kv given, grouped as above and H_kv written there.
AttentionDims read_attention_shapes(ScenarioContext& ctx, std::size_t* H_kv = nullptr);

// The mask kinds an algorithm accepts (its registry entry's `masks`) and the words of its refusals.
struct MaskRule {
  std::vector<std::string> kinds;    // empty: it takes no mask ("none" and no "causal": true only)
  std::string refusal;               // "ProbAttention takes", "linformer takes no mask"
  std::string why;                   // "ProbMask", "every projected key mixes all L_K positions"
  std::string fill_refusal;          // not empty: a fill other than "-inf" is refused with this text
};
// Every kind (full, flash, additive, multihead with inner full).
const MaskRule& any_mask();

// "mask": {...} for queries of length L_Q against L_K keys in B batch items. A kind the rule does
// not accept is refused on mask.kind before the mask's own fields are read (so "local" without
// its window still says the algorithm takes no local mask):
//   "<refusal> \"none\" or \"causal\" (<why>), got \"local\""  or, no kinds,
//   "<refusal>: <why> (expected \"none\", got \"local\")" and on mask.causal "... (expected false)".
Mask read_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K, const MaskRule& rule);

// A tensor the run would make (trace or working) must fit kMaxTensorElements, as inputs do:
// throws "<field>: <what> would hold N numbers, more than the limit 16777216<remedy>".
void check_size(std::uint64_t numbers, const std::string& field, const std::string& what,
                const std::string& remedy = "");
// At trace "full", the (B, H, L_Q, L_K) scores and weights; "context" keeps only one row.
void check_pair_tensors(const ScenarioContext& ctx, std::uint64_t pairs, const std::string& field);

// What a run of a scenario will cost and carry, from its shapes and options alone (no tensor is
// built): `cost` equals the trace's cost where `exact` (it is an estimate where the work depends
// on the numbers: lsh's buckets, prob's .squeeze() union, bahdanau's training), `numbers` the
// float numbers of the trace's tensors at the scenario's trace level, `sizes` what the algorithm
// derives (flash's block sizes, prob's U_part and u, ...).
struct Estimate {
  Cost cost;
  std::uint64_t numbers = 0;
  json sizes = json::object();
  bool exact = true;
};

// The algorithm registry: every algorithm is registered once, in algorithms.cpp, and the CLI
// (`attnplay algorithms`), WASM `algorithms()`, the fixture tests and the page's menus derive
// from it. See docs/architecture.md, "Adding an algorithm".
struct Preset;
using AlgorithmRunner = Trace (*)(ScenarioContext&);
using AlgorithmEstimator = Estimate (*)(ScenarioContext&);
struct AlgorithmEntry {
  const char* name;         // the scenario's "algorithm"
  const char* title;        // for menus, English
  const char* title_zh;     // for menus, Chinese
  const char* description;  // one line: the formula and the reference it follows
  AlgorithmRunner run;      // reads the scenario's fields and runs it
  std::vector<Preset> (*presets)();  // its built-in scenarios, the seeds' worked examples first
  std::vector<const char*> tensors;  // the (B, L, H, E)-layout tensors it reads, edited as grids
  MaskRule masks;                    // the mask kinds its reader accepts
  json (*defaults)();                // its options' defaults, from the constants its reader uses
  AlgorithmEstimator estimate;       // beside the reader, in run_<name>.cpp
  json (*inner)() = nullptr;         // {"field", "default", "choices"}: the inner algorithm (multihead)
};
const std::vector<AlgorithmEntry>& algorithms();
const AlgorithmEntry* find_algorithm(const std::string& name);
// [{name, title, title_zh, description, tensors, masks, defaults, inner?}] in registry order.
json algorithms_json();

// Estimates a scenario without running it (see Estimate): {"cost", "numbers", "sizes", "exact"}.
// Tensors may be given as {"shape": [...]} with no data.
json estimate_scenario(const json& scenario, InputBuffers* in_buffers = nullptr);

// Runs one scenario. Throws InputError with a message naming the field. Tensors referenced as
// {"shape", "$buffer": i} are adopted from `in_buffers` (moved out of them); with `out_buffers`
// the trace's float tensors go there (see trace_to_json, trace_json.hpp).
json run_scenario(const json& scenario, InputBuffers* in_buffers = nullptr, OutputBuffers* out_buffers = nullptr,
                  const ProgressFn& progress = {});

// Parses JSON text, turning syntax errors into InputError ("scenario: invalid JSON at byte 12: ...").
json parse_scenario_text(const std::string& text);

}  // namespace attnplay
