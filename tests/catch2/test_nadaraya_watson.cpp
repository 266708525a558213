// Nadaraya-Watson kernel regression: d2l's data set and numbers (reference values from d2l's own
// code run in PyTorch 1.13 float64 on the preset's x_train / y_train), the kernels, training and
// its analytic gradient, bad inputs.
#include "helpers.hpp"

#include <optional>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "../../core/nadaraya_watson.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::Contains;

TEST_CASE("d2l data set: sorted x in [0, 5), y = f(x) + noise, x_query = 0.1 i, y_truth = f") {
  const json t = run_preset("d2l-nadaraya-watson");
  REQUIRE(t["shapes"]["x_train"] == json::array({50}));
  REQUIRE(t["shapes"]["x_query"] == json::array({50}));
  REQUIRE(t["shapes"]["weights"] == json::array({50, 50}));
  // the first n_train uniforms of the data stream, times 5, sorted
  Rng rng(0, RngStream::data);
  std::vector<double> x(50);
  for (auto& xi : x) xi = rng.uniform() * 5;
  std::sort(x.begin(), x.end());
  double noise_sq = 0;
  for (std::size_t i = 0; i < 50; ++i) {
    CHECK(at(t["x_train"], {i}) == x[i]);
    // then one normal(0, 0.5) per sorted point
    const double f = 2 * std::sin(x[i]) + std::pow(x[i], 0.8);
    CHECK(at(t["y_train"], {i}) == Approx(f + 0.5 * rng.normal()).epsilon(1e-15));
    noise_sq += (at(t["y_train"], {i}) - f) * (at(t["y_train"], {i}) - f);
  }
  CHECK(std::sqrt(noise_sq / 50) == Approx(0.5).margin(0.2));
  for (std::size_t q = 0; q < 50; ++q) {
    CHECK(at(t["x_query"], {q}) == 0.1 * static_cast<double>(q));
    const double xq = 0.1 * static_cast<double>(q);
    CHECK(at(t["y_truth"], {q}) == Approx(2 * std::sin(xq) + std::pow(xq, 0.8)).epsilon(1e-15));
  }
}

TEST_CASE("d2l Nadaraya-Watson: softmax(-(x - x_i)^2 / 2) weights, rows sum to 1, PyTorch's y_hat") {
  const json t = run_preset("d2l-nadaraya-watson");
  for (std::size_t q = 0; q < 50; ++q) {
    double sum = 0, y_hat = 0, total = 0;
    for (std::size_t i = 0; i < 50; ++i) {
      const double w = at(t["weights"], {q, i});
      CHECK(w > 0.0);
      sum += w;
      y_hat += w * at(t["y_train"], {i});
      const double d = at(t["x_query"], {q}) - at(t["x_train"], {i});
      total += std::exp(-d * d / 2);
    }
    CHECK(sum == Approx(1.0).epsilon(1e-14));
    CHECK(at(t["y_hat"], {q}) == Approx(y_hat).epsilon(1e-14));
    const double d0 = at(t["x_query"], {q}) - at(t["x_train"], {0});
    CHECK(at(t["weights"], {q, 0}) == Approx(std::exp(-d0 * d0 / 2) / total).epsilon(1e-13));
  }
  // d2l's code in PyTorch float64 on these x_train / y_train
  CHECK(at(t["y_hat"], {0}) == Approx(2.5771259826182416).epsilon(1e-12));
  CHECK(at(t["y_hat"], {10}) == Approx(2.9150143993077453).epsilon(1e-12));
  CHECK(at(t["y_hat"], {25}) == Approx(2.8796872821445496).epsilon(1e-12));
  CHECK(at(t["y_hat"], {49}) == Approx(1.8991105119503084).epsilon(1e-12));
  CHECK(t["w"] == 1.0);
  CHECK(!t.contains("loss"));
  CHECK(t["cost"]["dot_products"] == 2500);
  CHECK(t["cost"]["dense_dot_products"] == 2500);
  CHECK(t["cost"]["flops"] == 5000);
  CHECK(t["warnings"].empty());
}

TEST_CASE("d2l average pooling: the constant kernel predicts the mean of y_train everywhere") {
  const json t = run_preset("d2l-average-pooling");
  double mean = 0;
  for (std::size_t i = 0; i < 50; ++i) mean += at(t["y_train"], {i});
  mean /= 50;
  CHECK(mean == Approx(2.567635440725827).epsilon(1e-12));  // y_train.mean() in PyTorch
  for (std::size_t q = 0; q < 50; ++q) {
    CHECK(at(t["y_hat"], {q}) == Approx(mean).epsilon(1e-14));
    CHECK(at(t["weights"], {q, q}) == 1.0 / 50);
  }
}

namespace {
json small(const std::string& kernel, double w) {
  return {{"algorithm", "nadaraya_watson"}, {"kernel", kernel}, {"w", w},
          {"x_train", {0.0, 1.0, 2.0}}, {"y_train", {1.0, 2.0, 6.0}}, {"x_query", {0.5, 10.0}}};
}
}  // namespace

TEST_CASE("boxcar and epanechnikov: d2l's kernels, normalised; no key in reach gives 0 and a warning") {
  // boxcar, w = 1: |u| = 0.5, 0.5, 1.5 -> [1, 1, 0] / 2
  json t = run(small("boxcar", 1));
  CHECK(at(t["weights"], {0, 0}) == 0.5);
  CHECK(at(t["weights"], {0, 2}) == 0.0);
  CHECK(at(t["y_hat"], {0}) == 1.5);
  for (std::size_t i = 0; i < 3; ++i) CHECK(at(t["weights"], {1, i}) == 0.0);
  CHECK(at(t["y_hat"], {1}) == 0.0);
  REQUIRE(t["warnings"].size() == 1);
  CHECK(t["warnings"][0] == "query 1 (x = 10) has no training point in reach: its weights and y_hat are 0");
  // epanechnikov, w = 0.5: u = 0.25, -0.25, -0.75 -> K = [0.75, 0.75, 0.25] / 1.75
  t = run(small("epanechnikov", 0.5));
  CHECK(at(t["weights"], {0, 0}) == Approx(0.75 / 1.75).epsilon(1e-15));
  CHECK(at(t["weights"], {0, 2}) == Approx(0.25 / 1.75).epsilon(1e-15));
  CHECK(at(t["y_hat"], {0}) == Approx((0.75 * 1 + 0.75 * 2 + 0.25 * 6) / 1.75).epsilon(1e-15));
  CHECK(at(t["y_hat"], {1}) == 0.0);
  // the gaussian never runs out of keys: the far query goes to the nearest point
  t = run(small("gaussian", 1));
  CHECK(at(t["y_hat"], {1}) == Approx(6.0).margin(1e-3));
  CHECK(t["warnings"].empty());
  // no dataset: the inputs are in shapes, not repeated in the trace
  CHECK(!t.contains("x_train"));
  CHECK(t["shapes"]["x_query"] == json::array({2}));
  // trace "context": y_hat without the weights
  json c = small("gaussian", 1);
  c["trace"] = "context";
  t = run(c);
  CHECK(!t.contains("weights"));
  CHECK(t.contains("y_hat"));
}

TEST_CASE("d2l trained Nadaraya-Watson: PyTorch's losses and w, and the loss decreases") {
  const json t = run_preset("d2l-nadaraya-watson-trained");
  // d2l's NWKernelRegression loop (w0 = 1, SGD lr 0.5, MSELoss(reduction='none').sum()) in PyTorch
  const double loss[5] = {26.964376526586477, 19.492110416143586, 19.278157159475068, 19.0661003444898,
                          18.85644601124519};
  const double w[6] = {1.0, 8.74447592785874, 8.417081490014738, 8.09104077736672, 7.766748564390027,
                       7.444619222317629};
  REQUIRE(t["shapes"]["loss"] == json::array({5}));
  REQUIRE(t["shapes"]["w_history"] == json::array({6}));
  for (std::size_t e = 0; e < 5; ++e) {
    CHECK(at(t["loss"], {e}) == Approx(loss[e]).epsilon(1e-12));
    if (e > 0) CHECK(at(t["loss"], {e}) < at(t["loss"], {e - 1}));
  }
  for (std::size_t e = 0; e < 6; ++e) CHECK(at(t["w_history"], {e}) == Approx(w[e]).epsilon(1e-12));
  CHECK(t["w"] == at(t["w_history"], {5}));
  // the queries use the final w
  CHECK(at(t["y_hat"], {0}) == Approx(1.7061719848613797).epsilon(1e-12));
  CHECK(at(t["y_hat"], {25}) == Approx(2.8916832119370888).epsilon(1e-12));
  // 50 queries x 50 keys, plus 5 epochs of 50 x 49 leave-one-out evaluations
  CHECK(t["cost"]["dot_products"] == 2500 + 5 * 50 * 49);
  CHECK(t["cost"]["dense_dot_products"] == 2500);
}

TEST_CASE("leave-one-out gradient agrees with a central finite difference") {
  const RegressionDataset d = regression_dataset(50, 0);
  const double h = 1e-6;
  for (auto kernel : {RegressionKernel::gaussian, RegressionKernel::epanechnikov})
    for (double w : {0.5, 0.7, 1.0, 2.0, 3.0, -1.5}) {
      INFO(regression_kernel_name(kernel) << " w = " << w);
      const double fd = (leave_one_out_loss(d.x_train, d.y_train, kernel, w + h).loss -
                         leave_one_out_loss(d.x_train, d.y_train, kernel, w - h).loss) / (2 * h);
      CHECK(leave_one_out_loss(d.x_train, d.y_train, kernel, w).gradient == Approx(fd).epsilon(1e-5));
    }
  // the constant kernel does not depend on w
  CHECK(leave_one_out_loss(d.x_train, d.y_train, RegressionKernel::constant, 2.0).gradient == 0.0);
}

TEST_CASE("leave-one-out loss: each point predicted from the others only") {
  // x = [0, 1, 2], y = [1, 2, 6], constant kernel: y_hat = [4, 3.5, 1.5]
  Tensor x = {0.0, 1.0, 2.0}, y = {1.0, 2.0, 6.0};
  const auto r = leave_one_out_loss(x, y, RegressionKernel::constant, 1.0);
  CHECK(r.loss == Approx(9 + 2.25 + 20.25).epsilon(1e-15));
  // boxcar, w = 1: |x_i - x_j| = 1 is not < 1, so nobody has a neighbour
  const auto b = leave_one_out_loss(x, y, RegressionKernel::boxcar, 1.0);
  CHECK(b.empty_rows == 3);
  CHECK(b.loss == Approx(1 + 4 + 36).epsilon(1e-15));
}

namespace {
// One query against the keys x[j], j != skip, as plain loops: y_hat, or nothing with no key in reach.
std::optional<double> y_hat_by_hand(double x, const Tensor& keys, const Tensor& values, std::size_t skip,
                                    RegressionKernel kernel, double w) {
  std::vector<double> K(keys.size(), 0.0);
  double max = -INFINITY, sum = 0, y = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    if (j == skip) continue;
    const double u = (x - keys(j)) * w;
    switch (kernel) {
      case RegressionKernel::gaussian: K[j] = -u * u / 2, max = std::max(max, K[j]); break;
      case RegressionKernel::boxcar: K[j] = std::abs(u) < 1 ? 1 : 0; break;
      case RegressionKernel::constant: K[j] = 1; break;
      case RegressionKernel::epanechnikov: K[j] = std::max(0.0, 1 - std::abs(u)); break;
    }
  }
  for (std::size_t j = 0; j < keys.size(); ++j) {
    if (j == skip) continue;
    if (kernel == RegressionKernel::gaussian) K[j] = std::exp(K[j] - max);
    sum += K[j];
  }
  if (sum == 0) return std::nullopt;
  for (std::size_t j = 0; j < keys.size(); ++j) y += K[j] / sum * values(j);
  return y;
}
}  // namespace

TEST_CASE("Nadaraya-Watson in blocks of queries: the numbers of one query at a time") {
  // 300 x 300 pairs are many blocks of queries: prediction and leave-one-out both span blocks
  const RegressionDataset d = regression_dataset(300, 7);
  const Tensor x_query = xt::linspace<double>(-3.0, 8.0, 300);
  for (auto kernel : {RegressionKernel::gaussian, RegressionKernel::boxcar, RegressionKernel::constant,
                      RegressionKernel::epanechnikov}) {
    INFO(regression_kernel_name(kernel));
    const double w = 4.0;
    const Trace t = nadaraya_watson(d.x_train, d.y_train, x_query, kernel, w, nullptr, TraceLevel::full);
    std::size_t empty = 0;
    for (std::size_t q = 0; q < 300; ++q) {
      const auto y = y_hat_by_hand(x_query(q), d.x_train, d.y_train, 300, kernel, w);
      empty += !y;
      CHECK(t.tensor("y_hat")(q) == Approx(y.value_or(0.0)).epsilon(1e-12).margin(1e-300));
      if (!y) CHECK(xt::amax(xt::abs(xt::view(t.tensor("weights"), q, xt::all())))() == 0.0);
    }
    // the first 5 queries out of reach by name, then a count of the others
    CHECK(t.warnings.size() == std::min<std::size_t>(empty, 5) + (empty > 5));
    if (empty > 5) CHECK(t.warnings.back() == "... and " + std::to_string(empty - 5) + " more queries with no training point in reach");
    double loss = 0;
    for (std::size_t i = 0; i < 300; ++i) {
      const double r = y_hat_by_hand(d.x_train(i), d.x_train, d.y_train, i, kernel, w).value_or(0.0) - d.y_train(i);
      loss += r * r;
    }
    CHECK(leave_one_out_loss(d.x_train, d.y_train, kernel, w).loss == Approx(loss).epsilon(1e-12));
  }
  CHECK(nadaraya_watson(d.x_train, d.y_train, x_query, RegressionKernel::boxcar, 4.0, nullptr, TraceLevel::full)
            .warnings.size() == 6);  // boxcar at w = 4 leaves the queries far outside [0, 5) without a key
}

TEST_CASE("training with boxcar warns and leaves w unchanged") {
  json s = json::parse(R"({"algorithm": "nadaraya_watson", "kernel": "boxcar", "w": 2,
      "dataset": {"n_train": 20, "seed": 3}, "train": {"epochs": 3}})");
  const json t = run(s);
  for (std::size_t e = 0; e < 4; ++e) CHECK(at(t["w_history"], {e}) == 2.0);
  CHECK(at(t["loss"], {0}) == at(t["loss"], {2}));
  REQUIRE(!t["warnings"].empty());
  CHECK_THAT(t["warnings"][0].get<std::string>(), Contains("gradient is 0"));
}

TEST_CASE("nadaraya_watson: bad input names the field") {
  json s = small("gaussian", 1);
  s["y_train"] = {1.0, 2.0};
  CHECK(error_of(s) == "y_train: expected 3 numbers (n_train of x_train), got 2");
  s = small("tricube", 1);
  CHECK(error_of(s) == "kernel: expected one of \"gaussian\", \"boxcar\", \"constant\", \"epanechnikov\", got \"tricube\"");
  s = small("gaussian", 1);
  s.erase("x_query");
  CHECK(error_of(s) == "x_query: required");
  s = small("gaussian", 1);
  s["x_train"][1] = "one";
  CHECK(error_of(s) == "x_train[1]: expected a number, got a string");
  s = small("gaussian", 1);
  s["w"] = json::array();
  CHECK(error_of(s) == "w: expected a number, got an array");
  s = small("gaussian", 1);
  s["dataset"] = json::object();
  CHECK(error_of(s) == "x_train: not allowed with dataset (the data set generates x_train, y_train and x_query)");
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 0}})");
  CHECK(error_of(s) == "dataset.n_train: expected an integer from 1 to 65536, got 0");
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 1}, "train": {}})");
  CHECK(error_of(s) == "train: leave-one-out training needs at least 2 training points, got 1");
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 5}, "train": {"epochs": 0}})");
  CHECK(error_of(s) == "train.epochs: expected an integer from 1 to 100000, got 0");
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 50}, "train": {"lr": "big"}})");
  CHECK(error_of(s) == "train.lr: expected a number, got a string");
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 50}, "train": {"lr": 1e308}})");
  CHECK_THAT(error_of(s), Contains("train.lr: training diverged at epoch 1"));
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 60000}, "train": {"epochs": 1}})");
  CHECK_THAT(error_of(s), Contains("train.epochs: epochs * n_train * (n_train - 1) = 3599940000 kernel evaluations"));
  s = json::parse(R"({"algorithm": "nadaraya_watson", "dataset": {"n_train": 5, "size": 3}})");
  const json t = run(s);
  CHECK(t["warnings"] == json::array({"unknown field 'dataset.size' ignored"}));
}
