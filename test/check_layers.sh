#!/usr/bin/env bash
# Keeps the module map in ../shared/style.md true: each rule is "files under DIR must not
# include anything matching PATTERN". Prints every violation and fails if there is one.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

rules=(
  "text|boost/|grpc|rocksdb/|storage/|iam/|s3api/|cosi/|server/|proto/|bench/"
  "storage|boost/asio|boost/beast|grpc|iam/|s3api/|cosi/|server/|proto/"
  "iam|boost/asio|boost/beast|grpc|rocksdb/|s3api/|cosi/|server/|proto/"
  "s3api|boost/asio|grpc|rocksdb/|cosi/|server/|proto/"
  "cosi|s3api/|rocksdb/|boost/beast|boost/asio|server/"
  "proto|storage/|s3api/|cosi/|server/"
  "test/storage|s3api/|cosi/|server/"
  "lifecycle|boost/|grpc|rocksdb/|iam/|s3api/|cosi/|server/|proto/|bench/"
  "test/lifecycle|s3api/|cosi/|server/|iam/"
  "crypt|boost/|grpc|rocksdb/|storage/|iam/|s3api/|cosi/|server/|proto/|lifecycle/|bench/"
  "test/crypt|boost/|grpc|rocksdb/|storage/|iam/|s3api/|cosi/|server/|proto/|lifecycle/"
  "kms|s3api/|cosi/|server/|boost/|grpc|rocksdb/|proto/|iam/|lifecycle/|bench/"
)
# Nothing outside server/ includes server/ headers (tests of server code excepted).
fail=0
check() {  # dir, extended regex of forbidden include targets
  local dir=$1 pattern=$2
  [[ -d $dir ]] || return 0
  local hits
  hits=$(grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($pattern)" "$dir" \
           --include='*.h' --include='*.cc' --include='*.cpp' 2>/dev/null)
  if [[ -n $hits ]]; then
    echo "layering violation: $dir must not include ($pattern):"
    echo "$hits"
    fail=1
  fi
}
for r in "${rules[@]}"; do
  check "${r%%|*}" "${r#*|}"
done
for d in storage iam s3api cosi proto bench; do check "$d" "server/"; done
# fuzz/ may include the modules it fuzzes (server's wire code too); nothing includes fuzz/.
for d in text crypt storage iam s3api cosi proto server bench test; do check "$d" "fuzz/"; done
# crypt/ (the sealing engine and key material of encryption at rest) uses only text/; nothing
# below the layers that will call it (s3api, server, bench) includes it.
for d in text storage iam cosi proto lifecycle; do check "$d" "crypt/"; done
# lifecycle/ (rule evaluation, and the worker that applies rules to a Store) uses storage and
# text; only s3api (rule evaluation for x-amz-expiration) and server (runs the worker) use it.
for d in text storage iam cosi proto; do check "$d" "lifecycle/"; done
# kms/ (the built-in key store, issue 16) uses storage, crypt and text; only s3api (SSE-KMS and
# the KMS JSON API's door) and server (which builds it) use it.
for d in text storage iam crypt cosi proto lifecycle; do check "$d" "kms/"; done
# rocksdb is storage's alone (the benchmark may use it for its baseline).
for d in iam s3api cosi server proto lifecycle; do check "$d" "rocksdb/"; done

# storage/'s private headers (the RocksDB engine class, the records shared inside the folder)
# are storage/'s and its tests' alone: everyone else sees Store through store.h, so a second
# engine can sit behind it.
for d in text iam s3api cosi proto server bench fuzz kms test/*/; do
  d=${d%/}
  [[ $d == test/storage ]] && continue
  check "$d" "storage/store_impl\\.h|storage/[a-z_]*_internal\\.h"
done

# kms/key_store.h (KeyService's private parts, shared by its key store and its JSON API) is
# kms/'s alone.
for d in text crypt storage iam s3api cosi proto lifecycle server bench fuzz test; do
  check "$d" "kms/key_store\\.h"
done

# Authentication reads top to bottom: the entry point (auth.cc) hands a request to one scheme's
# file, and no file of s3api/auth includes the entry point's header back.
hits=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"s3api/auth/auth\.h"' \
         s3api/auth/*.h s3api/auth/*.cc 2>/dev/null | grep -v '^s3api/auth/auth\.cc$')
if [[ -n $hits ]]; then
  echo "layering violation: within s3api/auth only auth.cc includes auth.h:"
  echo "$hits"
  fail=1
fi

if ((fail)); then echo "0 passed, 1 failed"; exit 1; fi
echo "layering: module map holds"
