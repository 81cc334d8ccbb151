"""Object operations: PUT/GET/HEAD/DELETE, integrity headers, ranges, conditionals, overrides."""

import base64
import datetime
import email.utils
import hashlib
import os
import urllib.parse

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import md5_hex, new_bucket_name, quoted_md5, raw_request


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    status = excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]
    return err.get("Code"), status


def status_of(excinfo):
    return excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.mark.parametrize("size", [0, 1, 1000, 65536, 1 << 20, 5 * (1 << 20) + 7])
def test_put_get_roundtrip(s3, bucket, size):
    data = os.urandom(size)
    put = s3.put_object(Bucket=bucket, Key="obj", Body=data)
    assert put["ETag"] == quoted_md5(data)
    got = s3.get_object(Bucket=bucket, Key="obj")
    assert got["Body"].read() == data
    assert got["ContentLength"] == size
    assert got["ETag"] == quoted_md5(data)
    head = s3.head_object(Bucket=bucket, Key="obj")
    assert head["ContentLength"] == size
    assert head["ETag"] == quoted_md5(data)
    assert head["LastModified"].tzinfo is not None


def test_empty_object_etag(s3, bucket):
    assert s3.put_object(Bucket=bucket, Key="e", Body=b"")["ETag"] == \
        '"d41d8cd98f00b204e9800998ecf8427e"'


@pytest.mark.parametrize("key", [
    "plain",
    "with space",
    "dir/sub/file.txt",
    "a//double",
    "trailing/",
    "plus+sign",
    "percent%41",
    "question?mark",
    "hash#tag",
    "amp&eq=",
    "caf\u00e9",
    "\u4e2d\u6587/\u6587\u4ef6",
    "emoji-\U0001F600",
    "tilde~star*paren()",
    "x" * 1024,
    "/leading-slash",
    "dot/./segment",
    "dotdot/../segment",
])
def test_key_names_roundtrip(s3, bucket, key):
    body = key.encode() + b"!"
    s3.put_object(Bucket=bucket, Key=key, Body=body)
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == body
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == [key]
    s3.delete_object(Bucket=bucket, Key=key)
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_encoded_slash_in_key(server, s3, bucket):
    # %2F in the path is the same key as a literal slash.
    assert raw_request(server, "PUT", f"/{bucket}/a%2Fb", body=b"slash").status == 200
    assert s3.get_object(Bucket=bucket, Key="a/b")["Body"].read() == b"slash"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["a/b"]


def test_key_too_long(server, s3, bucket):
    resp = raw_request(server, "PUT", f"/{bucket}/" + "k" * 1025, body=b"x")
    assert resp.status == 400
    assert resp.code == "KeyTooLongError"


def test_stored_headers_and_metadata(s3, bucket):
    expires = "Wed, 21 Oct 2037 07:28:00 GMT"
    s3.put_object(
        Bucket=bucket, Key="doc", Body=b"<html/>",
        ContentType="text/html; charset=utf-8",
        ContentEncoding="identity",
        ContentDisposition='attachment; filename="doc.html"',
        CacheControl="max-age=60",
        Expires=datetime.datetime(2037, 10, 21, 7, 28, tzinfo=datetime.timezone.utc),
        Metadata={"Color": "blue", "x-y": "1 2"})
    for resp in (s3.get_object(Bucket=bucket, Key="doc"), s3.head_object(Bucket=bucket, Key="doc")):
        hdrs = resp["ResponseMetadata"]["HTTPHeaders"]
        assert resp["ContentType"] == "text/html; charset=utf-8"
        assert resp["ContentEncoding"] == "identity"
        assert resp["ContentDisposition"] == 'attachment; filename="doc.html"'
        assert resp["CacheControl"] == "max-age=60"
        assert hdrs["expires"] == expires
        assert resp["Metadata"] == {"color": "blue", "x-y": "1 2"}
        assert hdrs["accept-ranges"] == "bytes"
        assert hdrs["last-modified"].endswith("GMT")


def test_metadata_too_large(server, s3, bucket):
    # User metadata is limited to 2 KB (names plus values).
    resp = raw_request(server, "PUT", f"/{bucket}/m", body=b"x",
                       headers={"x-amz-meta-big": "v" * 2100})
    assert resp.status == 400, resp
    assert resp.code == "MetadataTooLarge"
    assert raw_request(server, "HEAD", f"/{bucket}/m").status == 404
    ok = raw_request(server, "PUT", f"/{bucket}/m", body=b"x", headers={"x-amz-meta-ok": "v" * 1000})
    assert ok.status == 200


def test_content_language_stored(s3, bucket):
    s3.put_object(Bucket=bucket, Key="l", Body=b"hallo", ContentLanguage="de-CH")
    assert s3.get_object(Bucket=bucket, Key="l")["ContentLanguage"] == "de-CH"
    assert s3.head_object(Bucket=bucket, Key="l")["ContentLanguage"] == "de-CH"


def test_default_content_type(server, bucket):
    raw_request(server, "PUT", f"/{bucket}/k", body=b"abc")
    resp = raw_request(server, "GET", f"/{bucket}/k")
    assert resp.status == 200
    assert resp.header("Content-Type") in ("binary/octet-stream", "application/octet-stream")


def test_overwrite_replaces_data_and_metadata(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"first", Metadata={"a": "1"},
                  ContentType="text/plain")
    s3.put_object(Bucket=bucket, Key="k", Body=b"second!", Metadata={"b": "2"})
    got = s3.get_object(Bucket=bucket, Key="k")
    assert got["Body"].read() == b"second!"
    assert got["Metadata"] == {"b": "2"}
    assert got["ContentType"] != "text/plain"
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 1


def test_content_md5_correct(s3, bucket):
    data = b"checked body"
    md5 = base64.b64encode(hashlib.md5(data).digest()).decode()
    assert s3.put_object(Bucket=bucket, Key="k", Body=data, ContentMD5=md5)["ETag"] == \
        quoted_md5(data)


def test_content_md5_mismatch_is_bad_digest(server, s3, bucket):
    wrong = base64.b64encode(hashlib.md5(b"other").digest()).decode()
    resp = raw_request(server, "PUT", f"/{bucket}/k", body=b"data", headers={"Content-MD5": wrong})
    assert resp.status == 400
    assert resp.code == "BadDigest"
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="k")
    assert status_of(e) == 404


@pytest.mark.parametrize("value", [
    "not base64 !!",
    base64.b64encode(b"short").decode(),          # decodes, but not 16 bytes
    base64.b64encode(b"x" * 32).decode(),         # too long
])
def test_content_md5_invalid_is_invalid_digest(server, s3, bucket, value):
    resp = raw_request(server, "PUT", f"/{bucket}/k", body=b"data", headers={"Content-MD5": value})
    assert resp.status == 400
    assert resp.code == "InvalidDigest"
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="k")
    assert status_of(e) == 404


def test_content_sha256_mismatch(server, s3, bucket):
    wrong = hashlib.sha256(b"something else").hexdigest()
    resp = raw_request(server, "PUT", f"/{bucket}/k", body=b"the real body", payload_hash=wrong)
    assert resp.status == 400
    assert resp.code == "XAmzContentSHA256Mismatch"
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=bucket, Key="k")
    assert status_of(e) == 404


def test_unsigned_payload_accepted(server, s3, bucket):
    resp = raw_request(server, "PUT", f"/{bucket}/k", body=b"unsigned", payload_hash="UNSIGNED-PAYLOAD")
    assert resp.status == 200, resp
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"unsigned"


def test_put_if_none_match_star(server, s3, bucket):
    first = raw_request(server, "PUT", f"/{bucket}/k", body=b"one", headers={"If-None-Match": "*"})
    assert first.status == 200, first
    second = raw_request(server, "PUT", f"/{bucket}/k", body=b"two", headers={"If-None-Match": "*"})
    assert second.status == 412
    assert second.code == "PreconditionFailed"
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"one"


def test_put_into_missing_bucket(s3):
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=new_bucket_name(), Key="k", Body=b"x")
    assert error_of(e) == ("NoSuchBucket", 404)


def test_get_missing_key(server, s3, bucket):
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="nope")
    assert error_of(e) == ("NoSuchKey", 404)
    resp = raw_request(server, "GET", f"/{bucket}/nope")
    assert resp.status == 404
    err = resp.error()
    assert err["Code"] == "NoSuchKey"
    assert err.get("Key", "nope") == "nope"


def test_get_from_missing_bucket(s3):
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=new_bucket_name(), Key="k")
    assert error_of(e) == ("NoSuchBucket", 404)


def test_head_missing_key_is_404_without_body(server, bucket):
    resp = raw_request(server, "HEAD", f"/{bucket}/nope")
    assert resp.status == 404
    assert resp.body == b""


def test_delete_object(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    assert s3.delete_object(Bucket=bucket, Key="k")["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="k")
    assert error_of(e) == ("NoSuchKey", 404)
    # Deleting what is not there is still a success.
    assert s3.delete_object(Bucket=bucket, Key="k")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert s3.delete_object(Bucket=bucket, Key="never")["ResponseMetadata"]["HTTPStatusCode"] == 204


def test_delete_object_missing_bucket(s3):
    with pytest.raises(ClientError) as e:
        s3.delete_object(Bucket=new_bucket_name(), Key="k")
    assert error_of(e) == ("NoSuchBucket", 404)


# ------------------------------------------------------------------------ ranges

DATA = bytes(range(256)) * 4  # 1024 bytes


@pytest.mark.parametrize("spec,start,end", [
    ("bytes=0-0", 0, 0),
    ("bytes=0-9", 0, 9),
    ("bytes=100-199", 100, 199),
    ("bytes=1000-", 1000, 1023),
    ("bytes=-24", 1000, 1023),
    ("bytes=1020-5000", 1020, 1023),   # end past the object is clamped
    ("bytes=-5000", 0, 1023),          # suffix longer than the object: whole object
    ("bytes=1023-1023", 1023, 1023),
])
def test_range_get(s3, bucket, spec, start, end):
    s3.put_object(Bucket=bucket, Key="r", Body=DATA)
    resp = s3.get_object(Bucket=bucket, Key="r", Range=spec)
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 206
    assert resp["Body"].read() == DATA[start:end + 1]
    assert resp["ContentLength"] == end - start + 1
    assert resp["ContentRange"] == f"bytes {start}-{end}/1024"
    assert resp["ETag"] == quoted_md5(DATA)


@pytest.mark.parametrize("spec", ["bytes=1024-", "bytes=2000-3000", "bytes=1024-1024"])
def test_range_not_satisfiable(server, bucket, spec):
    raw_request(server, "PUT", f"/{bucket}/r", body=DATA)
    resp = raw_request(server, "GET", f"/{bucket}/r", headers={"Range": spec})
    assert resp.status == 416
    assert resp.code == "InvalidRange"


def test_range_ignored_when_malformed(server, bucket):
    # S3 ignores a Range it cannot parse and returns the whole object.
    raw_request(server, "PUT", f"/{bucket}/r", body=DATA)
    resp = raw_request(server, "GET", f"/{bucket}/r", headers={"Range": "chars=1-2"})
    assert resp.status == 200
    assert resp.body == DATA


def test_head_with_range(server, bucket):
    raw_request(server, "PUT", f"/{bucket}/r", body=DATA)
    resp = raw_request(server, "HEAD", f"/{bucket}/r", headers={"Range": "bytes=0-9"})
    assert resp.status == 206
    assert resp.header("Content-Length") == "10"
    assert resp.header("Content-Range") == "bytes 0-9/1024"


# ------------------------------------------------------------------ conditionals

def _http_date(dt):
    return email.utils.format_datetime(dt.astimezone(datetime.timezone.utc), usegmt=True)


@pytest.fixture
def stored(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="c", Body=b"conditional")
    head = s3.head_object(Bucket=bucket, Key="c")
    return {"bucket": bucket, "etag": head["ETag"], "mtime": head["LastModified"]}


def _cond_cases():
    day = datetime.timedelta(days=1)
    return [
        # (headers builder, expected status)
        ("if-match ok", lambda s: {"If-Match": s["etag"]}, 200),
        ("if-match star", lambda s: {"If-Match": "*"}, 200),
        ("if-match wrong", lambda s: {"If-Match": '"00000000000000000000000000000000"'}, 412),
        ("if-none-match same", lambda s: {"If-None-Match": s["etag"]}, 304),
        ("if-none-match star", lambda s: {"If-None-Match": "*"}, 304),
        ("if-none-match other", lambda s: {"If-None-Match": '"0000"'}, 200),
        ("ims equal", lambda s: {"If-Modified-Since": _http_date(s["mtime"])}, 304),
        ("ims earlier", lambda s: {"If-Modified-Since": _http_date(s["mtime"] - day)}, 200),
        ("ius equal", lambda s: {"If-Unmodified-Since": _http_date(s["mtime"])}, 200),
        ("ius later", lambda s: {"If-Unmodified-Since": _http_date(s["mtime"] + day)}, 200),
        ("ius earlier", lambda s: {"If-Unmodified-Since": _http_date(s["mtime"] - day)}, 412),
        # https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html: If-Match true and
        # If-Unmodified-Since false → 200; If-None-Match false and If-Modified-Since true → 304.
        ("if-match wins over ius",
         lambda s: {"If-Match": s["etag"], "If-Unmodified-Since": _http_date(s["mtime"] - day)}, 200),
        ("if-none-match wins over ims",
         lambda s: {"If-None-Match": s["etag"], "If-Modified-Since": _http_date(s["mtime"] - day)},
         304),
    ]


@pytest.mark.parametrize("method", ["GET", "HEAD"])
@pytest.mark.parametrize("name,build,expected", _cond_cases(), ids=[c[0] for c in _cond_cases()])
def test_conditional_get(server, stored, method, name, build, expected):
    resp = raw_request(server, method, f"/{stored['bucket']}/c", headers=build(stored))
    assert resp.status == expected, resp
    assert resp.header("x-amz-request-id")
    if expected == 200 and method == "GET":
        assert resp.body == b"conditional"
    if expected == 304:
        assert resp.body == b""
        assert resp.header("ETag") == stored["etag"]
    if expected == 412 and method == "GET":
        assert resp.code == "PreconditionFailed"


def test_conditional_with_boto3(s3, stored):
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=stored["bucket"], Key="c", IfMatch='"nope"')
    assert error_of(e) == ("PreconditionFailed", 412)
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=stored["bucket"], Key="c", IfNoneMatch=stored["etag"])
    assert status_of(e) == 304


# --------------------------------------------------------------- response-* overrides

def test_response_header_overrides(s3, bucket):
    s3.put_object(Bucket=bucket, Key="o", Body=b"override me", ContentType="text/plain")
    resp = s3.get_object(
        Bucket=bucket, Key="o",
        ResponseContentType="application/json",
        ResponseContentDisposition='attachment; filename="x.json"',
        ResponseCacheControl="no-cache",
        ResponseContentEncoding="identity",
        ResponseContentLanguage="de",
        ResponseExpires=datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))
    hdrs = resp["ResponseMetadata"]["HTTPHeaders"]
    assert resp["Body"].read() == b"override me"
    assert resp["ContentType"] == "application/json"
    assert resp["ContentDisposition"] == 'attachment; filename="x.json"'
    assert resp["CacheControl"] == "no-cache"
    assert resp["ContentEncoding"] == "identity"
    assert resp["ContentLanguage"] == "de"
    assert hdrs["expires"] == "Wed, 02 Jan 2030 03:04:05 GMT"
    # The stored object is unchanged.
    assert s3.head_object(Bucket=bucket, Key="o")["ContentType"] == "text/plain"


def test_response_override_raw_query(server, bucket):
    raw_request(server, "PUT", f"/{bucket}/o", body=b"x")
    q = "response-content-type=" + urllib.parse.quote("image/png", safe="")
    resp = raw_request(server, "GET", f"/{bucket}/o", query=q)
    assert resp.status == 200
    assert resp.header("Content-Type") == "image/png"


def test_etag_is_md5_of_content(server, s3, bucket):
    data = b"The quick brown fox"
    raw = raw_request(server, "PUT", f"/{bucket}/fox", body=data)
    assert raw.status == 200
    assert raw.header("ETag") == f'"{md5_hex(data)}"'
