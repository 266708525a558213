// The one trace type that every algorithm fills: named intermediates in the order a learner
// meets them, the cost against dense attention, and warnings.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tensor.hpp"

namespace attnplay {

struct Cost {
  std::uint64_t dot_products = 0;        // q.k products this algorithm computed
  std::uint64_t dense_dot_products = 0;  // what full attention would compute: B*H*L_Q*L_K
  std::uint64_t flops = 0;               // 2 per multiply-add (scores and weighted sums)
  // the numbers a KV cache holds for these keys and values, B L_K H_kv (E + D) (full, flash,
  // decode; mla: its latent); 0: not reported
  std::uint64_t kv_cache_numbers = 0;
};

using FieldValue = std::variant<Tensor, BoolTensor, IndexTensor, double, std::int64_t>;

// How much an algorithm should record: everything, or only what long sequences can afford.
enum class TraceLevel { full, context };

struct Trace {
  std::string algorithm;  // the registry's name, set by run_scenario alone
  std::string reference;  // SPEC §2 "reference": the library matched, "" for SPEC's formulas (run_scenario)
  std::vector<std::pair<std::string, FieldValue>> fields;
  Cost cost;
  std::vector<std::string> warnings;

  void set(const std::string& name, FieldValue value) {
    for (auto& f : fields)
      if (f.first == name) {
        f.second = std::move(value);
        return;
      }
    fields.emplace_back(name, std::move(value));
  }
  const FieldValue* find(const std::string& name) const {
    for (const auto& f : fields)
      if (f.first == name) return &f.second;
    return nullptr;
  }
  const Tensor& tensor(const std::string& name) const { return std::get<Tensor>(*find(name)); }
};

}  // namespace attnplay
