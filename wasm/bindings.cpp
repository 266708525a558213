// Embind boundary. No C++ exception crosses into JS (that leaks wasm stack and memory): every
// call returns JSON text, {"trace": ...} or {"error": "message naming the field", "field": path}, and the thin
// wrapper wasm/attnplay.mjs rethrows errors as JS Errors.
//
// Tensors travel out of band, each copied once (issue 8: the heap never shrinks, so its peak is
// what a page pays):
//   in:  JS asks inputBuffer(i, n) for a float64 buffer of n numbers owned here (a Tensor; a view
//        into wasm memory, filled with .set() at once: a later allocation may move memory), and
//        references it from the scenario JSON as {"shape": [...], "$buffer": i}; the reader adopts
//        the Tensor itself (reshaped, no copy). run() frees whatever was not adopted.
//   out: the trace's float tensors are moved (not copied) into g_outputs and referenced the same
//        way; outputBuffer(i) is a view into wasm memory (copy it before the next call), freed
//        with releaseOutputs().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "../core/scenario/draws.hpp"
#include "../core/scenario/presets.hpp"
#include "../core/scenario/scenario.hpp"

using emscripten::val;

namespace {

attnplay::InputBuffers g_inputs;
bool g_inputs_out_of_memory = false;
attnplay::OutputBuffers g_outputs;

// {"error": the one-line message, "field": the offending field's path ("" = the whole scenario)}
std::string error_json(const std::string& message, const std::string& field) {
  return attnplay::json{{"error", message}, {"field", field}}.dump();
}

void release_inputs() {
  attnplay::InputBuffers().swap(g_inputs);
  g_inputs_out_of_memory = false;
}

// Input buffer i of n numbers: a Float64Array view of its memory, to be filled at once; null when
// n is beyond the per-tensor limit (nothing is allocated; the reader then reports the tensor's size)
// or memory ran out (run() then answers "out of memory"). Buffer 0 starts a new set.
val input_buffer(unsigned i, double n) {
  if (i == 0) release_inputs();
  if (i >= g_inputs.size()) g_inputs.resize(i + 1);
  attnplay::InputBuffer& buf = g_inputs[i];
  buf = attnplay::InputBuffer{};
  buf.length = n > 0 ? static_cast<std::size_t>(n) : 0;
  if (!(n <= static_cast<double>(attnplay::kMaxTensorElements))) return val::null();
  try {
    buf.data = attnplay::Tensor::from_shape({buf.length});
  } catch (const std::bad_alloc&) {
    g_inputs_out_of_memory = true;
    return val::null();
  }
  return val(emscripten::typed_memory_view(buf.data.size(), buf.data.data()));
}

std::string run_impl(const std::string& scenario_text, const attnplay::ProgressFn& progress) {
  struct Release {  // the inputs not adopted (and the adopted ones' husks) go, whatever happens
    ~Release() { release_inputs(); }
  } release;
  try {
    attnplay::OutputBuffers().swap(g_outputs);
    if (g_inputs_out_of_memory) return error_json("scenario: out of memory (too large for the browser)", "");
    const auto scenario = attnplay::parse_scenario_text(scenario_text);
    return attnplay::json{{"trace", attnplay::run_scenario(scenario, &g_inputs, &g_outputs, progress)}}.dump();
  } catch (const attnplay::Cancelled& e) {
    attnplay::OutputBuffers().swap(g_outputs);
    return attnplay::json{{"error", e.what()}, {"field", e.field}, {"cancelled", true}}.dump();
  } catch (const attnplay::InputError& e) {
    return error_json(e.what(), e.field);
  } catch (const std::bad_alloc&) {
    attnplay::OutputBuffers().swap(g_outputs);
    return error_json("scenario: out of memory (too large for the browser)", "");
  } catch (const std::exception& e) {
    return error_json(std::string("internal error: ") + e.what(), "");
  }
}

std::string run(const std::string& scenario_text) { return run_impl(scenario_text, {}); }

// {"estimate": {cost, numbers, sizes, exact}} or {"error", "field"}: the scenario's shapes only
// (tensors may be {"shape": [...]} with no data), nothing run.
std::string estimate(const std::string& scenario_text) {
  try {
    const auto scenario = attnplay::parse_scenario_text(scenario_text);
    return attnplay::json{{"estimate", attnplay::estimate_scenario(scenario)}}.dump();
  } catch (const attnplay::InputError& e) {
    return error_json(e.what(), e.field);
  } catch (const std::exception& e) {
    return error_json(std::string("internal error: ") + e.what(), "");
  }
}

// run() with progress: `callback(fraction, what, detailJson)` after each training epoch (SPEC §1:
// long work reports progress). The callback must not throw (attnplay.mjs wraps it) and returns
// true to go on, false to stop (the reply is then an error with "cancelled": true).
std::string run_with_progress(const std::string& scenario_text, const val& callback) {
  const attnplay::ProgressFn progress = [&callback](double fraction, const std::string& what, const attnplay::json& detail) {
    return callback(fraction, what, detail.dump()).as<bool>();
  };
  return run_impl(scenario_text, progress);
}

val output_buffer(unsigned i) {
  if (i >= g_outputs.size()) return val::null();
  return val(emscripten::typed_memory_view(g_outputs[i].size(), g_outputs[i].data()));
}

void release_outputs() { attnplay::OutputBuffers().swap(g_outputs); }

#ifndef ATTNPLAY_FIRST_LOAD  // its draws are the whole module's (core/scenario/draws.hpp)
// A draw's reply: the numbers `read(spec, dims)` makes of the spec text, in outputBuffer(0), and
// {"shape": [...]}; or {"error", "field"} naming `field`'s keys.
template <class Read>
std::string draw_reply(const std::string& spec_text, const std::string& field, Read read) {
  try {
    attnplay::OutputBuffers().swap(g_outputs);
    const auto spec = attnplay::parse_scenario_text(spec_text);
    if (!spec.is_object() || !spec.contains("random"))
      throw attnplay::InputError(field, "expected a draw {\"shape\", \"random\", \"seed\", \"scale\"}");
    const std::size_t rank = spec.contains("shape") && spec["shape"].is_array() ? spec["shape"].size() : 0;
    const std::vector<attnplay::Dim> dims(std::max<std::size_t>(rank, 1), attnplay::Dim::any("size"));
    g_outputs.push_back(read(spec, dims));
    const auto& shape = g_outputs[0].shape();
    return attnplay::json{{"shape", std::vector<std::size_t>(shape.begin(), shape.end())}}.dump();
  } catch (const attnplay::InputError& e) {
    return error_json(e.what(), e.field);
  } catch (const std::bad_alloc&) {
    attnplay::OutputBuffers().swap(g_outputs);
    return error_json(field + ": out of memory (too large for the browser)", field);
  }
}

// The numbers of a seeded draw (SPEC §2, {"shape", "random", "seed", "scale"}) as the readers draw
// them, for the page's grids, explanations and copy-as-PyTorch: {"shape": [...]} with the numbers
// in outputBuffer(0), or {"error", "field"} naming `field`'s keys ("q.random").
std::string draw(const std::string& spec_text, const std::string& field) {
  return draw_reply(spec_text, field, [&](const attnplay::json& spec, const std::vector<attnplay::Dim>& dims) {
    return attnplay::read_tensor(spec, field, dims, nullptr);
  });
}

// Rows [start, end) of axis 1 of a seeded draw (a split run's query rows, web/src/worker/split.ts),
// bit for bit those rows of draw()'s numbers: replies as draw().
std::string draw_rows(const std::string& spec_text, const std::string& field, double start, double end) {
  return draw_reply(spec_text, field, [&](const attnplay::json& spec, const std::vector<attnplay::Dim>& dims) {
    if (!(start >= 0 && end >= start && end <= 9007199254740992.0))
      throw attnplay::InputError(field, "rows: expected 0 <= start <= end");
    return attnplay::read_draw_rows(spec, field, dims, static_cast<std::size_t>(start), static_cast<std::size_t>(end));
  });
}
#endif

#ifdef ATTNPLAY_FIRST_LOAD
std::string presets_json() { return "[]"; }  // the page's first-load module has none (algorithms.cpp)
#else
std::string presets_json() { return attnplay::presets_json().dump(); }
#endif

// The algorithm registry: [{name, title, title_zh, description, tensors, masks, defaults, inner?}].
std::string algorithms_json() { return attnplay::algorithms_json().dump(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnplay) {
  emscripten::function("run", &run);
  emscripten::function("estimate", &estimate);
  emscripten::function("runWithProgress", &run_with_progress);
  emscripten::function("inputBuffer", &input_buffer);
  emscripten::function("releaseInputs", &release_inputs);
  emscripten::function("outputBuffer", &output_buffer);
  emscripten::function("releaseOutputs", &release_outputs);
#ifndef ATTNPLAY_FIRST_LOAD
  emscripten::function("draw", &draw);
  emscripten::function("drawRows", &draw_rows);
#endif
  emscripten::function("presets", &presets_json);
  emscripten::function("algorithms", &algorithms_json);
}
