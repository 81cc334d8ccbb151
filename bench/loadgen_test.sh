#!/usr/bin/env bash
# Tests cubby-loadgen against bench/fake_s3.py, one case per line of the table below: the
# fake's mode, the loadgen's arguments, the exit status it must return, and a text its
# output (stdout + stderr) must contain. The fake checks every signature with botocore, so
# the "ok" cases also prove the SigV4 signing is right (query strings included); the
# --sign-time cases sign across midnight, so a signing key cached past its date fails them
# (each signed request advances the clock by the step; the bucket creation signs first).
# Arguments may hold several runs separated by " ; " against the same fake (e.g. fill, then
# list): every run but the last must exit 0, the last one is checked.
# usage: bench/loadgen_test.sh LOADGEN_BIN
set -uo pipefail
if (($# != 1)); then
  echo "usage: $0 LOADGEN_BIN" >&2
  exit 2
fi
loadgen=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loadgen-test.XXXXXX")
fake_pid=""
stop_fake() {
  if [[ -n $fake_pid ]]; then kill "$fake_pid" 2>/dev/null; wait "$fake_pid" 2>/dev/null; fi
  fake_pid=""
}
trap 'stop_fake; rm -rf "$tmp"' EXIT

export AWS_ACCESS_KEY_ID=AKIDLOADGENTEST
export AWS_SECRET_ACCESS_KEY=loadgen-test-secret
# A port nobody listens on: bind, note the port, close.
refused_port=$($python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# mode | loadgen arguments | exit status | expected text
cases=(
  "ok|--op put --size 4KiB --concurrency 3 --requests 30|0|put       4KiB      3"
  "ok|--op put --size 100000 --requests 5 --signed-payload|0|put     100000"
  "ok|--op put --size 0 --requests 3|0|put          0"
  "ok|--op put --size 4KiB --requests 10 --keys 2|0|put       4KiB"
  "ok|--op put --size 0 --requests 4 --label fill|0|fill         0      1"
  "ok|--op get --size 300KiB --concurrency 2 --requests 20 --keys 3 --verify|0|get     300KiB"
  "ok|--op mixed --size 4KiB --concurrency 2 --requests 40 --keys 4 --verify|0|m:get"
  "ok|--op get --size 4KiB --duration 0.3 --keys 2|0|get       4KiB      1"
  "ok|--op put --size 0 --requests 6 --sign-time 20261231T235958Z --sign-time-step 1|0|put          0      1"
  "ok|--op mixed --size 4KiB --concurrency 3 --requests 60 --keys 4 --verify --sign-time 20261121T235940Z --sign-time-step 1|0|m:put"
  "ok|--op put --size 0 --keys 25 --requests 25 ; --op list --max-keys 7 --keys 25 --requests 8 --sign-time 20261121T235958Z --sign-time-step 0.5|0|list         7      1"
  "chunked|--op get --size 70000 --requests 6 --keys 2 --verify|0|get      70000"
  "ok|--op put --size 4KiB --concurrency 2 --requests 6 --sse-s3|0|put       4KiB      2"
  "ok|--op get --size 70000 --requests 6 --keys 2 --verify --sse-s3|0|get      70000"
  "chunked|--op get --size 4KiB --requests 4 --keys 2 --sse-s3|0|get       4KiB"
  "nosse|--op put --size 4KiB --requests 2 --sse-s3|3|PUT answer without x-amz-server-side-encryption: AES256"
  "ok|--op put --size 4KiB --requests 2 --keys 1 ; --op get --size 4KiB --requests 2 --keys 1 --skip-prepare --sse-s3|3|GET answer without x-amz-server-side-encryption: AES256"
  "none|--sse-s3 --post-form|2|--sse-s3 and --post-form cannot be combined"
  "close|--op get --size 4KiB --concurrency 2 --requests 10 --keys 2 --verify|0|get       4KiB      2"
  "ok|--op put --size 0 --keys 25 --requests 25 ; --op list --max-keys 7 --keys 25 --requests 20|0|list         7      1"
  "ok|--op put --size 0 --keys 25 --requests 25 ; --op list --max-keys 7 --keys 25 --concurrency 3 --duration 0.3|0|list         7      3"
  "ok|--op put --size 0 --keys 25 --requests 25 ; --op list --max-keys 7 --keys 24 --requests 8|3|a full pass listed 25 keys, expected 24"
  "notoken|--op put --size 0 --keys 25 --requests 25 ; --op list --max-keys 7 --requests 3|3|truncated page without keys or NextContinuationToken"
  "ok|--op list --bucket other --requests 1 --secret-key wrong-secret|3|HTTP 403 SignatureDoesNotMatch"
  "corrupt|--op get --size 4KiB --requests 4 --keys 2 --verify|3|GET body differs"
  "short|--op get --size 4KiB --requests 2 --keys 1|3|body cut short"
  "ok|--op get --size 4KiB --requests 2 --keys 1 --skip-prepare --prefix none|3|HTTP 404 NoSuchKey"
  "ok|--op put --requests 1 --secret-key wrong-secret|1|HTTP 403 SignatureDoesNotMatch"
  "stall|--op put --requests 1 --timeout 0.5|1|recv: timed out"
  "none|--endpoint http://127.0.0.1:$refused_port --requests 1|1|Connection refused"
  "none|--endpoint https://127.0.0.1:1|2|endpoint must start with http://"
  "none|--size 4Q|2|--size: expected"
  "none|--op delete|2|--op must be"
  "none|--op list --max-keys 1001|2|--max-keys must be 1..1000"
  "none|--concurrency 0|2|--concurrency must be"
  "none|--bogus|2|unknown option --bogus"
  "none|--bucket a%b|2|--bucket and --prefix must be"
  "none|--sign-time 2026-11-21|2|--sign-time: expected"
)

passed=0
failed=0
for c in "${cases[@]}"; do
  IFS='|' read -r mode args want_status want_text <<<"$c"
  endpoint_args=()
  if [[ $mode != none ]]; then
    # Gone before the fake starts: the shell truncates it only in the child, so the loop
    # below could otherwise read the previous fake's (closed) endpoint.
    rm -f "$tmp/fake.out"
    $python "$here/fake_s3.py" "$mode" "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" \
      >"$tmp/fake.out" 2>"$tmp/fake.err" &
    fake_pid=$!
    endpoint=""
    for _ in $(seq 100); do
      endpoint=$(sed -n 's/^s3_endpoint=//p' "$tmp/fake.out" 2>/dev/null)
      [[ -n $endpoint ]] && break
      kill -0 "$fake_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [[ -z $endpoint ]]; then
      echo "FAIL [$mode] fake_s3.py did not start:"; cat "$tmp/fake.err"
      failed=$((failed + 1)); stop_fake; continue
    fi
    endpoint_args=(--endpoint "$endpoint")
  fi
  output=""
  status=0
  rest=$args
  while :; do
    run=${rest%% ; *}
    # shellcheck disable=SC2086  # the table's arguments are word-split on purpose
    output+=$("$loadgen" "${endpoint_args[@]}" $run 2>&1)$'\n'
    status=$?
    [[ $run == "$rest" ]] && break
    rest=${rest#* ; }
    ((status == 0)) || break
  done
  stop_fake
  if [[ $status == "$want_status" && $output == *"$want_text"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL [$mode] $args: exit $status (want $want_status), want text: $want_text"
    echo "$output" | sed 's/^/    /'
  fi
done
echo "loadgen_test: $passed passed, $failed failed"
((failed == 0))
