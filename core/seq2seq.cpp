// The model of Bahdanau attention (d2l 10.4, seed 003 lines 207-273): a GRU encoder-decoder whose
// decoder attends, at every step, over the encoder's outputs with additive attention. Its trace
// is core/bahdanau.cpp's; its training core/seq2seq_train.cpp's.
//
// Shapes: src (B, T_src), tgt (B, T_tgt) token ids; e = embed_size, h = num_hiddens,
// L = num_layers, V = tgt_vocab.
//   enc_outputs (B, T_src, h)   enc_state (L, B, h)   dec_queries (B, T_tgt, h)
//   weights (B, T_tgt, T_src)   dec_context (B, T_tgt, h)   output (B, T_tgt, V)   dec_state (L, B, h)
//
// The formula: h_t = GRU(embed(src_t), h_{t-1}) over the source (Seq2SeqEncoder); the decoder
// starts from the encoder's final state s_0 = h_T and at step t' computes
//   c_t' = sum_t alpha(s_{t'-1}, h_t) h_t,   alpha = masked softmax_t(w_v . tanh(W_q s + W_k h_t))
//   s_t' = GRU([c_t', embed(tgt_t')], s_{t'-1}),   output_t' = dense(s_t'^top)
//
// The passes follow d2l's forward() (Seq2SeqEncoder, then Seq2SeqAttentionDecoder):
//   1. X = embedding(src).permute(1, 0, 2); output, state = rnn(X)           (encoder)
//   2. init_state: (outputs.permute(1, 0, 2), hidden_state, enc_valid_lens)
//   3. per step: query = unsqueeze(hidden_state[-1], 1)
//   4.   context = attention(query, enc_outputs, enc_outputs, enc_valid_lens)  (additive_attention)
//   5.   x = cat((context, unsqueeze(x, 1)), -1)
//   6.   out, hidden_state = rnn(x.permute(1, 0, 2), hidden_state)
//   7. outputs = dense(cat(outputs, 0)).permute(1, 0, 2)
// The backward pass (seq2seq_backward) runs 7 .. 1 in reverse, steps in reverse (BPTT):
//   7'. dense: dW += dlogits h^T, db += dlogits, dh = W^T dlogits
//   6'. the GRU cells top layer first (gru_step_backward), a layer's dx feeding the layer below
//   5'. dx of layer 0 splits into d context (first h) and d embedding (last e)
//   4'. additive attention: d alpha_j = dc . h_j; d score_j = alpha_j (d alpha_j - sum alpha dalpha)
//       on allowed keys (masked scores are replaced, d2l's sequence_mask: no gradient);
//       f_j = tanh(W_q s + W_k h_j): dw_v += dscore f_j, dpre_j = dscore w_v (1 - f_j^2),
//       dW_q += (sum_j dpre_j) s^T, ds = W_q^T sum_j dpre_j, dW_k += dpre_j h_j^T, dh_j += W_k^T dpre_j
//       + alpha_j dc
//   3'. d query adds to the top layer's state gradient
//   1'. the encoder's cells in reverse, d enc_outputs adding to the top layer's gradient
#include "seq2seq.hpp"
#include "portable_math.hpp"

#include <cmath>

#include "mask.hpp"
#include "nn_linear.hpp"

namespace attnplay {

Seq2SeqSizes Seq2SeqParams::sizes() const {
  return {enc_embedding.shape()[0], dec_embedding.shape()[0], enc_embedding.shape()[1], attention.w_v.size(),
          enc_rnn.size()};
}

std::vector<NamedParameter> named_parameters(Seq2SeqParams& p) {
  std::vector<NamedParameter> list;
  auto add = [&](const std::string& name, Tensor& t) {
    list.push_back({name, &t, Shape(t.shape().begin(), t.shape().end())});
  };
  auto add_rnn = [&](const std::string& prefix, std::vector<GruLayer>& rnn) {
    for (std::size_t k = 0; k < rnn.size(); ++k) {
      const std::string l = "_l" + std::to_string(k);
      add(prefix + "weight_ih" + l, rnn[k].weight_ih);
      add(prefix + "weight_hh" + l, rnn[k].weight_hh);
      add(prefix + "bias_ih" + l, rnn[k].bias_ih);
      add(prefix + "bias_hh" + l, rnn[k].bias_hh);
    }
  };
  add("encoder.embedding.weight", p.enc_embedding);
  add_rnn("encoder.rnn.", p.enc_rnn);
  add("decoder.attention.W_k.weight", p.attention.W_k);
  add("decoder.attention.W_q.weight", p.attention.W_q);
  add("decoder.attention.w_v.weight", p.attention.w_v);
  list.back().torch_shape = {1, p.attention.w_v.size()};
  add("decoder.embedding.weight", p.dec_embedding);
  add_rnn("decoder.rnn.", p.dec_rnn);
  add("decoder.dense.weight", p.dense_weight);
  add("decoder.dense.bias", p.dense_bias);
  return list;
}

Seq2SeqParams seq2seq_zeros(const Seq2SeqSizes& s) {
  Seq2SeqParams p;
  const std::size_t h = s.num_hiddens, e = s.embed_size;
  p.enc_embedding = xt::zeros<double>({s.src_vocab, e});
  p.enc_rnn = gru_zeros(e, h, s.num_layers);
  p.attention.W_k = xt::zeros<double>({h, h});
  p.attention.W_q = xt::zeros<double>({h, h});
  p.attention.w_v = xt::zeros<double>({h});
  p.dec_embedding = xt::zeros<double>({s.tgt_vocab, e});
  p.dec_rnn = gru_zeros(e + h, h, s.num_layers);
  p.dense_weight = xt::zeros<double>({s.tgt_vocab, h});
  p.dense_bias = xt::zeros<double>({s.tgt_vocab});
  return p;
}

namespace {

Tensor normal_init(Rng& rng, const Shape& shape) {
  Tensor t = Tensor::from_shape(shape);
  for (auto& x : t) x = rng.normal();
  return t;
}

void xavier(Rng& rng, Tensor& W, std::size_t fan_in, std::size_t fan_out) {
  const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  for (auto& x : W) x = rng.uniform(-bound, bound);
}

}  // namespace

Seq2SeqParams seq2seq_init(Rng& rng, const Seq2SeqSizes& s) {
  Seq2SeqParams p;
  const std::size_t h = s.num_hiddens, e = s.embed_size;
  p.enc_embedding = normal_init(rng, {s.src_vocab, e});
  p.enc_rnn = gru_init(rng, e, h, s.num_layers);
  p.attention.W_k = linear_init(rng, {h, h}, h);
  p.attention.W_q = linear_init(rng, {h, h}, h);
  p.attention.w_v = linear_init(rng, {h}, h);
  p.dec_embedding = normal_init(rng, {s.tgt_vocab, e});
  p.dec_rnn = gru_init(rng, e + h, h, s.num_layers);
  p.dense_weight = linear_init(rng, {s.tgt_vocab, h}, h);
  p.dense_bias = linear_init(rng, {s.tgt_vocab}, h);
  return p;
}

void seq2seq_xavier(Rng& rng, Seq2SeqParams& p) {
  auto rnn = [&](std::vector<GruLayer>& layers) {
    for (auto& layer : layers) {
      xavier(rng, layer.weight_ih, layer.input_size(), layer.weight_ih.shape()[0]);
      xavier(rng, layer.weight_hh, layer.hidden_size(), layer.weight_hh.shape()[0]);
    }
  };
  const std::size_t h = p.attention.w_v.size();
  rnn(p.enc_rnn);
  xavier(rng, p.attention.W_k, h, h);
  xavier(rng, p.attention.W_q, h, h);
  xavier(rng, p.attention.w_v, h, 1);
  rnn(p.dec_rnn);
  xavier(rng, p.dense_weight, h, p.dense_weight.shape()[0]);
}

std::uint64_t seq2seq_forward_macs(const Seq2SeqSizes& s, std::size_t T_src, std::size_t T_tgt) {
  const std::uint64_t h = s.num_hiddens, e = s.embed_size, L = s.num_layers;
  const std::uint64_t enc_step = gru_step_macs(e, h, L);
  // additive attention per step: W_q s, W_k over the keys (d2l projects them every step),
  // T_src scores of h and the weighted sum of h
  const std::uint64_t attention = h * h + std::uint64_t{T_src} * (h * h + 2 * h);
  const std::uint64_t dec_step = attention + gru_step_macs(e + h, h, L) + h * s.tgt_vocab;
  return T_src * enc_step + T_tgt * dec_step;
}

namespace {

// One step of the GRU stack (gru_step) on state (L, B, h), turning a pre-activation that is not
// finite into an error on the weights to blame; counts its flops.
void rnn_step(const std::vector<GruLayer>& layers, const double* x, std::size_t B, Tensor& state, GruStepCache* caches,
              const char* side, std::size_t t, Cost& cost) {
  const std::size_t k = gru_step(layers, x, B, state.data(), caches);
  if (k == layers.size()) {
    cost.flops += 2 * std::uint64_t{B} * gru_step_macs(layers[0].input_size(), layers[0].hidden_size(), k);
    return;
  }
  throw OverflowError(std::string("weights.") + side + ".rnn.weight_ih_l" + std::to_string(k),
                      std::string("the ") + side + " GRU's gates W_ih x + b_ih, W_hh h + b_hh of layer " + std::to_string(k) +
                          " at step " + std::to_string(t) +
                          " are not finite numbers (the weights or the embeddings too large)");
}

// Rows of an embedding: out (B, e) = table[tokens[b * stride]].
void embed(const Tensor& table, const std::int64_t* tokens, std::size_t stride, std::size_t B, double* out) {
  const std::size_t e = table.shape()[1];
  for (std::size_t b = 0; b < B; ++b) {
    const double* row = table.data() + static_cast<std::size_t>(tokens[b * stride]) * e;
    std::copy(row, row + e, out + b * e);
  }
}

Mask encoder_mask(const std::optional<IndexTensor>& enc_valid_lens) {
  Mask mask;
  if (enc_valid_lens) {
    mask.kind = MaskKind::valid_lens;
    mask.valid_lens = *enc_valid_lens;
    mask.fill = -1e6;  // d2l's masked_softmax
  }
  return mask;
}

// The state of the decoder loop, shared by the batch forward pass and greedy decoding.
struct DecoderLoop {
  const Seq2SeqParams& p;
  std::size_t B, T_src, h, e, L, V;
  Tensor keys;   // enc_outputs as (B, T_src, 1, h): the attention's keys and values
  Mask mask;
  Tensor state;  // (L, B, h) hidden_state
  Cost cost;

  DecoderLoop(const Seq2SeqParams& params, const Tensor& enc_outputs, const Tensor& enc_state,
              const std::optional<IndexTensor>& enc_valid_lens)
      : p(params), B(enc_outputs.shape()[0]), T_src(enc_outputs.shape()[1]), h(enc_outputs.shape()[2]),
        e(params.dec_embedding.shape()[1]), L(params.dec_rnn.size()), V(params.dense_bias.size()),
        keys(enc_outputs), mask(encoder_mask(enc_valid_lens)), state(enc_state) {  // 2. init_state
    keys.reshape({B, T_src, std::size_t{1}, h});
  }

  // One step of the loop for tokens[b * stride]: writes query (B, h), weights (B, T_src),
  // context (B, h), top (B, h), logits (B, V); caches (L) if given.
  void step(const std::int64_t* tokens, std::size_t stride, std::size_t t, double* query, double* weights,
            double* context, double* top, double* logits, GruStepCache* caches) {
    // 3. query = unsqueeze(hidden_state[-1], dim=1)
    Tensor q = Tensor::from_shape({B, std::size_t{1}, std::size_t{1}, h});
    std::copy(&state(L - 1, 0, 0), &state(L - 1, 0, 0) + B * h, q.data());
    std::copy(q.data(), q.data() + B * h, query);
    // 4. context = self.attention(query, enc_outputs, enc_outputs, enc_valid_lens)
    Trace a;
    try {
      a = additive_attention(q, keys, keys, p.attention, mask, TraceLevel::full);
    } catch (const OverflowError& err) {
      const std::string field = err.field == "q"   ? "weights.decoder.attention.W_q"
                                : err.field == "k" ? "weights.decoder.attention.W_k"
                                                   : "weights.decoder.attention.w_v";
      throw OverflowError(field, "the decoder's attention at step " + std::to_string(t) + ": " + err.detail);
    }
    cost.dot_products += a.cost.dot_products;
    cost.flops += a.cost.flops;
    const Tensor& w = a.tensor("weights");  // (B, 1, 1, T_src)
    const Tensor& c = a.tensor("context");  // (B, 1, 1, h)
    std::copy(w.data(), w.data() + B * T_src, weights);
    std::copy(c.data(), c.data() + B * h, context);
    // 5. x = torch.cat((context, torch.unsqueeze(x, dim=1)), dim=-1): (B, h + e)
    std::vector<double> x((h + e) * B), emb(B * e);
    embed(p.dec_embedding, tokens, stride, B, emb.data());
    for (std::size_t b = 0; b < B; ++b) {
      std::copy(context + b * h, context + (b + 1) * h, x.begin() + b * (h + e));
      std::copy(emb.begin() + b * e, emb.begin() + (b + 1) * e, x.begin() + b * (h + e) + h);
    }
    // 6. out, hidden_state = self.rnn(x.permute(1, 0, 2), hidden_state)
    rnn_step(p.dec_rnn, x.data(), B, state, caches, "decoder", t, cost);
    std::copy(&state(L - 1, 0, 0), &state(L - 1, 0, 0) + B * h, top);
    // 7. outputs = self.dense(...): logits = W out + b
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t o = 0; o < V; ++o) {
        const double y = dot(p.dense_weight.data() + o * h, top + b * h, h) + p.dense_bias(o);
        if (!std::isfinite(y))
          throw OverflowError("weights.decoder.dense.weight", "the decoder's output at step " + std::to_string(t) +
                                                                  " is not a finite number (the dense weights too large)");
        logits[b * V + o] = y;
      }
    cost.flops += 2 * std::uint64_t{B} * h * V;
  }
};

// 1. The encoder: outputs (B, T_src, h), state (L, B, h).
void encode(const Seq2SeqParams& p, const IndexTensor& src, Tensor& outputs, Tensor& state,
            std::vector<GruStepCache>* caches, Cost& cost) {
  const std::size_t B = src.shape()[0], T = src.shape()[1], e = p.enc_embedding.shape()[1];
  const std::size_t h = p.attention.w_v.size(), L = p.enc_rnn.size();
  outputs = Tensor::from_shape({B, T, h});
  state = xt::zeros<double>({L, B, h});  // nn.GRU's default h_0 = 0
  if (caches) caches->assign(T * L, GruStepCache{});
  std::vector<double> input(B * e);
  for (std::size_t t = 0; t < T; ++t) {
    // X = self.embedding(X).permute(1, 0, 2): step t is column t of src
    embed(p.enc_embedding, src.data() + t, T, B, input.data());
    rnn_step(p.enc_rnn, input.data(), B, state, caches ? &(*caches)[t * L] : nullptr, "encoder", t, cost);
    for (std::size_t b = 0; b < B; ++b) std::copy(&state(L - 1, b, 0), &state(L - 1, b, 0) + h, &outputs(b, t, 0));
  }
}

}  // namespace

Seq2SeqForward seq2seq_forward(const Seq2SeqParams& p, const Seq2SeqBatch& batch, bool keep_cache) {
  Seq2SeqForward f;
  const std::size_t B = batch.src.shape()[0], T_src = batch.src.shape()[1], T_tgt = batch.tgt.shape()[1];
  const std::size_t h = p.attention.w_v.size(), L = p.dec_rnn.size(), V = p.dense_bias.size();
  encode(p, batch.src, f.enc_outputs, f.enc_state, keep_cache ? &f.enc_cache : nullptr, f.cost);

  DecoderLoop loop(p, f.enc_outputs, f.enc_state, batch.enc_valid_lens);
  f.dec_queries = Tensor::from_shape({B, T_tgt, h});
  f.weights = Tensor::from_shape({B, T_tgt, T_src});
  f.dec_context = Tensor::from_shape({B, T_tgt, h});
  f.dec_outputs = Tensor::from_shape({B, T_tgt, h});
  f.output = Tensor::from_shape({B, T_tgt, V});
  if (keep_cache) f.dec_cache.assign(T_tgt * L, GruStepCache{});
  std::vector<double> query(B * h), weights(B * T_src), context(B * h), top(B * h), logits(B * V);
  for (std::size_t t = 0; t < T_tgt; ++t) {
    loop.step(batch.tgt.data() + t, T_tgt, t, query.data(), weights.data(), context.data(), top.data(), logits.data(),
              keep_cache ? &f.dec_cache[t * L] : nullptr);
    for (std::size_t b = 0; b < B; ++b) {
      std::copy(&query[b * h], &query[b * h] + h, &f.dec_queries(b, t, 0));
      std::copy(&weights[b * T_src], &weights[b * T_src] + T_src, &f.weights(b, t, 0));
      std::copy(&context[b * h], &context[b * h] + h, &f.dec_context(b, t, 0));
      std::copy(&top[b * h], &top[b * h] + h, &f.dec_outputs(b, t, 0));
      std::copy(&logits[b * V], &logits[b * V] + V, &f.output(b, t, 0));
    }
  }
  f.dec_state = loop.state;
  f.cost.dot_products += loop.cost.dot_products;
  f.cost.flops += loop.cost.flops;
  f.cost.dense_dot_products = std::uint64_t{B} * T_tgt * T_src;
  return f;
}

Seq2SeqParams seq2seq_backward(const Seq2SeqParams& p, const Seq2SeqBatch& batch, const Seq2SeqForward& f,
                               const Tensor& d_output) {
  Seq2SeqParams g = seq2seq_zeros(p.sizes());
  const std::size_t B = batch.src.shape()[0], T_src = batch.src.shape()[1], T_tgt = batch.tgt.shape()[1];
  const std::size_t h = p.attention.w_v.size(), L = p.dec_rnn.size();
  const std::size_t e = p.dec_embedding.shape()[1];
  const Mask mask = encoder_mask(batch.enc_valid_lens);

  // The attention's projected keys W_k h_j (B, T_src, h), as in the forward pass.
  Tensor keys = Tensor::from_shape({B, T_src, h});
  linear_rows(f.enc_outputs.data(), B * T_src, h, p.attention.W_k, std::nullopt, keys.data());

  Tensor d_state = xt::zeros<double>({L, B, h});  // d hidden_state after the current step
  Tensor d_enc = xt::zeros<double>({B, T_src, h});   // d enc_outputs
  Tensor d_keys = xt::zeros<double>({B, T_src, h});  // d (W_k h_j)
  std::vector<double> dx(B * (e + h)), qp(h), dqp(h), feat(h), dalpha(T_src);

  for (std::size_t t = T_tgt; t-- > 0;) {
    // 7'. dense
    for (std::size_t b = 0; b < B; ++b)
      linear_row_backward(&d_output(b, t, 0), &f.dec_outputs(b, t, 0), p.dense_weight, g.dense_weight,
                          g.dense_bias.data(), &d_state(L - 1, b, 0));
    // 6'. the GRU layers, top first
    gru_step_backward(p.dec_rnn, &f.dec_cache[t * L], B, d_state.data(), dx.data(), g.dec_rnn);
    for (std::size_t b = 0; b < B; ++b) {
      // 5'. [d context, d embedding]
      const double* dcontext = dx.data() + b * (h + e);
      const double* demb = dcontext + h;
      double* gemb = g.dec_embedding.data() + static_cast<std::size_t>(batch.tgt(b, t)) * e;
      for (std::size_t u = 0; u < e; ++u) gemb[u] += demb[u];
      // 4'. the additive attention of query s = dec_queries[b, t]
      const double* s = &f.dec_queries(b, t, 0);
      const double* alpha = &f.weights(b, t, 0);
      for (std::size_t u = 0; u < h; ++u) qp[u] = dot(p.attention.W_q.data() + u * h, s, h);
      double sum = 0.0;
      for (std::size_t j = 0; j < T_src; ++j) {
        dalpha[j] = dot(dcontext, &f.enc_outputs(b, j, 0), h);
        sum += alpha[j] * dalpha[j];
        double* dh_j = &d_enc(b, j, 0);
        for (std::size_t u = 0; u < h; ++u) dh_j[u] += alpha[j] * dcontext[u];
      }
      std::fill(dqp.begin(), dqp.end(), 0.0);
      for (std::size_t j = 0; j < T_src; ++j) {
        if (!mask.allows(b, 0, j)) continue;  // replaced by the fill: no gradient
        const double dscore = alpha[j] * (dalpha[j] - sum);
        if (dscore == 0.0) continue;
        const double* kj = &keys(b, j, 0);
        double* dk = &d_keys(b, j, 0);
        for (std::size_t u = 0; u < h; ++u) {
          const double fu = portable_tanh(qp[u] + kj[u]);
          g.attention.w_v(u) += dscore * fu;
          const double dpre = dscore * p.attention.w_v(u) * (1.0 - fu * fu);
          dqp[u] += dpre;
          dk[u] += dpre;
        }
      }
      // 3'. dW_q += dqp s^T, ds += W_q^T dqp; the query is hidden_state[-1] before step t
      linear_row_backward(dqp.data(), s, p.attention.W_q, g.attention.W_q, nullptr, &d_state(L - 1, b, 0));
    }
  }
  // 4'. the keys' projection, once for all steps: dW_k += dkeys h^T, d enc_outputs += W_k^T dkeys
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t j = 0; j < T_src; ++j)
      linear_row_backward(&d_keys(b, j, 0), &f.enc_outputs(b, j, 0), p.attention.W_k, g.attention.W_k, nullptr,
                          &d_enc(b, j, 0));

  // 1'. the encoder: d_state is now d (decoder's initial state) = d (encoder's final state)
  const std::size_t e_src = p.enc_embedding.shape()[1];
  std::vector<double> dx_src(B * e_src);
  for (std::size_t t = T_src; t-- > 0;) {
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t u = 0; u < h; ++u) d_state(L - 1, b, u) += d_enc(b, t, u);
    gru_step_backward(p.enc_rnn, &f.enc_cache[t * L], B, d_state.data(), dx_src.data(), g.enc_rnn);
    for (std::size_t b = 0; b < B; ++b) {
      double* gemb = g.enc_embedding.data() + static_cast<std::size_t>(batch.src(b, t)) * e_src;
      for (std::size_t u = 0; u < e_src; ++u) gemb[u] += dx_src[b * e_src + u];
    }
  }
  return g;
}

Tensor masked_softmax_ce(const Tensor& logits, const IndexTensor& labels, const IndexTensor& valid_len,
                         Tensor* d_logits) {
  const std::size_t B = logits.shape()[0], T = logits.shape()[1], V = logits.shape()[2];
  Tensor loss = xt::zeros<double>({B});
  if (d_logits) *d_logits = xt::zeros<double>({B, T, V});
  std::vector<double> prob(V);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t) {
      // weights = sequence_mask(ones_like(label), valid_len): positions t >= valid_len count 0
      if (static_cast<std::int64_t>(t) >= valid_len(b)) continue;
      const double* z = &logits(b, t, 0);
      double m = z[0];
      for (std::size_t o = 1; o < V; ++o) m = std::max(m, z[o]);
      double sum = 0.0;
      for (std::size_t o = 0; o < V; ++o) sum += (prob[o] = portable_exp(z[o] - m));
      const auto y = static_cast<std::size_t>(labels(b, t));
      // cross-entropy = logsumexp(z) - z_y; mean over dim 1 of the masked loss
      loss(b) += (m + std::log(sum) - z[y]) / static_cast<double>(T);
      if (d_logits) {
        double* d = &(*d_logits)(b, t, 0);
        for (std::size_t o = 0; o < V; ++o) d[o] = (prob[o] / sum - (o == y ? 1.0 : 0.0)) / static_cast<double>(T);
      }
    }
  return loss;
}

// ---- greedy decoding (used by training's held-out example) ----

Seq2SeqPrediction predict_seq2seq(const Seq2SeqParams& p, const IndexTensor& src, std::int64_t valid_len,
                                  std::size_t num_steps) {
  Seq2SeqPrediction out;
  IndexTensor enc_X = src;
  const std::size_t T_src = src.size();
  enc_X.reshape({std::size_t{1}, T_src});
  Tensor enc_outputs, enc_state;
  encode(p, enc_X, enc_outputs, enc_state, nullptr, out.cost);
  DecoderLoop loop(p, enc_outputs, enc_state, IndexTensor({valid_len}));
  const std::size_t h = loop.h, V = loop.V;
  std::vector<std::int64_t> predicted;
  std::vector<double> all_weights;
  std::vector<double> query(h), weights(T_src), context(h), top(h), logits(V);
  std::int64_t dec_X = kBos;
  for (std::size_t step = 0; step < num_steps; ++step) {
    loop.step(&dec_X, 1, step, query.data(), weights.data(), context.data(), top.data(), logits.data(), nullptr);
    // dec_X = Y.argmax(dim=2): the first maximum, as torch
    std::size_t best = 0;
    for (std::size_t o = 1; o < V; ++o)
      if (logits[o] > logits[best]) best = o;
    dec_X = static_cast<std::int64_t>(best);
    all_weights.insert(all_weights.end(), weights.begin(), weights.end());
    if (dec_X == kEos) break;
    predicted.push_back(dec_X);
  }
  out.predicted = IndexTensor::from_shape({predicted.size()});
  std::copy(predicted.begin(), predicted.end(), out.predicted.data());
  out.weights = Tensor::from_shape({all_weights.size() / T_src, T_src});
  std::copy(all_weights.begin(), all_weights.end(), out.weights.data());
  out.cost.dot_products += loop.cost.dot_products;
  out.cost.flops += loop.cost.flops;
  return out;
}

}  // namespace attnplay
