// The core's 128-bit SIMD and its exp: GCC/Clang vector extensions (SSE2 natively, SIMD128 in wasm
// with -msimd128; wasm_simd128.h's pmax/pmin), for the fused attention kernel (attention_kernel.cpp),
// and the polynomial exp that the kernel and portable_math.hpp share. Every operation here is the
// same IEEE arithmetic in both builds, so native and wasm agree to the last bit.
//
//   Vec<T>: W lanes of T (float64: W = 2, float32: W = 4), IVec<T> the integers of the same width
//   load / store / splat / select, hsum (lanes added as (v0 + v1) + (v2 + v3)), hmax / hmin,
//   vmax / vmin (lane-wise), vexp / vexp_n (e^x lane by lane), kernel_exp (one number)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

// The helpers and the register-blocked loops are always inlined: emcc turns any -Os on the command
// line into -fno-inline-functions, which a later -O3 does not undo (emscripten 3.1.6), and left
// out of line, a load or an exp costs a call per vector.
#define ATTNPLAY_INLINE inline __attribute__((always_inline))

namespace attnplay {
namespace simd {

template <class T>
struct Simd;
template <>
struct Simd<double> {
  typedef double V __attribute__((vector_size(16)));
  typedef std::int64_t I __attribute__((vector_size(16)));
  static constexpr std::size_t W = 2;
};
template <>
struct Simd<float> {
  typedef float V __attribute__((vector_size(16)));
  typedef std::int32_t I __attribute__((vector_size(16)));
  static constexpr std::size_t W = 4;
};
template <class T>
using Vec = typename Simd<T>::V;
template <class T>
using IVec = typename Simd<T>::I;

template <class T>
ATTNPLAY_INLINE Vec<T> load(const T* p) {
  Vec<T> x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
template <class T>
ATTNPLAY_INLINE void store(T* p, Vec<T> x) {
  std::memcpy(p, &x, sizeof x);
}
template <class T>
ATTNPLAY_INLINE Vec<T> splat(T x) {  // (a lane-by-lane loop became 4 inserts with g++)
  if constexpr (Simd<T>::W == 2) return Vec<T>{x, x};
  else return Vec<T>{x, x, x, x};
}
template <class T>
ATTNPLAY_INLINE Vec<T> select(IVec<T> m, Vec<T> a, Vec<T> b) {
  return (Vec<T>)(((IVec<T>)a & m) | ((IVec<T>)b & ~m));
}
template <class T>
ATTNPLAY_INLINE T hsum(Vec<T> v) {
  if constexpr (Simd<T>::W == 2) return v[0] + v[1];
  else return (v[0] + v[1]) + (v[2] + v[3]);
}
template <class T>
ATTNPLAY_INLINE T hmax(Vec<T> v) {
  T m = v[0];
  for (std::size_t l = 1; l < Simd<T>::W; ++l) m = v[l] > m ? v[l] : m;
  return m;
}
template <class T>
ATTNPLAY_INLINE T hmin(Vec<T> v) {
  T m = v[0];
  for (std::size_t l = 1; l < Simd<T>::W; ++l) m = v[l] < m ? v[l] : m;
  return m;
}

// Lane-wise max and min (exact: the same numbers whichever way); a NaN in b is dropped (the update
// finds NaNs through the sum instead). In wasm one instruction each (pmax/pmin), natively a select.
template <class T, bool is_max>
ATTNPLAY_INLINE Vec<T> vextreme(Vec<T> a, Vec<T> b) {
#ifdef __wasm_simd128__
  const v128_t x = (v128_t)a, y = (v128_t)b;
  if constexpr (Simd<T>::W == 4) return (Vec<T>)(is_max ? wasm_f32x4_pmax(x, y) : wasm_f32x4_pmin(x, y));
  else return (Vec<T>)(is_max ? wasm_f64x2_pmax(x, y) : wasm_f64x2_pmin(x, y));
#else
  return select<T>((IVec<T>)(is_max ? a < b : b < a), b, a);
#endif
}
template <class T>
ATTNPLAY_INLINE Vec<T> vmax(Vec<T> a, Vec<T> b) { return vextreme<T, true>(a, b); }
template <class T>
ATTNPLAY_INLINE Vec<T> vmin(Vec<T> a, Vec<T> b) { return vextreme<T, false>(a, b); }

// exp(x): x = n ln2 + r (Cody-Waite), |r| <= ln2/2, a polynomial of r, times 2^n built in the
// exponent bits. float64: n read from the mantissa of x log2e + 1.5 2^52, Taylor to r^13,
// relative error below 1e-15; below the smallest normal's log (-inf included) 0. float32
// (XNNPACK's rr2_p5 scheme): n read from the low bits of x log2e + (1.5 2^23 + 127), which are
// then the exponent of 2^n, e^x = 2^n (1 + r p(r)) with a degree-5 minimax p, about 1 ulp; below
// the smallest normal's log the lanes are garbage until one and-not zeroes them.
//
// The constants live in memory (kExpConstants, not constexpr) and are read into an ExpConstants
// once per loop: V8 does not hoist SIMD constants out of loops and would rebuild each one wherever
// it is used (docs/performance.md).
// With clamp_hi = false the caller promises x <= 0 (the update's s - m): same bits, one op less.
template <class T>
struct ExpConstants;
template <>
struct ExpConstants<double> {
  static constexpr int N = 19;
  Vec<double> c[N];
};
template <>
struct ExpConstants<float> {
  static constexpr int N = 11;
  Vec<float> c[N];
};

// Not constexpr and not internal, so that the compiler cannot fold them back into the loops
// (defined in simd.cpp).
extern const double kExpConstants64[ExpConstants<double>::N];
extern const float kExpConstants32[ExpConstants<float>::N];

template <class T>
ATTNPLAY_INLINE ExpConstants<T> exp_constants() {
  const volatile T* src;
  if constexpr (std::is_same_v<T, double>) src = kExpConstants64;
  else src = kExpConstants32;
  ExpConstants<T> k;
  for (int i = 0; i < ExpConstants<T>::N; ++i) k.c[i] = splat<T>(src[i]);
  return k;
}

template <bool clamp_hi = true>
ATTNPLAY_INLINE Vec<double> vexp(Vec<double> x, const ExpConstants<double>& k) {
  using V = Vec<double>;
  using I = IVec<double>;
  const I under = (I)(x < k.c[0]);
  x = vmax<double>(x, k.c[0]);  // x < lo ? lo : x
  if constexpr (clamp_hi) x = vmin<double>(x, k.c[1]);
  const V shifter = k.c[2];
  const V t = x * k.c[3] + shifter;
  const V n = t - shifter;
  V r = x - n * k.c[4];
  r = r - n * k.c[5];
  V p = k.c[6];
  for (int c = 7; c < 17; ++c) p = p * r + k.c[c];
  p = p * r + k.c[17];
  p = p * r + k.c[18];
  p = p * r + k.c[18];
  const I e = ((I)t << 52) + (I){std::int64_t{1023} << 52, std::int64_t{1023} << 52};
  return (V)((I)(p * (V)e) & ~under);
}

// N independent float64 exps, step by step side by side (the same arithmetic, bit for bit, as vexp
// on each): the degree-13 Horner chain is long enough that one exp at a time leaves the CPU
// waiting on its latency.
template <int N>
ATTNPLAY_INLINE void vexp_n(Vec<double>* x, const ExpConstants<double>& k) {
  using V = Vec<double>;
  using I = IVec<double>;
  I under[N];
  V t[N], n[N], r[N], p[N];
  for (int i = 0; i < N; ++i) {
    under[i] = (I)(x[i] < k.c[0]);
    x[i] = vmax<double>(x[i], k.c[0]);
  }
  for (int i = 0; i < N; ++i) t[i] = x[i] * k.c[3] + k.c[2];
  for (int i = 0; i < N; ++i) n[i] = t[i] - k.c[2];
  for (int i = 0; i < N; ++i) r[i] = x[i] - n[i] * k.c[4];
  for (int i = 0; i < N; ++i) r[i] = r[i] - n[i] * k.c[5];
  for (int i = 0; i < N; ++i) p[i] = k.c[6];
  for (int c = 7; c < 18; ++c)
    for (int i = 0; i < N; ++i) p[i] = p[i] * r[i] + k.c[c];
  for (int i = 0; i < N; ++i) p[i] = p[i] * r[i] + k.c[18];
  for (int i = 0; i < N; ++i) p[i] = p[i] * r[i] + k.c[18];
  for (int i = 0; i < N; ++i) {
    const I e = ((I)t[i] << 52) + (I){std::int64_t{1023} << 52, std::int64_t{1023} << 52};
    x[i] = (V)((I)(p[i] * (V)e) & ~under[i]);
  }
}

template <bool clamp_hi = true>
ATTNPLAY_INLINE Vec<float> vexp(Vec<float> x, const ExpConstants<float>& k) {
  using V = Vec<float>;
  using I = IVec<float>;
  if constexpr (clamp_hi) x = vmin<float>(x, k.c[0]);
  const I under = (I)(x < k.c[1]);
  const V magic = k.c[3];
  V n = x * k.c[2] + magic;
  const V s = (V)((I)n << 23);  // 2^n
  n = n - magic;
  V r = n * k.c[4] + x;  // x - n ln2, ln2 in two parts
  r = n * k.c[5] + r;
  V p = k.c[6] * r + k.c[7];
  p = p * r + k.c[8];
  p = p * r + k.c[9];
  p = p * r + k.c[10];
  const V t = r * s;
  return (V)((I)(t * p + s) & ~under);
}

}  // namespace simd

// e^x as the kernel computes it (vexp on one lane, identical natively and in wasm): float64 with a
// relative error below 1e-15, 0 below -708.39, arguments above 709 clamped; float32 about 1 ulp.
// Out of line (simd.cpp): portable_math.hpp's exp, and the tests.
double kernel_exp(double x);
float kernel_exp(float x);

}  // namespace attnplay
