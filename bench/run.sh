#!/usr/bin/env bash
# Runs the first benchmark cells against a fresh cubby and prints one table:
#   PUT/GET x 4 KiB at c=1 and c=32, and PUT/GET x 64 MiB at c=1,
# each for a bounded time, with the server's CPU (cores) and peak RSS over each cell.
#
# usage: bench/run.sh [--quick] [--duration S] [--small SIZE] [--large SIZE]
#                     [--high-concurrency N] [--verify] [--signed-payload]
#                     [--cubby BIN --loadgen BIN [--baseline BIN]] [--no-baselines]
#   --quick               1 s per cell (CI smoke) instead of 10 s
#   --cubby/--loadgen     use these binaries instead of building (both or neither);
#                         baselines then run only if --baseline gives cubby-baseline
#   --no-baselines        skip the baselines section (hashing, raw RocksDB, loopback, HTTP)
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
baseline=""
baselines=1
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
    --baseline) baseline=$2; shift ;;
    --no-baselines) baselines=0 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if [[ -z $cubby && -z $loadgen ]]; then
  build=${BUILD_DIR:-$repo/build-bench}
  mkdir -p "$build"
  # The build's output is shown only if it fails, so the table stays readable.
  if ! { cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF &&
         cmake --build "$build" -j"$(nproc)" --target cubby cubby-loadgen cubby-baseline; } >"$build/bench-build.log" 2>&1; then
    cat "$build/bench-build.log" >&2
    echo "run.sh: build failed" >&2
    exit 1
  fi
  cubby=$build/cubby
  loadgen=$build/bench/cubby-loadgen
  baseline=$build/bench/cubby-baseline
elif [[ -z $cubby || -z $loadgen ]]; then
  echo "run.sh: give both --cubby and --loadgen, or neither" >&2
  exit 2
fi
[[ -n $baseline ]] || baselines=0
((baselines)) || baseline=""
for bin in "$cubby" "$loadgen" ${baseline:+"$baseline"}; do
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
  "$loadgen" "${args[@]}" >"$tmp/cell.out" 2>"$tmp/loadgen.err" || status=$?
  cat "$tmp/cell.out"
  cat "$tmp/cell.out" >>"$tmp/cells.txt"  # the ratios below read cubby's rows from here
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

# ---- Baselines: ceilings measured now, on this machine, with the server stopped, so cubby's
# rows above can be read as fractions of them (the absolute figures swing with CPU contention).
if ((baselines)); then
  bl_duration=$(awk -v d="$duration" 'BEGIN { print (d < 3 ? d : 3) }')
  : >"$tmp/baselines.txt"
  baseline_run() {  # mode args...: appends "baseline NAME VALUE UNIT ..." lines
    local status=0
    TMPDIR=$tmp "$baseline" "$@" >>"$tmp/baselines.txt" 2>"$tmp/baseline.err" || status=$?
    if ((status != 0)); then
      failed=1
      echo "# baseline $1 FAILED (exit $status)"
      sed 's/^/# /' "$tmp/baseline.err"
    fi
  }
  baseline_run hash
  baseline_run rocksdb --threads "$high" --size "$small" --duration "$bl_duration"
  baseline_run loopback
  echo "# baselines (same run, same machine; server stopped)"
  awk '{ printf "%-26s %12s %-6s", $2, $3, $4; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' \
    "$tmp/baselines.txt"

  # HTTP ceiling: a minimal Beast server (thread per connection, blocking, like cubby's) that
  # answers every request with 200 and a fixed $small body, driven by the same loadgen.
  "$baseline" http-server --size "$small" >"$tmp/http.out" 2>&1 &
  http_pid=$!
  http_endpoint=""
  for _ in $(seq 100); do
    port=$(grep -o 'port=[0-9]*' "$tmp/http.out" | cut -d= -f2 || true)
    [[ -n $port ]] && { http_endpoint=http://127.0.0.1:$port; break; }
    kill -0 "$http_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z $http_endpoint ]]; then
    echo "# baseline http-server did not start:"; sed 's/^/# /' "$tmp/http.out"; failed=1
  else
    echo "# HTTP ceiling: minimal Beast server, fixed $small body for every GET (loadgen rows)"
    for conc in 1 "$high"; do
      status=0
      "$loadgen" --endpoint "$http_endpoint" --op get --size "$small" --concurrency "$conc" \
        --duration "$bl_duration" --server-pid "$http_pid" --no-header \
        --prefix "ceiling-c$conc" >"$tmp/http-cell.out" 2>"$tmp/loadgen.err" || status=$?
      cat "$tmp/http-cell.out"
      awk -v c="$conc" '{ print "baseline http_get_c" c " " $4 " ops/s p50_ms=" $6 }' \
        "$tmp/http-cell.out" >>"$tmp/baselines.txt"
      if ((status != 0)); then failed=1; sed 's/^/# /' "$tmp/loadgen.err"; fi
    done
  fi
  kill -TERM "$http_pid" 2>/dev/null || true
  wait "$http_pid" 2>/dev/null || true

  # Ratios: cubby's row / the matching ceiling. Missing rows print nothing.
  echo "# ratios (cubby / ceiling)"
  awk -v small="$small" -v high="$high" -v large="$large" '
    FNR == NR { if ($1 == "baseline") { v[$2] = $3; for (i = 5; i <= NF; i++) {
                  split($i, kv, "="); v[$2 "." kv[1]] = kv[2] } } next }
    { row[$1 " " $2 " " $3 "." "ops"] = $4; row[$1 " " $2 " " $3 "." "mib"] = $5
      row[$1 " " $2 " " $3 "." "p50"] = $6 }
    function ratio(label, a, b) { if (a != "" && b + 0 > 0) printf "%-58s = %.2f\n", label, a / b }
    END {
      rc = "rocksdb_sync_put_c"
      ratio(small " PUT c=" high " ops/s / raw synced RocksDB put c=" high, row["put " small " " high ".ops"], v[rc high])
      ratio(small " PUT c=1 ops/s / raw synced RocksDB put c=1", row["put " small " 1.ops"], v[rc 1])
      ratio(small " PUT c=1 p50 / raw synced RocksDB put p50 (target <= 1.5)", row["put " small " 1.p50"], v[rc "1.p50_ms"])
      ratio(small " GET c=" high " ops/s / HTTP ceiling c=" high, row["get " small " " high ".ops"], v["http_get_c" high])
      ratio(small " GET c=1 ops/s / HTTP ceiling c=1", row["get " small " 1.ops"], v["http_get_c1"])
      ratio(large " GET c=1 MiB/s / loopback TCP", row["get " large " 1.mib"], v["loopback_tcp"])
      ratio(large " PUT c=1 MiB/s / loopback TCP", row["put " large " 1.mib"], v["loopback_tcp"])
      ratio(large " PUT c=1 MiB/s / single-core MD5", row["put " large " 1.mib"], v["hash_md5"])
    }' "$tmp/baselines.txt" "$tmp/cells.txt"
fi
exit "$failed"
