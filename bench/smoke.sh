#!/usr/bin/env bash
# CI smoke for the benchmark: bench/run.sh --quick at tiny sizes against the given binaries
# (no rebuild), GET bodies verified: 4 KiB and 1 MiB objects, concurrency 4, a listing bucket
# of 2500 objects (three pages of up to 1000 keys, every full pass checked). It checks that
# everything runs, not how fast: it fails unless run.sh succeeds and prints every result row
# (37 cubby rows, alternating halves counted twice, plus the 2 HTTP-ceiling rows with
# baselines), each with non-zero ops/s and zero errors, and all 20 target lines with a value
# (PASS and MISS are both fine; without baselines the 6 lines that need one say n/a).
# usage: bench/smoke.sh CUBBY_BIN LOADGEN_BIN [BASELINE_BIN]
#   BASELINE_BIN defaults to cubby-baseline beside LOADGEN_BIN; if there is none, the run
#   skips the baselines.
set -uo pipefail
if (($# < 2 || $# > 3)); then
  echo "usage: $0 CUBBY_BIN LOADGEN_BIN [BASELINE_BIN]" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
baseline=${3:-$(dirname "$2")/cubby-baseline}
if [[ -x $baseline ]]; then
  baseline_args=(--baseline "$baseline")
  want_rows=39 want_values=20
else
  echo "bench smoke: no $baseline, running without baselines"
  baseline_args=(--no-baselines)
  want_rows=37 want_values=14
fi
out=$(bash "$here/run.sh" --quick --large 1MiB --high-concurrency 4 --list-objects 2500 --version-objects 2500 --verify \
        --cubby "$1" --loadgen "$2" "${baseline_args[@]}" 2>&1)
status=$?
echo "$out"
if ((status != 0)); then
  echo "bench smoke: run.sh exited with $status"
  exit 1
fi
# Result rows: cubby's cells and the HTTP-ceiling rows, not comments, the header or the
# baselines' own lines. Columns: op size conc ops/s MiB/s p50 p99 ttfb errors ... Target
# lines: "label = value target CMP BOUND WORD". What follows them is context.
echo "$out" | awk -v want_rows="$want_rows" -v want_values="$want_values" '
  /^# baselines/ { section = "baselines"; next }
  /^# HTTP ceiling/ { section = ""; next }
  /^# targets/ { section = "targets"; next }
  /^# other ratios/ { section = "after"; next }
  /^#/ || /^op / || section == "baselines" || section == "after" { next }
  section == "targets" {
    targets++
    word = $NF
    if (word == "PASS" || word == "MISS") values++
    else if (word != "n/a") { print "bench smoke: malformed target line: " $0; bad++ }
    next
  }
  { rows++
    if ($4 + 0 <= 0) { print "bench smoke: no successful requests: " $0; bad++ }
    if ($9 != "0") { print "bench smoke: errors: " $0; bad++ } }
  END {
    if (rows != want_rows) { print "bench smoke: expected " want_rows " result rows, got " rows + 0; bad++ }
    if (targets != 20) { print "bench smoke: expected 20 target lines, got " targets + 0; bad++ }
    if (values != want_values) {
      print "bench smoke: expected " want_values " target lines with a value, got " values + 0; bad++
    }
    if (bad) exit 1
    print "bench smoke: " rows " rows, all with ops and no errors; " targets " target lines"
  }'
