# Sanitizers and libFuzzer (issue 18; docs/testing.md "Fuzzing and sanitizers"). Off by default:
# scripts/sanitize.sh configures build/fuzz with clang++ and -DATTNPLAY_SANITIZE=ON, which builds
# the core, the CLI and the Catch2 suite under AddressSanitizer + UndefinedBehaviorSanitizer (any
# report aborts), the core with libFuzzer's coverage instrumentation, and the fuzz targets of
# tests/fuzz/. The Catch2 suite and the fuzz targets link the SAME core objects.
#
# Build cost (session 9, measured; docs/testing.md): clang's optimiser under ASan + UBSan is what
# costs, and most of it is spent again in every file on the same xtensor / nlohmann / Catch2
# template instantiations. So, in this build only:
#   - the core is compiled in 6 unity files (ATTNPLAY_SANITIZE_UNITY): each instantiation is
#     optimised once per unity file, not once per source;
#   - the Catch2 files and the CLI, which only call the core, at -O0 (and in unity batches too);
#     the sanitizers check them as well (-O0 hides no report);
#   - libFuzzer's coverage only on the core and the fuzz targets.
# The unity files include their sources by RELATIVE path, so a fresh clone's build hits ccache.
option(ATTNPLAY_SANITIZE "ASan + UBSan build with the libFuzzer targets (clang only)" OFF)
option(ATTNPLAY_SANITIZE_UNITY "ATTNPLAY_SANITIZE: compile the core and the Catch2 files in unity files" ON)
# (attnplay_unity: cmake/unity.cmake, which the native Release build uses too)
if(ATTNPLAY_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ATTNPLAY_SANITIZE needs clang++ (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(ATTNPLAY_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  # PUBLIC: every program that links the core (CLI, Catch2, fuzz targets) is built the same way
  target_compile_options(attnplay_core PUBLIC ${ATTNPLAY_SANITIZERS} PRIVATE -fsanitize=fuzzer-no-link)
  target_compile_options(attnplay_registry PRIVATE -fsanitize=fuzzer-no-link)
  target_link_options(attnplay_core PUBLIC ${ATTNPLAY_SANITIZERS})
  # the programs that only call the core: -O0 (after the build type's -O1, so it wins)
  target_compile_options(attnplay_tests PRIVATE -O0)
  target_compile_options(attnplay PRIVATE -O0)
  if(ATTNPLAY_SANITIZE_UNITY)
    attnplay_unity(attnplay_core core 6)
    attnplay_unity(attnplay_tests catch2 3)
  endif()
  foreach(target fuzz_parser fuzz_algorithms)
    add_executable(${target} tests/fuzz/${target}.cpp)
    target_link_libraries(${target} attnplay_registry)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
