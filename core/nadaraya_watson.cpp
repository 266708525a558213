// Nadaraya-Watson kernel regression (d2l 10.2), attention pooling with scalar queries and keys:
//
//   u[q, i]       = (x_query[q] - x_train[i]) * w
//   weights[q, i] = K(u[q, i]) / sum_i' K(u[q, i'])
//   y_hat[q]      = sum_i weights[q, i] y_train[i]
//
// Shapes: x_train (n_train), y_train (n_train), x_query (n_query), weights (n_query, n_train),
// y_hat (n_query). Kernels: gaussian exp(-u^2/2), boxcar [|u| < 1], constant 1, epanechnikov
// max(0, 1 - |u|). The gaussian is computed as d2l writes it, a softmax of -u^2/2 over the keys
// (the max of each row is subtracted first), so it never underflows to an empty row. The other
// kernels are divided by their sum; a query with no training point in reach (every K = 0) gets
// zero weights, y_hat 0 and a warning. The constant kernel gives the mean of y_train for every
// query: d2l's "average pooling" baseline.
//
// One function, d2l's NWKernelRegression.forward (nw_forward below), gives the weights of
// prediction and of training, as xtensor expressions over a block of queries x keys:
//   queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
//   attention_weights = softmax(-((queries - keys) * w)**2 / 2, dim=1)
//   y_hat = bmm(attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)
// Prediction: keys = x_train.repeat((n_test, 1)) (broadcast), values y_train. Training: keys =
// X_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1)), each training
// point against all the others. Queries go in blocks of about kBlockPairs (query, key) pairs,
// so that the largest runs (2^26 kernel evaluations at trace "context") need little memory.
// (xtensor's broadcasting is slower than a fused loop, most in training; at d2l's sizes it does
// not matter: docs/performance.md.)
//
// Training (d2l's NWKernelRegression): each training point x_i is a query whose keys and values
// are all the other training points (leave-one-out), and
//   loss(w) = sum_i (y_hat_i(w) - y_i)^2,   w <- w - lr * dloss/dw   once per epoch,
// with the loss recorded before each step (d2l prints l.sum() of the forward pass of the epoch).
// The derivative is analytic, with weights_j = K_j / S, S = sum_k K_k:
//   dloss/dw = sum_i 2 (y_hat_i - y_i) sum_j (dweights_ij/dw) y_j
//   dweights_j/dw = (dK_j/dw - weights_j sum_k dK_k/dw) / S,   dK_j/dw = K'(u_j) (x_i - x_j)
//   gaussian: K_j = exp(s_j - max_k s_k), s_j = -u_j^2/2 (the shift cancels in weights_j), so
//     dK_j/dw = K_j ds_j/dw = K_j (-u_j (x_i - x_j)); a K_j that underflowed to 0 has dK_j/dw = 0;
//   boxcar and constant: K' = 0 (w cannot be trained; torch cannot even backpropagate through
//     the boxcar's comparison); epanechnikov: K' = -sign(u) where 1 - |u| > 0, else 0 (torch's
//     abs and max give the same).
//
// Passes:
//   1. (training) per epoch: leave-one-out weights, their derivatives, loss and gradient; step;
//   2. the weights of every query with the final w;
//   3. y_hat = weights y_train.
// Cost: one "dot product" per kernel evaluation (training rows included); dense = n_query *
// n_train; flops = 2 per kernel evaluation (one multiply-add of a value each).
#include "nadaraya_watson.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "rng.hpp"

namespace attnplay {

const char* regression_kernel_name(RegressionKernel kernel) {
  switch (kernel) {
    case RegressionKernel::gaussian: return "gaussian";
    case RegressionKernel::boxcar: return "boxcar";
    case RegressionKernel::constant: return "constant";
    case RegressionKernel::epanechnikov: return "epanechnikov";
  }
  return "gaussian";
}

double regression_truth(double x) { return 2 * std::sin(x) + std::pow(x, 0.8); }

RegressionDataset regression_dataset(std::size_t n_train, std::uint64_t seed) {
  Rng rng(seed, RngStream::data);
  RegressionDataset d;
  // x_train, _ = torch.sort(torch.rand(n_train) * 5)
  std::vector<double> x(n_train);
  for (auto& xi : x) xi = rng.uniform() * 5;
  std::sort(x.begin(), x.end());
  d.x_train = Tensor::from_shape({n_train});
  std::copy(x.begin(), x.end(), d.x_train.begin());
  // y_train = f(x_train) + torch.normal(0.0, 0.5, (n_train,))
  d.y_train = Tensor::from_shape({n_train});
  for (std::size_t i = 0; i < n_train; ++i) d.y_train(i) = regression_truth(x[i]) + 0.5 * rng.normal();
  // x_test = torch.arange(0, 5, 0.1): start + i * step
  const std::size_t n_query = 50;
  d.x_query = Tensor::from_shape({n_query});
  d.y_truth = Tensor::from_shape({n_query});
  for (std::size_t q = 0; q < n_query; ++q) {
    d.x_query(q) = 0.1 * static_cast<double>(q);
    d.y_truth(q) = regression_truth(d.x_query(q));
  }
  return d;
}

namespace {

// (query, key) pairs per block of queries: each temporary of nw_forward is 64 KB (fewer, larger
// blocks were no faster and fault in fresh pages from the OS).
constexpr std::size_t kBlockPairs = std::size_t{1} << 13;

std::size_t block_rows(std::size_t keys) { return std::max<std::size_t>(1, kBlockPairs / std::max<std::size_t>(1, keys)); }

struct Forward {
  Tensor weights;      // (rows, m): each row sums to 1, or is all 0 (no key in reach)
  BoolTensor reached;  // (rows, 1): the row has a key in reach
  Tensor y_hat;        // (rows)
  Tensor dy_hat;       // (rows): d y_hat / dw, with `derivative`
};

// d2l's NWKernelRegression.forward for a block of queries (rows): keys and values either (m),
// shared by every query, or (rows, m), one row of keys per query.
Forward nw_forward(const Tensor& queries, const Tensor& keys, const Tensor& values,
                   RegressionKernel kernel, double w, bool derivative) {
  // queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]));  queries - keys
  const auto d = xt::view(queries, xt::all(), xt::newaxis()) - keys;  // (rows, m), lazy
  // (queries - keys) * self.w
  const auto u = d * w;
  Tensor K, dK;  // the kernel of every pair and, with `derivative`, dK/dw
  switch (kernel) {
    case RegressionKernel::gaussian: {
      // softmax(-u**2 / 2, dim=1): exp(s - s.max(dim=1)) / sum
      const Tensor s = -(u * u) / 2;
      const Tensor max = xt::amax(s, {1}, xt::keep_dims);
      K = xt::exp(s - max);
      if (derivative) dK = xt::where(K > 0.0, K * (-u * d), 0.0);  // ds/dw may be infinite where K = 0
      break;
    }
    case RegressionKernel::boxcar:
      // (torch.abs(u) < 1).float()
      K = xt::where(xt::abs(u) < 1.0, 1.0, 0.0);
      if (derivative) dK = xt::zeros_like(u);
      break;
    case RegressionKernel::constant:
      // torch.ones_like(u)
      K = xt::ones_like(u);
      if (derivative) dK = xt::zeros_like(u);
      break;
    case RegressionKernel::epanechnikov:
      // torch.max(1 - torch.abs(u), torch.zeros_like(u))
      K = xt::maximum(1.0 - xt::abs(u), 0.0);
      if (derivative) dK = xt::where(K > 0.0, -xt::sign(u) * d, 0.0);
      break;
  }
  Forward f;
  // attention_weights = K / K.sum(dim=1, keepdim=True); a row with every K = 0 stays 0
  const Tensor total = xt::sum(K, {1}, xt::keep_dims);  // stored before dividing (TOOLCHAIN.md)
  f.reached = total > 0.0;
  f.weights = xt::where(f.reached, K / total, 0.0);
  // bmm(attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)
  f.y_hat = xt::sum(f.weights * values, {1});
  if (derivative) {
    const Tensor dtotal = xt::sum(dK, {1}, xt::keep_dims);
    const Tensor dweights = xt::where(f.reached, (dK - f.weights * dtotal) / total, 0.0);
    f.dy_hat = xt::sum(dweights * values, {1});
  }
  return f;
}

}  // namespace

LeaveOneOutLoss leave_one_out_loss(const Tensor& x_train, const Tensor& y_train,
                                   RegressionKernel kernel, double w) {
  const std::size_t n = x_train.size(), m = n - 1;
  const auto others = [m](const Tensor& x, std::size_t i0, std::size_t i1) -> Tensor {
    // X_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1)): row i is x
    // without x[i], that is x[j] for j < i and x[j + 1] from there on
    const auto i = xt::view(xt::arange<std::size_t>(i0, i1), xt::all(), xt::newaxis());
    return xt::where(xt::arange<std::size_t>(m) < i, xt::view(x, xt::range(0, m)), xt::view(x, xt::range(1, m + 1)));
  };
  LeaveOneOutLoss out;
  const std::size_t rows = block_rows(m);
  for (std::size_t i0 = 0; i0 < n; i0 += rows) {
    const std::size_t i1 = std::min(n, i0 + rows);
    const Tensor queries = xt::view(x_train, xt::range(i0, i1));
    const Forward f = nw_forward(queries, others(x_train, i0, i1), others(y_train, i0, i1), kernel, w, true);
    out.empty_rows += static_cast<std::size_t>(std::count(f.reached.begin(), f.reached.end(), false));
    // l = loss(net(x_train, keys, values), y_train);  l.sum()
    const Tensor residual = f.y_hat - xt::view(y_train, xt::range(i0, i1));
    out.loss += xt::sum(residual * residual)();
    out.gradient += xt::sum(2.0 * residual * f.dy_hat)();
  }
  return out;
}

Trace nadaraya_watson(const Tensor& x_train, const Tensor& y_train, const Tensor& x_query,
                      RegressionKernel kernel, double w, const RegressionTraining* training,
                      TraceLevel level) {
  const std::size_t n_train = x_train.size(), n_query = x_query.size();
  Trace trace;
  std::uint64_t evaluations = 0;

  // 1. training: leave-one-out loss and gradient, then one step per epoch
  if (training) {
    const std::size_t epochs = training->epochs;
    Tensor loss = Tensor::from_shape({epochs});
    Tensor w_history = Tensor::from_shape({epochs + 1});
    w_history(0) = w;
    std::size_t empty_rows = 0, run = epochs;
    for (std::size_t e = 0; e < epochs; ++e) {
      const LeaveOneOutLoss step = leave_one_out_loss(x_train, y_train, kernel, w);
      loss(e) = training->loss_factor * step.loss;
      empty_rows += step.empty_rows;
      w -= training->lr * (training->loss_factor * step.gradient);  // may diverge to inf or NaN: the reader checks w_history
      w_history(e + 1) = w;
      if (training->progress && !training->progress(e, loss(e)) && e + 1 < epochs) {  // stopped: keep e + 1 epochs
        Tensor kept_loss = xt::view(loss, xt::range(0, e + 1));
        Tensor kept_history = xt::view(w_history, xt::range(0, e + 2));
        loss = std::move(kept_loss);
        w_history = std::move(kept_history);
        run = e + 1;
        break;
      }
    }
    evaluations += run * n_train * (n_train - 1);
    if (kernel == RegressionKernel::boxcar || kernel == RegressionKernel::constant)
      trace.warnings.push_back(std::string("kernel \"") + regression_kernel_name(kernel) +
                               "\" does not change smoothly with w: its gradient is 0 and training leaves w unchanged");
    if (empty_rows > 0)
      trace.warnings.push_back("training: " + std::to_string(empty_rows) +
                               " leave-one-out predictions (summed over epochs) had no other training point in reach: "
                               "they are 0 and add nothing to the gradient");
    trace.set("loss", std::move(loss));
    trace.set("w_history", std::move(w_history));
  }
  trace.set("w", w);

  // 2. the weights of every query with the final w (keys = x_train.repeat((n_test, 1)), by
  // broadcasting);  3. y_hat = weights y_train
  const bool full = level == TraceLevel::full;
  Tensor weights;
  if (full) weights = Tensor::from_shape({n_query, n_train});
  Tensor y_hat = Tensor::from_shape({n_query});
  std::size_t empty = 0;
  const std::size_t rows = block_rows(n_train);
  for (std::size_t q0 = 0; q0 < n_query; q0 += rows) {
    const std::size_t q1 = std::min(n_query, q0 + rows);
    const Tensor queries = xt::view(x_query, xt::range(q0, q1));
    const Forward f = nw_forward(queries, x_train, y_train, kernel, w, false);
    xt::view(y_hat, xt::range(q0, q1)) = f.y_hat;
    if (full) xt::view(weights, xt::range(q0, q1), xt::all()) = f.weights;
    for (std::size_t q = q0; q < q1; ++q)
      if (!f.reached(q - q0, 0) && ++empty <= 5)
        trace.warnings.push_back("query " + std::to_string(q) + " (x = " + number_text(x_query(q)) +
                                 ") has no training point in reach: its weights and y_hat are 0");
  }
  if (empty > 5)
    trace.warnings.push_back("... and " + std::to_string(empty - 5) + " more queries with no training point in reach");
  evaluations += n_query * n_train;

  if (full) trace.set("weights", std::move(weights));
  trace.set("y_hat", std::move(y_hat));
  const std::uint64_t dense = n_query * n_train;
  trace.cost = {evaluations, dense, 2 * evaluations};
  return trace;
}

}  // namespace attnplay
