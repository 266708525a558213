// The model behind Bahdanau attention: d2l's Seq2SeqEncoder + Seq2SeqAttentionDecoder (dropout 0),
// forward and hand-written backward (core/seq2seq.cpp), and d2l's train_seq2seq on a synthetic task
// (core/seq2seq_train.cpp). Its trace, the algorithm "bahdanau": core/bahdanau.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "additive_attention.hpp"
#include "gru.hpp"
#include "trace.hpp"

namespace attnplay {

struct Seq2SeqSizes {
  std::size_t src_vocab = 0, tgt_vocab = 0, embed_size = 0, num_hiddens = 0, num_layers = 0;
};

// The parameters of d2l.EncoderDecoder(Seq2SeqEncoder, Seq2SeqAttentionDecoder), h = num_hiddens,
// e = embed_size, with torch's state_dict names:
//   encoder.embedding.weight      (src_vocab, e)
//   encoder.rnn.{weight_ih, weight_hh, bias_ih, bias_hh}_l{k}   GRU(e, h, num_layers)
//   decoder.attention.W_k.weight  (h, h)   decoder.attention.W_q.weight (h, h)
//   decoder.attention.w_v.weight  (1, h)   (kept as (h), AdditiveWeights' layout)
//   decoder.embedding.weight      (tgt_vocab, e)
//   decoder.rnn.*_l{k}            GRU(e + h, h, num_layers): layer 0's input is [context, embedding]
//   decoder.dense.weight (tgt_vocab, h), decoder.dense.bias (tgt_vocab)
struct Seq2SeqParams {
  Tensor enc_embedding;
  std::vector<GruLayer> enc_rnn;
  AdditiveWeights attention;
  Tensor dec_embedding;
  std::vector<GruLayer> dec_rnn;
  Tensor dense_weight, dense_bias;
  Seq2SeqSizes sizes() const;
};

// One parameter: its state_dict name, the tensor, and torch's shape of it (w_v: (1, h)).
struct NamedParameter {
  std::string name;
  Tensor* tensor;
  Shape torch_shape;
};
// Every parameter in state_dict order.
std::vector<NamedParameter> named_parameters(Seq2SeqParams& params);

Seq2SeqParams seq2seq_zeros(const Seq2SeqSizes& sizes);
// torch's default initialisation drawn from rng in state_dict order: nn.Embedding N(0, 1),
// nn.GRU uniform(+-1/sqrt(h)), nn.Linear weight and bias uniform(+-1/sqrt(fan_in)).
Seq2SeqParams seq2seq_init(Rng& rng, const Seq2SeqSizes& sizes);
// d2l train_seq2seq's xavier_init_weights, applied by net.apply: every nn.Linear weight and every
// GRU weight matrix redrawn xavier-uniform, bound sqrt(6 / (fan_in + fan_out)), in apply's
// order: encoder.rnn (weight_ih_l0, weight_hh_l0, l1, ...), decoder.attention.W_k, W_q, w_v,
// decoder.rnn, decoder.dense. Embeddings and biases keep their draws.
void seq2seq_xavier(Rng& rng, Seq2SeqParams& params);

// A batch: src (B, T_src) and tgt (B, T_tgt) token ids (tgt is the decoder's input, teacher
// forcing), enc_valid_lens (B) optional.
struct Seq2SeqBatch {
  IndexTensor src, tgt;
  std::optional<IndexTensor> enc_valid_lens;
};

// The forward pass with everything the trace shows (SPEC §3) and the backward pass needs.
struct Seq2SeqForward {
  Tensor enc_outputs;   // (B, T_src, h)  the encoder's top layer, d2l's outputs.permute(1, 0, 2)
  Tensor enc_state;     // (L, B, h)      the encoder's final state = the decoder's initial state
  Tensor dec_queries;   // (B, T_tgt, h)  hidden_state[-1] before each step: the attention's query
  Tensor weights;       // (B, T_tgt, T_src)
  Tensor dec_context;   // (B, T_tgt, h)
  Tensor dec_outputs;   // (B, T_tgt, h)  the decoder's top layer after each step (before dense)
  Tensor output;        // (B, T_tgt, tgt_vocab)
  Tensor dec_state;     // (L, B, h)
  std::vector<GruStepCache> enc_cache, dec_cache;  // [t * L + k], with keep_cache
  Cost cost;
};
// Throws OverflowError on "weights.<state_dict name>" when a number stops being finite.
Seq2SeqForward seq2seq_forward(const Seq2SeqParams& params, const Seq2SeqBatch& batch, bool keep_cache);

// Gradients of sum(d_output * output) with respect to every parameter (d_output (B, T_tgt, V)),
// from a forward pass made with keep_cache.
Seq2SeqParams seq2seq_backward(const Seq2SeqParams& params, const Seq2SeqBatch& batch, const Seq2SeqForward& fwd,
                               const Tensor& d_output);

// d2l's MaskedSoftmaxCELoss: per sequence, sum over t < valid_len of cross-entropy(logits, label),
// divided by T (the mean over all T positions of the masked loss). logits (B, T, V), labels
// (B, T), valid_len (B) -> (B). With d_logits, the gradient of the losses' sum (l.sum()).
Tensor masked_softmax_ce(const Tensor& logits, const IndexTensor& labels, const IndexTensor& valid_len,
                         Tensor* d_logits);

// ---- training (core/seq2seq_train.cpp) ----

// d2l's Vocab(reserved_tokens=['<pad>', '<bos>', '<eos>']) ids; words are kFirstWord .. vocab - 1.
constexpr std::int64_t kUnk = 0, kPad = 1, kBos = 2, kEos = 3, kFirstWord = 4;

enum class Seq2SeqTask { reverse, copy };

struct Seq2SeqTraining {
  Seq2SeqTask task = Seq2SeqTask::reverse;
  std::size_t n_examples = 0, epochs = 0, batch_size = 0, min_len = 0, max_len = 0;
  double lr = 0.0;
  std::uint64_t seed = 0;
  std::size_t num_steps() const { return max_len + 1; }  // the longest sentence and its <eos>
};

// n examples of the task: src (n, num_steps) = words + <eos> + <pad>s, src_valid_len (n),
// label (n, num_steps) = the target words + <eos> + <pad>s, label_valid_len (n).
struct Seq2SeqExamples {
  IndexTensor src, src_valid_len, label, label_valid_len;
};
// Draws the n examples from rng (see docs/semantics.md): per example its length
// min_len + below(max_len - min_len + 1), then its words kFirstWord + below(vocab - kFirstWord).
Seq2SeqExamples seq2seq_examples(const Seq2SeqTraining& training, std::size_t vocab, Rng& rng, std::size_t n);

// Greedy decoding, d2l's predict_seq2seq: one source sentence (num_steps ids, valid_len), up to
// num_steps steps from <bos>; predicted excludes the final <eos>; weights (steps run, T_src).
struct Seq2SeqPrediction {
  IndexTensor predicted;
  Tensor weights;
  Cost cost;
};
Seq2SeqPrediction predict_seq2seq(const Seq2SeqParams& params, const IndexTensor& src, std::int64_t valid_len,
                                  std::size_t num_steps);

struct Seq2SeqTrainResult {
  Tensor loss;                                  // (epochs): d2l's metric[0] / metric[1] per epoch
  IndexTensor heldout_src;                      // (num_steps)
  std::int64_t heldout_valid_len = 0;
  IndexTensor heldout_target;                   // the right answer: words + <eos>
  Seq2SeqPrediction prediction;                 // of the trained model on heldout_src
  Cost cost;
};
// d2l's train_seq2seq from params (updated in place): per epoch a shuffle, minibatches with
// teacher forcing (<bos> + label[:, :-1]), MaskedSoftmaxCELoss, l.sum().backward(), gradient
// clipping at norm 1, Adam (torch defaults). `progress(epoch, loss)` after each epoch; returning
// false stops training there. Overflow errors before the first Adam step keep their field
// (the given weights); after it they are errors on train.lr (training diverged).
Seq2SeqTrainResult train_seq2seq(Seq2SeqParams& params, const Seq2SeqTraining& training,
                                 const std::function<bool(std::size_t, double)>& progress = {});

// Multiply-adds of one example through the forward pass (one batch row): what the size limits
// and cost use. Backward is counted as twice the forward.
std::uint64_t seq2seq_forward_macs(const Seq2SeqSizes& sizes, std::size_t T_src, std::size_t T_tgt);

}  // namespace attnplay
