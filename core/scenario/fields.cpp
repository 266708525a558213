#include "fields.hpp"
#include "undrawn.hpp"

#include <cmath>

#include "draws.hpp"

namespace attnplay {

std::string json_type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

namespace {

std::string plural(std::int64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Walks nested JSON arrays of the expected rank, fixing free dimensions on first sight.
template <class Leaf>
struct NestedReader {
  const std::vector<Dim>& dims;
  const char* leaf_noun;  // "number", "boolean", "integer"
  Leaf read_leaf;         // (const json&, const std::string& path) -> void
  std::vector<std::int64_t> sizes;
  std::size_t count = 0;

  std::string expected(std::size_t depth, std::int64_t n) const {
    const bool last = depth + 1 == dims.size();
    std::string what = last ? plural(n, leaf_noun) : plural(n, "entry");
    if (!last && n != 1) what = std::to_string(n) + " entries";
    return what + " (" + dims[depth].label + ")";
  }

  void walk(const json& v, std::size_t depth, const std::string& path) {
    if (depth == dims.size()) {
      if (++count > kMaxTensorElements)
        throw InputError(path, "too many numbers (the limit is " +
                         std::to_string(kMaxTensorElements) + " per tensor)");
      read_leaf(v, path);
      return;
    }
    if (!v.is_array()) {
      const std::string what =
          sizes[depth] >= 0 ? "an array of " + expected(depth, sizes[depth])
                            : "an array (" + dims[depth].label + ")";
      throw InputError(path, "expected " + what + ", got " + json_type_name(v));
    }
    const auto n = static_cast<std::int64_t>(v.size());
    if (sizes[depth] < 0) {
      if (n == 0) throw InputError(path, "expected at least 1 entry (" + dims[depth].label + "), got 0");
      if (static_cast<std::size_t>(n) > kMaxDimension)
        throw InputError(path, "" + dims[depth].label + " = " + std::to_string(n) +
                         " is larger than the limit " + std::to_string(kMaxDimension));
      sizes[depth] = n;
    } else if (n != sizes[depth]) {
      throw InputError(path, "expected " + expected(depth, sizes[depth]) + ", got " +
                       std::to_string(n));
    }
    for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], depth + 1, path + "[" + std::to_string(i) + "]");
  }
};

// An integer in [min, max]; floats with an integral value (2.0) count, as Python may write them.
std::int64_t checked_integer(const json& v, const std::string& path, std::int64_t min, std::int64_t max) {
  const bool integral = v.is_number_integer() ||
                        (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() &&
                         std::abs(v.get<double>()) < 9e15);
  if (!integral) throw InputError(path, "expected an integer, got " + (v.is_number() ? v.dump() : json_type_name(v)));
  const bool too_big = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max);
  const auto n = v.is_number_float() ? static_cast<std::int64_t>(v.get<double>()) : v.get<std::int64_t>();
  if (too_big || n < min || n > max)
    throw InputError(path, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + v.dump());
  return n;
}

Shape to_shape(const std::vector<std::int64_t>& sizes) {
  return Shape(sizes.begin(), sizes.end());
}

std::vector<std::int64_t> initial_sizes(const std::vector<Dim>& dims) {
  std::vector<std::int64_t> s;
  for (const auto& d : dims) s.push_back(d.size);
  return s;
}

// A {"shape": [...]} of the expected dims, each within kMaxDimension, in all at most kMaxTensorElements.
Shape checked_shape(const json& shape, const std::string& path, const std::vector<Dim>& dims) {
  if (!shape.is_array() || shape.size() != dims.size())
    throw InputError(path + ".shape", "expected " + plural(static_cast<std::int64_t>(dims.size()), "dimension") + ", got " +
                     (shape.is_array() ? std::to_string(shape.size()) : json_type_name(shape)));
  Shape s;
  std::uint64_t total = 1;  // 64 bits also in wasm32, where size_t would wrap at 2^32
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const auto p = path + ".shape[" + std::to_string(d) + "]";
    if (!shape[d].is_number_integer() || shape[d].get<std::int64_t>() < 1)
      throw InputError(p, "expected a positive integer (" + dims[d].label + ")");
    const auto n = shape[d].get<std::int64_t>();
    if (dims[d].size >= 0 && n != dims[d].size)
      throw InputError(p, "expected " + std::to_string(dims[d].size) + " (" + dims[d].label + "), got " + std::to_string(n));
    if (static_cast<std::size_t>(n) > kMaxDimension)
      throw InputError(p, "" + dims[d].label + " = " + std::to_string(n) + " is larger than the limit " + std::to_string(kMaxDimension));
    s.push_back(static_cast<std::size_t>(n));
    total *= static_cast<std::uint64_t>(n);
    if (total > kMaxTensorElements)
      throw InputError(path, "too many numbers (the limit is " + std::to_string(kMaxTensorElements) + " per tensor)");
  }
  return s;
}

// {"shape": [...], "data": [...] } or {"shape": [...], "$buffer": i}
Tensor read_flat_tensor(const json& value, const std::string& path, const std::vector<Dim>& dims,
                        InputBuffers* buffers) {
  const Shape s = checked_shape(value.at("shape"), path, dims);
  std::uint64_t total = 1;
  for (const auto n : s) total *= n;
  if (value.contains("$buffer")) {
    const json& id = value["$buffer"];
    if (!buffers || !id.is_number_unsigned() || id.get<std::size_t>() >= buffers->size())
      throw InputError(path, "unknown buffer reference");
    InputBuffer& buf = (*buffers)[id.get<std::size_t>()];
    if (buf.length != total)
      throw InputError(path + ".data", "expected " + plural(static_cast<std::int64_t>(total), "number") + " for shape, got " + std::to_string(buf.length));
    if (buf.adopted) throw InputError(path, "buffer " + id.dump() + " is referenced twice");
    if (buf.data.size() != total) throw InputError(path, "buffer " + id.dump() + " was not allocated (out of memory)");
    const double* data = buf.data.data();
    for (std::size_t i = 0; i < total; ++i)
      if (!__builtin_isfinite(data[i]))  // no call per number where inlining is off (-Os)
        throw InputError(path + ".data[" + std::to_string(i) + "]", "expected a finite number");
    // adopted: the caller's numbers become the tensor, reshaped in place (no copy)
    Tensor t = std::move(buf.data);
    buf.adopted = true;
    t.reshape(s);
    return t;
  }
  Tensor t = Tensor::from_shape(s);
  const json& data = value.at("data");
  if (!data.is_array() || data.size() != total)
    throw InputError(path + ".data", "expected " + plural(static_cast<std::int64_t>(total), "number") + " for shape, got " +
                     (data.is_array() ? std::to_string(data.size()) : json_type_name(data)));
  for (std::size_t i = 0; i < total; ++i) {
    if (!data[i].is_number())
      throw InputError(path + ".data[" + std::to_string(i) + "]", "expected a number, got " + json_type_name(data[i]));
    t.data()[i] = data[i].get<double>();
  }
  return t;
}

// A seeded draw ({"shape", "random", "seed", "scale"}): draws.hpp's reader, where it is linked. The
// page's first-load module reads none (web/src/engine/compute.ts runs draws on the whole module):
// there a draw is an object without data, refused as such, and the code stays out of the first load.
#ifdef ATTNPLAY_FIRST_LOAD
constexpr bool is_draw(const json&) { return false; }
const DrawReader& drawing(const std::string&) { return *draw_reader; }
#else
bool is_draw(const json& value) { return value.is_object() && value.contains("random"); }

const DrawReader& drawing(const std::string& path) {
  if (!draw_reader) throw InputError(path, "a seeded draw needs the whole module (this build has no draws)");
  return *draw_reader;
}
#endif

}  // namespace

namespace {
thread_local bool t_undrawn = false;  // (UndrawnScope)
}  // namespace

UndrawnScope::UndrawnScope(bool on) : previous_(t_undrawn) { t_undrawn = on; }
UndrawnScope::~UndrawnScope() { t_undrawn = previous_; }

Tensor read_tensor(const json& value, const std::string& path, const std::vector<Dim>& dims,
                   InputBuffers* buffers) {
  if (is_draw(value)) {
    if (t_undrawn) {  // a run above the budget (undrawn.hpp): a large draw checked, not drawn
      const Shape shape = drawing(path).shape(value, path, dims);
      std::size_t n = 1;
      for (const auto x : shape) n *= x;
      if (n > kUndrawnAbove) return Tensor::from_shape(shape);
    }
    return drawing(path).read(value, path, dims);
  }
  if (value.is_object() && value.contains("shape") && (value.contains("data") || value.contains("$buffer")))
    return read_flat_tensor(value, path, dims, buffers);
  std::vector<double> data;
  auto leaf = [&](const json& v, const std::string& p) {
    if (!v.is_number()) throw InputError(p, "expected a number, got " + json_type_name(v));
    data.push_back(v.get<double>());
  };
  NestedReader<decltype(leaf)> reader{dims, "number", leaf, initial_sizes(dims)};
  reader.walk(value, 0, path);
  Tensor t = Tensor::from_shape(to_shape(reader.sizes));
  std::copy(data.begin(), data.end(), t.data());
  return t;
}

Shape read_shape(const json& value, const std::string& path, const std::vector<Dim>& dims, bool shape_alone) {
  if (is_draw(value)) return drawing(path).shape(value, path, dims);
  if (value.is_object() && value.contains("shape") &&
      (shape_alone || value.contains("data") || value.contains("$buffer")))
    return checked_shape(value.at("shape"), path, dims);
  // nested arrays: the first entry of each level (the run checks that every entry agrees)
  std::vector<std::int64_t> sizes;
  const json* v = &value;
  std::string p = path;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (!v->is_array() || v->empty())
      throw InputError(p, "expected an array of at least 1 entry (" + dims[d].label + "), got " +
                          (v->is_array() ? "0" : json_type_name(*v)));
    sizes.push_back(static_cast<std::int64_t>(v->size()));
    v = &(*v)[0];
    p += "[0]";
  }
  return checked_shape(json(sizes), path, dims);
}

const DrawReader* draw_reader = nullptr;

Fields::Fields(const json& object, std::string path, InputBuffers* buffers)
    : object_(object), path_(std::move(path)), buffers_(buffers) {
  if (!object_.is_object())
    throw InputError(path_, "expected an object, got " + json_type_name(object_));
}

bool Fields::has(const std::string& key) const { return object_.contains(key) && !object_[key].is_null(); }

std::string Fields::path_of(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

const json& Fields::raw(const std::string& key) {
  if (!has(key)) throw InputError(path_of(key), "required");
  used_.insert(key);
  return object_[key];
}

void Fields::ignore(const std::vector<std::string>& keys) { used_.insert(keys.begin(), keys.end()); }

std::optional<double> Fields::optional_number(const std::string& key) {
  if (!has(key)) {
    used_.insert(key);
    return std::nullopt;
  }
  const json& v = raw(key);
  if (!v.is_number()) throw InputError(path_of(key), "expected a number, got " + json_type_name(v));
  return v.get<double>();
}

double Fields::number(const std::string& key, double fallback) { return optional_number(key).value_or(fallback); }

std::int64_t Fields::required_integer(const std::string& key, std::int64_t min, std::int64_t max) {
  return checked_integer(raw(key), path_of(key), min, max);
}

std::int64_t Fields::integer(const std::string& key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  return required_integer(key, min, max);
}

bool Fields::boolean(const std::string& key, bool fallback) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  const json& v = raw(key);
  if (!v.is_boolean()) throw InputError(path_of(key), "expected true or false, got " + json_type_name(v));
  return v.get<bool>();
}

std::string Fields::choice(const std::string& key, const std::vector<std::string>& options, const std::string& fallback) {
  if (!has(key)) {
    used_.insert(key);
    return fallback;
  }
  const json& v = raw(key);
  std::string list;
  for (const auto& o : options) list += (list.empty() ? "" : ", ") + ("\"" + o + "\"");
  if (v.is_string())
    for (const auto& o : options)
      if (v.get<std::string>() == o) return o;
  throw InputError(path_of(key), "expected one of " + list + ", got " + (v.is_string() ? v.dump() : json_type_name(v)));
}

Fields Fields::object(const std::string& key) { return Fields(raw(key), path_of(key), buffers_); }

Tensor Fields::tensor(const std::string& key, const std::vector<Dim>& dims) {
  return read_tensor(raw(key), path_of(key), dims, buffers_);
}

Shape Fields::shape(const std::string& key, const std::vector<Dim>& dims, bool shape_alone) {
  return read_shape(raw(key), path_of(key), dims, shape_alone);
}

std::optional<Tensor> Fields::optional_tensor(const std::string& key, const std::vector<Dim>& dims) {
  if (!has(key)) {
    used_.insert(key);
    return std::nullopt;
  }
  return tensor(key, dims);
}

IndexTensor Fields::index_tensor(const std::string& key, const std::vector<Dim>& dims, std::int64_t min, std::int64_t max) {
  std::vector<std::int64_t> data;
  auto leaf = [&](const json& v, const std::string& p) {
    data.push_back(checked_integer(v, p, min, max));
  };
  NestedReader<decltype(leaf)> reader{dims, "integer", leaf, initial_sizes(dims)};
  reader.walk(raw(key), 0, path_of(key));
  IndexTensor t = IndexTensor::from_shape(to_shape(reader.sizes));
  std::copy(data.begin(), data.end(), t.data());
  return t;
}

BoolTensor Fields::bool_tensor(const std::string& key, const std::vector<Dim>& dims) {
  std::vector<bool> data;
  auto leaf = [&](const json& v, const std::string& p) {
    if (v.is_boolean()) data.push_back(v.get<bool>());
    else if (v.is_number_integer() && (v.get<std::int64_t>() == 0 || v.get<std::int64_t>() == 1)) data.push_back(v.get<std::int64_t>() == 1);
    else throw InputError(p, "expected true or false, got " + (v.is_number() ? v.dump() : json_type_name(v)));
  };
  NestedReader<decltype(leaf)> reader{dims, "boolean", leaf, initial_sizes(dims)};
  reader.walk(raw(key), 0, path_of(key));
  BoolTensor t = BoolTensor::from_shape(to_shape(reader.sizes));
  for (std::size_t i = 0; i < data.size(); ++i) t.data()[i] = data[i];
  return t;
}

void Fields::warn_unused(std::vector<std::string>& warnings) const {
  for (auto it = object_.begin(); it != object_.end(); ++it)
    if (!used_.count(it.key())) warnings.push_back("unknown field '" + path_of(it.key()) + "' ignored");
}

}  // namespace attnplay
