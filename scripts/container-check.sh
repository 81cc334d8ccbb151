#!/usr/bin/env bash
# Builds the container image from the Dockerfile and checks that it runs, on a Debian 12 machine
# as root, without any image registry: the base images are made from Debian's package mirror.
#
#   1. installs docker.io, mmdebstrap and python3-boto3 with apt (only what is missing);
#   2. starts a private containerd and dockerd: state and sockets in a temp folder, no iptables,
#      no bridge (the containers use the host's network). A system docker or containerd, if any,
#      is never used or stopped (on a systemd machine, installing docker.io may start one);
#   3. builds the base image with mmdebstrap, made like Docker Hub's debian:bookworm-slim, and
#      tags it as both names the Dockerfile's FROM lines use; builds the Dockerfile;
#   4. runs the image on a free port and checks: the HEALTHCHECK turns "healthy", the server
#      process runs as uid/gid 10001, an S3 round trip with boto3 (create bucket, put, get,
#      compare), and `docker stop` ends it quickly with exit code 0 and a clean shutdown log;
#   5. prints the image size and the time each phase took.
# Always stops the daemon and removes its temp folder (trap), also on failure.
#
# Exit codes: 0 all checks passed, or SKIP (printed loudly) when a container engine cannot run
# here (not root, not Debian, the daemon does not start or cannot run a container); 1 a build or
# check failed. CUBBY_CONTAINER_REQUIRED=1 turns a SKIP into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly IMAGE=cubby:container-check
readonly DOCKER=/usr/bin/docker  # Debian's client, matching Debian's daemon (not another on PATH)
readonly UID_EXPECTED=10001
START=$SECONDS
TIMINGS=()

log() { echo "container-check: $*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}
skip() {
  echo "################################################################" >&2
  echo "## SKIP container check: $*" >&2
  echo "################################################################" >&2
  if [[ "${CUBBY_CONTAINER_REQUIRED:-0}" == 1 ]]; then
    die "skipped, but CUBBY_CONTAINER_REQUIRED=1"
  fi
  exit 0
}
# Runs "$@" and records how long it took under the name $1 (the rest is the command).
timed() {
  local name=$1 t0=$SECONDS
  shift
  "$@"
  TIMINGS+=("$name $((SECONDS - t0))s")
}

# --- 1. packages ------------------------------------------------------------------------------
install_packages() {
  local missing=() p
  for p in docker.io mmdebstrap python3-boto3; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  ((${#missing[@]})) || return 0
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null || die "apt-get install ${missing[*]}"
}

# --- 2. the private daemon --------------------------------------------------------------------
STATE=""
CONTAINER=""
CREATED_FIXED_PATHS=()  # paths outside the temp folder the daemons make, if this run made them
cleanup() {
  local rc=$?
  set +e
  if [[ -n "$CONTAINER" ]]; then
    if ((rc != 0)); then
      log "container log (last 30 lines):"
      "$DOCKER" logs --tail 30 "$CONTAINER" 2>&1 | sed 's/^/  | /' >&2
    fi
    "$DOCKER" rm -f -v "$CONTAINER" >/dev/null 2>&1
  fi
  if [[ -n "$STATE" ]]; then
    stop_pidfile "$STATE/docker.pid" dockerd
    stop_pidfile "$STATE/containerd.pid" containerd
    if ((rc != 0)) && [[ -s "$STATE/dockerd.log" ]]; then
      log "dockerd log (last 15 lines):"
      tail -n 15 "$STATE/dockerd.log" | sed 's/^/  | /' >&2
    fi
    if ((rc != 0)) && [[ -s "$STATE/containerd.log" ]]; then
      log "containerd log (last 5 lines):"
      tail -n 5 "$STATE/containerd.log" | sed 's/^/  | /' >&2
    fi
    # Unmount what the daemon left mounted below its folders (deepest first), then remove them
    # without crossing into any mount that remains.
    awk -v d="$STATE/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r |
      while read -r m; do umount -l "$m"; done
    rm -rf --one-file-system "$STATE"
    # Fixed paths the daemons make whatever their flags say: containerd's shim sockets in
    # /run/containerd/s (gone with the shims), dockerd's /run/docker/plugins and its identity key
    # /etc/docker/key.json. Removed if this run made them (folders only while empty).
    local path
    for path in "${CREATED_FIXED_PATHS[@]}"; do
      if [[ -d "$path" ]]; then find "$path" -depth -type d -empty -delete; else rm -f "$path"; fi
    done
  fi
  exit "$rc"
}

# Sends SIGTERM to the process in pid file $1, waits up to 20 s, then SIGKILL.
stop_pidfile() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid"
  for _ in $(seq 200); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "$2 did not stop within 20 s; killing it"
  kill -KILL "$pid"
}

# Our own containerd too: dockerd would otherwise share a system containerd if one runs (and its
# "moby" namespace with a system docker). Its config keeps every path in the temp folder.
start_containerd() {
  mkdir -p "$STATE/root/containerd" "$STATE/exec/containerd"
  printf '%s\n' 'version = 2' "root = \"$STATE/root/containerd\"" \
    "state = \"$STATE/exec/containerd\"" \
    'disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.internal.v1.opt"]' \
    '[grpc]' "address = \"$STATE/exec/containerd.sock\"" >"$STATE/containerd.toml"
  containerd --config "$STATE/containerd.toml" >"$STATE/containerd.log" 2>&1 &
  echo $! >"$STATE/containerd.pid"
  for _ in $(seq 300); do
    [[ -S "$STATE/exec/containerd.sock" ]] && return 0
    kill -0 "$(cat "$STATE/containerd.pid")" 2>/dev/null ||
      skip "containerd exited at start: $(tail -n 3 "$STATE/containerd.log")"
    sleep 0.1
  done
  skip "containerd did not listen within 30 s: $(tail -n 3 "$STATE/containerd.log")"
}

start_daemon() {
  local path
  for path in /run/containerd /run/docker /etc/docker/key.json; do
    if [[ ! -e "$path" ]]; then CREATED_FIXED_PATHS+=("$path"); fi
  done
  STATE=$(mktemp -d /tmp/cubby-docker.XXXXXX)
  export DOCKER_HOST="unix://$STATE/docker.sock"
  unset DOCKER_CONTEXT DOCKER_TLS_VERIFY DOCKER_CERT_PATH
  export DOCKER_CONFIG="$STATE/client"  # no client config (auths, contexts) from $HOME
  start_containerd
  echo '{}' >"$STATE/daemon.json"  # not /etc/docker/daemon.json, a system docker's settings
  /usr/sbin/dockerd --config-file "$STATE/daemon.json" --iptables=false --ip6tables=false \
    --bridge=none --data-root "$STATE/root" \
    --exec-root "$STATE/exec" --pidfile "$STATE/docker.pid" -H "$DOCKER_HOST" \
    --containerd "$STATE/exec/containerd.sock" >"$STATE/dockerd.log" 2>&1 &
  local pid=$!
  for _ in $(seq 300); do
    if "$DOCKER" info >/dev/null 2>&1; then return 0; fi
    kill -0 "$pid" 2>/dev/null || skip "dockerd exited at start: $(tail -n 3 "$STATE/dockerd.log")"
    sleep 0.1
  done
  skip "dockerd did not answer within 30 s: $(tail -n 3 "$STATE/dockerd.log")"
}

# --- 3. images --------------------------------------------------------------------------------
# The apt sources of this machine (so the base comes from the mirror apt already uses).
apt_sources() {
  if [[ -s /etc/apt/sources.list.d/debian.sources ]]; then
    echo /etc/apt/sources.list.d/debian.sources
  elif [[ -s /etc/apt/sources.list ]]; then
    echo /etc/apt/sources.list
  else
    echo "deb http://deb.debian.org/debian bookworm main"
  fi
}

# One base for both FROM names, made as Docker Hub's debian:bookworm-slim is: minbase; merged /usr
# set up by the hook (else the usrmerge package brings perl, about 45 MB); dpkg path excludes (no
# docs, man pages, locales) and the apt settings of its docker-clean file (no package caches or
# downloaded .debs left in a layer, about 80 MB). Both stay in the image, so the Dockerfile's own
# apt-get install honours them. The build stage does not miss the docs. (With docker-clean in
# place mmdebstrap's cleanup no longer finds apt's cache files, hence the explicit rm.)
build_base() {
  local clean='rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb'
  clean+=' /var/cache/apt/*.bin || true'
  printf '%s\n' "DPkg::Post-Invoke { \"$clean\"; };" "APT::Update::Post-Invoke { \"$clean\"; };" \
    'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' 'Acquire::Languages "none";' \
    >"$STATE/docker-clean"
  # shellcheck disable=SC2016  # "$1" in a hook is the chroot, expanded by mmdebstrap's shell
  mmdebstrap --quiet --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/groff/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt='path-exclude=/usr/share/linda/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --customize-hook="copy-in $STATE/docker-clean /etc/apt/apt.conf.d" \
    --customize-hook='rm -f "$1"/var/cache/apt/*.bin' \
    bookworm - "$(apt_sources)" 2>"$STATE/mmdebstrap.log" |
    "$DOCKER" import - debian:bookworm >/dev/null || {
    tail -n 20 "$STATE/mmdebstrap.log" | sed 's/^/  | /' >&2
    die "making the base image (mmdebstrap | docker import)"
  }
  "$DOCKER" tag debian:bookworm debian:bookworm-slim
  # Can this kernel and daemon run a container at all? If not, that is the machine, not cubby.
  local out
  out=$("$DOCKER" run --rm --network host debian:bookworm-slim true 2>&1) ||
    skip "the daemon cannot run a container here: $out"
}

build_image() {
  if ! "$DOCKER" build --network host -t "$IMAGE" . >"$STATE/build.log" 2>&1; then
    tail -n 40 "$STATE/build.log" | sed 's/^/  | /' >&2
    die "docker build"
  fi
}

# --- 4. run and check -------------------------------------------------------------------------
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

run_container() {
  PORT=$(free_port)
  # A root key made here, handed over in a private env file (not on a command line).
  (
    umask 077
    printf 'CUBBY_ROOT_ACCESS_KEY=%s\nCUBBY_ROOT_SECRET_KEY=%s\n' \
      "$(head -c 15 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 16)CHK" \
      "$(head -c 30 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')" >"$STATE/root.env"
  )
  # The Dockerfile's HEALTHCHECK command as it is, probed every second rather than every 15 s.
  CONTAINER=$("$DOCKER" run -d --network host --env-file "$STATE/root.env" \
    -e CUBBY_S3_ADDRESS="127.0.0.1:$PORT" --health-interval=1s "$IMAGE")
}

wait_healthy() {
  local status
  for _ in $(seq 60); do
    status=$("$DOCKER" inspect -f '{{.State.Status}} {{.State.Health.Status}}' "$CONTAINER")
    case "$status" in
      "running healthy") return 0 ;;
      "running unhealthy") break ;;
      running*) sleep 1 ;;
      *) die "the container is not running: $status" ;;
    esac
  done
  "$DOCKER" inspect -f '{{range .State.Health.Log}}{{.ExitCode}} {{.Output}}{{end}}' \
    "$CONTAINER" | tail -n 5 >&2
  die "health status is '$status', not healthy, after 60 s"
}

check_user() {
  local pid
  pid=$("$DOCKER" inspect -f '{{.State.Pid}}' "$CONTAINER")
  # The real ids of the server process as the host kernel sees them (no user namespace here).
  local uids gids
  uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
  gids=$(awk '/^Gid:/ {print $2, $3, $4, $5}' "/proc/$pid/status")
  local want="$UID_EXPECTED $UID_EXPECTED $UID_EXPECTED $UID_EXPECTED"
  [[ "$uids" == "$want" && "$gids" == "$want" ]] ||
    die "the server runs as uid '$uids' gid '$gids', expected $UID_EXPECTED"
  [[ "$(cat "/proc/$pid/comm")" == cubby ]] || die "pid $pid is not cubby"
}

s3_round_trip() {
  # The keys come from the env file, never echoed.
  set -a
  # shellcheck disable=SC1091
  . "$STATE/root.env"
  set +a
  ENDPOINT="http://127.0.0.1:$PORT" /usr/bin/python3 - <<'EOF' || die "S3 round trip"
import hashlib, os, boto3
from botocore.config import Config
s3 = boto3.client("s3", endpoint_url=os.environ["ENDPOINT"], region_name="us-east-1",
                  aws_access_key_id=os.environ["CUBBY_ROOT_ACCESS_KEY"],
                  aws_secret_access_key=os.environ["CUBBY_ROOT_SECRET_KEY"],
                  config=Config(retries={"max_attempts": 1}))
body = os.urandom(3 * 1024 * 1024 + 17)
s3.create_bucket(Bucket="container-check")
s3.put_object(Bucket="container-check", Key="dir/blob", Body=body)
got = s3.get_object(Bucket="container-check", Key="dir/blob")["Body"].read()
assert got == body, f"read back {len(got)} bytes that differ from the {len(body)} put"
keys = [o["Key"] for o in s3.list_objects_v2(Bucket="container-check").get("Contents", [])]
assert keys == ["dir/blob"], keys
print("container-check: S3 round trip ok:", len(body), "bytes, sha256",
      hashlib.sha256(got).hexdigest()[:16])
EOF
  unset CUBBY_ROOT_ACCESS_KEY CUBBY_ROOT_SECRET_KEY
}

check_stop() {
  local t0 elapsed code logs
  t0=$(date +%s%N)
  "$DOCKER" stop -t 40 "$CONTAINER" >/dev/null
  elapsed=$((($(date +%s%N) - t0) / 1000000))
  code=$("$DOCKER" inspect -f '{{.State.ExitCode}} {{.State.OOMKilled}}' "$CONTAINER")
  [[ "$code" == "0 false" ]] || die "docker stop: exit code/OOM '$code', expected '0 false'"
  # The grace period is for requests in flight; an idle server stops at once. Well under the
  # 40 s after which docker would have sent SIGKILL.
  ((elapsed < 10000)) || die "docker stop took ${elapsed} ms"
  logs=$("$DOCKER" logs "$CONTAINER" 2>&1)
  grep -q 'msg="shutting down" signal=SIGTERM' <<<"$logs" || die "no 'shutting down' on SIGTERM"
  [[ "$(tail -n 1 <<<"$logs")" == *"msg=stopped"* ]] || die "the last log line is not 'stopped'"
  if grep -q 'level=error' <<<"$logs"; then die "errors in the log"; fi
  if grep -qF "$(cut -d= -f2 <"$STATE/root.env" | tail -n 1)" <<<"$logs"; then
    die "the root secret key is in the log"
  fi
  log "docker stop: ${elapsed} ms, exit code 0, log ends with 'stopped'"
}

report() {
  local size base
  size=$("$DOCKER" image inspect -f '{{.Size}}' "$IMAGE")
  base=$("$DOCKER" image inspect -f '{{.Size}}' debian:bookworm-slim)
  log "image $IMAGE: $((size / 1000000)) MB (base debian:bookworm-slim $((base / 1000000)) MB," \
    "cubby and its libraries $(((size - base) / 1000000)) MB)"
  log "timings: ${TIMINGS[*]}; total $((SECONDS - START))s"
  log "PASSED"
}

main() {
  [[ $(id -u) -eq 0 ]] || skip "needs root to run a private dockerd (uid $(id -u))"
  if ! command -v apt-get >/dev/null || [[ ! -r /etc/debian_version ]]; then
    skip "not a Debian machine (no apt-get)"
  fi
  timed packages install_packages
  trap cleanup EXIT
  timed daemon start_daemon
  timed base build_base
  timed build build_image
  timed run run_container
  timed healthy wait_healthy
  check_user
  log "healthy; the server runs as uid/gid $UID_EXPECTED"
  timed s3 s3_round_trip
  timed stop check_stop
  report
}

main "$@"
