"""SSE-KMS (x-amz-server-side-encryption: aws:kms), issue 16, with keys made through cubby's KMS
JSON API on the S3 port, as AWS documents it (UsingKMSEncryption.html,
specifying-kms-encryption.html, API_PutObject/GetObject/HeadObject/CopyObject/
CreateMultipartUpload/UploadPart/CompleteMultipartUpload, ErrorResponses.html): the key named by
id, ARN or alias, the AWS managed key aws/s3 when none is named, the response headers on every
operation, the bucket-key and encryption-context headers, and the errors for unknown, disabled
and pending-deletion keys."""

import base64
import re
import uuid

import boto3
import pytest

from cubby_e2e import get_url, make_client, new_bucket_name, raw_request
from sse_e2e import (MIB, SEGMENT, SSE, SSE_BUCKET_KEY, SSE_CONTEXT, SSE_KMS_KEY_ID, absent,
                     assert_kms, check_ranges, expect_error, headers_of, make_kms, not_md5_etag,
                     payload)

ARN_RE = re.compile(r"^arn:aws:kms:us-east-1:[0-9]{12}:key/[0-9a-f-]{36}$")


@pytest.fixture
def kms(server):
    return make_kms(server)


@pytest.fixture
def kms_key(kms):
    meta = kms.create_key(Description="sse tests")["KeyMetadata"]
    assert ARN_RE.match(meta["Arn"]), meta
    assert meta["KeyState"] == "Enabled" and meta["Enabled"]
    return meta


def kms_params(key_id=None, **extra):
    p = {"ServerSideEncryption": "aws:kms"}
    if key_id is not None:
        p["SSEKMSKeyId"] = key_id
    p.update(extra)
    return p


@pytest.mark.parametrize("naming", ["id", "arn", "alias", "alias-arn"])
def test_put_get_head_with_named_key(s3, bucket, kms, kms_key, naming):
    alias = "alias/sse-test-" + uuid.uuid4().hex[:8]
    kms.create_alias(AliasName=alias, TargetKeyId=kms_key["KeyId"])
    key_id = {"id": kms_key["KeyId"], "arn": kms_key["Arn"], "alias": alias,
              "alias-arn": kms_key["Arn"].split(":key/")[0] + ":" + alias}[naming]
    data = payload(2 * SEGMENT + 1)
    r = s3.put_object(Bucket=bucket, Key="k", Body=data, **kms_params(key_id))
    # The response names the key by its ARN, whichever way the request named it.
    assert_kms(r, kms_key["Arn"])
    assert r["ServerSideEncryption"] == "aws:kms"
    assert r["SSEKMSKeyId"] == kms_key["Arn"]
    not_md5_etag(r["ETag"], data)
    g = s3.get_object(Bucket=bucket, Key="k")
    assert_kms(g, kms_key["Arn"])
    assert g["Body"].read() == data
    assert g["ETag"] == r["ETag"]
    h = s3.head_object(Bucket=bucket, Key="k")
    assert_kms(h, kms_key["Arn"])
    assert h["ContentLength"] == len(data)
    (listed,) = s3.list_objects_v2(Bucket=bucket)["Contents"]
    assert (listed["Size"], listed["ETag"]) == (len(data), r["ETag"])


def test_ranges(s3, bucket, kms_key):
    data = payload(3 * MIB + 3, seed=5)
    s3.put_object(Bucket=bucket, Key="r", Body=data, **kms_params(kms_key["KeyId"]))
    assert check_ranges(s3, bucket, "r", data) >= 8


def test_aws_managed_key_when_none_named(s3, bucket, kms):
    r = s3.put_object(Bucket=bucket, Key="a", Body=b"managed", **kms_params())
    h = headers_of(r)
    assert h.get(SSE) == "aws:kms", h
    arn = h.get(SSE_KMS_KEY_ID)
    assert arn and ARN_RE.match(arn), h
    # It is the AWS managed key alias/aws/s3, the same for every such PUT.
    meta = kms.describe_key(KeyId="alias/aws/s3")["KeyMetadata"]
    assert meta["Arn"] == arn
    assert meta.get("KeyManager") == "AWS"
    r2 = s3.put_object(Bucket=bucket, Key="b", Body=b"managed too", **kms_params())
    assert headers_of(r2).get(SSE_KMS_KEY_ID) == arn
    g = s3.get_object(Bucket=bucket, Key="a")
    assert_kms(g, arn)
    assert g["Body"].read() == b"managed"


def test_multipart_headers(s3, bucket, kms_key):
    arn = kms_key["Arn"]
    c = s3.create_multipart_upload(Bucket=bucket, Key="mp", **kms_params(kms_key["KeyId"]))
    assert_kms(c, arn)
    upload_id = c["UploadId"]
    parts = [payload(5 * MIB + 1, seed=1), payload(12345, seed=2)]
    done = []
    for number, data in zip((1, 3), parts):
        r = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=number,
                           Body=data)
        assert_kms(r, arn)
        done.append({"PartNumber": number, "ETag": r["ETag"]})
    done_r = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload_id,
                                          MultipartUpload={"Parts": done})
    assert_kms(done_r, arn)
    g = s3.get_object(Bucket=bucket, Key="mp")
    assert_kms(g, arn)
    whole = b"".join(parts)
    assert g["Body"].read() == whole
    p = s3.get_object(Bucket=bucket, Key="mp", PartNumber=2)
    assert p["Body"].read() == parts[1]
    assert_kms(p, arn)


def test_copy_headers(s3, bucket, kms_key):
    data = payload(SEGMENT + 100)
    s3.put_object(Bucket=bucket, Key="src", Body=data)
    r = s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"},
                       **kms_params(kms_key["KeyId"]))
    assert_kms(r, kms_key["Arn"])
    g = s3.get_object(Bucket=bucket, Key="dst")
    assert_kms(g, kms_key["Arn"])
    assert g["Body"].read() == data


def test_bucket_key_enabled_echoed(s3, bucket, kms_key):
    r = s3.put_object(Bucket=bucket, Key="bk", Body=b"x",
                      **kms_params(kms_key["KeyId"], BucketKeyEnabled=True))
    assert_kms(r, kms_key["Arn"])
    assert headers_of(r).get(SSE_BUCKET_KEY) == "true"
    assert r["BucketKeyEnabled"] is True
    for resp in (s3.get_object(Bucket=bucket, Key="bk"), s3.head_object(Bucket=bucket, Key="bk")):
        assert headers_of(resp).get(SSE_BUCKET_KEY) == "true"
    c = s3.create_multipart_upload(Bucket=bucket, Key="mp",
                                   **kms_params(kms_key["KeyId"], BucketKeyEnabled=True))
    assert headers_of(c).get(SSE_BUCKET_KEY) == "true"


def b64(text):
    return base64.b64encode(text.encode()).decode()


def test_encryption_context_accepted(s3, bucket, kms_key):
    ctx = b64('{"department":"lab","project":"cubby"}')
    r = s3.put_object(Bucket=bucket, Key="ctx", Body=b"with context",
                      **kms_params(kms_key["KeyId"], SSEKMSEncryptionContext=ctx))
    assert_kms(r, kms_key["Arn"])
    assert s3.get_object(Bucket=bucket, Key="ctx")["Body"].read() == b"with context"
    c = s3.create_multipart_upload(Bucket=bucket, Key="mp",
                                   **kms_params(kms_key["KeyId"], SSEKMSEncryptionContext=ctx))
    assert_kms(c, kms_key["Arn"])


@pytest.mark.parametrize("ctx", ["not base64!!", b64("not json"), b64('{"a": "b"'),
                                 b64('["a", "b"]')],
                         ids=["bad-base64", "not-json", "truncated-json", "json-array"])
def test_encryption_context_invalid(s3, bucket, kms_key, ctx):
    expect_error(s3.put_object, "InvalidArgument", 400, Bucket=bucket, Key="ctx", Body=b"x",
                 **kms_params(kms_key["KeyId"], SSEKMSEncryptionContext=ctx))
    assert absent(s3, bucket, "ctx")


@pytest.mark.parametrize("key_id", ["11111111-2222-3333-4444-555555555555", "alias/no-such-alias",
                                    "arn:aws:kms:us-east-1:000000000000:key/"
                                    "11111111-2222-3333-4444-555555555555"],
                         ids=["id", "alias", "arn"])
def test_unknown_key(s3, bucket, key_id):
    expect_error(s3.put_object, "KMS.NotFoundException", 400, Bucket=bucket, Key="k", Body=b"x",
                 **kms_params(key_id))
    assert absent(s3, bucket, "k")
    expect_error(s3.create_multipart_upload, "KMS.NotFoundException", 400, Bucket=bucket,
                 Key="k", **kms_params(key_id))


def test_disabled_key_refuses_writes_and_reads(s3, bucket, kms, kms_key):
    key_id = kms_key["KeyId"]
    data = payload(SEGMENT + 1)
    s3.put_object(Bucket=bucket, Key="under", Body=data, **kms_params(key_id))
    kms.disable_key(KeyId=key_id)
    assert kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"] == "Disabled"
    expect_error(s3.put_object, "KMS.DisabledException", 400, Bucket=bucket, Key="new",
                 Body=b"x", **kms_params(key_id))
    assert absent(s3, bucket, "new")
    expect_error(s3.get_object, "KMS.DisabledException", 400, Bucket=bucket, Key="under")
    expect_error(s3.copy_object, "KMS.DisabledException", 400, Bucket=bucket, Key="copy",
                 CopySource={"Bucket": bucket, "Key": "under"})
    kms.enable_key(KeyId=key_id)
    assert s3.get_object(Bucket=bucket, Key="under")["Body"].read() == data
    s3.put_object(Bucket=bucket, Key="new", Body=b"x", **kms_params(key_id))


def test_disabled_key_refuses_upload_part(s3, bucket, kms, kms_key):
    key_id = kms_key["KeyId"]
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key="mp",
                                           **kms_params(key_id))["UploadId"]
    kms.disable_key(KeyId=key_id)
    expect_error(s3.upload_part, "KMS.DisabledException", 400, Bucket=bucket, Key="mp",
                 UploadId=upload_id, PartNumber=1, Body=b"x")
    kms.enable_key(KeyId=key_id)
    r = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=1, Body=b"x")
    assert_kms(r, kms_key["Arn"])


def test_pending_deletion_refuses_writes_and_reads(s3, bucket, kms, kms_key):
    key_id = kms_key["KeyId"]
    s3.put_object(Bucket=bucket, Key="under", Body=b"before", **kms_params(key_id))
    d = kms.schedule_key_deletion(KeyId=key_id, PendingWindowInDays=7)
    assert d["KeyId"] in (key_id, kms_key["Arn"])
    assert kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"] == "PendingDeletion"
    expect_error(s3.put_object, "KMS.KMSInvalidStateException", 400, Bucket=bucket, Key="new",
                 Body=b"x", **kms_params(key_id))
    assert absent(s3, bucket, "new")
    expect_error(s3.get_object, "KMS.KMSInvalidStateException", 400, Bucket=bucket, Key="under")
    kms.cancel_key_deletion(KeyId=key_id)
    # Cancelling leaves the key Disabled (AWS); enabling it makes everything work again.
    assert kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"] == "Disabled"
    expect_error(s3.get_object, "KMS.DisabledException", 400, Bucket=bucket, Key="under")
    kms.enable_key(KeyId=key_id)
    assert s3.get_object(Bucket=bucket, Key="under")["Body"].read() == b"before"
    s3.put_object(Bucket=bucket, Key="new", Body=b"x", **kms_params(key_id))


@pytest.mark.parametrize("sse", [None, "AES256"], ids=["no-sse-header", "aes256"])
def test_key_id_without_aws_kms(server, s3, bucket, kms_key, sse):
    headers = {SSE_KMS_KEY_ID: kms_key["KeyId"]}
    if sse:
        headers[SSE] = sse
    r = raw_request(server, "PUT", f"/{bucket}/k", headers=headers, body=b"x")
    assert (r.status, r.code) == (400, "InvalidArgument"), r
    assert absent(s3, bucket, "k")
    r = raw_request(server, "POST", f"/{bucket}/k", query="uploads=", headers=headers)
    assert (r.status, r.code) == (400, "InvalidArgument"), r


def test_context_without_aws_kms(server, s3, bucket):
    r = raw_request(server, "PUT", f"/{bucket}/k", body=b"x",
                    headers={SSE: "AES256", SSE_CONTEXT: b64('{"a":"b"}')})
    assert (r.status, r.code) == (400, "InvalidArgument"), r
    assert absent(s3, bucket, "k")


def test_bucket_default_kms(s3, bucket, kms_key):
    s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration={"Rules": [{
        "ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms",
                                               "KMSMasterKeyID": kms_key["Arn"]},
        "BucketKeyEnabled": True}]})
    r = s3.put_object(Bucket=bucket, Key="headerless", Body=b"by default")
    assert_kms(r, kms_key["Arn"])
    g = s3.get_object(Bucket=bucket, Key="headerless")
    assert_kms(g, kms_key["Arn"])
    assert g["Body"].read() == b"by default"
    # A request's own header wins over the bucket's rule.
    assert headers_of(s3.put_object(Bucket=bucket, Key="s3", Body=b"x",
                                    ServerSideEncryption="AES256")).get(SSE) == "AES256"


def test_kms_objects_survive_restart(start_server):
    srv = start_server()
    s3, kms = make_client(srv), make_kms(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    meta = kms.create_key()["KeyMetadata"]
    data = payload(MIB + 3)
    s3.put_object(Bucket=b, Key="k", Body=data, **kms_params(meta["KeyId"]))
    s3.put_object(Bucket=b, Key="m", Body=b"managed", **kms_params())
    assert srv.stop() == 0
    again = start_server(data_dir=srv.data_dir)
    s3, kms = make_client(again), make_kms(again)
    g = s3.get_object(Bucket=b, Key="k")
    assert_kms(g, meta["Arn"])
    assert g["Body"].read() == data
    assert s3.get_object(Bucket=b, Key="m")["Body"].read() == b"managed"
    assert kms.describe_key(KeyId=meta["KeyId"])["KeyMetadata"]["KeyState"] == "Enabled"


def test_sigv2_refused_for_kms_objects(server, s3, bucket, kms_key):
    """UsingKMSEncryption: GET and PUT requests for an SSE-KMS object fail unless made over
    TLS or with SigV4 ("Requests specifying Server Side Encryption with AWS KMS managed keys
    require AWS Signature Version 4"). Debian's boto3 presigns with SigV2 by default."""
    s3.put_object(Bucket=bucket, Key="k", Body=b"kms", **kms_params(kms_key["KeyId"]))
    s3.put_object(Bucket=bucket, Key="plain", Body=b"plain")
    v2 = boto3.client("s3", endpoint_url=server.endpoint, region_name=server.region,
                      aws_access_key_id=server.access_key,
                      aws_secret_access_key=server.secret_key)
    url = v2.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"})
    assert "Signature=" in url and "X-Amz-Signature" not in url
    r = get_url(server, url)
    assert (r.status, r.code) == (400, "InvalidArgument"), r
    # The same URL form still reads a plain object, so it is the encryption that refused it.
    plain = v2.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "plain"})
    assert get_url(server, plain).status == 200
