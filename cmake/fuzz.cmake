# Sanitizers and libFuzzer (issue 18; docs/testing.md "Fuzzing and sanitizers"). Off by default:
# scripts/fuzz.sh and scripts/sanitize.sh configure build/fuzz with clang++ and
# -DATTNPLAY_SANITIZE=ON, which builds the core, the CLI and the Catch2 suite under
# AddressSanitizer + UndefinedBehaviorSanitizer (any report aborts), with libFuzzer's coverage
# instrumentation, and the fuzz targets of tests/fuzz/.
option(ATTNPLAY_SANITIZE "ASan + UBSan build with the libFuzzer targets (clang only)" OFF)
if(ATTNPLAY_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "ATTNPLAY_SANITIZE needs clang++ (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  set(ATTNPLAY_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  # PUBLIC: every program that links the core (CLI, Catch2, fuzz targets) is built the same way
  target_compile_options(attnplay_core PUBLIC ${ATTNPLAY_SANITIZERS} -fsanitize=fuzzer-no-link)
  target_link_options(attnplay_core PUBLIC ${ATTNPLAY_SANITIZERS})
  foreach(target fuzz_parser fuzz_algorithms)
    add_executable(${target} tests/fuzz/${target}.cpp)
    target_link_libraries(${target} attnplay_registry)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer)
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
  endforeach()
endif()
