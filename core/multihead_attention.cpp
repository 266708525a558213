// Multi-head attention: d2l MultiHeadAttention (inner full) / TSLib AttentionLayer (inner full or
// ProbAttention), with the heads concatenated in order:
//
//   q = queries W_q^T + b_q   (B, L_Q, H * d_head)  -> view (B, L_Q, H, d_head)
//   k = keys    W_k^T + b_k   (B, L_K, H * d_head)  -> view (B, L_K, H, d_head)
//   v = values  W_v^T + b_v   (B, L_K, H * d_v_head) -> view (B, L_K, H, d_v_head)
//   head_context = inner(q, k, v)                     (B, L_Q, H, d_v_head)
//       full: softmax(scale * q k^T + mask) v per head, scale 1/sqrt(d_head) (d2l)
//       prob: ProbAttention (prob_attention.cpp) per head
//   output = concat_h(head_context) W_o^T + b_o       (B, L_Q, out)
//
// Head h is the columns h*d_head .. (h+1)*d_head - 1 of a projection: d2l's transpose_qkv
// (reshape(B, L, H, -1)) and AttentionLayer's view(B, L, H, -1) are the same split, and
// transpose_output concatenates the heads back in that order. (TSLib's out.view(B, L, -1) of
// ProbAttention's (B, H, L, D) output, which mixes heads and positions, is not reproduced.)
//
// The seeds' examples: d2l (003_*.txt) num_hiddens 100, 5 heads, X = ones (2, 4, 100),
// Y = ones (2, 6, 100), valid_lens [3, 2]: transpose_qkv gives (10, 4, 20), (10, 6, 20), the
// output is (2, 4, 100). AttentionLayer (004_*.txt) B = 2, L = 6, H = 2, d_model 16:
// (2, 6, 16) -> Linear -> (2, 6, 16) -> view(B, L, H, -1) -> (2, 6, 2, 8).
//
// Passes:
//   1. the three input projections (nn_linear.hpp's linear, checked finite), reshaped to (B, L, H, d);
//   2. the inner attention on those (B, L, H, d) tensors;
//   3. head_context reshaped to (B, L_Q, H * d_v_head) (the heads concatenated), then W_o.
// The head weights and contexts are the inner attention's; multihead slices no head by hand.
#include "multihead_attention.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>

#include "full_attention.hpp"
#include "nn_linear.hpp"

namespace attnplay {

MultiheadWeights seeded_multihead_weights(std::uint64_t seed, std::size_t d_q, std::size_t d_k,
                                          std::size_t d_v, std::size_t num_hiddens, bool bias) {
  Rng rng(seed, RngStream::weights);
  const auto draw = [&rng](const Shape& shape, std::size_t fan_in) { return linear_init(rng, shape, fan_in); };
  const std::size_t h = num_hiddens;
  MultiheadWeights w;
  w.W_q = draw({h, d_q}, d_q);
  w.W_k = draw({h, d_k}, d_k);
  w.W_v = draw({h, d_v}, d_v);
  w.W_o = draw({h, h}, h);
  if (bias) {
    w.b_q = draw({h}, d_q);
    w.b_k = draw({h}, d_k);
    w.b_v = draw({h}, d_v);
    w.b_o = draw({h}, h);
  }
  return w;
}

Trace multihead_attention(const Tensor& queries, const Tensor& keys, const Tensor& values,
                          const MultiheadWeights& weights, const MultiheadOptions& options,
                          TraceLevel level) {
  const bool full = level == TraceLevel::full;
  const std::size_t B = queries.shape()[0], L_Q = queries.shape()[1], L_K = keys.shape()[1];
  const std::size_t d_q = queries.shape()[2], d_k = keys.shape()[2], d_v = values.shape()[2];
  const std::size_t H = options.num_heads;
  const std::size_t hq = weights.W_q.shape()[0], hv = weights.W_v.shape()[0], out = weights.W_o.shape()[0];
  if (H == 0 || hq % H != 0)
    throw InputError("num_heads", std::to_string(H) + " does not divide num_hiddens = " + std::to_string(hq) + " (the rows of W_q)");
  if (hv % H != 0)
    throw InputError("num_heads", std::to_string(H) + " does not divide the " + std::to_string(hv) + " rows of W_v");

  // 1. queries = transpose_qkv(self.W_q(queries), self.num_heads), likewise keys and values:
  // nn.Linear, then X.reshape(X.shape[0], X.shape[1], num_heads, -1) (TSLib: view(B, L, H, -1));
  // d2l's permute to (B * H, L, d) is left out, the inner attention takes the (B, L, H, d) layout
  const std::size_t d_head = hq / H;
  Tensor q = linear(queries, weights.W_q, weights.b_q, "queries", "queries W_q^T + b_q");
  Tensor k = linear(keys, weights.W_k, weights.b_k, "keys", "keys W_k^T + b_k");
  Tensor v = linear(values, weights.W_v, weights.b_v, "values", "values W_v^T + b_v");
  q.reshape({B, L_Q, H, d_head});
  k.reshape({B, L_K, H, d_head});
  v.reshape({B, L_K, H, hv / H});

  // 2. inner attention per head
  const double scale = options.scale.value_or(default_scale(d_head));
  Trace inner;
  try {
    if (options.inner == InnerAttention::full) {
      inner = full_attention(q, k, v, scale, options.mask, level);
    } else {
      ProbOptions prob = options.prob;
      const bool asked = prob.output_attention;
      prob.output_attention = asked || full;  // the head weights of the trace
      inner = prob_attention(q, k, v, scale, options.mask, prob, level);
    }
  } catch (const OverflowError& e) {  // the inner attention names its q, k, v: our projections
    const std::string input = e.field == "q" ? "queries" : e.field == "k" ? "keys" : e.field == "v" ? "values" : e.field;
    throw OverflowError(input, e.detail + " (in the projected heads)");
  }
  Tensor head_context;
  for (auto& field : inner.fields)
    if (field.first == "context") head_context = std::move(std::get<Tensor>(field.second));

  // 3. output_concat = transpose_output(output, self.num_heads): X.reshape(X.shape[0], X.shape[1], -1),
  // the heads concatenated in order;  self.W_o(output_concat), checked by the reader
  Tensor concat = xt::reshape_view(head_context, {B, L_Q, hv});
  if (options.informer_mix) {
    // Informer2020 AttentionLayer(mix=True): `out = out.transpose(2,1).contiguous(); out = out.view(B, L, -1)`:
    // row l of the (B, L_Q, H*D) view reads the (H, L_Q, D) memory from offset l*H*D, mixing heads and positions
    Tensor mixed = xt::transpose(head_context, {0, 2, 1, 3});
    mixed.reshape({B, L_Q, hv});
    concat = std::move(mixed);
  }
  Tensor output = Tensor::from_shape({B, L_Q, out});
  linear_rows(concat.data(), B * L_Q, hv, weights.W_o, weights.b_o, output.data());

  Trace trace;
  if (full) {
    trace.set("W_q", weights.W_q);
    trace.set("W_k", weights.W_k);
    trace.set("W_v", weights.W_v);
    trace.set("W_o", weights.W_o);
    if (weights.b_q) trace.set("b_q", *weights.b_q);
    if (weights.b_k) trace.set("b_k", *weights.b_k);
    if (weights.b_v) trace.set("b_v", *weights.b_v);
    if (weights.b_o) trace.set("b_o", *weights.b_o);
    trace.set("q", std::move(q));
    trace.set("k", std::move(k));
    trace.set("v", std::move(v));
  }
  FieldValue* head_weights = nullptr;
  for (auto& [name, value] : inner.fields) {
    if (name == "context") continue;  // moved into head_context
    if (name == "weights" || name == "attn") head_weights = &value;
    else if (full) trace.set(name, std::move(value));
  }
  if (head_weights) trace.set("head_weights", std::move(*head_weights));
  if (full) trace.set("head_context", std::move(head_context));
  trace.set("output", std::move(output));

  trace.cost = inner.cost;
  const std::uint64_t B64 = B;  // 64-bit also in wasm32
  trace.cost.flops += 2 * (B64 * L_Q * d_q * hq + B64 * L_K * d_k * hq + B64 * L_K * d_v * hv + B64 * L_Q * hv * out);
  trace.warnings = std::move(inner.warnings);
  return trace;
}

}  // namespace attnplay
