"""Encryption at rest, issue 16's acceptance: after writing SSE-S3, SSE-C and SSE-KMS objects
(large, small, multipart, and an upload left open) whose plaintext carries a recognisable marker,
no file of the stopped server's data folder holds the marker or the SSE-C key; the same marker in
a plain object is found (the scan works). Flipping one byte of a large encrypted object's stored
data makes its GET fail cleanly (500, or a connection cut after a prefix of the plaintext; never
wrong bytes), while ranges elsewhere still read and the server stays up."""

import os
import random

import pytest

from cubby_e2e import make_client, new_bucket_name
from sse_e2e import (MIB, SEGMENT, SsecKey, assert_kms, assert_sse_s3, assert_ssec, make_kms,
                     remember_master_key, streaming_get)

MODES = ["sse-s3", "sse-c", "sse-kms"]


def marked_plaintext(marker, size, seed):
    """`size` bytes: every 4 KiB block starts with the marker, the rest is random (so nothing
    could compress the marker away)."""
    rnd = random.Random(seed)
    out = bytearray()
    while len(out) < size:
        out += marker + rnd.randbytes(4096 - len(marker))
    return bytes(out[:size])


def scan(data_dir, needles, skip_names=()):
    """{needle: [files holding it]} over every regular file under data_dir (raw bytes)."""
    found = {n: [] for n in needles}
    files = 0
    for root, _, names in os.walk(data_dir):
        for name in names:
            if name in skip_names:
                continue
            path = os.path.join(root, name)
            if not os.path.isfile(path) or os.path.islink(path):
                continue
            with open(path, "rb") as f:
                content = f.read()
            files += 1
            for n in needles:
                if n in content:
                    found[n].append(os.path.relpath(path, data_dir))
    assert files > 0, f"no files under {data_dir}"
    return found


class Writer:
    """Writes objects in each mode into one bucket."""

    def __init__(self, srv):
        self.s3 = make_client(srv)
        self.bucket = new_bucket_name("rest")
        self.s3.create_bucket(Bucket=self.bucket)
        self.kms_key = make_kms(srv).create_key()["KeyMetadata"]
        self.ssec = SsecKey()

    def params(self, mode):
        if mode == "sse-s3":
            return {"ServerSideEncryption": "AES256"}
        if mode == "sse-c":
            return self.ssec.params()
        if mode == "sse-kms":
            return {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": self.kms_key["KeyId"]}
        raise AssertionError(mode)

    def read_params(self, mode):
        return self.ssec.params() if mode == "sse-c" else {}

    def check(self, response, mode):
        if mode == "sse-s3":
            assert_sse_s3(response)
        elif mode == "sse-c":
            assert_ssec(response, self.ssec)
        else:
            assert_kms(response, self.kms_key["Arn"])

    def put(self, mode, key, data):
        self.check(self.s3.put_object(Bucket=self.bucket, Key=key, Body=data,
                                      **self.params(mode)), mode)

    def multipart(self, mode, key, parts, complete=True):
        s3, b = self.s3, self.bucket
        upload_id = s3.create_multipart_upload(Bucket=b, Key=key, **self.params(mode))["UploadId"]
        done = []
        for number, data in enumerate(parts, start=1):
            r = s3.upload_part(Bucket=b, Key=key, UploadId=upload_id, PartNumber=number,
                               Body=data, **self.read_params(mode))
            done.append({"PartNumber": number, "ETag": r["ETag"]})
        if complete:
            s3.complete_multipart_upload(Bucket=b, Key=key, UploadId=upload_id,
                                         MultipartUpload={"Parts": done})

    def read(self, mode, key, **kwargs):
        r = self.s3.get_object(Bucket=self.bucket, Key=key, **self.read_params(mode), **kwargs)
        self.check(r, mode)
        return r["Body"].read()


def test_no_plaintext_or_customer_key_on_disk(start_server):
    marker = b"<<CUBBY-AT-REST-MARKER-" + os.urandom(8).hex().encode() + b">>"
    srv = start_server(args=["--allow-sse-c-over-http"])
    w = Writer(srv)
    written = {}
    for i, mode in enumerate(MODES):
        large = marked_plaintext(marker, 6 * MIB + 5, seed=f"large-{mode}")
        small = marked_plaintext(marker, 300, seed=f"small-{mode}")
        parts = [marked_plaintext(marker, 5 * MIB + 1, seed=f"p1-{mode}"),
                 marked_plaintext(marker, SEGMENT + 3, seed=f"p2-{mode}")]
        w.put(mode, f"{mode}/large", large)
        w.put(mode, f"{mode}/small", small)
        w.multipart(mode, f"{mode}/mp", parts)
        # Parts of an upload that is never completed must not leak either.
        w.multipart(mode, f"{mode}/open", [marked_plaintext(marker, 2 * MIB, seed=f"o-{mode}")],
                    complete=False)
        # An overwrite: the first version's space goes to the reclaimer.
        w.put(mode, f"{mode}/over", marked_plaintext(marker, 2 * MIB, seed=f"v1-{mode}"))
        w.put(mode, f"{mode}/over", small)
        written[(mode, f"{mode}/large")] = large
        written[(mode, f"{mode}/small")] = small
        written[(mode, f"{mode}/mp")] = b"".join(parts)
        written[(mode, f"{mode}/over")] = small
    for (mode, key), data in written.items():
        assert w.read(mode, key) == data, key
    remember_master_key(srv.data_dir)
    assert srv.stop() == 0  # graceful: memtables flushed, files closed

    key = w.ssec
    needles = [marker, key.raw, key.b64.encode(), key.raw.hex().encode()]
    found = scan(srv.data_dir, needles)
    assert found[marker] == [], f"plaintext marker found on disk: {found[marker]}"
    assert found[key.raw] == [], found[key.raw]
    assert found[key.b64.encode()] == [], found[key.b64.encode()]
    assert found[key.raw.hex().encode()] == [], found[key.raw.hex().encode()]

    # Everything still reads after the restart.
    again = start_server(args=["--allow-sse-c-over-http"], data_dir=srv.data_dir)
    w.s3 = make_client(again)
    for (mode, key_name), data in written.items():
        assert w.read(mode, key_name) == data, key_name
    # The control: the same marker in plain objects, large and small, is found by the same scan
    # (so the scan sees both where large object data and where small objects live).
    plain_large = marked_plaintext(marker, 6 * MIB + 5, seed="plain-large")
    small_marker = b"<<CUBBY-SMALL-CONTROL-" + os.urandom(8).hex().encode() + b">>"
    w.s3.put_object(Bucket=w.bucket, Key="plain/large", Body=plain_large)
    w.s3.put_object(Bucket=w.bucket, Key="plain/small", Body=small_marker + b" small plain")
    assert again.stop() == 0
    found = scan(srv.data_dir, [marker, small_marker])
    assert found[marker], "the scan did not find a plain object's marker: it proves nothing"
    assert found[small_marker], "the scan did not find a small plain object: it proves nothing"


def blob_files(data_dir):
    """Every file under a 'blobs' folder of the data folder: (path, size)."""
    out = []
    for root, _, names in os.walk(data_dir):
        if "blobs" not in root.split(os.sep):
            continue
        for name in names:
            path = os.path.join(root, name)
            out.append((path, os.path.getsize(path)))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_flipped_byte_fails_cleanly(start_server, mode):
    srv = start_server(args=["--allow-sse-c-over-http"])
    w = Writer(srv)
    size = 4 * MIB + 5
    data = marked_plaintext(b"<<tamper>>", size, seed=f"tamper-{mode}")
    w.put(mode, "big", data)
    assert srv.stop() == 0

    # The one large data file, a little bigger than the plaintext (a 16-byte tag a segment).
    candidates = [(p, s) for p, s in blob_files(srv.data_dir) if size <= s <= size + size // 100]
    assert len(candidates) == 1, blob_files(srv.data_dir)
    path, stored = candidates[0]
    middle = stored // 2
    with open(path, "r+b") as f:
        f.seek(middle)
        byte = f.read(1)
        f.seek(middle)
        f.write(bytes([byte[0] ^ 0x01]))
    # The plaintext segment the flipped byte falls in (sealed segments are 64 KiB + 16 bytes).
    bad_segment = middle // (SEGMENT + 16)
    bad_first = bad_segment * SEGMENT

    again = start_server(args=["--allow-sse-c-over-http"], data_dir=srv.data_dir)
    w.s3 = make_client(again)
    headers = w.ssec.headers() if mode == "sse-c" else {}
    path_url = f"/{w.bucket}/big"
    for rng, start in [(None, 0), (f"bytes={bad_first - 100}-{bad_first + 100}", bad_first - 100)]:
        h = dict(headers)
        if rng:
            h["Range"] = rng
        status, resp_headers, body, complete = streaming_get(again, path_url, headers=h)
        if status == 500:
            assert b"<Code>InternalError</Code>" in body, body[:500]
        else:
            # The status went out before the bad segment was reached: the connection must be
            # cut short, and what arrived must be plaintext, in place.
            assert status in (200, 206), (status, body[:300])
            assert not complete, "a tampered object was served in full"
            assert body == data[start:start + len(body)], "wrong bytes served"
            assert start + len(body) <= bad_first, "bytes of the tampered segment were released"
    # Ranges away from the flipped segment still read.
    for first, last in [(0, 99), (bad_first - SEGMENT, bad_first - 1), (size - 1000, size - 1)]:
        r = w.read(mode, "big", Range=f"bytes={first}-{last}")
        assert r == data[first:last + 1], (first, last)
    # The server is up and serving.
    assert again.proc.poll() is None
    assert w.s3.head_object(Bucket=w.bucket, Key="big", **w.read_params(mode))["ContentLength"] \
        == size
    assert [o["Key"] for o in w.s3.list_objects_v2(Bucket=w.bucket)["Contents"]] == ["big"]
    # "A 500 with a clear log line": stopped first, so every line it wrote has been read.
    assert again.stop() == 0
    errors = [line for line in again.all_output().splitlines()
              if "level=error" in line or '"level":"error"' in line]
    assert errors, "the failed authentication of stored data was not logged as an error"
