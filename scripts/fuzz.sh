#!/usr/bin/env bash
# libFuzzer under ASan + UBSan (issue 18; docs/testing.md "Fuzzing and sanitizers"):
#   scripts/fuzz.sh [SECONDS]   (npm run fuzz [SECONDS]; default 60) builds build/fuzz (clang++,
#                               -DATTNPLAY_SANITIZE=ON) and runs each target for SECONDS / 2,
#                               one after the other, from the committed seeds
#                               (tests/fuzz/corpus/<target>) and what earlier runs found
#                               (build/fuzz/corpus-<target>). A crash leaves its input in
#                               build/fuzz/crashes/ and fails the script.
#   scripts/fuzz.sh --smoke     npm test's smoke: each target runs every committed seed once, then
#                               fuzzes from them until FUZZ_SMOKE_SECONDS (default 12) have passed
#                               since it started, both targets at once; what it finds is not
#                               kept (a fixed cost)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
smoke=0
if [ "$seconds" = --smoke ]; then smoke=1; seconds=$(( 2 * ${FUZZ_SMOKE_SECONDS:-12} )); fi
case $seconds in ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS|--smoke]" >&2; exit 2;; esac

if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  echo "fuzz: needs clang and libclang-rt-dev (Debian); scripts/setup.sh --fuzz installs them" >&2
  exit 1
fi
bash scripts/sanitize.sh --build-only attnplay fuzz_parser fuzz_algorithms

# the dictionary: every key and word the readers know (the registry's names, defaults, presets)
dict=build/fuzz/scenario.dict
node -e '
const a = JSON.parse(require("child_process").execFileSync("build/fuzz/attnplay", ["algorithms", "--json"]));
const words = new Set(["algorithm","q","k","v","mask","kind","trace","dtype","seed","scale","max_flops","causal","window","dilation","stride","fill","valid_lens","allowed","shape","data","none","local","atrous","strided","explicit","-inf","full","context","float32"]);
for (const x of a) { words.add(x.name); for (const k of Object.keys(x.defaults)) words.add(k); }
const out = [...words].map((w) => JSON.stringify(JSON.stringify(w))).concat(["\"[[[[\"", "\"]]]]\"", "\"1e308\"", "\"-0\"", "\"5e-324\""]);
require("fs").writeFileSync(process.argv[1], out.map((w, i) => `w${i}=${w}`).join("\n") + "\n");
' "$dict"

export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p build/fuzz/crashes
status=0
per=$(( seconds / 2 > 1 ? seconds / 2 : 1 ))
# one target: its seeds, then fuzzing for $per seconds; 1 when it found a bug
fuzz_target() {
  local target=$1 seeds found log args start
  seeds=tests/fuzz/corpus/${target#fuzz_}
  found=build/fuzz/corpus-${target#fuzz_}
  if [ $smoke = 1 ]; then found=build/fuzz/smoke-${target#fuzz_}; rm -rf "$found"; fi
  mkdir -p "$found"
  log=build/fuzz/$target.log
  [ $smoke = 0 ] || log=build/fuzz/$target-smoke.log
  # -timeout: a hang is an input past 60 s of WALL time (libFuzzer's clock): at 10 s, a loaded
  # machine (load 15, nice 19) stopped both targets on ordinary 21 MB traces (4 s of CPU; session 9)
  args=(-max_total_time="$per" -timeout=60 -rss_limit_mb=3072 -max_len=16384 -print_final_stats=1
        -artifact_prefix=build/fuzz/crashes/ -dict="$dict")
  start=$(date +%s)
  if nice -n 10 "build/fuzz/$target" "${args[@]}" "$found" "$seeds" > "$log" 2>&1; then
    stats=$(grep -E "stat::number_of_executed_units|cov:" "$log" | tail -2 | tr '\n' ' ')
    echo "fuzz: $target ok in $(( $(date +%s) - start ))s: $(grep -o 'cov: [0-9]*' "$log" | tail -1) edges, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$') executions, $(grep -o 'exec/s: [0-9]*' "$log" | tail -1)"
  else
    echo "fuzz: $target FOUND A BUG ($log; input in build/fuzz/crashes/):" >&2
    grep -E "ERROR|runtime error|SUMMARY|uncaught|deadly" "$log" | head -5 >&2
    return 1
  fi
}
if [ $smoke = 1 ]; then
  # the smoke's two targets at once, one core each: its fixed time is npm test's, halved
  fuzz_target fuzz_parser & parser=$!
  fuzz_target fuzz_algorithms & algorithms=$!
  wait $parser || status=1
  wait $algorithms || status=1
else
  for target in fuzz_parser fuzz_algorithms; do fuzz_target "$target" || status=1; done
fi
exit $status
