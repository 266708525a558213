// Seeded tensor draws (draws.hpp): the object read strictly (a misspelt "seed" would otherwise draw
// from seed 0 without a word), then its numbers.
#include "draws.hpp"

#include <cmath>
#include <limits>

#include "../rng.hpp"

namespace attnplay {

namespace {

struct Draw {
  Shape shape;
  bool normal;
  std::uint64_t seed;
  double scale;
};

Draw parse_draw(const json& value, const std::string& path, const std::vector<Dim>& dims) {
  for (auto it = value.begin(); it != value.end(); ++it)
    if (it.key() != "shape" && it.key() != "random" && it.key() != "seed" && it.key() != "scale")
      throw InputError(path + "." + it.key(), "unknown key of a draw (expected shape, random, seed, scale)");
  if (!value.contains("shape"))
    throw InputError(path + ".shape", "required (the draw's shape, " + std::to_string(dims.size()) + " dimensions)");
  Draw d{read_shape(json{{"shape", value["shape"]}}, path, dims, true), false, 0, 1.0};  // checked as {shape, data}'s
  Fields f(value, path);
  f.raw("random");  // null: "required"
  d.normal = f.choice("random", {"normal", "uniform"}, "") == "normal";
  d.seed = static_cast<std::uint64_t>(f.integer("seed", 0, 0, std::numeric_limits<std::int64_t>::max()));
  d.scale = f.number("scale", 1.0);
  if (!(d.scale >= 0) || !std::isfinite(d.scale))
    throw InputError(path + ".scale", "expected a number >= 0, got " + value["scale"].dump());
  return d;
}

// normal: scale * Rng::normal() (Box-Muller); uniform: Rng::uniform(-scale, scale), on [-scale, scale).
Tensor read_draw(const json& value, const std::string& path, const std::vector<Dim>& dims) {
  const Draw d = parse_draw(value, path, dims);
  Tensor t = Tensor::from_shape(d.shape);
  Rng rng(d.seed, static_cast<RngStream>(4));  // the draws' own stream, after samples, weights and data
  double* x = t.data();
  if (d.normal)
    for (std::size_t i = 0; i < t.size(); ++i) x[i] = d.scale * rng.normal();
  else
    for (std::size_t i = 0; i < t.size(); ++i) x[i] = rng.uniform(-d.scale, d.scale);
  return t;
}

Shape draw_shape(const json& value, const std::string& path, const std::vector<Dim>& dims) {
  return parse_draw(value, path, dims).shape;
}

}  // namespace

const DrawReader draws{read_draw, draw_shape};

}  // namespace attnplay
