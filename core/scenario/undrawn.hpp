// Seeded draws left undrawn in a run above the work budget (issue 18: "a 2e12 multiply-add scenario
// is refused in under a second"; docs/semantics.md "Work budget"). While run_scenario reads a
// scenario whose estimate is above its budget (UndrawnScope), a draw of more than kUndrawnAbove
// numbers is checked as always (its keys, its shape against the other tensors) but not drawn: the
// reader gets a tensor of its shape, numbers unset, which nothing computes with, since begin_work()
// refuses the run once every field is read. (3 x 16.7M normal numbers took seconds and 400 MB.)
#pragma once

#include <cstddef>

namespace attnplay {

// 2^20 numbers: 8 MB and a few ms to draw, above the tensors whose numbers a reader checks before
// its work (diff's lambda vectors; nadaraya_watson's data, limited to 2^26 kernel evaluations).
constexpr std::size_t kUndrawnAbove = std::size_t{1} << 20;

// On for its lifetime when `on` (one reading; the previous state comes back after it).
class UndrawnScope {
 public:
  explicit UndrawnScope(bool on);
  ~UndrawnScope();
  UndrawnScope(const UndrawnScope&) = delete;
  UndrawnScope& operator=(const UndrawnScope&) = delete;

 private:
  bool previous_;
};

}  // namespace attnplay
