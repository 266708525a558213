// Scenario JSON in, trace JSON out: the one entry point shared by the CLI, the WASM module and
// the tests. See SPEC §2 (scenario) and §3 (trace); docs/semantics.md for our choices.
#pragma once

#include <cstdint>
#include <functional>
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
AttentionInputs read_attention_inputs(ScenarioContext& ctx);

// "mask": {...} for queries of length L_Q against L_K keys in B batch items.
Mask read_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K);

// A tensor the run would make (trace or working) must fit kMaxTensorElements, as inputs do:
// throws "<field>: <what> would hold N numbers, more than the limit 16777216<remedy>".
void check_size(std::uint64_t numbers, const std::string& field, const std::string& what,
                const std::string& remedy = "");
// At trace "full", the (B, H, L_Q, L_K) scores and weights; "context" keeps only one row.
void check_pair_tensors(const ScenarioContext& ctx, std::uint64_t pairs, const std::string& field);

// The algorithm registry: every algorithm is registered once, in algorithms.cpp, and the CLI
// (`attnplay algorithms`), WASM `algorithms()`, the fixture tests and the page's menu derive
// from it. See docs/architecture.md, "Adding an algorithm".
struct Preset;
using AlgorithmRunner = Trace (*)(ScenarioContext&);
struct AlgorithmEntry {
  const char* name;         // the scenario's "algorithm"
  const char* title;        // for menus, English
  const char* title_zh;     // for menus, Chinese
  const char* description;  // one line: the formula and the reference it follows
  AlgorithmRunner run;      // reads the scenario's fields and runs it
  std::vector<Preset> (*presets)();  // its built-in scenarios, the seeds' worked examples first
};
const std::vector<AlgorithmEntry>& algorithms();
const AlgorithmEntry* find_algorithm(const std::string& name);
// [{name, title, title_zh, description}] in registry order.
json algorithms_json();

// Runs one scenario. Throws InputError with a message naming the field. Tensors referenced as
// {"shape", "$buffer": i} are adopted from `in_buffers` (moved out of them); with `out_buffers`
// the trace's float tensors go there (see trace_to_json, trace_json.hpp).
json run_scenario(const json& scenario, InputBuffers* in_buffers = nullptr, OutputBuffers* out_buffers = nullptr,
                  const ProgressFn& progress = {});

// Parses JSON text, turning syntax errors into InputError ("scenario: invalid JSON at byte 12: ...").
json parse_scenario_text(const std::string& text);

}  // namespace attnplay
