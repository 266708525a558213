// The fused attention kernel (see attention_kernel.hpp for the recurrences, numbered 1-6 below).
//
// Two ways through, the same online-softmax update (update_tile / update_row: the same arithmetic):
//   dense  (no mask, or a finite fill): per (b, h), key blocks outer (128 keys), query tiles inner
//          (32 rows). The key block is packed transposed (E x block_k) and the tile's queries k-major
//          4 rows at a time (float: all of (b, h)'s queries once, converted as they are packed), so
//          that a tile of scores is a small matrix product in registers (4 rows x 2 vectors, the
//          inner loop over contiguous keys); then the tile's rows are updated (2-4) and the tile's
//          weights, packed the same way, times the block of V are added to the rows' O (5).
//   sparse (a mask with fill -inf): per query, only its allowed keys (allowed_keys), taken in the
//          same key blocks, so the cost is the allowed pairs.
// Every sum runs in one fixed order in both builds (scores over e, O over j; the running sum over
// W lanes combined as ((l0 + l1) + (l2 + l3))), so native and wasm agree to the last bit but exp.
// Where the time goes (float32, L = 2048, V8): about three quarters in the two products, which run
// at the machine's rate for separate SIMD multiplies and adds (no FMA in wasm SIMD128), a fifth in
// the exps.
#include "attention_kernel.hpp"

#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

// The helpers and the register-blocked loops are always inlined: emcc turns any -Os on the command
// line into -fno-inline-functions, which a later -O3 does not undo (emscripten 3.1.6), and left
// out of line, a load or an exp costs a call per vector.
#define ATTNPLAY_INLINE inline __attribute__((always_inline))

namespace attnplay {
namespace {

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
template <class T>
ATTNPLAY_INLINE Vec<T> vmax(Vec<T> a, Vec<T> b) {
#ifdef __wasm_simd128__
  if constexpr (Simd<T>::W == 4) return (Vec<T>)wasm_f32x4_pmax((v128_t)a, (v128_t)b);
  else return (Vec<T>)wasm_f64x2_pmax((v128_t)a, (v128_t)b);
#else
  return select<T>((IVec<T>)(a < b), b, a);
#endif
}
template <class T>
ATTNPLAY_INLINE Vec<T> vmin(Vec<T> a, Vec<T> b) {
#ifdef __wasm_simd128__
  if constexpr (Simd<T>::W == 4) return (Vec<T>)wasm_f32x4_pmin((v128_t)a, (v128_t)b);
  else return (Vec<T>)wasm_f64x2_pmin((v128_t)a, (v128_t)b);
#else
  return select<T>((IVec<T>)(b < a), b, a);
#endif
}

// exp(x): x = n ln2 + r (Cody-Waite), |r| <= ln2/2, a polynomial of r, times 2^n built in the
// exponent bits. float64: n read from the mantissa of x log2e + 1.5 2^52, Taylor to r^13,
// relative error below 1e-15; below the smallest normal's log (-inf included) 0. float32
// (XNNPACK's rr2_p5 scheme): n read from the low bits of x log2e + (1.5 2^23 + 127), which are
// then the exponent of 2^n, e^x = 2^n (1 + r p(r)) with a degree-5 minimax p, about 1 ulp; below
// the smallest normal's log the lanes are garbage until one and-not zeroes them.
//
// The constants live in memory (kExpConstants, not constexpr) and are read into an ExpConstants
// once per loop: V8 does not hoist SIMD constants out of loops and builds each one with three
// instructions wherever it is used (11-16 of them per exp), which cost as much as the exp.
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

}  // namespace

// Not constexpr and not internal, so that the compiler cannot fold them back into the loops.
extern const double kExpConstants64[ExpConstants<double>::N];
extern const float kExpConstants32[ExpConstants<float>::N];
const double kExpConstants64[ExpConstants<double>::N] = {
    -708.39, 709.0, 6755399441055744.0 /* 1.5 2^52 */, 1.4426950408889634, 6.93147180369123816490e-01,
    1.90821492927058770002e-10, 1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
    1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0};
const float kExpConstants32[ExpConstants<float>::N] = {
    88.7f, -0x1.5D589Ep6f, 0x1.715476p+0f, 12583039.0f /* 1.5 2^23 + 127 */, -0x1.62E400p-1f, -0x1.7F7D1Cp-20f,
    0x1.0F9F9Cp-7f, 0x1.573A1Ap-5f, 0x1.555A80p-3f, 0x1.FFFDC6p-2f, 0x1.FFFFF6p-1f};

namespace {

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
// waiting on its latency (2.5x the time per exp in V8).
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

// C[r][j] (+)= sum_k A[r][k] B[k][j] for r < MR, j < N, each sum in order over k, with A packed
// k-major (A[k * MR + r]: one pointer and constant offsets in the inner loop). Registers: MR rows
// x NV vectors of C; narrower column tails are the same arithmetic with fewer vectors, then one
// number at a time. Without accumulate, C = scale * (A B) (each sum times scale once).
template <class T, int MR, int NV>
ATTNPLAY_INLINE std::size_t gemm_cols(const T* A, const T* B, std::size_t ldb, T* C, std::size_t ldc,
                             std::size_t K, std::size_t j, std::size_t N, bool accumulate, T scale) {
  using V = Vec<T>;
  constexpr std::size_t W = Simd<T>::W;
  for (; j + NV * W <= N; j += NV * W) {
    V c[MR][NV];
    for (int r = 0; r < MR; ++r)
      for (int x = 0; x < NV; ++x) c[r][x] = accumulate ? load(C + r * ldc + j + x * W) : V{};
    const T* b = B + j;
    const T* a = A;  // packed: a[kk * MR + r] = A[r][kk] (one pointer, constant offsets)
    for (std::size_t kk = 0; kk < K; ++kk, b += ldb, a += MR) {
      V bv[NV];
      for (int x = 0; x < NV; ++x) bv[x] = load(b + x * W);
      for (int r = 0; r < MR; ++r) {
        const V av = splat(a[r]);
        for (int x = 0; x < NV; ++x) c[r][x] += av * bv[x];
      }
    }
    const V sv = splat(scale);
    for (int r = 0; r < MR; ++r)
      for (int x = 0; x < NV; ++x) store(C + r * ldc + j + x * W, accumulate ? c[r][x] : c[r][x] * sv);
  }
  return j;
}

#ifndef ATTNPLAY_GEMM_MR
#define ATTNPLAY_GEMM_MR 4
#endif
#ifndef ATTNPLAY_GEMM_NV
#define ATTNPLAY_GEMM_NV 2
#endif

// packed[kk * MR + r] = A[r * lda + kk] for kk < K, r < MR; four rows a vector at a time (a 4 x W
// block transposed with shuffles: a quarter of the scalar copies' instructions).
template <class T, int MR>
ATTNPLAY_INLINE void pack_rows(const T* A, std::size_t lda, std::size_t K, T* packed) {
  using V = Vec<T>;
  constexpr std::size_t W = Simd<T>::W;
  std::size_t kk = 0;
  if constexpr (MR == 4) {
    for (; kk + W <= K; kk += W) {
      const V a0 = load(A + kk), a1 = load(A + lda + kk), a2 = load(A + 2 * lda + kk), a3 = load(A + 3 * lda + kk);
      T* p = packed + kk * 4;
      if constexpr (W == 4) {
        const V t0 = __builtin_shufflevector(a0, a1, 0, 4, 1, 5), t1 = __builtin_shufflevector(a2, a3, 0, 4, 1, 5);
        const V t2 = __builtin_shufflevector(a0, a1, 2, 6, 3, 7), t3 = __builtin_shufflevector(a2, a3, 2, 6, 3, 7);
        store(p, __builtin_shufflevector(t0, t1, 0, 1, 4, 5));
        store(p + 4, __builtin_shufflevector(t0, t1, 2, 3, 6, 7));
        store(p + 8, __builtin_shufflevector(t2, t3, 0, 1, 4, 5));
        store(p + 12, __builtin_shufflevector(t2, t3, 2, 3, 6, 7));
      } else {
        store(p, __builtin_shufflevector(a0, a1, 0, 2));
        store(p + 2, __builtin_shufflevector(a2, a3, 0, 2));
        store(p + 4, __builtin_shufflevector(a0, a1, 1, 3));
        store(p + 6, __builtin_shufflevector(a2, a3, 1, 3));
      }
    }
  }
  for (; kk < K; ++kk)
    for (int r = 0; r < MR; ++r) packed[kk * MR + r] = A[r * lda + kk];
}

// MR rows of C from MR rows of A, packed here (or already: prepacked, packed = the rows' block).
template <class T, int MR>
ATTNPLAY_INLINE void gemm_rows(const T* A, std::size_t lda, const T* B, std::size_t ldb, T* C, std::size_t ldc,
                               std::size_t K, std::size_t N, bool accumulate, T scale, T* packed, bool prepacked) {
  if (!prepacked) pack_rows<T, MR>(A, lda, K, packed);
  std::size_t j = gemm_cols<T, MR, ATTNPLAY_GEMM_NV>(packed, B, ldb, C, ldc, K, 0, N, accumulate, scale);
  j = gemm_cols<T, MR, 1>(packed, B, ldb, C, ldc, K, j, N, accumulate, scale);
  for (; j < N; ++j)
    for (int r = 0; r < MR; ++r) {
      T c = accumulate ? C[r * ldc + j] : T(0);
      for (std::size_t kk = 0; kk < K; ++kk) c += packed[kk * MR + r] * B[kk * ldb + j];
      C[r * ldc + j] = accumulate ? c : c * scale;
    }
}

constexpr int kMR = ATTNPLAY_GEMM_MR;

// C (M x N) (+)= A (M x K) B (K x N), row-major with leading dimensions; without accumulate
// C = scale (A B). A is packed kMR rows at a time, or comes prepacked (A = nullptr, Ap: the block
// of rows r at Ap + r K, see pack_queries).
template <class T>
void gemm(const T* A, std::size_t lda, const T* B, std::size_t ldb, T* C, std::size_t ldc, std::size_t M,
          std::size_t K, std::size_t N, bool accumulate, T scale = T(1), const T* Ap = nullptr) {
  constexpr int MR = kMR;
  thread_local std::vector<T> packed_;
  if (!Ap && packed_.size() < K * MR) packed_.resize(K * MR);
  T* const packed = packed_.data();
  const bool pre = Ap != nullptr;
  std::size_t r = 0;
  for (; r + MR <= M; r += MR)
    gemm_rows<T, MR>(A + (pre ? 0 : r * lda), lda, B, ldb, C + r * ldc, ldc, K, N, accumulate, scale,
                     pre ? const_cast<T*>(Ap + r * K) : packed, pre);
  for (; r < M; ++r)
    gemm_rows<T, 1>(A + (pre ? 0 : r * lda), lda, B, ldb, C + r * ldc, ldc, K, N, accumulate, scale,
                    pre ? const_cast<T*>(Ap + r * K) : packed, pre);
}

// Rows [0, L) of x (row i at x + i ldx, E numbers), converted to T and packed for gemm: each group
// of kMR rows k-major (Ap[i0 E + e kMR + r] = x[i0 + r][e]), the rows after the last group as they are.
template <class T>
void pack_queries(const double* x, std::size_t ldx, std::size_t L, std::size_t E, T* Ap) {
  std::size_t i0 = 0;
  for (; i0 + kMR <= L; i0 += kMR)
    for (int r = 0; r < kMR; ++r) {
      const double* xr = x + (i0 + r) * ldx;
      T* a = Ap + i0 * E + r;
      for (std::size_t e = 0; e < E; ++e) a[e * kMR] = static_cast<T>(xr[e]);
    }
  for (; i0 < L; ++i0)
    for (std::size_t e = 0; e < E; ++e) Ap[i0 * E + e] = static_cast<T>(x[i0 * ldx + e]);
}

// The first c < n whose score is not finite, or n.
template <class T>
std::size_t first_not_finite(const T* s, std::size_t n) {
  using V = Vec<T>;
  constexpr std::size_t W = Simd<T>::W;
  V chk{};
  std::size_t c = 0;
  for (; c + W <= n; c += W) {
    const V x = load(s + c);
    chk += x - x;  // NaN for inf and NaN
  }
  T ck = hsum<T>(chk);
  for (; c < n; ++c) ck += s[c] - s[c];
  if (ck == 0) return n;
  for (c = 0; c < n; ++c)
    if (!(s[c] - s[c] == 0)) return c;
  return n;
}

// 2-4 for one row: s[0..n) the scaled scores (room for n rounded up to W), m and l the running
// max and sum, O[0..D) the unnormalised context. s becomes exp(s - m_t); O is rescaled by a_t.
// Returns n, or the first c whose score is not finite, changing none of m, l, O (s is then
// scratch; check = false: scores known finite but for -inf, which then means "masked").
// Infinities show in the block's max and min, a NaN (which max and min may drop) in the sum of
// the exps: exp of a finite s - m_t is finite, so NaN there means a NaN score, at the same index.
template <class T, bool check = true>
std::size_t update_row(T* s, std::size_t n, T& m, T& l, T* O, std::size_t D, const ExpConstants<T>& k) {
  using V = Vec<T>;
  constexpr std::size_t W = Simd<T>::W;
  constexpr T inf = std::numeric_limits<T>::infinity(), neg_inf = -inf;
  V hi = splat(neg_inf), lo = splat(inf);
  std::size_t c = 0;
  for (; c + W <= n; c += W) {
    const V x = load(s + c);
    hi = vmax<T>(hi, x);
    lo = vmin<T>(lo, x);
  }
  T bm = hmax<T>(hi), bl = hmin<T>(lo);
  for (; c < n; ++c) {
    bm = s[c] > bm ? s[c] : bm;
    bl = s[c] < bl ? s[c] : bl;
  }
  if (check && !(bm < inf && bl > neg_inf)) return first_not_finite(s, n);
  const T m_new = bm > m ? bm : m;                                  // 2.
  const T alpha = m == neg_inf ? T(0) : vexp<false>(splat(m - m_new), k)[0];  // 3.
  const std::size_t npad = (n + W - 1) / W * W;
  for (c = n; c < npad; ++c) s[c] = neg_inf;
  const V mv = splat(m_new);
  V sum{};
  for (c = 0; c < npad; c += W) {
    const V p = vexp<false>(load(s + c) - mv, k);
    store(s + c, p);
    sum += p;
  }
  const T bs = hsum<T>(sum);
  if (check && !(bs - bs == T(0))) return first_not_finite(s, n);
  l = l * alpha + bs;  // 4.
  m = m_new;
  if (alpha != T(1))
    for (std::size_t d = 0; d < D; ++d) O[d] *= alpha;  // 5. (the rescaling part)
  return n;
}

// The kernel's own tile: kBlockQ queries x kBlockK keys (a multiple of every vector width).
#ifndef ATTNPLAY_BQ
#define ATTNPLAY_BQ 32
#endif
#ifndef ATTNPLAY_BK
#define ATTNPLAY_BK 128
#endif
constexpr std::size_t kBlockQ = ATTNPLAY_BQ, kBlockK = ATTNPLAY_BK;
static_assert(kBlockK % 4 == 0, "kBlockK: a multiple of the vector widths");

// 2-4 for the R rows of a tile of scores (row r at S + r lds, n scores, room for n rounded up to
// W), row by row the same arithmetic as update_row, with the per-row costs shared: the exp's
// constants read once, the R rescalings a_t computed W rows at a time. scratch: 2 R + 2 W numbers.
// Returns R, or the first row r with a score that is not finite (its column in bad; rows before it
// may have been updated: the caller throws).
template <class T>
std::size_t update_tile(T* S, std::size_t lds, std::size_t R, std::size_t n, T* m, T* l, T* O, std::size_t ldo,
                        std::size_t D, T* scratch, std::size_t& bad) {
  using V = Vec<T>;
  constexpr std::size_t W = Simd<T>::W;
  constexpr T inf = std::numeric_limits<T>::infinity(), neg_inf = -inf;
  const std::size_t nv = n / W * W, npad = (n + W - 1) / W * W, Rpad = (R + W - 1) / W * W;
  T *m_new = scratch, *alpha = scratch + Rpad;
  bool finite = true;
  for (std::size_t r = 0; r < R; ++r) {  // the block's max (and min: infinities show in them)
    T* s = S + r * lds;
    V hi = splat(neg_inf), lo = splat(inf);
    for (std::size_t c = 0; c < nv; c += W) {
      const V x = load(s + c);
      hi = vmax<T>(hi, x);
      lo = vmin<T>(lo, x);
    }
    T bm = hmax<T>(hi), bl = hmin<T>(lo);
    for (std::size_t c = nv; c < n; ++c) {
      bm = s[c] > bm ? s[c] : bm;
      bl = s[c] < bl ? s[c] : bl;
    }
    finite = finite && bm < inf && bl > neg_inf;
    m_new[r] = bm > m[r] ? bm : m[r];  // 2.
    for (std::size_t c = n; c < npad; ++c) s[c] = neg_inf;
  }
  if (!finite)
    for (std::size_t r = 0; r < R; ++r)
      if ((bad = first_not_finite(S + r * lds, n)) < n) return r;
  const ExpConstants<T> k = exp_constants<T>();
  for (std::size_t r = R; r < Rpad; ++r) m_new[r] = 0;
  for (std::size_t r = 0; r < Rpad; r += W) {  // 3. a_t = exp(m_{t-1} - m_t) (0 after m_{-1} = -inf)
    V mo;
    for (std::size_t w = 0; w < W; ++w) mo[w] = r + w < R ? m[r + w] : T(0);
    store(alpha + r, vexp<false>(mo - load(m_new + r), k));
  }
  for (std::size_t r = 0; r < R; ++r) {
    T* s = S + r * lds;
    const V mv = splat(m_new[r]);
    V sum{};
    std::size_t c = 0;
    if constexpr (W == 2)  // float64: four exps side by side (the sum still in order, vector by vector)
      for (; c + 4 * W <= npad; c += 4 * W) {
        V p[4];
        for (int i = 0; i < 4; ++i) p[i] = load(s + c + i * W) - mv;
        vexp_n<4>(p, k);
        for (int i = 0; i < 4; ++i) {
          store(s + c + i * W, p[i]);
          sum += p[i];
        }
      }
    for (; c < npad; c += W) {
      const V p = vexp<false>(load(s + c) - mv, k);
      store(s + c, p);
      sum += p;
    }
    const T bs = hsum<T>(sum);
    if (!(bs - bs == T(0))) {  // a NaN score (its exp is NaN, every other one finite)
      bad = first_not_finite(s, n);
      return r;
    }
    const T a = alpha[r];
    l[r] = l[r] * a + bs;  // 4.
    m[r] = m_new[r];
    if (a != T(1)) {  // 5. (the rescaling part)
      T* o = O + r * ldo;
      for (std::size_t d = 0; d < D; ++d) o[d] *= a;
    }
  }
  return R;
}

template <class T>
struct Job {
  const Tensor &qd, &kd, &vd;             // the float64 inputs (error messages, exact_row)
  const T *q, *k, *v;                     // (B, L, H, E|D), T (float, dense: q and k unused, null)
  T* O;                                   // (B, L_Q, H, D), T
  std::size_t B, L_Q, L_K, H, E, D;
  T scale, fill;
  double scale_d;
  const Mask& mask;
  std::size_t bq, bk;
  KeyBlockRecorder* rec;
  Dtype dtype;

  std::size_t at(std::size_t b, std::size_t l, std::size_t L, std::size_t h, std::size_t X) const {
    return ((b * L + l) * H + h) * X;
  }

  [[noreturn]] void overflow(std::size_t b, std::size_t i, std::size_t h, std::size_t j) const {
    const double s = static_cast<double>(scale) * dot(row_ptr(qd, b, i, h), row_ptr(kd, b, j, h), E);
    if (dtype == Dtype::float64 || !std::isfinite(s)) throw_score_overflow(qd, kd, b, i, h, j);
    throw OverflowError("dtype", "scale * q.k of query " + std::to_string(i) + " and key " + std::to_string(j) +
                                     " (batch " + std::to_string(b) + ", head " + std::to_string(h) +
                                     ") is beyond the float32 range (3.4e38): use \"dtype\": \"float64\"");
  }

  void record(std::size_t b, std::size_t h, std::size_t i, std::size_t t, T m, T l, const T* Oi,
              std::vector<double>& tmp) const {
    for (std::size_t d = 0; d < D; ++d) tmp[d] = Oi[d];
    rec->record(b, h, i, t, m, l, tmp.data(), D);
  }

  // Where the unnormalised O overflows (|v| near the largest double: O sums up to l |v|), the row
  // again as the row kernels compute it, normalised weights first, in float64.
  void exact_row(std::size_t b, std::size_t i, std::size_t h, T* Oi) const {
    std::vector<double> s(L_K), w(L_K), out(D);
    if (mask.is_sparse()) {
      KeyList keys;
      allowed_keys(mask, b, i, L_K, keys);
      score_row(qd, kd, b, i, h, scale_d, s.data(), &keys);
      softmax_row(s.data(), keys.size(), w.data());
      weighted_values(w.data(), vd, b, h, out.data(), &keys);
    } else {
      score_row(qd, kd, b, i, h, scale_d, s.data());
      masked_softmax_row(s.data(), mask, b, i, L_K, w.data());
      weighted_values(w.data(), vd, b, h, out.data());
    }
    for (std::size_t d = 0; d < D; ++d) Oi[d] = static_cast<T>(out[d]);
  }

  // 6.
  void finish_row(std::size_t b, std::size_t h, std::size_t i, T l, T* Oi, EmptyRowWarnings& empty) const {
    if (l == T(0)) {
      std::fill(Oi, Oi + D, T(0));
      empty.add(b, h, i);
      return;
    }
    T chk = 0;
    for (std::size_t d = 0; d < D; ++d) chk += Oi[d] - Oi[d];  // NaN for inf and NaN
    if (chk != T(0)) return exact_row(b, i, h, Oi);
    for (std::size_t d = 0; d < D; ++d) Oi[d] /= l;
  }

  std::uint64_t dense(EmptyRowWarnings& empty) const {
    constexpr T neg_inf = -std::numeric_limits<T>::infinity();
    constexpr std::size_t W = Simd<T>::W;
    const std::size_t bk_pad = (bk + W - 1) / W * W, T_blocks = (L_K + bk - 1) / bk;
    const bool masked = !mask.is_none();
    // raw arrays, not vectors: no per-element constructor or operator[] calls (out of line when
    // emcc was given -Os)
    const std::unique_ptr<T[]> kt_(new T[E * bk_pad]), S_(new T[bq * bk_pad]), m_(new T[L_Q]), l_(new T[L_Q]),
        scratch_(new T[2 * bq + 2 * W]);
    T *const kt = kt_.get(), *const S = S_.get(), *const m = m_.get(), *const l = l_.get();
    // float: the queries of (b, h) converted and packed for the tiles' products once, not once per
    // key block (float64 packs each tile's rows as it goes: no copy of q the size of q)
    constexpr bool prepack = std::is_same_v<T, float>;
    const std::unique_ptr<T[]> qp_(prepack ? new T[L_Q * E] : nullptr);
    T* const qp = qp_.get();
    std::vector<double> tmp(D);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h) {
        if (prepack) pack_queries(qd.data() + at(b, 0, L_Q, h, E), H * E, L_Q, E, qp);
        for (std::size_t i = 0; i < L_Q; ++i) {
          m[i] = neg_inf;
          l[i] = T(0);
          T* Oi = O + at(b, i, L_Q, h, D);
          for (std::size_t d = 0; d < D; ++d) Oi[d] = T(0);
        }
        for (std::size_t t = 0; t < T_blocks; ++t) {
          const std::size_t j0 = t * bk, n = std::min(bk, L_K - j0);
          for (std::size_t c = 0; c < n; ++c) {  // K of the block, transposed (and converted): kt[e][c]
            const double* kj = kd.data() + at(b, j0 + c, L_K, h, E);
            for (std::size_t e = 0; e < E; ++e) kt[e * bk_pad + c] = static_cast<T>(kj[e]);
          }
          for (std::size_t i0 = 0; i0 < L_Q; i0 += bq) {
            const std::size_t rows = std::min(bq, L_Q - i0);
            // 1. the tile of scores q_i . k_j
            if (prepack)  // (i0: a multiple of kMR, so the tile starts a group)
              gemm<T>(nullptr, 0, kt, bk_pad, S, bk_pad, rows, E, n, false, scale, qp + i0 * E);
            else
              gemm(q + at(b, i0, L_Q, h, E), H * E, kt, bk_pad, S, bk_pad, rows, E, n, false, scale);
            if (masked)
              for (std::size_t r = 0; r < rows; ++r) {
                T* s = S + r * bk_pad;
                const std::size_t i = i0 + r;
                const std::size_t bad = first_not_finite(s, n);  // every score is checked before the fill
                if (bad < n) overflow(b, i, h, j0 + bad);
                for (std::size_t c = 0; c < n; ++c)
                  if (!mask.allows(b, i, j0 + c)) s[c] = fill;
              }
            std::size_t bad = 0;  // 2-4
            const std::size_t r = update_tile(S, bk_pad, rows, n, m + i0, l + i0,
                                              O + at(b, i0, L_Q, h, D), H * D, D, scratch_.get(), bad);
            if (r < rows) overflow(b, i0 + r, h, j0 + bad);
            // 5. O += exp(s - m) V for the tile's rows
            gemm(S, bk_pad, v + at(b, j0, L_K, h, D), H * D, O + at(b, i0, L_Q, h, D), H * D, rows, n, D, true);
          }
          if (rec)
            for (std::size_t i = 0; i < L_Q; ++i) record(b, h, i, t, m[i], l[i], O + at(b, i, L_Q, h, D), tmp);
        }
        for (std::size_t i = 0; i < L_Q; ++i) finish_row(b, h, i, l[i], O + at(b, i, L_Q, h, D), empty);
      }
    return std::uint64_t{B} * H * L_Q * L_K;
  }

  std::uint64_t sparse(EmptyRowWarnings& empty) const {
    constexpr T neg_inf = -std::numeric_limits<T>::infinity();
    constexpr std::size_t W = Simd<T>::W;
    const std::size_t bk_pad = (bk + W - 1) / W * W, T_blocks = (L_K + bk - 1) / bk;
    std::vector<T> s(bk_pad);
    std::vector<double> tmp(D);
    const ExpConstants<T> k_exp = exp_constants<T>();
    KeyList keys;
    std::uint64_t pairs = 0;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t i = 0; i < L_Q; ++i) {
        allowed_keys(mask, b, i, L_K, keys);  // the same for every head
        for (std::size_t h = 0; h < H; ++h) {
          pairs += keys.size();
          T* Oi = O + at(b, i, L_Q, h, D);
          std::fill(Oi, Oi + D, T(0));
          T m = neg_inf, l = 0;
          const T* qi = q + at(b, i, L_Q, h, E);
          std::size_t p0 = 0;
          // with a recorder: exactly the key blocks; without: chunks of up to bk allowed keys
          for (std::size_t t = 0; rec ? t < T_blocks : p0 < keys.size(); ++t) {
            std::size_t p1 = p0;
            if (rec) while (p1 < keys.size() && keys[p1] < (t + 1) * bk) ++p1;
            else p1 = std::min(keys.size(), p0 + bk);
            const std::size_t n = p1 - p0;
            if (n > 0) {
              T* const sc = s.data();  // (raw pointers: no operator[] call per key where inlining is off)
              const std::uint32_t* const kc = keys.data() + p0;
              for (std::size_t c = 0; c < n; ++c) sc[c] = dot(qi, k + at(b, kc[c], L_K, h, E), E) * scale;  // 1.
              const std::size_t bad = update_row(sc, n, m, l, Oi, D, k_exp);  // 2-4
              if (bad < n) overflow(b, i, h, kc[bad]);
              for (std::size_t c = 0; c < n; ++c) {  // 5.
                const T w = sc[c];
                const T* vj = v + at(b, kc[c], L_K, h, D);
                for (std::size_t d = 0; d < D; ++d) Oi[d] += w * vj[d];
              }
            }
            if (rec) record(b, h, i, t, m, l, Oi, tmp);
            p0 = p1;
          }
          finish_row(b, h, i, l, Oi, empty);
        }
      }
    return pairs;
  }
};

template <class T>
std::uint64_t run(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                  const AttentionOptions& o, const T* qp, const T* kp, const T* vp, T* O, EmptyRowWarnings& empty) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  // query blocks change the order of the work, not one number (each row's sums run in one order
  // whatever its tile): rounded up to the register block, so that tiles start at a packed group
  const std::size_t bq0 = o.block_q ? o.block_q : kBlockQ, bq = (bq0 + kMR - 1) / kMR * kMR;
  const std::size_t bk = o.block_k ? o.block_k : kBlockK;
  const T lowest = std::numeric_limits<T>::lowest();
  const T fill = mask.fill < static_cast<double>(lowest) ? lowest : static_cast<T>(mask.fill);
  const Job<T> job{q, k, v, qp, kp, vp, O, B, L_Q, L_K, H, E, D, static_cast<T>(scale), fill, scale, mask, bq, bk,
                   o.recorder, o.dtype};
  if (L_K == 0) {  // nothing to attend to
    std::fill(O, O + B * L_Q * H * D, T(0));
    return 0;
  }
  return mask.is_sparse() ? job.sparse(empty) : job.dense(empty);
}

}  // namespace

bool attend_row(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask, std::size_t b,
                std::size_t i, std::size_t h, double* scores, double* weights, double* context) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  (void)B;
  (void)L_Q;
  (void)H;
  const double* qi = row_ptr(q, b, i, h);
  for (std::size_t j = 0; j < L_K; ++j) scores[j] = dot(qi, row_ptr(k, b, j, h), E) * scale;  // 1.
  const std::size_t bad = first_not_finite(scores, L_K);
  if (bad < L_K) throw_score_overflow(q, k, b, i, h, bad);
  constexpr std::size_t W = Simd<double>::W;
  std::vector<double> s((L_K + W - 1) / W * W);
  double m = -std::numeric_limits<double>::infinity(), l = 0;
  bool any = false;
  for (std::size_t j = 0; j < L_K; ++j) {
    s[j] = mask.is_none() || mask.allows(b, i, j) ? scores[j] : mask.fill;
    any = any || s[j] != m;
  }
  std::fill(context, context + D, 0.0);
  if (!any) {  // every key masked with -inf
    std::fill(weights, weights + L_K, 0.0);
    return false;
  }
  update_row<double, false>(s.data(), L_K, m, l, context, D, exp_constants<double>());  // 2-4, one key block
  for (std::size_t j = 0; j < L_K; ++j) {       // 5.
    const double p = s[j];
    if (p == 0.0) continue;
    const double* vj = row_ptr(v, b, j, h);
    for (std::size_t d = 0; d < D; ++d) context[d] += p * vj[d];
  }
  bool finite = true;
  for (std::size_t d = 0; d < D; ++d) finite = finite && std::isfinite(context[d]);
  if (!finite) {  // the unnormalised sum overflowed: normalised weights first (the row kernels)
    for (std::size_t j = 0; j < L_K; ++j) weights[j] = s[j] / l;
    weighted_values(weights, v, b, h, context);
    return true;
  }
  for (std::size_t d = 0; d < D; ++d) context[d] /= l;  // 6.
  for (std::size_t j = 0; j < L_K; ++j) weights[j] = s[j] / l;
  return true;
}

double kernel_exp(double x) { return vexp(splat(x), exp_constants<double>())[0]; }
float kernel_exp(float x) { return vexp(splat(x), exp_constants<float>())[0]; }

std::uint64_t attend(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                     const AttentionOptions& options, Tensor& context, EmptyRowWarnings& empty) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  (void)L_K;
  (void)E;
  context = Tensor::from_shape({B, L_Q, H, D});
  if (options.dtype == Dtype::float64)
    return run<double>(q, k, v, scale, mask, options, q.data(), k.data(), v.data(), context.data(), empty);
  // plain loops over the data (xtensor's iterators step a multi-index: far slower; and a vector's
  // constructor is an out-of-line call per element when emcc was given -Os)
  const auto to_float = [](const Tensor& t) {
    std::unique_ptr<float[]> f(new float[t.size()]);
    const double* x = t.data();
    for (std::size_t i = 0, n = t.size(); i < n; ++i) f[i] = static_cast<float>(x[i]);
    return f;
  };
  // (the dense way converts q and k as it packs them)
  const bool sparse = mask.is_sparse();
  const std::unique_ptr<float[]> qf = sparse ? to_float(q) : nullptr, kf = sparse ? to_float(k) : nullptr,
                                 vf = to_float(v);
  const std::size_t n = context.size();
  std::unique_ptr<float[]> O(new float[n]);
  const std::uint64_t pairs = run<float>(q, k, v, scale, mask, options, qf.get(), kf.get(), vf.get(), O.get(), empty);
  double* out = context.data();
  for (std::size_t x = 0; x < n; ++x) out[x] = O[x];
  return pairs;
}

}  // namespace attnplay
