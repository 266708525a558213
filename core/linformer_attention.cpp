// Linformer (Wang et al. 2020), as Su Jianlin's note (seed 002, "LinFormer") writes it:
//
//   Attention(Q, K, V) = softmax(Q (E K)^T) F V     with E, F two k x n matrices
//
// per batch item and head, with the scale of scaled dot-product attention:
//
//   context[b,i,h,:] = sum_r softmax_r( scale * q[b,i,h,:] . projected_k[b,r,h,:] ) projected_v[b,r,h,:]
//
// Shapes: q (B, L_Q, H, E), k (B, L_K, H, E), v (B, L_K, H, D); E_proj, F_proj (k, L_K), shared by
// every batch item and head (the paper's "headwise sharing"); scale default 1/sqrt(E).
//   1. projected_k (B, k, H, E)    = E_proj K: projected_k[b,r,h,:] = sum_j E_proj[r,j] k[b,j,h,:]
//   2. projected_v (B, k, H, D)    = F_proj V, the same with F_proj and v
//   3. scores      (B, H, L_Q, k)  scale * q_i . projected_k_r: an n x k matrix, not n x n
//   4. weights     (B, H, L_Q, k)  softmax over the k projected keys
//   5. context     (B, L_Q, H, D)  sum_r weights[r] projected_v_r
//   beside it, at trace "full": exact_context (full attention on q, k, v) and max_abs_error.
//
// With k = L_K and E_proj = F_proj = the identity, projected_k = k and projected_v = v: exactly
// full attention. A random projection (when seeded: the authors' fairseq initialisation of
// compress_k / compress_v, xavier_uniform_ with gain 1/sqrt(2)) mixes every position into
// every projected key, so the result is an approximation whose error the trace reports (the note
// doubts the paper's evidence: its long-sequence experiments were MLM only, which needs little
// long-range dependence).
// Every projected key mixes all positions, so no mask applies (the note: autoregressive
// generation becomes hard); the scenario reader refuses masks.
//
// Steps 1-2 are xtensor expressions on (b, r) slices (k x L_K vector updates, not an L x L pass);
// steps 3-5 are the shared row kernels of attention_rows.hpp run on the projected tensors, whose
// layout (B, k, H, .) is that of k and v with L_K replaced by k.
//
// Cost: dot_products = B*H*(L_Q*k + k*L_K): the n x k scores of step 3, plus step 1, whose k*L_K*E
// multiply-adds are the work of k*L_K products of length E (the value projection, like full
// attention's weighted sum of V, is in flops only); flops = 2*B*H*(k*L_K*(E + D) + L_Q*k*(E + D)):
// the projections of steps 1-2 and the scores and weighted sums of steps 3-5. Both grow like n k.
#include "linformer_attention.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xnoalias.hpp>
#include <xtensor/xview.hpp>

#include "attention_rows.hpp"
#include "full_attention.hpp"
#include "mask.hpp"
#include "rng.hpp"

namespace attnplay {

namespace {

// Steps 1-2: P X per batch item, P (k, L_K), X (B, L_K, H, F) -> (B, k, H, F); every head at once.
// Throws OverflowError on `field` for a projected number that is not finite.
Tensor project(const Tensor& P, const Tensor& X, const std::string& field, const std::string& what) {
  const std::size_t B = X.shape()[0], L = X.shape()[1], k = P.shape()[0];
  Tensor projected = xt::zeros<double>({B, k, X.shape()[2], X.shape()[3]});
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t r = 0; r < k; ++r) {
      // projected[b, r] = sum_j P[r, j] X[b, j]
      //   (lucidrains/linformer's `torch.einsum('bnd,nk->bkd', keys, proj_k)` with proj_k = E_proj^T)
      auto row = xt::view(projected, b, r, xt::all(), xt::all());
      for (std::size_t j = 0; j < L; ++j) xt::noalias(row) += P(r, j) * xt::view(X, b, j, xt::all(), xt::all());
      if (!std::all_of(row.begin(), row.end(), [](double x) { return std::isfinite(x); }))
        throw OverflowError(field, what + " of batch " + std::to_string(b) + ", row " + std::to_string(r) +
                                       " is not a finite number; use smaller " + field);
    }
  return projected;
}

}  // namespace

LinformerProjections linformer_projections(std::uint64_t seed, std::size_t proj_len, std::size_t L_K) {
  // `nn.init.xavier_uniform_(self.compress_k.weight, gain=1 / math.sqrt(2))`:
  // bound = gain * sqrt(6 / (fan_in + fan_out)) = sqrt(3 / (L_K + k))
  Rng rng(seed, RngStream::weights);
  const double bound = std::sqrt(3.0 / static_cast<double>(L_K + proj_len));
  LinformerProjections p{Tensor::from_shape({proj_len, L_K}), Tensor::from_shape({proj_len, L_K})};
  for (Tensor* t : {&p.E_proj, &p.F_proj})
    for (double& x : *t) x = rng.uniform(-bound, bound);
  return p;
}

Trace linformer_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                          const LinformerProjections& projections, TraceLevel level) {
  const auto [B, L_Q, L_K, H, E, D] = attention_dims(q, v);
  const std::size_t n_proj = projections.E_proj.shape()[0];
  const bool full = level == TraceLevel::full;

  // 1. projected_k = E_proj K;  2. projected_v = F_proj V
  const Tensor projected_k = project(projections.E_proj, k, "k", "the projected key E_proj K");
  const Tensor projected_v = project(projections.F_proj, v, "v", "the projected value F_proj V");

  Tensor scores, weights;
  if (full) {
    scores = Tensor::from_shape({B, H, L_Q, n_proj});
    weights = Tensor::from_shape({B, H, L_Q, n_proj});
  }
  Tensor context = Tensor::from_shape({B, L_Q, H, D});
  std::vector<double> score_i(n_proj), weight_i(n_proj);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < L_Q; ++i) {
        // 3. scores of query i against the k projected keys
        score_row(q, projected_k, b, i, h, scale, score_i.data());
        // 4. softmax over them
        softmax_row(score_i.data(), n_proj, weight_i.data());
        // 5. weighted sum of the projected values
        weighted_values(weight_i.data(), projected_v, b, h, row_ptr(context, b, i, h));
        if (full) {
          std::copy(score_i.begin(), score_i.end(), &scores(b, h, i, 0));
          std::copy(weight_i.begin(), weight_i.end(), &weights(b, h, i, 0));
        }
      }

  Trace trace;
  if (full) {
    trace.set("E_proj", projections.E_proj);
    trace.set("F_proj", projections.F_proj);
    trace.set("projected_k", projected_k);
    trace.set("projected_v", projected_v);
    trace.set("scores", std::move(scores));
    trace.set("weights", std::move(weights));
  }
  trace.set("context", std::move(context));
  add_exact_context(trace, q, k, v, scale, Mask{}, level);
  const std::uint64_t BH = std::uint64_t{B} * H, pairs = BH * L_Q * n_proj, mixed = BH * n_proj * L_K;
  trace.cost = {pairs + mixed, BH * L_Q * L_K, 2 * (mixed + pairs) * (E + D)};
  return trace;
}

}  // namespace attnplay
