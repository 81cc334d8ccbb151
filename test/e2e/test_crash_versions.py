"""SIGKILL under a versioned load, round after round on one data folder (issue 14: "a crash at any
moment loses no acknowledged version or marker; deleting every version of every key gives the space
back").

Each round starts the real binary on the same data folder, checks everything earlier rounds left
against a model of what was acknowledged, runs a load from several threads on a versioned bucket
and SIGKILLs the server at a random moment. The bucket is Enabled, except for one round whose load
runs Suspended (null versions and null markers replace each other), and a few keys start with a
null version written before versioning was turned on. The seed is printed;
CUBBY_CRASH_VERSIONS_SEED=<n> repeats a run's choices (thread timing still varies).

The load: PUTs (inline, chunked over 64 KiB, file-backed over 1 MiB), DELETE without a version id
(a delete marker), DELETE by version id of a known version or marker (removing the newest marker
undeletes), DeleteObjects with version ids (and now and then a plain key: a marker), CopyObject
from an older version onto its key. Each thread owns its keys and runs one request at a time, so
the model is exact: per key, every version and marker newest first, with its id and its bytes.
The one request a thread had in flight at the kill happened entirely or not at all (per key, for
DeleteObjects); a write whose answer was lost made a version or marker whose id the test never saw,
so exactly one extra newest entry of the right kind and the right bytes is accepted and adopted.

After each restart:
  * GetBucketVersioning is the acknowledged state;
  * ListObjectVersions, paged with a small max-keys (key-marker / version-id-marker), lists exactly
    the model's entries in order (by key, each key's newest first), each once, with IsLatest on
    the newest only, and the size and ETag of each version;
  * GET by version id returns the exact bytes of every version and 405 for every marker; GET
    without a version id agrees with the newest entry (404 with x-amz-delete-marker when it is a
    marker, a plain 404 when the key has no entry);
  * ListObjectsV2 shows exactly the keys whose newest entry is a version, with its size and ETag;
  * the blobs folder holds exactly one file per live version over 1 MiB: recovery swept what the
    kill left behind.
At the end every version and marker of every key is deleted by id (DELETE ?versionId= and
DeleteObjects); ListObjectVersions is then empty, DeleteBucket succeeds, the blobs folder is empty,
and stays so across one more SIGKILL and restart.
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/DeletingObjectVersions.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectVersions.html
"""

import base64
import hashlib
import http.client
import os
import random
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import cubby_e2e
from cubby_e2e import S3_NS, make_client, raw_request

BUCKET = "crashver"
ROUNDS = 10
SUSPENDED_ROUND = 4          # this round's load runs with versioning Suspended
WRITERS = 4
KEYS_PER_WRITER = 6
NULL_KEYS = 2                # per writer: keys that start with a null version (written unversioned)
MAX_ENTRIES = 7              # a key with more entries gets deletes by version id
LIST_PAGE = 5                # ListObjectVersions max-keys: many pages, markers exercised
KILL_AFTER = (0.3, 1.5)      # seconds of load before the SIGKILL, drawn per round
INLINE = 64 << 10            # storage's inline_limit
CHUNK = 1 << 20              # storage's chunk_size: larger objects are blob files
NULL = "null"


# ---------------------------------------------------------------- bodies and the model

def body_of(body_id, size):
    seed = hashlib.sha256(f"crash-versions-body-{body_id}".encode()).digest()
    return (f"b{body_id}|".encode() + seed * (size // len(seed) + 1))[:size]


def describe(data):
    head = data[:24].split(b"|", 1)[0]
    return f"{len(data)} bytes starting {head!r}"


class Entry:
    """A version or delete marker of a key. vid None: written, but its id was never seen (the
    answer was lost at the kill); the checker adopts the id the server lists."""
    __slots__ = ("vid", "marker", "body_id", "size")

    def __init__(self, vid, marker, body_id=None, size=0):
        self.vid, self.marker, self.body_id, self.size = vid, marker, body_id, size

    def with_vid(self, vid):
        return Entry(vid, self.marker, self.body_id, self.size)

    def body(self):
        return body_of(self.body_id, self.size)

    def etag(self):
        return hashlib.md5(self.body()).hexdigest()

    def __repr__(self):
        vid = "?" if self.vid is None else self.vid[-8:] if self.vid != NULL else NULL
        return f"marker({vid})" if self.marker else f"v({vid},b{self.body_id},{self.size})"


class Model:
    """Per key, the entries newest first. Each writer changes only its own keys."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next_body = 0
        self.keys = {}             # key -> [Entry], newest first
        self.versioning = None     # "Enabled" / "Suspended" as acknowledged
        self.in_flight_happened = 0  # keys a request in flight at a kill changed

    def new_body_id(self):
        with self.lock:
            self.next_body += 1
            return self.next_body


def after_write(entries, new, suspended):
    """The key's entries after a write (PUT, copy, marker): in a suspended bucket the new entry
    is the null version and replaces the old one, wherever it is."""
    if suspended:
        entries = [e for e in entries if e.vid != NULL]
    return [new] + list(entries)


def after_delete(entries, vid):
    return [e for e in entries if e.vid != vid]


# ---------------------------------------------------------------- requests

class Unacked(Exception):
    """The request got no answer (the server died): it may or may not have happened."""


def _path(key):
    return f"/{BUCKET}/{urllib.parse.quote(key, safe='/')}"


def _vq(vid):
    return "versionId=" + urllib.parse.quote(vid, safe="")


def _request(srv, method, key, query="", body=b"", headers=None):
    try:
        return raw_request(srv, method, _path(key) if key is not None else f"/{BUCKET}",
                           query=query, body=body, headers=headers, timeout=30)
    except (OSError, http.client.HTTPException) as e:
        raise Unacked(f"{method} {key}?{query}: {e!r}") from e


def delete_objects_body(targets):
    """The DeleteObjects document for [(key, vid or None)] and its Content-MD5 header."""
    doc = "<Delete>" + "".join(
        f"<Object><Key>{k}</Key>" + (f"<VersionId>{v}</VersionId>" if v is not None else "") +
        "</Object>" for k, v in targets) + "</Delete>"
    body = doc.encode()
    return body, {"Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()}


def parse_delete_result(resp):
    """{(key, vid or None): (delete_marker, marker_vid)} of Deleted, and the Error elements."""
    root = ET.fromstring(resp.body)
    assert root.tag == S3_NS + "DeleteResult", resp.body[:300]
    deleted, errors = {}, []
    for d in root.findall(S3_NS + "Deleted"):
        deleted[(d.findtext(S3_NS + "Key"), d.findtext(S3_NS + "VersionId"))] = (
            d.findtext(S3_NS + "DeleteMarker") == "true",
            d.findtext(S3_NS + "DeleteMarkerVersionId"))
    for e in root.findall(S3_NS + "Error"):
        errors.append((e.findtext(S3_NS + "Key"), e.findtext(S3_NS + "VersionId"),
                       e.findtext(S3_NS + "Code")))
    return deleted, errors


class Writer:
    """One thread's share of the load: sequential requests on its own keys."""

    def __init__(self, wid, model, rng, counts, suspended):
        self.wid, self.model, self.rng, self.counts = wid, model, rng, counts
        self.suspended = suspended
        self.keys = keys_of(wid)
        self.pending = None  # the request in flight: {key: the key's entries if it happened}
        self.error = None

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

    def acked(self, kind, updates):
        for key, entries in updates.items():
            self.model.keys[key] = entries
        self.pending = None
        with self.model.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if self.suspended:
                self.counts["suspended"] = self.counts.get("suspended", 0) + 1

    def new_vid(self, resp, key, what, header="x-amz-version-id"):
        """The id a write answered, checked against the versioning state and the key's ids."""
        vid = resp.header(header)
        if self.suspended:
            assert vid in (None, NULL), f"{what}: suspended write answered {header} {vid!r}"
            return NULL
        known = {e.vid for e in self.model.keys[key]}
        assert vid and vid != NULL and vid not in known, f"{what}: {header} {vid!r}"
        return vid

    def step(self, srv):
        key = self.rng.choice(self.keys)
        entries = self.model.keys[key]
        r = self.rng.random()
        if len(entries) > MAX_ENTRIES:
            r = 0.60  # delete by version id
        if r < 0.38:
            self.put(srv, key)
        elif r < 0.50:
            self.delete_marker(srv, key)
        elif r < 0.68:
            self.delete_version(srv, key)
        elif r < 0.82:
            self.delete_objects(srv)
        else:
            self.copy(srv, key)

    def put(self, srv, key):
        size = self.rng.choice((
            lambda: self.rng.randint(0, INLINE),
            lambda: self.rng.randint(INLINE + 1, CHUNK),
            lambda: self.rng.randint(CHUNK + 1, CHUNK * 3 // 2)))()
        new = Entry(NULL if self.suspended else None, False, self.model.new_body_id(), size)
        after = after_write(self.model.keys[key], new, self.suspended)
        self.pending = {key: after}
        resp = _request(srv, "PUT", key, body=new.body())
        self.expect(resp, 200, f"PUT {key}")
        assert resp.header("ETag") == f'"{new.etag()}"', f"PUT {key}: ETag {resp.header('ETag')}"
        after[0] = new.with_vid(self.new_vid(resp, key, f"PUT {key}"))
        self.acked("put>chunk" if size > CHUNK else "put>inline" if size > INLINE else "put",
                   {key: after})

    def delete_marker(self, srv, key):
        new = Entry(NULL if self.suspended else None, True)
        after = after_write(self.model.keys[key], new, self.suspended)
        self.pending = {key: after}
        resp = _request(srv, "DELETE", key)
        self.expect(resp, 204, f"DELETE {key}")
        assert resp.header("x-amz-delete-marker") == "true", f"DELETE {key}: no marker header"
        after[0] = new.with_vid(self.new_vid(resp, key, f"DELETE {key}"))
        self.acked("delete (marker)", {key: after})

    def delete_version(self, srv, key):
        entries = self.model.keys[key]
        if not entries:
            return self.put(srv, key)
        victim = self.rng.choice(entries)
        after = after_delete(entries, victim.vid)
        self.pending = {key: after}
        resp = _request(srv, "DELETE", key, query=_vq(victim.vid))
        what = f"DELETE {key}?versionId={victim.vid} ({victim!r})"
        self.expect(resp, 204, what)
        assert resp.header("x-amz-version-id") == victim.vid, \
            f"{what}: x-amz-version-id {resp.header('x-amz-version-id')!r}"
        assert (resp.header("x-amz-delete-marker") == "true") == victim.marker, \
            f"{what}: x-amz-delete-marker {resp.header('x-amz-delete-marker')!r}"
        undelete = victim.marker and entries[0] is victim
        self.acked("undelete" if undelete else "delete marker by id" if victim.marker
                   else "delete version by id", {key: after})

    def delete_objects(self, srv):
        targets, updates = [], {}
        for key in self.rng.sample(self.keys, self.rng.randint(1, 3)):
            entries = self.model.keys[key]
            if entries and self.rng.random() < 0.8:
                victim = self.rng.choice(entries)
                targets.append((key, victim.vid, victim))
                updates[key] = after_delete(entries, victim.vid)
            else:
                new = Entry(NULL if self.suspended else None, True)
                targets.append((key, None, new))
                updates[key] = after_write(entries, new, self.suspended)
        self.pending = updates
        body, headers = delete_objects_body([(k, v) for k, v, _ in targets])
        resp = _request(srv, "POST", None, query="delete=", body=body, headers=headers)
        what = f"DeleteObjects {[(k, v) for k, v, _ in targets]}"
        self.expect(resp, 200, what)
        deleted, errors = parse_delete_result(resp)
        assert not errors and len(deleted) == len(targets), f"{what}: {resp.body[:600]!r}"
        for key, vid, entry in targets:
            assert (key, vid) in deleted, f"{what}: {key} {vid} not in {deleted}"
            is_marker, marker_vid = deleted[(key, vid)]
            assert is_marker == entry.marker, f"{what}: {key} {vid}: DeleteMarker {is_marker}"
            if vid is None:  # a new marker: its id is DeleteMarkerVersionId
                if self.suspended:
                    assert marker_vid == NULL, f"{what}: {key}: marker id {marker_vid!r}"
                else:
                    known = {e.vid for e in self.model.keys[key]}
                    assert marker_vid and marker_vid != NULL and marker_vid not in known, \
                        f"{what}: {key}: marker id {marker_vid!r}"
                updates[key][0] = entry.with_vid(marker_vid)
            elif entry.marker:
                assert marker_vid == vid, f"{what}: {key}: DeleteMarkerVersionId {marker_vid!r}"
        self.acked("delete objects", updates)

    def copy(self, srv, key):
        entries = self.model.keys[key]
        sources = [e for e in entries[1:] if not e.marker] or \
            [e for e in entries if not e.marker]
        if not sources:
            return self.put(srv, key)
        src = self.rng.choice(sources)
        new = Entry(NULL if self.suspended else None, False, src.body_id, src.size)
        after = after_write(entries, new, self.suspended)
        self.pending = {key: after}
        source = f"{_path(key)}?{_vq(src.vid)}"
        resp = _request(srv, "PUT", key, headers={"x-amz-copy-source": source})
        what = f"copy {key} {src!r} onto itself"
        self.expect(resp, 200, what)
        # A copy can fail after its 200 (the error is then in the body).
        root = ET.fromstring(resp.body)
        assert root.tag == S3_NS + "CopyObjectResult", f"{what}: {resp.body[:300]!r}"
        assert root.findtext(S3_NS + "ETag") == f'"{new.etag()}"', f"{what}: {resp.body[:300]!r}"
        assert resp.header("x-amz-copy-source-version-id") == src.vid, \
            f"{what}: x-amz-copy-source-version-id {resp.header('x-amz-copy-source-version-id')!r}"
        after[0] = new.with_vid(self.new_vid(resp, key, what))
        self.acked("copy>chunk" if src.size > CHUNK else "copy", {key: after})


def keys_of(wid):
    return [f"w{wid}/k{i:02d}" for i in range(KEYS_PER_WRITER)]


def _writer_thread(writer, srv, killed):
    try:
        writer.run(srv, killed)
    except Exception as e:  # noqa: BLE001 - any surprise (bad answer, bad XML) fails the test
        writer.error = f"writer {writer.wid}: {e!r}"


# ---------------------------------------------------------------- checks after a restart

class Listed:
    """One ListObjectVersions entry."""
    __slots__ = ("key", "vid", "marker", "latest", "size", "etag")

    def __init__(self, el):
        self.marker = el.tag == S3_NS + "DeleteMarker"
        self.key = el.findtext(S3_NS + "Key")
        self.vid = el.findtext(S3_NS + "VersionId")
        self.latest = el.findtext(S3_NS + "IsLatest")
        self.size = None if self.marker else int(el.findtext(S3_NS + "Size"))
        self.etag = None if self.marker else el.findtext(S3_NS + "ETag")

    def __repr__(self):
        return (f"marker({self.vid[-8:]})" if self.marker
                else f"v({self.vid[-8:]},{self.size},{self.etag[1:9]})")


def list_versions(srv, page_size, problems):
    """Every ListObjectVersions entry in document order, pages of `page_size` followed by their
    NextKeyMarker / NextVersionIdMarker."""
    out, query, pages = [], {}, 0
    while True:
        q = "&".join(f"{k}={urllib.parse.quote(v, safe='')}" for k, v in
                     sorted(dict(query, **{"versions": "", "max-keys": str(page_size)}).items()))
        resp = raw_request(srv, "GET", f"/{BUCKET}", query=q, timeout=30)
        assert resp.status == 200, f"ListObjectVersions {q}: {resp.status} {resp.body[:300]!r}"
        root = ET.fromstring(resp.body)
        entries = [Listed(el) for el in root
                   if el.tag in (S3_NS + "Version", S3_NS + "DeleteMarker")]
        if len(entries) > page_size:
            problems.append(f"ListObjectVersions page of {len(entries)} > max-keys {page_size}")
        out += entries
        pages += 1
        if root.findtext(S3_NS + "IsTruncated") != "true":
            return out
        if pages > 10000:
            raise AssertionError("ListObjectVersions does not end")
        query = {"key-marker": root.findtext(S3_NS + "NextKeyMarker") or ""}
        vm = root.findtext(S3_NS + "NextVersionIdMarker")
        if vm:
            query["version-id-marker"] = vm


def blob_files(blobs_dir):
    if not os.path.isdir(blobs_dir):
        return []
    return [os.path.join(sub, name) for sub in os.listdir(blobs_dir)
            for name in os.listdir(os.path.join(blobs_dir, sub))]


class Checker:
    """Compares a restarted server with the model and then makes the model what it found."""

    def __init__(self, srv, model, writers, blobs_dir):
        self.srv, self.model, self.writers, self.blobs_dir = srv, model, writers, blobs_dir
        self.s3 = make_client(srv)
        self.problems = []

    def run(self):
        got = self.s3.get_bucket_versioning(Bucket=BUCKET).get("Status")
        if got != self.model.versioning:
            self.problems.append(f"versioning {got!r}, acknowledged {self.model.versioning!r}")
        listed = list_versions(self.srv, LIST_PAGE, self.problems)
        by_key, order = {}, []
        for e in listed:
            if e.key not in by_key:
                order.append(e.key)
            by_key.setdefault(e.key, []).append(e)
        if order != sorted(order) or len(order) != len(by_key):
            self.problems.append(f"ListObjectVersions keys out of order: {order}")
        seen = set()
        for e in listed:
            if (e.key, e.vid) in seen:
                self.problems.append(f"{e.key} {e.vid}: listed twice")
            seen.add((e.key, e.vid))
        for key in by_key:
            if key not in self.model.keys:
                self.problems.append(f"{key}: listed but never written: {by_key[key]}")
        pending = {}
        for w in self.writers:
            if w.pending is not None:
                pending.update(w.pending)
        for key in sorted(self.model.keys):
            self.check_key(key, by_key.get(key, []), pending.get(key))
        self.check_current_listing()
        self.check_blob_files()
        return self.problems

    def match(self, candidate, listed):
        """The candidate with the listed ids adopted if `listed` is what it describes, else None."""
        if len(candidate) != len(listed):
            return None
        ids = {e.vid for e in candidate if e.vid is not None}
        out = []
        for want, got in zip(candidate, listed):
            if want.marker != got.marker:
                return None
            if want.vid is None:
                if got.vid in ids or got.vid == NULL:
                    return None
            elif want.vid != got.vid:
                return None
            if not want.marker and (got.size, got.etag) != (want.size, f'"{want.etag()}"'):
                return None
            out.append(want.with_vid(got.vid))
        return out

    def check_key(self, key, listed, in_flight):
        for i, e in enumerate(listed):
            if (e.latest == "true") != (i == 0):
                self.problems.append(f"{key}: entry {i} {e!r} has IsLatest {e.latest}")
        before = self.model.keys[key]
        candidates = [before] + ([in_flight] if in_flight is not None else [])
        found = None
        for i, c in enumerate(candidates):
            found = self.match(c, listed)
            if found is not None:
                self.model.in_flight_happened += i
                break
        if found is None:
            alt = "" if in_flight is None else f", or if the request in flight happened {in_flight}"
            self.problems.append(f"{key}: lists {listed}; acknowledged {before}{alt} (lost, torn "
                                 "or never written)")
            return
        self.model.keys[key] = found
        for e in found:
            self.check_read(key, e)
        self.check_latest(key, found[0] if found else None)

    def check_read(self, key, e):
        resp = _request(self.srv, "GET", key, query=_vq(e.vid))
        if e.marker:
            if resp.status != 405 or resp.header("x-amz-delete-marker") != "true":
                self.problems.append(f"{key}: GET of marker {e.vid}: {resp.status} "
                                     f"x-amz-delete-marker {resp.header('x-amz-delete-marker')}")
            return
        if resp.status != 200:
            self.problems.append(f"{key}: GET version {e.vid}: {resp.status} {resp.body[:200]!r}")
        elif resp.body != e.body() or resp.header("ETag") != f'"{e.etag()}"':
            self.problems.append(f"{key}: GET version {e.vid} ({e!r}) returns "
                                 f"{describe(resp.body)} ETag {resp.header('ETag')}")
        elif resp.header("x-amz-version-id") != e.vid:
            self.problems.append(f"{key}: GET version {e.vid}: x-amz-version-id "
                                 f"{resp.header('x-amz-version-id')!r}")

    def check_latest(self, key, newest):
        resp = _request(self.srv, "GET", key)
        if newest is None:
            if resp.status != 404 or resp.header("x-amz-delete-marker") is not None:
                self.problems.append(f"{key}: no entries, but GET answers {resp.status} "
                                     f"x-amz-delete-marker {resp.header('x-amz-delete-marker')}")
        elif newest.marker:
            if (resp.status, resp.header("x-amz-delete-marker"),
                    resp.header("x-amz-version-id")) != (404, "true", newest.vid):
                self.problems.append(
                    f"{key}: newest is marker {newest.vid}, GET answers {resp.status} "
                    f"x-amz-delete-marker {resp.header('x-amz-delete-marker')} "
                    f"x-amz-version-id {resp.header('x-amz-version-id')}")
        elif (resp.status != 200 or resp.body != newest.body() or
              resp.header("x-amz-version-id") != newest.vid):
            self.problems.append(f"{key}: newest is {newest!r}, GET answers {resp.status} "
                                 f"{describe(resp.body)} x-amz-version-id "
                                 f"{resp.header('x-amz-version-id')}")

    def check_current_listing(self):
        listed = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(
                Bucket=BUCKET, PaginationConfig={"PageSize": 9}):
            for o in page.get("Contents", []):
                if o["Key"] in listed:
                    self.problems.append(f"{o['Key']}: ListObjectsV2 lists it twice")
                listed[o["Key"]] = (o["Size"], o["ETag"])
        want = {k: (es[0].size, f'"{es[0].etag()}"') for k, es in self.model.keys.items()
                if es and not es[0].marker}
        if listed != want:
            extra = {k: v for k, v in listed.items() if want.get(k) != v}
            missing = {k: v for k, v in want.items() if listed.get(k) != v}
            self.problems.append(f"ListObjectsV2: lists {extra} that it should not, "
                                 f"misses {missing}")

    def check_blob_files(self):
        files = blob_files(self.blobs_dir)
        want = sum(1 for es in self.model.keys.values() for e in es
                   if not e.marker and e.size > CHUNK)
        if len(files) != want:
            self.problems.append(f"blobs folder holds {len(files)} files, live versions need "
                                 f"{want}: garbage left behind or data lost")


# ---------------------------------------------------------------- the test

def set_versioning(srv, model, status):
    make_client(srv).put_bucket_versioning(Bucket=BUCKET,
                                           VersioningConfiguration={"Status": status})
    model.versioning = status


def seed_bucket(srv, model):
    """The bucket, a null version on some keys written before versioning, then Enabled."""
    s3 = make_client(srv)
    s3.create_bucket(Bucket=BUCKET)
    for w in range(WRITERS):
        for i, key in enumerate(keys_of(w)):
            model.keys[key] = []
            if i < NULL_KEYS:
                e = Entry(NULL, False, model.new_body_id(), 100 + CHUNK * (i % 2))
                s3.put_object(Bucket=BUCKET, Key=key, Body=e.body())
                model.keys[key] = [e]
    set_versioning(srv, model, "Enabled")


def _load_and_kill(srv, model, rng, counts):
    """Runs the writers against `srv` and SIGKILLs it after a random time; returns the writers."""
    suspended = model.versioning == "Suspended"
    writers = [Writer(w, model, random.Random(rng.getrandbits(64)), counts, suspended)
               for w in range(WRITERS)]
    killed = threading.Event()
    threads = [threading.Thread(target=_writer_thread, args=(w, srv, killed), daemon=True)
               for w in writers]
    for t in threads:
        t.start()
    # The random moment of the kill, not a wait for a result; the one suspended round runs
    # long enough to write a good many null versions and markers.
    time.sleep(max(rng.uniform(*KILL_AFTER), 0.8 if suspended else 0))
    killed.set()
    srv.kill()  # SIGKILL
    for t in threads:
        t.join(60)
        assert not t.is_alive(), "writer stuck after the server died"
    errors = [w.error for w in writers if w.error]
    assert not errors, "\n".join(errors)
    return writers


def delete_everything(srv, model, rng):
    """Every version and marker of every key, by id: single DELETEs and DeleteObjects batches."""
    targets = [(k, e) for k in sorted(model.keys) for e in model.keys[k]]
    rng.shuffle(targets)
    while targets:
        if rng.random() < 0.5:
            key, e = targets.pop()
            resp = _request(srv, "DELETE", key, query=_vq(e.vid))
            assert resp.status == 204, f"DELETE {key} {e!r}: {resp.status} {resp.body[:300]!r}"
            continue
        batch = targets[:rng.randint(1, 12)]
        del targets[:len(batch)]
        body, headers = delete_objects_body([(k, e.vid) for k, e in batch])
        resp = _request(srv, "POST", None, query="delete=", body=body, headers=headers)
        assert resp.status == 200, f"DeleteObjects: {resp.status} {resp.body[:300]!r}"
        deleted, errors = parse_delete_result(resp)
        assert not errors and set(deleted) == {(k, e.vid) for k, e in batch}, resp.body[:600]
    for key in model.keys:
        model.keys[key] = []


def test_sigkill_rounds_on_a_versioned_bucket(start_server, tmp_path):
    # conftest drops every CUBBY_* variable from os.environ; the runner's environment is kept.
    seed = int(cubby_e2e.ORIGINAL_ENV.get("CUBBY_CRASH_VERSIONS_SEED") or
               random.randrange(1 << 32))
    print(f"CUBBY_CRASH_VERSIONS_SEED={seed}")
    rng = random.Random(seed)
    data_dir = tmp_path / "crashdata"
    data_dir.mkdir()
    blobs_dir = data_dir / "db" / "blobs"
    model, counts, writers, in_flight = Model(), {}, [], 0
    started = time.monotonic()
    for rnd in range(ROUNDS + 1):
        srv = start_server(data_dir=data_dir)
        if rnd == 0:
            seed_bucket(srv, model)
        problems = Checker(srv, model, writers, blobs_dir).run()
        assert not problems, (f"after kill round {rnd} (CUBBY_CRASH_VERSIONS_SEED={seed}):\n" +
                              "\n".join(problems))
        if rnd == ROUNDS:
            break
        if rnd == SUSPENDED_ROUND:
            set_versioning(srv, model, "Suspended")
        elif rnd == SUSPENDED_ROUND + 1:
            set_versioning(srv, model, "Enabled")
        writers = _load_and_kill(srv, model, rng, counts)
        in_flight += sum(w.pending is not None for w in writers)
    entries = [e for es in model.keys.values() for e in es]
    versions = sum(not e.marker for e in entries)
    print(f"{ROUNDS} rounds in {time.monotonic() - started:.1f} s, {in_flight} requests in flight "
          f"at the kills ({model.in_flight_happened} key changes of theirs survived), "
          f"{versions} versions and {len(entries) - versions} markers at the end; "
          f"acknowledged: {sorted(counts.items())}")
    # The load really was mixed, and kills hit requests in flight.
    for kind in ("put", "put>inline", "put>chunk", "delete (marker)", "delete version by id",
                 "delete marker by id", "delete objects", "copy"):
        assert counts.get(kind, 0) >= 3, f"only {counts.get(kind, 0)} {kind!r} acknowledged"
    assert counts.get("undelete", 0) >= 1, "no undelete acknowledged"
    assert counts.get("suspended", 0) >= 10, "the suspended round wrote too little"
    assert in_flight >= ROUNDS, f"only {in_flight} requests in flight over {ROUNDS} kills"

    # Deleting every version and marker gives the space back; DeleteBucket then succeeds.
    delete_everything(srv, model, rng)
    leftover = list_versions(srv, 1000, [])
    assert leftover == [], f"ListObjectVersions after deleting everything: {leftover}"
    s3 = make_client(srv)
    assert s3.list_objects_v2(Bucket=BUCKET).get("Contents", []) == []
    deadline = time.monotonic() + 5
    while blob_files(blobs_dir) and time.monotonic() < deadline:
        time.sleep(0.05)  # a released file may go just after the delete's answer
    assert blob_files(blobs_dir) == [], f"blobs left after deleting every version: " \
        f"{blob_files(blobs_dir)}"
    s3.delete_bucket(Bucket=BUCKET)
    srv.kill()  # SIGKILL: the deletes and DeleteBucket were acknowledged, they stay
    srv = start_server(data_dir=data_dir)
    s3 = make_client(srv)
    assert BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]
    assert blob_files(blobs_dir) == []
