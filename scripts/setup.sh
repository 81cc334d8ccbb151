#!/usr/bin/env bash
# Installs the Debian 12 packages cubby needs to build and test. Safe to run twice:
# it only calls apt-get when something is missing.
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libboost1.81-dev libexpat1-dev libgrpc++-dev
  libprotobuf-dev protobuf-compiler protobuf-compiler-grpc librocksdb-dev libssl-dev libgtest-dev)
test_pkgs=(python3-boto3 awscli python3-grpcio python3-pytest python3-pytest-xdist rclone s3cmd
  openssl
  # test/e2e/browser.py: headless Chromium driven by selenium (the CORS browser tests).
  chromium chromium-driver python3-selenium python3-requests
  # fuzz/run.sh: clang 14 and its runtimes (libclang_rt.fuzzer, .asan, .ubsan).
  clang libclang-rt-14-dev)

want=("${build_pkgs[@]}")
if [[ "${1:-}" == "--test" ]]; then
  want+=("${test_pkgs[@]}")
  # The JS end-to-end test needs node and npm; an image that already has them (any source) keeps
  # them, otherwise Debian's packages are the starting point.
  if ! command -v node >/dev/null 2>&1; then want+=(nodejs); fi
  if ! command -v npm >/dev/null 2>&1; then want+=(npm); fi
fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The current @aws-sdk/client-s3 declares "engines": {"node": ">=20.0.0"}, and Debian 12's nodejs
# is 18. Then take node 22 from the npm registry (the `node` package ships the binary), installed
# under /usr/local so it comes before /usr/bin on PATH. Skipped once a node >= 20 is there.
if [[ "${1:-}" == "--test" ]]; then
  node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if ((node_major < 20)); then
    echo "setup: node ${node_major} is older than 20; installing node@22 from the npm registry"
    npm install -g --no-audit --no-fund node@22
    hash -r
    node --version
  fi
fi
