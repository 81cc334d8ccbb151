#!/usr/bin/env bash
# The cubby binary's process contract: exit 2 with exactly one "cubby: ..." line on stderr for a
# bad configuration; --help/--version exit 0; a started server prints s3_endpoint=, answers HTTP,
# keeps the root secret out of its output, and exits 0 on SIGTERM.
set -uo pipefail
cubby=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cubby-cli.XXXXXX")
pid=
cleanup() {
  if [[ -n "$pid" ]]; then kill -KILL "$pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_config_error() {  # expected-substring, then the command's environment and arguments
  local want=$1; shift
  env "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [[ $rc -eq 2 ]] || fail "$* exited $rc, want 2"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "$*: want one stderr line, got: $(cat "$tmp/err")"
  grep -q "^cubby: .*$want" "$tmp/err" || fail "$*: stderr '$(cat "$tmp/err")' lacks '$want'"
  [[ ! -s "$tmp/out" ]] || fail "$*: wrote to stdout"
}

expect_config_error "unknown flag --bogus" "$cubby" --bogus
expect_config_error "missing value for --data-dir" "$cubby" --data-dir
expect_config_error "invalid log level" "$cubby" --log-level=loud
expect_config_error "CUBBY_REGION" CUBBY_REGION=UPPER "$cubby"
expect_config_error "both" CUBBY_ROOT_ACCESS_KEY=admin "$cubby"
expect_config_error "CUBBY_ROOT_SECRET_KEY" CUBBY_ROOT_ACCESS_KEY=admin \
  CUBBY_ROOT_SECRET_KEY=short "$cubby"

# Into a file, not a pipe: grep -q stops reading at its match, and a --help longer than the
# pipe's buffer would then die of SIGPIPE (a failure under pipefail).
"$cubby" --help >"$tmp/help" || fail "--help exited $?"
grep -q -- "--data-dir" "$tmp/help" || fail "--help lacks --data-dir"
"$cubby" --version | grep -q "^cubby " || fail "--version"

# A real start on port 0, then SIGTERM.
"$cubby" --data-dir "$tmp/data" --s3-address 127.0.0.1:0 >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  grep -q "msg=ready" "$tmp/log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
endpoint=$(grep -o 's3_endpoint=http://[^ ]*' "$tmp/log" | cut -d= -f2)
if [[ -z "$endpoint" ]]; then
  fail "no s3_endpoint line: $(cat "$tmp/log")"
else
  code=$(/usr/bin/python3 - "$endpoint" <<'PY'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1] + "/", timeout=10).status)
except urllib.error.HTTPError as e:
    print(e.code)
PY
)
  [[ "$code" == "403" ]] || fail "anonymous ListBuckets answered $code, want 403"
fi
[[ $(stat -c %a "$tmp/data/root-credentials") == 600 ]] || fail "root-credentials mode"
secret=$(sed -n 's/^aws_secret_access_key = //p' "$tmp/data/root-credentials")
[[ -n "$secret" ]] || fail "no secret in root-credentials"
grep -qF -- "$secret" "$tmp/log" && fail "the root secret appears in the log"
id=$(sed -n 's/^aws_access_key_id = //p' "$tmp/data/root-credentials")
grep -q "access_key_id=$id" "$tmp/log" || fail "start-up does not log the root key id"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[[ $rc -eq 0 ]] || fail "exit code after SIGTERM: $rc"
grep -q "msg=stopped" "$tmp/log" || fail "no stopped line"

# A second start reuses the key.
"$cubby" --data-dir "$tmp/data" --s3-address 127.0.0.1:0 >"$tmp/log2" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "msg=ready" "$tmp/log2" && break; sleep 0.1; done
grep -q "access_key_id=$id .*generated=false" "$tmp/log2" || fail "second start: $(cat "$tmp/log2")"
kill -TERM "$pid"; wait "$pid"; pid=

if ((failures)); then exit 1; fi
echo "cli_test: all passed"
