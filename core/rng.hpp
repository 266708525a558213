// The one random generator of the product: SplitMix64, with the derivations documented in
// docs/semantics.md. Native and WASM draw the same integers; doubles agree to the last bit
// for uniforms and for normals too (portable_math.hpp's log and cos, not libm's, whose last bits
// differ between glibc and Emscripten: training amplifies such differences).
#pragma once

#include <cmath>
#include <cstdint>

#include "portable_math.hpp"

namespace attnplay {

enum class RngStream : std::uint64_t { samples = 1, weights = 2, data = 3 };

class Rng {
 public:
  Rng(std::uint64_t seed, RngStream stream)
      : state_(seed ^ (static_cast<std::uint64_t>(stream) * 0xD1B54A32D192ED03ULL)) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Unbiased integer in [0, n) by rejection (not std::uniform_int_distribution, whose
  // algorithm differs between libstdc++ and libc++).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    std::uint64_t x;
    do x = next();
    while (x < threshold);
    return x % n;
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  // Standard normal by Box-Muller (the cosine branch only, two uniforms per draw).
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * portable_log(1.0 - u1)) * portable_cos_2pi(u2);
  }

 private:
  std::uint64_t state_;
};

}  // namespace attnplay
