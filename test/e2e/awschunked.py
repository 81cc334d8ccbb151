"""aws-chunked request bodies for the end-to-end tests, built and signed here per AWS's spec.

https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html

Three modes (the x-amz-content-sha256 value):
  STREAMING-AWS4-HMAC-SHA256-PAYLOAD           signed chunks
  STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER   signed chunks + a signed trailer
  STREAMING-UNSIGNED-PAYLOAD-TRAILER           plain chunks + an unsigned trailer (what the SDKs
                                               send by default)

The seed (header) signature comes from botocore's SigV4 signer with the mode as payload hash; the
chunk and trailer signatures are computed here with hmac/hashlib:
  chunk:   "AWS4-HMAC-SHA256-PAYLOAD\\n" date "\\n" scope "\\n" previous-signature "\\n"
           sha256("") "\\n" sha256(chunk-data)
  trailer: "AWS4-HMAC-SHA256-TRAILER\\n" date "\\n" scope "\\n" previous-signature "\\n"
           sha256("name:value\\n")
"""

import base64
import hashlib
import hmac
import re
import zlib

from botocore.awsrequest import AWSRequest

import cubby_e2e

SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def crc32_b64(data):
    """x-amz-checksum-crc32: base64 of the big-endian CRC32."""
    return base64.b64encode((zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big")).decode()


def _hmac(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


def signing_key(secret_key, date, region, service="s3"):
    k = _hmac(("AWS4" + secret_key).encode(), date)
    k = _hmac(k, region)
    k = _hmac(k, service)
    return _hmac(k, "aws4_request")


class ChunkSigner:
    """Chains chunk signatures from the seed signature."""

    def __init__(self, secret_key, region, amz_date, seed_signature):
        self.amz_date = amz_date
        self.scope = f"{amz_date[:8]}/{region}/s3/aws4_request"
        self.key = signing_key(secret_key, amz_date[:8], region)
        self.previous = seed_signature

    def _sign(self, string_to_sign):
        sig = hmac.new(self.key, string_to_sign.encode(), hashlib.sha256).hexdigest()
        self.previous = sig
        return sig

    def chunk(self, data):
        return self._sign("\n".join([
            "AWS4-HMAC-SHA256-PAYLOAD", self.amz_date, self.scope, self.previous, EMPTY_SHA256,
            hashlib.sha256(data).hexdigest()]))

    def trailer(self, canonical_trailer):
        return self._sign("\n".join([
            "AWS4-HMAC-SHA256-TRAILER", self.amz_date, self.scope, self.previous,
            hashlib.sha256(canonical_trailer.encode()).hexdigest()]))


def split(data, chunk_size):
    return [data[i:i + chunk_size] for i in range(0, len(data), chunk_size)]


def streaming_put(server, path, data, mode=SIGNED, chunk_size=64 * 1024, trailer_value=None,
                  bad_chunk=None, bad_trailer_signature=False, drop_final_chunk=False,
                  extra_headers=None, decoded_length=None):
    """Builds a signed aws-chunked PUT of `data` to `path`; returns (headers, body).

    trailer_value: the x-amz-checksum-crc32 trailer value (default: the right CRC32 of `data`);
                   only for the *-TRAILER modes.
    bad_chunk: index of a chunk (the final empty chunk is len(chunks)) whose signature is
               replaced by a wrong one.
    bad_trailer_signature: send a wrong x-amz-trailer-signature.
    drop_final_chunk: end the body after the last data chunk (a truncated stream); the
                      Content-Length still matches the bytes sent.
    decoded_length: the x-amz-decoded-content-length to declare (default len(data)).
    """
    host = f"{server.host}:{server.port}"
    chunks = split(data, chunk_size)
    with_trailer = mode in (SIGNED_TRAILER, UNSIGNED_TRAILER)
    if with_trailer and trailer_value is None:
        trailer_value = crc32_b64(data)

    headers = {
        "Host": host,
        "Content-Encoding": "aws-chunked",
        "x-amz-decoded-content-length": str(len(data) if decoded_length is None
                                            else decoded_length),
    }
    if with_trailer:
        headers["x-amz-trailer"] = "x-amz-checksum-crc32"
    headers.update(extra_headers or {})

    def encode(signer):
        out = bytearray()
        for i, c in enumerate(chunks + [b""]):
            if drop_final_chunk and i == len(chunks):
                break
            if signer is None:
                out += f"{len(c):x}\r\n".encode()
            else:
                sig = signer.chunk(c)
                if bad_chunk == i:
                    sig = ("0" if sig[0] != "0" else "1") + sig[1:]
                out += f"{len(c):x};chunk-signature={sig}\r\n".encode()
            if c:
                out += c + b"\r\n"
        if drop_final_chunk:
            return bytes(out)
        if not with_trailer:
            out += b"\r\n"
            return bytes(out)
        out += f"x-amz-checksum-crc32:{trailer_value}\r\n".encode()
        if signer is not None:
            sig = signer.trailer(f"x-amz-checksum-crc32:{trailer_value}\n")
            if bad_trailer_signature:
                sig = ("0" if sig[0] != "0" else "1") + sig[1:]
            out += f"x-amz-trailer-signature:{sig}\r\n".encode()
        out += b"\r\n"
        return bytes(out)

    # The encoded length does not depend on signature values: size it with a dummy signer.
    probe = encode(None if mode == UNSIGNED_TRAILER else
                   ChunkSigner(server.secret_key, server.region, "20000101T000000Z", "0" * 64))
    headers["Content-Length"] = str(len(probe))

    req = AWSRequest(method="PUT", url=f"http://{host}{path}", data=b"", headers=headers)
    cubby_e2e.sign_request(req, server.access_key, server.secret_key, region=server.region,
                           payload_hash=mode)
    signed = dict(req.headers.items())
    if mode == UNSIGNED_TRAILER:
        body = encode(None)
    else:
        seed = re.search(r"Signature=([0-9a-f]{64})", signed["Authorization"]).group(1)
        body = encode(ChunkSigner(server.secret_key, server.region, signed["X-Amz-Date"], seed))
    assert len(body) == len(probe)
    return signed, body
