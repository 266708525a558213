// Bahdanau attention (d2l 10.4) as an algorithm: the seq2seq model of core/seq2seq.hpp run on a
// batch (or trained first), and its trace (core/bahdanau.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "seq2seq.hpp"
#include "trace.hpp"

namespace attnplay {

struct BahdanauOptions {
  TraceLevel level = TraceLevel::full;
  std::optional<Seq2SeqTraining> train;
  std::optional<IndexTensor> labels, label_valid_lens;  // for seq_loss and gradients
  bool gradients = false;
  // The weights came with current d2l-en's names (encoder.rnn.rnn.*): gradients/ and trained_weights/
  // say the encoder's GRU that way too (issue 17).
  bool d2l_en_names = false;
  std::function<bool(std::size_t, double)> progress;
};

// With train: trains first (params updated), and without a batch runs the held-out example
// (teacher forcing). Trace (SPEC §3, docs/semantics.md): enc_outputs, enc_state, dec_queries,
// weights, dec_context, output, dec_state; seq_loss with labels; gradients/<name> with gradients;
// loss, heldout_src, heldout_target, predicted, heldout_weights with train.
Trace bahdanau(Seq2SeqParams params, std::optional<Seq2SeqBatch> batch, const BahdanauOptions& options);

}  // namespace attnplay
