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
// Training (d2l's NWKernelRegression): each training point x_i is a query whose keys and values
// are all the other training points (leave-one-out), and
//   loss(w) = sum_i (y_hat_i(w) - y_i)^2,   w <- w - lr * dloss/dw   once per epoch,
// with the loss recorded before each step (d2l prints l.sum() of the forward pass of the epoch).
// The derivative is analytic:
//   dloss/dw = sum_i 2 (y_hat_i - y_i) sum_j (dweights_ij/dw) y_j
//   gaussian (softmax of s_j = -u_j^2/2, u_j = (x_i - x_j) w):
//     ds_j/dw = -u_j (x_i - x_j),   dweights_j/dw = weights_j (ds_j/dw - sum_k weights_k ds_k/dw)
//   other kernels (weights_j = K_j / S, S = sum_k K_k):
//     dK_j/dw = K'(u_j) (x_i - x_j),  dweights_j/dw = (dK_j/dw - weights_j sum_k dK_k/dw) / S
//     boxcar and constant: K' = 0 (w cannot be trained; torch cannot even backpropagate through
//     the boxcar's comparison); epanechnikov: K' = -sign(u) where 1 - |u| > 0, else 0 (torch's
//     abs and max give the same).
//
// Passes:
//   1. (training) per epoch: leave-one-out weights, their derivatives, loss and gradient; step;
//   2. one row of weights per query with the final w;
//   3. y_hat = weights y_train.
// Cost: one "dot product" per kernel evaluation (training rows included); dense = n_query *
// n_train; flops = 2 per kernel evaluation (one multiply-add of a value each).
#include "nadaraya_watson.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

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

// One query x against the keys x_train[j], j != skip (skip >= n: every key).
// Writes the normalised weights (0 at skip) and, if dweights, their derivatives in w.
// Returns false when no key is in reach: weights and derivatives are then all 0.
bool attention_row(double x, const double* keys, std::size_t n, std::size_t skip,
                   RegressionKernel kernel, double w, double* weights, double* dweights) {
  if (kernel == RegressionKernel::gaussian) {
    // softmax over j of s_j = -((x - x_j) w)^2 / 2
    double max = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
      if (j == skip) continue;
      const double u = (x - keys[j]) * w;
      weights[j] = -(u * u) / 2;
      max = std::max(max, weights[j]);
    }
    if (!(max > -std::numeric_limits<double>::infinity())) {  // no key at all
      std::fill(weights, weights + n, 0.0);
      if (dweights) std::fill(dweights, dweights + n, 0.0);
      return false;
    }
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      if (j == skip) continue;
      weights[j] = std::exp(weights[j] - max);
      sum += weights[j];
    }
    for (std::size_t j = 0; j < n; ++j) weights[j] = j == skip ? 0.0 : weights[j] / sum;
    if (dweights) {
      double mean = 0.0;  // sum_k weights_k ds_k/dw
      // a weight that underflowed to 0 has derivative 0 (its ds/dw may be infinite: 0 * inf = NaN)
      for (std::size_t j = 0; j < n; ++j) {
        const double d = x - keys[j];
        dweights[j] = j == skip || weights[j] == 0.0 ? 0.0 : -(d * w) * d;
        mean += weights[j] * dweights[j];
      }
      for (std::size_t j = 0; j < n; ++j) dweights[j] = weights[j] == 0.0 ? 0.0 : weights[j] * (dweights[j] - mean);
    }
    return true;
  }

  double sum = 0.0, dsum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    double K = 0.0, dK = 0.0;
    if (j != skip) {
      const double d = x - keys[j];
      const double u = d * w;
      switch (kernel) {
        case RegressionKernel::boxcar: K = std::abs(u) < 1.0 ? 1.0 : 0.0; break;
        case RegressionKernel::constant: K = 1.0; break;
        case RegressionKernel::epanechnikov: {
          const double r = 1 - std::abs(u);
          if (r > 0.0) {
            K = r;
            dK = -(u > 0 ? 1.0 : u < 0 ? -1.0 : 0.0) * d;
          }
          break;
        }
        case RegressionKernel::gaussian: break;
      }
    }
    weights[j] = K;
    if (dweights) dweights[j] = dK;
    sum += K;
    dsum += dK;
  }
  if (sum == 0.0) {
    if (dweights) std::fill(dweights, dweights + n, 0.0);
    return false;  // weights are already all 0
  }
  for (std::size_t j = 0; j < n; ++j) {
    weights[j] /= sum;
    if (dweights) dweights[j] = (dweights[j] - weights[j] * dsum) / sum;
  }
  return true;
}

std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

LeaveOneOutLoss leave_one_out_loss(const Tensor& x_train, const Tensor& y_train,
                                   RegressionKernel kernel, double w) {
  const std::size_t n = x_train.size();
  const double* x = x_train.data();
  const double* y = y_train.data();
  std::vector<double> weights(n), dweights(n);
  LeaveOneOutLoss out;
  for (std::size_t i = 0; i < n; ++i) {
    if (!attention_row(x[i], x, n, i, kernel, w, weights.data(), dweights.data())) ++out.empty_rows;
    double y_hat = 0.0, dy_hat = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      y_hat += weights[j] * y[j];
      dy_hat += dweights[j] * y[j];
    }
    const double residual = y_hat - y[i];
    out.loss += residual * residual;
    out.gradient += 2 * residual * dy_hat;
  }
  return out;
}

Trace nadaraya_watson(const Tensor& x_train, const Tensor& y_train, const Tensor& x_query,
                      RegressionKernel kernel, double w, const RegressionTraining* training,
                      TraceLevel level) {
  const std::size_t n_train = x_train.size(), n_query = x_query.size();
  Trace trace;
  trace.algorithm = "nadaraya_watson";
  std::uint64_t evaluations = 0;

  // 1. training: leave-one-out loss and gradient, then one step per epoch
  if (training) {
    const std::size_t epochs = training->epochs;
    Tensor loss = Tensor::from_shape({epochs});
    Tensor w_history = Tensor::from_shape({epochs + 1});
    w_history(0) = w;
    std::size_t empty_rows = 0;
    for (std::size_t e = 0; e < epochs; ++e) {
      const LeaveOneOutLoss step = leave_one_out_loss(x_train, y_train, kernel, w);
      loss(e) = step.loss;
      empty_rows += step.empty_rows;
      w -= training->lr * step.gradient;  // may diverge to inf or NaN: the reader checks w_history
      w_history(e + 1) = w;
    }
    evaluations += epochs * n_train * (n_train - 1);
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

  // 2. weights of every query with the final w;  3. y_hat = weights y_train
  const bool full = level == TraceLevel::full;
  Tensor weights;
  if (full) weights = Tensor::from_shape({n_query, n_train});
  Tensor y_hat = Tensor::from_shape({n_query});
  std::vector<double> row(n_train);
  std::size_t empty = 0;
  for (std::size_t q = 0; q < n_query; ++q) {
    if (!attention_row(x_query(q), x_train.data(), n_train, n_train, kernel, w, row.data(), nullptr)) {
      if (++empty <= 5)
        trace.warnings.push_back("query " + std::to_string(q) + " (x = " + format_number(x_query(q)) +
                                 ") has no training point in reach: its weights and y_hat are 0");
    }
    double s = 0.0;
    for (std::size_t i = 0; i < n_train; ++i) s += row[i] * y_train(i);
    y_hat(q) = s;
    if (full) std::copy(row.begin(), row.end(), &weights(q, 0));
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
