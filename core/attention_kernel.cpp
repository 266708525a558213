// The fused attention kernel (see attention_kernel.hpp for the recurrences, numbered 1-6 below).
//
// Three ways through, the same online-softmax update (update_tile, for a tile of rows or one row):
//   dense  (no mask, or a finite fill): per (b, h), key blocks outer (128 keys), query tiles inner
//          (32 rows). The key block is packed transposed (E x block_k) and the tile's queries k-major
//          4 rows at a time (float: all of (b, h)'s queries once, converted as they are packed), so
//          that a tile of scores is a small matrix product in registers (4 rows x 2 vectors, the
//          inner loop over contiguous keys); then the tile's rows are updated (2-4) and the tile's
//          weights, packed the same way, times the block of V are added to the rows' O (5).
//   tiles  (a causal, local, atrous, strided, sink or valid_lens mask with fill -inf): the same
//          products on the blocks that hold allowed pairs (Job::tiles): the mask's passes (mask_passes.hpp)
//          gather each class of queries and keys (atrous and strided: rows `dilation` or `stride`
//          apart, read in place), query tiles sized to the keys per query (a band of 33 keys: 8
//          rows), each against the panels of keys its rows' spans cover, the masked pairs -inf;
//          the cost is the allowed pairs and the band's edges (docs/performance.md).
//   rows   (an explicit mask with fill -inf, or any sparse mask under a recorder: flash's trace):
//          per query, only its allowed keys (allowed_keys), taken in the same key blocks.
// Every sum runs in one fixed order in both builds (scores over e, O over j; the running sum over
// W lanes combined as ((l0 + l1) + (l2 + l3))), so native and wasm agree to the last bit. Most of
// the time goes to the two products, then the exps (measurements: docs/performance.md).
#include "attention_kernel.hpp"

#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "alibi.hpp"
#include "mask_passes.hpp"
#include "simd.hpp"

namespace attnplay {
namespace {

using namespace simd;

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
// W; R = 1: one row, the sparse way and attend_row): m[r] and l[r] the rows' running max and sum,
// row r's unnormalised context at O + r ldo (D numbers). The scores become exp(s - m_t), O is
// rescaled by a_t; the R rescalings a_t are computed W rows at a time. scratch: 2 R + 2 W numbers.
// Returns R, or the first row r with a score that is not finite (its column in bad; that row's
// m, l, O unchanged, rows before it may have been updated: the caller throws). check = false:
// scores known finite but for -inf, which then means "masked"; a row with every score so far
// masked (m stays -inf) is left as it was (l = 0, O untouched; its scores become 0).
// Infinities show in the block's max and min, a NaN (which max and min may drop) in the sum of
// the exps: exp of a finite s - m_t is finite, so NaN there means a NaN score, at the same index.
template <class T, bool check = true>
std::size_t update_tile(T* S, std::size_t lds, std::size_t R, std::size_t n, T* m, T* l, T* O, std::size_t ldo,
                        std::size_t D, const ExpConstants<T>& k, T* scratch, std::size_t& bad) {
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
  if (check && !finite)
    for (std::size_t r = 0; r < R; ++r)
      if ((bad = first_not_finite(S + r * lds, n)) < n) return r;
  for (std::size_t r = R; r < Rpad; ++r) m_new[r] = 0;
  for (std::size_t r = 0; r < Rpad; r += W) {  // 3. a_t = exp(m_{t-1} - m_t) (0 after m_{-1} = -inf)
    V mo;
    for (std::size_t w = 0; w < W; ++w) mo[w] = r + w < R ? m[r + w] : T(0);
    V d = mo - load(m_new + r);
    if constexpr (!check) d = select<T>((IVec<T>)(d == d), d, V{});  // -inf - -inf: no key yet (the row is skipped)
    store(alpha + r, vexp<false>(d, k));
  }
  for (std::size_t r = 0; r < R; ++r) {
    T* s = S + r * lds;
    if constexpr (!check)
      if (m_new[r] == neg_inf) {  // every key masked so far: nothing to add
        for (std::size_t c = 0; c < npad; ++c) s[c] = T(0);
        continue;
      }
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
    if (check && !(bs - bs == T(0))) {  // a NaN score (its exp is NaN, every other one finite)
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

// Whether a sparse mask goes through the tiles (Job::tiles) rather than row by row (Job::sparse):
// every kind with passes (mask_passes.hpp), unless a recorder wants each row's state after each key block.
// The page's first-load module (ATTNPLAY_FIRST_LOAD) leaves the tiles out (4.8 KB gzip of its
// first load): the page gives it no masked scenario (web/src/engine/compute.ts runsFirst), and
// were one given, the row way computes it (the same pairs, the sums in another order: 1e-12).
#ifdef ATTNPLAY_FIRST_LOAD
bool by_tiles(const Mask&, const AttentionOptions&) { return false; }
#else
bool by_tiles(const Mask& mask, const AttentionOptions& o) { return mask_passes(mask) > 0 && !o.recorder; }
#endif

template <class T>
struct Job {
  const Tensor &qd, &kd, &vd;             // the float64 inputs (error messages, exact_row)
  const T *q, *k, *v;                     // q (B, L_Q, H, E), k|v (B, L_K, H_kv, E|D), T (float, dense: q and k unused, null)
  T* O;                                   // (B, L_Q, H, D), T
  std::size_t B, L_Q, L_K, H, E, D;
  T scale, fill;
  double scale_d;
  const Mask& mask;
  std::size_t bq, bk;
  KeyBlockRecorder* rec;
  Dtype dtype;
  std::size_t H_kv;                       // kv heads (GQA/MQA: query head h reads kv head h / (H / H_kv))
  const double* slopes;                   // ALiBi: H slopes, or null

  std::size_t at(std::size_t b, std::size_t l, std::size_t L, std::size_t h, std::size_t X) const {
    return ((b * L + l) * H + h) * X;
  }
  // k[b, j, kv head of h] or v[...]: the group's one copy, never repeated
  std::size_t kv_at(std::size_t b, std::size_t j, std::size_t h, std::size_t X) const {
    return ((b * L_K + j) * H_kv + kv_head(h, H, H_kv)) * X;
  }
  // ALiBi's -slope_h |i - j|, added to the scaled score before the mask (0 without ALiBi)
  double bias(std::size_t h, std::size_t i, std::size_t j) const {
    return slopes ? alibi_term(slopes[h], i, j) : 0.0;
  }

  [[noreturn]] void overflow(std::size_t b, std::size_t i, std::size_t h, std::size_t j) const {
    const double s = static_cast<double>(scale) * dot(row_ptr(qd, b, i, h), row_ptr(kd, b, j, kv_head(h, H, H_kv)), E);
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
      for (std::size_t t = 0; t < keys.size(); ++t) s[t] += bias(h, i, keys[t]);
      softmax_row(s.data(), keys.size(), w.data());
      weighted_values(w.data(), vd, b, kv_head(h, H, H_kv), out.data(), &keys);
    } else {
      score_row(qd, kd, b, i, h, scale_d, s.data());
      for (std::size_t j = 0; j < L_K; ++j) s[j] += bias(h, i, j);
      masked_softmax_row(s.data(), mask, b, i, L_K, w.data());
      weighted_values(w.data(), vd, b, kv_head(h, H, H_kv), out.data());
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
    const ExpConstants<T> k_exp = exp_constants<T>();
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
            const double* kj = kd.data() + kv_at(b, j0 + c, h, E);
            for (std::size_t e = 0; e < E; ++e) kt[e * bk_pad + c] = static_cast<T>(kj[e]);
          }
          for (std::size_t i0 = 0; i0 < L_Q; i0 += bq) {
            const std::size_t rows = std::min(bq, L_Q - i0);
            // 1. the tile of scores q_i . k_j
            if (prepack)  // (i0: a multiple of kMR, so the tile starts a group)
              gemm<T>(nullptr, 0, kt, bk_pad, S, bk_pad, rows, E, n, false, scale, qp + i0 * E);
            else
              gemm(q + at(b, i0, L_Q, h, E), H * E, kt, bk_pad, S, bk_pad, rows, E, n, false, scale);
            if (slopes)  // ALiBi (finite: it changes no overflow below)
              for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t c = 0; c < n; ++c) S[r * bk_pad + c] += static_cast<T>(bias(h, i0 + r, j0 + c));
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
            const std::size_t r = update_tile(S, bk_pad, rows, n, m + i0, l + i0, O + at(b, i0, L_Q, h, D), H * D,
                                              D, k_exp, scratch_.get(), bad);
            if (r < rows) overflow(b, i0 + r, h, j0 + bad);
            // 5. O += exp(s - m) V for the tile's rows
            gemm(S, bk_pad, v + kv_at(b, j0, h, D), H_kv * D, O + at(b, i0, L_Q, h, D), H * D, rows, n, D, true);
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
    T scratch[2 + 2 * W];
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
              for (std::size_t c = 0; c < n; ++c) sc[c] = dot(qi, k + kv_at(b, kc[c], h, E), E) * scale;  // 1.
              if (slopes)
                for (std::size_t c = 0; c < n; ++c) sc[c] += static_cast<T>(bias(h, i, kc[c]));
              std::size_t bad = 0;  // 2-4
              if (update_tile(sc, bk_pad, 1, n, &m, &l, Oi, D, D, k_exp, scratch, bad) < 1) overflow(b, i, h, kc[bad]);
              for (std::size_t c = 0; c < n; ++c) {  // 5.
                const T w = sc[c];
                const T* vj = v + kv_at(b, kc[c], h, D);
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

  // The sparse way through the tiles (a mask with passes, mask_passes; no recorder). Per batch
  // item b, pass p (step g) and class r (queries i = r + g a, keys j = r + g c, mask_passes.hpp):
  //   a. each query's keys in the class, KeySpan [lo, hi) minus a hole (mask_pass_keys);
  //   b. query tiles of R consecutive a (R from the keys per query: about a quarter of them, a
  //      multiple of the register block, at most block_q), each with its keys' hull and common hole;
  //   c. per head h, panels of block_k class keys, c in [t bk, (t + 1) bk), outer (each packed
  //      transposed once, as the dense way packs a key block), the tiles that meet the panel inner:
  //      1. the tile's scores against the columns of the panel its span covers (from a multiple of
  //         W: a column's lane is its key's, whatever the tile), the masked ones -inf after the
  //         allowed ones are checked;
  //      2-4. update_tile on the tile's rows (m, l gathered from the (h, i) arrays);
  //      5. O += exp(s - m) V of the columns (V of the class: rows g apart, read in place);
  //   6. every row of b finished in (i, h) order (the row way's order for the warnings).
  // A row meets its keys panel by panel in ascending order whatever its tile, so R changes no number
  // (block_q's promise); against the row way the steps of the online softmax and the score sums'
  // order differ (rounding: tests/catch2/test_sparse_tiles.cpp checks 1e-12 in float64).
  std::uint64_t tiles(EmptyRowWarnings& empty) const {
    constexpr T neg_inf = -std::numeric_limits<T>::infinity();
    constexpr std::size_t W = Simd<T>::W;
    const std::size_t bk_pad = (bk + W - 1) / W * W, HL = H * L_Q;
    const std::unique_ptr<T[]> kt_(new T[E * bk_pad]), S_(new T[bq * bk_pad]), m_(new T[HL]), l_(new T[HL]),
        mt_(new T[bq]), lt_(new T[bq]), scratch_(new T[2 * bq + 2 * W]);
    T *const kt = kt_.get(), *const S = S_.get(), *const m = m_.get(), *const l = l_.get(), *const mt = mt_.get(),
      *const lt = lt_.get();
    // float: the tile's queries converted and packed for each product (a tile's worth, not q's: a
    // buffer the size of q, new each call, cost more in page faults than the packing saved)
    constexpr bool prepack = std::is_same_v<T, float>;
    const std::unique_ptr<T[]> qp_(prepack ? new T[bq * E] : nullptr);
    T* const qp = qp_.get();
    struct Tile {
      std::size_t a0, R;
      KeySpan span;  // the hull of its rows' keys, and the hole they all have
    };
    std::vector<KeySpan> rows(L_Q);
    std::vector<Tile> tiles;
    const ExpConstants<T> k_exp = exp_constants<T>();
    const std::size_t passes = mask_passes(mask);
    // [0, n) clipped: where class key x falls among the n columns from class key c0
    const auto col = [](std::size_t x, std::size_t c0, std::size_t n) { return x <= c0 ? 0 : std::min(x - c0, n); };
    std::uint64_t pairs = 0;
    for (std::size_t b = 0; b < B; ++b) {
      std::fill(m, m + HL, neg_inf);
      std::fill(l, l + HL, T(0));
      for (std::size_t i = 0; i < L_Q; ++i)
        for (std::size_t h = 0; h < H; ++h) std::fill(O + at(b, i, L_Q, h, D), O + at(b, i, L_Q, h, D) + D, T(0));
      for (std::size_t p = 0; p < passes; ++p) {
        const std::size_t g = mask_pass_step(mask, p);
        for (std::size_t r = 0; r < g && r < L_Q && r < L_K; ++r) {
          const std::size_t nq = (L_Q - r + g - 1) / g, nk = (L_K - r + g - 1) / g;
          for (std::size_t a = 0; a < nq; ++a) {  // a.
            rows[a] = mask_pass_keys(mask, p, b, r + g * a, L_K);
            pairs += std::uint64_t{H} * rows[a].count();
          }
          // b.
          const std::size_t R = std::clamp(rows[nq / 2].count() / 4 / kMR * kMR, std::size_t(kMR), bq);
          tiles.clear();
          for (std::size_t a0 = 0; a0 < nq; a0 += R) {
            Tile tile{a0, std::min(R, nq - a0), {nk, 0, 0, nk}};
            for (std::size_t a = a0; a < a0 + tile.R; ++a) {
              const KeySpan& x = rows[a];
              if (x.count() == 0) continue;
              tile.span.lo = std::min(tile.span.lo, x.lo);
              tile.span.hi = std::max(tile.span.hi, x.hi);
              tile.span.hole_lo = std::max(tile.span.hole_lo, x.hole_lo);
              tile.span.hole_hi = std::min(tile.span.hole_hi, x.hole_lo < x.hole_hi ? x.hole_hi : 0);
            }
            if (tile.span.hi > tile.span.lo) tiles.push_back(tile);
          }
          const std::size_t ldq = g * H * E, ldo = g * H * D, ldv = g * H_kv * D;
          for (std::size_t h = 0; h < H; ++h) {  // c.
            T* const mh = m + h * L_Q;
            T* const lh = l + h * L_Q;
            for (std::size_t c0 = 0; c0 < nk; c0 += bk) {
              const std::size_t c1 = std::min(nk, c0 + bk);
              bool packed = false;
              for (const Tile& tile : tiles) {
                const KeySpan& sp = tile.span;
                std::size_t s0 = std::max(sp.lo, c0), s1 = std::min(sp.hi, c1);
                if (sp.hole_lo < sp.hole_hi) {  // the keys every row of the tile leaves out
                  if (sp.hole_lo <= s0) s0 = std::max(s0, sp.hole_hi);
                  if (sp.hole_hi >= s1) s1 = std::min(s1, sp.hole_lo);
                }
                if (s0 >= s1) continue;
                if (!packed) {  // K of the panel, transposed (and converted): kt[e][c]
                  for (std::size_t c = 0; c < c1 - c0; ++c) {
                    const double* kj = kd.data() + kv_at(b, r + g * (c0 + c), h, E);
                    for (std::size_t e = 0; e < E; ++e) kt[e * bk_pad + c] = static_cast<T>(kj[e]);
                  }
                  packed = true;
                }
                const std::size_t o0 = (s0 - c0) / W * W, n = s1 - c0 - o0, x0 = c0 + o0, R_t = tile.R;
                const std::size_t i0 = r + g * tile.a0;
                T* const St = S + o0;
                T* const Ot = O + at(b, i0, L_Q, h, D);
                // 1.
                if (prepack) {
                  pack_queries(qd.data() + at(b, i0, L_Q, h, E), ldq, R_t, E, qp);
                  gemm<T>(nullptr, 0, kt + o0, bk_pad, St, bk_pad, R_t, E, n, false, scale, qp);
                } else
                  gemm(q + at(b, i0, L_Q, h, E), ldq, kt + o0, bk_pad, St, bk_pad, R_t, E, n, false, scale);
                for (std::size_t rr = 0; rr < R_t; ++rr) {
                  const std::size_t a = tile.a0 + rr, i = i0 + g * rr;
                  const KeySpan& x = rows[a];
                  T* const s = St + rr * bk_pad;
                  if (slopes)
                    for (std::size_t c = 0; c < n; ++c) s[c] += static_cast<T>(bias(h, i, r + g * (x0 + c)));
                  const std::size_t y0 = col(x.lo, x0, n), y1 = std::max(y0, col(x.hi, x0, n));
                  const std::size_t z0 = std::clamp(col(x.hole_lo, x0, n), y0, y1),
                                    z1 = x.hole_lo < x.hole_hi ? std::clamp(col(x.hole_hi, x0, n), z0, y1) : z0;
                  std::size_t bad = first_not_finite(s + y0, z0 - y0);
                  if (bad < z0 - y0) overflow_in_order(b, i, h, r + g * (x0 + y0 + bad));
                  bad = first_not_finite(s + z1, y1 - z1);
                  if (bad < y1 - z1) overflow_in_order(b, i, h, r + g * (x0 + z1 + bad));
                  std::fill(s, s + y0, neg_inf);
                  std::fill(s + z0, s + z1, neg_inf);
                  std::fill(s + y1, s + n, neg_inf);
                  mt[rr] = mh[i];
                  lt[rr] = lh[i];
                }
                std::size_t unused = 0;  // 2-4 (checked above)
                update_tile<T, false>(St, bk_pad, R_t, n, mt, lt, Ot, ldo, D, k_exp, scratch_.get(), unused);
                for (std::size_t rr = 0; rr < R_t; ++rr) {
                  mh[i0 + g * rr] = mt[rr];
                  lh[i0 + g * rr] = lt[rr];
                }
                // 5.
                gemm(St, bk_pad, v + kv_at(b, r + g * x0, h, D), ldv, Ot, ldo, R_t, n, D, true);
              }
            }
          }
        }
      }
      for (std::size_t i = 0; i < L_Q; ++i)  // 6.
        for (std::size_t h = 0; h < H; ++h) finish_row(b, h, i, l[h * L_Q + i], O + at(b, i, L_Q, h, D), empty);
    }
    return pairs;
  }

  // A score of the tiles that is not finite: the error the row way gives, which names its first
  // such pair in (i, h, key) order (the tiles' own pair if rounding left the row way's finite).
  [[noreturn]] void overflow_in_order(std::size_t b, std::size_t i_tile, std::size_t h_tile, std::size_t j_tile) const {
    KeyList keys;
    std::vector<T> qi(E), kj(E);
    for (std::size_t i = 0; i < L_Q; ++i) {
      allowed_keys(mask, b, i, L_K, keys);
      for (std::size_t h = 0; h < H; ++h) {
        for (std::size_t e = 0; e < E; ++e) qi[e] = static_cast<T>(qd.data()[at(b, i, L_Q, h, E) + e]);
        for (const std::uint32_t j : keys) {
          for (std::size_t e = 0; e < E; ++e) kj[e] = static_cast<T>(kd.data()[kv_at(b, j, h, E) + e]);
          T s = dot(qi.data(), kj.data(), E) * scale;
          if (slopes) s += static_cast<T>(bias(h, i, j));
          if (!(s - s == T(0))) overflow(b, i, h, j);
        }
      }
    }
    overflow(b, i_tile, h_tile, j_tile);
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
                   o.recorder, o.dtype, k.shape()[2], o.alibi_slopes.empty() ? nullptr : o.alibi_slopes.data()};
  if (L_K == 0) {  // nothing to attend to
    std::fill(O, O + B * L_Q * H * D, T(0));
    return 0;
  }
  if (!mask.is_sparse()) return job.dense(empty);
  return by_tiles(mask, o) ? job.tiles(empty) : job.sparse(empty);
}

}  // namespace

bool attend_row(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask, std::size_t b,
                std::size_t i, std::size_t h, double* scores, double* weights, double* context) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  (void)B;
  (void)L_Q;
  const std::size_t hk = kv_head(h, H, k.shape()[2]);
  const double* qi = row_ptr(q, b, i, h);
  for (std::size_t j = 0; j < L_K; ++j) scores[j] = dot(qi, row_ptr(k, b, j, hk), E) * scale;  // 1.
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
  double scratch[2 + 2 * W];
  std::size_t unused = 0;  // (no error: the scores were checked above)
  update_tile<double, false>(s.data(), s.size(), 1, L_K, &m, &l, context, D, D, exp_constants<double>(), scratch,
                             unused);  // 2-4, one key block
  for (std::size_t j = 0; j < L_K; ++j) {       // 5.
    const double p = s[j];
    if (p == 0.0) continue;
    const double* vj = row_ptr(v, b, j, hk);
    for (std::size_t d = 0; d < D; ++d) context[d] += p * vj[d];
  }
  bool finite = true;
  for (std::size_t d = 0; d < D; ++d) finite = finite && std::isfinite(context[d]);
  if (!finite) {  // the unnormalised sum overflowed: normalised weights first (the row kernels)
    for (std::size_t j = 0; j < L_K; ++j) weights[j] = s[j] / l;
    weighted_values(weights, v, b, hk, context);
    return true;
  }
  for (std::size_t d = 0; d < D; ++d) context[d] /= l;  // 6.
  for (std::size_t j = 0; j < L_K; ++j) weights[j] = s[j] / l;
  return true;
}

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
  // (the dense way and the tiles convert q and k as they pack them)
  const bool sparse = mask.is_sparse() && !by_tiles(mask, options);
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
