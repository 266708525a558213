#!/usr/bin/env bash
# Every suite: Catch2 (native core), node's test runner (WASM module), headless Chromium (page).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
echo "== Catch2 (native core)"
ctest --test-dir build/native --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" || status=1
echo "== node (WASM module)"
node --test tests/node/ || status=1
if compgen -G "tests/web/*.test.mjs" >/dev/null; then
  echo "== browser (headless Chromium)"
  node --test --test-concurrency=1 tests/web/ || status=1
fi
exit $status
