#include "adapters.hpp"

namespace attnplay {

const std::vector<AlgorithmEntry>& algorithms() {
  static const std::vector<AlgorithmEntry> table{
      {"full", run_full},
  };
  return table;
}

}  // namespace attnplay
