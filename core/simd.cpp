// The exp's constants (read through a volatile pointer by exp_constants, see simd.hpp) and the
// scalar kernel_exp. Below the kernel: attention_kernel.cpp and portable_math.hpp both use it.
#include "simd.hpp"

namespace attnplay {
namespace simd {

const double kExpConstants64[ExpConstants<double>::N] = {
    -708.39, 709.0, 6755399441055744.0 /* 1.5 2^52 */, 1.4426950408889634, 6.93147180369123816490e-01,
    1.90821492927058770002e-10, 1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
    1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0};
const float kExpConstants32[ExpConstants<float>::N] = {
    88.7f, -0x1.5D589Ep6f, 0x1.715476p+0f, 12583039.0f /* 1.5 2^23 + 127 */, -0x1.62E400p-1f, -0x1.7F7D1Cp-20f,
    0x1.0F9F9Cp-7f, 0x1.573A1Ap-5f, 0x1.555A80p-3f, 0x1.FFFDC6p-2f, 0x1.FFFFF6p-1f};

}  // namespace simd

double kernel_exp(double x) { return simd::vexp(simd::splat(x), simd::exp_constants<double>())[0]; }
float kernel_exp(float x) { return simd::vexp(simd::splat(x), simd::exp_constants<float>())[0]; }

}  // namespace attnplay
