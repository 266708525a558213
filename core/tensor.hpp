// Tensor types of the core. Everything is float64 and row-major (xtensor's default), with the
// reference layout (B, L, H, E) for q/k/v.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <xtensor/xarray.hpp>

namespace attnplay {

using Tensor = xt::xarray<double>;
using BoolTensor = xt::xarray<bool>;
using IndexTensor = xt::xarray<std::int64_t>;
using Shape = std::vector<std::size_t>;

// A scenario that cannot be computed. `field` is the offending field's path ("k[0][3]",
// "mask.window"; "" when the scenario as a whole is at fault) and `detail` says what is wrong;
// what() is the one line users see: "k[0][3]: expected 2 numbers (E of q), got 3"
// ("scenario: ..." when field is empty).
struct InputError : std::runtime_error {
  InputError(const std::string& field_, const std::string& detail_)
      : std::runtime_error((field_.empty() ? std::string("scenario") : field_) + ": " + detail_),
        field(field_), detail(detail_) {}
  std::string field, detail;
};

// A number that stopped being finite inside the computation although every input was finite
// (|q.k| beyond 1.8e308, a sum of V that overflows, ...). Its field is the input the message
// starts with ("q", "v", "scale"); multihead, which hands its projections to the inner
// attention, renames it to its own inputs. See docs/semantics.md, "Numbers too large".
struct OverflowError : InputError {
  using InputError::InputError;
};

// A number as error messages show it ("%g": 1e+200, 0.5).
inline std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// Dimensions of an attention call in the reference layout.
struct AttentionDims {
  std::size_t B, L_Q, L_K, H, E, D;
};

inline AttentionDims attention_dims(const Tensor& q, const Tensor& v) {
  return {q.shape()[0], q.shape()[1], v.shape()[1], q.shape()[2], q.shape()[3], v.shape()[3]};
}

// Dot product of two contiguous vectors of length n (float64, or float32 in the attention
// kernel), with four running sums: independent chains overlap where one sum waits on each
// addition, and vectorise without reassociation. The one dot of the core (dot_rows below is its
// arithmetic for several rows at once): the order of its sums is
// what makes native and WASM agree to the last bit. (Rounding differs from a single running sum
// in the last bits, far inside 1e-9.)
template <class T>
inline T dot(const T* a, const T* b, std::size_t n) {
  T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t e = 0;
  for (; e + 4 <= n; e += 4) {
    s0 += a[e] * b[e];
    s1 += a[e + 1] * b[e + 1];
    s2 += a[e + 2] * b[e + 2];
    s3 += a[e + 3] * b[e + 3];
  }
  for (; e < n; ++e) s0 += a[e] * b[e];
  return (s0 + s1) + (s2 + s3);
}

// out[r] = dot(a, b[r], n) for N rows b[r] at once: dot()'s arithmetic exactly (above: four
// running sums over e mod 4, the tail into the first, combined as (s0 + s1) + (s2 + s3)), the
// sums two to a 128-bit vector (SSE2 natively, SIMD128 in wasm) and N rows side by side, so that
// the chains of additions overlap instead of one dot waiting on the last. The same bits as dot()
// for every row (tests/catch2/test_prob_attention.cpp); ProbAttention's gathered products (its step
// 3) were bound by the latency of dot()'s sums.
// always_inline, and loads through an unaligned vector type rather than a helper: emcc given -Os
// anywhere compiles every file with -fno-inline-functions, which leaves only always_inline calls
// inlined.
template <std::size_t N>
__attribute__((always_inline)) inline void dot_rows(const double* a, const double* const* b, std::size_t n,
                                                    double* out) {
  typedef double V __attribute__((vector_size(16)));
  typedef double VU __attribute__((vector_size(16), aligned(8), may_alias));  // 8-byte aligned rows
  const auto load = [](const double* p) __attribute__((always_inline)) { return V(*reinterpret_cast<const VU*>(p)); };
  V s01[N], s23[N];
  for (std::size_t r = 0; r < N; ++r) s01[r] = s23[r] = V{0.0, 0.0};
  std::size_t e = 0;
  for (; e + 4 <= n; e += 4) {
    const V a01 = load(a + e), a23 = load(a + e + 2);
    for (std::size_t r = 0; r < N; ++r) {
      s01[r] += a01 * load(b[r] + e);
      s23[r] += a23 * load(b[r] + e + 2);
    }
  }
  for (std::size_t r = 0; r < N; ++r) {
    double s0 = s01[r][0];
    for (std::size_t t = e; t < n; ++t) s0 += a[t] * b[r][t];
    out[r] = (s0 + s01[r][1]) + (s23[r][0] + s23[r][1]);
  }
}

// Grouped-query attention (GQA/MQA): query head h of H reads kv head h / (H / H_kv) of k and v
// with H_kv heads (H_kv divides H). Llama's repeat_kv as an index: repeated k/v never exist.
inline std::size_t kv_head(std::size_t h, std::size_t H, std::size_t H_kv) { return h / (H / H_kv); }

// Pointer to the vector x[b, l, h, :] of a contiguous (B, L, H, E) tensor.
inline const double* row_ptr(const Tensor& x, std::size_t b, std::size_t l, std::size_t h) {
  const auto& s = x.shape();
  return x.data() + ((b * s[1] + l) * s[2] + h) * s[3];
}
inline double* row_ptr(Tensor& x, std::size_t b, std::size_t l, std::size_t h) {
  const auto& s = x.shape();
  return x.data() + ((b * s[1] + l) * s[2] + h) * s[3];
}

}  // namespace attnplay
