// Reader of "nadaraya_watson": x_train, y_train, x_query (1-D) or dataset: {n_train, seed};
// kernel, w, and optional train: {epochs, lr}.
#include "../nadaraya_watson.hpp"
#include "readers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace attnplay {

namespace {

// Kernel evaluations one scenario may ask for (at the limit, natively: about 1 s of prediction,
// or 4 s of gaussian training, in nadaraya_watson.cpp's xtensor expressions).
constexpr std::uint64_t kMaxKernelEvaluations = std::uint64_t{1} << 26;

// d2l's: 50 training points, the gaussian kernel, w = 1; training 5 epochs at lr 0.5.
constexpr std::int64_t kDefaultTrain = 50, kDefaultEpochs = 5;
constexpr double kDefaultW = 1.0, kDefaultLr = 0.5;
constexpr const char* kDefaultKernel = "gaussian";

}  // namespace

json nadaraya_watson_defaults() {
  return {{"dataset.n_train", kDefaultTrain}, {"kernel", kDefaultKernel}, {"w", kDefaultW},
          {"train.epochs", kDefaultEpochs}, {"train.lr", kDefaultLr}};
}

Estimate estimate_nadaraya_watson(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  std::uint64_t n_train, n_query, numbers = 0;
  if (f.has("dataset")) {  // the generated set is small: drawn here for its sizes
    Fields d = f.object("dataset");
    const RegressionDataset set = regression_dataset(static_cast<std::size_t>(d.integer("n_train", kDefaultTrain, 1, big)), 0);
    n_train = set.x_train.size();
    n_query = set.x_query.size();
    numbers += 2 * n_train + 2 * n_query;  // x_train, y_train, x_query, y_truth
  } else {
    n_train = ctx.shape("x_train", {Dim::any("n_train")})[0];
    n_query = ctx.shape("x_query", {Dim::any("n_query")})[0];
  }
  const std::uint64_t epochs =
      f.has("train") ? static_cast<std::uint64_t>(f.object("train").integer("epochs", kDefaultEpochs, 1, 100000)) : 0;
  Estimate e;
  const std::uint64_t evaluations = n_query * n_train + epochs * n_train * (n_train - 1);
  e.cost = {evaluations, n_query * n_train, 2 * evaluations};
  // loss and w_history with training; weights at trace "full"; y_hat
  e.numbers = numbers + (epochs ? 2 * epochs + 1 : 0) + (ctx.level == TraceLevel::full ? n_query * n_train : 0) + n_query;
  return e;
}

Trace run_nadaraya_watson(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);

  // 1. the data: given, or d2l's generated set
  Tensor x_train, y_train, x_query;
  std::optional<RegressionDataset> dataset;
  if (f.has("dataset")) {
    for (const char* key : {"x_train", "y_train", "x_query"})
      if (f.has(key))
        throw InputError(std::string(key), "not allowed with dataset (the data set generates x_train, y_train and x_query)");
    Fields d = f.object("dataset");
    const auto n_train = d.integer("n_train", kDefaultTrain, 1, big);
    const auto seed = d.integer("seed", static_cast<std::int64_t>(ctx.seed), 0, std::numeric_limits<std::int64_t>::max());
    d.warn_unused(ctx.warnings);
    dataset = regression_dataset(static_cast<std::size_t>(n_train), static_cast<std::uint64_t>(seed));
    x_train = dataset->x_train;
    y_train = dataset->y_train;
    x_query = dataset->x_query;
  } else {
    f.ignore({"dataset"});
    x_train = ctx.tensor("x_train", {Dim::any("n_train")});
    y_train = ctx.tensor("y_train", {Dim::of(x_train.size(), "n_train of x_train")});
    x_query = ctx.tensor("x_query", {Dim::any("n_query")});
  }
  const std::uint64_t n_train = x_train.size(), n_query = x_query.size();

  // 2. the kernel and its bandwidth
  const auto kernel_name = f.choice("kernel", {"gaussian", "boxcar", "constant", "epanechnikov"}, kDefaultKernel);
  RegressionKernel kernel = RegressionKernel::gaussian;
  for (auto k : {RegressionKernel::boxcar, RegressionKernel::constant, RegressionKernel::epanechnikov})
    if (kernel_name == regression_kernel_name(k)) kernel = k;
  const double w = f.number("w", kDefaultW);

  // 3. training
  std::optional<RegressionTraining> training;
  if (f.has("train")) {
    Fields t = f.object("train");
    RegressionTraining tr;
    tr.epochs = static_cast<std::size_t>(t.integer("epochs", kDefaultEpochs, 1, 100000));
    tr.lr = t.number("lr", kDefaultLr);
    // d2l-en 0.17.0: `l = loss(net(x_train, keys, values), y_train) / 2` (MSELoss against MXNet's L2Loss)
    if (ctx.reference == "d2l-en") tr.loss_factor = 0.5;
    t.warn_unused(ctx.warnings);
    if (n_train < 2)
      throw InputError("train", "leave-one-out training needs at least 2 training points, got " + std::to_string(n_train));
    if (tr.epochs * n_train * (n_train - 1) > kMaxKernelEvaluations)
      throw InputError("train.epochs", "epochs * n_train * (n_train - 1) = " +
                       std::to_string(tr.epochs * n_train * (n_train - 1)) + " kernel evaluations is more than the limit " +
                       std::to_string(kMaxKernelEvaluations));
    if (ctx.progress)  // after each epoch (the page's progress bar)
      tr.progress = [&ctx, epochs = tr.epochs](std::size_t e, double loss) {
        ctx.report(static_cast<double>(e + 1) / static_cast<double>(epochs),
                   "epoch " + std::to_string(e + 1) + " of " + std::to_string(epochs),
                   {{"epoch", e + 1}, {"epochs", epochs}, {"loss", loss}});
        return true;
      };
    training = tr;
  } else {
    f.ignore({"train"});
    if (ctx.reference == "d2l-en")
      ctx.warnings.push_back("reference \"d2l-en\" changes only training (its loss is halved): without train it is SPEC's");
  }
  const std::string query_field = dataset ? "dataset.n_train" : "x_query";
  // every difference x - x_i must be finite: (x - x_i) * w would be inf * 0 = NaN at w = 0
  const auto [xt_min, xt_max] = std::minmax_element(x_train.begin(), x_train.end());
  const auto [xq_min, xq_max] = std::minmax_element(x_query.begin(), x_query.end());
  if (training && !std::isfinite(*xt_max - *xt_min))
    throw InputError("x_train", "x_train[i] - x_train[j] is not a finite number (" + number_text(*xt_max) + " - " +
                     number_text(*xt_min) + "); use smaller numbers");
  if (!std::isfinite(*xq_max - *xt_min) || !std::isfinite(*xt_max - *xq_min))
    throw InputError("x_query", "x_query - x_train is not a finite number (x_query from " + number_text(*xq_min) + " to " +
                     number_text(*xq_max) + ", x_train from " + number_text(*xt_min) + " to " + number_text(*xt_max) +
                     "); use smaller numbers");
  if (n_query * n_train > kMaxKernelEvaluations)
    throw InputError(query_field, "n_query * n_train = " + std::to_string(n_query * n_train) +
                     " kernel evaluations is more than the limit " + std::to_string(kMaxKernelEvaluations));
  if (ctx.level == TraceLevel::full && n_query * n_train > kMaxTensorElements)
    throw InputError(query_field, "the weights (n_query x n_train) would hold " + std::to_string(n_query * n_train) +
                     " numbers, more than the limit " + std::to_string(kMaxTensorElements) + "; use \"trace\": \"context\"");
  ctx.begin_work();

  Trace result = nadaraya_watson(x_train, y_train, x_query, kernel, w, training ? &*training : nullptr, ctx.level);
  if (training) {
    const Tensor& loss = result.tensor("loss");
    const Tensor& history = result.tensor("w_history");
    for (std::size_t e = 0; e < loss.size(); ++e) {
      if (!std::isfinite(loss(e)))  // the residuals are at most 2 max |y_train|: their squares overflow
        throw InputError("y_train", "the leave-one-out loss of epoch " + std::to_string(e) +
                         " is not a finite number (|y_train| too large)");
      if (!std::isfinite(history(e + 1)))
        throw InputError("train.lr", "training diverged at epoch " + std::to_string(e + 1) +
                         " (w is no longer a finite number); try a smaller lr");
    }
  }
  if (!dataset) return result;

  // The generated data come first, as the learner meets them.
  Trace trace;
  trace.set("x_train", std::move(dataset->x_train));
  trace.set("y_train", std::move(dataset->y_train));
  trace.set("x_query", std::move(dataset->x_query));
  trace.set("y_truth", std::move(dataset->y_truth));
  for (auto& field : result.fields) trace.fields.push_back(std::move(field));
  trace.cost = result.cost;
  trace.warnings = std::move(result.warnings);
  return trace;
}

// d2l's attention pooling (seed 003): average pooling, then Nadaraya-Watson without and with training.
std::vector<Preset> nadaraya_watson_presets() {
  std::vector<Preset> p;
  p.push_back({"d2l-average-pooling", "d2l average pooling (constant kernel)", "d2l 平均汇聚(常数核)",
               "The baseline before attention: every test point predicts the mean of y_train, ignoring x "
               "(y_hat = repeat_interleave(y_train.mean(), n_test)). 50 training points of "
               "y = 2 sin x + x^0.8 + noise.",
               json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "constant",
                   "dataset": {"n_train": 50, "seed": 0}})")});
  p.push_back({"d2l-nadaraya-watson", "d2l Nadaraya-Watson kernel regression", "d2l Nadaraya-Watson 核回归",
               "Non-parametric attention pooling: weights = softmax(-(x - x_i)^2 / 2) over the 50 training "
               "points. Both axes are sorted, so the heavy weights lie on the diagonal; y_hat follows the "
               "truth 2 sin x + x^0.8 smoothly.",
               json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "gaussian",
                   "dataset": {"n_train": 50, "seed": 0}})")});
  p.push_back({"d2l-nadaraya-watson-trained", "d2l parametric Nadaraya-Watson, 5 epochs of SGD",
               "d2l 带参数的 Nadaraya-Watson,SGD 训练 5 轮",
               "NWKernelRegression: weights = softmax(-((x - x_i) w)^2 / 2), w learned by leave-one-out SGD "
               "(lr 0.5, 5 epochs, loss = sum of squared errors). The loss falls, w grows, the kernel narrows "
               "and y_hat follows the noisy training points: less smooth than with w = 1.",
               json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "gaussian", "w": 1,
                   "dataset": {"n_train": 50, "seed": 0}, "train": {"epochs": 5, "lr": 0.5}})")});
  return p;
}

}  // namespace attnplay
