"""Server-side encryption, which cubby does not implement yet: a request that asks for it is
refused with 501 NotImplemented before anything is read or stored, so a client that asked for
protection is told it got none. Object lock is implemented (test_object_lock.py): its headers are
no longer refused here."""

import base64
import hashlib
import io
import os

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import make_client, new_bucket_name, raw_request

SSE_MESSAGE = "Server-side encryption is not implemented by cubby"

SSE_C_KEY = os.urandom(32)
SSE_C = {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": SSE_C_KEY}
COPY_SSE_C = {"CopySourceSSECustomerAlgorithm": "AES256", "CopySourceSSECustomerKey": SSE_C_KEY}

# Each way boto3 asks a write for encryption: (name, extra call parameters, message).
WRITE_ASKS = [
    ("sse-c", SSE_C, SSE_MESSAGE),
    ("sse-s3", {"ServerSideEncryption": "AES256"}, SSE_MESSAGE),
    ("sse-kms", {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": "alias/cubby"}, SSE_MESSAGE),
    ("sse-kms-context", {"ServerSideEncryption": "aws:kms",
                         "SSEKMSEncryptionContext": base64.b64encode(b'{"a":"b"}').decode()},
     SSE_MESSAGE),
    ("sse-dsse", {"ServerSideEncryption": "aws:kms:dsse"}, SSE_MESSAGE),
    ("bucket-key", {"ServerSideEncryption": "aws:kms", "BucketKeyEnabled": True}, SSE_MESSAGE),
]
WRITE_IDS = [w[0] for w in WRITE_ASKS]


def refused(excinfo, message):
    err = excinfo.value.response["Error"]
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501
    assert err["Code"] == "NotImplemented"
    assert err["Message"].startswith(message + " ("), err["Message"]  # then the header's name


def missing(s3, bucket, key):
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(Bucket=bucket, Key=key)
    return excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


@pytest.mark.parametrize("name,extra,message", WRITE_ASKS, ids=WRITE_IDS)
def test_put_object_refused_and_not_stored(s3, bucket, name, extra, message):
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="k", Body=b"secret bytes", **extra)
    refused(excinfo, message)
    assert missing(s3, bucket, "k")


@pytest.mark.parametrize("name,extra,message", WRITE_ASKS, ids=WRITE_IDS)
def test_copy_object_refused_and_not_stored(s3, bucket, name, extra, message):
    s3.put_object(Bucket=bucket, Key="src", Body=b"plain")
    with pytest.raises(ClientError) as excinfo:
        s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"},
                       **extra)
    refused(excinfo, message)
    assert missing(s3, bucket, "dst")


@pytest.mark.parametrize("name,extra,message", WRITE_ASKS, ids=WRITE_IDS)
def test_create_multipart_upload_refused(s3, bucket, name, extra, message):
    with pytest.raises(ClientError) as excinfo:
        s3.create_multipart_upload(Bucket=bucket, Key="mp", **extra)
    refused(excinfo, message)
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_copy_from_encrypted_source_refused(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"plain")
    with pytest.raises(ClientError) as excinfo:
        s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"},
                       **COPY_SSE_C)
    refused(excinfo, SSE_MESSAGE)
    assert missing(s3, bucket, "dst")


def test_upload_part_and_part_copy_with_sse_c_refused(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"plain")
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    with pytest.raises(ClientError) as excinfo:
        s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1, Body=b"x" * 100,
                       **SSE_C)
    refused(excinfo, SSE_MESSAGE)
    for extra in (SSE_C, COPY_SSE_C):
        with pytest.raises(ClientError) as excinfo:
            s3.upload_part_copy(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=2,
                                CopySource={"Bucket": bucket, "Key": "src"}, **extra)
        refused(excinfo, SSE_MESSAGE)
    assert s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload).get("Parts", []) == []
    s3.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload)


def test_get_and_head_with_sse_c_refused(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"plain")
    with pytest.raises(ClientError) as excinfo:
        s3.get_object(Bucket=bucket, Key="k", **SSE_C)
    refused(excinfo, SSE_MESSAGE)
    with pytest.raises(ClientError) as excinfo:
        s3.head_object(Bucket=bucket, Key="k", **SSE_C)
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"plain"


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


def test_large_sse_c_put_refused_and_not_stored(server, bucket):
    # A body larger than the server's first read: refused before it is read, nothing stored.
    body = os.urandom(3 << 20)
    md5 = base64.b64encode(hashlib.md5(SSE_C_KEY).digest()).decode()
    r = raw_request(server, "PUT", f"/{bucket}/big", body=body, headers={
        "x-amz-server-side-encryption-customer-algorithm": "AES256",
        "x-amz-server-side-encryption-customer-key": base64.b64encode(SSE_C_KEY).decode(),
        "x-amz-server-side-encryption-customer-key-MD5": md5})
    assert r.status == 501, r
    assert r.code == "NotImplemented"
    assert raw_request(server, "HEAD", f"/{bucket}/big").status == 404


def test_refused_file_upload_then_more_requests_on_the_same_connection(server, bucket):
    # botocore sends a file-like body with "Expect: 100-continue"; the refusal comes before the
    # body is read, and the pooled connection must still carry the next requests.
    s3 = make_client(server, max_pool_connections=1, read_timeout=5)
    for size in (0, 1000, 1 << 20):
        with pytest.raises(ClientError) as excinfo:
            s3.put_object(Bucket=bucket, Key="k", Body=io.BytesIO(b"x" * size),
                          ServerSideEncryption="AES256")
        refused(excinfo, SSE_MESSAGE)
        s3.put_object(Bucket=bucket, Key="after", Body=io.BytesIO(b"after"))
        assert s3.get_object(Bucket=bucket, Key="after")["Body"].read() == b"after"
    assert missing(s3, bucket, "k")
