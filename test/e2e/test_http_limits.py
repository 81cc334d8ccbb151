"""HTTP framing limits of the real binary, over raw sockets (issue 12, bugs 2 and 4).

Chunked bodies: a chunk line (size and extensions) is at most 4096 bytes and the trailer section
at most the header limit. Over either, a signed PUT is answered 400 InvalidRequest at once and
the connection closes; the server does not read the rest into memory (its peak RSS stays low)
and keeps serving. Before the fix a 256 MiB extension grew the server to 345 MB.

The request head (request line, fields, CRLFs and the empty line) is at most --max-header-bytes,
exactly: a head of the limit passes, one byte more is answered 400 and closed. Before the fix a
127,238-byte head of 2,400 short fields passed the default 65,536.
"""
import socket
import threading
import xml.etree.ElementTree as ET

from botocore.awsrequest import AWSRequest

from cubby_e2e import sign_request

HEADER_LIMIT = 65536
ENDLESS = 64 << 20  # bytes of an extension or trailer field that never ends
RSS_GROWTH_LIMIT_KIB = 16 << 10


def _signed_chunked_put_head(server, path):
    host = f"{server.host}:{server.port}"
    req = AWSRequest(method="PUT", url=f"http://{host}{path}",
                     headers={"Host": host, "Transfer-Encoding": "chunked"})
    sign_request(req, server.access_key, server.secret_key, payload_hash="UNSIGNED-PAYLOAD")
    lines = [f"PUT {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in req.headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _read_response(sock):
    """(status, headers dict with lowercase names, body) of one response; status 0 if none."""
    data = b""
    while b"\r\n\r\n" not in data:
        piece = sock.recv(65536)
        if not piece:
            return 0, {}, data
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        piece = sock.recv(65536)
        if not piece:
            break
        body += piece
    return int(lines[0].split()[1]), headers, body[:length]


def _closed_by_server(sock):
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _exchange(server, head, body_parts):
    """Sends `head` and then each of `body_parts` from a thread (the server may answer and close
    before it has them all) and reads the response. Returns (status, headers, body, closed)."""
    sock = socket.create_connection((server.host, server.port), timeout=10)

    def send():
        try:
            sock.sendall(head)
            for part in body_parts:
                sock.sendall(part)
        except OSError:
            pass  # the server answered and closed: expected for refused bodies

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        status, headers, body = _read_response(sock)
        # A refused request closes its connection; an answered one keeps it open.
        closed = status >= 400 and _closed_by_server(sock)
    finally:
        sock.close()
        sender.join(15)
    return status, headers, body, closed


def _endless(prefix, total, piece=1 << 20):
    """`prefix`, then `total` bytes of 'x' in pieces, never a CRLF."""
    yield prefix
    for _ in range(total // piece):
        yield b"x" * piece


def _assert_invalid_request(status, body, closed, phrase):
    assert status == 400, body
    root = ET.fromstring(body)
    assert root.findtext("Code") == "InvalidRequest", body
    assert phrase in root.findtext("Message"), body
    assert closed


def _assert_still_serves(s3, bucket):
    s3.put_object(Bucket=bucket, Key="after", Body=b"still here")
    assert s3.get_object(Bucket=bucket, Key="after")["Body"].read() == b"still here"


def test_chunked_put_with_a_small_extension_and_trailer_is_stored(server, s3, bucket):
    head = _signed_chunked_put_head(server, f"/{bucket}/ok")
    framing = b"5;e=" + b"x" * 4092 + b"\r\nhello\r\n0\r\nX-T: v\r\n\r\n"
    status, _, body, _ = _exchange(server, head, [framing])
    assert status == 200, body
    assert s3.get_object(Bucket=bucket, Key="ok")["Body"].read() == b"hello"


def test_huge_chunk_extension_is_refused_without_buffering(server, s3, bucket):
    start = server.peak_rss_kib()
    head = _signed_chunked_put_head(server, f"/{bucket}/ext")
    status, _, body, closed = _exchange(server, head, _endless(b"5;e=", ENDLESS))
    _assert_invalid_request(status, body, closed, "longer than 4096 bytes")
    growth = server.peak_rss_kib() - start
    assert growth < RSS_GROWTH_LIMIT_KIB, f"peak RSS grew by {growth} KiB"
    _assert_still_serves(s3, bucket)
    assert "ext" not in [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]


def test_huge_trailer_field_is_refused_without_buffering(server, s3, bucket):
    start = server.peak_rss_kib()
    head = _signed_chunked_put_head(server, f"/{bucket}/trailer")
    status, _, body, closed = _exchange(server, head,
                                        _endless(b"5\r\nhello\r\n0\r\nX-T: ", ENDLESS))
    _assert_invalid_request(status, body, closed,
                            f"trailer section of the chunked request body is longer than "
                            f"{HEADER_LIMIT} bytes")
    growth = server.peak_rss_kib() - start
    assert growth < RSS_GROWTH_LIMIT_KIB, f"peak RSS grew by {growth} KiB"
    _assert_still_serves(s3, bucket)


def _head_of_size(size):
    """A GET of /_cubby/ready of exactly `size` bytes, mostly 13-byte fields."""
    head = b"GET /_cubby/ready HTTP/1.1\r\nHost: x\r\n"
    i = 0
    while len(head) + 13 + 20 + 2 <= size:
        head += b"X-F%05d: v\r\n" % i
        i += 1
    filler = size - len(head) - 2 - 7 - 2
    head += b"X-Pad: " + b"p" * filler + b"\r\n\r\n"
    assert len(head) == size
    return head


def test_header_limit_counts_the_whole_head_exactly(server):
    for size, want in [(HEADER_LIMIT, 200), (HEADER_LIMIT + 1, 400), (127238, 400)]:
        status, headers, _, closed = _exchange(server, _head_of_size(size), [])
        assert status == want, size
        if want == 400:
            assert headers.get("connection") == "close"
            assert closed
