// A trace as the JSON of SPEC §3: its fields in order (tensors as nested arrays, or out of band as
// {"shape", "$buffer": i}), "shapes" (the inputs' and every tensor field's), "cost", "warnings".
#include "trace_json.hpp"

#include <type_traits>
#include <variant>

namespace attnplay {

namespace {

json shape_json(const Shape& s) { return json(s); }

template <class T>
json nested(const T* data, const Shape& shape, std::size_t depth, std::size_t& offset) {
  json arr = json::array();
  if (depth + 1 == shape.size()) {
    for (std::size_t i = 0; i < shape[depth]; ++i) arr.push_back(data[offset++]);
    return arr;
  }
  for (std::size_t i = 0; i < shape[depth]; ++i) arr.push_back(nested(data, shape, depth + 1, offset));
  return arr;
}

template <class T>
json tensor_json(const xt::xarray<T>& t) {
  const Shape shape(t.shape().begin(), t.shape().end());
  if (shape.empty()) return json(t.data()[0]);
  std::size_t offset = 0;
  return nested(t.data(), shape, 0, offset);
}

// `Tr` is const Trace (nested arrays) or Trace (float tensors moved to out_buffers).
template <class Tr>
json trace_json(Tr& trace, const json& input_shapes, OutputBuffers* out_buffers) {
  json out = json::object();
  out["algorithm"] = trace.algorithm;
  if (!trace.reference.empty()) out["reference"] = trace.reference;
  json shapes = input_shapes;
  // a tensor's JSON: out of band where `out_buffers` takes it (WASM: the trace's own memory, moved,
  // not copied), else nested arrays (the CLI)
  auto tensor_value = [&](auto& v) -> json {
    using V = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<V, Tensor> && !std::is_const_v<Tr>) {
      if (out_buffers) {
        const Shape shape(v.shape().begin(), v.shape().end());
        out_buffers->push_back(std::move(v));
        return {{"shape", shape}, {"$buffer", out_buffers->size() - 1}};
      }
    }
    return tensor_json(v);
  };
  for (auto& field : trace.fields) {
    const std::string& name = field.first;
    auto& value = field.second;  // const unless the tensors are moved out
    // "group/key" (bahdanau's gradients/<parameter>, mla's state_dict/<name>): out[group][key],
    // not in shapes (docs/semantics.md, "Trace layout")
    const auto slash = name.find('/');
    json& slot = slash == std::string::npos ? out[name] : out[name.substr(0, slash)][name.substr(slash + 1)];
    std::visit(
        [&](auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, double> || std::is_same_v<V, std::int64_t>) {
            slot = v;
          } else {
            if (slash == std::string::npos) shapes[name] = shape_json(Shape(v.shape().begin(), v.shape().end()));
            slot = tensor_value(v);
          }
        },
        value);
  }
  out["shapes"] = shapes;
  out["cost"] = cost_json(trace.cost);
  out["warnings"] = trace.warnings;
  return out;
}

}  // namespace

json cost_json(const Cost& cost) {
  json c = {{"dot_products", cost.dot_products}, {"dense_dot_products", cost.dense_dot_products}, {"flops", cost.flops}};
  if (cost.kv_cache_numbers) c["kv_cache_numbers"] = cost.kv_cache_numbers;
  return c;
}

json trace_to_json(const Trace& trace, const json& input_shapes) { return trace_json(trace, input_shapes, nullptr); }

json trace_to_json(Trace&& trace, const json& input_shapes, OutputBuffers* out_buffers) {
  return trace_json(trace, input_shapes, out_buffers);
}

}  // namespace attnplay
