"""Encryption requests cubby refuses before anything is read or stored: SSE-C over plain HTTP
(AWS accepts customer keys over HTTPS only; --allow-sse-c-over-http lifts it for tests),
dual-layer aws:kms:dsse (not implemented: 501), and a method AWS does not know (400). Object lock
is implemented (test_object_lock.py): its headers are no longer refused here."""

import base64
import hashlib
import io
import os

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import make_client, new_bucket_name, raw_request

SSE_C_KEY = os.urandom(32)
SSE_C = {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": SSE_C_KEY}
COPY_SSE_C = {"CopySourceSSECustomerAlgorithm": "AES256", "CopySourceSSECustomerKey": SSE_C_KEY}
HTTPS_ONLY = ("Requests specifying Server Side Encryption with Customer provided keys must be "
              "made over a secure connection.")
SSE_C_HEADERS = {
    "x-amz-server-side-encryption-customer-algorithm": "AES256",
    "x-amz-server-side-encryption-customer-key": base64.b64encode(SSE_C_KEY).decode(),
    "x-amz-server-side-encryption-customer-key-MD5":
        base64.b64encode(hashlib.md5(SSE_C_KEY).digest()).decode()}


def error_of(excinfo):
    return (excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"],
            excinfo.value.response["Error"].get("Code"),
            excinfo.value.response["Error"].get("Message"))


def missing(s3, bucket, key):
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(Bucket=bucket, Key=key)
    return excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_sse_c_over_http_refused_and_not_stored(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="k", Body=b"secret bytes", **SSE_C)
    assert error_of(excinfo) == (400, "InvalidRequest", HTTPS_ONLY)
    assert missing(s3, bucket, "k")
    with pytest.raises(ClientError) as excinfo:
        s3.create_multipart_upload(Bucket=bucket, Key="k", **SSE_C)
    assert error_of(excinfo) == (400, "InvalidRequest", HTTPS_ONLY)
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    s3.put_object(Bucket=bucket, Key="src", Body=b"plain")
    with pytest.raises(ClientError) as excinfo:
        s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "src"},
                       **SSE_C)
    assert error_of(excinfo) == (400, "InvalidRequest", HTTPS_ONLY)
    assert missing(s3, bucket, "k")
    # A read naming a key is refused the same way (the key would travel in clear).
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="src", **SSE_C)
    assert error_of(excinfo) == (400, "InvalidRequest", HTTPS_ONLY)


def test_dsse_is_not_implemented_and_not_stored(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="k", Body=b"secret", ServerSideEncryption="aws:kms:dsse")
    status, code, _ = error_of(excinfo)
    assert (status, code) == (501, "NotImplemented")
    assert missing(s3, bucket, "k")


def test_object_lock_is_no_longer_refused(s3, bucket):
    name = new_bucket_name()
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    assert s3.get_object_lock_configuration(
        Bucket=name)["ObjectLockConfiguration"]["ObjectLockEnabled"] == "Enabled"
    # On a bucket without object lock its headers are S3's InvalidRequest, not NotImplemented.
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", ObjectLockLegalHoldStatus="ON")
    assert excinfo.value.response["Error"]["Code"] == "InvalidRequest"
    assert missing(s3, bucket, "k")


def test_create_bucket_with_object_lock_false_works(s3):
    name = new_bucket_name()
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=False)
    s3.head_bucket(Bucket=name)


def test_unknown_sse_method_is_invalid_argument(server, bucket):
    # AWS names the methods it knows; another one is InvalidArgument "The encryption method
    # specified is not supported" (a client error, not a missing feature).
    r = raw_request(server, "PUT", f"/{bucket}/k", headers={"x-amz-server-side-encryption": "DES"},
                    body=b"data")
    assert r.status == 400, r
    assert r.code == "InvalidArgument"
    assert r.error()["Message"] == "The encryption method specified is not supported"
    assert raw_request(server, "HEAD", f"/{bucket}/k").status == 404


def test_large_sse_c_put_over_http_refused_and_not_stored(server, bucket):
    # A body larger than the server's first read: refused before it is read, nothing stored.
    body = os.urandom(3 << 20)
    r = raw_request(server, "PUT", f"/{bucket}/big", body=body, headers=SSE_C_HEADERS)
    assert r.status == 400, r
    assert r.code == "InvalidRequest"
    assert raw_request(server, "HEAD", f"/{bucket}/big").status == 404


def test_refused_file_upload_then_more_requests_on_the_same_connection(server, bucket):
    # botocore sends a file-like body with "Expect: 100-continue"; the refusal comes before the
    # body is read, and the pooled connection must still carry the next requests.
    s3 = make_client(server, max_pool_connections=1, read_timeout=5)
    for size in (0, 1000, 1 << 20):
        with pytest.raises(ClientError) as excinfo:
            s3.put_object(Bucket=bucket, Key="k", Body=io.BytesIO(b"x" * size), **SSE_C)
        assert error_of(excinfo) == (400, "InvalidRequest", HTTPS_ONLY)
        s3.put_object(Bucket=bucket, Key="after", Body=io.BytesIO(b"after"))
        assert s3.get_object(Bucket=bucket, Key="after")["Body"].read() == b"after"
    assert missing(s3, bucket, "k")
