// Reader of "bahdanau": src, tgt (token ids), the model sizes, weights (torch state_dict names)
// or seeded, enc_valid_lens, labels / label_valid_lens / gradients, and train: {...}.
#include "../bahdanau.hpp"
#include "readers.hpp"

#include <algorithm>
#include <limits>
#include <optional>

namespace attnplay {

namespace {

// Multiply-adds one scenario may ask for, forward passes and training together, as counted by
// seq2seq_forward_macs (training: 3x the forward per example and epoch). About a second natively
// at the limit; the default training is 0.94e9 (0.5 s natively).
constexpr std::uint64_t kMaxMultiplyAdds = std::uint64_t{1} << 31;

// Defaults (docs/semantics.md): small enough that the default training runs in about a second.
constexpr std::int64_t kDefaultVocab = 10, kDefaultEmbed = 8, kDefaultHiddens = 16, kDefaultLayers = 1;

const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);

std::optional<std::int64_t> optional_integer(Fields& f, const std::string& key, std::int64_t min, std::int64_t max) {
  if (!f.has(key)) {
    f.ignore({key});
    return std::nullopt;
  }
  return f.required_integer(key, min, max);
}

// Token ids of one vocabulary: the range error also says which vocabulary.
IndexTensor read_tokens(ScenarioContext& ctx, const std::string& key, const std::vector<Dim>& dims,
                        std::int64_t vocab, const std::string& vocab_name) {
  IndexTensor t;
  try {
    t = ctx.fields.index_tensor(key, dims, 0, vocab - 1);
  } catch (const InputError& e) {
    if (e.detail.rfind("expected an integer from", 0) == 0)
      throw InputError(e.field, e.detail + " (a token id of " + vocab_name + " = " + std::to_string(vocab) + ")");
    throw;
  }
  ctx.record_shape(key, Shape(t.shape().begin(), t.shape().end()));
  return t;
}

// The given weights, checked against the sizes (absent sizes are taken from the weights).
Seq2SeqParams read_weights(ScenarioContext& ctx, std::optional<std::int64_t> sizes[5]) {
  Fields w = ctx.fields.object("weights");
  auto dim = [&](int i, const char* label) {
    return sizes[i] ? Dim::of(static_cast<std::size_t>(*sizes[i]), label) : Dim::any(label);
  };
  auto fix = [&](int i, std::size_t value) { sizes[i] = static_cast<std::int64_t>(value); };
  enum { SRC, TGT, EMBED, HID, LAYERS };
  // Current d2l-en wraps the encoder's nn.GRU in d2l.GRU: its state_dict says encoder.rnn.rnn.*
  // (SPEC §2: accepted always); d2l-zh and the seed say encoder.rnn.*. One naming per scenario.
  const bool d2l_en = w.has("encoder.rnn.rnn.weight_ih_l0");
  if (d2l_en && w.has("encoder.rnn.weight_ih_l0"))
    throw InputError(w.path_of("encoder.rnn.rnn.weight_ih_l0"),
                     "give the encoder's GRU once: encoder.rnn.* (d2l-zh) or encoder.rnn.rnn.* (d2l-en's d2l.GRU), not both");
  const std::string enc_rnn = d2l_en ? "encoder.rnn.rnn." : "encoder.rnn.";
  Seq2SeqParams p;
  p.enc_embedding = w.tensor("encoder.embedding.weight", {dim(SRC, "src_vocab"), dim(EMBED, "embed_size")});
  fix(SRC, p.enc_embedding.shape()[0]);
  fix(EMBED, p.enc_embedding.shape()[1]);
  if (!sizes[HID]) {  // num_hiddens from the encoder's weight_hh_l0 (3h, h)
    const Tensor hh = w.tensor(enc_rnn + "weight_hh_l0", {Dim::any("3 num_hiddens"), Dim::any("num_hiddens")});
    fix(HID, hh.shape()[1]);
  }
  if (!sizes[LAYERS]) {  // num_layers: the encoder's weight_ih_l{k} present
    std::size_t k = 0;
    while (w.has(enc_rnn + "weight_ih_l" + std::to_string(k))) ++k;
    if (k == 0) throw InputError(w.path_of("encoder.rnn.weight_ih_l0"), "required (the encoder's GRU, layer 0; d2l-en: encoder.rnn.rnn.weight_ih_l0)");
    fix(LAYERS, k);
  }
  const std::size_t e = static_cast<std::size_t>(*sizes[EMBED]), h = static_cast<std::size_t>(*sizes[HID]);
  const std::size_t L = static_cast<std::size_t>(*sizes[LAYERS]);
  const Dim H = Dim::of(h, "num_hiddens"), H3 = Dim::of(3 * h, "3 num_hiddens");
  auto rnn = [&](const std::string& prefix, std::size_t in, const std::string& in_label) {
    std::vector<GruLayer> layers(L);
    for (std::size_t k = 0; k < L; ++k) {
      const std::string l = "_l" + std::to_string(k);
      layers[k].weight_ih = w.tensor(prefix + "weight_ih" + l, {H3, k == 0 ? Dim::of(in, in_label) : H});
      layers[k].weight_hh = w.tensor(prefix + "weight_hh" + l, {H3, H});
      layers[k].bias_ih = w.tensor(prefix + "bias_ih" + l, {H3});
      layers[k].bias_hh = w.tensor(prefix + "bias_hh" + l, {H3});
    }
    return layers;
  };
  p.enc_rnn = rnn(enc_rnn, e, "embed_size");
  p.attention.W_k = w.tensor("decoder.attention.W_k.weight", {H, H});
  p.attention.W_q = w.tensor("decoder.attention.W_q.weight", {H, H});
  // torch's (1, h), or (h)
  const json& w_v = w.raw("decoder.attention.w_v.weight");
  if (w_v.is_array() && !w_v.empty() && w_v[0].is_array()) {
    p.attention.w_v = read_tensor(w_v, w.path_of("decoder.attention.w_v.weight"), {Dim::of(1, "out = 1"), H}, nullptr);
    p.attention.w_v.reshape({h});
  } else {
    p.attention.w_v = w.tensor("decoder.attention.w_v.weight", {H});
  }
  p.dec_embedding = w.tensor("decoder.embedding.weight", {dim(TGT, "tgt_vocab"), Dim::of(e, "embed_size")});
  fix(TGT, p.dec_embedding.shape()[0]);
  p.dec_rnn = rnn("decoder.rnn.", e + h, "embed_size + num_hiddens");
  const Dim V = Dim::of(static_cast<std::size_t>(*sizes[TGT]), "tgt_vocab");
  p.dense_weight = w.tensor("decoder.dense.weight", {V, H});
  p.dense_bias = w.tensor("decoder.dense.bias", {V});
  w.warn_unused(ctx.warnings);
  return p;
}

Seq2SeqTraining read_training(ScenarioContext& ctx) {
  Fields t = ctx.fields.object("train");
  Seq2SeqTraining tr;
  tr.task = t.choice("task", {"reverse", "copy"}, "reverse") == "reverse" ? Seq2SeqTask::reverse : Seq2SeqTask::copy;
  tr.n_examples = static_cast<std::size_t>(t.integer("n_examples", 500, 1, big));
  tr.epochs = static_cast<std::size_t>(t.integer("epochs", 20, 1, big));
  tr.batch_size = static_cast<std::size_t>(t.integer("batch_size", 32, 1, big));
  tr.max_len = static_cast<std::size_t>(t.integer("max_len", 5, 1, big - 1));
  tr.min_len = static_cast<std::size_t>(t.integer("min_len", std::min<std::int64_t>(3, static_cast<std::int64_t>(tr.max_len)), 1,
                                                  static_cast<std::int64_t>(tr.max_len)));
  tr.lr = t.number("lr", 0.01);
  if (!(tr.lr >= 0.0)) throw InputError(t.path_of("lr"), "expected a number >= 0, got " + t.raw("lr").dump());
  tr.seed = static_cast<std::uint64_t>(t.integer("seed", static_cast<std::int64_t>(ctx.seed), 0,
                                                 std::numeric_limits<std::int64_t>::max()));
  t.warn_unused(ctx.warnings);
  return tr;
}

}  // namespace

namespace {

// What the reader makes of the scenario before anything runs: the run's arguments and its work.
struct BahdanauPlan {
  Seq2SeqSizes s;
  bool given = false;  // weights given (else drawn from the seed)
  Seq2SeqParams params;
  std::optional<Seq2SeqBatch> batch;
  BahdanauOptions options;
  std::uint64_t B = 1, T_src = 0, T_tgt = 0, forward = 0, training = 0;  // multiply-adds
};

BahdanauPlan read_bahdanau(ScenarioContext& ctx) {
  std::uint64_t training_macs = 0;
  Fields& f = ctx.fields;
  enum { SRC, TGT, EMBED, HID, LAYERS };
  const char* size_names[5] = {"src_vocab", "tgt_vocab", "embed_size", "num_hiddens", "num_layers"};
  std::optional<std::int64_t> sizes[5];
  for (int i = 0; i < 5; ++i) sizes[i] = optional_integer(f, size_names[i], 1, big);

  // 1. the training task (its vocabulary needs the sizes)
  std::optional<Seq2SeqTraining> training;
  if (f.has("train")) training = read_training(ctx);
  else f.ignore({"train"});

  // 2. the weights: given (sizes checked or taken from them) or seeded
  const bool given = f.has("weights");
  Seq2SeqParams params;
  if (given) {
    params = read_weights(ctx, sizes);
  } else {
    f.ignore({"weights"});
    const std::int64_t defaults[5] = {kDefaultVocab, kDefaultVocab, kDefaultEmbed, kDefaultHiddens, kDefaultLayers};
    for (int i = 0; i < 5; ++i)
      if (!sizes[i]) sizes[i] = defaults[i];
  }
  const Seq2SeqSizes s{static_cast<std::size_t>(*sizes[SRC]), static_cast<std::size_t>(*sizes[TGT]),
                       static_cast<std::size_t>(*sizes[EMBED]), static_cast<std::size_t>(*sizes[HID]),
                       static_cast<std::size_t>(*sizes[LAYERS])};
  const std::uint64_t h = s.num_hiddens, e = s.embed_size, L = s.num_layers;
  if (!given) {  // every parameter the seed would draw must fit
    check_size(std::uint64_t{s.src_vocab} * e, "src_vocab", "encoder.embedding.weight (src_vocab, embed_size)");
    check_size(std::uint64_t{s.tgt_vocab} * e, "tgt_vocab", "decoder.embedding.weight (tgt_vocab, embed_size)");
    check_size(std::uint64_t{s.tgt_vocab} * h, "tgt_vocab", "decoder.dense.weight (tgt_vocab, num_hiddens)");
    check_size(3 * h * (e + h), "num_hiddens", "decoder.rnn.weight_ih_l0 (3 num_hiddens, embed_size + num_hiddens)");
    check_size(3 * h * h * L, "num_layers", "the GRUs' weight_hh_l{k} (3 num_hiddens, num_hiddens) of all layers");
  }

  if (training) {
    if (s.tgt_vocab != s.src_vocab)
      throw InputError("tgt_vocab", "the training task copies words from source to target: expected tgt_vocab = src_vocab = " +
                                        std::to_string(s.src_vocab) + ", got " + std::to_string(s.tgt_vocab));
    if (s.src_vocab <= static_cast<std::size_t>(kFirstWord))
      throw InputError("src_vocab", "the training task needs at least 5 tokens (<unk> 0, <pad> 1, <bos> 2, <eos> 3 and "
                                    "words from 4), got " + std::to_string(s.src_vocab));
  }

  // 3. the batch: src, tgt (optional with train: the held-out example), enc_valid_lens, labels
  std::optional<Seq2SeqBatch> batch;
  const bool has_batch = f.has("src") || f.has("tgt") || !training;
  if (has_batch) {
    Seq2SeqBatch b;
    if (!f.has("src")) throw InputError("src", training ? "required with tgt (or leave both out: the held-out example)"
                                                        : "required: the source token ids (B, T_src)");
    b.src = read_tokens(ctx, "src", {Dim::any("B"), Dim::any("T_src")}, *sizes[SRC], "src_vocab");
    const std::size_t B = b.src.shape()[0];
    if (!f.has("tgt")) throw InputError("tgt", "required: the decoder's input token ids (B, T_tgt)");
    b.tgt = read_tokens(ctx, "tgt", {Dim::of(B, "B of src"), Dim::any("T_tgt")}, *sizes[TGT], "tgt_vocab");
    if (f.has("enc_valid_lens")) {
      b.enc_valid_lens = f.index_tensor("enc_valid_lens", {Dim::of(B, "B of src")}, 0, big);
      ctx.record_shape("enc_valid_lens", {B});
    } else {
      f.ignore({"enc_valid_lens"});
    }
    batch = std::move(b);
  } else {
    for (const char* key : {"enc_valid_lens", "labels", "label_valid_lens"})
      if (f.has(key)) throw InputError(key, "requires src and tgt (without them the trace runs the held-out example)");
    f.ignore({"src", "tgt", "enc_valid_lens"});
  }
  BahdanauOptions options;
  options.level = ctx.level;
  options.train = training;
  if (training && ctx.progress) {  // after each epoch: the page's progress bar and live loss curve
    const std::size_t epochs = training->epochs;
    options.progress = [&ctx, epochs](std::size_t epoch, double loss) {
      ctx.report(static_cast<double>(epoch + 1) / static_cast<double>(epochs),
                 "epoch " + std::to_string(epoch + 1) + " of " + std::to_string(epochs),
                 {{"epoch", epoch + 1}, {"epochs", epochs}, {"loss", loss}});
      return true;
    };
  }
  options.gradients = f.boolean("gradients", false);
  options.d2l_en_names = given && ctx.fields.object("weights").has("encoder.rnn.rnn.weight_ih_l0");
  if (batch && f.has("labels")) {
    const std::size_t B = batch->src.shape()[0], T_tgt = batch->tgt.shape()[1];
    options.labels = read_tokens(ctx, "labels", {Dim::of(B, "B of src"), Dim::of(T_tgt, "T_tgt of tgt")}, *sizes[TGT],
                                 "tgt_vocab");
    if (f.has("label_valid_lens")) {
      options.label_valid_lens = f.index_tensor("label_valid_lens", {Dim::of(B, "B of src")}, 0, big);
      ctx.record_shape("label_valid_lens", {B});
    } else {
      f.ignore({"label_valid_lens"});
    }
  } else {
    if (f.has("label_valid_lens")) throw InputError("label_valid_lens", "requires labels");
    f.ignore({"labels", "label_valid_lens"});
  }
  if (options.gradients && !options.labels)
    throw InputError("labels", "required with gradients: true (the targets (B, T_tgt) of the loss)");

  // 4. sizes of what the run makes, and the work
  const std::size_t T = training ? training->num_steps() : 0;
  const std::uint64_t B = batch ? batch->src.shape()[0] : 1;
  const std::uint64_t T_src = batch ? batch->src.shape()[1] : T, T_tgt = batch ? batch->tgt.shape()[1] : T;
  // without src / tgt the forward pass runs the held-out example: max_len + 1 steps
  const std::string src_field = batch ? "src" : "train.max_len", tgt_field = batch ? "tgt" : "train.max_len";
  check_size(B * T_src * h, src_field, "enc_outputs (B, T_src, num_hiddens)");
  check_size(B * T_tgt * std::max<std::uint64_t>(h, T_src), tgt_field,
             "the decoder's trace (B, T_tgt, num_hiddens) and weights (B, T_tgt, T_src)");
  check_size(B * T_tgt * s.tgt_vocab, tgt_field, "output (B, T_tgt, tgt_vocab)");
  check_size(L * B * h, "num_layers", "the states (num_layers, B, num_hiddens)");
  const std::uint64_t forward = B * seq2seq_forward_macs(s, T_src, T_tgt) * (options.gradients ? 3 : 1);
  if (forward > kMaxMultiplyAdds)
    throw InputError(src_field, "the forward pass of B = " + std::to_string(B) + " sentences (T_src " + std::to_string(T_src) +
                                ", T_tgt " + std::to_string(T_tgt) + ", num_hiddens " + std::to_string(h) + ") would take " +
                                std::to_string(forward) + " multiply-adds, more than the limit " + std::to_string(kMaxMultiplyAdds));
  if (training) {
    const Seq2SeqTraining& tr = *training;
    // a long sentence is to blame when the default 500 examples of it would not fit either
    const bool long_sentences = std::uint64_t{T} * 2 * 500 > kMaxTensorElements;
    check_size(std::uint64_t{tr.n_examples} * T * 2, long_sentences ? "train.max_len" : "train.n_examples",
               "the examples (n_examples, max_len + 1), sources and labels");
    check_size(std::uint64_t{tr.batch_size} * T * (L * 6 + 4) * h, "train.batch_size", "the training's activations per minibatch");
    const std::uint64_t example = 3 * seq2seq_forward_macs(s, T, T);  // forward and backward
    const std::uint64_t epoch = example * tr.n_examples;
    const std::string what = "would take " + std::to_string(epoch) + " multiply-adds per epoch";
    if (example > kMaxMultiplyAdds)  // the length is to blame when the default length would fit
      throw InputError(3 * seq2seq_forward_macs(s, 6, 6) <= kMaxMultiplyAdds ? "train.max_len" : "num_hiddens",
                       "training one example would take " + std::to_string(example) +
                           " multiply-adds, more than the limit " + std::to_string(kMaxMultiplyAdds));
    if (epoch > kMaxMultiplyAdds)
      throw InputError("train.n_examples", std::to_string(tr.n_examples) + " examples " + what + ", more than the limit " +
                                               std::to_string(kMaxMultiplyAdds));
    training_macs = epoch * tr.epochs;
    if (epoch * tr.epochs + forward > kMaxMultiplyAdds)
      throw InputError("train.epochs", std::to_string(tr.epochs) + " epochs of " + std::to_string(tr.n_examples) + " examples " +
                                           "would take " + std::to_string(epoch * tr.epochs) + " multiply-adds, more than the limit " +
                                           std::to_string(kMaxMultiplyAdds));
  }
  return {s, given, std::move(params), std::move(batch), std::move(options), B, T_src, T_tgt, forward, training_macs};
}

}  // namespace

json bahdanau_defaults() {
  return {{"src_vocab", kDefaultVocab}, {"tgt_vocab", kDefaultVocab}, {"embed_size", kDefaultEmbed},
          {"num_hiddens", kDefaultHiddens}, {"num_layers", kDefaultLayers}};
}

// The forward pass's work and trace from the sizes; training (its examples' lengths and the
// held-out decoding depend on the seed) only as the reader's bound of its work.
Estimate estimate_bahdanau(ScenarioContext& ctx) {
  const BahdanauPlan p = read_bahdanau(ctx);
  const std::uint64_t B = p.B, T_src = p.T_src, T_tgt = p.T_tgt, h = p.s.num_hiddens, L = p.s.num_layers;
  Estimate e;
  e.exact = !p.options.train && !p.options.gradients;
  e.cost = {B * T_tgt * T_src, B * T_tgt * T_src, 2 * (p.forward + p.training)};
  if (const auto& tr = p.options.train) {  // every example at the longest, and the held-out decoding
    const std::uint64_t T = tr->num_steps();
    e.cost.dot_products += (std::uint64_t{tr->n_examples} * tr->epochs + 1) * T * T;
  }
  e.numbers = B * T_tgt * p.s.tgt_vocab;  // output
  if (ctx.level == TraceLevel::full)  // enc_outputs, enc_state, dec_queries, weights, dec_context, dec_state
    e.numbers += B * T_src * h + 2 * L * B * h + 2 * B * T_tgt * h + B * T_tgt * T_src;
  if (p.options.labels) e.numbers += B;  // seq_loss
  if (p.options.train) {  // trained_weights: every parameter
    Seq2SeqParams zeros = seq2seq_zeros(p.s);
    for (const auto& np : named_parameters(zeros)) e.numbers += np.tensor->size();
  }
  return e;
}

Trace run_bahdanau(ScenarioContext& ctx) {
  BahdanauPlan plan = read_bahdanau(ctx);
  Seq2SeqParams& params = plan.params;
  const Seq2SeqSizes& s = plan.s;
  const bool given = plan.given;
  const auto& training = plan.options.train;
  ctx.begin_work();
  // 5. seeded weights: torch's defaults, then (with train) d2l's xavier_init_weights, one generator
  if (!given) {
    Rng rng(ctx.seed, RngStream::weights);
    params = seq2seq_init(rng, s);
    if (training) seq2seq_xavier(rng, params);
  }
  return bahdanau(std::move(params), std::move(plan.batch), plan.options);
}

namespace {

json zeros_tokens(std::size_t B, std::size_t T) {
  return json::array_t(B, json::array_t(T, 0));
}

}  // namespace

// d2l's Bahdanau decoder (seed 003): the shape test, masking, and training on a synthetic task.
std::vector<Preset> bahdanau_presets() {
  std::vector<Preset> p;
  json shapes = {{"algorithm", "bahdanau"}, {"src_vocab", 10}, {"tgt_vocab", 10}, {"embed_size", 8},
                 {"num_hiddens", 16}, {"num_layers", 2}, {"src", zeros_tokens(4, 7)}, {"tgt", zeros_tokens(4, 7)}};
  p.push_back({"d2l-bahdanau-shapes", "d2l Bahdanau decoder: the shape test", "d2l Bahdanau 解码器:形状测试",
               "Seq2SeqEncoder and Seq2SeqAttentionDecoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2) "
               "on X = zeros((4, 7)) as both source and decoder input, weights drawn from the seed. d2l prints "
               "output.shape (4, 7, 10), len(state) 3, state[0].shape (4, 7, 16) (enc_outputs), len(state[1]) 2 and "
               "state[1][0].shape (4, 16) (hidden_state, (num_layers, B, h) = (2, 4, 16)): here output (4, 7, 10), "
               "enc_outputs (4, 7, 16), dec_state (2, 4, 16), and the attention weights (4, 7, 7), one row per "
               "decoder step over the 7 source positions. Untrained, the weights are almost uniform (1/7 = 0.143; "
               "the first row goes from 0.145 to 0.141), and all four sentences, equal, give equal rows.",
               shapes});
  json masked = shapes;
  masked["enc_valid_lens"] = {2, 3, 5, 7};
  p.push_back({"bahdanau-enc-valid-lens", "Bahdanau decoder with enc_valid_lens [2, 3, 5, 7]",
               "带 enc_valid_lens [2, 3, 5, 7] 的 Bahdanau 解码器",
               "The shape test's model with the encoder's valid lengths: the decoder never attends to padding. "
               "Sentence 0 spreads its weights over source positions 0 and 1 only (about 0.50 each), sentence 1 over "
               "0-2 (about 1/3 each), sentence 2 over 0-4, sentence 3 over all 7 (the masked scores are set to -1e6, "
               "d2l's masked_softmax, so their weights are exactly 0).",
               masked});
  p.push_back({"bahdanau-train-reverse-quick", "Training on the reverse task, 3 epochs (a quick look)",
               "在反转任务上训练 3 轮(快速预览)",
               "d2l's train_seq2seq on 60 sentences of 2-4 words (vocabulary 8: <unk> <pad> <bos> <eos> and 4 "
               "words), num_hiddens 8, 3 epochs of Adam (lr 0.01, batch 16) with gradient clipping at 1: the loss "
               "falls from 0.42 to 0.34 (d2l's metric: the cross-entropy per token, ln 8 = 2.08 at first, divided "
               "by num_steps = 5); the held-out sentence, w5 w4 (reversed: w4 w5), is not yet right and its weights "
               "are still blurred (no row above 0.6). "
               "The default training (train: {}, 500 sentences, 20 epochs, num_hiddens 16; about half a second) "
               "ends below a hundredth of its first loss, with each row's weight on the mirrored source position: "
               "the anti-diagonal.",
               json::parse(R"({"algorithm": "bahdanau", "src_vocab": 8, "tgt_vocab": 8, "embed_size": 8,
                   "num_hiddens": 8, "num_layers": 1,
                   "train": {"task": "reverse", "n_examples": 60, "epochs": 3, "batch_size": 16, "min_len": 2,
                             "max_len": 4, "lr": 0.01}})")});
  return p;
}

}  // namespace attnplay
