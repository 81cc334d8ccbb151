#!/usr/bin/env bash
# Builds everything (RelWithDebInfo, in build-test/) and runs the whole test suite: unit tests,
# the layering check and the end-to-end tests. Exits non-zero if any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-test -j"$(nproc)"
ctest --test-dir build-test --output-on-failure
