// In-process timing of the project's full attention (the fused kernel), for bench/full_attention.mjs
// and bench/sparse_masks.mjs: no process start, no JSON in the timed part. Built twice from this
// file: natively (build/native/attnplay_bench) and to wasm with the whole module's core objects
// (build/wasm/attnplay_bench.cjs, run as `node --no-experimental-fetch attnplay_bench.cjs ...`:
// the kernel as the page runs it, without the WASM call's copies and trace conversion).
//
//   attnplay_bench L E D reps float32|float64 [MASK]
//     ->  one line of JSON: {"L", "ms", "median_ms", "cpu_ms", "faults", "checksum"}
//
// ms, median_ms: wall time of a repetition (best, median); cpu_ms: the least CPU time of a
// repetition (natively the process's, in wasm node's process.cpuUsage()), the figure to compare on
// a loaded machine; faults (natively): the least minor page faults of a repetition.
//
// The heap (natively, glibc): a program that calls the core again and again keeps its heap, so
// main() raises glibc's trim and mmap thresholds once (mallopt) before the first call. With glibc's
// defaults each call's buffers of a few MB (float32: context, V and O as floats) go back to the
// system when it returns (the free top of the heap is past M_TRIM_THRESHOLD, or they were mmapped),
// and every call page-faults them in again: about 1,000 faults, 16 ms of CPU against 4 for float32
// local w=16 at L = 4096 in this VM (docs/performance.md). ATTNPLAY_BENCH_MALLOC_DEFAULTS=1 keeps
// glibc's defaults (to see that cost). WASM memory is never returned: nothing to set there.
//
// MASK (bench/sparse_masks.mjs): a kind and its numbers, fill -inf, e.g. `causal`, `local,window=16`,
// `atrous,dilation=64`, `strided,window=16,stride=64,causal`; absent: no mask.
//
// Inputs are bench/lib.mjs's uniforms(n, seed) (mulberry32 in [-1, 1)) with the seeds the JS side
// uses (q: L + 1, k: L + 2, v: L + 3), so every engine sees the same numbers.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <ctime>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/resource.h>
#endif

#include "../../core/full_attention.hpp"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
// node's CPU time of the process, in ms (emscripten's clock_gettime has no CPU clock)
EM_JS(double, cpu_now_ms, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
});
#else
static double cpu_now_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
#endif

// minor page faults of the process so far (0 where not known)
static long minor_faults() {
#if defined(__GLIBC__)
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
#else
  return 0;
#endif
}

using namespace attnplay;

static Tensor uniforms(std::size_t L, std::size_t X, std::uint32_t seed) {
  Tensor t = Tensor::from_shape({1, L, 1, X});
  std::uint32_t a = seed;
  for (std::size_t i = 0; i < t.size(); ++i) {
    a += 0x6d2b79f5u;
    std::uint32_t x = a;
    x = (x ^ (x >> 15)) * (x | 1u);
    x ^= x + (x ^ (x >> 7)) * (x | 61u);
    t.data()[i] = double(x ^ (x >> 14)) / 4294967296.0 * 2 - 1;
  }
  return t;
}

static Mask parse_mask(const std::string& text) {
  Mask m;
  std::size_t at = 0;
  for (bool first = true; at <= text.size(); first = false) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at), key = item.substr(0, item.find('='));
    const std::int64_t value = item.find('=') == std::string::npos ? 0 : std::stoll(item.substr(item.find('=') + 1));
    if (first) {
      const char* kinds[] = {"none", "causal", "local", "atrous", "strided", "sink"};
      const MaskKind ks[] = {MaskKind::none, MaskKind::causal, MaskKind::local, MaskKind::atrous, MaskKind::strided, MaskKind::sink};
      bool found = false;
      for (int x = 0; x < 6; ++x)
        if (item == kinds[x]) m.kind = ks[x], found = true;
      if (!found) throw std::runtime_error("unknown mask kind " + item);
    } else if (key == "window") m.window = value;
    else if (key == "dilation") m.dilation = value;
    else if (key == "stride") m.stride = value;
    else if (key == "sinks") m.sinks = value;
    else if (key == "causal") m.causal = true;
    else throw std::runtime_error("unknown mask field " + key);
    at = comma + 1;
  }
  return m;
}

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr, "usage: attnplay_bench L E D reps float32|float64 [MASK]\n");
    return 2;
  }
#if defined(__GLIBC__)
  const char* malloc_defaults = std::getenv("ATTNPLAY_BENCH_MALLOC_DEFAULTS");
  if (!malloc_defaults || !*malloc_defaults) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // (glibc's largest: buffers up to 32 MB come from the heap)
    mallopt(M_TRIM_THRESHOLD, 1 << 30);   // and the heap's free top stays
  }
#endif
  const Mask mask = argc == 7 ? parse_mask(argv[6]) : Mask{};
  const std::size_t L = std::stoul(argv[1]), E = std::stoul(argv[2]), D = std::stoul(argv[3]);
  const int reps = std::stoi(argv[4]);
  const Dtype dtype = std::string(argv[5]) == "float32" ? Dtype::float32 : Dtype::float64;
  const Tensor q = uniforms(L, E, std::uint32_t(L + 1)), k = uniforms(L, E, std::uint32_t(L + 2)),
               v = uniforms(L, D, std::uint32_t(L + 3));
  const double scale = 1.0 / std::sqrt(double(E));
  double checksum = 0;
  std::vector<double> ms;
  double cpu_ms = 0;
  long faults = 0;
  for (int r = 0; r <= reps; ++r) {  // one warm-up
    const long f0 = minor_faults();
    const double c0 = cpu_now_ms();
    const auto t0 = std::chrono::steady_clock::now();
    const Trace t = full_attention(q, k, v, scale, mask, TraceLevel::context, dtype);
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_now_ms();
    const long f1 = minor_faults();
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (r > 0) cpu_ms = r == 1 ? c1 - c0 : std::min(cpu_ms, c1 - c0);
    if (r > 0) faults = r == 1 ? f1 - f0 : std::min(faults, f1 - f0);
    checksum = t.tensor("context")(0, 0, 0, 0);
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                          : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  std::printf("{\"L\": %zu, \"ms\": %.6f, \"median_ms\": %.6f, \"cpu_ms\": %.6f, \"faults\": %ld, \"checksum\": %.17g}\n", L, sorted[0],
              median, cpu_ms, faults, checksum);
  return 0;
}
