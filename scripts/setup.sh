#!/usr/bin/env bash
# Installs whatever the build and the tests need and is not there yet; quick when nothing is
# missing. Debian packages through apt (sudo when not root), npm packages through `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
need() { # need PACKAGE PATH...
  local pkg=$1; shift
  for p in "$@"; do [ -e "$p" ] || { missing+=("$pkg"); return; }; done
}
need cmake /usr/bin/cmake
need g++ /usr/bin/g++
need make /usr/bin/make
need ccache /usr/bin/ccache   # scripts/build.sh compiles through it (g++ and em++): a fresh clone reuses unchanged objects
need emscripten /usr/bin/em++ /usr/bin/emcmake
need xtensor-dev /usr/include/xtensor/xarray.hpp
need xtl-dev /usr/include/xtl/xtl_config.hpp
need libxsimd-dev /usr/include/xsimd/xsimd.hpp
need catch2 /usr/include/catch2/catch.hpp
need nlohmann-json3-dev /usr/include/nlohmann/json.hpp
need chromium /usr/bin/chromium
need nodejs /usr/bin/node
need python3-torch /usr/lib/python3/dist-packages/torch/__init__.py  # tests/web/pytorch.test.mjs runs the copy-as-PyTorch snippets
# issue 18: clang and its sanitizer/libFuzzer runtimes: npm test runs the Catch2 suite under ASan +
# UBSan and a fuzz smoke (scripts/test.sh), npm run fuzz / sanitize the longer runs. (`--fuzz`,
# which npm run fuzz and sanitize pass, asked for them alone before npm test needed them.)
need clang /usr/bin/clang++
compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || missing+=(libclang-rt-dev)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

echo "setup: system packages ok" >&2

# npm ci when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
