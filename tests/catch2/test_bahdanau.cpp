// Bahdanau attention (d2l's Seq2SeqEncoder + Seq2SeqAttentionDecoder): the seed's shape test,
// the decoder loop's invariants, the hand-written backward pass against finite differences,
// training on the reverse task, and bad inputs. (The PyTorch comparisons, forward, gradients
// and training, are the fixtures in tests/fixtures/bahdanau/, run by test_fixtures.cpp.)
#include "helpers.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "../../core/bahdanau.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

json shape(std::initializer_list<int> dims) { return json(std::vector<int>(dims)); }

// A small scenario with seeded weights: B = 2, T_src = 3, T_tgt = 3, vocab 6, e 2, h 3.
json small() {
  return json::parse(R"({"algorithm": "bahdanau", "src_vocab": 6, "tgt_vocab": 6, "embed_size": 2, "num_hiddens": 3,
      "num_layers": 1, "src": [[4, 5, 3], [5, 3, 1]], "tgt": [[2, 4, 5], [2, 5, 3]]})");
}

// Every parameter of a Seq2SeqParams as the scenario's "weights" object (torch's names and shapes).
json weights_json(Seq2SeqParams& p) {
  json w = json::object();
  for (auto& np : named_parameters(p)) {
    Tensor t = *np.tensor;
    t.reshape(np.torch_shape);
    std::function<json(std::size_t, std::size_t&)> nest = [&](std::size_t depth, std::size_t& offset) {
      json a = json::array();
      for (std::size_t i = 0; i < np.torch_shape[depth]; ++i)
        a.push_back(depth + 1 == np.torch_shape.size() ? json(t.data()[offset++]) : nest(depth + 1, offset));
      return a;
    };
    std::size_t offset = 0;
    w[np.name] = nest(0, offset);
  }
  return w;
}

}  // namespace

TEST_CASE("bahdanau: d2l's shape test (vocab 10, embed 8, hiddens 16, 2 layers, X = zeros(4, 7))") {
  const json t = run_preset("d2l-bahdanau-shapes");
  // d2l: output.shape (4, 7, 10); state = [enc_outputs (4, 7, 16), hidden_state (2, 4, 16), None]
  CHECK(t["shapes"]["output"] == shape({4, 7, 10}));
  CHECK(t["shapes"]["enc_outputs"] == shape({4, 7, 16}));
  CHECK(t["shapes"]["dec_state"] == shape({2, 4, 16}));
  CHECK(t["shapes"]["enc_state"] == shape({2, 4, 16}));
  CHECK(t["shapes"]["dec_queries"] == shape({4, 7, 16}));
  CHECK(t["shapes"]["dec_context"] == shape({4, 7, 16}));
  CHECK(t["shapes"]["weights"] == shape({4, 7, 7}));
  CHECK(t["cost"]["dot_products"] == 4 * 7 * 7);
  CHECK(t["cost"]["dense_dot_products"] == 4 * 7 * 7);
  const Preset* p = find_preset("d2l-bahdanau-shapes");
  CHECK_THAT(p->description, Contains("(4, 7, 10)") && Contains("(4, 7, 16)") && Contains("(4, 16)") && Contains("(2, 4, 16)"));
}

TEST_CASE("bahdanau: the decoder loop's invariants (query, context, encoder state)") {
  const json t = run_preset("d2l-bahdanau-shapes");
  for (std::size_t b = 0; b < 4; ++b) {
    for (std::size_t u = 0; u < 16; ++u) {
      // the encoder's final top-layer state is its last output, and the decoder's first query
      CHECK(at(t["enc_state"], {1, b, u}) == at(t["enc_outputs"], {b, 6, u}));
      CHECK(at(t["dec_queries"], {b, 0, u}) == at(t["enc_state"], {1, b, u}));
    }
    for (std::size_t i = 0; i < 7; ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < 7; ++j) sum += at(t["weights"], {b, i, j});
      CHECK(sum == Approx(1.0).epsilon(1e-14));
      // the context is the weighted sum of the encoder's outputs
      for (std::size_t u = 0; u < 16; ++u) {
        double c = 0;
        for (std::size_t j = 0; j < 7; ++j) c += at(t["weights"], {b, i, j}) * at(t["enc_outputs"], {b, j, u});
        CHECK(at(t["dec_context"], {b, i, u}) == Approx(c).margin(1e-14));
      }
    }
  }
  // same input tokens everywhere: every batch item computes the same thing
  CHECK(max_rel_diff(t["output"][0], t["output"][3]) == 0.0);
}

TEST_CASE("bahdanau: enc_valid_lens masks the padding (weights exactly 0), 0 gives d2l's uniform row") {
  const json t = run_preset("bahdanau-enc-valid-lens");
  const std::size_t lens[4] = {2, 3, 5, 7};
  for (std::size_t b = 0; b < 4; ++b)
    for (std::size_t i = 0; i < 7; ++i)
      for (std::size_t j = 0; j < 7; ++j) {
        if (j >= lens[b]) CHECK(at(t["weights"], {b, i, j}) == 0.0);
        else CHECK(at(t["weights"], {b, i, j}) > 0.0);
      }
  json s = small();
  s["enc_valid_lens"] = {0, 9};
  const json z = run(s);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(at(z["weights"], {0, i, j}) == Approx(1.0 / 3).epsilon(1e-15));  // every score replaced by -1e6
      CHECK(at(z["weights"], {1, i, j}) > 0.0);                              // 9 > T_src: nothing masked
    }
  CHECK(z["warnings"].empty());
}

TEST_CASE("bahdanau: given weights named as torch's state_dict reproduce the seeded run") {
  Rng rng(0, RngStream::weights);
  Seq2SeqParams p = seq2seq_init(rng, {6, 6, 2, 3, 2});
  json s = small();
  s["num_layers"] = 2;
  const json seeded = run(s);
  s["weights"] = weights_json(p);
  REQUIRE(s["weights"].contains("decoder.attention.w_v.weight"));
  CHECK(s["weights"]["decoder.attention.w_v.weight"].size() == 1);  // torch's (1, h)
  CHECK(s["weights"].contains("encoder.rnn.bias_hh_l1"));
  const json given = run(s);
  CHECK(given["warnings"].empty());
  CHECK(max_rel_diff(given["output"], seeded["output"]) == 0.0);
  CHECK(max_rel_diff(given["weights"], seeded["weights"]) == 0.0);
  // the sizes may be left out: they are read from the weights
  for (const char* key : {"src_vocab", "tgt_vocab", "embed_size", "num_hiddens", "num_layers"}) s.erase(key);
  CHECK(max_rel_diff(run(s)["output"], seeded["output"]) == 0.0);
}

TEST_CASE("bahdanau: the hand-written gradients equal central finite differences") {
  // vocab 6 (token 5 unused) and 4, e 2, h 3, two layers, B 2, T_src 3, T_tgt 3, enc_valid_lens [2, 3]
  Rng rng(42, RngStream::weights);
  Seq2SeqParams p = seq2seq_init(rng, {6, 4, 2, 3, 2});
  Seq2SeqBatch batch;
  batch.src = IndexTensor({{4, 1, 2}, {0, 3, 3}});
  batch.tgt = IndexTensor({{2, 0, 1}, {3, 3, 2}});
  batch.enc_valid_lens = IndexTensor({2, 3});
  const IndexTensor labels({{1, 0, 3}, {2, 2, 1}}), label_lens({3, 2});
  auto loss = [&](const Seq2SeqParams& q) {
    const Seq2SeqForward f = seq2seq_forward(q, batch, false);
    return xt::sum(masked_softmax_ce(f.output, labels, label_lens, nullptr))();
  };
  const Seq2SeqForward f = seq2seq_forward(p, batch, true);
  Tensor d_output;
  masked_softmax_ce(f.output, labels, label_lens, &d_output);
  Seq2SeqParams g = seq2seq_backward(p, batch, f, d_output);
  auto params = named_parameters(p);
  auto grads = named_parameters(g);
  REQUIRE(params.size() == 1 + 8 + 3 + 1 + 8 + 2);  // embedding, GRU (4 per layer), attention, ..., dense
  double worst = 0.0;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    INFO(params[i].name);
    for (std::size_t n = 0; n < params[i].tensor->size(); ++n) {
      double& x = params[i].tensor->data()[n];
      const double x0 = x, eps = 1e-6;
      x = x0 + eps;
      const double up = loss(p);
      x = x0 - eps;
      const double down = loss(p);
      x = x0;
      const double numeric = (up - down) / (2 * eps), analytic = grads[i].tensor->data()[n];
      CHECK(analytic == Approx(numeric).margin(1e-8));
      worst = std::max(worst, std::abs(analytic - numeric));
      ++checked;
    }
  }
  // 12 + (18 + 27 + 18) + (27 + 27 + 18) + (9 + 9 + 3) + 8 + (45 + 27 + 18) + (27 + 27 + 18) + (12 + 4)
  CHECK(checked == 354);
  CHECK(worst < 1e-8);
  // the embedding row of a token never used gets no gradient, the others do
  for (std::size_t u = 0; u < 2; ++u) {
    CHECK(g.enc_embedding(5, u) == 0.0);
    CHECK(g.enc_embedding(4, u) != 0.0);
  }
}

TEST_CASE("bahdanau: the task's examples (d2l's <pad> 1, <bos> 2, <eos> 3, words from 4)") {
  Seq2SeqTraining tr;
  tr.task = Seq2SeqTask::reverse;
  tr.min_len = 2;
  tr.max_len = 4;
  Rng rng(0, RngStream::data);
  const Seq2SeqExamples ex = seq2seq_examples(tr, 7, rng, 50);
  REQUIRE(ex.src.shape()[1] == 5);
  std::set<std::int64_t> lengths;
  for (std::size_t n = 0; n < 50; ++n) {
    const auto L = static_cast<std::size_t>(ex.src_valid_len(n) - 1);
    lengths.insert(static_cast<std::int64_t>(L));
    CHECK(ex.label_valid_len(n) == ex.src_valid_len(n));
    for (std::size_t t = 0; t < 5; ++t) {
      if (t < L) {
        CHECK(ex.src(n, t) >= kFirstWord);
        CHECK(ex.src(n, t) < 7);
        CHECK(ex.label(n, t) == ex.src(n, L - 1 - t));  // reversed
      } else {
        CHECK(ex.src(n, t) == (t == L ? kEos : kPad));
        CHECK(ex.label(n, t) == ex.src(n, t));
      }
    }
  }
  CHECK(lengths == std::set<std::int64_t>{2, 3, 4});
}

TEST_CASE("bahdanau: training reverse from the default seed learns the anti-diagonal") {
  const json t = run(json::parse(R"({"algorithm": "bahdanau", "train": {"task": "reverse"}})"));
  const json& loss = t["loss"];
  REQUIRE(loss.size() == 20);
  CHECK(loss.back().get<double>() < loss.front().get<double>() / 10);
  // the held-out example: predicted right, each row's weight mostly on the mirrored position
  const auto L = static_cast<std::size_t>(t["heldout_valid_len"].get<int>() - 1);
  REQUIRE(L >= 3);
  json words = t["heldout_target"];
  words.erase(words.size() - 1);  // its <eos>
  CHECK(t["predicted"] == words);
  const json& w = t["heldout_weights"];
  REQUIRE(w.size() == L + 1);  // L words, then the step that predicts <eos>
  for (std::size_t i = 0; i < L; ++i) {
    INFO("output step " << i);
    CHECK(at(w, {i, L - 1 - i}) > 0.5);
    for (std::size_t j = 0; j < w[i].size(); ++j)
      if (j != L - 1 - i) CHECK(at(w, {i, j}) < at(w, {i, L - 1 - i}));
  }
  // without src / tgt the forward fields are the held-out example's, with teacher forcing
  CHECK(t["shapes"]["weights"] == shape({1, 6, 6}));
  CHECK(t["shapes"]["output"] == shape({1, 6, 10}));
}

TEST_CASE("bahdanau: training copy puts the weights on the diagonal") {
  const json t = run(json::parse(R"({"algorithm": "bahdanau", "train": {"task": "copy"}})"));
  CHECK(t["loss"].back().get<double>() < t["loss"].front().get<double>() / 10);
  const auto L = static_cast<std::size_t>(t["heldout_valid_len"].get<int>() - 1);
  for (std::size_t i = 0; i < L; ++i) CHECK(at(t["heldout_weights"], {i, i}) > 0.5);
}

TEST_CASE("bahdanau: training is deterministic, and progress can stop it") {
  const json a = run_preset("bahdanau-train-reverse-quick");
  const json b = run_preset("bahdanau-train-reverse-quick");
  CHECK(a == b);
  REQUIRE(a["loss"].size() == 3);
  CHECK(a["loss"][2].get<double>() < a["loss"][0].get<double>());

  Rng rng(0, RngStream::weights);
  Seq2SeqParams p = seq2seq_init(rng, {8, 8, 4, 4, 1});
  Seq2SeqTraining tr;
  tr.n_examples = 20;
  tr.epochs = 10;
  tr.batch_size = 8;
  tr.min_len = 1;
  tr.max_len = 3;
  tr.lr = 0.01;
  std::vector<std::size_t> seen;
  const auto r = train_seq2seq(p, tr, [&](std::size_t epoch, double) {
    seen.push_back(epoch);
    return epoch < 2;
  });
  CHECK(seen == std::vector<std::size_t>{0, 1, 2});
  CHECK(r.loss.size() == 3);
}

TEST_CASE("bahdanau: trained_weights, fed back as weights without train, give the trained held-out outputs") {
  const Preset* preset = find_preset("bahdanau-train-reverse-quick");
  REQUIRE(preset != nullptr);
  json s = preset->scenario;
  const json trained = run(s);
  REQUIRE(trained.contains("trained_weights"));
  CHECK(!trained["shapes"].contains("trained_weights"));
  CHECK(trained["trained_weights"]["decoder.attention.w_v.weight"].size() == 1);  // torch's (1, h)
  // training changed them: the seeded weights themselves (one epoch at lr 0: Adam moves nothing) differ
  json untrained = s;
  untrained["train"]["epochs"] = 1;
  untrained["train"]["lr"] = 0.0;
  CHECK(run(untrained)["trained_weights"] != trained["trained_weights"]);
  // the held-out example with teacher forcing, as the trace ran it (docs/semantics.md)
  const std::size_t T = trained["heldout_src"].size();
  json tgt = json::array({kBos});
  for (std::size_t t = 1; t < T; ++t)
    tgt.push_back(t - 1 < trained["heldout_target"].size() ? trained["heldout_target"][t - 1] : json(kPad));
  json fed = s;
  fed.erase("train");
  fed["weights"] = trained["trained_weights"];
  fed["src"] = json::array({trained["heldout_src"]});
  fed["tgt"] = json::array({tgt});
  fed["enc_valid_lens"] = json::array({trained["heldout_valid_len"]});
  const json again = run(fed);
  CHECK(!again.contains("trained_weights"));
  for (const char* field : {"output", "weights", "enc_outputs", "dec_state"}) {
    INFO(field);
    CHECK(max_rel_diff(again[field], trained[field]) <= 1e-12);
  }
}

TEST_CASE("bahdanau: the held-out example tells reverse from copy (no palindrome, no training example)") {
  // two words (vocab 6) of 2-3: a third of the draws are palindromes ("w4 w4", "w5 w4 w5")
  std::size_t redrawn = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Rng rng(seed, RngStream::weights);
    Seq2SeqParams p = seq2seq_init(rng, {6, 6, 2, 2, 1});
    // task, n_examples, epochs, batch_size, min_len, max_len, lr, seed
    const Seq2SeqTraining tr{Seq2SeqTask::reverse, 3, 1, 3, 2, 3, 0.0, seed};
    const auto r = train_seq2seq(p, tr, {});
    const auto L = static_cast<std::size_t>(r.heldout_valid_len - 1);
    const std::vector<std::int64_t> words(r.heldout_src.data(), r.heldout_src.data() + L);
    const std::vector<std::int64_t> target(r.heldout_target.data(), r.heldout_target.data() + L);
    INFO("seed " << seed);
    CHECK(std::vector<std::int64_t>(words.rbegin(), words.rend()) == target);  // reverse's answer
    CHECK(words != target);                                                   // which is not copy's
    // the first draw after the examples, when it is no palindrome, is the one kept
    Rng data(seed, RngStream::data);
    seq2seq_examples(tr, 6, data, 3);
    const auto first = seq2seq_examples(tr, 6, data, 1);
    if (!std::equal(first.src.data(), first.src.data() + first.src.size(), r.heldout_src.data())) ++redrawn;
  }
  CHECK(redrawn > 0);  // some seeds drew a palindrome (or a training example) first
  // one-word sentences are all palindromes: the last draw is kept
  Rng rng(0, RngStream::weights);
  Seq2SeqParams p = seq2seq_init(rng, {6, 6, 2, 2, 1});
  CHECK(train_seq2seq(p, {Seq2SeqTask::reverse, 2, 1, 2, 1, 1, 0.0, 0}, {}).heldout_valid_len == 2);
}

TEST_CASE("bahdanau: labels give seq_loss, gradients: true the gradients of its sum") {
  json s = small();
  s["labels"] = {{4, 5, 3}, {5, 3, 1}};
  s["label_valid_lens"] = {3, 2};
  s["gradients"] = true;
  const json t = run(s);
  REQUIRE(t["seq_loss"].size() == 2);
  REQUIRE(t.contains("gradients"));
  CHECK(t["gradients"].size() == 1 + 4 + 3 + 1 + 4 + 2);
  CHECK(t["gradients"]["decoder.attention.w_v.weight"].size() == 1);
  CHECK(t["gradients"]["decoder.attention.w_v.weight"][0].size() == 3);
  CHECK(!t["shapes"].contains("gradients"));
  // label_valid_lens 0: that sequence adds nothing
  s["label_valid_lens"] = {3, 0};
  CHECK(at(run(s)["seq_loss"], {1}) == 0.0);
}

TEST_CASE("bahdanau: trace context keeps output only") {
  json s = small();
  s["trace"] = "context";
  const json t = run(s);
  CHECK(t.contains("output"));
  for (const char* f : {"enc_outputs", "enc_state", "dec_queries", "weights", "dec_context", "dec_state"}) CHECK(!t.contains(f));
}

TEST_CASE("bahdanau: bad inputs name their field") {
  auto with = [](json s, const std::string& key, json value) {
    s[key] = value;
    return s;
  };
  const json s = small();
  CHECK_THAT(error_of(with(s, "src", json::parse("[[4, 5, 3], [5, 3, 6]]"))),
             StartsWith("src[1][2]: expected an integer from 0 to 5, got 6 (a token id of src_vocab = 6)"));
  CHECK_THAT(error_of(with(s, "tgt", json::parse("[[2, 4, -1], [2, 5, 3]]"))), StartsWith("tgt[0][2]: "));
  CHECK_THAT(error_of(with(s, "tgt", json::parse("[[2, 4, 5]]"))), StartsWith("tgt: "));
  CHECK_THAT(error_of(with(s, "enc_valid_lens", json::parse("[1]"))), StartsWith("enc_valid_lens: "));
  CHECK_THAT(error_of(with(s, "num_hiddens", 0)), StartsWith("num_hiddens: "));
  CHECK_THAT(error_of(with(s, "gradients", true)), StartsWith("labels: required with gradients"));
  json no_src = s;
  no_src.erase("src");
  CHECK_THAT(error_of(no_src), StartsWith("src: required"));
  CHECK_THAT(error_of(with(s, "labels", json::parse("[[4, 5, 3], [5, 3, 9]]"))), StartsWith("labels[1][2]: "));

  Rng rng(0, RngStream::weights);
  Seq2SeqParams p = seq2seq_init(rng, {6, 6, 2, 3, 1});
  json w = with(s, "weights", weights_json(p));
  json bad = w;
  bad["weights"]["encoder.rnn.weight_hh_l0"] = json::parse("[[1, 2, 3]]");
  CHECK_THAT(error_of(bad), StartsWith("weights.encoder.rnn.weight_hh_l0: "));
  bad = w;
  bad["weights"].erase("decoder.dense.bias");
  CHECK_THAT(error_of(bad), StartsWith("weights.decoder.dense.bias: "));
  bad = w;
  bad["weights"]["encoder.embedding.weight"] = json::array_t(6, json::array({1e308, 1e308}));
  bad["weights"]["encoder.rnn.weight_ih_l0"] = json::array_t(9, json::array({1, 1}));
  CHECK_THAT(error_of(bad), StartsWith("weights.encoder.rnn.weight_ih_l0: ") && Contains("not finite"));

  const json train = json::parse(R"({"algorithm": "bahdanau", "train": {}})");
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"task": "sort"})"))), StartsWith("train.task: "));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"epochs": 10000})"))), StartsWith("train.epochs: "));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"n_examples": 65536})"))), StartsWith("train.n_examples: "));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"lr": -1})"))), StartsWith("train.lr: "));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"lr": 1e308, "n_examples": 20, "epochs": 2})"))),
             StartsWith("train.lr: training diverged"));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"min_len": 6})"))), StartsWith("train.min_len: "));
  CHECK_THAT(error_of(with(train, "tgt_vocab", 12)), StartsWith("tgt_vocab: "));
  CHECK_THAT(error_of(with(with(train, "src_vocab", 4), "tgt_vocab", 4)), StartsWith("src_vocab: "));
  CHECK_THAT(error_of(with(train, "enc_valid_lens", json::parse("[1]"))), StartsWith("enc_valid_lens: requires src"));
  CHECK_THAT(error_of(with(with(s, "num_hiddens", 4000), "num_layers", 2)), StartsWith("num_hiddens: "));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"max_len": 60000, "n_examples": 1})"))), StartsWith("train.max_len: "));
  CHECK_THAT(error_of(with(train, "train", json::parse(R"({"max_len": 20000})"))), StartsWith("train.max_len: "));
}
