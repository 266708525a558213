// The numbers of a seeded tensor draw (SPEC §2, docs/semantics.md "Random numbers"), any range of
// them: number i of a draw is made from draws 2i+1 and 2i+2 of Rng(seed, 4) (normal) or draw i+1
// (uniform), and SplitMix64 reaches draw j in O(1) (its state after j draws is state_0 + j gamma),
// so the rows a worker computes are drawn alone, bit for bit the numbers the whole draw has there
// (issue 18: a split run's workers each draw their own query rows). (At -O3 with the hot passes it
// drew no faster in WASM: its cost is the log's and the cosine's divisions, which must stay as they
// are for the same bits.)
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnplay {

struct SeededDraw {
  std::uint64_t seed = 0;
  bool normal = true;  // else uniform on [-scale, scale)
  double scale = 1.0;
};

// out[0 .. n) = numbers first .. first + n - 1 of the draw (row-major).
void fill_seeded(const SeededDraw& d, std::uint64_t first, std::size_t n, double* out);

}  // namespace attnplay
