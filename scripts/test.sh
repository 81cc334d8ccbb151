#!/usr/bin/env bash
# Builds everything and runs the whole test suite:
#  1. RelWithDebInfo in build-test/: unit tests, the layering check, the end-to-end tests with
#     real clients against the real binary, the benchmark smoke run;
#  2. AddressSanitizer + UBSan in build-asan/: the unit tests again, only they are built (the
#     end-to-end tests are left out there: they drive the optimised binary and would take too
#     long instrumented).
#  3. the libFuzzer targets (fuzz/run.sh: clang, ASan + UBSan, in build-fuzz/), 30 s each;
#  4. the container image (scripts/container-check.sh): built with a private dockerd on base
#     images made from Debian's mirror, then run and checked. Where no container engine can run
#     (not root, no kernel support) it prints a loud SKIP and does not fail.
# Exits non-zero if any test fails, a fuzz target crashes or the image fails to build or check.
# Set CUBBY_SKIP_ASAN=1, CUBBY_SKIP_FUZZ=1 or CUBBY_SKIP_CONTAINER=1 to leave out the second,
# third or fourth part; CUBBY_FUZZ_SECONDS sets the time each fuzz target runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
jobs=$(nproc)

cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-test -j"$jobs"
# The e2e test runs alone (RUN_SERIAL) and spreads itself over the cores with pytest-xdist.
ctest --test-dir build-test --output-on-failure -j"$jobs"

if [[ "${CUBBY_SKIP_ASAN:-0}" != 1 ]]; then
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCUBBY_SANITIZE=ON
  cmake --build build-asan -j"$jobs" --target unit_tests
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -E '(^e2e$|_e2e$|^bench_|^layering$|^server\.cli$)'
fi

if [[ "${CUBBY_SKIP_FUZZ:-0}" != 1 ]]; then
  bash fuzz/run.sh --seconds "${CUBBY_FUZZ_SECONDS:-30}"
fi

if [[ "${CUBBY_SKIP_CONTAINER:-0}" != 1 ]]; then
  bash scripts/container-check.sh
fi
