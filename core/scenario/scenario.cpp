#include "scenario.hpp"

#include <cmath>

#include "../attention_rows.hpp"
#include "trace_json.hpp"

namespace attnplay {

void ScenarioContext::record_shape(const std::string& name, const Shape& shape) {
  input_shapes[name] = shape;
}

Tensor ScenarioContext::tensor(const std::string& key, const std::vector<Dim>& dims) {
  Tensor t = fields.tensor(key, dims);
  record_shape(key, Shape(t.shape().begin(), t.shape().end()));
  return t;
}

std::optional<Tensor> ScenarioContext::optional_tensor(const std::string& key, const std::vector<Dim>& dims) {
  if (!fields.has(key)) {
    fields.ignore({key});
    return std::nullopt;
  }
  return tensor(key, dims);
}

AttentionInputs read_attention_inputs(ScenarioContext& ctx) {
  AttentionInputs in;
  in.q = ctx.tensor("q", {Dim::any("B"), Dim::any("L_Q"), Dim::any("H"), Dim::any("E")});
  const auto& qs = in.q.shape();
  in.k = ctx.tensor("k", {Dim::of(qs[0], "B of q"), Dim::any("L_K"), Dim::of(qs[2], "H of q"), Dim::of(qs[3], "E of q")});
  in.v = ctx.tensor("v", {Dim::of(qs[0], "B of q"), Dim::of(in.k.shape()[1], "L_K of k"), Dim::of(qs[2], "H of q"), Dim::any("D")});
  in.scale = ctx.fields.number("scale", default_scale(qs[3]));
  return in;
}

void check_size(std::uint64_t numbers, const std::string& field, const std::string& what, const std::string& remedy) {
  if (numbers > kMaxTensorElements)
    throw InputError(field, what + " would hold " + std::to_string(numbers) + " numbers, more than the limit " +
                     std::to_string(kMaxTensorElements) + remedy);
}

void check_pair_tensors(const ScenarioContext& ctx, std::uint64_t pairs, const std::string& field) {
  if (ctx.level == TraceLevel::full)
    check_size(pairs, field, "the (B, H, L_Q, L_K) scores and weights", "; use \"trace\": \"context\"");
}

Mask read_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K) {
  Mask mask;
  if (!ctx.fields.has("mask")) {
    ctx.fields.ignore({"mask"});
    return mask;
  }
  Fields m = ctx.fields.object("mask");
  const auto kind = m.choice("kind", {"none", "causal", "valid_lens", "local", "atrous", "strided", "explicit"}, "none");
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  if (kind == "none") mask.kind = MaskKind::none;
  else if (kind == "causal") mask.kind = MaskKind::causal;
  else if (kind == "valid_lens") {
    mask.kind = MaskKind::valid_lens;
    const json& lens = m.raw("valid_lens");
    const bool two_d = lens.is_array() && !lens.empty() && lens[0].is_array();
    std::vector<Dim> dims{Dim::of(B, "B of q")};
    if (two_d) dims.push_back(Dim::of(L_Q, "L_Q of q"));
    mask.valid_lens = m.index_tensor("valid_lens", dims, 0, big);
  } else if (kind == "local") {
    mask.kind = MaskKind::local;
    mask.window = m.required_integer("window", 0, big);
  } else if (kind == "atrous") {
    mask.kind = MaskKind::atrous;
    mask.dilation = m.required_integer("dilation", 1, big);
  } else if (kind == "strided") {
    mask.kind = MaskKind::strided;
    mask.window = m.required_integer("window", 0, big);
    mask.stride = m.required_integer("stride", 1, big);
  } else {
    mask.kind = MaskKind::explicit_allowed;
    mask.allowed = m.bool_tensor("allowed", {Dim::of(L_Q, "L_Q of q"), Dim::of(L_K, "L_K of k")});
  }
  if (mask.kind != MaskKind::explicit_allowed && mask.kind != MaskKind::valid_lens)
    mask.causal = m.boolean("causal", false);
  // fill: a number or "-inf"; d2l's -1e6 for valid_lens, -inf otherwise.
  mask.fill = mask.kind == MaskKind::valid_lens ? -1e6 : -std::numeric_limits<double>::infinity();
  if (m.has("fill")) {
    const json& f = m.raw("fill");
    if (f.is_string() && f.get<std::string>() == "-inf") mask.fill = -std::numeric_limits<double>::infinity();
    else if (f.is_number()) mask.fill = f.get<double>();
    else throw InputError(m.path_of("fill"), "expected a number or \"-inf\", got " + (f.is_string() ? f.dump() : json_type_name(f)));
  }
  m.warn_unused(ctx.warnings);
  return mask;
}

namespace {

// Every number of a trace must be finite (JSON has no NaN or Infinity; they would print as
// null). The algorithms check where numbers can overflow and name the input; this is the backstop.
void check_finite(const Trace& trace) {
  for (const auto& [name, value] : trace.fields) {
    const double* data = nullptr;
    std::size_t n = 0;
    if (const auto* t = std::get_if<Tensor>(&value)) {
      data = t->data();
      n = t->size();
    } else if (const auto* d = std::get_if<double>(&value)) {
      data = d;
      n = 1;
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!__builtin_isfinite(data[i]))  // no call per number where inlining is off (-Os)
        throw InputError("", "the trace's \"" + name + "\" holds a number that is not finite (entry " +
                         std::to_string(i) + "): the input numbers are too large");
  }
}

}  // namespace

json parse_scenario_text(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto colon = what.find("parse error");
    throw InputError("", "invalid JSON at byte " + std::to_string(e.byte) + ": " +
                     (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::exception& e) {  // out_of_range 406: a number beyond the double range (1e400)
    std::string what = e.what();
    const auto bracket = what.find("] ");
    throw InputError("", "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)) +
                     " (numbers must be finite doubles)");
  }
}

void ScenarioContext::report(double fraction, const std::string& what, const json& detail) const {
  if (progress && !progress(fraction, what, detail))
    throw Cancelled("", "cancelled by the progress callback at " + what + " (no trace: a partial run is not the scenario's)");
}

json run_scenario(const json& scenario, InputBuffers* in_buffers, OutputBuffers* out_buffers, const ProgressFn& progress) {
  Fields fields(scenario, "", in_buffers);
  ScenarioContext ctx{fields, 0, TraceLevel::full, json::object(), {}, Dtype::float64, false, {}};
  ctx.progress = progress;
  std::string list;
  for (const auto& a : algorithms()) list += (list.empty() ? "" : ", ") + std::string("\"") + a.name + "\"";
  if (!fields.has("algorithm")) throw InputError("algorithm", "required, one of " + list);
  const json& name = fields.raw("algorithm");
  const AlgorithmEntry* entry = name.is_string() ? find_algorithm(name.get<std::string>()) : nullptr;
  if (!entry) throw InputError("algorithm", "expected one of " + list + ", got " + (name.is_string() ? name.dump() : json_type_name(name)));
  if (!entry->run)  // the page's first-load module (algorithms.cpp): the whole module runs it
    throw InputError("algorithm", name.dump() + " is not in this build (the first-load module runs \"full\" only)");

  ctx.seed = static_cast<std::uint64_t>(fields.integer("seed", 0, 0, std::numeric_limits<std::int64_t>::max()));
  ctx.level = fields.choice("trace", {"full", "context"}, "full") == "full" ? TraceLevel::full : TraceLevel::context;
  const auto dtype = fields.choice("dtype", {"float64", "float32"}, "float64");
  ctx.dtype = dtype == "float32" ? Dtype::float32 : Dtype::float64;
  fields.ignore({"name", "description", "title"});  // preset metadata

  Trace trace = entry->run(ctx);
  check_finite(trace);
  trace.algorithm = entry->name;
  if (dtype == "float32" && !ctx.dtype_honoured)
    trace.warnings.insert(trace.warnings.begin(), "dtype \"float32\" is not implemented yet: computed in float64");
  trace.warnings.insert(trace.warnings.end(), ctx.warnings.begin(), ctx.warnings.end());
  fields.warn_unused(trace.warnings);
  if (!out_buffers) return trace_to_json(trace, ctx.input_shapes);
  return trace_to_json(std::move(trace), ctx.input_shapes, out_buffers);
}

}  // namespace attnplay
