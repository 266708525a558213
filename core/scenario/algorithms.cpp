#include "adapters.hpp"

namespace attnplay {

const std::vector<AlgorithmEntry>& algorithms() {
  static const std::vector<AlgorithmEntry> table{
      {"full", run_full},
      {"additive", run_additive},
      {"nadaraya_watson", run_nadaraya_watson},
      {"positional_encoding", run_positional_encoding},
      {"prob", run_prob},
      {"multihead", run_multihead},
  };
  return table;
}

}  // namespace attnplay
