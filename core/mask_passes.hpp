// A sparse mask as the fused kernel's tiles take it (attention_kernel.cpp, Job::tiles): the allowed
// pairs in at most two passes. Pass p has a step g = mask_pass_step(mask, p); the queries i of one
// class r = i mod g meet the keys of the same class, j = r + g c (c = 0, 1, ...), and query i's
// allowed keys in the pass are the c in [lo, hi) outside the hole [hole_lo, hole_hi) (KeySpan).
// Read off allowed_ranges (mask.cpp), the one statement of each rule; the passes are disjoint and
// together are allowed_keys (tests/catch2/test_sparse_tiles.cpp):
//   causal, local, valid_lens, sink   one pass, g = 1 (sink: the hole between the sinks and the window)
//   atrous                            one pass, g = dilation (a dense problem per class)
//   strided                           the window (g = 1), then the stride's class outside it
//                                     (g = stride, the window as the hole)
//   explicit, none, a finite fill     no pass (explicit goes row by row; the others are dense)
#pragma once

#include <algorithm>
#include <cstddef>

#include "mask.hpp"

namespace attnplay {

struct KeySpan {
  std::size_t lo = 0, hi = 0, hole_lo = 0, hole_hi = 0;
  std::size_t count() const {  // the allowed keys
    const std::size_t a = std::max(lo, hole_lo), z = std::min(hi, hole_hi);
    return hi > lo ? hi - lo - (z > a ? z - a : 0) : 0;
  }
};

std::size_t mask_passes(const Mask& mask);
std::size_t mask_pass_step(const Mask& mask, std::size_t pass);
// Query i's keys in pass p, in its class's numbering c (hi <= the class's keys below L_K).
KeySpan mask_pass_keys(const Mask& mask, std::size_t pass, std::size_t b, std::size_t i, std::size_t L_K);

}  // namespace attnplay
