"""A stand-in S3 endpoint for testing cubby-loadgen without cubby (bench/loadgen_test.sh).

Keep-alive HTTP/1.1: PUT /bucket/key stores the body, GET returns it, PUT /bucket creates,
GET /bucket?list-type=2 lists the bucket's keys in pages (max-keys, continuation-token; the
token deliberately holds '&', '+', '/' and '=' so that it must be XML-decoded and URL-encoded).
Every request's SigV4 Authorization is recomputed with botocore (an independent
implementation) and a mismatch answers 403 SignatureDoesNotMatch; a signed payload's SHA-256
is checked against the body. MODE makes the answers misbehave in one way, to provoke one
client error path:
  ok        well-formed answers with Content-Length
  chunked   GET bodies with Transfer-Encoding: chunked, in uneven chunks
  close     every answer carries Connection: close and the connection is closed
  corrupt   GET bodies have one bit flipped
  short     GET answers promise more bytes than they send, then close
  stall     requests are read but never answered
  notoken   listing pages say IsTruncated=true but carry no NextContinuationToken
  nosse     x-amz-server-side-encryption is accepted but never answered (in every other
            mode a PUT that asks for it gets it back, and so does every GET of that object)
Prints "s3_endpoint=http://127.0.0.1:PORT" once listening.

usage: /usr/bin/python3 fake_s3.py MODE ACCESS_KEY SECRET_KEY
"""
import base64
import datetime
import hashlib
import sys
import urllib.parse
from xml.sax.saxutils import escape
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

MODE, ACCESS_KEY, SECRET_KEY = sys.argv[1], sys.argv[2], sys.argv[3]
MODES = {"ok", "chunked", "close", "corrupt", "short", "stall", "notoken", "nosse"}
SSE = "x-amz-server-side-encryption"
if MODE not in MODES:
    sys.exit("unknown mode " + MODE)

store = {}
encrypted = {}  # path -> the x-amz-server-side-encryption its PUT asked for
lock = threading.Lock()
sign_lock = threading.Lock()  # the clock patch below is process-wide


def expected_authorization(method, host, path, headers):
    """The Authorization botocore computes for this request at its x-amz-date."""
    claimed = headers["x-amz-content-sha256"]
    amz_date = headers["x-amz-date"]

    class Signer(botocore.auth.S3SigV4Auth):
        def payload(self, request):
            return claimed

    signed = {"x-amz-content-sha256": claimed, "x-amz-date": amz_date}
    if headers.get(SSE) is not None:
        signed[SSE] = headers[SSE]
    request = AWSRequest(method=method, url="http://" + host + path, headers=signed)
    fixed = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ")
    real = botocore.auth.datetime.datetime

    class FixedClock(real):
        @classmethod
        def utcnow(cls):
            return fixed

    with sign_lock:
        botocore.auth.datetime.datetime = FixedClock
        try:
            Signer(Credentials(ACCESS_KEY, SECRET_KEY), "s3", "us-east-1").add_auth(request)
        finally:
            botocore.auth.datetime.datetime = real
    return request.headers["Authorization"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def error(self, status, code):
        body = ("<Error><Code>%s</Code></Error>" % code).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def authorized(self, body):
        auth = self.headers.get("authorization", "")
        try:
            want = expected_authorization(self.command, self.headers["host"], self.path,
                                          self.headers)
        except (KeyError, ValueError):
            want = None
        if want is None or auth != want:
            self.error(403, "SignatureDoesNotMatch")
            return False
        claimed = self.headers["x-amz-content-sha256"]
        if claimed != "UNSIGNED-PAYLOAD" and claimed != hashlib.sha256(body).hexdigest():
            self.error(400, "XAmzContentSHA256Mismatch")
            return False
        return True

    reply_sse = None  # set by each do_PUT/do_GET: the x-amz-server-side-encryption answered

    def start(self, status, length=None):
        self.send_response(status)
        if length is not None:
            self.send_header("Content-Length", str(length))
        if self.reply_sse:
            self.send_header(SSE, self.reply_sse)
        if MODE == "close":
            self.send_header("Connection", "close")
            self.close_connection = True

    def do_PUT(self):
        self.reply_sse = None
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if MODE == "stall":
            time.sleep(3600)
        if not self.authorized(body):
            return
        sse = self.headers.get(SSE)
        with lock:
            store[self.path] = body
            encrypted[self.path] = sse
        self.reply_sse = sse if MODE != "nosse" else None
        self.start(200, 0)
        self.end_headers()

    def list_objects(self, bucket, query):
        params = urllib.parse.parse_qs(query, keep_blank_values=True)
        max_keys = int(params.get("max-keys", ["1000"])[0])
        token = params.get("continuation-token", [None])[0]
        after = ""
        if token is not None:
            if not token.startswith("tok&"):
                return self.error(400, "InvalidArgument")
            after = base64.b64decode(token[4:].split("&")[0]).decode()
        base = "/" + bucket + "/"
        with lock:
            keys = sorted(k[len(base):] for k in store if k.startswith(base))
        keys = [k for k in keys if k > after]
        page, truncated = keys[:max_keys], len(keys) > max_keys
        parts = ["<ListBucketResult><Name>%s</Name><KeyCount>%d</KeyCount>"
                 "<IsTruncated>%s</IsTruncated>" % (bucket, len(page), "true" if truncated else "false")]
        parts += ["<Contents><Key>%s</Key><Size>0</Size></Contents>" % escape(k) for k in page]
        if truncated and MODE != "notoken":
            next_token = "tok&" + base64.b64encode(page[-1].encode()).decode() + "&+/="
            parts.append("<NextContinuationToken>%s</NextContinuationToken>" % escape(next_token))
        body = ("".join(parts) + "</ListBucketResult>").encode()
        self.start(200, len(body))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply_sse = None
        if not self.authorized(b""):
            return
        path, _, query = self.path.partition("?")
        if path.count("/") == 1:
            return self.list_objects(path[1:], query)
        with lock:
            data = store.get(self.path)
            sse = encrypted.get(self.path)
        self.reply_sse = sse if MODE != "nosse" else None
        if data is None:
            return self.error(404, "NoSuchKey")
        if MODE == "corrupt" and data:
            data = data[:-1] + bytes([data[-1] ^ 1])
        if MODE == "chunked":
            self.start(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pos, step = 0, 1
            while pos < len(data):
                piece = data[pos:pos + step]
                self.wfile.write(b"%x;ext=1\r\n%s\r\n" % (len(piece), piece))
                pos += len(piece)
                step = step * 7 + 3
            self.wfile.write(b"0\r\nx-trailer: y\r\n\r\n")
            return
        if MODE == "short":
            self.start(200, len(data) + 10)
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True
            return
        self.start(200, len(data))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print("s3_endpoint=http://127.0.0.1:%d" % server.server_address[1], flush=True)
server.serve_forever()
