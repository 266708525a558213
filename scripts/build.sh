#!/usr/bin/env bash
# Builds what a purpose needs, incrementally (a second run only redoes what changed):
#   scripts/build.sh          everything: the native CLI and the Catch2 suite (build/native), the
#                             WASM module (build/wasm) and the static site (dist/)
#   scripts/build.sh serve    what `npm start` serves: the WASM module and the site (no test binary)
# One progress line per step, with the time it took, so nobody waits in silence.
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
exec 9>build/.build.lock   # one build of the shared folders at a time
flock 9

step_start=0
step() {  # step "what": prints "build: what ..." and, at the next step, how long this one took
  finish
  step_start=$(date +%s)
  printf 'build: %s ...\n' "$*" >&2
}
finish() {
  if [ "$step_start" -ne 0 ]; then printf 'build:   done in %ss\n' "$(( $(date +%s) - step_start ))" >&2; fi
  step_start=0
}
# cmake's own output goes to a log; on failure it is shown.
quiet() {
  local log=build/build-step.log
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; echo "build: FAILED: $*" >&2; exit 1; fi
}

# ccache (g++ and em++): objects are keyed by their preprocessed source and flags, not by the
# clone's path (base dir + no hashed cwd), so a fresh clone on this machine recompiles only what
# changed. The cache lives in ccache's own folder (~/.cache/ccache, 5 GB by default).
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# configure DIR ARGS...: (re)configures when the cache is missing or predates the launcher.
needs_configure() {
  [ -f "$1/CMakeCache.txt" ] || return 0
  [ ${#launcher[@]} -eq 0 ] || grep -q '^CMAKE_CXX_COMPILER_LAUNCHER:.*ccache' "$1/CMakeCache.txt" || return 0
  return 1
}

if [ "$purpose" = all ]; then
  if needs_configure build/native; then step "configure native (cmake, g++)"; quiet cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"; fi
  step "native CLI and Catch2 suite (build/native; the first time takes a few minutes)"
  quiet cmake --build build/native -j "$jobs"
fi

export NODE_PATH=/usr/share/nodejs   # em++ runs acorn from Debian's node modules
if needs_configure build/wasm; then step "configure WASM (emcmake)"; quiet emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"; fi
step "WASM module (build/wasm; the first time takes a few minutes)"
quiet cmake --build build/wasm -j "$jobs"

step "catalog of algorithms and presets (build/wasm/catalog.json)"
node scripts/catalog.mjs

step "site (dist/, vite)"
npx vite build --logLevel error >&2
finish
