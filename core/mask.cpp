#include "mask.hpp"
#include "mask_passes.hpp"

#include <algorithm>

namespace attnplay {

const char* mask_kind_name(MaskKind kind) {
  switch (kind) {
    case MaskKind::none: return "none";
    case MaskKind::causal: return "causal";
    case MaskKind::valid_lens: return "valid_lens";
    case MaskKind::local: return "local";
    case MaskKind::atrous: return "atrous";
    case MaskKind::strided: return "strided";
    case MaskKind::explicit_allowed: return "explicit";
    case MaskKind::sink: return "sink";
  }
  return "none";
}

namespace {

// The allowed keys of query i as ascending ranges: add(from, to, step) for j = from, from + step, ... < to.
template <class Add>
void allowed_ranges(const Mask& mask, std::size_t b, std::size_t i, std::size_t L_K, Add&& add_range) {
  // the causal flag (or kind) caps the keys at the query's position (i, or i + shift aligned bottom right)
  const std::int64_t pos = static_cast<std::int64_t>(i) + mask.shift;
  const auto clamp_k = [L_K](std::int64_t x) { return static_cast<std::size_t>(std::clamp<std::int64_t>(x, 0, static_cast<std::int64_t>(L_K))); };
  const std::size_t end = mask.requires_causal() ? clamp_k(pos + 1) : L_K;
  const std::size_t local_from = clamp_k(pos - mask.window), local_to = std::min(end, clamp_k(pos + mask.window + 1));
  switch (mask.kind) {
    case MaskKind::none:
    case MaskKind::causal: add_range(0, end, 1); return;
    case MaskKind::valid_lens: {
      const auto len = mask.valid_lens.dimension() == 1 ? mask.valid_lens(b) : mask.valid_lens(b, i);
      add_range(0, std::min(end, static_cast<std::size_t>(std::max<std::int64_t>(len, 0))), 1);
      return;
    }
    case MaskKind::local: add_range(local_from, local_to, 1); return;
    case MaskKind::atrous: {  // j = i mod k, i mod k + k, ...
      const auto k = static_cast<std::size_t>(mask.dilation);
      add_range(i % k, end, k);
      return;
    }
    case MaskKind::strided: {  // the atrous keys before the window, the window, the atrous keys after it
      const auto s = static_cast<std::size_t>(mask.stride);
      add_range(i % s, std::min(local_from, end), s);
      add_range(local_from, local_to, 1);
      const std::size_t j = local_to > i ? i + ((local_to - i + s - 1) / s) * s : end;  // the first i + m s >= local_to
      add_range(j, end, s);
      return;
    }
    case MaskKind::sink: {  // the sinks [0, s), then the window [i + 1 - w, i] past them
      const std::size_t sink_to = std::min(end, static_cast<std::size_t>(mask.sinks));
      const std::size_t w = static_cast<std::size_t>(mask.window);
      add_range(0, sink_to, 1);
      add_range(std::max(sink_to, i + 1 > w ? i + 1 - w : std::size_t{0}), end, 1);
      return;
    }
    case MaskKind::explicit_allowed:
      for (std::size_t j = 0; j < end; ++j)
        if (mask.allowed(i, j)) add_range(j, j + 1, 1);
      return;
  }
}

}  // namespace

void allowed_keys(const Mask& mask, std::size_t b, std::size_t i, std::size_t L_K,
                  std::vector<std::uint32_t>& keys) {
  keys.clear();
  allowed_ranges(mask, b, i, L_K, [&keys](std::size_t from, std::size_t to, std::size_t step) {
    for (std::size_t j = from; j < to; j += step) keys.push_back(static_cast<std::uint32_t>(j));
  });
}

std::size_t mask_passes(const Mask& mask) {
  if (!mask.is_sparse() || mask.kind == MaskKind::explicit_allowed) return 0;
  return mask.kind == MaskKind::strided ? 2 : 1;
}

std::size_t mask_pass_step(const Mask& mask, std::size_t pass) {
  if (mask.kind == MaskKind::atrous) return static_cast<std::size_t>(mask.dilation);
  if (mask.kind == MaskKind::strided && pass == 1) return static_cast<std::size_t>(mask.stride);
  return 1;
}

KeySpan mask_pass_keys(const Mask& mask, std::size_t pass, std::size_t b, std::size_t i, std::size_t L_K) {
  // allowed_ranges' calls in order: strided's second one (the window) is pass 0, its first and third
  // (the class before and after the window) pass 1; every other kind's calls are its one pass.
  // Each range's keys j = from, from + step, ... < to are of i's class (from = r + g c), so in the
  // class's numbering they are c in [(from - r) / g, ceil((to - r) / g)); a pass has at most two
  // ranges, ascending: the span from the first to the last, the gap between them the hole.
  const std::size_t g = mask_pass_step(mask, pass), r = i % g;
  KeySpan span;
  std::size_t call = 0, ranges = 0;
  allowed_ranges(mask, b, i, L_K, [&](std::size_t from, std::size_t to, std::size_t) {
    const std::size_t p = mask.kind == MaskKind::strided ? (call == 1 ? 0 : 1) : 0;
    ++call;
    if (p != pass || to <= from) return;
    const std::size_t lo = (from - r) / g, hi = (to - r + g - 1) / g;
    if (ranges++ == 0) {
      span.lo = lo;
      span.hi = hi;
    } else {  // (the second range starts after the first one ends)
      span.hole_lo = span.hi;
      span.hole_hi = lo;
      span.hi = hi;
    }
  });
  return span;
}

std::uint64_t attended_pairs(const Mask& mask, std::size_t B, std::size_t H, std::size_t L_Q, std::size_t L_K) {
  if (!mask.is_sparse()) return std::uint64_t{B} * H * L_Q * L_K;
  std::uint64_t pairs = 0;
  const auto count = [&pairs](std::size_t from, std::size_t to, std::size_t step) {
    if (to > from) pairs += (to - from + step - 1) / step;
  };
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L_Q; ++i) allowed_ranges(mask, b, i, L_K, count);
  return pairs * H;
}

BoolTensor allowed_tensor(const Mask& mask, std::size_t B, std::size_t H, std::size_t L_Q,
                          std::size_t L_K) {
  BoolTensor out = BoolTensor::from_shape({B, H, L_Q, L_K});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i)
        for (std::size_t j = 0; j < L_K; ++j) out(b, h, i, j) = mask.allows(b, i, j);
  return out;
}

}  // namespace attnplay
