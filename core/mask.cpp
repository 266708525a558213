#include "mask.hpp"

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
  }
  return "none";
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

bool masked_softmax_row(const double* scores, const Mask& mask, std::size_t b, std::size_t i,
                        std::size_t n, double* out) {
  const bool unmasked = mask.is_none();
  double max = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    out[j] = (unmasked || mask.allows(b, i, j)) ? scores[j] : mask.fill;
    max = std::max(max, out[j]);
  }
  if (std::isinf(max) && max < 0) {  // every key masked with -inf
    std::fill(out, out + n, 0.0);
    return false;
  }
  double sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    out[j] = std::exp(out[j] - max);
    sum += out[j];
  }
  for (std::size_t j = 0; j < n; ++j) out[j] /= sum;
  return true;
}

}  // namespace attnplay
