// exp, tanh, the logistic sigmoid, log and cos(2 pi u) computed the same way natively and in WASM.
//
// glibc's and Emscripten's libm differ in the last bit of exp, tanh, log, ... Most traces do not
// notice (1e-16), but training amplifies the difference epoch after epoch (about 10x per epoch
// for the Bahdanau seq2seq once its loss is small), and native and WASM must agree to 1e-12
// (SPEC §3). These use the kernel's polynomial exp (simd.hpp: relative error below 1e-15), whose
// arithmetic is the same on both.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "simd.hpp"

namespace attnplay {

// e^x: relative error below 1e-15; 0 below -708.39; arguments above 709 are clamped (callers
// here pass x <= 0 or the logistic's -x).
inline double portable_exp(double x) { return kernel_exp(x); }

// tanh(x) = sign(x) (1 - e^{-2|x|}) / (1 + e^{-2|x|}); near 0 its Taylor series, where the
// quotient would cancel (absolute error below 1e-16 everywhere).
inline double portable_tanh(double x) {
  const double a = std::fabs(x);
  if (a < 1e-4) return x * (1.0 - x * x * (1.0 / 3.0 - x * x * (2.0 / 15.0)));
  if (a > 20.0) return std::copysign(1.0, x);
  const double e = portable_exp(-2.0 * a);
  return std::copysign((1.0 - e) / (1.0 + e), x);
}

// 1 / (1 + e^{-x}), torch.sigmoid.
inline double portable_sigmoid(double x) {
  return x >= 0 ? 1.0 / (1.0 + portable_exp(-x)) : portable_exp(x) / (1.0 + portable_exp(x));
}

// ln x for x > 0 (fdlibm's scheme: x = 2^k m, m in [sqrt(1/2), sqrt(2)), s = (m - 1) / (m + 1),
// ln m = 2 atanh s as its series; only + - * / of IEEE doubles, so the same bits everywhere;
// about 1 ulp). 0 gives -inf; a negative or NaN x gives NaN.
inline double portable_log(double x) {
  if (!(x > 0.0)) return x == 0.0 ? -HUGE_VAL : std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return x;
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int k = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  if (k == -1023) {  // subnormal: scale into the normal range first
    x *= 18014398509481984.0;  // 2^54
    std::memcpy(&bits, &x, sizeof bits);
    k = static_cast<int>((bits >> 52) & 0x7ff) - 1023 - 54;
  }
  bits = (bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;  // m in [1, 2)
  double m;
  std::memcpy(&m, &bits, sizeof m);
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++k;
  }
  const double f = m - 1.0, s = f / (2.0 + f), z = s * s;
  // 2 atanh s = 2 (s + s^3/3 + s^5/5 + ...): |s| < 0.1716, so 14 terms reach 1e-18
  double series = 1.0 / 29.0;
  for (int n = 27; n >= 1; n -= 2) series = series * z + 1.0 / n;
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  return k * ln2_hi + (2.0 * s * series + k * ln2_lo);
}

// cos(2 pi u) for u in [0, 1) (Box-Muller's angle), reduced by quadrant exactly in u, then a
// Taylor polynomial on [0, pi/4]; only + - * of IEEE doubles (about 1 ulp).
inline double portable_cos_2pi(double u) {
  const double t = 4.0 * (u - std::floor(u));  // quadrant units, exact
  const int quadrant = static_cast<int>(t) & 3;
  double r = t - static_cast<int>(t);          // [0, 1): the angle r pi/2 within the quadrant
  // cos(q pi/2 + r pi/2): q = 0: cos, 1: -sin, 2: -cos, 3: sin of r pi/2
  const bool use_sin = quadrant == 1 || quadrant == 3;
  const double sign = (quadrant == 1 || quadrant == 2) ? -1.0 : 1.0;
  // cos(r pi/2) = sin((1 - r) pi/2): keep the argument in [0, pi/4]
  bool sine = use_sin;
  if (r > 0.5) {
    r = 1.0 - r;
    sine = !sine;
  }
  const double x = r * 1.5707963267948966, x2 = x * x;
  // sin x = x - x^3/3! + ... (to x^21), cos x = 1 - x^2/2! + ... (to x^20), term by term
  double term = sine ? x : 1.0, sum = term;
  for (int n = sine ? 3 : 2; n <= 21; n += 2) {
    term *= -x2 / (n * (n - 1));
    sum += term;
  }
  return sign * sum;
}

}  // namespace attnplay
