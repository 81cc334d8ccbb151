"""SSE-S3 (x-amz-server-side-encryption: AES256), issue 16, as AWS documents it
(UsingServerSideEncryption.html, API_PutObject/GetObject/HeadObject/CopyObject/
CreateMultipartUpload/UploadPart/CompleteMultipartUpload): the response header on every
operation, ETag == MD5 of the plaintext for a single PUT, round trips at the 64 KiB segment
boundaries, ranged GETs on and across them, multipart, listings, the errors, bucket and server
default encryption, and a restart that reads everything back."""

import base64
import hashlib
import os

import pytest

from cubby_e2e import make_client, new_bucket_name, quoted_md5, raw_request
from sse_e2e import (BOUNDARY_SIZES, MIB, SEGMENT, SSE, absent, assert_no_sse_headers,
                     assert_sse_s3, check_ranges, expect_error, get_range,
                     payload, remember_master_key)

AES = {"ServerSideEncryption": "AES256"}


def multipart_etag(parts):
    md5s = b"".join(hashlib.md5(p).digest() for p in parts)
    return f'"{hashlib.md5(md5s).hexdigest()}-{len(parts)}"'


def put_sse_s3(s3, bucket, key, data):
    r = s3.put_object(Bucket=bucket, Key=key, Body=data, **AES)
    assert_sse_s3(r)
    return r


@pytest.mark.parametrize("size", BOUNDARY_SIZES)
def test_round_trip_headers_and_etag(s3, bucket, size):
    data = payload(size, seed=size)
    r = put_sse_s3(s3, bucket, "obj", data)
    # SSE-S3 objects uploaded by a single PUT keep the MD5 ETag (API_Object ETag).
    assert r["ETag"] == quoted_md5(data)
    assert r["ServerSideEncryption"] == "AES256"
    g = s3.get_object(Bucket=bucket, Key="obj")
    assert g["Body"].read() == data
    assert_sse_s3(g)
    assert g["ETag"] == quoted_md5(data)
    assert g["ContentLength"] == size
    h = s3.head_object(Bucket=bucket, Key="obj")
    assert_sse_s3(h)
    assert h["ServerSideEncryption"] == "AES256"
    assert h["ContentLength"] == size
    assert h["ETag"] == quoted_md5(data)


def test_plain_object_has_no_encryption_header(s3, bucket):
    r = s3.put_object(Bucket=bucket, Key="plain", Body=b"plain")
    assert_no_sse_headers(r)
    assert_no_sse_headers(s3.get_object(Bucket=bucket, Key="plain"))
    assert_no_sse_headers(s3.head_object(Bucket=bucket, Key="plain"))


@pytest.mark.parametrize("size", [SEGMENT + 1, 2 * SEGMENT, 3 * MIB + 3])
def test_ranges_across_segment_boundaries(s3, bucket, size):
    data = payload(size, seed=7)
    put_sse_s3(s3, bucket, "ranged", data)
    checked = check_ranges(s3, bucket, "ranged", data)
    assert checked >= 8
    r, _ = get_range(s3, bucket, "ranged", "bytes=0-0")
    assert_sse_s3(r)


def test_unsatisfiable_range(s3, bucket):
    data = payload(SEGMENT + 1)
    put_sse_s3(s3, bucket, "k", data)
    expect_error(s3.get_object, "InvalidRange", 416, Bucket=bucket, Key="k",
                 Range=f"bytes={SEGMENT + 1}-")


# Non-contiguous part numbers; sizes that end off the segment grid, so a part's segments do
# not line up with the object's.
PARTS = [(1, 5 * MIB + 1), (2, 5 * MIB + SEGMENT - 1), (5, 100003)]


def upload_sse_s3_parts(s3, bucket, key):
    c = s3.create_multipart_upload(Bucket=bucket, Key=key, **AES)
    assert_sse_s3(c)
    assert c["ServerSideEncryption"] == "AES256"
    upload_id = c["UploadId"]
    parts, done = [], []
    for number, size in PARTS:
        data = payload(size, seed=number)
        # The upload's encryption applies to every part without the header being repeated.
        r = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=number,
                           Body=data)
        assert_sse_s3(r)
        assert r["ETag"] == quoted_md5(data)
        parts.append(data)
        done.append({"PartNumber": number, "ETag": r["ETag"]})
    return upload_id, parts, done


def test_multipart(server, s3, bucket):
    key = "mp.bin"
    upload_id, parts, done = upload_sse_s3_parts(s3, bucket, key)
    listed = s3.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)["Parts"]
    assert [(p["PartNumber"], p["Size"]) for p in listed] == PARTS
    c = s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id,
                                     MultipartUpload={"Parts": done})
    assert_sse_s3(c)
    assert c["ServerSideEncryption"] == "AES256"
    assert c["ETag"] == multipart_etag(parts)
    whole = b"".join(parts)
    g = s3.get_object(Bucket=bucket, Key=key)
    assert_sse_s3(g)
    assert g["Body"].read() == whole
    h = s3.head_object(Bucket=bucket, Key=key)
    assert_sse_s3(h)
    assert h["ContentLength"] == len(whole)
    # Ranges across the part boundaries, and one across a part and a segment boundary.
    b1 = len(parts[0])
    b2 = b1 + len(parts[1])
    for first, last in [(b1 - 10, b1 + 10), (b1 - 1, b1), (b2 - SEGMENT, b2 + SEGMENT),
                        (b1 - 3, b2 + 3), (0, len(whole) - 1)]:
        r, body = get_range(s3, bucket, key, f"bytes={first}-{last}")
        assert body == whole[first:last + 1], (first, last)
    r, body = get_range(s3, bucket, key, "bytes=-70000")
    assert body == whole[-70000:]
    # GET ?partNumber=2: the second part, with the header.
    p = s3.get_object(Bucket=bucket, Key=key, PartNumber=2)
    assert p["Body"].read() == parts[1]
    assert_sse_s3(p)
    assert p["ContentRange"] == f"bytes {b1}-{b2 - 1}/{len(whole)}"
    assert p["PartsCount"] == 3
    # ListObjectsV2: plaintext size, the multipart ETag.
    (obj,) = s3.list_objects_v2(Bucket=bucket)["Contents"]
    assert (obj["Key"], obj["Size"], obj["ETag"]) == (key, len(whole), multipart_etag(parts))


def test_listing_shows_plaintext_size_and_md5(s3, bucket):
    objs = {f"k{size}": payload(size, seed=size) for size in (0, 1, SEGMENT + 1, MIB + 5)}
    for key, data in objs.items():
        put_sse_s3(s3, bucket, key, data)
    contents = s3.list_objects_v2(Bucket=bucket)["Contents"]
    listed = {o["Key"]: (o["Size"], o["ETag"]) for o in contents}
    assert listed == {k: (len(d), quoted_md5(d)) for k, d in objs.items()}
    v1 = {o["Key"]: o["Size"] for o in s3.list_objects(Bucket=bucket)["Contents"]}
    assert v1 == {k: len(d) for k, d in objs.items()}


def test_get_with_encryption_header_is_invalid(server, s3, bucket):
    put_sse_s3(s3, bucket, "k", b"secret")
    # GetObject: "If you include x-amz-server-side-encryption in a GET for an SSE-S3 or SSE-KMS
    # object, you get an HTTP 400 Bad Request error."
    for value in ("AES256", "aws:kms"):
        r = raw_request(server, "GET", f"/{bucket}/k", headers={SSE: value})
        assert (r.status, r.code) == (400, "InvalidArgument"), r
        r = raw_request(server, "HEAD", f"/{bucket}/k", headers={SSE: value})
        assert r.status == 400, r


@pytest.mark.parametrize("value", ["AES512", "DES"])
def test_invalid_method_value(s3, bucket, value):
    expect_error(s3.put_object, "InvalidArgument", 400, Bucket=bucket, Key="k", Body=b"x",
                 ServerSideEncryption=value)
    assert absent(s3, bucket, "k")
    expect_error(s3.create_multipart_upload, "InvalidArgument", 400, Bucket=bucket, Key="k",
                 ServerSideEncryption=value)
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_dsse_not_implemented(s3, bucket):
    expect_error(s3.put_object, "NotImplemented", 501, Bucket=bucket, Key="k", Body=b"x",
                 ServerSideEncryption="aws:kms:dsse")
    assert absent(s3, bucket, "k")


def test_copy_object_to_sse_s3(s3, bucket):
    data = payload(SEGMENT * 2 + 17)
    s3.put_object(Bucket=bucket, Key="src", Body=data)
    r = s3.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"},
                       **AES)
    assert_sse_s3(r)
    assert r["CopyObjectResult"]["ETag"] == quoted_md5(data)
    g = s3.get_object(Bucket=bucket, Key="dst")
    assert_sse_s3(g)
    assert g["Body"].read() == data
    # The source stays unencrypted.
    assert_no_sse_headers(s3.head_object(Bucket=bucket, Key="src"))


# ---------------------------------------------------------------- default encryption

def put_bucket_default(s3, bucket, algorithm="AES256"):
    s3.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration={
        "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": algorithm}}]})


def test_bucket_default_encryption(s3, bucket):
    put_bucket_default(s3, bucket)
    rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert rules[0]["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    data = payload(SEGMENT + 3)
    r = s3.put_object(Bucket=bucket, Key="headerless", Body=data)
    assert_sse_s3(r)
    assert r["ETag"] == quoted_md5(data)
    g = s3.get_object(Bucket=bucket, Key="headerless")
    assert_sse_s3(g)
    assert g["Body"].read() == data
    assert_sse_s3(s3.head_object(Bucket=bucket, Key="headerless"))
    # Multipart and copies into the bucket get it too.
    c = s3.create_multipart_upload(Bucket=bucket, Key="mp")
    assert_sse_s3(c)
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=c["UploadId"], PartNumber=1,
                          Body=b"part")
    assert_sse_s3(part)
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=c["UploadId"],
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    assert_sse_s3(done)
    assert_sse_s3(s3.get_object(Bucket=bucket, Key="mp"))
    other = new_bucket_name()
    s3.create_bucket(Bucket=other)
    s3.put_object(Bucket=other, Key="plain", Body=b"plain")
    cp = s3.copy_object(Bucket=bucket, Key="copied", CopySource={"Bucket": other, "Key": "plain"})
    assert_sse_s3(cp)
    assert_sse_s3(s3.head_object(Bucket=bucket, Key="copied"))
    # Removing the rule: new objects are plain again, old ones stay encrypted.
    s3.delete_bucket_encryption(Bucket=bucket)
    assert_no_sse_headers(s3.put_object(Bucket=bucket, Key="after", Body=b"x"))
    assert_no_sse_headers(s3.head_object(Bucket=bucket, Key="after"))
    assert_sse_s3(s3.head_object(Bucket=bucket, Key="headerless"))


def test_server_default_encryption_flag(start_server):
    srv = start_server(args=["--default-encryption", "AES256"])
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    data = payload(3 * SEGMENT + 5)
    r = s3.put_object(Bucket=b, Key="k", Body=data)
    assert_sse_s3(r)
    assert r["ETag"] == quoted_md5(data)
    g = s3.get_object(Bucket=b, Key="k")
    assert_sse_s3(g)
    assert g["Body"].read() == data
    c = s3.create_multipart_upload(Bucket=b, Key="mp")
    assert_sse_s3(c)


def test_server_default_encryption_env(start_server):
    srv = start_server(env_extra={"CUBBY_DEFAULT_ENCRYPTION": "AES256"})
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    assert_sse_s3(s3.put_object(Bucket=b, Key="k", Body=b"x"))


def test_server_default_none(start_server):
    srv = start_server(args=["--default-encryption", "none"])
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    assert_no_sse_headers(s3.put_object(Bucket=b, Key="k", Body=b"x"))
    # An explicit header still encrypts.
    assert_sse_s3(s3.put_object(Bucket=b, Key="e", Body=b"x", **AES))


def test_server_default_invalid_value_refuses_to_start(start_server):
    srv = start_server(args=["--default-encryption", "AES512"], ready=False)
    assert srv.proc.wait(30) != 0
    srv.stop()
    assert "default-encryption" in srv.all_output() or "AES512" in srv.all_output()


# ---------------------------------------------------------------- restart

def test_restart_reads_everything_back(start_server):
    srv = start_server()
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    objs = {f"s{size}": payload(size, seed=size) for size in BOUNDARY_SIZES}
    for key, data in objs.items():
        put_sse_s3(s3, b, key, data)
    upload_id, parts, done = upload_sse_s3_parts(s3, b, "mp")
    s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=upload_id,
                                 MultipartUpload={"Parts": done})
    objs["mp"] = b"".join(parts)
    # An upload left open across the restart, completed afterwards.
    open_id = s3.create_multipart_upload(Bucket=b, Key="open", **AES)["UploadId"]
    first = payload(5 * MIB + 3, seed=99)
    p1 = s3.upload_part(Bucket=b, Key="open", UploadId=open_id, PartNumber=1, Body=first)
    remember_master_key(srv.data_dir)
    assert srv.stop() == 0

    again = start_server(data_dir=srv.data_dir)
    s3 = make_client(again)
    for key, data in objs.items():
        g = s3.get_object(Bucket=b, Key=key)
        assert_sse_s3(g)
        assert g["Body"].read() == data, key
    check_ranges(s3, b, "s3145731", objs["s3145731"])
    p2 = s3.upload_part(Bucket=b, Key="open", UploadId=open_id, PartNumber=2, Body=b"tail")
    assert_sse_s3(p2)
    s3.complete_multipart_upload(Bucket=b, Key="open", UploadId=open_id, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": p1["ETag"]}, {"PartNumber": 2, "ETag": p2["ETag"]}]})
    g = s3.get_object(Bucket=b, Key="open")
    assert_sse_s3(g)
    assert g["Body"].read() == first + b"tail"


def _tree(data_dir):
    """{relative path: sha256} of every file, RocksDB's info logs (LOG, LOG.old.*) left out."""
    out = {}
    for root, _, names in os.walk(data_dir):
        for name in names:
            if name == "LOG" or name.startswith("LOG.old"):
                continue
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, data_dir)] = hashlib.sha256(f.read()).hexdigest()
    return out


def _master_key_file(path):
    path.write_text(base64.b64encode(os.urandom(32)).decode() + "\n")
    os.chmod(path, 0o600)
    return str(path)


def test_wrong_master_key_refuses_to_start_and_modifies_nothing(start_server, tmp_path):
    right = _master_key_file(tmp_path / "right.key")
    wrong = _master_key_file(tmp_path / "wrong.key")
    srv = start_server(args=["--master-key-file", right])
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    data = payload(2 * MIB + 1)
    put_sse_s3(s3, b, "k", data)
    assert srv.stop() == 0
    before = _tree(srv.data_dir)

    bad = start_server(args=["--master-key-file", wrong], data_dir=srv.data_dir, ready=False)
    code = bad.proc.wait(30)
    bad.stop()
    assert code != 0
    assert "master key" in bad.all_output().lower(), bad.output()
    with open(wrong) as f:
        assert f.read().strip() not in bad.all_output()
    assert _tree(srv.data_dir) == before, "a refused start modified the data folder"

    again = start_server(args=["--master-key-file", right], data_dir=srv.data_dir)
    g = make_client(again).get_object(Bucket=b, Key="k")
    assert_sse_s3(g)
    assert g["Body"].read() == data
