#!/usr/bin/env bash
# Installs the Debian 12 packages cubby needs to build and test. Safe to run twice:
# it only calls apt-get when something is missing.
set -euo pipefail

build_pkgs=(build-essential cmake pkg-config libboost1.81-dev libgrpc++-dev libprotobuf-dev
  protobuf-compiler protobuf-compiler-grpc librocksdb-dev libssl-dev libgtest-dev)
test_pkgs=(python3-boto3 awscli python3-grpcio python3-pytest)

want=("${build_pkgs[@]}")
if [[ "${1:-}" == "--test" ]]; then want+=("${test_pkgs[@]}"); fi

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
