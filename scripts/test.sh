#!/usr/bin/env bash
# Every suite: Catch2 (native core), node's test runner (WASM module), headless Chromium (page).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
echo "== Catch2 (native core)"
if ctest --test-dir build/native -V > build/ctest.log 2>&1; then
  grep -E "All tests passed|tests passed" build/ctest.log
else
  cat build/ctest.log
  status=1
fi
echo "== node (WASM module)"
node --test tests/node/ || status=1
echo "== tsc (page types)"
npx tsc --noEmit -p . || status=1
if compgen -G "tests/web/*.test.mjs" >/dev/null; then
  echo "== browser (headless Chromium)"
  # two files at a time: each starts its own server and Chromium, and most of a page test is
  # waiting for the page, so two share the 2 cores of the machine the suite's time is measured on
  node --test --test-concurrency=2 tests/web/ || status=1
fi
exit $status
