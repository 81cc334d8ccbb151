"""Helpers for the server-side encryption tests (issue 16): SSE-C keys and their headers, a KMS
client, error unpacking, response-header checks, segment-boundary sizes and ranges, and a GET
that survives a connection cut mid-body.

Every SSE-C key a test makes goes through new_ssec_key(), which remembers it, and every master
key a test reads through remember_master_key(): test_zz_secrets.py checks that none of them
appears in any server output of the session.
"""

import base64
import hashlib
import http.client
import os
import random

import boto3
import pytest
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.exceptions import ClientError

from cubby_e2e import sign_request

KIB = 1 << 10
MIB = 1 << 20
# crypt::kSegmentBytes: the plaintext size of one sealed segment.
SEGMENT = 64 * KIB
# Sizes on and around the segment boundaries, and a multi-segment one that ends mid-segment.
BOUNDARY_SIZES = [0, 1, SEGMENT - 1, SEGMENT, SEGMENT + 1, 3 * MIB + 3]

SSE = "x-amz-server-side-encryption"
SSE_KMS_KEY_ID = "x-amz-server-side-encryption-aws-kms-key-id"
SSE_CONTEXT = "x-amz-server-side-encryption-context"
SSE_BUCKET_KEY = "x-amz-server-side-encryption-bucket-key-enabled"
SSEC_ALG = "x-amz-server-side-encryption-customer-algorithm"
SSEC_KEY = "x-amz-server-side-encryption-customer-key"
SSEC_MD5 = "x-amz-server-side-encryption-customer-key-MD5"
COPY_SSEC_ALG = "x-amz-copy-source-server-side-encryption-customer-algorithm"
COPY_SSEC_KEY = "x-amz-copy-source-server-side-encryption-customer-key"
COPY_SSEC_MD5 = "x-amz-copy-source-server-side-encryption-customer-key-MD5"

# Every SSE-C key (raw bytes) and master key (file text) the session's tests used.
SSE_C_KEYS = set()
MASTER_KEYS = set()


# ---------------------------------------------------------------- SSE-C keys

class SsecKey:
    """A customer key: 32 random bytes, and the forms the headers and boto3 take."""

    def __init__(self, raw=None):
        self.raw = raw if raw is not None else os.urandom(32)
        SSE_C_KEYS.add(self.raw)
        self.b64 = base64.b64encode(self.raw).decode()
        self.md5_b64 = base64.b64encode(hashlib.md5(self.raw).digest()).decode()

    def params(self):
        """boto3 parameters of a request that writes or reads with this key."""
        return {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": self.raw}

    def copy_params(self):
        """boto3 parameters naming this key as a copy source's key."""
        return {"CopySourceSSECustomerAlgorithm": "AES256", "CopySourceSSECustomerKey": self.raw}

    def headers(self):
        return {SSEC_ALG: "AES256", SSEC_KEY: self.b64, SSEC_MD5: self.md5_b64}

    def copy_headers(self):
        return {COPY_SSEC_ALG: "AES256", COPY_SSEC_KEY: self.b64, COPY_SSEC_MD5: self.md5_b64}


def new_ssec_key():
    return SsecKey()


def remember_master_key(data_dir):
    """Reads DATA_DIR/master.key (if the server generated one) so test_zz_secrets can look for
    it in the logs. Returns its text or None."""
    path = os.path.join(str(data_dir), "master.key")
    if not os.path.exists(path):
        return None
    with open(path, encoding="ascii", errors="replace") as f:
        text = f.read().strip()
    if text:
        MASTER_KEYS.add(text)
    return text


# ---------------------------------------------------------------- clients and errors

def make_kms(server):
    """A boto3 KMS client for the KMS JSON API on the server's S3 port, with root's keys."""
    session = boto3.session.Session(aws_access_key_id=server.access_key,
                                    aws_secret_access_key=server.secret_key,
                                    region_name="us-east-1")
    cfg = Config(connect_timeout=10, read_timeout=60,
                 retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("kms", endpoint_url=server.endpoint, config=cfg)


def err(excinfo):
    """(code, HTTP status) of a boto3 ClientError. A HEAD has no body: its code is the status."""
    r = excinfo.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


def expect_error(call, code, status, **kwargs):
    """Runs call(**kwargs), which must fail with `code` and `status`; returns the ClientError."""
    with pytest.raises(ClientError) as excinfo:
        call(**kwargs)
    assert err(excinfo) == (code, status), excinfo.value.response
    return excinfo.value


def expect_head_status(s3, status, **kwargs):
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(**kwargs)
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == status, \
        excinfo.value.response
    return excinfo.value


def absent(s3, bucket, key):
    """True if HEAD says 404: nothing was stored."""
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(Bucket=bucket, Key=key)
    return excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def headers_of(response):
    """The raw HTTP response headers of a boto3 call (lower-case names)."""
    return {k.lower(): v for k, v in response["ResponseMetadata"]["HTTPHeaders"].items()}


def assert_no_sse_headers(response, keep=()):
    """No encryption response header except those named in `keep`."""
    h = headers_of(response)
    kept = {k.lower() for k in keep}
    for name in (SSE, SSE_KMS_KEY_ID, SSE_BUCKET_KEY, SSEC_ALG, SSEC_MD5, SSE_CONTEXT):
        if name.lower() not in kept:
            assert name.lower() not in h, (name, h)


def assert_sse_s3(response):
    h = headers_of(response)
    assert h.get(SSE.lower()) == "AES256", h
    assert_no_sse_headers(response, keep=(SSE,))


def assert_ssec(response, key):
    h = headers_of(response)
    assert h.get(SSEC_ALG.lower()) == "AES256", h
    assert h.get(SSEC_MD5.lower()) == key.md5_b64, h
    # AWS sends no x-amz-server-side-encryption for SSE-C, and never the key itself.
    assert SSE.lower() not in h, h
    assert SSEC_KEY.lower() not in h, h
    assert_no_sse_headers(response, keep=(SSEC_ALG, SSEC_MD5))


def assert_kms(response, key_arn):
    h = headers_of(response)
    assert h.get(SSE.lower()) == "aws:kms", h
    assert h.get(SSE_KMS_KEY_ID.lower()) == key_arn, h
    assert SSEC_ALG.lower() not in h and SSEC_MD5.lower() not in h, h


def not_md5_etag(etag, data):
    """AWS: objects encrypted with SSE-C or SSE-KMS have ETags that are not an MD5 digest of
    their data (UsingServerSideEncryption / API_Object ETag), so they reveal nothing of it."""
    assert etag.startswith('"') and etag.endswith('"'), etag
    assert etag != '"' + hashlib.md5(data).hexdigest() + '"', etag


# ---------------------------------------------------------------- data

def payload(size, seed=0):
    """Reproducible random bytes (incompressible, different in every segment, so a misplaced
    segment or an off-by-one range shows)."""
    return random.Random(f"sse-payload-{seed}").randbytes(size)


def get_range(s3, bucket, key, rng, **kwargs):
    r = s3.get_object(Bucket=bucket, Key=key, Range=rng, **kwargs)
    return r, r["Body"].read()


def http_range(rng, size):
    """The plaintext slice an HTTP Range header value selects of an object of `size` bytes."""
    spec = rng.split("=", 1)[1]
    first, last = spec.split("-", 1)
    if first == "":
        n = int(last)
        return slice(max(0, size - n), size)
    first = int(first)
    end = size if last == "" else min(int(last) + 1, size)
    return slice(first, end)


def content_range(rng, size):
    s = http_range(rng, size)
    return f"bytes {s.start}-{s.stop - 1}/{size}"


# Ranges that start or end on, or cross, the 64 KiB segment boundaries; each given with the
# smallest object size it is satisfiable for.
BOUNDARY_RANGES = [
    ("bytes=0-0", 1),
    ("bytes=0-65534", SEGMENT - 1),
    ("bytes=0-65535", SEGMENT),
    ("bytes=65535-65535", SEGMENT),
    ("bytes=65535-65536", SEGMENT + 1),
    ("bytes=65536-65536", SEGMENT + 1),
    ("bytes=65536-", SEGMENT + 1),
    ("bytes=65535-", SEGMENT),
    ("bytes=-1", 1),
    ("bytes=-65536", SEGMENT),
    ("bytes=-65537", SEGMENT + 1),
    ("bytes=1-", 2),
    ("bytes=131071-131072", 2 * SEGMENT + 1),
    ("bytes=100000-300000", 300001),
    ("bytes=65536-131071", 2 * SEGMENT),
    ("bytes=1000-3000000", 3000001),
    ("bytes=3145700-99999999", 3145701),  # ends past the object: served to its end
]


def check_ranges(s3, bucket, key, data, **kwargs):
    """Every BOUNDARY_RANGES range satisfiable for `data` returns the plaintext's slice."""
    checked = 0
    for rng, min_size in BOUNDARY_RANGES:
        if len(data) < min_size:
            continue
        r, body = get_range(s3, bucket, key, rng, **kwargs)
        assert r["ResponseMetadata"]["HTTPStatusCode"] == 206, rng
        assert body == data[http_range(rng, len(data))], rng
        assert r["ContentRange"] == content_range(rng, len(data)), rng
        assert r["ContentLength"] == len(body), rng
        checked += 1
    return checked


# ---------------------------------------------------------------- raw streaming GET

def streaming_get(server, path, headers=None, timeout=60):
    """A signed GET that tolerates a connection cut mid-body. Returns (status, headers, body,
    complete): complete is False when the body ended before Content-Length."""
    host = f"{server.host}:{server.port}"
    hdrs = {"Host": host}
    hdrs.update(headers or {})
    req = AWSRequest(method="GET", url=f"http://{host}{path}", data=b"", headers=hdrs)
    sign_request(req, server.access_key, server.secret_key, region=server.region)
    conn = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    body = bytearray()
    complete = True
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        for k, v in req.headers.items():
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        status, resp_headers = resp.status, resp.headers
        try:
            while True:
                chunk = resp.read1(1 << 16)
                if not chunk:
                    break
                body += chunk
        except (http.client.IncompleteRead, ConnectionError) as e:
            if isinstance(e, http.client.IncompleteRead):
                body += e.partial
            complete = False
        length = resp_headers.get("Content-Length")
        if length is not None and len(body) != int(length):
            complete = False
        return status, resp_headers, bytes(body), complete
    finally:
        conn.close()
