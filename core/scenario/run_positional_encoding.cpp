// Reader of "positional_encoding": num_steps, encoding_dim (even), base (default 10000).
#include "../positional_encoding.hpp"
#include "readers.hpp"

namespace attnplay {

namespace {

constexpr double kDefaultBase = 10000.0;  // d2l's (and the Transformer's)

}  // namespace

json positional_encoding_defaults() { return {{"base", kDefaultBase}}; }

Estimate estimate_positional_encoding(ScenarioContext& ctx) {
  Estimate e;  // no attention: cost 0
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  e.numbers = static_cast<std::uint64_t>(ctx.fields.required_integer("num_steps", 1, big) *
                                         ctx.fields.required_integer("encoding_dim", 2, big));
  return e;
}

Trace run_positional_encoding(ScenarioContext& ctx) {
  const std::int64_t big = static_cast<std::int64_t>(kMaxDimension);
  const auto num_steps = ctx.fields.required_integer("num_steps", 1, big);
  const auto encoding_dim = ctx.fields.required_integer("encoding_dim", 2, big);
  if (encoding_dim % 2 != 0)
    throw InputError("encoding_dim", "expected an even integer (sine and cosine columns come in pairs), got " +
                     std::to_string(encoding_dim));
  if (static_cast<std::uint64_t>(num_steps * encoding_dim) > kMaxTensorElements)
    throw InputError("num_steps", "num_steps * encoding_dim = " + std::to_string(num_steps * encoding_dim) +
                     " is larger than the limit " + std::to_string(kMaxTensorElements));
  const double base = ctx.fields.number("base", kDefaultBase);
  if (!(base > 0.0))
    throw InputError("base", "expected a positive number, got " + ctx.fields.raw("base").dump());
  ctx.begin_work();
  return positional_encoding(static_cast<std::size_t>(num_steps), static_cast<std::size_t>(encoding_dim), base);
}

// d2l's positional encoding (seed 003).
std::vector<Preset> positional_encoding_presets() {
  std::vector<Preset> p;
  p.push_back({"d2l-positional-encoding", "d2l sinusoidal positional encoding, 60 x 32",
               "d2l 正弦位置编码,60 x 32",
               "P[i, 2j] = sin(i / 10000^(2j/32)), P[i, 2j+1] = cos(same). Row 0 is [0, 1, 0, 1, ...]; "
               "columns 6 and 7 are a sine and a cosine of one frequency (a phase shift apart), columns 8 and 9 "
               "have a longer period: higher columns change more slowly, like the higher bits of a binary count.",
               json::parse(R"({"algorithm": "positional_encoding", "num_steps": 60, "encoding_dim": 32})")});
  return p;
}

}  // namespace attnplay
