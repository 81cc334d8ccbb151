#!/usr/bin/env bash
# Builds the libFuzzer targets with clang into build-fuzz/ (every library instrumented for
# coverage, ASan and UBSan) and runs each for a bounded time, from its committed seeds in
# fuzz/corpus/<target>/ plus the corpus earlier runs grew in build-fuzz/corpus/<target>/.
# Prints per target the executions and libFuzzer's final coverage, and exits non-zero if any
# target crashed, leaked, timed out or ran out of memory; the input that did it is kept in
# build-fuzz/crashes/<target>/ and the log in build-fuzz/logs/<target>.log.
#
#   fuzz/run.sh                       every target 30 s (what scripts/test.sh runs)
#   fuzz/run.sh --seconds 3600        every target an hour, as many at once as there are cores
#   fuzz/run.sh --seconds 600 xml     one target
# Reproduce a crash: build-fuzz/fuzz/<target> build-fuzz/crashes/<target>/<file>
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(request auth payload xml policy acl iam lifecycle form post_policy seal)
seconds=30
targets=()
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=("${all_targets[@]}")

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
if [[ ! -f build-fuzz/CMakeCache.txt ]]; then
  cmake -S . -B build-fuzz "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++ -DCUBBY_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
fi
cmake --build build-fuzz --target cubby_fuzz -j"$(nproc)"

# Last value of `key` (e.g. "cov:") on libFuzzer's status lines, or "?".
last_stat() {
  local v
  v=$(grep -oE "$1 [0-9]+" "$2" | tail -1 | awk '{print $2}' || true)
  echo "${v:-?}"
}

# One target: its exit code goes to build-fuzz/logs/<target>.rc.
run_target() {
  local t=$1 rc=0
  local corpus=build-fuzz/corpus/$t crashes=build-fuzz/crashes/$t log=build-fuzz/logs/$t.log
  mkdir -p "$corpus" "$crashes"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build-fuzz/fuzz/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=16384 -print_final_stats=1 -artifact_prefix="$crashes/" \
      "$corpus" "fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  echo "$rc" >"build-fuzz/logs/$t.rc"
}

mkdir -p build-fuzz/logs
rm -f build-fuzz/logs/*.rc
for t in "${targets[@]}"; do
  [[ -d fuzz/corpus/$t ]] || { echo "fuzz: no target '$t' (have: ${all_targets[*]})"; exit 2; }
done
# As many targets at once as there are cores (CUBBY_FUZZ_JOBS to choose).
parallel=${CUBBY_FUZZ_JOBS:-$(nproc)}
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  run_target "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  log=build-fuzz/logs/$t.log
  rc=$(cat "build-fuzz/logs/$t.rc" 2>/dev/null || echo 1)
  execs=$(last_stat stat::number_of_executed_units: "$log")
  printf 'fuzz: %-8s %s  executions %s  cov %s  ft %s  corpus %s files\n' "$t" \
    "$( ((rc == 0)) && echo ok || echo FAILED)" "$execs" "$(last_stat cov: "$log")" \
    "$(last_stat ft: "$log")" "$(find "build-fuzz/corpus/$t" -type f | wc -l)"
  if ((rc != 0)); then
    failed+=("$t")
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -20 || true
  fi
done

if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (logs in build-fuzz/logs/, inputs in build-fuzz/crashes/)"
  exit 1
fi
echo "fuzz: every target ran ${seconds} s without a crash"
