// seeded_draw.hpp: the draw's loop, from any number of the draw on.
#include "seeded_draw.hpp"

#include "rng.hpp"

namespace attnplay {

namespace {

// Rng(seed, 4) after n draws, in O(1): SplitMix64's state after n draws is its start state plus n
// times its increment (mod 2^64), and the start state is seed XOR the stream's mix (rng.hpp,
// docs/semantics.md), so it is the generator of another seed. (Here, not a method of Rng: rng.hpp
// is included by most of the core.)
Rng skipped(std::uint64_t seed, std::uint64_t n) {
  const std::uint64_t mix = 4 * 0xD1B54A32D192ED03ULL;  // stream 4's, as Rng's constructor mixes it
  return Rng(((seed ^ mix) + n * 0x9E3779B97F4A7C15ULL) ^ mix, static_cast<RngStream>(4));
}

}  // namespace

void fill_seeded(const SeededDraw& d, std::uint64_t first, std::size_t n, double* out) {
  // the draws' own stream (4, after samples, weights and data); two uniforms per normal (Box-Muller)
  Rng rng = skipped(d.seed, d.normal ? 2 * first : first);
  if (d.normal) {
    for (std::size_t i = 0; i < n; ++i) out[i] = d.scale * rng.normal();
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = rng.uniform(-d.scale, d.scale);
  }
}

}  // namespace attnplay
