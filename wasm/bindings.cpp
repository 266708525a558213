// Embind boundary. No C++ exception crosses into JS (that leaks wasm stack and memory): every
// call returns JSON text, {"trace": ...} or {"error": "message naming the field", "field": path}, and the thin
// wrapper wasm/attnplay.mjs rethrows errors as JS Errors.
//
// Tensors travel out of band: inputs as typed arrays referenced from the JSON as
// {"shape": [...], "$buffer": i}; outputs the same way, read with outputBuffer(i) (a view into
// wasm memory: copy it before the next call) and freed with releaseOutputs().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "../core/scenario/presets.hpp"
#include "../core/scenario/scenario.hpp"

using emscripten::val;

namespace {

attnplay::Buffers g_outputs;

// {"error": the one-line message, "field": the offending field's path ("" = the whole scenario)}
std::string error_json(const std::string& message, const std::string& field) {
  return attnplay::json{{"error", message}, {"field", field}}.dump();
}

std::string run_impl(const std::string& scenario_text, const val& buffers, const attnplay::ProgressFn& progress) {
  try {
    attnplay::Buffers inputs;
    const auto n = buffers["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i)
      inputs.push_back(emscripten::convertJSArrayToNumberVector<double>(buffers[i]));
    attnplay::Buffers().swap(g_outputs);
    const auto scenario = attnplay::parse_scenario_text(scenario_text);
    return attnplay::json{{"trace", attnplay::run_scenario(scenario, &inputs, &g_outputs, progress)}}.dump();
  } catch (const attnplay::Cancelled& e) {
    attnplay::Buffers().swap(g_outputs);
    return attnplay::json{{"error", e.what()}, {"field", e.field}, {"cancelled", true}}.dump();
  } catch (const attnplay::InputError& e) {
    return error_json(e.what(), e.field);
  } catch (const std::bad_alloc&) {
    attnplay::Buffers().swap(g_outputs);
    return error_json("scenario: out of memory (too large for the browser)", "");
  } catch (const std::exception& e) {
    return error_json(std::string("internal error: ") + e.what(), "");
  }
}

std::string run(const std::string& scenario_text, const val& buffers) { return run_impl(scenario_text, buffers, {}); }

// run() with progress: `callback(fraction, what, detailJson)` after each training epoch (SPEC §1:
// long work reports progress). The callback must not throw (attnplay.mjs wraps it) and returns
// true to go on, false to stop (the reply is then an error with "cancelled": true).
std::string run_with_progress(const std::string& scenario_text, const val& buffers, const val& callback) {
  const attnplay::ProgressFn progress = [&callback](double fraction, const std::string& what, const attnplay::json& detail) {
    return callback(fraction, what, detail.dump()).as<bool>();
  };
  return run_impl(scenario_text, buffers, progress);
}

val output_buffer(unsigned i) {
  if (i >= g_outputs.size()) return val::null();
  return val(emscripten::typed_memory_view(g_outputs[i].size(), g_outputs[i].data()));
}

void release_outputs() { attnplay::Buffers().swap(g_outputs); }

std::string presets_json() { return attnplay::presets_json().dump(); }

// The algorithm registry: [{name, title, title_zh, description}].
std::string algorithms_json() { return attnplay::algorithms_json().dump(); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnplay) {
  emscripten::function("run", &run);
  emscripten::function("runWithProgress", &run_with_progress);
  emscripten::function("outputBuffer", &output_buffer);
  emscripten::function("releaseOutputs", &release_outputs);
  emscripten::function("presets", &presets_json);
  emscripten::function("algorithms", &algorithms_json);
}
