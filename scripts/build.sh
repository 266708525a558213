#!/usr/bin/env bash
# Builds the native core, CLI and tests (build/native), the WASM module (build/wasm) and the
# static site (dist/). Incremental: a second run only redoes what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build
exec 9>build/.build.lock   # one build of the shared folders at a time
flock 9

step() { echo "build: $*" >&2; }

step "native (build/native)"
[ -f build/native/CMakeCache.txt ] || cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j "$jobs" >/dev/null

step "wasm (build/wasm)"
export NODE_PATH=/usr/share/nodejs   # em++ runs acorn from Debian's node modules
[ -f build/wasm/CMakeCache.txt ] || emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j "$jobs" >/dev/null

if [ -f web/vite.config.ts ] || [ -f vite.config.ts ]; then
  step "site (dist/)"
  npx vite build --logLevel error >&2
fi
