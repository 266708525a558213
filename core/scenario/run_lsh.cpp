// lsh: q (the keys too: k omitted, or equal to q), v, scale, n_buckets (even), n_hashes (default 1)
// and rotations (n_hashes, E, n_buckets / 2), or drawn from seed; allow_duplicate_attention
// (default true); no mask.
#include <algorithm>
#include <cmath>
#include <optional>

#include "../attention_rows.hpp"
#include "../lsh_attention.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

constexpr std::int64_t kMaxHashes = 1024, kDefaultHashes = 1;
constexpr bool kDefaultDuplicates = true;
// About a second natively (as bahdanau's and performer's limits of work).
constexpr std::uint64_t kMaxHashingWork = std::uint64_t{1} << 31;

}  // namespace

Trace run_lsh(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const Tensor q = ctx.tensor("q", {Dim::any("B"), Dim::any("L"), Dim::any("H"), Dim::any("E")});
  const std::size_t B = q.shape()[0], L = q.shape()[1], H = q.shape()[2], E = q.shape()[3];
  if (f.has("k")) {
    const Tensor k = ctx.tensor("k", {Dim::of(B, "B of q"), Dim::of(L, "L of q"), Dim::of(H, "H of q"), Dim::of(E, "E of q")});
    if (!std::equal(k.begin(), k.end(), q.begin()))
      throw InputError("k", "lsh attention shares QK (the keys are the queries): omit k, or give k equal to q");
  } else {
    f.ignore({"k"});
  }
  const Tensor v = ctx.tensor("v", {Dim::of(B, "B of q"), Dim::of(L, "L of q: the keys are the queries"), Dim::of(H, "H of q"),
                                    Dim::any("D")});
  const double scale = f.number("scale", default_scale(E));
  read_mask(ctx, B, L, L, ctx.entry->masks);

  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  const bool given = f.has("rotations");
  std::optional<std::int64_t> n_buckets, n_hashes;
  if (f.has("n_buckets") || !given) {
    n_buckets = f.required_integer("n_buckets", 2, big);
    if (*n_buckets % 2 != 0)
      throw InputError("n_buckets", "expected an even integer (a query's bucket is the argmax of [qR, -qR]), got " +
                                        std::to_string(*n_buckets));
  }
  if (f.has("n_hashes") || !given) n_hashes = f.integer("n_hashes", kDefaultHashes, 1, kMaxHashes);
  Tensor rotations;
  if (given) {
    rotations = ctx.tensor("rotations", {n_hashes ? Dim::of(static_cast<std::size_t>(*n_hashes), "n_hashes") : Dim::any("n_hashes"),
                                         Dim::of(E, "E of q"),
                                         n_buckets ? Dim::of(static_cast<std::size_t>(*n_buckets / 2), "n_buckets / 2")
                                                   : Dim::any("n_buckets / 2")});
    if (rotations.shape()[0] > static_cast<std::size_t>(kMaxHashes))
      throw InputError("rotations", "expected at most " + std::to_string(kMaxHashes) + " hash rounds, got " +
                                        std::to_string(rotations.shape()[0]));
  } else {
    check_size(static_cast<std::uint64_t>(*n_hashes) * E * static_cast<std::uint64_t>(*n_buckets / 2), "n_buckets",
               "the rotations (n_hashes, E, n_buckets / 2)");
  }
  const std::uint64_t rounds = given ? rotations.shape()[0] : static_cast<std::uint64_t>(*n_hashes), D = v.shape()[3];
  const std::uint64_t half = given ? rotations.shape()[2] : static_cast<std::uint64_t>(*n_buckets / 2);
  const std::string buckets_field = given ? "rotations" : "n_buckets";
  check_size(std::uint64_t{L} * half, buckets_field, "the rotated queries q R of a round (L, n_buckets / 2)");
  // the hashing q R: B*H*n_hashes*L*E*n_buckets/2 multiply-adds
  const std::uint64_t hashing = std::uint64_t{B} * H * rounds * L * E * half;
  if (hashing > kMaxHashingWork)
    throw InputError(buckets_field, "hashing would take " + std::to_string(hashing) +
                                        " multiply-adds (B*H*n_hashes*L*E*n_buckets/2), more than the limit " +
                                        std::to_string(kMaxHashingWork) + "; use fewer buckets or rounds");
  check_size(std::uint64_t{B} * L * H * D, "v", "the context (B, L, H, D)");
  check_size(rounds * B * L * H * D, given ? "rotations" : "n_hashes", "round_context (n_hashes, B, L, H, D)");
  if (ctx.level == TraceLevel::full)
    check_size(std::uint64_t{B} * H * L * L, "q", "the (B, H, L, L) weights", "; use \"trace\": \"context\"");
  const bool allow_duplicate_attention = f.boolean("allow_duplicate_attention", kDefaultDuplicates);
  // reformer-pytorch's options (issue 17), read before the work begins like every field
  const bool reformer = ctx.reference == "reformer-pytorch";
  ReformerOptions reformer_options;
  if (reformer) {  // lucidrains' LSHAttention
    if (f.has("scale"))
      ctx.warnings.push_back("reformer-pytorch scales by E^-1/2 always: scale is used only for exact_context");
    reformer_options.attend_across_buckets = f.boolean("attend_across_buckets", true);  // upstream's default
    reformer_options.allow_duplicate_attention = allow_duplicate_attention;
  } else if (f.has("attend_across_buckets")) {
    throw InputError("attend_across_buckets", "is reformer-pytorch's option (\"reference\": \"reformer-pytorch\"); "
                                              "SPEC's LSH attends within the bucket only");
  }
  ctx.begin_work();
  if (!given) rotations = lsh_rotations(ctx.seed, static_cast<std::size_t>(*n_hashes), E, static_cast<std::size_t>(*n_buckets));
  if (reformer) return reformer_lsh_attention(q, v, rotations, reformer_options, scale, ctx.level);
  return lsh_attention(q, v, scale, rotations, allow_duplicate_attention, ctx.level);
}

json lsh_defaults() { return {{"n_hashes", kDefaultHashes}, {"allow_duplicate_attention", kDefaultDuplicates}}; }

// The buckets depend on q: the pairs are estimated as if every bucket held L / n_buckets queries.
Estimate estimate_lsh(ScenarioContext& ctx) {
  Fields& f = ctx.fields;
  const Shape qs = ctx.shape("q", {Dim::any("B"), Dim::any("L"), Dim::any("H"), Dim::any("E")});
  const std::uint64_t B = qs[0], L = qs[1], H = qs[2], E = qs[3];
  if (f.has("k")) ctx.shape("k", {Dim::of(B, "B of q"), Dim::of(L, "L of q"), Dim::of(H, "H of q"), Dim::of(E, "E of q")});
  else f.ignore({"k"});
  const std::uint64_t D = ctx.shape("v", {Dim::of(B, "B of q"), Dim::of(L, "L of q: the keys are the queries"), Dim::of(H, "H of q"), Dim::any("D")})[3];
  f.number("scale", 1.0);
  read_mask(ctx, B, L, L, ctx.entry->masks);
  std::uint64_t rounds, n_buckets;
  if (f.has("rotations")) {
    const Shape r = ctx.shape("rotations", {Dim::any("n_hashes"), Dim::of(E, "E of q"), Dim::any("n_buckets / 2")});
    rounds = r[0];
    n_buckets = 2 * r[2];
  } else {
    n_buckets = static_cast<std::uint64_t>(f.required_integer("n_buckets", 2, static_cast<std::int64_t>(kMaxDimension)));
    rounds = static_cast<std::uint64_t>(f.integer("n_hashes", kDefaultHashes, 1, kMaxHashes));
  }
  const std::uint64_t BH = B * H, per_bucket = (L + n_buckets - 1) / n_buckets;
  const std::uint64_t pairs = rounds * BH * L * std::min(L, per_bucket);
  Estimate e;
  e.exact = false;
  e.cost = {pairs, BH * L * L, 2 * pairs * (E + D) + BH * rounds * L * E * n_buckets};
  e.numbers = B * L * H * D;
  if (ctx.level == TraceLevel::full)  // rotations; round_logsumexp, round_weights; round_context; weights
    e.numbers += rounds * E * (n_buckets / 2) + 2 * rounds * BH * L + rounds * B * L * H * D + BH * L * L;
  add_exact_estimate(e, {qs[0], qs[1], qs[1], qs[2], qs[3], static_cast<std::size_t>(D)}, Mask{}, ctx.level);
  e.sizes["n_hashes"] = rounds;
  e.sizes["n_buckets"] = n_buckets;
  return e;
}

namespace {

// q in 4 clusters of 4 (a direction each, times 2, plus noise 0.3), shuffled along L so that the
// buckets are not contiguous; v standard normal.
json lsh_demo() {
  Rng rng(5, RngStream::data);
  const double centers[4][4] = {{1, 1, 0, 0}, {-1, 1, 0, 0}, {0, 0, 1, -1}, {0, 0, -1, -1}};
  json q = json::array();
  for (std::size_t i = 0; i < 16; ++i) {
    json row = json::array();
    for (std::size_t e = 0; e < 4; ++e)
      row.push_back(std::round((2.0 * centers[i % 4][e] + 0.3 * rng.normal()) * 1000.0) / 1000.0);
    q.push_back(json::array({row}));
  }
  json s = {{"algorithm", "lsh"}, {"q", json::array({q})}};
  s["v"] = normal_nested(rng, {1, 16, 1, 4});
  return s;
}

}  // namespace

// The note's Reformer: LSH finds (approximately) the largest attention values and only those
// are computed.
std::vector<Preset> lsh_presets() {
  std::vector<Preset> p;
  {
    json s = lsh_demo();
    s["n_buckets"] = 4;
    s["n_hashes"] = 2;
    p.push_back({"lsh-4-buckets", "LSH attention: 4 buckets, 2 hash rounds, L = 16", "LSH 注意力:4 个桶,2 轮哈希,L = 16",
                 "16 queries (the keys too) in 4 clusters of 4, hashed twice into 4 buckets by random rotations (seed "
                 "0). Round 0 puts two clusters into one bucket (sizes 8, 4, 4, 0), round 1 splits one (4, 4, 5, 3); "
                 "each query attends only within its bucket, and the rounds are combined by their logsumexp. 162 "
                 "of 256 dot products (63%; buckets of L / n_buckets make it n_hashes * L^2 / n_buckets), max "
                 "|error| 0.29. More rounds with duplicate attention do not help (8 rounds: 0.63); see lsh-8-rounds",
                 s});
    s["n_hashes"] = 8;
    s["allow_duplicate_attention"] = false;
    p.push_back({"lsh-8-rounds", "LSH attention: 8 rounds without duplicate attention", "LSH 注意力:8 轮哈希,不重复计入",
                 "The lsh-4-buckets queries hashed 8 times, with allow_duplicate_attention false (reformer_pytorch's "
                 "option: a pair that shares a bucket in N rounds has log N subtracted from its score), so the "
                 "combined weights are the softmax over the union of the query's buckets: max |error| 0.020. With "
                 "duplicate attention (SPEC's formula, the default) the same 8 rounds give 0.63. At L = 16 the 8 "
                 "rounds cost 866 dot products, more than the 256 of full attention: LSH pays off only for long "
                 "sequences",
                 s});
  }
  {
    // rotations (1, E, 1) = e_0 and every q[0] > 0: every query hashes to bucket 0
    json s = lsh_demo();
    for (auto& row : s["q"][0]) row[0][0] = std::round((std::abs(row[0][0].get<double>()) + 0.5) * 1000.0) / 1000.0;
    s["n_buckets"] = 2;
    s["rotations"] = json::parse("[[[1], [0], [0], [0]]]");
    p.push_back({"lsh-one-bucket", "LSH with one bucket: full attention over the shared keys",
                 "只有一个桶的 LSH:即共享键上的完整注意力",
                 "With n_buckets 2 and the rotation e_0, the candidates are [q_0, -q_0]; every q_0 > 0, so every query "
                 "hashes to bucket 0 and attends to all 16: exactly full attention over the shared keys (max "
                 "|error| 0), with all 256 dot products",
                 s});
  }
  return p;
}

}  // namespace attnplay
