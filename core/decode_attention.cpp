// Autoregressive decoding with a KV cache (Hugging Face's DynamicCache; StreamingLLM's
// StartRecentKVCache for the eviction; SPEC §2 `decode`):
//
//   prefill   rows i < P at once: context_i = softmax_j(scale q_i . k_j) v_j over the j the cache rule
//             keeps for i (causal: j <= i; sink: j <= i and (i - j < window or j < sinks))
//   step i >= P:  cache += (k_i, v_i); evict every j the rule no longer keeps for i;
//             context_i = softmax over the cache of scale q_i . k_j, times v_j
//
// Shapes: q (B, L, H, E), k (B, L, H_kv, E), v (B, L, H_kv, D); query head h reads kv head
// h / (H / H_kv) (GQA/MQA by index, never a copy). With rope the tokens are rotated at their own
// positions before anything (the cache holds rotated keys, as Llama's), so the result equals `full`
// under the cache's mask; with rope_in_cache (StreamingLLM) the cache holds unrotated keys, each turned
// at its index in the cache and the query at the last index, at every step.
//
// Passes:
//   1. rope at the tokens' positions (q and k rotated once), or the angles for in-cache positions;
//   2. the prefill: rows 0..P-1, each over its allowed keys; the cache then holds row P-1's keys;
//   3. the steps i = P..L-1: append i, evict what the rule drops, record the cache;
//   4. each row (prefill and steps) over its held keys: scores, softmax, weighted values, O(held) per
//      head (the row kernel attend_held);
//   5. (trace "full") the per-step tensors, the weights map, and full attention under the cache's
//      mask beside it.
#include "decode_attention.hpp"

#include <algorithm>
#include <cmath>
#include <xtensor/xmath.hpp>

#include "attention_rows.hpp"
#include "full_attention.hpp"

namespace attnplay {

namespace {

struct Rows {
  const Tensor& q;
  const Tensor& k;
  const Tensor& v;
  double scale;
  const Tensor* angles;  // rope in the cache: rope_angles, else nullptr
  RopeStyle style;
};

// 4. Query i (every head of batch item b) over the held keys, in their order: weights out (B... one
// row of n per head: w[h * n + t]) and context rows. Rope in the cache: key held[t] turned at
// position t, the query at n - 1.
std::uint64_t attend_held(const Rows& r, std::size_t b, std::size_t i, const std::vector<std::uint32_t>& held,
                          std::vector<double>& w, Tensor& context) {
  const std::size_t H = r.q.shape()[2], H_kv = r.k.shape()[2], E = r.q.shape()[3], n = held.size();
  w.assign(H * n, 0.0);
  Tensor keys, query;  // rope in the cache: the held keys of one kv head and one query, turned
  std::vector<std::int64_t> key_positions, query_position{static_cast<std::int64_t>(n) - 1};
  if (r.angles) {
    key_positions.resize(n);
    for (std::size_t t = 0; t < n; ++t) key_positions[t] = static_cast<std::int64_t>(t);
    keys = Tensor::from_shape({1, n, 1, E});
    query = Tensor::from_shape({1, 1, 1, E});
  }
  for (std::size_t hk = 0; hk < H_kv; ++hk) {
    if (r.angles) {
      for (std::size_t t = 0; t < n; ++t) std::copy_n(row_ptr(r.k, b, held[t], hk), E, row_ptr(keys, 0, t, 0));
      rotate_in_place(keys, key_positions, *r.angles, r.style);
    }
    for (std::size_t h = hk * (H / H_kv); h < (hk + 1) * (H / H_kv); ++h) {
      const double* qi = row_ptr(r.q, b, i, h);
      if (r.angles) {
        std::copy_n(qi, E, query.data());
        rotate_in_place(query, query_position, *r.angles, r.style);
        qi = query.data();
      }
      double* wh = w.data() + h * n;
      for (std::size_t t = 0; t < n; ++t) {
        wh[t] = r.scale * dot(qi, r.angles ? row_ptr(keys, 0, t, 0) : row_ptr(r.k, b, held[t], hk), E);
        if (!std::isfinite(wh[t])) throw_score_overflow(r.q, r.k, b, i, h, held[t]);
      }
      softmax_row(wh, n, wh);
      weighted_values(wh, r.v, b, hk, row_ptr(context, b, i, h), &held);
    }
  }
  return std::uint64_t{H} * n;
}

}  // namespace

Trace decode_attention(const Tensor& q_in, const Tensor& k_in, const Tensor& v, double scale, const DecodeOptions& o,
                       TraceLevel level) {
  const std::size_t B = q_in.shape()[0], L = q_in.shape()[1], H = q_in.shape()[2], E = q_in.shape()[3];
  const std::size_t H_kv = k_in.shape()[2], D = v.shape()[3], P = o.prompt, T = L - P;
  const bool full = level == TraceLevel::full;
  Trace trace;

  // 1. rope: at the tokens' positions, once (q and k rotated copies); in the cache, angles for the
  //    indices 0..L-1 a cache can have
  Tensor q = q_in, k = k_in, angles;
  if (o.rope && !o.rope_in_cache) {
    angles = apply_rope(q, k, *o.rope);
  } else if (o.rope) {
    angles = rope_angles(L, E, o.rope->base);
  }
  const Rows rows{q, k, v, scale, o.rope && o.rope_in_cache ? &angles : nullptr,
                  o.rope ? o.rope->style : RopeStyle::half};

  Tensor context = xt::zeros<double>({B, L, H, D});
  Tensor weights = full ? Tensor(xt::zeros<double>({B, H, L, L})) : Tensor();
  std::vector<double> w;
  std::uint64_t pairs = 0;
  const auto keep_weights = [&](std::size_t b, std::size_t i, const std::vector<std::uint32_t>& held) {
    if (!full) return;
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t t = 0; t < held.size(); ++t) weights(b, h, i, held[t]) = w[h * held.size() + t];
  };

  // 2. the prefill: each row over the keys the rule keeps for it (the mask's allowed keys)
  std::vector<std::uint32_t> held;
  for (std::size_t i = 0; i < P; ++i) {
    allowed_keys(o.cache, 0, i, L, held);
    for (std::size_t b = 0; b < B; ++b) {
      pairs += attend_held(rows, b, i, held, w, context);
      keep_weights(b, i, held);
    }
  }
  // 3. the steps: the cache after the prefill holds row P-1's keys; each step appends, then evicts
  std::size_t n_max = held.size();
  std::vector<std::vector<std::uint32_t>> positions;  // the cache after each step (trace "full")
  std::vector<std::vector<double>> step_rows;         // each step's weights, (B, H, n) flat
  for (std::size_t i = P; i < L; ++i) {
    held.push_back(static_cast<std::uint32_t>(i));
    held.erase(std::remove_if(held.begin(), held.end(), [&](std::uint32_t j) { return !o.cache.allows(0, i, j); }),
               held.end());
    n_max = std::max(n_max, held.size());
    std::vector<double> step(full ? B * H * held.size() : 0);
    for (std::size_t b = 0; b < B; ++b) {
      pairs += attend_held(rows, b, i, held, w, context);
      keep_weights(b, i, held);
      if (full) std::copy(w.begin(), w.end(), step.begin() + b * H * held.size());
    }
    if (full) {
      positions.push_back(held);
      step_rows.push_back(std::move(step));
    }
  }

  // 5. the trace
  trace.set("context", context);
  trace.cost = {pairs, std::uint64_t{B} * H * L * L, 2 * pairs * (E + D)};
  trace.cost.kv_cache_numbers = std::uint64_t{B} * n_max * H_kv * (E + D);
  if (H_kv != H) {
    IndexTensor kv = IndexTensor::from_shape({H});
    for (std::size_t h = 0; h < H; ++h) kv(h) = static_cast<std::int64_t>(kv_head(h, H, H_kv));
    trace.set("kv_head", std::move(kv));
  }
  if (!full) return trace;
  const std::size_t n_steps = T ? n_max : 0;
  IndexTensor cache_positions = IndexTensor::from_shape({T, n_steps});
  std::fill(cache_positions.begin(), cache_positions.end(), std::int64_t{-1});
  Tensor step_weights = xt::zeros<double>({T, B, H, n_steps});
  IndexTensor cache_numbers = IndexTensor::from_shape({T});
  for (std::size_t t = 0; t < T; ++t) {
    const std::size_t n = positions[t].size();
    for (std::size_t s = 0; s < n; ++s) cache_positions(t, s) = positions[t][s];
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t s = 0; s < n; ++s) step_weights(t, b, h, s) = step_rows[t][(b * H + h) * n + s];
    cache_numbers(t) = static_cast<std::int64_t>(B * n * H_kv * (E + D));
  }
  trace.set("prompt", static_cast<std::int64_t>(P));
  trace.set("allowed", allowed_tensor(o.cache, B, H, L, L));
  trace.set("weights", std::move(weights));
  trace.set("cache_positions", std::move(cache_positions));
  trace.set("step_weights", std::move(step_weights));
  trace.set("cache_numbers", std::move(cache_numbers));
  // full attention under the cache's mask, on the same (rotated at the tokens' positions) q and k
  Tensor q_full = q_in, k_full = k_in;
  if (o.rope) apply_rope(q_full, k_full, *o.rope);
  Tensor full_context = full_attention(q_full, k_full, v, scale, o.cache, TraceLevel::context).tensor("context");
  trace.set("max_abs_diff", static_cast<double>(xt::amax(xt::abs(context - full_context))()));
  trace.set("full_context", std::move(full_context));
  if (o.rope && !o.rope_in_cache) add_rope_trace(trace, std::move(q), std::move(k), std::move(angles));
  else if (o.rope) trace.set("rope_angles", std::move(angles));
  return trace;
}

}  // namespace attnplay
