"""CopyObject (conditionals, onto itself, metadata directive), UploadPartCopy with a range, and
DeleteObjects (quiet, per-key errors, the 1000-key limit) with boto3."""

import datetime
import hashlib
import os

import botocore.exceptions
import pytest

from cubby_e2e import make_client

MIB = 1 << 20


def err(excinfo):
    r = excinfo.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture
def source(s3, bucket):
    body = b"copy source body " * 100
    s3.put_object(Bucket=bucket, Key="src", Body=body, ContentType="text/x-src",
                  Metadata={"a": "1"})
    head = s3.head_object(Bucket=bucket, Key="src")
    return {"body": body, "etag": head["ETag"], "last_modified": head["LastModified"]}


def test_copy_object_keeps_body_and_metadata(s3, bucket, source):
    r = s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"})
    assert r["CopyObjectResult"]["ETag"] == source["etag"]
    got = s3.get_object(Bucket=bucket, Key="dst")
    assert got["Body"].read() == source["body"]
    assert got["Metadata"] == {"a": "1"}
    assert got["ContentType"] == "text/x-src"


def test_copy_across_buckets_with_replace(s3, bucket, source):
    other = bucket + "-2"
    s3.create_bucket(Bucket=other)
    s3.copy_object(Bucket=other, Key="x/y", CopySource=f"{bucket}/src",
                   MetadataDirective="REPLACE", Metadata={"b": "2"}, ContentType="text/plain")
    got = s3.get_object(Bucket=other, Key="x/y")
    assert got["Body"].read() == source["body"]
    assert got["Metadata"] == {"b": "2"}
    assert got["ContentType"] == "text/plain"


def test_copy_missing_source(s3, bucket):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="dst", CopySource=f"{bucket}/absent")
    assert err(e) == ("NoSuchKey", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="dst", CopySource="no-such-bucket-x1/absent")
    assert err(e) == ("NoSuchBucket", 404)


def _copy_conditions(source):
    lm = source["last_modified"]
    day = datetime.timedelta(days=1)
    wrong = '"' + "0" * 32 + '"'
    # (name, kwargs, copies?)
    return [
        ("if-match-true", {"CopySourceIfMatch": source["etag"]}, True),
        ("if-match-false", {"CopySourceIfMatch": wrong}, False),
        ("if-none-match-true", {"CopySourceIfNoneMatch": wrong}, True),
        ("if-none-match-false", {"CopySourceIfNoneMatch": source["etag"]}, False),
        ("if-modified-since-true", {"CopySourceIfModifiedSince": lm - day}, True),
        ("if-modified-since-false", {"CopySourceIfModifiedSince": lm}, False),
        ("if-unmodified-since-true", {"CopySourceIfUnmodifiedSince": lm}, True),
        ("if-unmodified-since-false", {"CopySourceIfUnmodifiedSince": lm - day}, False),
        # AWS: If-Match true and If-Unmodified-Since false together → the copy happens.
        ("if-match-true-unmodified-false",
         {"CopySourceIfMatch": source["etag"], "CopySourceIfUnmodifiedSince": lm - day}, True),
        # AWS: If-None-Match false and If-Modified-Since true together → 412.
        ("if-none-match-false-modified-true",
         {"CopySourceIfNoneMatch": source["etag"], "CopySourceIfModifiedSince": lm - day}, False),
    ]


def test_copy_source_conditionals(s3, bucket, source):
    for name, kwargs, copies in _copy_conditions(source):
        key = "cond-" + name
        if copies:
            r = s3.copy_object(Bucket=bucket, Key=key, CopySource=f"{bucket}/src", **kwargs)
            assert r["CopyObjectResult"]["ETag"] == source["etag"], name
            assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == source["body"]
        else:
            with pytest.raises(botocore.exceptions.ClientError) as e:
                s3.copy_object(Bucket=bucket, Key=key, CopySource=f"{bucket}/src", **kwargs)
            assert err(e) == ("PreconditionFailed", 412), name
            with pytest.raises(botocore.exceptions.ClientError) as e:
                s3.head_object(Bucket=bucket, Key=key)
            assert err(e)[1] == 404, name


def test_copy_onto_itself(s3, bucket, source):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="src", CopySource=f"{bucket}/src")
    assert err(e) == ("InvalidRequest", 400)
    r = s3.copy_object(Bucket=bucket, Key="src", CopySource=f"{bucket}/src",
                       MetadataDirective="REPLACE", Metadata={"a": "changed", "new": "yes"},
                       ContentType="text/x-new")
    assert r["CopyObjectResult"]["ETag"] == source["etag"]
    got = s3.get_object(Bucket=bucket, Key="src")
    assert got["Body"].read() == source["body"]
    assert got["Metadata"] == {"a": "changed", "new": "yes"}
    assert got["ContentType"] == "text/x-new"


def test_copy_invalid_metadata_directive(s3, bucket, source):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="d", CopySource=f"{bucket}/src",
                       MetadataDirective="MERGE")
    assert err(e) == ("InvalidArgument", 400)


# ----------------------------------------------------------------- UploadPartCopy

def test_upload_part_copy_with_range(s3, bucket):
    big = os.urandom(7 * MIB + 100)
    s3.put_object(Bucket=bucket, Key="big-src", Body=big)
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key="assembled")["UploadId"]
    # Part 1: 5 MiB from offset 1 MiB; part 2: the whole source (no range); part 3 (the last,
    # so it may be small): the source's last 100 bytes.
    first = (MIB, 6 * MIB - 1)
    last = (7 * MIB, 7 * MIB + 99)
    parts = []
    for n, rng in ((1, first), (2, None), (3, last)):
        kwargs = {"CopySourceRange": f"bytes={rng[0]}-{rng[1]}"} if rng else {}
        r = s3.upload_part_copy(Bucket=bucket, Key="assembled", UploadId=upload_id, PartNumber=n,
                                CopySource=f"{bucket}/big-src", **kwargs)
        etag = r["CopyPartResult"]["ETag"]
        want = big[rng[0]:rng[1] + 1] if rng else big
        assert etag == '"' + hashlib.md5(want).hexdigest() + '"', n
        parts.append({"PartNumber": n, "ETag": etag})
    listed = s3.list_parts(Bucket=bucket, Key="assembled", UploadId=upload_id)["Parts"]
    assert [p["Size"] for p in listed] == [5 * MIB, len(big), 100]
    s3.complete_multipart_upload(Bucket=bucket, Key="assembled", UploadId=upload_id,
                                 MultipartUpload={"Parts": parts})
    want = big[first[0]:first[1] + 1] + big + big[last[0]:last[1] + 1]
    assert s3.get_object(Bucket=bucket, Key="assembled")["Body"].read() == want


def test_upload_part_copy_errors(s3, bucket):
    s3.put_object(Bucket=bucket, Key="s", Body=b"0123456789")
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key="t")["UploadId"]
    for rng in ("bytes=5-20", "bytes=10-12"):  # past the end of a 10-byte source
        with pytest.raises(botocore.exceptions.ClientError) as e:
            s3.upload_part_copy(Bucket=bucket, Key="t", UploadId=upload_id, PartNumber=1,
                                CopySource=f"{bucket}/s", CopySourceRange=rng)
        assert err(e) == ("InvalidRange", 416), rng
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.upload_part_copy(Bucket=bucket, Key="t", UploadId=upload_id, PartNumber=1,
                            CopySource=f"{bucket}/s", CopySourceIfMatch='"' + "1" * 32 + '"')
    assert err(e) == ("PreconditionFailed", 412)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.upload_part_copy(Bucket=bucket, Key="t", UploadId="bm9uZQ", PartNumber=1,
                            CopySource=f"{bucket}/s")
    assert err(e) == ("NoSuchUpload", 404)


# ----------------------------------------------------------------- DeleteObjects

def test_delete_objects_verbose_and_quiet(s3, bucket):
    keys = [f"d/{i}" for i in range(6)]
    for k in keys:
        s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
    r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys[:3]] +
                                                 [{"Key": "d/absent"}]})
    assert sorted(d["Key"] for d in r["Deleted"]) == sorted(keys[:3] + ["d/absent"])
    assert r.get("Errors", []) == []

    r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys[3:]],
                                                 "Quiet": True})
    assert r.get("Deleted", []) == []  # quiet mode reports only errors
    assert r.get("Errors", []) == []
    assert s3.list_objects_v2(Bucket=bucket, Prefix="d/")["KeyCount"] == 0


def test_delete_objects_per_key_errors(server, s3, bucket):
    """Anonymous on a public-read bucket: the request is answered, each key denied on its own."""
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    for k in ("p/1", "p/2"):
        s3.put_object(Bucket=bucket, Key=k, Body=b"x")
    anon = make_client(server, anonymous=True)
    for quiet in (False, True):
        r = anon.delete_objects(Bucket=bucket, Delete={
            "Objects": [{"Key": "p/1"}, {"Key": "p/2"}], "Quiet": quiet})
        assert r.get("Deleted", []) == []
        assert sorted((e["Key"], e["Code"]) for e in r["Errors"]) == [
            ("p/1", "AccessDenied"), ("p/2", "AccessDenied")], quiet
    assert s3.list_objects_v2(Bucket=bucket, Prefix="p/")["KeyCount"] == 2


def test_delete_objects_over_1000_keys_is_malformed(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k1", Body=b"x")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": f"k{i}"}
                                                             for i in range(1001)]})
    assert err(e) == ("MalformedXML", 400)
    assert s3.head_object(Bucket=bucket, Key="k1")["ContentLength"] == 1
    # Exactly 1000 is fine.
    r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": f"k{i}"}
                                                             for i in range(1000)]})
    assert len(r["Deleted"]) == 1000
