// LSH attention (Reformer, shared QK): one bucket and one round is full attention over the
// shared keys; each query attends only within its buckets; the rounds combine convexly; without
// duplicate attention it is the softmax over the union of the buckets; the hash (argmax, ties to
// the lower index), the seeded rotations, the cost, the presets' numbers and the errors.
#include <cmath>
#include <map>

#include "helpers.hpp"

using namespace attnplay;
using namespace attnplay::testing;
using Catch::Matchers::StartsWith;

namespace {

// q (B, L, H, E), v (B, L, H, D); the rotations drawn from seed (the same number).
json random_lsh(unsigned seed, std::size_t B, std::size_t H, std::size_t L, std::size_t E, std::size_t D,
                std::size_t n_buckets, std::size_t n_hashes) {
  return random_qkv("lsh", seed, B, H, L, 0, E, D, {{"n_buckets", n_buckets}, {"n_hashes", n_hashes}, {"seed", seed}});
}

double row_sum(const json& row) {
  double sum = 0;
  for (const auto& w : row) sum += w.get<double>();
  return sum;
}

// Whether i and j share a bucket in some round (b, h).
bool share_a_bucket(const json& buckets, std::size_t b, std::size_t h, std::size_t i, std::size_t j) {
  for (const auto& round : buckets)
    if (round[b][h][i] == round[b][h][j]) return true;
  return false;
}

}  // namespace

TEST_CASE("lsh: one bucket pair, one round, every query in one bucket = full attention over the shared keys") {
  // rotations (1, E, 1) = e_0 and q[..., 0] > 0: q R > -q R for every query, bucket 0
  json s = random_lsh(1, 2, 2, 7, 3, 4, 2, 1);
  for (auto& b : s["q"])
    for (auto& l : b)
      for (auto& h : l) h[0] = std::abs(h[0].get<double>()) + 0.1;
  s["rotations"] = json::parse("[[[1], [0], [0]]]");
  const json t = run(s);
  for (const auto& b : t["buckets"][0])
    for (const auto& h : b)
      for (const auto& bucket : h) CHECK(bucket == 0);
  CHECK(t["max_abs_error"].get<double>() < 1e-12);
  json f = {{"algorithm", "full"}, {"q", s["q"]}, {"k", s["q"]}, {"v", s["v"]}};
  const json full = run(f);
  CHECK(max_rel_diff(t["context"], full["context"]) < 1e-12);
  CHECK(max_rel_diff(t["weights"], full["weights"]) < 1e-12);
  CHECK(t["cost"]["dot_products"] == 2 * 2 * 7 * 7);
  CHECK(run_preset("lsh-one-bucket")["max_abs_error"].get<double>() < 1e-12);
}

TEST_CASE("lsh: a query attends only within its buckets; rows sum to 1; the rounds combine convexly") {
  for (const std::size_t n_hashes : {1, 3}) {
    INFO("n_hashes " << n_hashes);
    const std::size_t B = 2, H = 2, L = 9, D = 3;
    const json s = random_lsh(2, B, H, L, 4, D, 4, n_hashes);
    const json t = run(s);
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < L; ++i) {
          const json& row = t["weights"][b][h][i];
          CHECK(row_sum(row) == Approx(1.0).epsilon(1e-14));
          for (std::size_t j = 0; j < L; ++j) {
            if (!share_a_bucket(t["buckets"], b, h, i, j)) CHECK(row[j] == 0.0);
            else CHECK(row[j].get<double>() > 0.0);
          }
          // round weights: in [0, 1], summing to 1 over the rounds; context = their combination
          double total = 0;
          for (std::size_t r = 0; r < n_hashes; ++r) {
            const double w = at(t["round_weights"], {r, b, h, i});
            CHECK(w >= 0.0);
            CHECK(w <= 1.0);
            total += w;
          }
          CHECK(total == Approx(1.0).epsilon(1e-14));
          for (std::size_t d = 0; d < D; ++d) {
            double combined = 0, implied = 0;
            for (std::size_t r = 0; r < n_hashes; ++r)
              combined += at(t["round_weights"], {r, b, h, i}) * at(t["round_context"], {r, b, i, h, d});
            for (std::size_t j = 0; j < L; ++j) implied += at(row, {j}) * at(s["v"], {b, j, h, d});
            CHECK(at(t["context"], {b, i, h, d}) == Approx(combined).epsilon(1e-13));
            CHECK(at(t["context"], {b, i, h, d}) == Approx(implied).margin(1e-13));
          }
        }
  }
}

TEST_CASE("lsh: without duplicate attention, the softmax over the union of the query's buckets") {
  // B = H = 1: compare with full attention under the explicit mask "shares a bucket in some round"
  json s = random_lsh(3, 1, 1, 10, 3, 2, 4, 4);
  s["allow_duplicate_attention"] = false;
  const json t = run(s);
  json allowed = json::array();
  for (std::size_t i = 0; i < 10; ++i) {
    json row = json::array();
    for (std::size_t j = 0; j < 10; ++j) row.push_back(share_a_bucket(t["buckets"], 0, 0, i, j));
    allowed.push_back(row);
  }
  const json masked = run({{"algorithm", "full"}, {"q", s["q"]}, {"k", s["q"]}, {"v", s["v"]},
                           {"mask", {{"kind", "explicit"}, {"allowed", allowed}}}});
  CHECK(max_rel_diff(t["context"], masked["context"]) < 1e-13);
  CHECK(max_rel_diff(t["weights"], masked["weights"]) < 1e-13);
  // with duplicates (the default, SPEC's formula) it differs
  s.erase("allow_duplicate_attention");
  CHECK(max_rel_diff(run(s)["context"], masked["context"]) > 1e-6);
}

TEST_CASE("lsh: bucket = argmax([qR, -qR]), ties to the lower index") {
  // n_buckets 4: rotations (1, 2, 2) = identity, so qR = q and the candidates are [q0, q1, -q0, -q1]
  const json s = json::parse(R"({"algorithm": "lsh", "n_buckets": 4, "rotations": [[[1, 0], [0, 1]]],
      "q": [[[[1, 1]], [[-1, 1]], [[0, 0]], [[-2, 1]], [[0.5, -3]], [[-1, -1]]]],
      "v": [[[[1]], [[2]], [[3]], [[4]], [[5]], [[6]]]]})");
  const json t = run(s);
  // [1,1,-1,-1] -> 0; [-1,1,1,-1] -> 1 (tie of 1 and 2); zeros -> 0; [-2,1,2,-1] -> 2;
  // [0.5,-3,-0.5,3] -> 3; [-1,-1,1,1] -> 2 (tie of 2 and 3)
  CHECK(t["buckets"] == json::parse("[[[[0, 1, 0, 2, 3, 2]]]]"));
  // cost: buckets {0, 2}, {1}, {3, 5}, {4}: 4 + 1 + 4 + 1 pairs
  CHECK(t["cost"]["dot_products"] == 10);
  CHECK(t["cost"]["dense_dot_products"] == 36);
  // flops: 2 * pairs * (E + D) + the hashing B*H*n_hashes*L*E*n_buckets
  CHECK(t["cost"]["flops"] == 2 * 10 * 3 + 6 * 2 * 4);
}

TEST_CASE("lsh: seeded rotations are standard normals from the weights stream, row-major") {
  const json s = random_lsh(4, 1, 2, 6, 3, 2, 6, 2);
  const json t = run(s);
  CHECK(t["shapes"]["rotations"] == json::array({2, 3, 3}));
  Rng rng(4, RngStream::weights);
  for (std::size_t r = 0; r < 2; ++r)
    for (std::size_t e = 0; e < 3; ++e)
      for (std::size_t c = 0; c < 3; ++c) CHECK(at(t["rotations"], {r, e, c}) == rng.normal());
  CHECK(max_rel_diff(run(s)["context"], t["context"]) == 0.0);
  // given the same rotations, the same trace
  json given = s;
  given["rotations"] = t["rotations"];
  given.erase("n_hashes");
  given.erase("n_buckets");
  CHECK(max_rel_diff(run(given)["context"], t["context"]) == 0.0);
}

TEST_CASE("lsh: cost is the sum over rounds and buckets of the bucket sizes squared") {
  const json s = random_lsh(5, 2, 3, 11, 4, 2, 6, 3);
  const json t = run(s);
  std::uint64_t pairs = 0;
  for (const auto& round : t["buckets"])
    for (const auto& b : round)
      for (const auto& h : b) {
        std::map<std::int64_t, std::uint64_t> size;
        for (const auto& bucket : h) ++size[bucket.get<std::int64_t>()];
        for (const auto& [bucket, n] : size) pairs += n * n;
      }
  CHECK(t["cost"]["dot_products"] == pairs);
  CHECK(t["cost"]["dense_dot_products"] == 2 * 3 * 11 * 11);
  CHECK(pairs < 3 * 2 * 3 * 11 * 11);
}

TEST_CASE("lsh: trace context holds the context only") {
  json s = random_lsh(6, 1, 1, 8, 2, 2, 4, 2);
  s["trace"] = "context";
  const json t = run(s);
  CHECK(t.contains("context"));
  for (const char* f : {"rotations", "buckets", "round_logsumexp", "round_weights", "round_context", "weights",
                        "exact_context", "max_abs_error"})
    CHECK(!t.contains(f));
}

TEST_CASE("lsh presets: 4 buckets and 2 rounds; 8 rounds without duplicate attention") {
  const json t = run_preset("lsh-4-buckets");
  CHECK(t["cost"]["dot_products"] == 162);
  CHECK(t["cost"]["dense_dot_products"] == 256);
  CHECK(t["max_abs_error"].get<double>() == Approx(0.292).margin(1e-3));
  const json u = run_preset("lsh-8-rounds");
  CHECK(u["cost"]["dot_products"] == 866);
  CHECK(u["max_abs_error"].get<double>() == Approx(0.020).margin(1e-3));
}

TEST_CASE("lsh: k is the queries; bad inputs name their field") {
  json s = random_lsh(7, 1, 1, 4, 2, 2, 2, 1);
  s["k"] = s["q"];
  CHECK(error_of(s).empty());
  s["k"][0][1][0][0] = 5.0;
  CHECK_THAT(error_of(s), StartsWith("k: lsh attention shares QK"));
  s.erase("k");
  s["n_buckets"] = 3;
  CHECK_THAT(error_of(s), StartsWith("n_buckets: expected an even integer"));
  s["n_buckets"] = 4;
  s["rotations"] = json::parse("[[[1], [0]]]");
  CHECK(error_of(s) == "rotations[0][0]: expected 2 numbers (n_buckets / 2), got 1");
  s.erase("rotations");
  s["mask"] = {{"kind", "causal"}};
  CHECK_THAT(error_of(s), StartsWith("mask.kind: lsh takes no mask"));
  s.erase("mask");
  s["n_hashes"] = 0;
  CHECK_THAT(error_of(s), StartsWith("n_hashes: "));
}
