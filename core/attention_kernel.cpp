// The fused attention kernel (see attention_kernel.hpp for the recurrences, numbered 1-6 below).
//
// Two ways through, the same online-softmax update (update_row) for both:
//   dense  (no mask, or a finite fill): per (b, h), key blocks outer, query blocks inner. The key
//          block is packed transposed (E x block_k) so that a tile of scores is a small matrix
//          product whose inner loop runs over contiguous keys; then each row is updated (2-4) and
//          the tile's weights times the block of V are added to the rows' O (5).
//   sparse (a mask with fill -inf): per query, only its allowed keys (allowed_keys), taken in the
//          same key blocks, so the cost is the allowed pairs.
// Every sum runs in one fixed order in both builds (scores over e, O over j; the running sum over
// W lanes combined as ((l0 + l1) + (l2 + l3))), so native and wasm agree to the last bit but exp.
#include "attention_kernel.hpp"

#include <cstring>
#include <limits>
#include <vector>

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
inline Vec<T> load(const T* p) {
  Vec<T> x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
template <class T>
inline void store(T* p, Vec<T> x) {
  std::memcpy(p, &x, sizeof x);
}
template <class T>
inline Vec<T> splat(T x) {  // (a lane-by-lane loop became 4 inserts with g++)
  if constexpr (Simd<T>::W == 2) return Vec<T>{x, x};
  else return Vec<T>{x, x, x, x};
}
template <class T>
inline Vec<T> select(IVec<T> m, Vec<T> a, Vec<T> b) {
  return (Vec<T>)(((IVec<T>)a & m) | ((IVec<T>)b & ~m));
}
template <class T>
inline T hsum(Vec<T> v) {
  if constexpr (Simd<T>::W == 2) return v[0] + v[1];
  else return (v[0] + v[1]) + (v[2] + v[3]);
}
template <class T>
inline T hmax(Vec<T> v) {
  T m = v[0];
  for (std::size_t l = 1; l < Simd<T>::W; ++l) m = v[l] > m ? v[l] : m;
  return m;
}

// exp(x): x = n ln2 + r (Cody-Waite), |r| <= ln2/2, Taylor polynomial of r, times 2^n built in the
// exponent bits (n read from the mantissa of x log2e + 1.5 2^52). Relative error below 1e-15
// (float: 1e-7); x below the smallest normal's log gives 0, -inf included.
inline Vec<double> vexp(Vec<double> x) {
  using V = Vec<double>;
  using I = IVec<double>;
  const V lo = splat(-708.39), hi = splat(709.0);
  const I under = (I)(x < lo);
  x = select<double>(under, lo, x);
  x = select<double>((I)(x > hi), hi, x);
  const V shifter = splat(6755399441055744.0);  // 1.5 * 2^52
  const V t = x * splat(1.4426950408889634) + shifter;
  const V n = t - shifter;
  V r = x - n * splat(6.93147180369123816490e-01);
  r = r - n * splat(1.90821492927058770002e-10);
  V p = splat(1.0 / 6227020800.0);
  p = p * r + splat(1.0 / 479001600.0);
  p = p * r + splat(1.0 / 39916800.0);
  p = p * r + splat(1.0 / 3628800.0);
  p = p * r + splat(1.0 / 362880.0);
  p = p * r + splat(1.0 / 40320.0);
  p = p * r + splat(1.0 / 5040.0);
  p = p * r + splat(1.0 / 720.0);
  p = p * r + splat(1.0 / 120.0);
  p = p * r + splat(1.0 / 24.0);
  p = p * r + splat(1.0 / 6.0);
  p = p * r + splat(0.5);
  p = p * r + splat(1.0);
  p = p * r + splat(1.0);
  const I e = ((I)t << 52) + (I){std::int64_t{1023} << 52, std::int64_t{1023} << 52};
  return select<double>(under, V{}, p * (V)e);
}

inline Vec<float> vexp(Vec<float> x) {
  using V = Vec<float>;
  using I = IVec<float>;
  const V lo = splat(-87.3365f), hi = splat(88.7f);
  const I under = (I)(x < lo);
  x = select<float>(under, lo, x);
  x = select<float>((I)(x > hi), hi, x);
  const V shifter = splat(12582912.0f);  // 1.5 * 2^23
  const V t = x * splat(1.44269504088896341f) + shifter;
  const V n = t - shifter;
  V r = x - n * splat(0.693359375f);
  r = r - n * splat(-2.12194440e-4f);
  V p = splat(1.0f / 5040.0f);
  p = p * r + splat(1.0f / 720.0f);
  p = p * r + splat(1.0f / 120.0f);
  p = p * r + splat(1.0f / 24.0f);
  p = p * r + splat(1.0f / 6.0f);
  p = p * r + splat(0.5f);
  p = p * r + splat(1.0f);
  p = p * r + splat(1.0f);
  const I e = ((I)t << 23) + (I){127 << 23, 127 << 23, 127 << 23, 127 << 23};
  return select<float>(under, V{}, p * (V)e);
}

// C[r][j] (+)= sum_k A[r][k] B[k][j] for r < MR, j < N, each sum in order over k, with A packed
// k-major (A[k * MR + r]: one pointer and constant offsets in the inner loop). Registers: MR rows
// x NV vectors of C; narrower column tails are the same arithmetic with fewer vectors, then one
// number at a time. Without accumulate, C = scale * (A B) (each sum times scale once).
template <class T, int MR, int NV>
inline std::size_t gemm_cols(const T* A, const T* B, std::size_t ldb, T* C, std::size_t ldc,
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

template <class T, int MR>
inline void gemm_rows(const T* A, std::size_t lda, const T* B, std::size_t ldb, T* C, std::size_t ldc,
                      std::size_t K, std::size_t N, bool accumulate, T scale, T* packed) {
  for (std::size_t kk = 0; kk < K; ++kk)
    for (int r = 0; r < MR; ++r) packed[kk * MR + r] = A[r * lda + kk];
  std::size_t j = gemm_cols<T, MR, ATTNPLAY_GEMM_NV>(packed, B, ldb, C, ldc, K, 0, N, accumulate, scale);
  j = gemm_cols<T, MR, 1>(packed, B, ldb, C, ldc, K, j, N, accumulate, scale);
  for (; j < N; ++j)
    for (int r = 0; r < MR; ++r) {
      T c = accumulate ? C[r * ldc + j] : T(0);
      for (std::size_t kk = 0; kk < K; ++kk) c += A[r * lda + kk] * B[kk * ldb + j];
      C[r * ldc + j] = accumulate ? c : c * scale;
    }
}

template <class T>
void gemm(const T* A, std::size_t lda, const T* B, std::size_t ldb, T* C, std::size_t ldc, std::size_t M,
          std::size_t K, std::size_t N, bool accumulate, T scale = T(1)) {
  constexpr int MR = ATTNPLAY_GEMM_MR;
  thread_local std::vector<T> packed;
  if (packed.size() < K * MR) packed.resize(K * MR);
  std::size_t r = 0;
  for (; r + MR <= M; r += MR)
    gemm_rows<T, MR>(A + r * lda, lda, B, ldb, C + r * ldc, ldc, K, N, accumulate, scale, packed.data());
  for (; r < M; ++r)
    gemm_rows<T, 1>(A + r * lda, lda, B, ldb, C + r * ldc, ldc, K, N, accumulate, scale, packed.data());
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
// Returns n, or, changing nothing, the first c whose score is not finite (check = false: scores
// known finite but for -inf, which then means "masked").
template <class T, bool check = true>
std::size_t update_row(T* s, std::size_t n, T& m, T& l, T* O, std::size_t D) {
  using V = Vec<T>;
  using I = IVec<T>;
  constexpr std::size_t W = Simd<T>::W;
  constexpr T neg_inf = -std::numeric_limits<T>::infinity();
  V vmax = splat(neg_inf), chk{};
  std::size_t c = 0;
  for (; c + W <= n; c += W) {
    const V x = load(s + c);
    vmax = select<T>((I)(x > vmax), x, vmax);
    chk += x - x;  // NaN for inf and NaN
  }
  T bm = hmax<T>(vmax), ck = hsum<T>(chk);
  for (; c < n; ++c) {
    bm = s[c] > bm ? s[c] : bm;
    ck += s[c] - s[c];
  }
  if (check && ck != T(0)) return first_not_finite(s, n);
  const T m_new = bm > m ? bm : m;                                     // 2.
  const T alpha = m == neg_inf ? T(0) : vexp(splat(m - m_new))[0];  // 3.
  const std::size_t npad = (n + W - 1) / W * W;
  for (c = n; c < npad; ++c) s[c] = neg_inf;
  const V mv = splat(m_new);
  V sum{};
  for (c = 0; c < npad; c += W) {
    const V p = vexp(load(s + c) - mv);
    store(s + c, p);
    sum += p;
  }
  l = l * alpha + hsum<T>(sum);  // 4.
  m = m_new;
  if (alpha != T(1))
    for (std::size_t d = 0; d < D; ++d) O[d] *= alpha;  // 5. (the rescaling part)
  return n;
}

template <class T>
struct Job {
  const Tensor &qd, &kd, &vd;             // the float64 inputs (error messages, exact_row)
  const T *q, *k, *v;                     // (B, L, H, E|D), T
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
    std::vector<T> kt(E * bk_pad), S(bq * bk_pad), m(L_Q), l(L_Q);
    std::vector<double> tmp(D);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h) {
        std::fill(m.begin(), m.end(), neg_inf);
        std::fill(l.begin(), l.end(), T(0));
        for (std::size_t i = 0; i < L_Q; ++i) std::fill(O + at(b, i, L_Q, h, D), O + at(b, i, L_Q, h, D) + D, T(0));
        for (std::size_t t = 0; t < T_blocks; ++t) {
          const std::size_t j0 = t * bk, n = std::min(bk, L_K - j0);
          for (std::size_t c = 0; c < n; ++c) {  // K of the block, transposed: kt[e][c]
            const T* kj = k + at(b, j0 + c, L_K, h, E);
            for (std::size_t e = 0; e < E; ++e) kt[e * bk_pad + c] = kj[e];
          }
          for (std::size_t i0 = 0; i0 < L_Q; i0 += bq) {
            const std::size_t rows = std::min(bq, L_Q - i0);
            // 1. the tile of scores q_i . k_j
            gemm(q + at(b, i0, L_Q, h, E), H * E, kt.data(), bk_pad, S.data(), bk_pad, rows, E, n, false, scale);
            for (std::size_t r = 0; r < rows; ++r) {
              T* s = S.data() + r * bk_pad;
              const std::size_t i = i0 + r;
              if (masked) {  // every score is checked before the fill replaces it
                const std::size_t bad = first_not_finite(s, n);
                if (bad < n) overflow(b, i, h, j0 + bad);
                for (std::size_t c = 0; c < n; ++c)
                  if (!mask.allows(b, i, j0 + c)) s[c] = fill;
              }
              const std::size_t bad = update_row(s, n, m[i], l[i], O + at(b, i, L_Q, h, D), D);  // 2-4
              if (bad < n) overflow(b, i, h, j0 + bad);
            }
            // 5. O += exp(s - m) V for the tile's rows
            gemm(S.data(), bk_pad, v + at(b, j0, L_K, h, D), H * D, O + at(b, i0, L_Q, h, D), H * D, rows, n, D, true);
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
              for (std::size_t c = 0; c < n; ++c) s[c] = dot(qi, k + at(b, keys[p0 + c], L_K, h, E), E) * scale;  // 1.
              const std::size_t bad = update_row(s.data(), n, m, l, Oi, D);  // 2-4
              if (bad < n) overflow(b, i, h, keys[p0 + bad]);
              for (std::size_t c = 0; c < n; ++c) {  // 5.
                const T w = s[c];
                const T* vj = v + at(b, keys[p0 + c], L_K, h, D);
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
  #ifndef ATTNPLAY_BQ
#define ATTNPLAY_BQ 32
#endif
#ifndef ATTNPLAY_BK
#define ATTNPLAY_BK 64
#endif
  const std::size_t bq = o.block_q ? o.block_q : ATTNPLAY_BQ, bk = o.block_k ? o.block_k : ATTNPLAY_BK;
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
  update_row<double, false>(s.data(), L_K, m, l, context, D);  // 2-4, one key block
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

double kernel_exp(double x) { return vexp(splat(x))[0]; }
float kernel_exp(float x) { return vexp(splat(x))[0]; }

std::uint64_t attend(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                     const AttentionOptions& options, Tensor& context, EmptyRowWarnings& empty) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  (void)L_K;
  (void)E;
  context = Tensor::from_shape({B, L_Q, H, D});
  if (options.dtype == Dtype::float64)
    return run<double>(q, k, v, scale, mask, options, q.data(), k.data(), v.data(), context.data(), empty);
  // plain loops over the data (xtensor's iterators step a multi-index: far slower)
  const auto to_float = [](const Tensor& t) { return std::vector<float>(t.data(), t.data() + t.size()); };
  const std::vector<float> qf = to_float(q), kf = to_float(k), vf = to_float(v);
  std::vector<float> O(context.size());
  const std::uint64_t pairs = run<float>(q, k, v, scale, mask, options, qf.data(), kf.data(), vf.data(), O.data(), empty);
  double* out = context.data();
  for (std::size_t x = 0; x < O.size(); ++x) out[x] = O[x];
  return pairs;
}

}  // namespace attnplay
