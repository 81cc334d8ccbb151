#!/usr/bin/env bash
# Runs the first benchmark cells against a fresh cubby and prints one table:
#   PUT/GET x 4 KiB at c=1 and c=32, and PUT/GET x 64 MiB at c=1,
# each for a bounded time, with the server's CPU (cores) and peak RSS over each cell.
#
# usage: bench/run.sh [--quick] [--duration S] [--small SIZE] [--large SIZE]
#                     [--high-concurrency N] [--verify] [--signed-payload]
#                     [--cubby BIN --loadgen BIN]
#   --quick               1 s per cell (CI smoke) instead of 10 s
#   --cubby/--loadgen     use these binaries instead of building (both or neither)
# Environment: BUILD_DIR (default <repo>/build-bench), CUBBY_LOG_LEVEL (passed to the server),
#   KEEP_DATA=1 keeps the temp dir (server log and data) for a look afterwards.
# Exit status: 0 if every cell ran without errors and the server stopped cleanly.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
duration=10
small=4KiB
large=64MiB
high=32
cubby=""
loadgen=""
extra=()
get_extra=()

while (($#)); do
  case $1 in
    --quick) duration=1 ;;
    --duration) duration=$2; shift ;;
    --small) small=$2; shift ;;
    --large) large=$2; shift ;;
    --high-concurrency) high=$2; shift ;;
    --verify) get_extra+=(--verify) ;;
    --signed-payload) extra+=(--signed-payload) ;;
    --cubby) cubby=$2; shift ;;
    --loadgen) loadgen=$2; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [[ -z $cubby && -z $loadgen ]]; then
  build=${BUILD_DIR:-$repo/build-bench}
  mkdir -p "$build"
  # The build's output is shown only if it fails, so the table stays readable.
  if ! { cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF &&
         cmake --build "$build" -j"$(nproc)" --target cubby cubby-loadgen; } >"$build/bench-build.log" 2>&1; then
    cat "$build/bench-build.log" >&2
    echo "run.sh: build failed" >&2
    exit 1
  fi
  cubby=$build/cubby
  loadgen=$build/bench/cubby-loadgen
elif [[ -z $cubby || -z $loadgen ]]; then
  echo "run.sh: give both --cubby and --loadgen, or neither" >&2
  exit 2
fi
for bin in "$cubby" "$loadgen"; do
  [[ -x $bin ]] || { echo "run.sh: not an executable: $bin" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubby-bench.XXXXXX")
server_pid=""
stop_server() {
  [[ -n $server_pid ]] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  local status=0
  wait "$server_pid" || status=$?
  server_pid=""
  return "$status"
}
cleanup() {
  stop_server || true
  if [[ ${KEEP_DATA:-0} == 1 ]]; then echo "# kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# Fixed root credentials: the loadgen signs with them.
export CUBBY_ROOT_ACCESS_KEY=benchroot
export CUBBY_ROOT_SECRET_KEY=bench-secret-key-0123456789
export AWS_ACCESS_KEY_ID=$CUBBY_ROOT_ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$CUBBY_ROOT_SECRET_KEY

"$cubby" --data-dir "$tmp/data" --s3-address 127.0.0.1:0 >"$tmp/server.log" 2>&1 &
server_pid=$!

# Wait for "s3_endpoint=http://127.0.0.1:PORT" (or for the server to die).
endpoint=""
for _ in $(seq 300); do
  endpoint=$(grep -o 's3_endpoint=http://[^ ",]*' "$tmp/server.log" | head -1 | cut -d= -f2 || true)
  [[ -n $endpoint ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
  sleep 0.1
done
if [[ -z $endpoint ]]; then
  echo "run.sh: cubby did not report s3_endpoint; its log:" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi

echo "# cubby bench $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
echo "# ${duration}s per cell, server ${endpoint}, data in ${tmp}"
"$loadgen" --print-header

failed=0
cell() {  # op size concurrency
  local op=$1 size=$2 conc=$3 status=0
  local args=(--endpoint "$endpoint" --op "$op" --size "$size" --concurrency "$conc"
              --duration "$duration" --server-pid "$server_pid" --no-header
              --prefix "bench-$op-c$conc" ${extra[@]+"${extra[@]}"})
  [[ $op == get ]] && args+=(${get_extra[@]+"${get_extra[@]}"})
  "$loadgen" "${args[@]}" 2>"$tmp/loadgen.err" || status=$?
  if ((status != 0)); then
    failed=1
    # Exit 3: the line was printed with its error count; otherwise there is no line at all.
    ((status == 3)) || printf '%-5s %6s %6s  FAILED (exit %d)\n' "$op" "$size" "$conc" "$status"
    sed 's/^/# /' "$tmp/loadgen.err"
  fi
}

cell put "$small" 1
cell get "$small" 1
cell put "$small" "$high"
cell get "$small" "$high"
cell put "$large" 1
cell get "$large" 1

if ! stop_server; then
  echo "# cubby did not exit cleanly after SIGTERM; last log lines:"
  tail -5 "$tmp/server.log" | sed 's/^/# /'
  failed=1
fi
exit "$failed"
