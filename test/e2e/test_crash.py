"""SIGKILL during concurrent PUTs, then restart on the same data dir.

Every body is derived from (key, version), so whatever is read back names the version it claims
to be and can be regenerated and compared byte for byte. Per key we record each attempt's start,
end and whether it was acknowledged (200). After the restart:
  * every listed object is exactly one attempted version of that key (no partial or mixed data),
    its listed size and ETag (md5) match its content;
  * every key with an acknowledged PUT exists;
  * no acknowledged write is lost: the surviving version v of a key is not one that finished
    (was acknowledged) before another acknowledged PUT of the same key even started;
  * keys that were only in flight are absent or whole.
"""

import hashlib
import http.client
import itertools
import random
import threading
import time

from botocore.awsrequest import AWSRequest

from cubby_e2e import make_client, send, sign_request

BUCKET = "crash"
WRITERS = 4
HOT_KEYS = [f"hot-{i}" for i in range(3)]
RUN_SECONDS = 2.0
MAX_SIZE = 2 << 20


def body_for(key, version):
    seed = hashlib.sha256(f"{key}|{version}".encode()).digest()
    size = 64 + int.from_bytes(seed[:4], "little") % MAX_SIZE
    head = f"{key}|{version}|".encode()
    fill = seed * (size // len(seed) + 1)
    return (head + fill)[:size]


def parse_version(key, data):
    parts = data.split(b"|", 2)
    assert len(parts) == 3 and parts[0] == key.encode(), f"{key}: unrecognisable body {data[:40]!r}"
    return int(parts[1])


class Attempt:
    __slots__ = ("version", "start", "end", "acked")

    def __init__(self, version, start):
        self.version = version
        self.start = start
        self.end = None
        self.acked = False


class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.attempts = {}     # key -> {version: Attempt}
        self.in_flight = 0
        self.versions = itertools.count(1)

    def begin(self, key):
        with self.lock:
            version = next(self.versions)
            a = Attempt(version, time.monotonic())
            self.attempts.setdefault(key, {})[version] = a
            self.in_flight += 1
            return a

    def finish(self, attempt, acked):
        with self.lock:
            attempt.end = time.monotonic()
            attempt.acked = acked
            self.in_flight -= 1


def _put(server, key, data):
    host = f"{server.host}:{server.port}"
    req = AWSRequest(method="PUT", url=f"http://{host}/{BUCKET}/{key}", data=data,
                     headers={"Host": host})
    sign_request(req, server.access_key, server.secret_key)
    return send(server, "PUT", f"/{BUCKET}/{key}", dict(req.headers.items()), data, timeout=30)


def _writer(server, ledger, wid, killed, stop, errors):
    rng = random.Random(wid)
    n = 0
    while not stop.is_set():
        if rng.random() < 0.5:
            key = f"new-{wid}-{n}"
            n += 1
        else:
            key = rng.choice(HOT_KEYS)
        attempt = ledger.begin(key)
        data = body_for(key, attempt.version)
        try:
            resp = _put(server, key, data)
        except (OSError, http.client.HTTPException):
            ledger.finish(attempt, acked=False)
            if killed.is_set():
                return
            errors.append(f"{key} v{attempt.version}: connection failed before the kill")
            return
        ok = resp.status == 200
        ledger.finish(attempt, acked=ok)
        if ok:
            want = '"' + hashlib.md5(data).hexdigest() + '"'
            if resp.header("ETag") != want:
                errors.append(f"{key} v{attempt.version}: ETag {resp.header('ETag')} != {want}")
        elif not killed.is_set():
            errors.append(f"{key} v{attempt.version}: status {resp.status} {resp.body[:200]!r}")


def test_sigkill_during_puts(start_server, tmp_path):
    data_dir = tmp_path / "crashdata"
    data_dir.mkdir()
    srv = start_server(data_dir=data_dir)
    make_client(srv).create_bucket(Bucket=BUCKET)

    ledger = Ledger()
    killed = threading.Event()
    stop = threading.Event()
    errors = []
    threads = [threading.Thread(target=_writer, args=(srv, ledger, w, killed, stop, errors),
                                daemon=True)
               for w in range(WRITERS)]
    for t in threads:
        t.start()

    time.sleep(RUN_SECONDS)  # let the workload run; the kill below waits for requests in flight
    deadline = time.monotonic() + 10
    in_flight_at_kill = 0
    while time.monotonic() < deadline:
        with ledger.lock:
            if ledger.in_flight >= 2:
                in_flight_at_kill = ledger.in_flight
                killed.set()
                srv.proc.kill()  # SIGKILL while the ledger still shows these requests open
                break
        time.sleep(0.001)
    killed.set()
    srv.kill()
    stop.set()
    for t in threads:
        t.join(60)
        assert not t.is_alive(), "writer stuck after the server died"

    assert not errors, errors
    assert in_flight_at_kill >= 1, "no request was in flight at the kill"
    acked_total = sum(a.acked for v in ledger.attempts.values() for a in v.values())
    assert acked_total >= 10, f"only {acked_total} PUTs acknowledged before the kill"

    attempted_total = sum(len(v) for v in ledger.attempts.values())
    print(f"attempted {attempted_total}, acknowledged {acked_total}, "
          f"in flight at kill {in_flight_at_kill}")

    srv2 = start_server(data_dir=data_dir)
    s3 = make_client(srv2)

    listed = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for o in page.get("Contents", []):
            assert o["Key"] not in listed
            listed[o["Key"]] = o

    problems = []
    survivors = {}
    for key, obj in listed.items():
        if key not in ledger.attempts:
            problems.append(f"{key}: listed but never written")
            continue
        got = s3.get_object(Bucket=BUCKET, Key=key)
        data = got["Body"].read()
        try:
            version = parse_version(key, data)
        except AssertionError as e:
            problems.append(str(e))
            continue
        if version not in ledger.attempts[key]:
            problems.append(f"{key}: version {version} was never sent for this key")
            continue
        if data != body_for(key, version):
            problems.append(f"{key}: v{version} content differs (partial or corrupt), "
                            f"{len(data)} bytes vs {len(body_for(key, version))}")
            continue
        etag = '"' + hashlib.md5(data).hexdigest() + '"'
        if obj["Size"] != len(data) or obj["ETag"] != etag or got["ETag"] != etag:
            problems.append(f"{key}: listing size/etag {obj['Size']}/{obj['ETag']}, "
                            f"GET etag {got['ETag']}, content {len(data)}/{etag}")
        head = s3.head_object(Bucket=BUCKET, Key=key)
        if head["ContentLength"] != len(data) or head["ETag"] != etag:
            problems.append(f"{key}: HEAD disagrees with content")
        survivors[key] = version

    for key, attempts in ledger.attempts.items():
        acked = [a for a in attempts.values() if a.acked]
        if not acked:
            continue  # only in flight or failed: absent or whole (checked above)
        if key not in survivors:
            problems.append(f"{key}: acknowledged v{[a.version for a in acked]} but missing")
            continue
        v = attempts[survivors[key]]
        if v.acked:
            lost = [w.version for w in acked if w.start > v.end]
            if lost:
                problems.append(f"{key}: survivor v{v.version} finished before acknowledged "
                                f"v{lost} started: acknowledged write lost")

    print(f"{len(survivors)} objects survived")
    assert not problems, "\n".join(problems)
    # The restarted server is fully usable.
    s3.put_object(Bucket=BUCKET, Key="after", Body=b"ok")
    assert s3.get_object(Bucket=BUCKET, Key="after")["Body"].read() == b"ok"
