#include "scenario.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "../attention_rows.hpp"
#include "trace_json.hpp"
#include "undrawn.hpp"

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

Shape ScenarioContext::shape(const std::string& key, const std::vector<Dim>& dims) {
  Shape s = fields.shape(key, dims, shapes_only);
  record_shape(key, s);
  return s;
}

namespace {

// q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D): each tensor's dims from those read before it.
const std::vector<Dim> q_dims{Dim::any("B"), Dim::any("L_Q"), Dim::any("H"), Dim::any("E")};
// grouped (GQA/MQA): k may have H_kv heads, a divisor of H; v then has k's.
std::vector<Dim> k_dims(const Shape& qs, bool grouped) {
  return {Dim::of(qs[0], "B of q"), Dim::any("L_K"), grouped ? Dim::any("H_kv") : Dim::of(qs[2], "H of q"),
          Dim::of(qs[3], "E of q")};
}
std::vector<Dim> v_dims(const Shape& qs, std::size_t L_K, std::size_t H_kv, bool grouped) {
  return {Dim::of(qs[0], "B of q"), Dim::of(L_K, "L_K of k"),
          grouped ? Dim::of(H_kv, "H_kv of k") : Dim::of(qs[2], "H of q"), Dim::any("D")};
}

void check_groups(const ScenarioContext& ctx, std::size_t H, std::size_t H_kv) {
  if (H % H_kv != 0)
    throw InputError(ctx.fields.path_of("k"), "k's " + std::to_string(H_kv) + " kv heads (axis 2, H_kv) must divide q's " +
                                                  std::to_string(H) + " heads (H): each kv head serves H / H_kv query heads");
}

}  // namespace

AttentionInputs read_attention_inputs(ScenarioContext& ctx, bool grouped) {
  AttentionInputs in;
  in.q = ctx.tensor("q", q_dims);
  const Shape qs(in.q.shape().begin(), in.q.shape().end());
  in.k = ctx.tensor("k", k_dims(qs, grouped));
  check_groups(ctx, qs[2], in.k.shape()[2]);
  in.v = ctx.tensor("v", v_dims(qs, in.k.shape()[1], in.k.shape()[2], grouped));
  in.scale = ctx.fields.number("scale", default_scale(qs[3]));
  return in;
}

AttentionDims read_attention_shapes(ScenarioContext& ctx, std::size_t* H_kv) {
  const Shape qs = ctx.shape("q", q_dims);
  const Shape ks = ctx.shape("k", k_dims(qs, H_kv != nullptr));
  const std::size_t L_K = ks[1];
  if (H_kv) check_groups(ctx, qs[2], *H_kv = ks[2]);
  const std::size_t D = ctx.shape("v", v_dims(qs, L_K, ks[2], H_kv != nullptr))[3];
  ctx.fields.number("scale", 1.0);
  return {qs[0], qs[1], L_K, qs[2], qs[3], D};
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

namespace {

Mask read_mask_fields(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K) {
  Mask mask;
  if (!ctx.fields.has("mask")) {
    ctx.fields.ignore({"mask"});
    return mask;
  }
  Fields m = ctx.fields.object("mask");
  const auto kind = m.choice("kind", {"none", "causal", "valid_lens", "local", "atrous", "strided", "explicit", "sink"}, "none");
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
  } else if (kind == "sink") {  // Mistral's sliding window, StreamingLLM's sinks (SPEC §2)
    mask.kind = MaskKind::sink;
    mask.window = m.required_integer("window", 1, big);
    mask.sinks = m.integer("sinks", 0, 0, mask.window);
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
  // "align" (SPEC §2 "reference", issue 17): flash-attn >= 2.1 aligns causal and local masks to the
  // last key when L_Q != L_K; its attention_ref fills with -inf and zeroes a row left with no key
  if (m.choice("align", {"top_left", "bottom_right"}, "top_left") == "bottom_right") {
    const std::string algorithm = ctx.entry ? ctx.entry->name : "";
    if (algorithm != "full" && algorithm != "flash")
      throw InputError(m.path_of("align"), "\"bottom_right\" is flash-attn's alignment, for \"full\" and \"flash\" (this is \"" +
                                               algorithm + "\")");
    if (mask.kind != MaskKind::none && mask.kind != MaskKind::causal && mask.kind != MaskKind::local)
      throw InputError(m.path_of("align"), "\"bottom_right\" aligns the causal and local masks (flash-attn's), not \"" +
                                               std::string(mask_kind_name(mask.kind)) + "\"");
    if (!(std::isinf(mask.fill) && mask.fill < 0))
      throw InputError(m.path_of("fill"), "with \"align\": \"bottom_right\" the fill is flash-attn's \"-inf\" (a row left with "
                                          "no key is zeros), got " + number_text(mask.fill));
    mask.shift = static_cast<std::int64_t>(L_K) - static_cast<std::int64_t>(L_Q);
  }
  m.warn_unused(ctx.warnings);
  return mask;
}

}  // namespace

const MaskRule& any_mask() {
  static const MaskRule rule{{"none", "causal", "valid_lens", "local", "atrous", "strided", "explicit", "sink"}, "", "", ""};
  return rule;
}

Mask read_mask(ScenarioContext& ctx, std::size_t B, std::size_t L_Q, std::size_t L_K, const MaskRule& rule) {
  const std::string at = ctx.fields.path_of("mask");
  // the kind first: "local" without its window should say that the algorithm takes no local mask
  if (ctx.fields.has("mask") && ctx.fields.raw("mask").is_object()) {
    const json& kind = ctx.fields.raw("mask").value("kind", json("none"));
    // (a rule that takes every kind leaves an unknown one to the "expected one of" below)
    const bool accepted = !kind.is_string() || kind.get<std::string>() == "none" || rule.kinds == any_mask().kinds ||
                          std::find(rule.kinds.begin(), rule.kinds.end(), kind.get<std::string>()) != rule.kinds.end();
    if (!accepted && rule.kinds.empty())
      throw InputError(at + ".kind", rule.refusal + ": " + rule.why + " (expected \"none\", got " + kind.dump() + ")");
    if (!accepted) {
      std::string list;
      for (const auto& k : rule.kinds) list += (list.empty() ? "\"" : " or \"") + k + "\"";
      throw InputError(at + ".kind", rule.refusal + " " + list + " (" + rule.why + "), got " + kind.dump());
    }
  }
  const Mask mask = read_mask_fields(ctx, B, L_Q, L_K);
  if (rule.kinds.empty() && mask.causal)
    throw InputError(at + ".causal", rule.refusal + ": " + rule.why + " (expected false)");
  if (!rule.fill_refusal.empty() && !(std::isinf(mask.fill) && mask.fill < 0))
    throw InputError(at + ".fill", rule.fill_refusal + number_text(mask.fill));
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

void ScenarioContext::report(double fraction, const std::string& what, const json& detail) const {
  if (progress && !progress(fraction, what, detail))
    throw Cancelled("", "cancelled by the progress callback at " + what + " (no trace: a partial run is not the scenario's)");
}

// ---- reference modes (issue 17) ----
const std::vector<std::string>& reference_modes(const std::string& algorithm) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"performer", {"performer-pytorch"}},
      {"linear", {"fast-transformers", "performer-pytorch"}},
      {"lsh", {"reformer-pytorch"}},
      {"multihead", {"informer-mix"}},
      {"nadaraya_watson", {"d2l-en"}},
  };
  static const std::vector<std::string> none;
  for (const auto& [name, modes] : table)
    if (name == algorithm) return modes;
  return none;
}

namespace {

// "reference": one of the algorithm's modes, or absent (SPEC's formulas).
std::string read_reference(Fields& fields, const std::string& algorithm) {
  if (!fields.has("reference")) return "";
  const auto& modes = reference_modes(algorithm);
  if (modes.empty())
    throw InputError("reference", "\"" + algorithm +
                                      "\" has no reference modes (performer, linear, lsh, multihead and "
                                      "nadaraya_watson have; full and flash take mask.align)");
  return fields.choice("reference", modes, modes.front());
}

}  // namespace
// ---- end reference modes ----

namespace {

// What run_scenario and estimate_scenario share: the algorithm's entry and the common settings.
const AlgorithmEntry& begin_scenario(ScenarioContext& ctx) {
  Fields& fields = ctx.fields;
  std::string list;
  for (const auto& a : algorithms()) list += (list.empty() ? "" : ", ") + std::string("\"") + a.name + "\"";
  if (!fields.has("algorithm")) throw InputError("algorithm", "required, one of " + list);
  const json& name = fields.raw("algorithm");
  const AlgorithmEntry* entry = name.is_string() ? find_algorithm(name.get<std::string>()) : nullptr;
  if (!entry) throw InputError("algorithm", "expected one of " + list + ", got " + (name.is_string() ? name.dump() : json_type_name(name)));
  if (!entry->run)  // the page's first-load module (algorithms.cpp): the whole module runs it
    throw InputError("algorithm", name.dump() + " is not in this build (the first-load module runs \"full\" only)");
  ctx.entry = entry;
  ctx.seed = static_cast<std::uint64_t>(fields.integer("seed", 0, 0, std::numeric_limits<std::int64_t>::max()));
  ctx.level = fields.choice("trace", {"full", "context"}, "full") == "full" ? TraceLevel::full : TraceLevel::context;
  const auto dtype = fields.choice("dtype", {"float64", "float32"}, "float64");
  ctx.dtype = dtype == "float32" ? Dtype::float32 : Dtype::float64;
  fields.ignore({"name", "description", "title"});  // preset metadata
  ctx.reference = read_reference(fields, entry->name);
  return *entry;
}

// The work budget (issue 18, docs/semantics.md "Work budget"): a run whose estimate is above the
// scenario's "max_flops" (default kDefaultMaxFlops, 2 flops per multiply-add: about a second of
// full attention on one core natively) is refused before it starts, but only once its reader has
// read and checked every field (ScenarioContext::begin_work), so a bad field is named first. Its
// work: the cost's flops and, at trace "full", an approximation's exact comparison
// (sizes.exact_flops). An estimate that fails where the reader accepts the scenario is a bug of
// the estimator: the run is refused with the estimator's error rather than run unbounded.
constexpr double kDefaultMaxFlops = 6e9;

// too_large: set when the refusal is the budget's (not an error the estimate met in a field).
std::optional<InputError> budget_refusal(const json& scenario, InputBuffers* in_buffers, double max_flops, bool& too_large) {
  too_large = false;
  double flops = 0;
  try {
    Fields fields(scenario, "", in_buffers);
    ScenarioContext ctx{fields, 0, TraceLevel::full, json::object(), {}, Dtype::float64, false, {}, nullptr, false};
    ctx.shapes_only = true;
    const Estimate e = begin_scenario(ctx).estimate(ctx);
    flops = static_cast<double>(e.cost.flops) + e.sizes.value("exact_flops", 0.0);  // exact_flops: at trace "full" only
  } catch (const InputError& e) {
    return e;
  }
  if (!(flops > max_flops)) return std::nullopt;
  too_large = true;
  return InputError("", "too large: about " + number_text(flops / 2) + " multiply-adds (limit " + number_text(max_flops / 2) +
                            (max_flops == kDefaultMaxFlops ? ", about a second of work" : " from \"max_flops\"") +
                            "); make the tensors shorter or fewer (L, B, H, E), use fewer samples, features or epochs, " +
                            "or raise \"max_flops\" (flops, 2 per multiply-add; default " + number_text(kDefaultMaxFlops) + ")");
}

}  // namespace

void ScenarioContext::begin_work() {
  work_begun = true;
  if (budget_refusal) throw *budget_refusal;
}

json run_scenario(const json& scenario, InputBuffers* in_buffers, OutputBuffers* out_buffers, const ProgressFn& progress) {
  Fields fields(scenario, "", in_buffers);
  ScenarioContext ctx{fields, 0, TraceLevel::full, json::object(), {}, Dtype::float64, false, {}, nullptr, false, {}};
  ctx.progress = progress;
  const AlgorithmEntry& entry = begin_scenario(ctx);
  const double max_flops = fields.number("max_flops", kDefaultMaxFlops);
  if (!(max_flops > 0)) throw InputError(fields.path_of("max_flops"), "expected a number above 0, got " + number_text(max_flops));
  bool too_large = false;
  ctx.budget_refusal = budget_refusal(scenario, in_buffers, max_flops, too_large);
  Trace trace = [&] {
    // above the budget the reader still reads and checks every field (a bad one is named first),
    // but its large seeded draws are not drawn: begin_work() refuses the run (undrawn.hpp)
    const UndrawnScope undrawn(too_large);
    return entry.run(ctx);
  }();
  if (!ctx.work_begun)  // every reader must call it (tests/catch2/test_budget.cpp runs every preset)
    throw std::logic_error(std::string("the reader of ") + entry.name + " never called begin_work (the work budget)");
  check_finite(trace);
  trace.algorithm = entry.name;
  trace.reference = ctx.reference;
  if (ctx.dtype == Dtype::float32 && !ctx.dtype_honoured)
    trace.warnings.insert(trace.warnings.begin(), "dtype \"float32\" is not implemented yet: computed in float64");
  trace.warnings.insert(trace.warnings.end(), ctx.warnings.begin(), ctx.warnings.end());
  fields.warn_unused(trace.warnings);
  if (!out_buffers) return trace_to_json(trace, ctx.input_shapes);
  return trace_to_json(std::move(trace), ctx.input_shapes, out_buffers);
}

json estimate_scenario(const json& scenario, InputBuffers* in_buffers) {
  Fields fields(scenario, "", in_buffers);
  ScenarioContext ctx{fields, 0, TraceLevel::full, json::object(), {}, Dtype::float64, false, {}, nullptr, false, {}};
  ctx.shapes_only = true;
  const Estimate e = begin_scenario(ctx).estimate(ctx);
  return {{"cost", cost_json(e.cost)}, {"numbers", e.numbers}, {"sizes", e.sizes}, {"exact", e.exact}};
}

}  // namespace attnplay
