// A trace as JSON (SPEC §3, docs/semantics.md "Trace layout"): what run_scenario returns.
#pragma once

#include "../trace.hpp"
#include "fields.hpp"

namespace attnplay {

// A trace's cost: {dot_products, dense_dot_products, flops} (also the estimate's).
json cost_json(const Cost& cost);

// Tensor output as nested arrays (CLI).
json trace_to_json(const Trace& trace, const json& input_shapes);
// The same with the float tensors out of band (WASM): each is moved out of the trace into
// `out_buffers` (no copy) and written as {"shape", "$buffer": its index}.
json trace_to_json(Trace&& trace, const json& input_shapes, OutputBuffers* out_buffers);

}  // namespace attnplay
