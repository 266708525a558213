// Sparse masks through the fused kernel's tiles (attention_kernel.cpp, Job::tiles; issue 18 part 6).
//
//   mask passes      the passes of mask_passes.hpp (class keys in [lo, hi) minus a hole) are disjoint and
//                    together exactly allowed_keys, for every kind, causal or not, aligned or not
//   tiles = rows     the tiles' context equals the row kernels' (score_row, softmax_row,
//                    weighted_values over allowed_keys) and the kernel's row way (which a recorder
//                    selects) to 1e-12 in float64, at ragged sizes (L not a multiple of the tiles,
//                    windows past L, L_Q != L_K), batch, heads, GQA/MQA and ALiBi; the same pair
//                    count and the same warnings; float32 within 1e-5
//   block_q          changes no number of the tiles (float64 and float32, bit for bit)
//   overflow         a score that is not finite names the pair the row way names
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "../../core/alibi.hpp"
#include "../../core/attention_kernel.hpp"
#include "../../core/mask_passes.hpp"
#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;

namespace {

// A recorder that keeps nothing: its presence sends a sparse mask the row way (the reference).
struct RowWay : KeyBlockRecorder {
  void record(std::size_t, std::size_t, std::size_t, std::size_t, double, double, const double*, std::size_t) override {}
};

Tensor random_tensor(Rng& rng, std::size_t B, std::size_t L, std::size_t H, std::size_t X) {
  Tensor t = Tensor::from_shape({B, L, H, X});
  for (double& x : t) x = rng.normal();
  return t;
}

/** A mask whose step is its dilation (atrous) and its stride (strided). */
Mask make_mask(MaskKind kind, std::int64_t window = 0, std::int64_t step = 1, bool causal = false) {
  return structured_mask(kind, window, step, step, causal);
}

// The structured masks the tiles take, for L_Q x L_K (valid_lens sized for B = 2).
std::vector<Mask> tiled_masks(std::size_t L_Q, std::size_t L_K) {
  std::vector<Mask> masks;
  masks.push_back(make_mask(MaskKind::causal));
  for (const std::int64_t w : {0, 1, 5, 16, 40, 300}) {  // 300: a window past L
    masks.push_back(make_mask(MaskKind::local, w));
    masks.push_back(make_mask(MaskKind::local, w, 1, true));
  }
  for (const std::int64_t k : {1, 2, 3, 7, 64}) {
    masks.push_back(make_mask(MaskKind::atrous, 0, k));
    masks.push_back(make_mask(MaskKind::atrous, 0, k, true));
  }
  for (const auto& [w, s] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {1, 3}, {2, 2}, {5, 4}, {16, 7}, {3, 64}}) {
    masks.push_back(make_mask(MaskKind::strided, w, s));
    masks.push_back(make_mask(MaskKind::strided, w, s, true));
  }
  for (const auto& [w, s] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 0}, {3, 1}, {4, 4}, {20, 2}}) {
    Mask m = make_mask(MaskKind::sink, w);
    m.sinks = s;
    masks.push_back(m);
  }
  Mask lens = make_mask(MaskKind::valid_lens);
  lens.valid_lens = IndexTensor::from_shape({2});
  lens.valid_lens(0) = static_cast<std::int64_t>(L_K / 2);
  lens.valid_lens(1) = 0;  // every row of batch item 1 empty
  masks.push_back(lens);
  Mask rows = make_mask(MaskKind::valid_lens);  // per query, not monotone
  rows.valid_lens = IndexTensor::from_shape({2, L_Q});
  for (std::size_t i = 0; i < L_Q; ++i) {
    rows.valid_lens(0, i) = static_cast<std::int64_t>((i * 7) % (L_K + 1));
    rows.valid_lens(1, i) = static_cast<std::int64_t>(L_K - (i * 3) % (L_K + 1));
  }
  masks.push_back(rows);
  if (L_Q != L_K)  // "align": "bottom_right"
    for (Mask m : {make_mask(MaskKind::causal), make_mask(MaskKind::local, 3), make_mask(MaskKind::local, 2, 1, true),
                   make_mask(MaskKind::none, 0, 1, true)}) {
      m.shift = static_cast<std::int64_t>(L_K) - static_cast<std::int64_t>(L_Q);
      masks.push_back(m);
    }
  return masks;
}

std::string describe(const Mask& m) {
  return std::string(mask_kind_name(m.kind)) + " window " + std::to_string(m.window) + " dilation " +
         std::to_string(m.dilation) + " stride " + std::to_string(m.stride) + " sinks " + std::to_string(m.sinks) +
         (m.causal ? " causal" : "") + " shift " + std::to_string(m.shift);
}

// The row kernels' context (attention_rows.hpp): the reference, float64.
Tensor row_kernels(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask,
                   const std::vector<double>& slopes) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  (void)E;
  const std::size_t H_kv = k.shape()[2];
  Tensor out = Tensor::from_shape({B, L_Q, H, D});
  KeyList keys;
  std::vector<double> s(L_K), w(L_K);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L_Q; ++i) {
      allowed_keys(mask, b, i, L_K, keys);
      for (std::size_t h = 0; h < H; ++h) {
        double* o = row_ptr(out, b, i, h);
        std::fill(o, o + D, 0.0);
        if (keys.empty()) continue;
        score_row(q, k, b, i, h, scale, s.data(), &keys);
        if (!slopes.empty())
          for (std::size_t t = 0; t < keys.size(); ++t) s[t] += alibi_term(slopes[h], i, keys[t]);
        softmax_row(s.data(), keys.size(), w.data());
        weighted_values(w.data(), v, b, kv_head(h, H, H_kv), o, &keys);
      }
    }
  return out;
}

double max_rel(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double m = 0;
  for (std::size_t x = 0; x < a.size(); ++x)
    m = std::max(m, std::abs(a.data()[x] - b.data()[x]) / std::max(1.0, std::abs(b.data()[x])));
  return m;
}

struct Run {
  Tensor context;
  std::uint64_t pairs = 0;
  std::vector<std::string> warnings;
};

Run attend_with(const Tensor& q, const Tensor& k, const Tensor& v, double scale, const Mask& mask, Dtype dtype,
                bool row_way, const std::vector<double>& slopes = {}, std::size_t block_q = 0) {
  RowWay rec;
  AttentionOptions o;
  o.dtype = dtype;
  o.block_q = block_q;
  o.alibi_slopes = slopes;
  if (row_way) o.recorder = &rec;
  Run r;
  EmptyRowWarnings empty;
  r.pairs = attend(q, k, v, scale, mask, o, r.context, empty);
  empty.flush(r.warnings);
  return r;
}

}  // namespace

TEST_CASE("mask passes: disjoint, and together exactly the keys allowed_keys lists") {
  KeyList keys;
  for (const std::size_t L_Q : {1, 6, 13, 40})
    for (const std::size_t L_K : {1, 5, 13, 41})
      for (const Mask& m : tiled_masks(L_Q, L_K)) {
        REQUIRE(mask_passes(m) > 0);
        for (std::size_t b = 0; b < 2; ++b)
          for (std::size_t i = 0; i < L_Q; ++i) {
            INFO(describe(m) << " L_Q " << L_Q << " L_K " << L_K << " b " << b << " i " << i);
            std::multiset<std::uint32_t> got;
            std::size_t counted = 0;
            for (std::size_t p = 0; p < mask_passes(m); ++p) {
              const std::size_t g = mask_pass_step(m, p), r = i % g;
              const KeySpan s = mask_pass_keys(m, p, b, i, L_K);
              CHECK(s.hi <= (L_K > r ? (L_K - r + g - 1) / g : 0));
              for (std::size_t c = s.lo; c < s.hi; ++c)
                if (!(s.hole_lo <= c && c < s.hole_hi)) got.insert(static_cast<std::uint32_t>(r + g * c));
              counted += s.count();
            }
            allowed_keys(m, b, i, L_K, keys);
            CHECK(std::vector<std::uint32_t>(got.begin(), got.end()) == keys);  // (a multiset: no key twice)
            CHECK(counted == keys.size());
          }
      }
  Mask explicit_mask = make_mask(MaskKind::explicit_allowed);
  CHECK(mask_passes(explicit_mask) == 0);  // row by row
  Mask finite = make_mask(MaskKind::local, 2);
  finite.fill = -1e9;
  CHECK(mask_passes(finite) == 0);  // dense
}

TEST_CASE("sparse masks through the tiles: the row kernels' and the row way's context to 1e-12, the same pairs "
          "and warnings; float32 within 1e-5") {
  struct Size {
    std::size_t B, H, H_kv, L_Q, L_K, E, D;
  };
  // ragged: L not a multiple of the 4-row block, the 32-row tile or the 128-key block; L_Q != L_K
  // both ways; GQA (H_kv = 2 of 4) and MQA (1 of 3)
  const Size sizes[] = {{2, 1, 1, 1, 1, 1, 1},     {2, 2, 2, 5, 3, 3, 2},      {2, 4, 2, 37, 37, 7, 9},
                        {2, 3, 1, 70, 45, 8, 5},   {2, 1, 1, 33, 140, 13, 4},  {2, 2, 1, 131, 131, 4, 8},
                        {2, 1, 1, 260, 257, 16, 3}};
  Rng rng(18, RngStream::data);
  int cases = 0;
  for (const Size& z : sizes) {
    const Tensor q = random_tensor(rng, z.B, z.L_Q, z.H, z.E), k = random_tensor(rng, z.B, z.L_K, z.H_kv, z.E),
                 v = random_tensor(rng, z.B, z.L_K, z.H_kv, z.D);
    const double scale = 0.7;
    for (const Mask& m : tiled_masks(z.L_Q, z.L_K))
      for (const bool alibi : {false, true}) {
        if (alibi && (z.L_Q > 70 || m.kind == MaskKind::sink)) continue;
        const std::vector<double> slopes = alibi ? alibi_slopes(z.H) : std::vector<double>{};
        INFO(describe(m) << " B " << z.B << " H " << z.H << " H_kv " << z.H_kv << " L_Q " << z.L_Q << " L_K " << z.L_K
                         << " E " << z.E << " D " << z.D << (alibi ? " alibi" : ""));
        const Run tiles = attend_with(q, k, v, scale, m, Dtype::float64, false, slopes);
        const Run rows = attend_with(q, k, v, scale, m, Dtype::float64, true, slopes);
        CHECK(max_rel(tiles.context, row_kernels(q, k, v, scale, m, slopes)) <= 1e-12);
        CHECK(max_rel(tiles.context, rows.context) <= 1e-12);
        CHECK(tiles.pairs == rows.pairs);
        CHECK(tiles.pairs == attended_pairs(m, z.B, z.H, z.L_Q, z.L_K));
        CHECK(tiles.warnings == rows.warnings);
        const Run tiles32 = attend_with(q, k, v, scale, m, Dtype::float32, false, slopes);
        const Run rows32 = attend_with(q, k, v, scale, m, Dtype::float32, true, slopes);
        CHECK(max_rel(tiles32.context, tiles.context) <= 1e-5);
        CHECK(max_rel(tiles32.context, rows32.context) <= 1e-5);
        CHECK(tiles32.warnings == rows32.warnings);
        ++cases;
      }
  }
  CHECK(cases > 400);
}

TEST_CASE("sparse masks through the tiles: block_q changes no number (float64 and float32)") {
  Rng rng(7, RngStream::data);
  const Tensor q = random_tensor(rng, 1, 150, 2, 8), k = random_tensor(rng, 1, 150, 2, 8), v = random_tensor(rng, 1, 150, 2, 6);
  for (const Mask& m : {make_mask(MaskKind::causal), make_mask(MaskKind::local, 16), make_mask(MaskKind::atrous, 0, 3, true),
                        make_mask(MaskKind::strided, 5, 4)})
    for (const Dtype dtype : {Dtype::float64, Dtype::float32}) {
      INFO(describe(m) << (dtype == Dtype::float32 ? " float32" : " float64"));
      const Tensor base = attend_with(q, k, v, 0.5, m, dtype, false, {}, 1).context;
      for (const std::size_t bq : {3, 8, 32, 200}) CHECK(max_rel(attend_with(q, k, v, 0.5, m, dtype, false, {}, bq).context, base) == 0);
    }
}

TEST_CASE("sparse masks through the tiles: a score that is not finite names the row way's first pair") {
  Rng rng(3, RngStream::data);
  Tensor q = random_tensor(rng, 2, 70, 2, 4), k = random_tensor(rng, 2, 70, 2, 4), v = random_tensor(rng, 2, 70, 2, 3);
  const auto set = [](Tensor& x, std::size_t b, std::size_t l, std::size_t h, std::vector<double> e) {
    std::copy(e.begin(), e.end(), row_ptr(x, b, l, h));
  };
  // batch 1: query 50 (head 1) meets key 45 as inf - inf (NaN), query 44 (head 0) key 45 as inf; key 45
  // is in the window of both; a masked pair far away overflows too (never computed by the row way)
  set(q, 1, 50, 1, {1e300, 1e300, 0, 0});
  set(k, 1, 45, 1, {1e300, -1e300, 0, 0});
  set(q, 1, 44, 0, {0, 0, 1e300, 1e300});
  set(k, 1, 45, 0, {0, 0, 1e300, 1e300});
  set(k, 1, 2, 0, {0, 0, 1e300, 1e300});
  const auto error = [&](const Mask& m, Dtype dtype, bool row_way) -> std::string {
    try {
      attend_with(q, k, v, 1.0, m, dtype, row_way);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  for (const Mask& m : {make_mask(MaskKind::local, 8), make_mask(MaskKind::strided, 8, 5), make_mask(MaskKind::causal),
                        make_mask(MaskKind::atrous, 0, 1)})
    for (const Dtype dtype : {Dtype::float64, Dtype::float32}) {
      INFO(describe(m));
      const std::string e = error(m, dtype, false);
      CHECK(e == error(m, dtype, true));
      if (dtype == Dtype::float32) continue;  // (|q| = 1e300 is already beyond float32: "dtype" names it, both ways)
      if (m.kind == MaskKind::causal || m.kind == MaskKind::atrous)  // key 2 is allowed to query 44
        CHECK(e == "q: q.k of query 44 and key 2 (batch 1, head 0) is not a finite number (|q| and |k| too large)");
      else
        CHECK(e == "q: q.k of query 44 and key 45 (batch 1, head 0) is not a finite number (|q| and |k| too large)");
    }
}
