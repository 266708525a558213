// Training the seq2seq model (bahdanau's) as d2l's train_seq2seq does, on a synthetic task drawn
// from the seed.
//
// The task (docs/semantics.md, "bahdanau"): d2l's vocabulary ids <unk> 0, <pad> 1, <bos> 2,
// <eos> 3, words 4 .. vocab - 1. An example is a sentence of L words (min_len <= L <= max_len):
//   src   = words + <eos> + <pad>s        (num_steps = max_len + 1 ids), src_valid_len = L + 1
//   label = target words + <eos> + <pad>s, label_valid_len = L + 1
// with target = the words backwards (`reverse`) or as they are (`copy`).
//
// The loop (d2l train_seq2seq), per epoch:
//   1. shuffle the examples (DataLoader(shuffle=True)), cut into minibatches of batch_size
//   2. per minibatch: dec_input = cat([<bos>], Y[:, :-1])                  teacher forcing
//   3.   Y_hat = net(X, dec_input, X_valid_len); l = MaskedSoftmaxCELoss(Y_hat, Y, Y_valid_len)
//   4.   l.sum().backward()                                                  seq2seq_backward
//   5.   grad_clipping(net, 1): g *= 1 / ||g|| when ||g|| > 1, over all parameters together
//   6.   optimizer.step(): Adam, torch's defaults (betas 0.9, 0.999, eps 1e-8)
//   7. the epoch's loss: sum of l over the epoch / number of valid target tokens (d2l's metric)
// then predict_seq2seq (greedy) on the held-out example.
#include <algorithm>
#include <cmath>
#include <set>

#include <xtensor/xview.hpp>

#include "seq2seq.hpp"

namespace attnplay {

namespace {

struct Sentence {
  std::vector<std::int64_t> words;
};

Sentence draw_sentence(const Seq2SeqTraining& tr, std::size_t vocab, Rng& rng) {
  Sentence s;
  const std::size_t L = tr.min_len + static_cast<std::size_t>(rng.below(tr.max_len - tr.min_len + 1));
  for (std::size_t i = 0; i < L; ++i)
    s.words.push_back(kFirstWord + static_cast<std::int64_t>(rng.below(vocab - static_cast<std::size_t>(kFirstWord))));
  return s;
}

// Row n of src / label from a sentence.
void write_example(const Seq2SeqTraining& tr, const Sentence& s, Seq2SeqExamples& ex, std::size_t n) {
  const std::size_t T = tr.num_steps(), L = s.words.size();
  for (std::size_t t = 0; t < T; ++t) {
    ex.src(n, t) = t < L ? s.words[t] : t == L ? kEos : kPad;
    const std::int64_t target = tr.task == Seq2SeqTask::reverse ? s.words[L - 1 - std::min(t, L - 1)] : s.words[std::min(t, L - 1)];
    ex.label(n, t) = t < L ? target : t == L ? kEos : kPad;
  }
  ex.src_valid_len(n) = static_cast<std::int64_t>(L + 1);
  ex.label_valid_len(n) = static_cast<std::int64_t>(L + 1);
}

Seq2SeqExamples empty_examples(const Seq2SeqTraining& tr, std::size_t n) {
  Seq2SeqExamples ex;
  ex.src = IndexTensor::from_shape({n, tr.num_steps()});
  ex.label = IndexTensor::from_shape({n, tr.num_steps()});
  ex.src_valid_len = IndexTensor::from_shape({n});
  ex.label_valid_len = IndexTensor::from_shape({n});
  return ex;
}

// Adam's state for every parameter, in state_dict order (torch.optim.Adam, single-tensor path).
struct Adam {
  double lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  std::size_t step = 0;
  std::vector<Tensor> exp_avg, exp_avg_sq;

  void update(std::vector<NamedParameter>& params, std::vector<NamedParameter>& grads) {
    if (exp_avg.empty())
      for (auto& p : params) {
        exp_avg.push_back(xt::zeros_like(*p.tensor));
        exp_avg_sq.push_back(xt::zeros_like(*p.tensor));
      }
    ++step;
    const double bias_correction1 = 1.0 - std::pow(beta1, static_cast<double>(step));
    const double bias_correction2 = 1.0 - std::pow(beta2, static_cast<double>(step));
    const double step_size = lr / bias_correction1;
    const double bias_correction2_sqrt = std::sqrt(bias_correction2);
    for (std::size_t i = 0; i < params.size(); ++i) {
      double* p = params[i].tensor->data();
      const double* g = grads[i].tensor->data();
      double* m = exp_avg[i].data();
      double* v = exp_avg_sq[i].data();
      for (std::size_t n = 0; n < params[i].tensor->size(); ++n) {
        m[n] = m[n] * beta1 + (1.0 - beta1) * g[n];         // exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        v[n] = v[n] * beta2 + (1.0 - beta2) * g[n] * g[n];  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
        const double denom = std::sqrt(v[n]) / bias_correction2_sqrt + eps;
        p[n] += -step_size * (m[n] / denom);                // param.addcdiv_(exp_avg, denom, value=-step_size)
      }
    }
  }
};

// 5. d2l's grad_clipping(net, theta = 1). Returns the norm (not finite: the gradients overflowed).
double clip_gradients(std::vector<NamedParameter>& grads, double theta) {
  double total = 0.0;
  for (auto& g : grads) {
    double s = 0.0;
    for (double x : *g.tensor) s += x * x;
    total += s;  // sum(torch.sum(p.grad ** 2) for p in params)
  }
  const double norm = std::sqrt(total);
  if (std::isfinite(norm) && norm > theta)
    for (auto& g : grads) *g.tensor *= theta / norm;
  return norm;
}

bool all_finite(std::vector<NamedParameter>& params) {
  for (auto& p : params)
    for (double x : *p.tensor)
      if (!std::isfinite(x)) return false;
  return true;
}

}  // namespace

Seq2SeqExamples seq2seq_examples(const Seq2SeqTraining& tr, std::size_t vocab, Rng& rng, std::size_t n) {
  Seq2SeqExamples ex = empty_examples(tr, n);
  for (std::size_t i = 0; i < n; ++i) write_example(tr, draw_sentence(tr, vocab, rng), ex, i);
  return ex;
}

Seq2SeqTrainResult train_seq2seq(Seq2SeqParams& params, const Seq2SeqTraining& tr,
                                 const std::function<bool(std::size_t, double)>& progress) {
  Seq2SeqTrainResult result;
  const std::size_t vocab = params.dec_embedding.shape()[0], T = tr.num_steps(), N = tr.n_examples;
  Rng rng(tr.seed, RngStream::data);
  const Seq2SeqExamples data = seq2seq_examples(tr, vocab, rng, N);

  // The held-out example: the next draw whose words are no training example's and no palindrome
  // (a palindrome, "w4 w4", is its own reverse: reverse and copy would answer it alike); at most
  // 1000 tries (with max_len 1 or one word every sentence is a palindrome: the last draw).
  std::set<std::vector<std::int64_t>> seen;
  for (std::size_t i = 0; i < N; ++i)
    seen.insert(std::vector<std::int64_t>(&data.src(i, 0), &data.src(i, 0) + data.src_valid_len(i) - 1));
  const auto usable = [&](const Sentence& s) {
    return !seen.count(s.words) && !std::equal(s.words.begin(), s.words.end(), s.words.rbegin());
  };
  Sentence held = draw_sentence(tr, vocab, rng);
  for (int tries = 1; tries < 1000 && !usable(held); ++tries) held = draw_sentence(tr, vocab, rng);
  Seq2SeqExamples held_ex = empty_examples(tr, 1);
  write_example(tr, held, held_ex, 0);
  result.heldout_src = xt::view(held_ex.src, 0, xt::all());
  result.heldout_valid_len = held_ex.src_valid_len(0);
  result.heldout_target = xt::view(held_ex.label, 0, xt::range(0, held_ex.label_valid_len(0)));

  Adam adam;
  adam.lr = tr.lr;
  auto named = named_parameters(params);
  std::vector<std::size_t> order(N);
  std::vector<double> losses;
  for (std::size_t epoch = 0; epoch < tr.epochs; ++epoch) {
    // 1. a fresh permutation per epoch: Fisher-Yates from the data stream, after the held-out draw
    for (std::size_t i = 0; i < N; ++i) order[i] = i;
    for (std::size_t i = N; i-- > 1;) std::swap(order[i], order[static_cast<std::size_t>(rng.below(i + 1))]);
    double loss_sum = 0.0;
    std::int64_t tokens = 0;
    for (std::size_t start = 0; start < N; start += tr.batch_size) {
      const std::size_t B = std::min(tr.batch_size, N - start);
      Seq2SeqBatch batch;
      batch.src = IndexTensor::from_shape({B, T});
      batch.tgt = IndexTensor::from_shape({B, T});
      IndexTensor label = IndexTensor::from_shape({B, T}), label_len = IndexTensor::from_shape({B});
      IndexTensor src_len = IndexTensor::from_shape({B});
      for (std::size_t b = 0; b < B; ++b) {
        const std::size_t n = order[start + b];
        for (std::size_t t = 0; t < T; ++t) {
          batch.src(b, t) = data.src(n, t);
          label(b, t) = data.label(n, t);
          batch.tgt(b, t) = t == 0 ? kBos : data.label(n, t - 1);  // 2. cat([bos, Y[:, :-1]], 1)
        }
        src_len(b) = data.src_valid_len(n);
        label_len(b) = data.label_valid_len(n);
      }
      batch.enc_valid_lens = src_len;
      try {
        // 3., 4.
        const Seq2SeqForward f = seq2seq_forward(params, batch, true);
        Tensor d_output;
        const Tensor l = masked_softmax_ce(f.output, label, label_len, &d_output);
        for (double x : l)
          if (!std::isfinite(x))
            throw OverflowError("weights.decoder.dense.weight", "the training loss is not a finite number (the dense weights too large)");
        Seq2SeqParams grads = seq2seq_backward(params, batch, f, d_output);
        result.cost.dot_products += f.cost.dot_products;
        result.cost.flops += 3 * f.cost.flops;  // the backward pass counted as twice the forward
        auto named_grads = named_parameters(grads);
        // 5.
        if (!std::isfinite(clip_gradients(named_grads, 1.0)))
          throw OverflowError("weights", "the gradients' norm is not a finite number (the weights too large)");
        // 6.
        adam.update(named, named_grads);
        if (!all_finite(named))
          throw OverflowError("train.lr", "the parameters are no longer finite numbers");
        for (double x : l) loss_sum += x;
        for (std::size_t b = 0; b < B; ++b) tokens += label_len(b);
      } catch (const OverflowError& e) {
        if (adam.step == 0) throw;  // the initial weights are to blame
        throw InputError("train.lr", "training diverged at epoch " + std::to_string(epoch) + " (" + e.detail +
                                         "); try a smaller lr");
      }
    }
    // 7.
    losses.push_back(loss_sum / static_cast<double>(tokens));
    if (progress && !progress(epoch, losses.back())) break;
  }
  result.loss = Tensor::from_shape({losses.size()});
  std::copy(losses.begin(), losses.end(), result.loss.data());

  result.prediction = predict_seq2seq(params, result.heldout_src, result.heldout_valid_len, T);
  result.cost.dot_products += result.prediction.cost.dot_products;
  result.cost.flops += result.prediction.cost.flops;
  return result;
}

}  // namespace attnplay
