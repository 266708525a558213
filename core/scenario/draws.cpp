// Seeded tensor draws (draws.hpp): the object read strictly (a misspelt "seed" would otherwise draw
// from seed 0 without a word), then its numbers.
#include "draws.hpp"

#include <cmath>
#include <limits>

#include "../seeded_draw.hpp"

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

// normal: scale * Rng::normal() (Box-Muller); uniform: Rng::uniform(-scale, scale), on [-scale, scale)
// (core/seeded_draw.hpp).
Tensor read_draw(const json& value, const std::string& path, const std::vector<Dim>& dims) {
  const Draw d = parse_draw(value, path, dims);
  Tensor t = Tensor::from_shape(d.shape);
  fill_seeded({d.seed, d.normal, d.scale}, 0, t.size(), t.data());
  return t;
}

Shape draw_shape(const json& value, const std::string& path, const std::vector<Dim>& dims) {
  return parse_draw(value, path, dims).shape;
}

}  // namespace

const DrawReader draws{read_draw, draw_shape};

Tensor read_draw_rows(const json& value, const std::string& path, const std::vector<Dim>& dims, std::size_t start, std::size_t end) {
  const Draw d = parse_draw(value, path, dims);
  if (d.shape.size() < 2) throw InputError(path + ".shape", "rows of a draw need at least 2 dimensions");
  if (start > end || end > d.shape[1])
    throw InputError(path, "rows [" + std::to_string(start) + ", " + std::to_string(end) + ") outside the draw's " +
                               std::to_string(d.shape[1]) + " rows");
  std::size_t row = 1;  // numbers per row of axis 1
  for (std::size_t i = 2; i < d.shape.size(); ++i) row *= d.shape[i];
  Shape shape = d.shape;
  shape[1] = end - start;
  Tensor t = Tensor::from_shape(shape);
  const std::size_t n = (end - start) * row;
  for (std::size_t b = 0; b < d.shape[0]; ++b)
    fill_seeded({d.seed, d.normal, d.scale}, (b * d.shape[1] + start) * row, n, t.data() + b * n);
  return t;
}

}  // namespace attnplay
