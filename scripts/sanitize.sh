#!/usr/bin/env bash
# The Catch2 suite under AddressSanitizer + UndefinedBehaviorSanitizer (issue 18; docs/testing.md):
#   scripts/sanitize.sh [CATCH2 ARGS...]   (npm run sanitize) builds build/fuzz with clang++
#                                          (-DATTNPLAY_SANITIZE=ON, -O1 -g1: cmake/fuzz.cmake) and
#                                          runs attnplay_tests there; any report fails it
#   scripts/sanitize.sh --build-only TARGET...   only builds those targets (scripts/fuzz.sh)
#   scripts/sanitize.sh --run-only [CATCH2 ARGS...]   only runs the built attnplay_tests (npm test runs
#                                          two of these at once on halves of the suite: scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p build
# configured again when cmake/fuzz.cmake's build changes (the stamp names that version)
stamp="unity-O0-tests-v2"
if [ ! -f build/fuzz/CMakeCache.txt ] || [ "$(cat build/fuzz/.configured 2>/dev/null)" != "$stamp" ]; then
  rm -f build/fuzz/CMakeCache.txt
  cmake -S . -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DATTNPLAY_SANITIZE=ON "${launcher[@]}" > build/fuzz-configure.log 2>&1 ||
    { cat build/fuzz-configure.log >&2; exit 1; }
  echo "$stamp" > build/fuzz/.configured
fi
jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" = --build-only ]; then
  shift
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  nice -n 10 cmake --build build/fuzz -j "$jobs" "${targets[@]}" > build/fuzz-build.log 2>&1 || { tail -40 build/fuzz-build.log >&2; exit 1; }
  exit 0
fi
if [ "${1:-}" = --run-only ]; then
  shift
else
  start=$(date +%s)
  nice -n 10 cmake --build build/fuzz -j "$jobs" --target attnplay_tests > build/fuzz-build.log 2>&1 || { tail -40 build/fuzz-build.log >&2; exit 1; }
  echo "sanitize: built in $(( $(date +%s) - start ))s" >&2
fi
start=$(date +%s)
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 nice -n 10 build/fuzz/attnplay_tests "$@"
echo "sanitize: Catch2 under ASan + UBSan in $(( $(date +%s) - start ))s" >&2
