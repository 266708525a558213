// Reading a scenario (nlohmann::json) into typed values. Every error is an InputError whose
// message starts with the field's path and says what was expected:
//   "k[0][3]: expected 2 numbers (E of q), got 3"
// Unknown keys are collected so the trace can warn about them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../tensor.hpp"

namespace attnplay {

using json = nlohmann::json;

// The expected size of one tensor dimension: fixed (with where that number comes from) or free.
struct Dim {
  std::int64_t size = -1;  // -1: any size >= 1
  std::string label;       // "B", "E of q", ...
  static Dim any(std::string label) { return {-1, std::move(label)}; }
  static Dim of(std::size_t size, std::string label) {
    return {static_cast<std::int64_t>(size), std::move(label)};
  }
};

// Tensors handed over out of band (WASM typed arrays), referenced as {"shape": [...], "$buffer": i}.
// An input buffer is a flat float64 Tensor that the caller filled in place (WASM: JS writes the
// typed array straight into it, see wasm/bindings.cpp); the reader adopts it (reshaped, never
// copied), so a tensor crosses the boundary with one copy. `length` is the number of numbers the
// caller passed: a buffer larger than kMaxTensorElements is not allocated (data stays empty) and
// its reader reports the mismatch against the shape. A buffer can be adopted once.
struct InputBuffer {
  Tensor data;
  std::size_t length = 0;
  bool adopted = false;
};
using InputBuffers = std::vector<InputBuffer>;
// A trace's tensors handed out of band: moved out of the trace (no copy), read by the caller.
using OutputBuffers = std::vector<Tensor>;

// Size limits for untrusted input.
constexpr std::size_t kMaxTensorElements = std::size_t{1} << 24;  // 16M numbers, 128 MB
constexpr std::size_t kMaxDimension = std::size_t{1} << 16;

std::string json_type_name(const json& j);

class Fields {
 public:
  Fields(const json& object, std::string path, InputBuffers* buffers = nullptr);

  bool has(const std::string& key) const;
  const json& raw(const std::string& key);  // marks the key used; throws if absent
  std::string path_of(const std::string& key) const;
  const std::string& path() const { return path_; }

  double number(const std::string& key, double fallback);
  std::optional<double> optional_number(const std::string& key);
  std::int64_t integer(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max);
  std::int64_t required_integer(const std::string& key, std::int64_t min, std::int64_t max);
  bool boolean(const std::string& key, bool fallback);
  std::string choice(const std::string& key, const std::vector<std::string>& options,
                     const std::string& fallback);
  Fields object(const std::string& key);

  Tensor tensor(const std::string& key, const std::vector<Dim>& dims);
  std::optional<Tensor> optional_tensor(const std::string& key, const std::vector<Dim>& dims);
  // The shape alone (read_shape).
  Shape shape(const std::string& key, const std::vector<Dim>& dims, bool shape_alone);
  IndexTensor index_tensor(const std::string& key, const std::vector<Dim>& dims,
                           std::int64_t min, std::int64_t max);
  BoolTensor bool_tensor(const std::string& key, const std::vector<Dim>& dims);

  // Keys present but never read, as warnings ("unknown field 'foo' ignored").
  void warn_unused(std::vector<std::string>& warnings) const;
  // Marks keys as read without reading them (fields that belong to another reader).
  void ignore(const std::vector<std::string>& keys);

 private:
  const json& object_;
  std::string path_;
  InputBuffers* buffers_;
  std::set<std::string> used_;
};

// Reads any JSON value as a tensor of the expected dims (nested arrays, {shape, data} or a
// buffer reference, adopted from `buffers`). `path` names it in errors.
Tensor read_tensor(const json& value, const std::string& path, const std::vector<Dim>& dims,
                   InputBuffers* buffers);

// The shape of a tensor as read_tensor would read it, without its numbers: of nested arrays (the
// first entry of each level), {shape, data}, a buffer reference or, with shape_alone, {"shape"}.
Shape read_shape(const json& value, const std::string& path, const std::vector<Dim>& dims, bool shape_alone);

}  // namespace attnplay
