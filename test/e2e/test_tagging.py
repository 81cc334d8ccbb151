"""Object and bucket tagging (issue 15, "Tagging") with boto3: Put/Get/DeleteObjectTagging (with
versionId), Put/Get/DeleteBucketTagging, x-amz-tagging on PutObject, CreateMultipartUpload and
CopyObject (x-amz-tagging-directive), x-amz-tagging-count, S3's limits and errors, and a
lifecycle rule with a Tag filter under an accelerated lifecycle day."""

import time
import urllib.parse

import botocore.exceptions
import pytest

from cubby_e2e import make_client, new_bucket_name


def error_of(excinfo):
    err = excinfo.value.response
    return (err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"],
            err["Error"].get("Message", ""))


def tagset(pairs):
    return {"TagSet": [{"Key": k, "Value": v} for k, v in pairs]}


def tags_of(s3, bucket, key, **kw):
    return [(t["Key"], t["Value"]) for t in s3.get_object_tagging(Bucket=bucket, Key=key, **kw)["TagSet"]]


def test_object_tagging_round_trip(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"data")
    assert tags_of(s3, bucket, "k") == []
    assert "TagCount" not in s3.head_object(Bucket=bucket, Key="k")
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tagset([("b", "2"), ("a", "1 & <x>")]))
    assert tags_of(s3, bucket, "k") == [("b", "2"), ("a", "1 & <x>")]
    head = s3.head_object(Bucket=bucket, Key="k")
    assert head["ResponseMetadata"]["HTTPHeaders"]["x-amz-tagging-count"] == "2"
    got = s3.get_object(Bucket=bucket, Key="k")
    assert got["TagCount"] == 2 and got["Body"].read() == b"data"
    # Replacing the tags keeps the object (etag, data) as it is.
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tagset([("c", "3")]))
    assert tags_of(s3, bucket, "k") == [("c", "3")]
    assert s3.head_object(Bucket=bucket, Key="k")["ETag"] == head["ETag"]
    r = s3.delete_object_tagging(Bucket=bucket, Key="k")
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert tags_of(s3, bucket, "k") == []
    # A missing key.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object_tagging(Bucket=bucket, Key="nokey")
    assert error_of(e)[:2] == ("NoSuchKey", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_object_tagging(Bucket=bucket, Key="nokey", Tagging=tagset([("a", "1")]))
    assert error_of(e)[:2] == ("NoSuchKey", 404)


@pytest.mark.parametrize("tags,code,status,message", [
    ([(f"k{i}", "v") for i in range(11)], "InvalidTag", 400, "Object tags cannot be greater than 10"),
    ([("k" * 129, "v")], "InvalidTag", 400, "The TagKey you have provided is invalid"),
    ([("k", "v" * 257)], "InvalidTag", 400, "The TagValue you have provided is invalid"),
    ([("k", "1"), ("k", "2")], "InvalidTag", 400, "Cannot provide multiple Tags with the same key"),
    ([("aws:k", "1")], "InvalidTag", 400, "System tags cannot be added/updated by requester"),
])
def test_object_tag_limits(s3, bucket, tags, code, status, message):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tagset(tags))
    assert error_of(e) == (code, status, message)
    assert tags_of(s3, bucket, "k") == []


def test_limits_count_characters_not_bytes(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    tags = [("é" * 128, "ü" * 256)] + [(f"k{i}", "v") for i in range(9)]
    s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tagset(tags))
    assert tags_of(s3, bucket, "k") == tags


def test_malformed_tagging_xml(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    def bad_body(params, **kwargs):
        params["body"] = b"<Tagging><TagSet><Tag><Key>k</Key></Tag></TagSet></Tagging>"
        import base64, hashlib
        params["headers"]["Content-MD5"] = base64.b64encode(hashlib.md5(params["body"]).digest()).decode()
        for h in list(params["headers"]):
            if h.lower().startswith("x-amz-checksum") or h.lower() == "x-amz-sdk-checksum-algorithm":
                del params["headers"][h]
    s3.meta.events.register("before-call.s3.PutObjectTagging", bad_body)
    try:
        with pytest.raises(botocore.exceptions.ClientError) as e:
            s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tagset([("k", "v")]))
        assert error_of(e)[:2] == ("MalformedXML", 400)
    finally:
        s3.meta.events.unregister("before-call.s3.PutObjectTagging", bad_body)


def test_versioned_object_tagging(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"one")["VersionId"]
    v2 = s3.put_object(Bucket=bucket, Key="k", Body=b"two")["VersionId"]
    r = s3.put_object_tagging(Bucket=bucket, Key="k", VersionId=v1, Tagging=tagset([("old", "1")]))
    assert r["VersionId"] == v1
    r = s3.put_object_tagging(Bucket=bucket, Key="k", Tagging=tagset([("new", "2")]))
    assert r["VersionId"] == v2
    assert tags_of(s3, bucket, "k", VersionId=v1) == [("old", "1")]
    r = s3.get_object_tagging(Bucket=bucket, Key="k")
    assert r["VersionId"] == v2 and r["TagSet"] == [{"Key": "new", "Value": "2"}]
    assert s3.get_object(Bucket=bucket, Key="k", VersionId=v1)["TagCount"] == 1
    r = s3.delete_object_tagging(Bucket=bucket, Key="k", VersionId=v1)
    assert r["VersionId"] == v1
    assert tags_of(s3, bucket, "k", VersionId=v1) == []
    assert tags_of(s3, bucket, "k") == [("new", "2")]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object_tagging(Bucket=bucket, Key="k", VersionId="1" * 16 + "a" * 16)
    assert error_of(e)[:2] == ("NoSuchVersion", 404)



def test_object_tagging_on_delete_marker(s3, bucket):
    # Only a DELETE works on a delete marker (DeleteMarker.html): a tagging call that names one
    # by versionId is 405 MethodNotAllowed, one on a key whose latest version is a marker 404
    # NoSuchKey; both say x-amz-delete-marker: true, as GetObject does.
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object(Bucket=bucket, Key="k", Body=b"data")
    marker = s3.delete_object(Bucket=bucket, Key="k")
    assert marker["DeleteMarker"] is True
    marker_id = marker["VersionId"]

    def refused(call, **kw):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            call(Bucket=bucket, Key="k", **kw)
        headers = e.value.response["ResponseMetadata"]["HTTPHeaders"]
        assert headers.get("x-amz-delete-marker") == "true", headers
        return error_of(e)[:2]

    tags = {"Tagging": tagset([("a", "1")])}
    assert refused(s3.get_object_tagging, VersionId=marker_id) == ("MethodNotAllowed", 405)
    assert refused(s3.put_object_tagging, VersionId=marker_id, **tags) == ("MethodNotAllowed", 405)
    assert refused(s3.get_object_tagging) == ("NoSuchKey", 404)
    assert refused(s3.put_object_tagging, **tags) == ("NoSuchKey", 404)

def test_bucket_tagging(s3, bucket):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_tagging(Bucket=bucket)
    assert error_of(e)[:2] == ("NoSuchTagSet", 404)
    tags = [(f"k{i}", str(i)) for i in range(50)]
    r = s3.put_bucket_tagging(Bucket=bucket, Tagging=tagset(tags))
    # 200, as Ceph RGW and MinIO answer (S3 documents 204): minio-js takes only 200
    # (test_sdk_minio_js.py); the AWS SDKs take any 2xx.
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 200
    got = s3.get_bucket_tagging(Bucket=bucket)["TagSet"]
    assert [(t["Key"], t["Value"]) for t in got] == tags
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_bucket_tagging(Bucket=bucket, Tagging=tagset(tags + [("x", "y")]))
    assert error_of(e)[:2] == ("BadRequest", 400)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_bucket_tagging(Bucket=bucket, Tagging=tagset([("aws:x", "y")]))
    assert error_of(e)[:2] == ("InvalidTag", 400)
    assert len(s3.get_bucket_tagging(Bucket=bucket)["TagSet"]) == 50
    r = s3.delete_bucket_tagging(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_tagging(Bucket=bucket)
    assert error_of(e)[:2] == ("NoSuchTagSet", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_tagging(Bucket=new_bucket_name())
    assert error_of(e)[:2] == ("NoSuchBucket", 404)


def test_tagging_header_on_put_multipart_and_copy(s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"src", Tagging="a=1&b=two%20words")
    assert tags_of(s3, bucket, "src") == [("a", "1"), ("b", "two words")]
    # Multipart: the tags of CreateMultipartUpload, applied at Complete.
    up = s3.create_multipart_upload(Bucket=bucket, Key="mp", Tagging="m=1")
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up["UploadId"], PartNumber=1, Body=b"p")
    s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=up["UploadId"],
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    assert tags_of(s3, bucket, "mp") == [("m", "1")]
    # Copy: COPY (the default) keeps the source's, REPLACE takes the header's.
    s3.copy_object(Bucket=bucket, Key="c1", CopySource={"Bucket": bucket, "Key": "src"})
    assert tags_of(s3, bucket, "c1") == [("a", "1"), ("b", "two words")]
    s3.copy_object(Bucket=bucket, Key="c2", CopySource={"Bucket": bucket, "Key": "src"},
                   TaggingDirective="COPY", Tagging="ignored=1")
    assert tags_of(s3, bucket, "c2") == [("a", "1"), ("b", "two words")]
    s3.copy_object(Bucket=bucket, Key="c3", CopySource={"Bucket": bucket, "Key": "src"},
                   TaggingDirective="REPLACE", Tagging="r=1")
    assert tags_of(s3, bucket, "c3") == [("r", "1")]
    s3.copy_object(Bucket=bucket, Key="c4", CopySource={"Bucket": bucket, "Key": "src"},
                   TaggingDirective="REPLACE")
    assert tags_of(s3, bucket, "c4") == []
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="c5", CopySource={"Bucket": bucket, "Key": "src"},
                       TaggingDirective="MOVE")
    assert error_of(e)[:2] == ("InvalidArgument", 400)


# More than 10 object tags is InvalidTag "Object tags cannot be greater than 10" (PutObjectTagging
# and the x-amz-tagging header alike), the code AWS documents for a tag that fails validation and
# s3-tests' test_put_excess_tags expects.
@pytest.mark.parametrize("header,code", [
    ("a=1&a=2", "InvalidArgument"),
    ("&".join(f"k{i}=v" for i in range(11)), "InvalidTag"),
    ("k=" + "v" * 257, "InvalidTag"),
    ("aws%3Ak=v", "InvalidTag"),
])
def test_tagging_header_errors(s3, bucket, header, code):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_object(Bucket=bucket, Key="k", Body=b"x", Tagging=header)
    assert error_of(e)[:2] == (code, 400)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.create_multipart_upload(Bucket=bucket, Key="k", Tagging=header)
    assert error_of(e)[:2] == (code, 400)
    s3.put_object(Bucket=bucket, Key="src", Body=b"s")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "src"},
                       Tagging=header, TaggingDirective="REPLACE")
    assert error_of(e)[:2] == (code, 400)
    with pytest.raises(botocore.exceptions.ClientError):
        s3.head_object(Bucket=bucket, Key="k")


DAY_SECONDS = 2


@pytest.fixture
def lc_s3(start_server):
    return make_client(start_server(args=["--lifecycle-day-seconds", str(DAY_SECONDS),
                                          "--lifecycle-interval", "200ms"]))


def test_lifecycle_tag_filter_expires_only_tagged(lc_s3):
    s3 = lc_s3
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="tagged", Body=b"x", Tagging="expire=yes")
    s3.put_object(Bucket=bucket, Key="other-value", Body=b"x", Tagging="expire=no")
    s3.put_object(Bucket=bucket, Key="untagged", Body=b"x")
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [{
        "ID": "by-tag", "Status": "Enabled",
        "Filter": {"Tag": {"Key": "expire", "Value": "yes"}},
        "Expiration": {"Days": 1}}]})
    # x-amz-expiration names the rule for the tagged object only.
    assert "by-tag" in s3.head_object(Bucket=bucket, Key="tagged").get("Expiration", "")
    assert "Expiration" not in s3.head_object(Bucket=bucket, Key="untagged")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
        if "tagged" not in keys:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the tagged object was not expired")
    time.sleep(2 * DAY_SECONDS)  # several more passes and days
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    assert keys == ["other-value", "untagged"]
