"""Multipart uploads with boto3: the happy path and every error AWS gives for it, the write
conditions on PutObject and CompleteMultipartUpload, GetObject partNumber and ranges."""

import hashlib
import os

import botocore.exceptions
import pytest

from cubby_e2e import make_client, raw_request

MIB = 1 << 20


def err(excinfo):
    r = excinfo.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


def with_headers(server, operation, headers):
    """A fresh boto3 client that adds `headers` to every `operation` request before signing."""
    client = make_client(server)

    def add(request, **_):
        for k, v in headers.items():
            request.headers[k] = v

    client.meta.events.register(f"before-sign.s3.{operation}", add)
    return client


def multipart_etag(parts):
    md5s = b"".join(hashlib.md5(p).digest() for p in parts)
    return f'"{hashlib.md5(md5s).hexdigest()}-{len(parts)}"'


def upload_parts(s3, bucket, key, parts):
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    done = []
    for i, data in enumerate(parts, start=1):
        r = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=i, Body=data)
        assert r["ETag"] == f'"{hashlib.md5(data).hexdigest()}"'
        done.append({"PartNumber": i, "ETag": r["ETag"]})
    return upload_id, done


@pytest.fixture(scope="module")
def three_parts():
    return [os.urandom(5 * MIB), os.urandom(5 * MIB), os.urandom(MIB + 7)]


def test_multipart_round_trip(s3, bucket, three_parts):
    key = "dir/mp.bin"
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key, ContentType="application/x-mp",
                                           Metadata={"color": "blue"})["UploadId"]
    uploads = s3.list_multipart_uploads(Bucket=bucket)
    assert [(u["Key"], u["UploadId"]) for u in uploads.get("Uploads", [])] == [(key, upload_id)]
    # Not visible as an object before it completes.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.head_object(Bucket=bucket, Key=key)
    assert err(e)[1] == 404

    done = []
    for i, data in enumerate(three_parts, start=1):
        r = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=i, Body=data)
        done.append({"PartNumber": i, "ETag": r["ETag"]})
    listed = s3.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)
    assert [(p["PartNumber"], p["ETag"], p["Size"]) for p in listed["Parts"]] == [
        (i, d["ETag"], len(p)) for i, (d, p) in enumerate(zip(done, three_parts), start=1)]

    r = s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id,
                                     MultipartUpload={"Parts": done})
    assert r["ETag"] == multipart_etag(three_parts)
    assert r["Key"] == key and r["Bucket"] == bucket

    got = s3.get_object(Bucket=bucket, Key=key)
    assert got["Body"].read() == b"".join(three_parts)
    assert got["ETag"] == multipart_etag(three_parts)
    assert got["ContentType"] == "application/x-mp"
    assert got["Metadata"] == {"color": "blue"}
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    listed = s3.list_objects_v2(Bucket=bucket)["Contents"]
    assert [(o["Key"], o["Size"], o["ETag"]) for o in listed] == [
        (key, sum(map(len, three_parts)), multipart_etag(three_parts))]


def test_part_uploaded_twice_last_one_wins(s3, bucket):
    key = "twice"
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=b"first")
    r = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=b"second")
    assert [p["Size"] for p in s3.list_parts(Bucket=bucket, Key=key,
                                              UploadId=upload_id)["Parts"]] == [6]
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": r["ETag"]}]})
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"second"


def test_parts_may_skip_numbers(s3, bucket):
    key = "gaps"
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    a, b = os.urandom(5 * MIB), b"tail"
    ra = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=2, Body=a)
    rb = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=7, Body=b)
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={
        "Parts": [{"PartNumber": 2, "ETag": ra["ETag"]}, {"PartNumber": 7, "ETag": rb["ETag"]}]})
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == a + b


def test_abort_removes_upload(s3, bucket):
    upload_id, _ = upload_parts(s3, bucket, "aborted", [b"x" * 1000])
    s3.abort_multipart_upload(Bucket=bucket, Key="aborted", UploadId=upload_id)
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.list_parts(Bucket=bucket, Key="aborted", UploadId=upload_id)
    assert err(e) == ("NoSuchUpload", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.head_object(Bucket=bucket, Key="aborted")
    assert err(e)[1] == 404


def test_entity_too_small(s3, bucket):
    upload_id, done = upload_parts(s3, bucket, "small", [b"a" * MIB, b"b" * MIB])
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="small", UploadId=upload_id,
                                     MultipartUpload={"Parts": done})
    assert err(e) == ("EntityTooSmall", 400)
    # The upload is still there after a failed Complete.
    assert len(s3.list_parts(Bucket=bucket, Key="small", UploadId=upload_id)["Parts"]) == 2


def test_invalid_part(s3, bucket):
    upload_id, done = upload_parts(s3, bucket, "ip", [b"only part"])
    cases = [
        [{"PartNumber": 1, "ETag": '"' + "0" * 32 + '"'}],           # wrong ETag
        [{"PartNumber": 2, "ETag": done[0]["ETag"]}],                 # never uploaded
        [done[0], {"PartNumber": 3, "ETag": done[0]["ETag"]}],        # one of two missing
    ]
    for parts in cases:
        with pytest.raises(botocore.exceptions.ClientError) as e:
            s3.complete_multipart_upload(Bucket=bucket, Key="ip", UploadId=upload_id,
                                         MultipartUpload={"Parts": parts})
        assert err(e) == ("InvalidPart", 400), parts


def test_invalid_part_order(s3, bucket):
    upload_id, done = upload_parts(s3, bucket, "order", [os.urandom(5 * MIB), b"second"])
    # A repeated part number in a row is accepted (test_conformance); going down is not.
    for parts in ([done[1], done[0]], [done[0], done[1], done[0]]):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            s3.complete_multipart_upload(Bucket=bucket, Key="order", UploadId=upload_id,
                                         MultipartUpload={"Parts": parts})
        assert err(e) == ("InvalidPartOrder", 400)


def test_complete_without_parts_is_malformed(server, s3, bucket):
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key="none")["UploadId"]
    r = raw_request(server, "POST", f"/{bucket}/none", query=f"uploadId={upload_id}",
                    body=b"<CompleteMultipartUpload></CompleteMultipartUpload>")
    assert (r.status, r.code) == (400, "MalformedXML"), r


def test_no_such_upload_everywhere(s3, bucket):
    bogus = "bm8tc3VjaC11cGxvYWQ"
    calls = {
        "UploadPart": lambda: s3.upload_part(Bucket=bucket, Key="k", UploadId=bogus,
                                             PartNumber=1, Body=b"x"),
        "Complete": lambda: s3.complete_multipart_upload(
            Bucket=bucket, Key="k", UploadId=bogus,
            MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": '"' + "0" * 32 + '"'}]}),
        "Abort": lambda: s3.abort_multipart_upload(Bucket=bucket, Key="k", UploadId=bogus),
        "ListParts": lambda: s3.list_parts(Bucket=bucket, Key="k", UploadId=bogus),
    }
    for name, call in calls.items():
        with pytest.raises(botocore.exceptions.ClientError) as e:
            call()
        assert err(e) == ("NoSuchUpload", 404), name
    # An upload id of another key is no upload of this key.
    real = s3.create_multipart_upload(Bucket=bucket, Key="other")["UploadId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.list_parts(Bucket=bucket, Key="k", UploadId=real)
    assert err(e) == ("NoSuchUpload", 404)


def test_retried_complete_answers_200_with_same_etag(s3, bucket, three_parts):
    upload_id, done = upload_parts(s3, bucket, "retry", three_parts)
    first = s3.complete_multipart_upload(Bucket=bucket, Key="retry", UploadId=upload_id,
                                         MultipartUpload={"Parts": done})
    again = s3.complete_multipart_upload(Bucket=bucket, Key="retry", UploadId=upload_id,
                                         MultipartUpload={"Parts": done})
    assert again["ETag"] == first["ETag"] == multipart_etag(three_parts)
    assert s3.get_object(Bucket=bucket, Key="retry")["Body"].read() == b"".join(three_parts)
    # Once completed, the upload id takes no more parts.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.upload_part(Bucket=bucket, Key="retry", UploadId=upload_id, PartNumber=4, Body=b"x")
    assert err(e) == ("NoSuchUpload", 404)


def test_upload_part_number_out_of_range(server, s3, bucket):
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key="pn")["UploadId"]
    for n in (0, 10001):
        r = raw_request(server, "PUT", f"/{bucket}/pn", query=f"partNumber={n}&uploadId={upload_id}",
                        body=b"x")
        assert (r.status, r.code) == (400, "InvalidArgument"), (n, r)


# ----------------------------------------------------------------- write conditions

def test_put_if_none_match_star(server, s3, bucket):
    c = with_headers(server, "PutObject", {"If-None-Match": "*"})
    c.put_object(Bucket=bucket, Key="once", Body=b"first")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        c.put_object(Bucket=bucket, Key="once", Body=b"second")
    assert err(e) == ("PreconditionFailed", 412)
    assert s3.get_object(Bucket=bucket, Key="once")["Body"].read() == b"first"


def test_put_if_match(server, s3, bucket):
    etag = s3.put_object(Bucket=bucket, Key="im", Body=b"v1")["ETag"]
    bad = with_headers(server, "PutObject", {"If-Match": '"' + "f" * 32 + '"'})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        bad.put_object(Bucket=bucket, Key="im", Body=b"v2")
    assert err(e) == ("PreconditionFailed", 412)
    assert s3.get_object(Bucket=bucket, Key="im")["Body"].read() == b"v1"
    good = with_headers(server, "PutObject", {"If-Match": etag})
    good.put_object(Bucket=bucket, Key="im", Body=b"v2")
    assert s3.get_object(Bucket=bucket, Key="im")["Body"].read() == b"v2"
    # If-Match on a key that does not exist: NoSuchKey.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        good.put_object(Bucket=bucket, Key="im-absent", Body=b"v1")
    assert err(e) == ("NoSuchKey", 404)


def test_complete_if_none_match_star(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="exists", Body=b"already here")
    upload_id, done = upload_parts(s3, bucket, "exists", [b"new"])
    c = with_headers(server, "CompleteMultipartUpload", {"If-None-Match": "*"})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        c.complete_multipart_upload(Bucket=bucket, Key="exists", UploadId=upload_id,
                                    MultipartUpload={"Parts": done})
    assert err(e) == ("PreconditionFailed", 412)
    assert s3.get_object(Bucket=bucket, Key="exists")["Body"].read() == b"already here"
    # On a key that does not exist it completes.
    upload_id, done = upload_parts(s3, bucket, "fresh", [b"new"])
    c.complete_multipart_upload(Bucket=bucket, Key="fresh", UploadId=upload_id,
                                MultipartUpload={"Parts": done})
    assert s3.get_object(Bucket=bucket, Key="fresh")["Body"].read() == b"new"


def test_complete_if_match_mismatch(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="cim", Body=b"old")
    upload_id, done = upload_parts(s3, bucket, "cim", [b"new"])
    c = with_headers(server, "CompleteMultipartUpload", {"If-Match": '"' + "0" * 32 + '"'})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        c.complete_multipart_upload(Bucket=bucket, Key="cim", UploadId=upload_id,
                                    MultipartUpload={"Parts": done})
    assert err(e) == ("PreconditionFailed", 412)
    assert s3.get_object(Bucket=bucket, Key="cim")["Body"].read() == b"old"


# ----------------------------------------------------------------- partNumber and ranges

@pytest.fixture
def mp_object(s3, bucket, three_parts):
    upload_id, done = upload_parts(s3, bucket, "parts.bin", three_parts)
    s3.complete_multipart_upload(Bucket=bucket, Key="parts.bin", UploadId=upload_id,
                                 MultipartUpload={"Parts": done})
    return "parts.bin", three_parts


def test_get_part_number(server, s3, bucket, mp_object):
    key, parts = mp_object
    total = sum(map(len, parts))
    offset = 0
    for n, data in enumerate(parts, start=1):
        r = raw_request(server, "GET", f"/{bucket}/{key}", query=f"partNumber={n}")
        assert r.status == 206, r
        assert r.body == data
        assert r.header("Content-Range") == f"bytes {offset}-{offset + len(data) - 1}/{total}"
        assert r.header("x-amz-mp-parts-count") == "3"
        assert r.header("ETag") == multipart_etag(parts)
        offset += len(data)
    head = s3.head_object(Bucket=bucket, Key=key, PartNumber=2)
    assert head["ContentLength"] == len(parts[1])
    assert head["PartsCount"] == 3
    r = raw_request(server, "GET", f"/{bucket}/{key}", query="partNumber=4")
    assert (r.status, r.code) == (416, "InvalidPartNumber"), r


def test_get_part_number_of_single_put_object(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="single", Body=b"0123456789")
    r = raw_request(server, "GET", f"/{bucket}/single", query="partNumber=1")
    assert r.status in (200, 206) and r.body == b"0123456789", r
    r = raw_request(server, "GET", f"/{bucket}/single", query="partNumber=2")
    assert (r.status, r.code) == (416, "InvalidPartNumber"), r


def test_range_with_part_number_is_invalid(server, bucket, mp_object):
    key, _ = mp_object
    r = raw_request(server, "GET", f"/{bucket}/{key}", query="partNumber=1",
                    headers={"Range": "bytes=0-9"})
    assert (r.status, r.code) == (400, "InvalidRequest"), r


def test_ranges_on_multipart_object(s3, bucket, mp_object):
    key, parts = mp_object
    whole = b"".join(parts)
    n = len(whole)
    b1 = len(parts[0])
    cases = [
        (f"bytes={b1 - 10}-{b1 + 9}", whole[b1 - 10:b1 + 10], f"bytes {b1 - 10}-{b1 + 9}/{n}"),
        ("bytes=-100", whole[-100:], f"bytes {n - 100}-{n - 1}/{n}"),
        (f"bytes={n - 5}-", whole[-5:], f"bytes {n - 5}-{n - 1}/{n}"),
        (f"bytes={2 * b1 - 1}-{n + 100}", whole[2 * b1 - 1:], f"bytes {2 * b1 - 1}-{n - 1}/{n}"),
        (f"bytes=-{n + 10}", whole, f"bytes 0-{n - 1}/{n}"),
    ]
    for rng, want, content_range in cases:
        got = s3.get_object(Bucket=bucket, Key=key, Range=rng)
        assert got["ContentRange"] == content_range, rng
        assert got["Body"].read() == want, rng
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key=key, Range=f"bytes={n}-")
    assert err(e) == ("InvalidRange", 416)
