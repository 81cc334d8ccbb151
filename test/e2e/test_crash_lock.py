"""SIGKILL under an object-lock load, round after round on one data folder (issue 14: "a crash at
any moment loses no acknowledged version, marker, retention or legal hold").

The bucket is created with object lock (x-amz-bucket-object-lock-enabled: versioning Enabled for
good); some rounds run with a default retention (GOVERNANCE, Days=1). Each round starts the real
binary on the same data folder, checks everything earlier rounds left against a model of what was
acknowledged, runs a load from WRITERS threads and SIGKILLs the server at a random moment. The
seed is printed; CUBBY_CRASH_LOCK_SEED=<n> repeats a run's choices (thread timing still varies).

The load (raw signed requests, Content-MD5 on every body, as S3 requires of lock calls): PUTs
with and without x-amz-object-lock-mode / -retain-until-date / -legal-hold; PutObjectRetention
that extends a GOVERNANCE retention (or sets one far ahead), extends a COMPLIANCE one (kept a few
seconds ahead so the bucket can be emptied at the end), is refused 403 AccessDenied when it
would shorten COMPLIANCE or (without the bypass) GOVERNANCE, and shortens GOVERNANCE with
x-amz-bypass-governance-retention: true (the root user may); PutObjectLegalHold ON/OFF by
version id; DELETE without a version id (a marker, allowed whatever the lock); DELETE by version
id of an unlocked version or marker (succeeds), of a locked one (403 AccessDenied, nothing
changes), of a GOVERNANCE one without a legal hold with the bypass (succeeds); DeleteObjects by
version id over a few keys, answering each key on its own (a locked version: an AccessDenied
Error). Each writer owns its keys and runs one request at a time, so the model is exact: per key
its versions and markers newest first, per version its retention (mode, until) and legal hold.
The one request a thread had in flight at the kill happened entirely or not at all (per key, for
DeleteObjects): both states are accepted and the one the server shows is adopted. A version whose
lock is about to run out (within MARGIN_MS) is neither deleted nor expected to refuse.

After each restart:
  * GetObjectLockConfiguration is the acknowledged one (with or without the default);
  * ListObjectVersions (pages of LIST_PAGE) lists exactly the model's entries, in order;
  * for every version, HEAD ?versionId= (x-amz-object-lock-* headers), GET ?retention and
    GET ?legal-hold agree with each other and with the model;
  * DELETE by id of every version the model says is locked is refused 403 AccessDenied, and
    the version stays.
At the end every legal hold is lifted, GOVERNANCE versions are deleted with the bypass, the
COMPLIANCE ones once their retention (polled, refused until then) has run out, and the markers;
ListObjectVersions is empty, DeleteBucket answers 204, and after one more SIGKILL the bucket is
still gone.
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectRetention.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectLegalHold.html
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-managing.html (bypass)
"""

import base64
import datetime
import hashlib
import http.client
import random
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import cubby_e2e
from cubby_e2e import S3_NS, make_client, raw_request

BUCKET = "crashlock"
ROUNDS = 6
DEFAULT_ROUNDS = {1, 3, 4}   # rounds whose load runs with the default retention (GOVERNANCE 1 day)
WRITERS = 3
KEYS_PER_WRITER = 5
MAX_ENTRIES = 6              # a key with more entries gets deletes (or a hold lifted)
LIST_PAGE = 7
KILL_AFTER = (0.3, 1.2)      # seconds of load before the SIGKILL, drawn per round
DAY_MS = 86400 * 1000
MARGIN_MS = 3000             # a lock ending within this of now is neither relied on nor deleted
COMPLIANCE_MS = (6000, 9000)  # a COMPLIANCE retention ends this far ahead of its write
COMPLIANCE_CAP_MS = 10000    # ... and an extension never takes it further than this ahead
GOVERNANCE_FAR_MS = (2 * DAY_MS, 3 * DAY_MS)
GOVERNANCE_SHORT_MS = (3600 * 1000, 7200 * 1000)  # a GOVERNANCE retention shortened with bypass
NS = "http://s3.amazonaws.com/doc/2006-03-01/"
GOV, COMP = "GOVERNANCE", "COMPLIANCE"


def now_ms():
    return int(time.time() * 1000)


def iso(ms):
    t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def parse_iso(text):
    t = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * 1000)


def md5_b64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


# ---------------------------------------------------------------- the model

class Lock:
    """A version's retention and legal hold. until is exact, or None with (lo, hi) when it came
    from the default retention (the server's clock picked it: adopted at the next check).
    hold: None (never set), "ON" or "OFF"."""
    __slots__ = ("mode", "until", "lo", "hi", "hold")

    def __init__(self, mode=None, until=None, hold=None, lo=None, hi=None):
        self.mode, self.until, self.hold, self.lo, self.hi = mode, until, hold, lo, hi

    def copy(self, **changes):
        out = Lock(self.mode, self.until, self.hold, self.lo, self.hi)
        for k, v in changes.items():
            setattr(out, k, v)
        return out

    def until_low(self):
        return self.until if self.until is not None else self.lo

    def until_high(self):
        return self.until if self.until is not None else self.hi

    def clearly_locked(self, at):
        return self.hold == "ON" or (self.mode is not None and self.until_low() > at + MARGIN_MS)

    def clearly_unlocked(self, at):
        return self.hold != "ON" and (self.mode is None or self.until_high() < at - 200)

    def matches(self, got):
        """got: (mode, until, hold) as the server shows them."""
        mode, until, hold = got
        if (mode, hold) != (self.mode, self.hold):
            return False
        if self.mode is None:
            return until is None
        if self.until is not None:
            return until == self.until
        return until is not None and self.lo <= until <= (self.hi or until)

    def adopt(self, got):
        return self.copy(until=got[1], lo=None, hi=None) if self.mode is not None else self

    def __repr__(self):
        if self.mode is None:
            ret = "-"
        elif self.until is not None:
            ret = f"{self.mode[0]}@{iso(self.until)}"
        else:
            ret = f"{self.mode[0]}@[{iso(self.lo)}..{iso(self.hi) if self.hi else '?'}]"
        return f"{ret},hold={self.hold}"


class Entry:
    """A version (body id, lock) or a delete marker. vid None: written, id never seen."""
    __slots__ = ("vid", "marker", "body_id", "lock")

    def __init__(self, vid, marker, body_id=None, lock=None):
        self.vid, self.marker, self.body_id, self.lock = vid, marker, body_id, lock

    def copy(self, **changes):
        out = Entry(self.vid, self.marker, self.body_id, self.lock)
        for k, v in changes.items():
            setattr(out, k, v)
        return out

    def body(self):
        return f"crash-lock-body-{self.body_id}".encode()

    def etag(self):
        return '"' + hashlib.md5(self.body()).hexdigest() + '"'

    def __repr__(self):
        vid = "?" if self.vid is None else self.vid[-8:]
        return f"marker({vid})" if self.marker else f"v({vid},b{self.body_id},{self.lock!r})"


class Model:
    def __init__(self):
        self.lock = threading.Lock()
        self.next_body = 0
        self.keys = {}          # key -> [Entry], newest first
        self.default = False    # the bucket's default retention (GOVERNANCE 1 day) as acked
        self.adopted = 0        # in-flight changes that the server showed as done

    def new_body_id(self):
        with self.lock:
            self.next_body += 1
            return self.next_body


def keys_of(wid):
    return [f"w{wid}/k{i}" for i in range(KEYS_PER_WRITER)]


# ---------------------------------------------------------------- requests

class Unacked(Exception):
    """The request got no answer (the server died): it may or may not have happened."""


def _path(key):
    return f"/{BUCKET}/{urllib.parse.quote(key, safe='/')}"


def _vq(vid):
    return "versionId=" + urllib.parse.quote(vid, safe="")


def request(srv, method, key, query="", body=b"", headers=None):
    headers = dict(headers or {})
    if body:
        headers["Content-MD5"] = md5_b64(body)
    try:
        return raw_request(srv, method, _path(key) if key is not None else f"/{BUCKET}",
                           query=query, body=body, headers=headers, timeout=30)
    except (OSError, http.client.HTTPException) as e:
        raise Unacked(f"{method} {key}?{query}: {e!r}") from e


def retention_body(mode, until):
    return (f'<Retention xmlns="{NS}"><Mode>{mode}</Mode>'
            f"<RetainUntilDate>{iso(until)}</RetainUntilDate></Retention>").encode()


def legal_hold_body(status):
    return f'<LegalHold xmlns="{NS}"><Status>{status}</Status></LegalHold>'.encode()


def error_code(resp):
    try:
        return resp.code
    except (AssertionError, ET.ParseError):
        return None


# ---------------------------------------------------------------- the load

class Writer:
    """One thread's share of the load: sequential requests on its own keys."""

    def __init__(self, wid, model, rng, counts):
        self.wid, self.model, self.rng, self.counts = wid, model, rng, counts
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

    def expect(self, resp, status, what, code=None):
        if resp.status != status or (code is not None and error_code(resp) != code):
            raise AssertionError(f"{what}: expected {status} {code or ''}, got {resp.status} "
                                 f"{resp.body[:300]!r}")

    def count(self, kind):
        with self.model.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def acked(self, kind, key, entries):
        self.model.keys[key] = entries
        self.pending = None
        self.count(kind)

    def refused(self, kind):
        self.pending = None
        self.count(kind)

    def step(self, srv):
        key = self.rng.choice(self.keys)
        entries = self.model.keys[key]
        if len(entries) > MAX_ENTRIES:
            return self.trim(srv, key)
        r = self.rng.random()
        if r < 0.28:
            self.put(srv, key)
        elif r < 0.46:
            self.retention(srv, key)
        elif r < 0.60:
            self.legal_hold(srv, key)
        elif r < 0.70:
            self.delete_marker(srv, key)
        elif r < 0.88:
            self.delete_version(srv, key)
        else:
            self.delete_objects(srv)

    # ---- writes

    def put(self, srv, key):
        headers, t0 = {}, now_ms()
        lock = Lock()
        choice = self.rng.random()
        if choice < 0.25:
            lock.mode, lock.until = GOV, t0 + self.rng.randint(*GOVERNANCE_FAR_MS)
        elif choice < 0.4:
            lock.mode, lock.until = COMP, t0 + self.rng.randint(*COMPLIANCE_MS)
        if lock.mode is not None:
            headers["x-amz-object-lock-mode"] = lock.mode
            headers["x-amz-object-lock-retain-until-date"] = iso(lock.until)
        if self.rng.random() < 0.35:
            lock.hold = self.rng.choice(("ON", "OFF"))
            headers["x-amz-object-lock-legal-hold"] = lock.hold
        if lock.mode is None and self.model.default:
            lock.mode, lock.lo, lock.hi = GOV, t0 + DAY_MS, None  # hi: set on the answer
        new = Entry(None, False, self.model.new_body_id(), lock)
        after = [new] + self.model.keys[key]
        self.pending = {key: after}
        resp = request(srv, "PUT", key, body=new.body(), headers=headers)
        self.expect(resp, 200, f"PUT {key} {headers}")
        assert resp.header("ETag") == new.etag(), f"PUT {key}: ETag {resp.header('ETag')}"
        vid = resp.header("x-amz-version-id")
        assert vid and vid != "null" and vid not in {e.vid for e in after}, \
            f"PUT {key}: x-amz-version-id {vid!r}"
        if lock.until is None and lock.mode is not None:
            lock = lock.copy(hi=now_ms() + DAY_MS)
        after[0] = new.copy(vid=vid, lock=lock)
        kind = "put" if not headers else "put+lock headers"
        if self.model.default and "x-amz-object-lock-mode" not in headers:
            kind = "put (default retention)"
        self.acked(kind, key, after)

    def delete_marker(self, srv, key):
        new = Entry(None, True)
        after = [new] + self.model.keys[key]
        self.pending = {key: after}
        resp = request(srv, "DELETE", key)
        self.expect(resp, 204, f"DELETE {key}")
        vid = resp.header("x-amz-version-id")
        assert resp.header("x-amz-delete-marker") == "true" and vid and vid != "null", \
            f"DELETE {key}: marker {resp.header('x-amz-delete-marker')} id {vid!r}"
        after[0] = new.copy(vid=vid)
        locked_below = any(not e.marker and e.lock.clearly_locked(now_ms()) for e in after[1:])
        self.acked("marker over a locked version" if locked_below else "marker", key, after)

    def versions(self, key):
        return [e for e in self.model.keys[key] if not e.marker]

    def replaced(self, key, victim, lock):
        return [e.copy(lock=lock) if e is victim else e for e in self.model.keys[key]]

    def retention(self, srv, key):
        versions = self.versions(key)
        if not versions:
            return self.put(srv, key)
        v = self.rng.choice(versions)
        t0, lock = now_ms(), v.lock
        what = f"PutObjectRetention {key} {v!r}"
        if lock.mode is None or (lock.mode == COMP and lock.until < t0 - 200):
            # None yet (or an expired COMPLIANCE one): set one.
            if self.rng.random() < 0.5:
                mode, until = GOV, t0 + self.rng.randint(*GOVERNANCE_FAR_MS)
            else:
                mode, until = COMP, t0 + self.rng.randint(*COMPLIANCE_MS)
            return self.put_retention(srv, key, v, mode, until, False, "retention set", what)
        if lock.mode == GOV:
            r = self.rng.random()
            if r < 0.4:  # extend
                until = max(lock.until_high(), t0 + GOVERNANCE_FAR_MS[0]) + \
                    self.rng.randint(1000, 10 ** 7)
                return self.put_retention(srv, key, v, GOV, until, False,
                                          "governance extended", what)
            until = t0 + self.rng.randint(*GOVERNANCE_SHORT_MS)
            if r < 0.7:  # shorten with the bypass
                return self.put_retention(srv, key, v, GOV, until, True,
                                          "governance shortened (bypass)", what)
            # Shorten without the bypass: refused, nothing changes.
            until = min(until, lock.until_low() - 1000)
            return self.refused_retention(srv, key, v, GOV, until, False,
                                          "governance shorten refused", what)
        # COMPLIANCE.
        if not lock.clearly_locked(t0) or lock.until_low() <= t0 + MARGIN_MS:
            return self.legal_hold(srv, key)  # about to run out: leave it
        if self.rng.random() < 0.5:
            until = min(lock.until + self.rng.randint(500, 3000), t0 + COMPLIANCE_CAP_MS)
            if until >= lock.until:
                return self.put_retention(srv, key, v, COMP, until, False,
                                          "compliance extended", what)
        mode = self.rng.choice((GOV, COMP))
        return self.refused_retention(srv, key, v, mode, lock.until - 1000,
                                      self.rng.random() < 0.5, "compliance shorten refused",
                                      what)

    def put_retention(self, srv, key, v, mode, until, bypass, kind, what):
        after = self.replaced(key, v, v.lock.copy(mode=mode, until=until, lo=None, hi=None))
        self.pending = {key: after}
        headers = {"x-amz-bypass-governance-retention": "true"} if bypass else {}
        resp = request(srv, "PUT", key, query="retention=&" + _vq(v.vid),
                       body=retention_body(mode, until), headers=headers)
        self.expect(resp, 200, f"{what} -> {mode} {iso(until)} bypass={bypass}")
        self.acked(kind, key, after)

    def refused_retention(self, srv, key, v, mode, until, bypass, kind, what):
        self.pending = None
        headers = {"x-amz-bypass-governance-retention": "true"} if bypass else {}
        resp = request(srv, "PUT", key, query="retention=&" + _vq(v.vid),
                       body=retention_body(mode, until), headers=headers)
        self.expect(resp, 403, f"{what} -> {mode} {iso(until)} bypass={bypass}", "AccessDenied")
        self.refused(kind)

    def legal_hold(self, srv, key, status=None):
        versions = self.versions(key)
        if not versions:
            return self.put(srv, key)
        v = self.rng.choice([e for e in versions if e.lock.hold == "ON"] or versions) \
            if status == "OFF" else self.rng.choice(versions)
        status = status or self.rng.choice(("ON", "OFF"))
        after = self.replaced(key, v, v.lock.copy(hold=status))
        self.pending = {key: after}
        resp = request(srv, "PUT", key, query="legal-hold=&" + _vq(v.vid),
                       body=legal_hold_body(status))
        self.expect(resp, 200, f"PutObjectLegalHold {key} {v!r} {status}")
        self.acked(f"legal hold {status}", key, after)

    # ---- deletes by version id

    def delete_by_id(self, srv, key, victim, bypass, kind):
        after = [e for e in self.model.keys[key] if e is not victim]
        self.pending = {key: after}
        headers = {"x-amz-bypass-governance-retention": "true"} if bypass else {}
        resp = request(srv, "DELETE", key, query=_vq(victim.vid), headers=headers)
        what = f"DELETE {key}?versionId ({victim!r}) bypass={bypass}"
        self.expect(resp, 204, what)
        assert resp.header("x-amz-version-id") == victim.vid, \
            f"{what}: x-amz-version-id {resp.header('x-amz-version-id')!r}"
        self.acked(kind, key, after)

    def delete_refused(self, srv, key, victim, bypass, kind):
        self.pending = None
        headers = {"x-amz-bypass-governance-retention": "true"} if bypass else {}
        resp = request(srv, "DELETE", key, query=_vq(victim.vid), headers=headers)
        self.expect(resp, 403, f"DELETE {key}?versionId ({victim!r}) bypass={bypass}",
                    "AccessDenied")
        self.refused(kind)

    def delete_version(self, srv, key):
        entries = self.model.keys[key]
        if not entries:
            return self.put(srv, key)
        victim, t0 = self.rng.choice(entries), now_ms()
        if victim.marker:
            return self.delete_by_id(srv, key, victim, False, "delete marker by id")
        lock = victim.lock
        if lock.clearly_unlocked(t0):
            return self.delete_by_id(srv, key, victim, False, "delete unlocked version")
        if not lock.clearly_locked(t0):
            return self.delete_marker(srv, key)  # its lock is about to run out: leave it
        if lock.hold != "ON" and lock.mode == GOV and self.rng.random() < 0.4:
            return self.delete_by_id(srv, key, victim, True, "delete governance (bypass)")
        bypass = self.rng.random() < 0.5 and (lock.hold == "ON" or lock.mode == COMP)
        return self.delete_refused(srv, key, victim, bypass, "delete locked refused")

    def delete_objects(self, srv):
        """DeleteObjects by version id over 1-3 keys, with or without the bypass header: S3
        answers each key on its own, a locked version with an AccessDenied Error."""
        t0, bypass = now_ms(), self.rng.random() < 0.5
        targets, updates = [], {}  # targets: (key, entry, expected to go)
        for key in self.rng.sample(self.keys, self.rng.randint(1, 3)):
            if not self.model.keys[key]:
                continue
            e = self.rng.choice(self.model.keys[key])
            if e.marker or e.lock.clearly_unlocked(t0):
                goes = True
            elif e.lock.clearly_locked(t0):
                goes = bypass and e.lock.hold != "ON" and e.lock.mode == GOV
            else:
                continue  # its lock is about to run out
            targets.append((key, e, goes))
            if goes:
                updates[key] = [x for x in self.model.keys[key] if x is not e]
        if not targets:
            return self.delete_marker(srv, self.rng.choice(self.keys))
        doc = "<Delete>" + "".join(f"<Object><Key>{k}</Key><VersionId>{e.vid}</VersionId>"
                                   "</Object>" for k, e, _ in targets) + "</Delete>"
        self.pending = updates
        headers = {"x-amz-bypass-governance-retention": "true"} if bypass else {}
        resp = request(srv, "POST", None, query="delete=", body=doc.encode(), headers=headers)
        what = f"DeleteObjects {[(k, e, goes) for k, e, goes in targets]} bypass={bypass}"
        self.expect(resp, 200, what)
        root = ET.fromstring(resp.body)
        deleted = {(d.findtext(S3_NS + "Key"), d.findtext(S3_NS + "VersionId"))
                   for d in root.findall(S3_NS + "Deleted")}
        errors = {(d.findtext(S3_NS + "Key"), d.findtext(S3_NS + "VersionId")):
                  d.findtext(S3_NS + "Code") for d in root.findall(S3_NS + "Error")}
        want_deleted = {(k, e.vid) for k, e, goes in targets if goes}
        want_errors = {(k, e.vid): "AccessDenied" for k, e, goes in targets if not goes}
        assert (deleted, errors) == (want_deleted, want_errors), f"{what}: {resp.body[:800]!r}"
        for key, after in updates.items():
            self.model.keys[key] = after
        self.pending = None
        self.count("delete objects (some refused)" if want_errors else "delete objects")

    def trim(self, srv, key):
        """Too many entries: delete one that can go, else lift a hold."""
        t0 = now_ms()
        for e in self.model.keys[key][::-1]:
            if e.marker or e.lock.clearly_unlocked(t0):
                return self.delete_by_id(srv, key, e, False, "delete unlocked version")
            if e.lock.hold != "ON" and e.lock.mode == GOV:
                return self.delete_by_id(srv, key, e, True, "delete governance (bypass)")
        if any(e.lock.hold == "ON" for e in self.versions(key)):
            return self.legal_hold(srv, key, "OFF")
        return self.put(srv, key)


def _writer_thread(writer, srv, killed):
    try:
        writer.run(srv, killed)
    except Exception as e:  # noqa: BLE001 - any surprise (bad answer, bad XML) fails the test
        writer.error = f"writer {writer.wid}: {e!r}"


# ---------------------------------------------------------------- checks after a restart

class Listed:
    __slots__ = ("key", "vid", "marker", "latest", "size", "etag")

    def __init__(self, el):
        self.marker = el.tag == S3_NS + "DeleteMarker"
        self.key = el.findtext(S3_NS + "Key")
        self.vid = el.findtext(S3_NS + "VersionId")
        self.latest = el.findtext(S3_NS + "IsLatest")
        self.size = None if self.marker else int(el.findtext(S3_NS + "Size"))
        self.etag = None if self.marker else el.findtext(S3_NS + "ETag")

    def __repr__(self):
        return f"marker({self.vid[-8:]})" if self.marker else f"v({self.vid[-8:]},{self.etag})"


def list_versions(srv, page_size):
    out, query = [], {}
    for _ in range(10000):
        q = "&".join(f"{k}={urllib.parse.quote(v, safe='')}" for k, v in
                     sorted(dict(query, **{"versions": "", "max-keys": str(page_size)}).items()))
        resp = raw_request(srv, "GET", f"/{BUCKET}", query=q, timeout=30)
        assert resp.status == 200, f"ListObjectVersions {q}: {resp.status} {resp.body[:300]!r}"
        root = ET.fromstring(resp.body)
        out += [Listed(el) for el in root
                if el.tag in (S3_NS + "Version", S3_NS + "DeleteMarker")]
        if root.findtext(S3_NS + "IsTruncated") != "true":
            return out
        query = {"key-marker": root.findtext(S3_NS + "NextKeyMarker") or ""}
        if root.findtext(S3_NS + "NextVersionIdMarker"):
            query["version-id-marker"] = root.findtext(S3_NS + "NextVersionIdMarker")
    raise AssertionError("ListObjectVersions does not end")


class Checker:
    """Compares a restarted server with the model, then makes the model what it found."""

    def __init__(self, srv, model, writers):
        self.srv, self.model, self.writers = srv, model, writers
        self.problems = []

    def run(self):
        self.check_configuration()
        by_key = {}
        for e in list_versions(self.srv, LIST_PAGE):
            by_key.setdefault(e.key, []).append(e)
        for key in by_key:
            if key not in self.model.keys:
                self.problems.append(f"{key}: listed but never written: {by_key[key]}")
        pending = {}
        for w in self.writers:
            if w.pending is not None:
                pending.update(w.pending)
        for key in sorted(self.model.keys):
            self.check_key(key, by_key.get(key, []), pending.get(key))
        return self.problems

    def check_configuration(self):
        s3 = make_client(self.srv)
        got = s3.get_object_lock_configuration(Bucket=BUCKET)["ObjectLockConfiguration"]
        want = {"ObjectLockEnabled": "Enabled"}
        if self.model.default:
            want["Rule"] = {"DefaultRetention": {"Mode": GOV, "Days": 1}}
        if got != want:
            self.problems.append(f"lock configuration {got}, acknowledged {want}")

    def read_lock(self, key, vid):
        """(mode, until, hold) from HEAD ?versionId=, checked against GET ?retention and
        GET ?legal-hold; None (and a problem) when they disagree or fail."""
        head = request(self.srv, "HEAD", key, query=_vq(vid))
        if head.status != 200:
            self.problems.append(f"{key} {vid}: HEAD {head.status}")
            return None
        mode = head.header("x-amz-object-lock-mode")
        until = head.header("x-amz-object-lock-retain-until-date")
        got = (mode, parse_iso(until) if until else None,
               head.header("x-amz-object-lock-legal-hold"))
        ret = request(self.srv, "GET", key, query="retention=&" + _vq(vid))
        if ret.status == 200:
            root = ET.fromstring(ret.body)
            by_get = (root.findtext(S3_NS + "Mode"),
                      parse_iso(root.findtext(S3_NS + "RetainUntilDate")))
        elif ret.status == 404 and error_code(ret) == "NoSuchObjectLockConfiguration":
            by_get = (None, None)
        else:
            by_get = ("?", ret.status, ret.body[:200])
        hold = request(self.srv, "GET", key, query="legal-hold=&" + _vq(vid))
        if hold.status == 200:
            hold_get = ET.fromstring(hold.body).findtext(S3_NS + "Status")
        elif hold.status == 404 and error_code(hold) == "NoSuchObjectLockConfiguration":
            hold_get = None
        else:
            hold_get = ("?", hold.status, hold.body[:200])
        if by_get + (hold_get,) != got:
            self.problems.append(f"{key} {vid}: HEAD shows {got}, GET ?retention {by_get}, "
                                 f"GET ?legal-hold {hold_get}")
            return None
        return got

    def match(self, candidate, listed, locks):
        if len(candidate) != len(listed):
            return None
        ids = {e.vid for e in candidate if e.vid is not None}
        out = []
        for want, got in zip(candidate, listed):
            if want.marker != got.marker:
                return None
            if want.vid is None:
                if got.vid in ids:
                    return None
            elif want.vid != got.vid:
                return None
            if want.marker:
                out.append(want.copy(vid=got.vid))
                continue
            if (got.size, got.etag) != (len(want.body()), want.etag()):
                return None
            lock = locks.get(got.vid)
            if lock is None or not want.lock.matches(lock):
                return None
            out.append(want.copy(vid=got.vid, lock=want.lock.adopt(lock)))
        return out

    def check_key(self, key, listed, in_flight):
        for i, e in enumerate(listed):
            if (e.latest == "true") != (i == 0):
                self.problems.append(f"{key}: entry {i} {e!r} has IsLatest {e.latest}")
        locks = {e.vid: self.read_lock(key, e.vid) for e in listed if not e.marker}
        before = self.model.keys[key]
        found = None
        for i, candidate in enumerate([before] + ([in_flight] if in_flight is not None else [])):
            found = self.match(candidate, listed, locks)
            if found is not None:
                self.model.adopted += i
                break
        if found is None:
            alt = "" if in_flight is None else f", or if the request in flight happened {in_flight}"
            shown = [e if e.marker or locks.get(e.vid) is None else
                     f"{e!r}:{Lock(*locks[e.vid])!r}" for e in listed]
            self.problems.append(f"{key}: server shows {shown}; acknowledged {before}{alt}")
            return
        self.model.keys[key] = found
        # A locked version refuses a delete by id, and stays.
        for e in found:
            if e.marker or not e.lock.clearly_locked(now_ms()):
                continue
            resp = request(self.srv, "DELETE", key, query=_vq(e.vid))
            if resp.status != 403 or error_code(resp) != "AccessDenied":
                self.problems.append(f"{key}: DELETE of locked {e!r}: {resp.status} "
                                     f"{resp.body[:200]!r}")
            elif request(self.srv, "HEAD", key, query=_vq(e.vid)).status != 200:
                self.problems.append(f"{key}: locked {e!r} gone after a refused DELETE")


# ---------------------------------------------------------------- the test

def set_default(srv, model, on):
    rule = {"DefaultRetention": {"Mode": GOV, "Days": 1}} if on else None
    config = {"ObjectLockEnabled": "Enabled"}
    if rule:
        config["Rule"] = rule
    make_client(srv).put_object_lock_configuration(Bucket=BUCKET, ObjectLockConfiguration=config)
    model.default = on


def load_and_kill(srv, model, rng, counts):
    writers = [Writer(w, model, random.Random(rng.getrandbits(64)), counts)
               for w in range(WRITERS)]
    killed = threading.Event()
    threads = [threading.Thread(target=_writer_thread, args=(w, srv, killed), daemon=True)
               for w in writers]
    for t in threads:
        t.start()
    time.sleep(rng.uniform(*KILL_AFTER))  # the random moment of the kill
    killed.set()
    srv.kill()  # SIGKILL
    for t in threads:
        t.join(60)
        assert not t.is_alive(), "writer stuck after the server died"
    errors = [w.error for w in writers if w.error]
    assert not errors, "\n".join(errors)
    return writers


def empty_bucket(srv, model):
    """Lifts every hold, deletes GOVERNANCE versions with the bypass, the others plainly, and
    COMPLIANCE ones (refused until then) once their retention has run out."""
    waiting = []
    for key in sorted(model.keys):
        for e in model.keys[key]:
            if not e.marker and e.lock.hold == "ON":
                resp = request(srv, "PUT", key, query="legal-hold=&" + _vq(e.vid),
                               body=legal_hold_body("OFF"))
                assert resp.status == 200, f"legal hold OFF {key} {e!r}: {resp!r}"
            bypass = not e.marker and e.lock.mode == GOV
            headers = {"x-amz-bypass-governance-retention": "true"} if bypass else {}
            resp = request(srv, "DELETE", key, query=_vq(e.vid), headers=headers)
            if resp.status == 204:
                continue
            assert e.lock is not None and e.lock.mode == COMP and \
                e.lock.until > now_ms() - 1000, f"DELETE {key} {e!r}: {resp!r}"
            assert (resp.status, error_code(resp)) == (403, "AccessDenied"), resp
            waiting.append((key, e))
    deadline = time.monotonic() + COMPLIANCE_CAP_MS / 1000 + 10
    for key, e in waiting:
        while True:
            resp = request(srv, "DELETE", key, query=_vq(e.vid))
            if resp.status == 204:
                assert now_ms() >= e.lock.until, \
                    f"COMPLIANCE {key} {e!r} deleted at {iso(now_ms())}, before its end"
                break
            assert (resp.status, error_code(resp)) == (403, "AccessDenied"), resp
            assert now_ms() < e.lock.until + 5000, \
                f"COMPLIANCE {key} {e!r} still refused at {iso(now_ms())}"
            assert time.monotonic() < deadline, "COMPLIANCE retention never ran out"
            time.sleep(0.2)
    for key in model.keys:
        model.keys[key] = []
    return len(waiting)


def test_sigkill_rounds_on_an_object_lock_bucket(start_server, tmp_path):
    # conftest drops every CUBBY_* variable from os.environ; the runner's environment is kept.
    seed = int(cubby_e2e.ORIGINAL_ENV.get("CUBBY_CRASH_LOCK_SEED") or random.randrange(1 << 32))
    print(f"CUBBY_CRASH_LOCK_SEED={seed}")
    rng = random.Random(seed)
    data_dir = tmp_path / "crashlock"
    data_dir.mkdir()
    model, counts, writers, in_flight = Model(), {}, [], 0
    started = time.monotonic()
    for rnd in range(ROUNDS + 1):
        srv = start_server(data_dir=data_dir)
        if rnd == 0:
            make_client(srv).create_bucket(Bucket=BUCKET, ObjectLockEnabledForBucket=True)
            for w in range(WRITERS):
                for key in keys_of(w):
                    model.keys[key] = []
        problems = Checker(srv, model, writers).run()
        assert not problems, (f"after kill round {rnd} (CUBBY_CRASH_LOCK_SEED={seed}):\n" +
                              "\n".join(problems))
        if rnd == ROUNDS:
            break
        if (rnd in DEFAULT_ROUNDS) != model.default:
            set_default(srv, model, rnd in DEFAULT_ROUNDS)
        writers = load_and_kill(srv, model, rng, counts)
        in_flight += sum(w.pending is not None for w in writers)
    entries = [e for es in model.keys.values() for e in es]
    versions = [e for e in entries if not e.marker]
    print(f"{ROUNDS} rounds in {time.monotonic() - started:.1f} s, {in_flight} changes in flight "
          f"at the kills ({model.adopted} of them happened), {len(versions)} versions "
          f"({sum(e.lock.hold == 'ON' for e in versions)} held, "
          f"{sum(e.lock.mode == GOV for e in versions)} GOVERNANCE, "
          f"{sum(e.lock.mode == COMP for e in versions)} COMPLIANCE) and "
          f"{len(entries) - len(versions)} markers at the end; acknowledged: "
          f"{sorted(counts.items())}")
    # The load really was mixed. A marker is counted whether or not a locked version lies under
    # it: once COMPLIANCE and default-retention versions pile up, a key with nothing locked is
    # rare (one seed in CI drew a single one), and the marker's write is the same either way.
    counts["any marker"] = counts.get("marker", 0) + counts.get("marker over a locked version", 0)
    for kind in ("put", "put+lock headers", "put (default retention)", "retention set",
                 "governance extended", "governance shortened (bypass)",
                 "governance shorten refused", "legal hold ON", "legal hold OFF", "any marker",
                 "delete unlocked version", "delete locked refused",
                 "delete governance (bypass)", "delete marker by id", "delete objects",
                 "delete objects (some refused)"):
        assert counts.get(kind, 0) >= 2, f"only {counts.get(kind, 0)} {kind!r} acknowledged"
    assert in_flight >= ROUNDS // 2, f"only {in_flight} changes in flight over {ROUNDS} kills"

    waited = empty_bucket(srv, model)
    print(f"{waited} COMPLIANCE versions deleted once their retention ran out")
    assert list_versions(srv, 1000) == []
    resp = raw_request(srv, "DELETE", f"/{BUCKET}")
    assert resp.status == 204, resp
    srv.kill()  # SIGKILL: the deletes and DeleteBucket were acknowledged, they stay
    srv = start_server(data_dir=data_dir)
    assert BUCKET not in [b["Name"] for b in make_client(srv).list_buckets()["Buckets"]]
    print(f"whole test {time.monotonic() - started:.1f} s")
