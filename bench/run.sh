#!/usr/bin/env bash
# Issue 5's benchmark: builds Release, runs every cell against a fresh cubby on 127.0.0.1 and
# prints one table, then the baselines measured in the same run and each target as a ratio
# with PASS or MISS. Cells, each for a bounded time, with the server's CPU and peak RSS:
#   PUT/GET x 4 KiB at c=1 and c=32; PUT/GET x 64 MiB at c=1 (time to first byte), and a
#   64 MiB PUT with a signed SHA-256 payload; a bucket filled with 1,000,000 empty objects
#   through PUT (the "fill" row), ListObjectsV2 1000-key pages through it (c=1), and 4 KiB
#   PUTs at c=32 into that bucket and into an empty one, in two alternating rounds; the
#   server's idle RSS before and after; 4 KiB GETs at c=32 by root and by a non-root user whose
#   only right is the last of a bucket policy's 20 statements (access control, issue 13); the
#   64 MiB PUT and GET and the 4 KiB GET c=32 again with SSE-S3 (sse-put, sse-get: issue 16),
#   each GET right after its plain cell, the PUT in alternating half cells with plain PUTs;
#   4 KiB PUTs at c=32 into a versioned and an unversioned bucket (issue 14) and into a bucket
#   with a quota and one without (put-quota, put-noquota: issue 17), each pair in alternating
#   half cells. A default run takes about 5 minutes on 2 cores, half of it filling the bucket. Each 64 MiB PUT cell, and each disk baseline, starts after a
#   syncfs(2) of the data filesystem (outside the timed window), so none inherits the
#   writeback of what ran before it; each PUT cell follows a cell-long stretch of new files.
#
# usage: bench/run.sh [--quick] [--duration S] [--small SIZE] [--large SIZE]
#                     [--high-concurrency N] [--list-objects N] [--fill-concurrency N]
#                     [--version-objects N] [--verify] [--signed-payload] [--no-drain]
#                     [--cubby BIN --loadgen BIN [--baseline BIN]] [--no-baselines]
#   --quick               1 s per cell (CI smoke) instead of 10 s
#   --list-objects N      objects in the listing bucket (default 1000000; 0 skips the listing
#                         cells); --fill-concurrency: connections that fill it (default 32)
#   --version-objects N   versions in the versions-listing bucket, 100 a key (default 1000000;
#                         0 skips the ListObjectVersions cell and the noncurrent-versions
#                         listing comparison)
#   --signed-payload      every PUT signs its body's SHA-256 (the put-sha row always does)
#   --no-drain            no syncfs before the 64 MiB PUT cells and disk baselines (A/B runs)
#   --cubby/--loadgen     use these binaries instead of building (both or neither);
#                         baselines then run only if --baseline gives cubby-baseline
#   --no-baselines        skip the baselines section (hashing, AES-GCM, raw RocksDB, disk, loopback, HTTP)
# Environment: BUILD_DIR (default <repo>/build-bench), CUBBY_LOG_LEVEL (passed to the server),
#   KEEP_DATA=1 keeps the temp dir (server log and data) for a look afterwards.
# Exit status: 0 if every cell ran without errors and the server stopped cleanly (a MISS is
#   a result, not a failure).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
duration=10
small=4KiB
large=64MiB
high=32
list_objects=1000000
version_objects=1000000
fill_concurrency=32
cubby=""
loadgen=""
baseline=""
baselines=1
drain=1
extra=()
get_extra=()

while (($#)); do
  case $1 in
    --quick) duration=1 ;;
    --duration) duration=$2; shift ;;
    --small) small=$2; shift ;;
    --large) large=$2; shift ;;
    --high-concurrency) high=$2; shift ;;
    --list-objects) list_objects=$2; shift ;;
    --version-objects) version_objects=$2; shift ;;
    --fill-concurrency) fill_concurrency=$2; shift ;;
    --verify) get_extra+=(--verify) ;;
    --signed-payload) extra+=(--signed-payload) ;;
    --cubby) cubby=$2; shift ;;
    --loadgen) loadgen=$2; shift ;;
    --baseline) baseline=$2; shift ;;
    --no-baselines) baselines=0 ;;
    --no-drain) drain=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

[[ $list_objects =~ ^[0-9]+$ ]] || { echo "run.sh: --list-objects must be a count" >&2; exit 2; }
[[ $version_objects =~ ^[0-9]+$ ]] ||
  { echo "run.sh: --version-objects must be a count" >&2; exit 2; }

run_start=$(date +%s.%N)
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
build_seconds=""
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
  build_seconds=$(elapsed "$run_start")
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
# A user with a fixed key, for the access-control cells (the users file makes it at start).
bench_user=benchuser
bench_user_key=BENCHUSERKEY000001
bench_user_secret=bench-user-secret-0123456789
echo "$bench_user $bench_user_key $bench_user_secret" >"$tmp/users.txt"

"$cubby" --data-dir "$tmp/data" --s3-address 127.0.0.1:0 --users-file "$tmp/users.txt" \
  >"$tmp/server.log" 2>&1 &
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

# The server's resident set now (VmRSS), MiB.
rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status" 2>/dev/null; }
# Waits until the server is settled after a fill: 3 s idle (its 2 s idle tick flushes the
# memtables), then until RocksDB reports no pending compaction (at most 120 s); says how long.
settle() {
  local start pending
  start=$(date +%s.%N)
  sleep 3
  for _ in $(seq 240); do
    pending=$(curl -s "$endpoint/_cubby/metrics" |
      awk '$1 == "cubby_rocksdb_pending_compaction_bytes" { print $2 }')
    [[ $pending == 0 ]] && break
    sleep 0.5
  done
  echo "# settled in $(elapsed "$start")s (pending compaction bytes: ${pending:-?})"
}
sleep 1  # start-up done (listening); let it settle before calling it idle
idle_rss_start=$(rss_mib)

commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown && -n $(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null) ]]; then
  commit+=" + uncommitted changes"
fi
echo "# cubby bench $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $commit"
echo "# host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
echo "# ${duration}s per cell, server ${endpoint}, data in ${tmp}${build_seconds:+, Release build took ${build_seconds}s}"
"$loadgen" --print-header

failed=0
: >"$tmp/cells.txt"
: >"$tmp/baselines.txt"  # "baseline NAME VALUE UNIT key=value..." lines
: >"$tmp/ceiling.txt"    # the loadgen's rows against the HTTP ceiling
cell() {  # label op size concurrency [loadgen args...]
  local label=$1 op=$2 size=$3 conc=$4 status=0
  shift 4
  local args=(--endpoint "$endpoint" --op "$op" --size "$size" --concurrency "$conc"
              --duration "$duration" --server-pid "$server_pid" --no-header --label "$label"
              --prefix "bench-${label//[^A-Za-z0-9-]/_}-c$conc" ${extra[@]+"${extra[@]}"} "$@")
  # --verify compares with the bytes this loadgen wrote: a cell reading keys another cell wrote
  # (--skip-prepare) cannot check them.
  [[ $op == get && " $* " != *" --skip-prepare "* ]] && args+=(${get_extra[@]+"${get_extra[@]}"})
  "$loadgen" "${args[@]}" >"$tmp/cell.out" 2>"$tmp/loadgen.err" || status=$?
  cat "$tmp/cell.out"
  cat "$tmp/cell.out" >>"$tmp/cells.txt"  # the targets below read cubby's rows from here
  if ((status != 0)); then
    failed=1
    # Exit 3: the line was printed with its error count; otherwise there is no line at all.
    ((status == 3)) || printf '%-7s %6s %6s  FAILED (exit %d)\n' "$label" "$size" "$conc" "$status"
    sed 's/^/# /' "$tmp/loadgen.err"
  fi
}

# A signed request by root with curl's SigV4; prints the HTTP status. `query` is given in the
# form curl signs ("versioning=" for a bare "versioning").
root_request() {  # method path-and-query body
  curl -s -o "$tmp/request.out" -w '%{http_code}' -X "$1" --data-binary "$3" \
    -H "x-amz-content-sha256: $(printf '%s' "$3" | sha256sum | cut -d' ' -f1)" \
    --aws-sigv4 "aws:amz:us-east-1:s3" --user "$CUBBY_ROOT_ACCESS_KEY:$CUBBY_ROOT_SECRET_KEY" \
    "$endpoint$2"
}

# PUT /bucket?policy, signed by root with curl's SigV4: 19 statements for other principals,
# actions or keys, then s3:GetObject for the bench user on every key.
put_bench_policy() {
  local bucket=$1 statements="" i
  for i in $(seq 1 19); do
    statements+="{\"Sid\":\"Other$i\",\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\"arn:aws:iam::000000000000:user/other$i\"},\"Action\":[\"s3:GetObject\",\"s3:PutObject\"],\"Resource\":\"arn:aws:s3:::$bucket/other$i/*\",\"Condition\":{\"IpAddress\":{\"aws:SourceIp\":\"10.$i.0.0/16\"}}},"
  done
  statements+="{\"Sid\":\"BenchUser\",\"Effect\":\"Allow\",\"Principal\":{\"AWS\":\"*\"},\"Action\":\"s3:GetObject\",\"Resource\":\"arn:aws:s3:::$bucket/*\",\"Condition\":{\"StringEquals\":{\"aws:username\":\"$bench_user\"}}}"
  local doc="{\"Version\":\"2012-10-17\",\"Statement\":[$statements]}"
  local code
  code=$(root_request PUT "/$bucket?policy=" "$doc")
  if [[ $code != 204 ]]; then
    failed=1
    echo "# PutBucketPolicy for the access-control cells: HTTP $code $(cat "$tmp/request.out")"
  fi
}

# Creates bucket $1 with versioning Enabled.
versioned_bucket() {
  local code
  code=$(root_request PUT "/$1" "")
  [[ $code == 200 ]] && code=$(root_request PUT "/$1?versioning=" \
    '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>')
  if [[ $code != 200 ]]; then
    failed=1
    echo "# versioned bucket $1: HTTP $code $(cat "$tmp/request.out")"
  fi
}

# ---- Baselines: the ceilings cubby's rows are divided by, each measured on this machine just
# before the cells it bounds (cubby idle meanwhile), so that both see the same contention: on a
# shared box a synced write's latency alone can swing twentyfold within minutes. Printed in
# their own section after the cells.
bl_duration=$(awk -v d="$duration" 'BEGIN { print (d < 3 ? d : 3) }')
baseline_run() {  # mode args...: appends "baseline NAME VALUE UNIT ..." lines
  ((baselines)) || return 0
  local status=0
  TMPDIR=$tmp "$baseline" "$@" >>"$tmp/baselines.txt" 2>"$tmp/baseline.err" || status=$?
  if ((status != 0)); then
    failed=1
    echo "# baseline $1 FAILED (exit $status)"
    sed 's/^/# /' "$tmp/baseline.err"
  fi
}
# HTTP ceiling: a minimal Beast server (thread per connection, blocking, like cubby's) that
# answers every request with 200 and a fixed $small body, driven by the same loadgen.
http_ceiling() {
  ((baselines)) || return 0
  "$baseline" http-server --size "$small" >"$tmp/http.out" 2>&1 &
  local http_pid=$! http_endpoint="" port conc status
  for _ in $(seq 100); do
    port=$(grep -o 'port=[0-9]*' "$tmp/http.out" | cut -d= -f2 || true)
    [[ -n $port ]] && { http_endpoint=http://127.0.0.1:$port; break; }
    kill -0 "$http_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z $http_endpoint ]]; then
    echo "# baseline http-server did not start:"; sed 's/^/# /' "$tmp/http.out"; failed=1
  else
    for conc in 1 "$high"; do
      status=0
      "$loadgen" --endpoint "$http_endpoint" --op get --size "$small" --concurrency "$conc" \
        --duration "$bl_duration" --server-pid "$http_pid" --no-header \
        --prefix "ceiling-c$conc" >"$tmp/http-cell.out" 2>"$tmp/loadgen.err" || status=$?
      cat "$tmp/http-cell.out" >>"$tmp/ceiling.txt"
      awk -v c="$conc" '{ print "baseline http_get_c" c " " $4 " ops/s p50_ms=" $6 }' \
        "$tmp/http-cell.out" >>"$tmp/baselines.txt"
      if ((status != 0)); then
        failed=1; echo "# HTTP ceiling c=$conc failed:"; sed 's/^/# /' "$tmp/loadgen.err"
      fi
    done
  fi
  kill -TERM "$http_pid" 2>/dev/null || true
  wait "$http_pid" 2>/dev/null || true
}

# A large PUT is bound by how fast the disk takes new data, so the cells and baselines that
# write large files each start from the same state: the data filesystem's dirty pages written
# back by syncfs(2) first, outside the timed window (a cell's note says how much was dirty and
# how long it took), and no freshly deleted files (see the disk baselines below).
drain_data_fs() {  # what (for the note; "" for none)
  ((drain)) || return 0
  local dirty start status=0
  dirty=$(awk '/^(Dirty|Writeback):/ { kb += $2 } END { printf "%.1f", kb / 1024 }' /proc/meminfo)
  start=$(date +%s.%N)
  sync -f "$tmp/data" || status=$?
  if ((status != 0)); then
    echo "# syncfs of the data filesystem failed (exit $status)"
    failed=1
  elif [[ -n $1 ]]; then
    echo "# before $1: syncfs of the data filesystem (not timed), ${dirty} MiB dirty or under writeback, $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')s"
  fi
}

half=$(awk -v d="$duration" 'BEGIN { print d / 2 }')  # alternating rounds: two halves a side
baseline_run rocksdb --threads "$high" --size "$small" --duration "$bl_duration"
cell put put "$small" 1
cell put put "$small" "$high"
# The same PUTs as browser-form uploads (POST Object: multipart/form-data, a signed policy).
cell post put "$small" "$high" --post-form
http_ceiling
cell get get "$small" 1
cell get get "$small" "$high"
# Encryption at rest (issue 16): the same GETs of SSE-S3 objects (the prepare phase PUTs them
# with x-amz-server-side-encryption: AES256; every answer must confirm it), beside the plain cell.
cell sse-get get "$small" "$high" --sse-s3
# Access control: root's GETs (whose prepare phase writes the keys), then the same keys read by
# a non-root user through a 20-statement bucket policy whose last statement is its only right;
# every other statement is evaluated and does not match.
policy_bucket=bench-policy
cell get-root get "$small" "$high" --bucket "$policy_bucket" --prefix bench-policy
put_bench_policy "$policy_bucket"
cell get-user get "$small" "$high" --bucket "$policy_bucket" --prefix bench-policy \
  --skip-prepare --access-key "$bench_user_key" --secret-key "$bench_user_secret"
baseline_run hash
# Single-core AES-256-GCM in crypt/'s segments (raw EVP, SealWriter, OpenReader): the ceiling
# the SSE-S3 cells of issue 16 will be compared with.
baseline_run aes-gcm
# The disk baselines write beside the data folder (same filesystem) as the store writes a
# large object: one file, best of three, a burst (the tries after the first reuse the blocks
# the one before freed, which this VM's disk takes far faster than new ones); then files back
# to back for as long as a PUT cell runs, the rate the disk sustains for new data, which is
# what bounds the PUT cells. Those files are kept until the end (removed with the temp
# folder), so the PUT cells after them write new blocks too, as each object does.
drain_data_fs ""
baseline_run disk --size "$large" --dir "$tmp"
drain_data_fs ""
baseline_run disk-sustained --size "$large" --duration "$duration" --dir "$tmp" --keep
drain_data_fs "put $large"
cell put put "$large" 1
# The same PUT with SSE-S3 (issue 16): sealed with AES-256-GCM on its way to the disk, against
# plain PUTs in alternating half cells (put-plain, sse-put, put-plain, sse-put) after one
# syncfs. This VM's disk writes new data at a fraction of its burst rate once a few hundred MiB
# went by (the disk baselines above), and back-to-back cells measured that, not the encryption:
# whichever of the two cells ran first was the faster one (an SSE cell first: 504 MiB/s, the
# plain one after it 425; the other way round 428 and 223).
drain_data_fs "sse-put $large"
for _ in 1 2; do
  cell put-plain put "$large" 1 --duration "$half"
  cell sse-put put "$large" 1 --sse-s3 --duration "$half"
done
# The server hashes a signed body twice (SHA-256 to check the signature, MD5 for the ETag).
drain_data_fs "put-sha $large"
cell put-sha put "$large" 1 --signed-payload
baseline_run loopback
cell get get "$large" 1
cell sse-get get "$large" 1 --sse-s3

# ---- Listing: a bucket of $list_objects objects, filled through the S3 API like any client
# would (empty bodies, many connections; the row's ops/s is the fill rate), then listed page
# by page, then written into next to an empty bucket at the same concurrency.
count_label() {  # 1000000 -> 1M, 5000 -> 5k, 2500 -> 2500
  local n=$1
  if ((n >= 1000000 && n % 1000000 == 0)); then echo "$((n / 1000000))M"
  elif ((n >= 1000 && n % 1000 == 0)); then echo "$((n / 1000))k"
  else echo "$n"; fi
}
list_label=$(count_label "$list_objects")
fill_seconds=""
if ((list_objects > 0)); then
  echo "# listing bucket: $list_objects empty objects PUT by $fill_concurrency connections (fill), then the cells in it"
  fill_start=$(date +%s.%N)
  # A fill counts its requests, not time: the listing below checks every full pass of the
  # bucket holds exactly $list_objects keys.
  cell fill put 0 "$fill_concurrency" --bucket bench-list --prefix obj \
    --keys "$list_objects" --requests "$list_objects"
  fill_seconds=$(elapsed "$fill_start")
  cell list list 0 1 --bucket bench-list --max-keys 1000 --keys "$list_objects"
  # c=$high: PUTs share WAL syncs there, so the rate is bound by the server's work per PUT, which
  # is where a large bucket would show (at c=1 each PUT waits for its own sync and hides it).
  # Two alternating rounds of half a cell each (full, empty, full, empty), so a burst of load
  # from elsewhere is less likely to land on one side only; the target takes the mean of each
  # side's rows. The full bucket goes first, closest to its fill: any compaction left behind
  # counts against it.
  for _ in 1 2; do
    cell "put@$list_label" put "$small" "$high" --bucket bench-list --duration "$half"
    cell put@0 put "$small" "$high" --bucket bench-empty --duration "$half"
  done
fi

# ---- Versions (issue 14): PUTs into a versioned bucket against PUTs into an unversioned one,
# in alternating half cells as above; then ListObjectVersions pages through a bucket of
# $version_objects versions (100 of each key, filled by PUTs like the listing bucket), and
# ListObjectsV2 pages through that bucket (each key: 1 current version, 99 noncurrent) against
# an unversioned bucket that got the same PUTs (each key overwritten 99 times, so both carry
# the same recent write history in RocksDB, whose iterators step over overwritten entries
# until compaction drops them), in alternating halves: the noncurrent versions must not slow
# a listing of current ones.
versioned_bucket bench-versioned
for _ in 1 2; do
  cell put-ver put "$small" "$high" --bucket bench-versioned --duration "$half"
  cell put-unv put "$small" "$high" --bucket bench-unversioned --duration "$half"
done

# Bucket quotas (issue 17): 4 KiB PUTs at c=$high into a bucket with a quota (1 TiB and 10^12
# objects: never reached, but every PUT checks it, before its body and again before its commit)
# against a bucket without one, in alternating half cells.
quota_bucket() {
  local code
  code=$(root_request PUT "/$1" "")
  [[ $code == 200 ]] && code=$(root_request PUT "/_cubby/quota?bucket=$1" \
    '{"bytes": 1099511627776, "objects": 1000000000000}')
  if [[ $code != 200 ]]; then
    failed=1
    echo "# quota bucket $1: HTTP $code $(cat "$tmp/request.out")"
  fi
}
quota_bucket bench-quota
for _ in 1 2; do
  cell put-quota put "$small" "$high" --bucket bench-quota --duration "$half"
  cell put-noquota put "$small" "$high" --bucket bench-noquota --duration "$half"
done
if ((version_objects > 0)); then
  version_keys=$((version_objects / 100 > 0 ? version_objects / 100 : 1))
  versioned_bucket bench-versions
  echo "# versions bucket: $version_objects empty versions of $version_keys keys PUT by $fill_concurrency connections (vfill); the same PUTs into the unversioned bench-flat (ffill)"
  cell vfill put 0 "$fill_concurrency" --bucket bench-versions --prefix ver \
    --keys "$version_keys" --requests "$version_objects"
  cell versions versions 0 1 --bucket bench-versions --max-keys 1000 --keys "$version_objects"
  cell ffill put 0 "$fill_concurrency" --bucket bench-flat --prefix ver \
    --keys "$version_keys" --requests "$version_objects"
  # Both buckets start from the same settled engine: the idle flush of memtables, then no
  # compaction pending. A list pass checks it saw exactly $version_keys keys: no noncurrent
  # version leaks in.
  settle
  for _ in 1 2; do
    cell list-nc list 0 1 --bucket bench-versions --max-keys 1000 --keys "$version_keys" \
      --duration "$half"
    cell list-flat list 0 1 --bucket bench-flat --max-keys 1000 --keys "$version_keys" \
      --duration "$half"
  done
fi

# Idle: the server returns freed heap once a 2 s tick passes without a finished request, so
# after at most 4 s; 6 s leaves a margin.
sleep 6
idle_rss_end=$(rss_mib)
echo "# server idle RSS (VmRSS): ${idle_rss_start:-?} MiB after start-up, ${idle_rss_end:-?} MiB after the cells${fill_seconds:+; fill took ${fill_seconds}s}"

if ! stop_server; then
  echo "# cubby did not exit cleanly after SIGTERM; last log lines:"
  tail -5 "$tmp/server.log" | sed 's/^/# /'
  failed=1
fi

if ((baselines)); then
  echo "# baselines (same run, same machine, each just before its cells)"
  awk '$1 == "baseline" && $2 !~ /^http_get/ {
         printf "%-26s %12s %-6s", $2, $3, $4; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }' \
    "$tmp/baselines.txt"
  echo "# HTTP ceiling: minimal Beast server, fixed $small body for every GET (loadgen rows)"
  cat "$tmp/ceiling.txt"
fi

# ---- Targets (issue 5): each a ratio to a ceiling above, or an absolute bound, from this run,
# with PASS or MISS; "n/a" when its row or baseline is missing (a failed cell, --no-baselines).
# Then ratios without a target, for context.
echo "# targets (issue 5; same run)"
awk -v small="$small" -v high="$high" -v large="$large" -v full="put@$list_label" \
    -v listing=$((list_objects > 0)) -v versions=$((version_objects > 0)) \
    -v version_count="$version_objects" -v idle_start="$idle_rss_start" -v idle_end="$idle_rss_end" '
  FILENAME == ARGV[1] { if ($1 == "baseline") { v[$2] = $3; for (i = 5; i <= NF; i++) {
                          split($i, kv, "="); v[$2 "." kv[1]] = kv[2] } } next }
  { key = $1 " " $2 " " $3  # rows of one key (the alternating rounds) give their mean ops/s
    rounds[key]++; ops_sum[key] += $4; ops[key] = ops_sum[key] / rounds[key]
    mib[key] = $5; p50[key] = $6; ttfb[key] = $8
    if ($12 ~ /^[0-9.]+$/ && (peak == "" || $12 + 0 > peak + 0)) peak = $12 }
  function num(x) { return x ~ /^[0-9.]+$/ }
  function quotient(a, b) { return num(a) && num(b) && b + 0 > 0 ? a / b : "" }
  # A target line: label, value ("" if unknown), comparison, bound, digits shown.
  function target(label, value, cmp, bound, digits,   ok, shown, word) {
    if (value == "") { shown = "-"; word = "n/a" } else {
      shown = sprintf("%." digits "f", value)
      ok = cmp == ">=" ? value + 0 >= bound + 0 : cmp == "<=" ? value + 0 <= bound + 0 \
                       : value + 0 < bound + 0
      word = ok ? "PASS" : "MISS"
    }
    printf "%-54s = %8s  target %-2s %-5s %s\n", label, shown, cmp, bound, word
  }
  function info(label, value) { if (value != "") printf "%-54s = %8.3f\n", label, value }
  END {
    rc = "rocksdb_sync_put_c"
    small_hi = " " small " " high; small_1 = " " small " 1"; big = " " large " 1"
    target(small " GET c=" high " / HTTP ceiling c=" high,
           quotient(ops["get" small_hi], v["http_get_c" high]), ">=", "0.6", 3)
    target(small " PUT c=" high " / raw synced RocksDB put c=" high,
           quotient(ops["put" small_hi], v[rc high]), ">=", "1.0", 3)
    target(small " PUT c=1 p50 / raw synced RocksDB put p50",
           quotient(p50["put" small_1], v[rc "1.p50_ms"]), "<=", "1.5", 3)
    target(large " GET / loopback TCP", quotient(mib["get" big], v["loopback_tcp"]), ">=", "0.75", 3)
    target(large " GET time to first byte p50, ms", num(ttfb["get" big]) ? ttfb["get" big] : "",
           "<", "2", 3)
    target(large " PUT / single-core MD5", quotient(mib["put" big], v["hash_md5"]), ">=", "0.8", 3)
    target(large " PUT, signed payload / single-core MD5",
           quotient(mib["put-sha" big], v["hash_md5"]), ">=", "0.8", 3)
    # Encryption at rest (issue 16): each SSE-S3 cell at least 0.85x its plain cell.
    target(large " PUT, SSE-S3 / plain", quotient(ops["sse-put" big], ops["put-plain" big]),
           ">=", "0.85", 3)
    target(large " GET, SSE-S3 / plain", quotient(mib["sse-get" big], mib["get" big]),
           ">=", "0.85", 3)
    target(small " GET c=" high ", SSE-S3 / plain",
           quotient(ops["sse-get" small_hi], ops["get" small_hi]), ">=", "0.85", 3)
    # Access control (issue 13): GET by a user through a 20-statement policy, at most 10% slower.
    target(small " GET c=" high ", user via 20-statement policy / root",
           quotient(ops["get-user" small_hi], ops["get-root" small_hi]), ">=", "0.9", 3)
    if (listing) {
      lk = "list 1000 1"
      target("ListObjectsV2 1000-key page p50, ms (" substr(full, 5) " objects)",
             num(p50[lk]) ? p50[lk] : "", "<", "10", 3)
      target(small " PUT c=" high ", " substr(full, 5) "-object bucket / empty bucket",
             quotient(ops[full small_hi], ops["put@0" small_hi]), ">=", "0.8", 3)
    }
    # Versions (issue 14).
    target(small " PUT c=" high ", versioned bucket / unversioned",
           quotient(ops["put-ver" small_hi], ops["put-unv" small_hi]), ">=", "0.9", 3)
    # Bucket quotas (issue 17): a PUT into a bucket with a quota, at most 10% slower.
    target(small " PUT c=" high ", bucket with a quota / without",
           quotient(ops["put-quota" small_hi], ops["put-noquota" small_hi]), ">=", "0.9", 3)
    if (versions) {
      vk = "versions 1000 1"
      target("ListObjectVersions 1000-entry page p50, ms (" version_count " versions)",
             num(p50[vk]) ? p50[vk] : "", "<", "15", 3)
      # "As fast": pages a second within 10% of the same keys without noncurrent versions.
      target("ListObjectsV2 page, 99 noncurrent versions a key / none",
             quotient(ops["list-nc 1000 1"], ops["list-flat 1000 1"]), ">=", "0.9", 3)
    }
    target("server peak RSS, max over the cells, MiB", peak, "<", "256", 1)
    target("server idle RSS after start-up, MiB", num(idle_start) ? idle_start : "", "<", "64", 1)
    target("server idle RSS after the cells, MiB", num(idle_end) ? idle_end : "", "<", "64", 1)
    print "# other ratios (no target)"
    info(small " PUT c=1 / raw synced RocksDB put c=1", quotient(ops["put" small_1], v[rc 1]))
    info(small " GET c=1 / HTTP ceiling c=1", quotient(ops["get" small_1], v["http_get_c1"]))
    info(large " PUT / loopback TCP", quotient(mib["put" big], v["loopback_tcp"]))
    info(large " PUT, SSE-S3 / single-core SealWriter",
         quotient(mib["sse-put" big], v["aes_gcm_sealwriter"]))
    info(large " GET, SSE-S3 / single-core OpenReader",
         quotient(mib["sse-get" big], v["aes_gcm_openreader"]))
    # A durable PUT cannot be faster than the disk sustains synced files of its size; on this
    # VM that rate is below single-core MD5, so it is what bounds the two PUT targets.
    info(large " PUT / sustained disk write", quotient(mib["put" big], v["disk_write_sustained"]))
    info(large " PUT, signed payload / sustained disk write",
         quotient(mib["put-sha" big], v["disk_write_sustained"]))
    info(large " PUT, signed payload / single-core SHA-256",
         quotient(mib["put-sha" big], v["hash_sha256"]))
  }' "$tmp/baselines.txt" "$tmp/cells.txt"
echo "# whole run: $(elapsed "$run_start")s${build_seconds:+ (build ${build_seconds}s)}"
exit "$failed"
