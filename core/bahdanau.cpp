// Bahdanau attention (d2l 10.4) as an algorithm: the seq2seq model (core/seq2seq.hpp: the GRU
// encoder-decoder with additive attention, its backward pass and training) and its trace.
//
// Shapes: src (B, T_src), tgt (B, T_tgt) token ids; h = num_hiddens, L = num_layers, V = tgt_vocab.
//   enc_outputs (B, T_src, h)   enc_state (L, B, h)   dec_queries (B, T_tgt, h)
//   weights (B, T_tgt, T_src)   dec_context (B, T_tgt, h)   output (B, T_tgt, V)   dec_state (L, B, h)
//   seq_loss (B)   gradients/<state_dict name> (torch's shape)   loss (epochs)
//   trained_weights/<state_dict name> (torch's shape): with train, the weights after training, the
//   input `weights`' layout (fed back as `weights` without train they give the same outputs)
//
// The run:
//   1. with train: train_seq2seq (d2l's train_seq2seq; the parameters are updated), and without a
//      batch the held-out example with teacher forcing: tgt = <bos> + its label[:-1]
//   2. seq2seq_forward on the batch: the encoder's outputs and state, per decoder step its query,
//      attention weights and context, the logits and the final state (trace "full"; "context"
//      keeps output)
//   3. with labels: seq_loss = MaskedSoftmaxCELoss per sequence; with gradients, seq2seq_backward
//      of seq_loss.sum(), each gradient under its state_dict name
//   4. with train: the loss per epoch, the held-out example, its greedy prediction and weights, and
//      the trained parameters
#include "bahdanau.hpp"

#include <cmath>
#include <string>

namespace attnplay {

namespace {

// Every parameter as `group/<state_dict name>` in torch's shape (w_v (1, h)): the gradients and
// the trained weights, written as the input `weights` are read.
void set_parameters(Trace& trace, const std::string& group, Seq2SeqParams& params, const char* what,
                    bool d2l_en_names) {
  static const std::string zh = "encoder.rnn.";
  for (auto& np : named_parameters(params)) {
    // d2l-en's d2l.GRU holds the nn.GRU as .rnn: encoder.rnn.weight_ih_l0 -> encoder.rnn.rnn.weight_ih_l0
    const std::string name = d2l_en_names && np.name.rfind(zh, 0) == 0 ? zh + "rnn." + np.name.substr(zh.size()) : np.name;
    Tensor t = *np.tensor;
    for (double x : t)
      if (!std::isfinite(x))
        throw OverflowError("weights", "the " + std::string(what) + " of " + np.name + " is not a finite number (the weights too large)");
    t.reshape(np.torch_shape);
    trace.set(group + "/" + name, std::move(t));
  }
}

}  // namespace

Trace bahdanau(Seq2SeqParams params, std::optional<Seq2SeqBatch> batch, const BahdanauOptions& options) {
  Trace trace;
  std::optional<Seq2SeqTrainResult> trained;
  if (options.train) {
    trained = train_seq2seq(params, *options.train, options.progress);
    if (!batch) {  // the held-out example with teacher forcing: tgt = <bos> + its label[:-1]
      const std::size_t T = options.train->num_steps();
      Seq2SeqBatch held;
      held.src = trained->heldout_src;
      held.src.reshape({std::size_t{1}, T});
      held.tgt = xt::full_like(held.src, kPad);
      held.tgt(0, 0) = kBos;
      for (std::size_t t = 1; t < T && t - 1 < trained->heldout_target.size(); ++t)
        held.tgt(0, t) = trained->heldout_target(t - 1);
      held.enc_valid_lens = IndexTensor({trained->heldout_valid_len});
      batch = std::move(held);
    }
  }
  const bool full = options.level == TraceLevel::full;
  const bool backward = options.gradients;
  Seq2SeqForward f = seq2seq_forward(params, *batch, backward);
  if (full) {
    trace.set("enc_outputs", f.enc_outputs);
    trace.set("enc_state", f.enc_state);
    trace.set("dec_queries", f.dec_queries);
    trace.set("weights", f.weights);
    trace.set("dec_context", f.dec_context);
  }
  trace.set("output", f.output);
  if (full) trace.set("dec_state", f.dec_state);
  trace.cost = f.cost;

  if (options.labels) {
    const std::size_t B = batch->src.shape()[0], T_tgt = batch->tgt.shape()[1];
    IndexTensor lens = IndexTensor::from_shape({B});
    lens.fill(static_cast<std::int64_t>(T_tgt));  // no label_valid_lens: every position counts
    if (options.label_valid_lens) lens = *options.label_valid_lens;
    Tensor d_output;
    const Tensor seq_loss = masked_softmax_ce(f.output, *options.labels, lens, backward ? &d_output : nullptr);
    for (std::size_t b = 0; b < B; ++b)
      if (!std::isfinite(seq_loss(b)))
        throw OverflowError("weights.decoder.dense.weight", "the loss of sequence " + std::to_string(b) +
                                                                " is not a finite number (the dense weights too large)");
    trace.set("seq_loss", seq_loss);
    if (backward) {
      Seq2SeqParams g = seq2seq_backward(params, *batch, f, d_output);
      trace.cost.flops += 2 * f.cost.flops;
      set_parameters(trace, "gradients", g, "gradient", options.d2l_en_names);
    }
  }

  if (trained) {
    trace.set("loss", trained->loss);
    trace.set("heldout_src", trained->heldout_src);
    trace.set("heldout_valid_len", trained->heldout_valid_len);
    trace.set("heldout_target", trained->heldout_target);
    trace.set("predicted", trained->prediction.predicted);
    trace.set("heldout_weights", trained->prediction.weights);
    set_parameters(trace, "trained_weights", params, "trained value", options.d2l_en_names);
    trace.cost.dot_products += trained->cost.dot_products;
    trace.cost.flops += trained->cost.flops;
  }
  return trace;
}

}  // namespace attnplay
