#!/usr/bin/env bash
# CI smoke for the benchmark: bench/run.sh --quick with small sizes against the given binaries
# (no rebuild), GET bodies verified. Fails unless run.sh succeeds and prints all six cells,
# each with non-zero ops/s and zero errors.
# usage: bench/smoke.sh CUBBY_BIN LOADGEN_BIN
set -uo pipefail
if (($# != 2)); then
  echo "usage: $0 CUBBY_BIN LOADGEN_BIN" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(bash "$here/run.sh" --quick --large 1MiB --high-concurrency 4 --verify \
        --cubby "$1" --loadgen "$2" 2>&1)
status=$?
echo "$out"
if ((status != 0)); then
  echo "bench smoke: run.sh exited with $status"
  exit 1
fi
# Result lines: everything that is neither a comment nor the header. Columns: op size conc
# ops/s MiB/s p50 p99 ttfb errors ...
echo "$out" | awk '
  /^#/ || /^op / { next }
  { lines++
    if ($4 + 0 <= 0) { print "bench smoke: no successful requests: " $0; bad++ }
    if ($9 != "0") { print "bench smoke: errors: " $0; bad++ } }
  END {
    if (lines != 6) { print "bench smoke: expected 6 result lines, got " lines + 0; bad++ }
    if (bad) exit 1
    print "bench smoke: 6 cells, all with ops and no errors"
  }'
