"""aws-chunked uploads and flexible checksums, sent raw over http.client (awschunked.py signs).

Each broken body gets AWS's error code and leaves no object behind (HEAD -> 404).
"""

import base64
import hashlib
import os
import socket

import pytest

import awschunked
from awschunked import SIGNED, SIGNED_TRAILER, UNSIGNED_TRAILER, crc32_b64
from cubby_e2e import raw_request, send


def _path(bucket, key):
    return f"/{bucket}/{key}"


def _head_status(server, bucket, key):
    return raw_request(server, "HEAD", _path(bucket, key)).status


DATA = os.urandom(200 * 1024 + 123)  # three full 64 KiB chunks and a short one


@pytest.mark.parametrize("mode", [SIGNED, SIGNED_TRAILER, UNSIGNED_TRAILER])
def test_chunked_put_round_trips(server, bucket, mode):
    key = "chunked-" + mode.lower()
    headers, body = awschunked.streaming_put(server, _path(bucket, key), DATA, mode=mode,
                                             extra_headers={"Content-Type": "application/x-test"})
    r = send(server, "PUT", _path(bucket, key), headers, body)
    assert r.status == 200, r
    assert r.header("ETag") == '"' + hashlib.md5(DATA).hexdigest() + '"'
    if mode != SIGNED:
        assert r.header("x-amz-checksum-crc32") == crc32_b64(DATA)

    got = raw_request(server, "GET", _path(bucket, key),
                      headers={"x-amz-checksum-mode": "ENABLED"})
    assert got.status == 200, got
    assert got.body == DATA  # the chunk framing is gone
    assert got.header("Content-Length") == str(len(DATA))
    assert got.header("Content-Type") == "application/x-test"
    # aws-chunked is a transfer detail: it is not stored as the object's Content-Encoding.
    assert got.header("Content-Encoding") in (None, "")
    if mode != SIGNED:
        assert got.header("x-amz-checksum-crc32") == crc32_b64(DATA)


def test_chunked_put_of_empty_object(server, bucket):
    headers, body = awschunked.streaming_put(server, _path(bucket, "empty"), b"", mode=SIGNED)
    r = send(server, "PUT", _path(bucket, "empty"), headers, body)
    assert r.status == 200, r
    got = raw_request(server, "GET", _path(bucket, "empty"))
    assert got.status == 200 and got.body == b""


# (name, streaming_put arguments, HTTP status, AWS error code)
BROKEN = [
    ("wrong-signature-first-chunk", dict(mode=SIGNED, bad_chunk=0), 403,
     "SignatureDoesNotMatch"),
    ("wrong-signature-middle-chunk", dict(mode=SIGNED, bad_chunk=2), 403,
     "SignatureDoesNotMatch"),
    ("wrong-signature-final-chunk", dict(mode=SIGNED, bad_chunk=4), 403,
     "SignatureDoesNotMatch"),
    ("wrong-trailer-signature", dict(mode=SIGNED_TRAILER, bad_trailer_signature=True), 403,
     "SignatureDoesNotMatch"),
    ("wrong-trailer-checksum-signed", dict(mode=SIGNED_TRAILER, trailer_value=crc32_b64(b"x")),
     400, "BadDigest"),
    ("wrong-trailer-checksum-unsigned",
     dict(mode=UNSIGNED_TRAILER, trailer_value=crc32_b64(b"x")), 400, "BadDigest"),
    ("truncated-no-final-chunk", dict(mode=SIGNED, drop_final_chunk=True), 400, "IncompleteBody"),
    ("decoded-length-larger-than-chunks", dict(mode=SIGNED, decoded_length=len(DATA) + 1), 400,
     "IncompleteBody"),
]


@pytest.mark.parametrize("name,kwargs,status,code", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_chunked_body_is_rejected_and_stores_nothing(server, bucket, name, kwargs, status,
                                                           code):
    key = "broken-" + name
    headers, body = awschunked.streaming_put(server, _path(bucket, key), DATA, **kwargs)
    r = send(server, "PUT", _path(bucket, key), headers, body)
    assert (r.status, r.code) == (status, code), r
    assert _head_status(server, bucket, key) == 404


def test_broken_chunk_signature_keeps_the_previous_version(server, bucket, s3):
    s3.put_object(Bucket=bucket, Key="keep", Body=b"old")
    headers, body = awschunked.streaming_put(server, _path(bucket, "keep"), DATA, mode=SIGNED,
                                             bad_chunk=3)
    r = send(server, "PUT", _path(bucket, "keep"), headers, body)
    assert (r.status, r.code) == (403, "SignatureDoesNotMatch"), r
    assert s3.get_object(Bucket=bucket, Key="keep")["Body"].read() == b"old"


def test_connection_closed_mid_chunk_stores_nothing(server, bucket):
    """The client sends half the body and half-closes: whatever the server answers, no object."""
    path = _path(bucket, "torn")
    headers, body = awschunked.streaming_put(server, path, DATA, mode=SIGNED)
    sock = socket.create_connection((server.host, server.port), timeout=30)
    try:
        head = f"PUT {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(head.encode() + b"\r\n" + body[:len(body) // 2])
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while True:
            got = sock.recv(65536)
            if not got:
                break
            answer += got
    finally:
        sock.close()
    assert not answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert _head_status(server, bucket, "torn") == 404


# ------------------------------------------------------------ x-amz-checksum-* request headers

def test_checksum_header_matching_is_stored_and_returned(server, bucket):
    body = b"checksummed body"
    r = raw_request(server, "PUT", _path(bucket, "crc"), body=body,
                    headers={"x-amz-checksum-crc32": crc32_b64(body)})
    assert r.status == 200, r
    assert r.header("x-amz-checksum-crc32") == crc32_b64(body)
    got = raw_request(server, "HEAD", _path(bucket, "crc"),
                      headers={"x-amz-checksum-mode": "ENABLED"})
    assert got.header("x-amz-checksum-crc32") == crc32_b64(body)


def test_checksum_header_mismatch_is_bad_digest(server, bucket):
    r = raw_request(server, "PUT", _path(bucket, "crc-bad"), body=b"the real body",
                    headers={"x-amz-checksum-crc32": crc32_b64(b"another body")})
    assert (r.status, r.code) == (400, "BadDigest"), r
    assert _head_status(server, bucket, "crc-bad") == 404


@pytest.mark.parametrize("value", [
    "not base64!",
    base64.b64encode(b"\x00\x01\x02").decode(),  # 3 bytes, a CRC32 has 4
    base64.b64encode(b"\x00" * 8).decode(),
])
def test_malformed_checksum_header_is_invalid_request(server, bucket, value):
    r = raw_request(server, "PUT", _path(bucket, "crc-malformed"), body=b"body",
                    headers={"x-amz-checksum-crc32": value})
    assert (r.status, r.code) == (400, "InvalidRequest"), r
    assert _head_status(server, bucket, "crc-malformed") == 404


def test_chunk_signer_matches_aws_example():
    """The helper itself, on the example of AWS's sigv4-streaming page (64 KiB + 1 KiB of 'a')."""
    signer = awschunked.ChunkSigner("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1",
                                    "20130524T000000Z",
                                    "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
    assert [signer.chunk(b"a" * 65536), signer.chunk(b"a" * 1024), signer.chunk(b"")] == [
        "ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
        "0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
        "b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
    ]
