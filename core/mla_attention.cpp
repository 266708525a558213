// Multi-head latent attention (DeepSeek-V2/V3; Hugging Face DeepseekV3Attention.forward, eager,
// rope_interleave False, no dropout; the absorbed path as DeepSeek-V3's inference/model.py
// attn_impl = "absorb"):
//
//   q       = q_b_proj(RMSNorm_q(q_a_proj x))  or  q_proj x          (B, L, H, n + r)
//   [q_nope, q_rot] = q                                            n = qk_nope_head_dim, r = qk_rope_head_dim
//   [c, k_rot] = kv_a_proj_with_mqa x                              (B, L, C + r), C = kv_lora_rank
//   latent  = RMSNorm_kv(c)                                        (B, L, C)      } what the cache
//   k_rope  = RoPE(k_rot), q_rot = RoPE(q_rot)  (core/rope.hpp, half, positions 0..L-1) } holds: C + r a token
//   textbook: [k_nope, v] = kv_b_proj latent (B, L, H, n + v_head_dim); k = [k_nope, k_rope] (one k_rope
//             for every head); weights = softmax(mask(scale q k^T)); head_context = weights v
//   absorbed: kv_b_proj's rows for head h are W_UK[h] (n, C) then W_UV[h] (v_head_dim, C);
//             q_lat = q_nope W_UK[h] (C); score = scale (q_lat . latent_j + q_rot . k_rope_j);
//             o_lat = sum_j weights_j latent_j (C); head_context = W_UV[h] o_lat
//   output  = o_proj(head_context as (B, L, H v_head_dim))        (B, L, d_model)
// RMSNorm(x) = weight x / sqrt(mean(x^2) + eps); scale = (n + r)^-0.5.
//
// Passes:
//   1. the queries (q_a_proj, RMSNorm, q_b_proj, or q_proj), split into q_nope and q_rot;
//   2. the compressed kv (kv_a_proj_with_mqa): latent = RMSNorm(c), k_rot;
//   3. rotary embedding of q_rot (every head) and k_rot (shared), half style;
//   4. (trace "full") the textbook path: per-head keys and values from kv_b_proj, full attention;
//   5. the absorbed path, one query row at a time against the latent cache: never a per-head key;
//   6. o_proj of either path's head contexts.
// At trace "context" only 1-3, 5 and 6 run, and the absorbed output is `output`.
#include "mla_attention.hpp"

#include <cmath>
#include <xtensor/xview.hpp>

#include "attention_rows.hpp"
#include "full_attention.hpp"
#include "nn_linear.hpp"
#include "rng.hpp"
#include "rope.hpp"

namespace attnplay {

MlaWeights seeded_mla_weights(std::uint64_t seed, std::size_t d_model, const MlaConfig& c) {
  Rng rng(seed, RngStream::weights);
  const std::size_t H = c.num_heads, qk = c.qk_nope_head_dim + c.qk_rope_head_dim;
  MlaWeights w;
  if (c.q_lora_rank) {
    w.q_a_proj = linear_init(rng, {*c.q_lora_rank, d_model}, d_model);
    w.q_a_layernorm = Tensor(xt::ones<double>({*c.q_lora_rank}));
    w.q_b_proj = linear_init(rng, {H * qk, *c.q_lora_rank}, *c.q_lora_rank);
  } else {
    w.q_proj = linear_init(rng, {H * qk, d_model}, d_model);
  }
  w.kv_a_proj_with_mqa = linear_init(rng, {c.kv_lora_rank + c.qk_rope_head_dim, d_model}, d_model);
  w.kv_a_layernorm = xt::ones<double>({c.kv_lora_rank});
  w.kv_b_proj = linear_init(rng, {H * (c.qk_nope_head_dim + c.v_head_dim), c.kv_lora_rank}, c.kv_lora_rank);
  w.o_proj = linear_init(rng, {d_model, H * c.v_head_dim}, H * c.v_head_dim);
  return w;
}

std::uint64_t mla_cache_numbers(std::uint64_t B, std::uint64_t L, const MlaConfig& c) {
  return B * L * (c.kv_lora_rank + c.qk_rope_head_dim);
}
std::uint64_t mla_mha_cache_numbers(std::uint64_t B, std::uint64_t L, const MlaConfig& c) {
  return B * L * c.num_heads * (c.qk_nope_head_dim + c.qk_rope_head_dim + c.v_head_dim);
}

namespace {

// DeepseekV3RMSNorm over the last axis (in float64: the class's float32 round trip left out).
Tensor rms_norm(const Tensor& x, const Tensor& weight, double eps) {
  const Tensor mean_square = xt::mean(xt::square(x), {x.dimension() - 1}, xt::keep_dims);
  return weight * (x / xt::sqrt(mean_square + eps));
}

// (B, L, H * w) viewed as (B, L, H, w) (torch's .view(query_shape)).
Tensor heads(Tensor x, std::size_t H) {
  const std::size_t B = x.shape()[0], L = x.shape()[1], w = x.shape()[2] / H;
  x.reshape({B, L, H, w});
  return x;
}

Tensor flat_heads(Tensor x) {  // (B, L, H, w) -> (B, L, H * w): attn_output.reshape(B, L, -1)
  const std::size_t B = x.shape()[0], L = x.shape()[1], n = x.shape()[2] * x.shape()[3];
  x.reshape({B, L, n});
  return x;
}

Tensor part(const Tensor& x, std::size_t from, std::size_t to) {  // x[..., from:to], contiguous
  if (x.dimension() == 3) return xt::view(x, xt::all(), xt::all(), xt::range(from, to));
  return xt::view(x, xt::all(), xt::all(), xt::all(), xt::range(from, to));
}

}  // namespace

Trace mla_attention(const Tensor& x, const MlaWeights& w, const MlaConfig& c, const Mask& mask, TraceLevel level) {
  const std::size_t B = x.shape()[0], L = x.shape()[1], H = c.num_heads;
  const std::size_t n = c.qk_nope_head_dim, r = c.qk_rope_head_dim, C = c.kv_lora_rank, dv = c.v_head_dim;
  const bool full = level == TraceLevel::full;

  // 1. q_states = q_b_proj(q_a_layernorm(q_a_proj(hidden_states))) (or q_proj), .view(query_shape)
  Tensor q = c.q_lora_rank
                 ? heads(linear(rms_norm(linear(x, *w.q_a_proj, std::nullopt, "x", "q_a_proj x"), *w.q_a_layernorm, c.eps),
                                *w.q_b_proj, std::nullopt, "x", "q_b_proj(RMSNorm(q_a_proj x))"),
                         H)
                 : heads(linear(x, *w.q_proj, std::nullopt, "x", "q_proj x"), H);
  // 2. k_pass, k_rot = torch.split(kv_a_proj_with_mqa(hidden_states), [kv_lora_rank, qk_rope_head_dim])
  const Tensor compressed = linear(x, w.kv_a_proj_with_mqa, std::nullopt, "x", "kv_a_proj_with_mqa x");
  const Tensor latent = rms_norm(part(compressed, 0, C), w.kv_a_layernorm, c.eps);
  Tensor k_rope = part(compressed, C, C + r);
  k_rope.reshape({B, L, 1, r});
  // 3. apply_rotary_pos_emb(q_rot, k_rot, cos, sin): every head's q_rot, the one shared k_rot, by
  //    core/rope.hpp's rotation (half style) at positions 0..L-1
  {
    const Tensor angles = rope_angles(L, r, c.rope_base);
    std::vector<std::int64_t> positions(L);
    for (std::size_t l = 0; l < L; ++l) positions[l] = static_cast<std::int64_t>(l);
    Tensor q_rot = part(q, n, n + r);
    rotate_in_place(q_rot, positions, angles, RopeStyle::half);
    xt::view(q, xt::all(), xt::all(), xt::all(), xt::range(n, n + r)) = q_rot;
    rotate_in_place(k_rope, positions, angles, RopeStyle::half);
  }

  Trace trace;
  if (full) {
    // 4. the textbook path: k_pass = kv_b_proj(latent).view(key_shape), split into k_nope and value_states;
    //    key_states = cat(k_nope, k_rot.expand(...)) per head
    const Tensor kv = heads(linear(latent, w.kv_b_proj, std::nullopt, "x", "kv_b_proj latent"), H);
    const Tensor values = part(kv, n, n + dv);
    Tensor keys = Tensor::from_shape({B, L, H, n + r});
    xt::view(keys, xt::all(), xt::all(), xt::all(), xt::range(0, n)) = part(kv, 0, n);
    xt::view(keys, xt::all(), xt::all(), xt::all(), xt::range(n, n + r)) =
        xt::view(k_rope, xt::all(), xt::all(), xt::range(0, 1), xt::all());
    Trace attended = full_attention(q, keys, values, c.scale, mask, TraceLevel::full);
    trace.set("latent", latent);
    Tensor k_rope_trace = k_rope;
    k_rope_trace.reshape({B, L, r});
    trace.set("k_rope", std::move(k_rope_trace));
    trace.set("q", q);        // the queries [q_nope, RoPE(q_rot)] per head
    trace.set("k", keys);     // the textbook keys [k_nope, k_rope] per head (the absorbed path has none)
    trace.set("v", values);   // the textbook values per head
    trace.set("allowed", std::get<BoolTensor>(*attended.find("allowed")));
    trace.set("weights", attended.tensor("weights"));
    const Tensor& head_context = attended.tensor("context");
    trace.set("head_context", head_context);
    // 6. attn_output.reshape(batch_size, seq_length, -1); self.o_proj(attn_output)
    trace.set("output", linear(flat_heads(head_context), w.o_proj, std::nullopt, "x", "o_proj(head contexts)"));
    trace.warnings = attended.warnings;
  }

  // 5. the absorbed path (inference/model.py, attn_impl "absorb"):
  //    q_nope = einsum("bshd,hdc->bshc", q_nope, wkv_b[:, :qk_nope_head_dim])
  //    scores = (einsum("bshc,btc->bsht", q_nope, kv_cache) + einsum("bshr,btr->bsht", q_pe, pe_cache)) * scale
  //    x = einsum("bsht,btc->bshc", scores.softmax(-1), kv_cache); x = einsum("bshc,hdc->bshd", x, wkv_b[:, -v_head_dim:])
  const Tensor& W = w.kv_b_proj;  // (H (n + dv), C)
  Tensor absorbed = Tensor::from_shape({B, L, H, dv});
  std::vector<double> q_lat(C), o_lat(C), scores(L), weights(L);
  KeyList keys;
  EmptyRowWarnings empty_rows;
  const bool sparse = mask.is_sparse();
  std::uint64_t absorbed_pairs = 0;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < L; ++i) {
      if (sparse) allowed_keys(mask, b, i, L, keys);
      const std::size_t m = sparse ? keys.size() : L;
      for (std::size_t h = 0; h < H; ++h) {
        const double* qi = row_ptr(q, b, i, h);  // [q_nope (n), q_rot (r)]
        const double* W_UK = W.data() + h * (n + dv) * C;
        std::fill(q_lat.begin(), q_lat.end(), 0.0);
        for (std::size_t d = 0; d < n; ++d)
          for (std::size_t cc = 0; cc < C; ++cc) q_lat[cc] += qi[d] * W_UK[d * C + cc];
        for (std::size_t t = 0; t < m; ++t) {
          const std::size_t j = sparse ? keys[t] : t;
          scores[t] = c.scale * (dot(q_lat.data(), &latent(b, j, 0), C) + dot(qi + n, row_ptr(k_rope, b, j, 0), r));
          if (!std::isfinite(scores[t])) throw OverflowError("x", "a score (q_lat . latent + q_rot . k_rope) is not finite at batch " +
                                                                     std::to_string(b) + ", query " + std::to_string(i) +
                                                                     " (|x| and the weights too large)");
        }
        bool some = true;
        if (sparse) {
          softmax_row(scores.data(), m, weights.data());
          some = m > 0;
        } else {
          some = masked_softmax_row(scores.data(), mask, b, i, L, weights.data());
        }
        if (!some) empty_rows.add(b, h, i);
        absorbed_pairs += m;
        std::fill(o_lat.begin(), o_lat.end(), 0.0);
        for (std::size_t t = 0; t < m; ++t) {
          const double wt = weights[t];
          if (wt == 0.0) continue;
          const double* lj = &latent(b, sparse ? keys[t] : t, 0);
          for (std::size_t cc = 0; cc < C; ++cc) o_lat[cc] += wt * lj[cc];
        }
        double* out = row_ptr(absorbed, b, i, h);
        const double* W_UV = W_UK + n * C;
        for (std::size_t d = 0; d < dv; ++d) out[d] = dot(W_UV + d * C, o_lat.data(), C);
      }
    }
  // 6. self.wo(x.flatten(2))
  Tensor output_absorbed = linear(flat_heads(std::move(absorbed)), w.o_proj, std::nullopt, "x", "o_proj(head contexts)");
  if (full) {
    trace.set("output_absorbed", std::move(output_absorbed));
  } else {
    trace.set("output", std::move(output_absorbed));
    empty_rows.flush(trace.warnings);
  }
  // The attention itself, as inference computes it (the absorbed path): per pair C + r products for
  // the score and C for the latent sum; the projections per token.
  const std::size_t qk = n + r, d_model = x.shape()[2];
  const std::uint64_t tokens = std::uint64_t{B} * L;
  const std::uint64_t per_token = (c.q_lora_rank ? *c.q_lora_rank * (d_model + H * qk) : d_model * H * qk) +
                                  d_model * (C + r) + H * n * C + H * dv * C + H * dv * d_model;
  trace.cost = {absorbed_pairs, std::uint64_t{B} * H * L * L, 2 * absorbed_pairs * (2 * C + r) + 2 * tokens * per_token};
  trace.cost.kv_cache_numbers = mla_cache_numbers(B, L, c);
  // what multi-head attention with the same heads would cache, beside it
  trace.set("mha_kv_cache_numbers", static_cast<std::int64_t>(mla_mha_cache_numbers(B, L, c)));
  return trace;
}

}  // namespace attnplay
