#pragma once

#include <cstdint>
#include <functional>

#include "trace.hpp"

namespace attnplay {

// The kernels of d2l's attention-pooling section, as functions of u = (x - x_i) * w:
//   gaussian exp(-u^2/2), boxcar [|u| < 1], constant 1, epanechnikov max(0, 1 - |u|).
enum class RegressionKernel { gaussian, boxcar, constant, epanechnikov };

const char* regression_kernel_name(RegressionKernel kernel);

// d2l's toy data set: x_train = sort(5 * uniform(0, 1)) (n_train draws), y_train =
// f(x_train) + normal(0, 0.5), x_query = arange(0, 5, 0.1), y_truth = f(x_query), with
// f(x) = 2 sin(x) + x^0.8. Draws from the data stream of `seed`: the n_train uniforms first,
// then the n_train normals (one per sorted x).
struct RegressionDataset {
  Tensor x_train, y_train, x_query, y_truth;
};
RegressionDataset regression_dataset(std::size_t n_train, std::uint64_t seed);
double regression_truth(double x);  // f(x) = 2 sin(x) + x^0.8

// The training objective of d2l's NWKernelRegression: each training point is predicted from
// all the others (leave-one-out), loss = sum_i (y_hat_i - y_i)^2, with dloss/dw.
struct LeaveOneOutLoss {
  double loss = 0.0;
  double gradient = 0.0;
  std::size_t empty_rows = 0;  // training points with no other point in reach (y_hat_i = 0)
};
LeaveOneOutLoss leave_one_out_loss(const Tensor& x_train, const Tensor& y_train,
                                   RegressionKernel kernel, double w);

// Plain gradient descent on w, as d2l's torch.optim.SGD over the full training set.
struct RegressionTraining {
  std::size_t epochs = 5;
  double lr = 0.5;
  // The loss is loss_factor * sum_i (y_hat_i - y_i)^2: 1 as the seed (d2l-zh) sums the squares;
  // 0.5 as d2l-en 0.17.0 halves MSELoss (reference "d2l-en"), which halves the gradient too.
  double loss_factor = 1.0;
  // Called after each epoch with (epoch from 0, its loss); returning false stops training there.
  std::function<bool(std::size_t, double)> progress;
};

// Nadaraya-Watson kernel regression (attention pooling with a scalar query and keys).
//   x_train (n_train), y_train (n_train), x_query (n_query)  ->  y_hat (n_query)
// With `training`, w is first fitted by leave-one-out gradient descent.
// Trace: [loss (epochs), w_history (epochs + 1)], w, weights (n_query, n_train) at
// TraceLevel::full, y_hat always.
Trace nadaraya_watson(const Tensor& x_train, const Tensor& y_train, const Tensor& x_query,
                      RegressionKernel kernel, double w, const RegressionTraining* training,
                      TraceLevel level);

}  // namespace attnplay
