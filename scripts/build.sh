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

if [ "$purpose" = all ]; then
  [ -f build/native/CMakeCache.txt ] || { step "configure native (cmake, g++)"; quiet cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release; }
  step "native CLI and Catch2 suite (build/native; the first time takes a few minutes)"
  quiet cmake --build build/native -j "$jobs"
fi

export NODE_PATH=/usr/share/nodejs   # em++ runs acorn from Debian's node modules
[ -f build/wasm/CMakeCache.txt ] || { step "configure WASM (emcmake)"; quiet emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release; }
step "WASM module (build/wasm; the first time takes a few minutes)"
quiet cmake --build build/wasm -j "$jobs"

step "catalog of algorithms and presets (build/wasm/catalog.json)"
node scripts/catalog.mjs

step "site (dist/, vite)"
npx vite build --logLevel error >&2
finish
