"""Copies between encryption modes, issue 16 (API_CopyObject, API_UploadPartCopy,
ServerSideEncryptionCustomerKeys.html "Copying objects"): CopyObject between every pair of
{none, SSE-S3, SSE-C, SSE-KMS} (the target's mode comes from the copy request's headers, an SSE-C
source is read with the x-amz-copy-source-server-side-encryption-customer-* headers), a copy onto
itself that changes only the encryption, and UploadPartCopy from each mode into an SSE-C and an
SSE-S3 upload."""

import pytest

from cubby_e2e import make_client, new_bucket_name, quoted_md5
from sse_e2e import (MIB, SEGMENT, absent, assert_kms, assert_no_sse_headers, assert_sse_s3,
                     assert_ssec, expect_error, make_kms, new_ssec_key, payload)

MODES = ["none", "sse-s3", "sse-c", "sse-kms"]


class Env:
    """A server that takes SSE-C over HTTP, a bucket, and a KMS key."""

    def __init__(self, srv):
        self.srv = srv
        self.s3 = make_client(srv)
        self.bucket = new_bucket_name("copy")
        self.s3.create_bucket(Bucket=self.bucket)
        self.kms_key = make_kms(srv).create_key()["KeyMetadata"]

    def write_params(self, mode, ssec_key):
        """Parameters of a PUT/CopyObject/CreateMultipartUpload that make `mode`."""
        if mode == "none":
            return {}
        if mode == "sse-s3":
            return {"ServerSideEncryption": "AES256"}
        if mode == "sse-c":
            return ssec_key.params()
        if mode == "sse-kms":
            return {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": self.kms_key["KeyId"]}
        raise AssertionError(mode)

    def read_params(self, mode, ssec_key):
        return ssec_key.params() if mode == "sse-c" else {}

    def copy_source_params(self, mode, ssec_key):
        return ssec_key.copy_params() if mode == "sse-c" else {}

    def check_headers(self, response, mode, ssec_key):
        if mode == "none":
            assert_no_sse_headers(response)
        elif mode == "sse-s3":
            assert_sse_s3(response)
        elif mode == "sse-c":
            assert_ssec(response, ssec_key)
        elif mode == "sse-kms":
            assert_kms(response, self.kms_key["Arn"])
        else:
            raise AssertionError(mode)


@pytest.fixture
def env(start_server):
    return Env(start_server(args=["--allow-sse-c-over-http"]))


@pytest.mark.parametrize("target", MODES)
@pytest.mark.parametrize("source", MODES)
def test_copy_object_between_modes(env, source, target):
    s3, b = env.s3, env.bucket
    src_key, dst_key = new_ssec_key(), new_ssec_key()
    data = payload(2 * SEGMENT + 11, seed=f"{source}>{target}")
    put = s3.put_object(Bucket=b, Key="src", Body=data, **env.write_params(source, src_key))
    env.check_headers(put, source, src_key)
    r = s3.copy_object(Bucket=b, Key="dst", CopySource={"Bucket": b, "Key": "src"},
                       **env.write_params(target, dst_key),
                       **env.copy_source_params(source, src_key))
    env.check_headers(r, target, dst_key)
    if target in ("none", "sse-s3"):
        assert r["CopyObjectResult"]["ETag"] == quoted_md5(data)
    g = s3.get_object(Bucket=b, Key="dst", **env.read_params(target, dst_key))
    assert g["Body"].read() == data
    env.check_headers(g, target, dst_key)
    h = s3.head_object(Bucket=b, Key="dst", **env.read_params(target, dst_key))
    env.check_headers(h, target, dst_key)
    assert h["ContentLength"] == len(data)
    # A range across a segment boundary of the copy.
    rg = s3.get_object(Bucket=b, Key="dst", Range="bytes=65530-65545",
                       **env.read_params(target, dst_key))
    assert rg["Body"].read() == data[65530:65546]
    # The source is untouched.
    s = s3.get_object(Bucket=b, Key="src", **env.read_params(source, src_key))
    assert s["Body"].read() == data
    env.check_headers(s, source, src_key)
    if target == "sse-c":
        # The copy answers to the new key only.
        expect_error(s3.get_object, "InvalidRequest", 400, Bucket=b, Key="dst")
        if source == "sse-c":
            expect_error(s3.get_object, "AccessDenied", 403, Bucket=b, Key="dst",
                         **src_key.params())


def test_copy_to_itself_unchanged_is_invalid(env):
    s3, b = env.s3, env.bucket
    s3.put_object(Bucket=b, Key="k", Body=b"plain")
    expect_error(s3.copy_object, "InvalidRequest", 400, Bucket=b, Key="k",
                 CopySource={"Bucket": b, "Key": "k"})


def test_copy_to_itself_changing_only_encryption(env):
    s3, b = env.s3, env.bucket
    data = payload(SEGMENT * 3 + 1)
    src = {"Bucket": b, "Key": "k"}
    s3.put_object(Bucket=b, Key="k", Body=data, Metadata={"m": "v"})
    # none -> SSE-S3
    r = s3.copy_object(Bucket=b, Key="k", CopySource=src, ServerSideEncryption="AES256")
    assert_sse_s3(r)
    h = s3.head_object(Bucket=b, Key="k")
    assert_sse_s3(h)
    assert h["Metadata"] == {"m": "v"}  # MetadataDirective COPY keeps it
    # SSE-S3 -> SSE-KMS
    r = s3.copy_object(Bucket=b, Key="k", CopySource=src, **env.write_params("sse-kms", None))
    assert_kms(r, env.kms_key["Arn"])
    # SSE-KMS -> SSE-C
    k1 = new_ssec_key()
    r = s3.copy_object(Bucket=b, Key="k", CopySource=src, **k1.params())
    assert_ssec(r, k1)
    # SSE-C -> SSE-C under another key (key rotation by the customer)
    k2 = new_ssec_key()
    r = s3.copy_object(Bucket=b, Key="k", CopySource=src, **k2.params(), **k1.copy_params())
    assert_ssec(r, k2)
    expect_error(s3.get_object, "AccessDenied", 403, Bucket=b, Key="k", **k1.params())
    assert s3.get_object(Bucket=b, Key="k", **k2.params())["Body"].read() == data
    # SSE-C -> SSE-S3
    r = s3.copy_object(Bucket=b, Key="k", CopySource=src, ServerSideEncryption="AES256",
                       **k2.copy_params())
    assert_sse_s3(r)
    g = s3.get_object(Bucket=b, Key="k")
    assert_sse_s3(g)
    assert g["Body"].read() == data
    assert g["Metadata"] == {"m": "v"}


def test_copy_failure_stores_nothing(env):
    s3, b = env.s3, env.bucket
    k = new_ssec_key()
    s3.put_object(Bucket=b, Key="src", Body=b"secret", **k.params())
    expect_error(s3.copy_object, "InvalidRequest", 400, Bucket=b, Key="dst",
                 CopySource={"Bucket": b, "Key": "src"}, ServerSideEncryption="AES256")
    assert absent(s3, b, "dst")


@pytest.mark.parametrize("target", ["sse-c", "sse-s3"])
@pytest.mark.parametrize("source", MODES)
def test_upload_part_copy_from_each_mode(env, source, target):
    s3, b = env.s3, env.bucket
    src_key, dst_key = new_ssec_key(), new_ssec_key()
    data = payload(5 * MIB + 3, seed=f"{source}>{target}")
    s3.put_object(Bucket=b, Key="src", Body=data, **env.write_params(source, src_key))
    c = s3.create_multipart_upload(Bucket=b, Key="mp", **env.write_params(target, dst_key))
    env.check_headers(c, target, dst_key)
    upload_id = c["UploadId"]
    src = {"Bucket": b, "Key": "src"}
    # Part 1: the whole source; part 2: a range across a segment boundary.
    p1 = s3.upload_part_copy(Bucket=b, Key="mp", UploadId=upload_id, PartNumber=1,
                             CopySource=src, **env.copy_source_params(source, src_key),
                             **env.read_params(target, dst_key))
    env.check_headers(p1, target, dst_key)
    p2 = s3.upload_part_copy(Bucket=b, Key="mp", UploadId=upload_id, PartNumber=2,
                             CopySource=src, CopySourceRange="bytes=65530-131080",
                             **env.copy_source_params(source, src_key),
                             **env.read_params(target, dst_key))
    env.check_headers(p2, target, dst_key)
    if target == "sse-c":
        # Every part of an SSE-C upload needs the upload's key.
        expect_error(s3.upload_part_copy, "InvalidRequest", 400, Bucket=b, Key="mp",
                     UploadId=upload_id, PartNumber=3, CopySource=src,
                     **env.copy_source_params(source, src_key))
    done = s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=upload_id, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": p1["CopyPartResult"]["ETag"]},
                  {"PartNumber": 2, "ETag": p2["CopyPartResult"]["ETag"]}]})
    if target == "sse-s3":
        assert_sse_s3(done)
    g = s3.get_object(Bucket=b, Key="mp", **env.read_params(target, dst_key))
    env.check_headers(g, target, dst_key)
    assert g["Body"].read() == data + data[65530:131081]
