#!/usr/bin/env bash
# Builds cubby (Release) and runs it with the given flags, from the repository root wherever it
# is called from. Defaults: data in ./data, S3 on 0.0.0.0:9000, root credentials in
# ./data/root-credentials. See `scripts/run.sh --help`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target cubby
exec build/cubby "$@"
