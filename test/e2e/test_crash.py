"""SIGKILL under a mixed load, round after round on one data folder.

Each round starts the real binary on the same data folder, checks everything earlier rounds left
against a model of what was acknowledged, runs a mixed load from several threads (small, chunked
and file-backed PUTs, overwrites, deletes, CopyObject, multipart uploads completed, left open and
aborted) and SIGKILLs the server at a random moment. The seed is printed; CUBBY_CRASH_SEED=<n>
repeats a run's choices (thread timing still varies).

The model is exact because each thread owns its keys and runs one request at a time: a thread's
keys and uploads are in the state its acknowledged requests left, except for the one request it
had in flight at the kill, which may or may not have happened. A few shared keys are PUT by every
thread; there a survivor may be any version not superseded by an acknowledged PUT that started
after it was acknowledged. Every body is generated from a body id written at its start, so what
is read back is compared byte for byte with what was sent. After each restart:
  * every key is in a state the model allows, with exact bytes, size and ETag (GET, HEAD and the
    listing agree); nothing half-written or mixed;
  * ListMultipartUploads and ListParts show exactly the acknowledged uploads and parts (plus the
    one in flight, whole or absent); a CompleteMultipartUpload happened entirely or not at all;
  * the blobs folder holds exactly one file per file-backed object or part that is still live:
    recovery sweeps what crashed writers and releases left behind, so nothing grows.
"""

import hashlib
import http.client
import os
import random
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import botocore.exceptions

import cubby_e2e
from cubby_e2e import S3_NS, make_client, raw_request

BUCKET = "crash"
ROUNDS = 20
WRITERS = 4
KEYS_PER_WRITER = 10
SHARED_KEYS = [f"shared-{i}" for i in range(3)]
MAX_OPEN_UPLOADS = 2          # per writer
KILL_AFTER = (0.3, 1.5)       # seconds of load before the SIGKILL, drawn per round
INLINE = 64 << 10             # storage's inline_limit
CHUNK = 1 << 20               # storage's chunk_size: larger objects and parts are blob files
MIN_PART = 5 << 20            # S3's smallest part but the last


# ---------------------------------------------------------------- bodies and versions

def body_of(body_id, size):
    seed = hashlib.sha256(f"crash-body-{body_id}".encode()).digest()
    return (f"b{body_id}|".encode() + seed * (size // len(seed) + 1))[:size]


def describe(data):
    head = data[:24].split(b"|", 1)[0]
    return f"{len(data)} bytes starting {head!r}"


class Version:
    """One object version the test wrote: its bytes are body_of(body_id, size)."""
    __slots__ = ("vid", "body_id", "parts", "multipart")

    def __init__(self, vid, body_id, parts, multipart):
        self.vid, self.body_id, self.parts, self.multipart = vid, body_id, parts, multipart

    @property
    def size(self):
        return sum(self.parts)

    def body(self):
        return body_of(self.body_id, self.size)

    def part_bodies(self):
        data, out, at = self.body(), [], 0
        for p in self.parts:
            out.append(data[at:at + p])
            at += p
        return out

    def etag(self):
        if not self.multipart:
            return hashlib.md5(self.body()).hexdigest()
        digests = b"".join(hashlib.md5(p).digest() for p in self.part_bodies())
        return f"{hashlib.md5(digests).hexdigest()}-{len(self.parts)}"

    def blob_files(self):
        """How many blob files storage keeps for this version (one per part over a chunk)."""
        return sum(1 for p in self.parts if p > CHUNK)


class Upload:
    __slots__ = ("uid", "key", "version", "acked")

    def __init__(self, uid, key, version):
        self.uid, self.key, self.version = uid, key, version
        self.acked = {}  # part number -> etag (no quotes)


class Pending:
    """A writer's request in flight: it may or may not have happened."""
    __slots__ = ("kind", "key", "version", "upload", "part")

    def __init__(self, kind, key, version=None, upload=None, part=0):
        self.kind, self.key, self.version, self.upload, self.part = kind, key, version, upload, part


class Attempt:
    __slots__ = ("version", "start", "end", "acked")

    def __init__(self, version, start):
        self.version, self.start, self.end, self.acked = version, start, None, False


class Model:
    """What the server must hold. Writers change only their own keys and uploads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next_id = 0
        self.state = {}      # key -> Version or None
        self.uploads = {}    # upload id -> Upload
        self.attempts = {k: [] for k in SHARED_KEYS}  # this round's PUTs of shared keys

    def new_version(self, parts, multipart=False, body_id=None):
        with self.lock:
            self.next_id += 1
            vid = self.next_id
        return Version(vid, vid if body_id is None else body_id, tuple(parts), multipart)


# ---------------------------------------------------------------- requests

class Unacked(Exception):
    """The request got no answer (the server died): it may or may not have happened."""


def _request(srv, method, key, query="", body=b"", headers=None):
    try:
        return raw_request(srv, method, f"/{BUCKET}/{urllib.parse.quote(key)}", query=query,
                           body=body, headers=headers, timeout=30)
    except (OSError, http.client.HTTPException) as e:
        raise Unacked(f"{method} {key}?{query}: {e!r}") from e


def _xml_child(resp, root_tag, child):
    root = ET.fromstring(resp.body)
    if root.tag != S3_NS + root_tag:
        return None
    return root.findtext(S3_NS + child)


class Writer:
    """One thread's share of the load: sequential requests on its own keys and uploads."""

    def __init__(self, wid, model, rng, counts):
        self.wid, self.model, self.rng, self.counts = wid, model, rng, counts
        self.keys = [f"w{wid}/k{i:02d}" for i in range(KEYS_PER_WRITER)]
        self.pending = None  # the request in flight: a Pending
        self.error = None

    def my_uploads(self):
        with self.model.lock:  # other writers add and drop theirs meanwhile
            return [u for u in self.model.uploads.values() if u.key in self.keys]

    def set_upload(self, uid, upload):
        with self.model.lock:
            if upload is None:
                del self.model.uploads[uid]
            else:
                self.model.uploads[uid] = upload

    def run(self, srv, killed):
        try:
            while True:
                self.step(srv)
        except Unacked as e:
            if not killed.is_set():
                self.error = f"writer {self.wid}: connection failed before the kill: {e}"

    def expect(self, resp, status, what):
        if resp.status != status:
            raise AssertionError(f"{what}: status {resp.status} {resp.body[:300]!r}")

    def acked(self, kind):
        self.pending = None
        with self.model.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def step(self, srv):
        r = self.rng.random()
        key = self.rng.choice(self.keys)
        state = self.model.state
        if r < 0.08:
            self.put_shared(srv)
        elif r < 0.50:
            self.put(srv, key, self.rng.choice((
                lambda: self.rng.randint(32, INLINE),
                lambda: self.rng.randint(INLINE + 1, CHUNK),
                lambda: self.rng.randint(CHUNK + 1, CHUNK * 5 // 2)))())
        elif r < 0.62:
            self.pending = Pending("delete", key)
            self.expect(_request(srv, "DELETE", key), 204, f"DELETE {key}")
            state[key] = None
            self.acked("delete")
        elif r < 0.72:
            self.copy(srv, key, self.rng.choice(self.keys))
        else:
            self.multipart_step(srv, key)

    def put(self, srv, key, size):
        v = self.model.new_version([size])
        self.pending = Pending("put", key, version=v)
        resp = _request(srv, "PUT", key, body=v.body())
        self.expect(resp, 200, f"PUT {key}")
        assert resp.header("ETag") == f'"{v.etag()}"', f"PUT {key}: ETag {resp.header('ETag')}"
        self.model.state[key] = v
        self.acked("put>chunk" if size > CHUNK else "put>inline" if size > INLINE else "put")

    def put_shared(self, srv):
        key = self.rng.choice(SHARED_KEYS)
        v = self.model.new_version([self.rng.randint(32, CHUNK * 2)])
        attempt = Attempt(v, time.monotonic())
        with self.model.lock:
            self.model.attempts[key].append(attempt)
        resp = _request(srv, "PUT", key, body=v.body())
        attempt.end = time.monotonic()
        self.expect(resp, 200, f"PUT {key}")
        attempt.acked = True
        self.acked("put shared")

    def copy(self, srv, dst, src):
        source = self.model.state.get(src)
        if source is None or src == dst:
            return
        v = self.model.new_version([source.size], body_id=source.body_id)
        self.pending = Pending("copy", dst, version=v)
        resp = _request(srv, "PUT", dst, headers={"x-amz-copy-source": f"/{BUCKET}/{src}"})
        self.expect(resp, 200, f"copy {src} -> {dst}")
        # A copy can fail after its 200 (the error is then in the body).
        got = _xml_child(resp, "CopyObjectResult", "ETag")
        assert got == f'"{v.etag()}"', f"copy {src} -> {dst}: {resp.body[:300]!r}"
        self.model.state[dst] = v
        self.acked("copy")

    def multipart_step(self, srv, key):
        uploads = self.my_uploads()
        if len(uploads) < MAX_OPEN_UPLOADS and (not uploads or self.rng.random() < 0.3):
            self.create_upload(srv, key)
            return
        u = self.rng.choice(uploads)
        if self.rng.random() < 0.12:
            self.pending = Pending("abort", u.key, upload=u)
            self.expect(_request(srv, "DELETE", u.key, query=f"uploadId={u.uid}"), 204,
                        f"abort {u.key}")
            self.set_upload(u.uid, None)
            self.acked("abort upload")
        elif len(u.acked) < len(u.version.parts):
            self.upload_part(srv, u, len(u.acked) + 1)
        else:
            self.complete(srv, u)

    def create_upload(self, srv, key):
        parts = ([self.rng.randint(32, CHUNK * 2)] if self.rng.random() < 0.4 else
                 [MIN_PART, self.rng.randint(32, CHUNK * 3 // 2)])
        v = self.model.new_version(parts, multipart=True)
        self.pending = Pending("create", key, version=v)
        resp = _request(srv, "POST", key, query="uploads=")
        self.expect(resp, 200, f"create upload {key}")
        uid = _xml_child(resp, "InitiateMultipartUploadResult", "UploadId")
        assert uid, f"create upload {key}: {resp.body[:300]!r}"
        self.set_upload(uid, Upload(uid, key, v))
        self.acked("create upload")

    def upload_part(self, srv, u, n):
        data = u.version.part_bodies()[n - 1]
        self.pending = Pending("part", u.key, upload=u, part=n)
        resp = _request(srv, "PUT", u.key, query=f"partNumber={n}&uploadId={u.uid}", body=data)
        self.expect(resp, 200, f"part {n} of {u.key}")
        etag = hashlib.md5(data).hexdigest()
        assert resp.header("ETag") == f'"{etag}"', f"part {n}: ETag {resp.header('ETag')}"
        u.acked[n] = etag
        self.acked("upload part")

    def complete(self, srv, u):
        body = "<CompleteMultipartUpload>" + "".join(
            f"<Part><PartNumber>{n}</PartNumber><ETag>\"{e}\"</ETag></Part>"
            for n, e in sorted(u.acked.items())) + "</CompleteMultipartUpload>"
        self.pending = Pending("complete", u.key, version=u.version, upload=u)
        resp = _request(srv, "POST", u.key, query=f"uploadId={u.uid}", body=body.encode())
        self.expect(resp, 200, f"complete {u.key}")
        # CompleteMultipartUpload can fail after its 200 (the error is then in the body).
        got = _xml_child(resp, "CompleteMultipartUploadResult", "ETag")
        assert got == f'"{u.version.etag()}"', f"complete {u.key}: {resp.body[:300]!r}"
        self.set_upload(u.uid, None)
        self.model.state[u.key] = u.version
        self.acked("complete upload")


def _writer_thread(writer, srv, killed):
    try:
        writer.run(srv, killed)
    except Exception as e:  # noqa: BLE001 - any surprise (bad answer, bad XML) fails the test
        writer.error = f"writer {writer.wid}: {e!r}"


# ---------------------------------------------------------------- checks after a restart

class Checker:
    """Compares a restarted server with the model and then makes the model what it found."""

    def __init__(self, srv, model, writers, blobs_dir):
        self.srv, self.model, self.writers, self.blobs_dir = srv, model, writers, blobs_dir
        self.s3 = make_client(srv)
        self.problems = []

    def run(self):
        listed = {}
        pages = self.s3.get_paginator("list_objects_v2").paginate(
            Bucket=BUCKET, PaginationConfig={"PageSize": 17})
        for page in pages:
            for o in page.get("Contents", []):
                if o["Key"] in listed:
                    self.problems.append(f"{o['Key']}: listed twice")
                listed[o["Key"]] = o
        known = set(SHARED_KEYS).union(*(w.keys for w in self.writers))
        for key in listed:
            if key not in known and key not in self.model.state:
                self.problems.append(f"{key}: listed but never written")
        for w in self.writers:
            for key in w.keys:
                self.check_key(key, self.allowed_for(w, key), listed.get(key))
        for key in SHARED_KEYS:
            self.check_shared(key, listed.get(key))
        open_parts = self.check_uploads()
        self.check_blob_files(open_parts)
        return self.problems

    def allowed_for(self, writer, key):
        allowed = [self.model.state.get(key)]
        p = writer.pending
        if p is not None and p.key == key and p.kind in ("put", "copy", "delete", "complete"):
            allowed.append(p.version)
        return allowed

    def read(self, key, obj):
        """The object's bytes if GET, HEAD and the listing agree on them, else None."""
        try:
            got = self.s3.get_object(Bucket=BUCKET, Key=key)
            data = got["Body"].read()
            head = self.s3.head_object(Bucket=BUCKET, Key=key)
        except (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError) as e:
            self.problems.append(f"{key}: listed, but GET or HEAD fails: {e}")
            return None, None
        views = {(obj["Size"], obj["ETag"]), (got["ContentLength"], got["ETag"]),
                 (head["ContentLength"], head["ETag"])}
        if len(views) != 1 or got["ContentLength"] != len(data):
            self.problems.append(f"{key}: listing, GET and HEAD disagree: {views}, "
                                 f"{describe(data)}")
            return None, None
        return data, got["ETag"]

    def observe(self, key, obj, candidates):
        """The version among `candidates` that the key holds (None: absent), else a description
        of what it holds."""
        if obj is None:
            resp = _request(self.srv, "GET", key)
            if resp.status != 404:
                self.problems.append(f"{key}: not listed but GET answers {resp.status}")
            return None
        data, etag = self.read(key, obj)
        if data is None:
            return "an unreadable object"
        for v in candidates:
            if v is not None and etag == f'"{v.etag()}"' and data == v.body():
                return v
        return describe(data)

    def check_key(self, key, allowed, obj):
        found = self.observe(key, obj, allowed)
        if found is None and None not in allowed:
            self.problems.append(f"{key}: missing; allowed {self.names(allowed)}")
        elif isinstance(found, str):
            self.problems.append(f"{key}: holds {found}, allowed {self.names(allowed)} "
                                 f"(lost, torn or never written)")
        if not isinstance(found, str):
            self.model.state[key] = found

    @staticmethod
    def names(versions):
        return [None if v is None else f"v{v.vid}({v.size} bytes)" for v in versions]

    def check_shared(self, key, obj):
        prev = self.model.state.get(key)
        attempts = self.model.attempts[key]
        found = self.observe(key, obj, [prev] + [a.version for a in attempts])
        acked = [a for a in attempts if a.acked]
        if isinstance(found, str):
            self.problems.append(f"{key}: holds {found}, not a version written to it")
            return
        if found is prev and acked:
            self.problems.append(f"{key}: {'missing' if prev is None else 'holds the last round'}"
                                 f"; acknowledged {self.names(a.version for a in acked)} lost")
        elif found is not prev:
            a = next(a for a in attempts if a.version is found)
            lost = [w for w in acked if a.acked and w.start > a.end]
            if lost:
                self.problems.append(f"{key}: survivor v{found.vid} was acknowledged before "
                                     f"acknowledged {self.names(w.version for w in lost)} began")
        self.model.state[key] = found
        attempts.clear()

    def check_uploads(self):
        """Open uploads and their parts against the model; returns the part sizes found."""
        listed = {}
        for page in self.s3.get_paginator("list_multipart_uploads").paginate(Bucket=BUCKET):
            for u in page.get("Uploads", []):
                listed[u["UploadId"]] = u["Key"]
        pending = {}  # upload id or ("create", key) -> the owner's request in flight
        for w in self.writers:
            p = w.pending
            if p is not None and p.kind in ("create", "part", "complete", "abort"):
                pending[("create", p.key) if p.kind == "create" else p.upload.uid] = p
        sizes = []
        for uid, key in listed.items():
            if uid not in self.model.uploads:
                p = pending.pop(("create", key), None)
                if p is None:
                    self.problems.append(f"upload {uid} of {key}: listed but never acknowledged")
                    continue
                self.model.uploads[uid] = Upload(uid, key, p.version)  # the create happened
        for uid, u in list(self.model.uploads.items()):
            p = pending.get(uid)
            if uid not in listed:
                self.upload_gone(u, p)
                continue
            if p is not None and p.kind == "complete" and self.model.state.get(u.key) is u.version:
                self.problems.append(f"upload {uid} of {u.key}: completed object present, "
                                     "upload too")
            sizes += self.check_parts(u, p.part if p is not None and p.kind == "part" else None)
        return sizes

    def upload_gone(self, u, p):
        if p is None or p.kind not in ("complete", "abort"):
            self.problems.append(f"upload {u.uid} of {u.key}: acknowledged, missing after restart")
        elif p.kind == "complete" and self.model.state.get(u.key) is not u.version:
            self.problems.append(f"upload {u.uid} of {u.key}: gone, but the key does not hold the "
                                 f"completed object (half a CompleteMultipartUpload)")
        del self.model.uploads[u.uid]

    def check_parts(self, u, in_flight):
        """ListParts of `u` against its acknowledged parts and the part in flight, if any."""
        got = {}
        for page in self.s3.get_paginator("list_parts").paginate(
                Bucket=BUCKET, Key=u.key, UploadId=u.uid):
            for part in page.get("Parts", []):
                got[part["PartNumber"]] = (part["ETag"].strip('"'), part["Size"])
        want = {n: (e, u.version.parts[n - 1]) for n, e in u.acked.items()}
        if in_flight is not None and in_flight in got:
            data = u.version.part_bodies()[in_flight - 1]
            want[in_flight] = (hashlib.md5(data).hexdigest(), len(data))
        if got != want:
            self.problems.append(f"upload {u.uid} of {u.key}: parts {got}, acknowledged {want}")
        u.acked = {n: e for n, (e, _) in got.items()}
        return [size for _, size in got.values()]

    def check_blob_files(self, open_part_sizes):
        """The blobs folder holds one file per live file-backed object or part, nothing else."""
        files = [name for sub in os.listdir(self.blobs_dir)
                 for name in os.listdir(os.path.join(self.blobs_dir, sub))]
        want = sum(v.blob_files() for v in self.model.state.values() if v is not None)
        want += sum(1 for size in open_part_sizes if size > CHUNK)
        if len(files) != want:
            self.problems.append(f"blobs folder holds {len(files)} files, live objects and parts "
                                 f"need {want}: garbage left behind or data lost")



# ---------------------------------------------------------------- the test

def _load_and_kill(srv, model, rng, counts):
    """Runs the writers against `srv` and SIGKILLs it after a random time; returns the writers."""
    writers = [Writer(w, model, random.Random(rng.getrandbits(64)), counts)
               for w in range(WRITERS)]
    killed = threading.Event()
    threads = [threading.Thread(target=_writer_thread, args=(w, srv, killed), daemon=True)
               for w in writers]
    for t in threads:
        t.start()
    time.sleep(rng.uniform(*KILL_AFTER))  # the random moment of the kill, not a wait for a result
    killed.set()
    srv.kill()  # SIGKILL
    for t in threads:
        t.join(60)
        assert not t.is_alive(), "writer stuck after the server died"
    errors = [w.error for w in writers if w.error]
    assert not errors, "\n".join(errors)
    return writers


def test_sigkill_rounds_under_mixed_load(start_server, tmp_path):
    # conftest.py clears CUBBY_* from os.environ at load: read the seed from what it saved.
    seed = int(cubby_e2e.ORIGINAL_ENV.get("CUBBY_CRASH_SEED", random.randrange(1 << 32)))
    print(f"CUBBY_CRASH_SEED={seed}")
    rng = random.Random(seed)
    data_dir = tmp_path / "crashdata"
    data_dir.mkdir()
    blobs_dir = data_dir / "db" / "blobs"
    model, counts, writers, in_flight = Model(), {}, [], 0
    for rnd in range(ROUNDS + 1):
        srv = start_server(data_dir=data_dir)
        if rnd == 0:
            make_client(srv).create_bucket(Bucket=BUCKET)
        problems = Checker(srv, model, writers, blobs_dir).run()
        assert not problems, (f"after kill round {rnd} (CUBBY_CRASH_SEED={seed}):\n" +
                              "\n".join(problems))
        if rnd == ROUNDS:
            break
        writers = _load_and_kill(srv, model, rng, counts)
        in_flight += sum(w.pending is not None for w in writers)
    live = sum(v is not None for v in model.state.values())
    print(f"{ROUNDS} rounds, {in_flight} requests in flight at the kills, {live} objects and "
          f"{len(model.uploads)} open uploads at the end; acknowledged: {sorted(counts.items())}")
    # The load really was mixed, and kills hit requests in flight.
    for kind in ("put", "put>inline", "put>chunk", "put shared", "delete", "copy",
                 "create upload", "upload part", "complete upload", "abort upload"):
        assert counts.get(kind, 0) >= 3, f"only {counts.get(kind, 0)} {kind!r} acknowledged"
    assert in_flight >= ROUNDS, f"only {in_flight} requests in flight over {ROUNDS} kills"
    # The server left running is fully usable (the fixture stops it and wants exit code 0).
    s3 = make_client(srv)
    s3.put_object(Bucket=BUCKET, Key="after", Body=b"ok")
    assert s3.get_object(Bucket=BUCKET, Key="after")["Body"].read() == b"ok"
