// Seeded tensor draws (SPEC §2): any float tensor of a scenario may be
// {"shape": [...], "random": "normal" | "uniform", "seed": n, "scale": s}, drawn row-major from
// Rng(seed, 4) (docs/semantics.md "Random numbers"). The one tensor reader (fields.cpp read_tensor,
// read_shape) reaches them through `draw_reader`, which the whole registry sets (algorithms.cpp):
// the page's first-load module, which runs toy presets only, is 1.9 KB gzip smaller without them and
// refuses a draw (the page runs such a scenario on the whole module, web/src/engine/compute.ts).
#pragma once

#include <string>
#include <vector>

#include "fields.hpp"

namespace attnplay {

struct DrawReader {
  // The draw's numbers, `dims` as read_tensor's; errors name path's keys ("q.random", "q.shape[1]").
  Tensor (*read)(const json& value, const std::string& path, const std::vector<Dim>& dims);
  // Its shape alone, the object checked as read() checks it (estimates).
  Shape (*shape)(const json& value, const std::string& path, const std::vector<Dim>& dims);
};
extern const DrawReader draws;         // draws.cpp's
extern const DrawReader* draw_reader;  // &draws where the registry linked it; null in the first-load module

// Rows [start, end) of axis 1 of a draw (q's L of (B, L, H, E)), bit for bit those rows of the
// whole draw (core/seeded_draw.hpp: the generator skips to them): a split run's worker draws its
// own query rows (web/src/worker/split.ts). Errors as read()'s; rows past the shape name `path`.
Tensor read_draw_rows(const json& value, const std::string& path, const std::vector<Dim>& dims, std::size_t start, std::size_t end);

}  // namespace attnplay
