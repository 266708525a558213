// Linear (kernel) attention, as Su Jianlin's note (seed 002) generalises attention:
//
//   Attention(Q, K, V)_i = sum_j sim(q_i, k_j) v_j / sum_j sim(q_i, k_j),   sim >= 0
//
// and, with sim(q, k) = phi(q) . phi(k), computes it without the L x L matrix: the sums over j
// do not depend on i, so
//
//   context_i = phi(q_i)^T [sum_j phi(k_j) v_j^T] / phi(q_i) . [sum_j phi(k_j)]
//
// costs O(L F D) instead of O(L^2 E). No scale, no eps (SPEC §2).
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D); features phi (.., F):
//   feature_map  phi(x)                           F       sim(q, k)
//   elu1         elu(x) + 1                       E       phi(q) . phi(k)        (the note's 核函数)
//   relu         max(x, 0)                        E       phi(q) . phi(k)
//   cosine1      [1, x / |x|]                     E + 1   1 + cos(q, k)          (作者自己的构思)
//   softmax_qk   q: softmax over E of each row;   E       softmax_E(q_i) . softmax_L(K)[j]
//                k: softmax over L_K of each column       (Softmax 妙用; no normalisation)
//
// The passes (performer_attention.cpp runs 2-4 on its own features):
//   1. features_q (B, L_Q, H, F) = phi(q), features_k (B, L_K, H, F) = phi(k)
//   2. per (b, h): KV (F, D) = sum_j phi(k_j) v_j^T and z (F) = sum_j phi(k_j), once;
//      causal ("causal": key j allowed iff j <= i): the same sums as prefix sums, grown key by
//      key while the queries are visited in order
//   3. context (B, L_Q, H, D): context_i = phi(q_i)^T KV / phi(q_i) . z; softmax_qk:
//      context_i = phi(q_i)^T KV (the note: softmax_1(Q) softmax_2(K)^T V, rows already sum
//      to 1 without a mask). A denominator of 0 (relu: no positive feature in common) gives
//      zero context and a warning, never NaN.
//   4. at trace "full" only: the implied weights (B, H, L_Q, L_K), w_ij = phi(q_i) . phi(k_j) /
//      phi(q_i) . z (0 for j > i under causal); the only L x L matrix, for the picture
//   5. at trace "full" only: exact_context = softmax(scale Q K^T + mask) V (scale default
//      1/sqrt(E)), max_abs_error = max |context - exact_context| (add_exact_context); left out
//      with a warning where scale q.k itself overflows (linear attention does not need it)
//
// cosine1 of a zero vector is undefined (cos needs |x| > 0): an InputError naming the row
// (q[b][i][h] or k[b][j][h]). softmax_qk under the causal mask: the column softmax of K runs
// over all L_K keys as the note writes it (so it sees future keys), then the prefix sums;
// its weight rows then sum to less than 1 (docs/semantics.md, "Linear attention").
//
// Cost: dot_products = B*H*(L_Q + L_K)*(D + 1) (D without the normaliser: softmax_qk): each
// key's outer product phi(k_j) [v_j, 1]^T and each query's phi(q_i)^T [KV, z] are D + 1
// length-F products; flops = 2 * F * dot_products. The feature maps and the picture (4) are not
// counted.
#include "linear_attention.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "attention_rows.hpp"
#include "full_attention.hpp"

namespace attnplay {

namespace {

// "batch b, head h, query i: ..." for the first 5 queries whose denominator is 0, then a count.


// A sum of step 2 or 3 that is not finite: blame the input that made it large.
[[noreturn]] void throw_sum_overflow(const std::vector<double>& KV, const std::vector<double>& z, std::size_t b,
                                     std::size_t h, std::size_t i) {
  const auto finite = [](const std::vector<double>& x) {
    return std::all_of(x.begin(), x.end(), [](double a) { return std::isfinite(a); });
  };
  const std::string where = " (batch " + std::to_string(b) + ", head " + std::to_string(h) + ")";
  if (!finite(z)) throw OverflowError("k", "sum_j phi(k_j) is not a finite number" + where + ": |k| too large");
  if (!finite(KV)) throw OverflowError("v", "sum_j phi(k_j) v_j^T is not a finite number" + where + ": |v| too large");
  throw OverflowError("q", "phi(q_i)^T sum_j phi(k_j) v_j^T of query " + std::to_string(i) + where +
                               " is not a finite number: |q| too large");
}

// 1. elu(x) + 1 and max(x, 0): xtensor expressions on the whole tensor.
Tensor elementwise_features(const Tensor& x, FeatureMap map) {
  if (map == FeatureMap::elu1) return xt::where(x > 0.0, x + 1.0, xt::exp(x));  // F.elu(x) + 1
  return xt::maximum(x, 0.0);                                                     // F.relu(x)
}

// 1. cosine1: [1, x / |x|], |x| computed with the largest entry factored out (no overflow at 1e300,
// no underflow at 1e-320).
Tensor cosine_features(const Tensor& x, const char* name) {
  const auto& s = x.shape();
  const std::size_t E = s[3];
  Tensor phi = Tensor::from_shape({s[0], s[1], s[2], E + 1});
  for (std::size_t b = 0; b < s[0]; ++b)
    for (std::size_t l = 0; l < s[1]; ++l)
      for (std::size_t h = 0; h < s[2]; ++h) {
        const double* xr = row_ptr(x, b, l, h);
        double* out = row_ptr(phi, b, l, h);
        double biggest = 0.0;
        for (std::size_t e = 0; e < E; ++e) biggest = std::max(biggest, std::abs(xr[e]));
        if (biggest == 0.0)
          throw InputError(row_field(name, b, l, h),
                           "cosine1 needs a nonzero vector: cos(q, k) = q.k / (|q| |k|) is undefined for |" +
                               std::string(name) + "| = 0");
        double sum = 0.0;
        for (std::size_t e = 0; e < E; ++e) sum += (xr[e] / biggest) * (xr[e] / biggest);
        const double norm = std::sqrt(sum);  // |x| / biggest
        out[0] = 1.0;
        for (std::size_t e = 0; e < E; ++e) out[e + 1] = (xr[e] / biggest) / norm;
      }
  return phi;
}

// 1. softmax_qk of q: `softmax(q, dim=-1)`, one row at a time (the shared softmax_row).
Tensor softmax_rows(const Tensor& q) {
  Tensor phi = Tensor::from_shape(q.shape());
  const std::size_t E = q.shape()[3], rows = q.size() / E;
  for (std::size_t r = 0; r < rows; ++r) softmax_row(q.data() + r * E, E, phi.data() + r * E);
  return phi;
}

// 1. softmax_qk of k: `softmax(k, dim=1)`, over L_K for each (b, h, e).
Tensor softmax_columns(const Tensor& k) {
  Tensor phi = Tensor::from_shape(k.shape());
  for (std::size_t b = 0; b < k.shape()[0]; ++b)
    for (std::size_t h = 0; h < k.shape()[2]; ++h) {
      const auto K_bh = xt::view(k, b, xt::all(), h, xt::all());  // (L_K, E)
      const Tensor top = xt::amax(K_bh, {0}, xt::keep_dims);
      const Tensor e = xt::exp(K_bh - top);
      const Tensor total = xt::sum(e, {0}, xt::keep_dims);
      xt::view(phi, b, xt::all(), h, xt::all()) = e / total;
    }
  return phi;
}

// performer-pytorch's causal no_projection keys: `torch.exp(k)`, elementwise; an overflow names the row.
Tensor exp_features(const Tensor& k) {
  Tensor phi = xt::exp(k);
  const auto& s = k.shape();
  for (std::size_t b = 0; b < s[0]; ++b)
    for (std::size_t l = 0; l < s[1]; ++l)
      for (std::size_t h = 0; h < s[2]; ++h)
        for (std::size_t e = 0; e < s[3]; ++e)
          if (!std::isfinite(phi(b, l, h, e)))
            throw OverflowError(row_field("k", b, l, h), "performer-pytorch's causal softmax_qk takes exp(k) unnormalised: exp(" +
                                                             number_text(k(b, l, h, e)) + ") is not a finite number");
  return phi;
}

// The feature maps each library has: fast-transformers' elu_feature_map and an activation
// (relu); performer-pytorch's no_projection softmax (the rest of its features are `performer`).
void check_reference_map(KernelReference ref, FeatureMap map) {
  if (ref == KernelReference::fast_transformers && map != FeatureMap::elu1 && map != FeatureMap::relu)
    throw InputError("feature_map", "reference \"fast-transformers\" has the feature maps \"elu1\" and \"relu\" "
                                    "(elu_feature_map, ActivationFunctionFeatureMap(relu))");
  if (ref == KernelReference::performer_pytorch && map != FeatureMap::softmax_qk)
    throw InputError("feature_map", "reference \"performer-pytorch\" in linear attention is its no_projection path, "
                                    "\"softmax_qk\" (its random features are the algorithm \"performer\")");
}

}  // namespace

void check_causal_lengths(KernelReference ref, std::size_t L_Q, std::size_t L_K) {
  if (L_Q <= L_K) return;
  throw InputError("q", ref == KernelReference::fast_transformers
                            ? "fast-transformers' CausalLinearAttention needs L_Q <= L_K (it pads k with zeros but "
                              "reads v's first L_Q rows), got L_Q = " + std::to_string(L_Q) + ", L_K = " + std::to_string(L_K)
                            : "performer-pytorch's causal_linear_attention_noncuda needs L_Q <= L_K (its chunks pair "
                              "q's rows with k's, and stop at the shorter), got L_Q = " + std::to_string(L_Q) +
                                  ", L_K = " + std::to_string(L_K));
}

std::string row_field(const char* name, std::size_t b, std::size_t l, std::size_t h) {
  return std::string(name) + "[" + std::to_string(b) + "][" + std::to_string(l) + "][" + std::to_string(h) + "]";
}

void check_kernel_mask_kind(const std::string& kind, const std::string& field, const std::string& algorithm) {
  if (kind != "none" && kind != "causal")
    throw InputError(field, algorithm + " takes the mask \"none\" or \"causal\" (prefix sums), got \"" + kind + "\"");
}

KernelEps kernel_eps(KernelReference ref) {
  if (ref == KernelReference::fast_transformers) return {1e-6, 0.0};  // LinearAttention(eps=1e-6)
  if (ref == KernelReference::performer_pytorch) return {0.0, 1e-6};  // causal_linear_attention_noncuda(eps=1e-6)
  return {};
}

void linear_attention_pass(const Tensor& phi_q, const Tensor& phi_k, const Tensor& v, bool causal,
                           bool normalise, TraceLevel level, Trace& trace, KernelEps eps) {
  const std::size_t B = phi_q.shape()[0], L_Q = phi_q.shape()[1], H = phi_q.shape()[2], F = phi_q.shape()[3];
  const std::size_t L_K = v.shape()[1], D = v.shape()[3];
  const bool full = level == TraceLevel::full;

  Tensor context = xt::zeros<double>({B, L_Q, H, D});
  Tensor weights;
  if (full) weights = xt::zeros<double>({B, H, L_Q, L_K});
  std::vector<double> KV(F * D), z(F), den(L_Q);
  EmptyRowWarnings zero_rows(": sum_j sim(q_i, k_j) = phi(q_i) . sum_j phi(k_j) is 0 (no feature in common): its "
                             "weights and context are 0",
                             "more queries whose denominator is 0");

  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      std::fill(KV.begin(), KV.end(), 0.0);
      std::fill(z.begin(), z.end(), 0.0);
      std::size_t added = 0;  // keys summed into KV and z so far
      for (std::size_t i = 0; i < L_Q; ++i) {
        // 2. KV += phi(k_j) v_j^T, z += phi(k_j): every key before the first query, or (causal) up
        //    to key i
        const std::size_t until = causal ? std::min(i + 1, L_K) : L_K;
        for (; added < until; ++added) {
          const double* pk = row_ptr(phi_k, b, added, h);
          const double* vj = row_ptr(v, b, added, h);
          for (std::size_t f = 0; f < F; ++f) {
            const double a = pk[f];
            z[f] += a;
            double* kv = &KV[f * D];
            for (std::size_t d = 0; d < D; ++d) kv[d] += a * vj[d];
          }
        }
        // 3. context_i = phi(q_i)^T KV / phi(q_i) . z
        const double* pq = row_ptr(phi_q, b, i, h);
        double* out = row_ptr(context, b, i, h);
        for (std::size_t f = 0; f < F; ++f) {
          const double a = pq[f];
          const double* kv = &KV[f * D];
          for (std::size_t d = 0; d < D; ++d) out[d] += a * kv[d];
        }
        den[i] = normalise ? dot(pq, z.data(), F) + eps.den : 1.0;
        if (normalise && causal && eps.prefix != 0.0) {  // q_i . (z + prefix): the library's prefix-sum eps
          double sum_q = 0.0;
          for (std::size_t f = 0; f < F; ++f) sum_q += pq[f];
          den[i] += eps.prefix * sum_q;
        }
        if (!std::isfinite(den[i])) throw_sum_overflow(KV, z, b, h, i);
        if (normalise && den[i] <= 0.0) {  // relu with nothing in common (cosine1: rounding near 0)
          std::fill(out, out + D, 0.0);
          zero_rows.add(b, h, i);
          continue;
        }
        for (std::size_t d = 0; d < D; ++d) {
          out[d] /= den[i];
          if (!std::isfinite(out[d])) throw_sum_overflow(KV, z, b, h, i);
        }
      }
      // 4. the implied weights, for the picture
      if (full)
        for (std::size_t i = 0; i < L_Q; ++i) {
          if (normalise && den[i] <= 0.0) continue;
          const std::size_t n = causal ? std::min(i + 1, L_K) : L_K;
          double* w = &weights(b, h, i, 0);
          for (std::size_t j = 0; j < n; ++j) w[j] = dot(row_ptr(phi_q, b, i, h), row_ptr(phi_k, b, j, h), F) / den[i];
        }
    }

  if (full) trace.set("weights", std::move(weights));
  trace.set("context", std::move(context));
  const std::uint64_t BH = std::uint64_t{B} * H;
  const std::uint64_t products = BH * (std::uint64_t{L_Q} + L_K) * (D + (normalise ? 1 : 0));
  trace.cost.dot_products += products;
  trace.cost.dense_dot_products = BH * L_Q * L_K;
  trace.cost.flops += 2 * products * F;
  zero_rows.flush(trace.warnings);
}

Trace linear_attention(const Tensor& q, const Tensor& k, const Tensor& v, FeatureMap map, double scale,
                       const Mask& mask, TraceLevel level, KernelReference ref) {
  check_kernel_mask_kind(mask_kind_name(mask.kind), "mask.kind", "linear attention");
  const bool causal = mask.requires_causal();
  check_reference_map(ref, map);
  if (ref != KernelReference::spec && causal) check_causal_lengths(ref, q.shape()[1], k.shape()[1]);
  Trace trace;

  // 1. the features
  Tensor phi_q, phi_k;
  switch (map) {
    case FeatureMap::elu1:
    case FeatureMap::relu:
      phi_q = elementwise_features(q, map);
      phi_k = elementwise_features(k, map);
      break;
    case FeatureMap::cosine1:
      phi_q = cosine_features(q, "q");
      phi_k = cosine_features(k, "k");
      break;
    case FeatureMap::softmax_qk:
      phi_q = softmax_rows(q);
      if (ref == KernelReference::performer_pytorch && causal) {  // `k = torch.exp(k) if self.causal`
        phi_k = exp_features(k);
        break;
      }
      phi_k = softmax_columns(k);
      if (causal)
        trace.warnings.push_back(
            "softmax_qk with the causal mask: the softmax of each k column runs over all L_K keys (as the note "
            "writes it, so every query's features see future keys), then the prefix sums keep j <= i: rows of "
            "the weights sum to less than 1");
      break;
  }
  // 2-4. the linear-attention pass
  if (level == TraceLevel::full) {
    trace.set("features_q", phi_q);
    trace.set("features_k", phi_k);
  }
  // performer-pytorch normalises softmax_qk too (its linear_attention divides by D)
  const bool normalise = map != FeatureMap::softmax_qk || ref == KernelReference::performer_pytorch;
  linear_attention_pass(phi_q, phi_k, v, causal, normalise, level, trace, kernel_eps(ref));
  // 5. against exact softmax attention (left out with a warning where exact attention overflows,
  // e.g. cosine1 at 1e300, which linear attention itself handles)
  add_exact_context(trace, q, k, v, scale, mask, level);
  return trace;
}

}  // namespace attnplay
