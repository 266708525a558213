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
echo "== Catch2 under ASan + UBSan, and a fuzz smoke (build/fuzz, clang; docs/testing.md)"
# the same core objects for both (cmake/fuzz.cmake); ccache makes an unchanged core's build a link.
# Every Catch2 case but three that only repeat covered paths at length (141 of the suite's 250 s
# under the sanitizers): the kernel's remainder sweep (its tile paths are "the fused kernel: ...
# every tile path") and two full trainings (the gradients and the other bahdanau cases stay).
# They run natively above, and under the sanitizers in `npm run sanitize`. A renamed case is run.
# Two processes at once (the run is one thread; the phase has the 2 cores to itself): the cases below
# (about half of the run's time: the budget's large draws, the tiles' masks, L = 4096) in one, every
# other in the second (the same names excluded, so a renamed case runs in the second: each case runs
# once).
skip=('~the fused kernel at sizes that leave a remainder*'
  '~bahdanau: training copy puts the weights on the diagonal'
  '~bahdanau: training reverse from the default seed learns the anti-diagonal')
heavy=('budget: a run above the budget leaves its large draws undrawn*' 'sparse masks through the tiles*'
  'budget: an invalid scenario gets the reader*' 'draws: L = 4096 from a few bytes of scenario*'
  'flash: context equals full*')
if bash scripts/sanitize.sh --build-only attnplay_tests > build/sanitize.log 2>&1; then
  heavyOnly=$(IFS=,; echo "${heavy[*]}")
  bash scripts/sanitize.sh --run-only "$heavyOnly" > build/sanitize-1.log 2>&1 & first=$!
  ok=1
  bash scripts/sanitize.sh --run-only "${skip[@]}" "${heavy[@]/#/\~}" > build/sanitize-2.log 2>&1 || ok=0
  wait $first || ok=0
  grep -hE "passed|failed|sanitize:" build/sanitize-1.log build/sanitize-2.log
  [ $ok = 1 ] || { tail -40 build/sanitize-1.log build/sanitize-2.log; status=1; }
else
  tail -40 build/sanitize.log
  status=1
fi
bash scripts/fuzz.sh --smoke || status=1
echo "== node (WASM module)"
# two files at a time: node's default on 2 cores is one (cores - 1), and each file is one process
node --test --test-concurrency=2 tests/node/ || status=1
echo "== tsc (page types)"
npx tsc --noEmit -p . || status=1
if compgen -G "tests/web/*.test.mjs" >/dev/null; then
  echo "== browser (headless Chromium)"
  # two files at a time (three at a time took longer: 577 s against 539), the longest first, so that
  # none is left running alone at the end. One Chromium for the phase (tests/web/browser-server.mjs;
  # each file opens contexts of its own in it, harness.mjs): a start and stop costs about 4.5 s of
  # CPU, and each file started one. Files that use the clipboard start their own.
  first=(tests/web/presets.test.mjs tests/web/long-run.test.mjs tests/web/package.test.mjs tests/web/embedding-docs.test.mjs tests/web/page.test.mjs)
  rest=()
  for f in tests/web/*.test.mjs; do [[ " ${first[*]} " == *" $f "* ]] || rest+=("$f"); done
  coproc BROWSER { exec node tests/web/browser-server.mjs; }
  browser_pid=$BROWSER_PID
  if read -r -t 60 ws <&"${BROWSER[0]}" && [[ $ws == ws://* ]]; then
    ATTNPLAY_BROWSER_WS=$ws node --test --test-concurrency=2 "${first[@]}" "${rest[@]}" || status=1
  else
    echo "the shared Chromium did not start: every file starts its own"
    node --test --test-concurrency=2 "${first[@]}" "${rest[@]}" || status=1
  fi
  kill "$browser_pid" 2>/dev/null || true
  wait "$browser_pid" 2>/dev/null || true
fi
exit $status
