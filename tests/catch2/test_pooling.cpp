// Pooling attention: kernel 1 stride 1 is full attention, avg and max pooling by hand (torch's
// windows, no padding), the output length, the cost, the presets' numbers and the errors.
#include <cmath>

#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

TEST_CASE("pooling: kernel 1, stride 1 equals full attention (max_abs_error 0)") {
  for (const char* pool : {"avg", "max"}) {
    json s = random_qkv("pooling", 1, 2, 2, 5, 7, 3, 4, {{"kernel", 1}});
    s["pool"] = pool;
    s["stride"] = 1;
    const json t = run(s);
    CHECK(t["max_abs_error"].get<double>() == 0.0);
    json f = s;
    f["algorithm"] = "full";
    for (const char* key : {"pool", "kernel", "stride"}) f.erase(key);
    const json full = run(f);
    CHECK(max_rel_diff(t["weights"], full["weights"]) == 0.0);
    CHECK(max_rel_diff(t["pooled_k"], s["k"]) == 0.0);
    // the same products; only full reports the KV cache it would hold (pooling caches no keys)
    json full_cost = full["cost"];
    full_cost.erase("kv_cache_numbers");
    CHECK(t["cost"] == full_cost);
  }
}

TEST_CASE("pooling: avg pooling equals a hand computation (the last key dropped, as torch)") {
  // L_K = 5, kernel 2 (stride 2): windows {0, 1}, {2, 3}; key 4 is in no window
  const json s = json::parse(R"({"algorithm": "pooling", "pool": "avg", "kernel": 2, "scale": 1,
      "q": [[[[1, 0]]]], "k": [[[[1, 2]], [[3, 4]], [[5, 6]], [[7, 8]], [[100, 100]]]],
      "v": [[[[0]], [[2]], [[10]], [[30]], [[1000]]]]})");
  const json t = run(s);
  CHECK(t["shapes"]["pooled_k"] == json::array({1, 2, 1, 2}));
  CHECK(t["pooled_k"] == json::parse("[[[[2.0, 3.0]], [[6.0, 7.0]]]]"));
  CHECK(t["pooled_v"] == json::parse("[[[[1.0]], [[20.0]]]]"));
  // scores q . pooled_k = [2, 6]; weights [1, e^4] / (1 + e^4); context (1 + 20 e^4) / (1 + e^4)
  CHECK(at(t["scores"], {0, 0, 0, 1}) == 6.0);
  const double e4 = std::exp(4.0);
  CHECK(at(t["weights"], {0, 0, 0, 0}) == Approx(1.0 / (1.0 + e4)).epsilon(1e-15));
  CHECK(at(t["context"], {0, 0, 0, 0}) == Approx((1.0 + 20.0 * e4) / (1.0 + e4)).epsilon(1e-15));
}

TEST_CASE("pooling: max pooling takes each column's maximum; stride 1 overlaps the windows") {
  const json s = json::parse(R"({"algorithm": "pooling", "pool": "max", "kernel": 2, "stride": 1,
      "q": [[[[1, 0]]]], "k": [[[[1, 5]], [[3, 2]], [[0, 9]]]], "v": [[[[1]], [[-2]], [[4]]]]})");
  const json t = run(s);
  // L' = (3 - 2) / 1 + 1 = 2: windows {0, 1} and {1, 2}
  CHECK(t["pooled_k"] == json::parse("[[[[3.0, 5.0]], [[3.0, 9.0]]]]"));
  CHECK(t["pooled_v"] == json::parse("[[[[1.0]], [[4.0]]]]"));
}

TEST_CASE("pooling: L' = floor((L_K - kernel) / stride) + 1, stride defaults to kernel; cost") {
  struct Case {
    std::size_t L_K, kernel, stride, L_out;
  };
  for (const Case c : {Case{16, 4, 0, 4}, Case{9, 4, 3, 2}, Case{8, 3, 2, 3}, Case{7, 7, 0, 1}, Case{7, 2, 5, 2}, Case{6, 2, 5, 1}}) {
    json s = random_qkv("pooling", 2, 2, 3, 5, c.L_K, 2, 3, {{"kernel", c.kernel}});
    if (c.stride) s["stride"] = c.stride;
    INFO("L_K " << c.L_K << " kernel " << c.kernel << " stride " << c.stride);
    const json t = run(s);
    CHECK(t["shapes"]["pooled_k"] == json::array({2, c.L_out, 3, 2}));
    CHECK(t["shapes"]["weights"] == json::array({2, 3, 5, c.L_out}));
    // dot_products = B*H*L_Q*L'; flops = full attention's on L' keys + B*L'*H*(E + D)*(kernel - 1)
    CHECK(t["cost"]["dot_products"] == 2 * 3 * 5 * c.L_out);
    CHECK(t["cost"]["dense_dot_products"] == 2 * 3 * 5 * c.L_K);
    CHECK(t["cost"]["flops"] == 2 * (2 * 3 * 5 * c.L_out) * 5 + 2 * c.L_out * 3 * 5 * (c.kernel - 1));
    CHECK(!t.contains("allowed"));
  }
}

TEST_CASE("pooling: trace context holds the context only") {
  json s = random_qkv("pooling", 3, 1, 1, 4, 8, 2, 2, {{"kernel", 2}});
  s["trace"] = "context";
  const json t = run(s);
  CHECK(t.contains("context"));
  for (const char* f : {"pooled_k", "pooled_v", "scores", "weights", "exact_context", "max_abs_error"}) CHECK(!t.contains(f));
}

TEST_CASE("pooling presets: avg loses less than max on a smooth sequence, at a quarter of the cost") {
  const json avg = run_preset("pooling-avg"), max = run_preset("pooling-max");
  CHECK(avg["cost"]["dot_products"] == 64);
  CHECK(avg["cost"]["dense_dot_products"] == 256);
  CHECK(avg["max_abs_error"].get<double>() == Approx(0.124).margin(1e-3));
  CHECK(max["max_abs_error"].get<double>() == Approx(0.615).margin(1e-3));
}

TEST_CASE("pooling: bad inputs name their field") {
  json s = random_qkv("pooling", 4, 1, 1, 2, 3, 2, 2, {{"kernel", 4}});
  CHECK_THAT(error_of(s), StartsWith("kernel: expected at most L_K = 3"));
  s["kernel"] = 2;
  s["stride"] = 0;
  CHECK_THAT(error_of(s), StartsWith("stride: "));
  s["stride"] = 1;
  s["pool"] = "sum";
  CHECK_THAT(error_of(s), StartsWith("pool: expected one of"));
  s["pool"] = "avg";
  s["mask"] = {{"kind", "local"}};
  CHECK_THAT(error_of(s), StartsWith("mask.kind: pooling takes no mask"));
  s.erase("mask");
  s.erase("kernel");
  CHECK(error_of(s) == "kernel: required");
}
