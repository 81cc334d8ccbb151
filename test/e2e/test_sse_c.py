"""SSE-C (customer-provided keys), issue 16, as AWS documents it
(ServerSideEncryptionCustomerKeys.html, API_PutObject/GetObject/HeadObject/UploadPart/CopyObject/
UploadPartCopy, ErrorResponses.html): round trips with the customer-algorithm and key-MD5
response headers, ranges, multipart with the key on every part, and every error case. The
server runs with --allow-sse-c-over-http (AWS requires HTTPS) except where the refusal over
HTTP is tested."""

import base64
import hashlib

import pytest

from cubby_e2e import make_client, new_bucket_name, raw_request
from sse_e2e import (BOUNDARY_SIZES, COPY_SSEC_ALG, COPY_SSEC_KEY, COPY_SSEC_MD5, MIB, SEGMENT,
                     SSE, SSEC_ALG, SSEC_KEY, SSEC_MD5, SsecKey,
                     absent, assert_no_sse_headers, assert_sse_s3, assert_ssec, check_ranges,
                     expect_error, expect_head_status, headers_of, new_ssec_key, not_md5_etag,
                     payload, remember_master_key)


@pytest.fixture
def ssec_server(start_server):
    """A server that accepts SSE-C over plain HTTP (AWS requires HTTPS; tests use HTTP)."""
    srv = start_server(args=["--allow-sse-c-over-http"])
    yield srv
    remember_master_key(srv.data_dir)


@pytest.fixture
def ssec_s3(ssec_server):
    return make_client(ssec_server)


@pytest.fixture
def ssec_bucket(ssec_s3):
    name = new_bucket_name("sse")
    ssec_s3.create_bucket(Bucket=name)
    return name


@pytest.fixture
def key():
    return new_ssec_key()


@pytest.mark.parametrize("size", BOUNDARY_SIZES)
def test_round_trip(ssec_s3, ssec_bucket, key, size):
    s3, b = ssec_s3, ssec_bucket
    data = payload(size, seed=size)
    r = s3.put_object(Bucket=b, Key="obj", Body=data, **key.params())
    assert_ssec(r, key)
    assert r["SSECustomerAlgorithm"] == "AES256"
    assert r["SSECustomerKeyMD5"] == key.md5_b64
    g = s3.get_object(Bucket=b, Key="obj", **key.params())
    assert_ssec(g, key)
    assert g["Body"].read() == data
    assert g["ContentLength"] == size
    assert g["ETag"] == r["ETag"]
    h = s3.head_object(Bucket=b, Key="obj", **key.params())
    assert_ssec(h, key)
    assert h["ContentLength"] == size
    assert h["ETag"] == r["ETag"]
    (listed,) = s3.list_objects_v2(Bucket=b)["Contents"]
    assert (listed["Size"], listed["ETag"]) == (size, r["ETag"])


def test_etag_is_not_the_md5(ssec_s3, ssec_bucket, key):
    data = payload(1000)
    r = ssec_s3.put_object(Bucket=ssec_bucket, Key="k", Body=data, **key.params())
    not_md5_etag(r["ETag"], data)


def test_same_bytes_two_keys(ssec_s3, ssec_bucket):
    """Each object answers only to its own key."""
    k1, k2 = new_ssec_key(), new_ssec_key()
    data = payload(SEGMENT + 5)
    ssec_s3.put_object(Bucket=ssec_bucket, Key="a", Body=data, **k1.params())
    ssec_s3.put_object(Bucket=ssec_bucket, Key="b", Body=data, **k2.params())
    assert ssec_s3.get_object(Bucket=ssec_bucket, Key="a", **k1.params())["Body"].read() == data
    assert ssec_s3.get_object(Bucket=ssec_bucket, Key="b", **k2.params())["Body"].read() == data
    expect_error(ssec_s3.get_object, "AccessDenied", 403, Bucket=ssec_bucket, Key="a",
                 **k2.params())


@pytest.mark.parametrize("size", [SEGMENT + 1, 3 * MIB + 3])
def test_ranges(ssec_s3, ssec_bucket, key, size):
    data = payload(size, seed=3)
    ssec_s3.put_object(Bucket=ssec_bucket, Key="r", Body=data, **key.params())
    assert check_ranges(ssec_s3, ssec_bucket, "r", data, **key.params()) >= 8
    r = ssec_s3.get_object(Bucket=ssec_bucket, Key="r", Range="bytes=65535-65536", **key.params())
    assert_ssec(r, key)


def test_multipart_key_on_every_part(ssec_s3, ssec_bucket, key):
    s3, b = ssec_s3, ssec_bucket
    c = s3.create_multipart_upload(Bucket=b, Key="mp", **key.params())
    assert_ssec(c, key)
    upload_id = c["UploadId"]
    parts = [payload(5 * MIB + 1, seed=1), payload(5 * MIB + 7, seed=2), payload(70001, seed=3)]
    done = []
    for number, data in zip((1, 2, 4), parts):
        r = s3.upload_part(Bucket=b, Key="mp", UploadId=upload_id, PartNumber=number, Body=data,
                           **key.params())
        assert_ssec(r, key)
        done.append({"PartNumber": number, "ETag": r["ETag"]})
    s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=upload_id,
                                 MultipartUpload={"Parts": done})
    whole = b"".join(parts)
    g = s3.get_object(Bucket=b, Key="mp", **key.params())
    assert_ssec(g, key)
    assert g["Body"].read() == whole
    b1 = len(parts[0])
    r = s3.get_object(Bucket=b, Key="mp", Range=f"bytes={b1 - 5}-{b1 + 5}", **key.params())
    assert r["Body"].read() == whole[b1 - 5:b1 + 6]
    p = s3.get_object(Bucket=b, Key="mp", PartNumber=2, **key.params())
    assert p["Body"].read() == parts[1]
    assert_ssec(p, key)
    expect_error(s3.get_object, "InvalidRequest", 400, Bucket=b, Key="mp")
    expect_error(s3.get_object, "InvalidRequest", 400, Bucket=b, Key="mp", PartNumber=2)
    expect_error(s3.get_object, "AccessDenied", 403, Bucket=b, Key="mp",
                 **new_ssec_key().params())
    (listed,) = s3.list_objects_v2(Bucket=b)["Contents"]
    assert listed["Size"] == len(whole)


# ---------------------------------------------------------------- errors on reads

@pytest.fixture
def stored(ssec_s3, ssec_bucket, key):
    data = payload(SEGMENT + 9)
    ssec_s3.put_object(Bucket=ssec_bucket, Key="c", Body=data, **key.params())
    return data


def test_get_head_without_key(ssec_s3, ssec_bucket, stored):
    e = expect_error(ssec_s3.get_object, "InvalidRequest", 400, Bucket=ssec_bucket, Key="c")
    assert SSEC_KEY not in str(e.response)
    # HEAD has no body: the status says it.
    expect_head_status(ssec_s3, 400, Bucket=ssec_bucket, Key="c")
    expect_error(ssec_s3.get_object, "InvalidRequest", 400, Bucket=ssec_bucket, Key="c",
                 Range="bytes=0-10")


def test_get_head_wrong_key(ssec_s3, ssec_bucket, stored):
    other = new_ssec_key()
    expect_error(ssec_s3.get_object, "AccessDenied", 403, Bucket=ssec_bucket, Key="c",
                 **other.params())
    expect_head_status(ssec_s3, 403, Bucket=ssec_bucket, Key="c", **other.params())


def test_object_attributes_need_the_key(ssec_s3, ssec_bucket, key, stored):
    """GetObjectAttributes of an SSE-C object is refused without its key, and with another key,
    as GetObject is; with the key it answers."""
    def with_key(k):
        # This botocore does not encode the key for GetObjectAttributes: give the header values.
        return {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": k.b64,
                "SSECustomerKeyMD5": k.md5_b64}

    attrs = ["ETag", "ObjectSize"]
    e = expect_error(ssec_s3.get_object_attributes, "InvalidRequest", 400, Bucket=ssec_bucket,
                     Key="c", ObjectAttributes=attrs)
    assert SSEC_KEY not in str(e.response)
    expect_error(ssec_s3.get_object_attributes, "AccessDenied", 403, Bucket=ssec_bucket, Key="c",
                 ObjectAttributes=attrs, **with_key(new_ssec_key()))
    got = ssec_s3.get_object_attributes(Bucket=ssec_bucket, Key="c", ObjectAttributes=attrs,
                                        **with_key(key))
    assert got["ObjectSize"] == len(stored)


def test_get_key_md5_mismatch(ssec_server, ssec_bucket, key, stored):
    h = key.headers()
    h[SSEC_MD5] = new_ssec_key().md5_b64
    r = raw_request(ssec_server, "GET", f"/{ssec_bucket}/c", headers=h)
    assert (r.status, r.code) == (400, "InvalidArgument"), r


def test_key_on_unencrypted_object(ssec_s3, ssec_bucket, key):
    ssec_s3.put_object(Bucket=ssec_bucket, Key="plain", Body=b"plain")
    expect_error(ssec_s3.get_object, "InvalidRequest", 400, Bucket=ssec_bucket, Key="plain",
                 **key.params())
    expect_head_status(ssec_s3, 400, Bucket=ssec_bucket, Key="plain", **key.params())


def test_key_on_sse_s3_object(ssec_s3, ssec_bucket, key):
    ssec_s3.put_object(Bucket=ssec_bucket, Key="s3", Body=b"x", ServerSideEncryption="AES256")
    expect_error(ssec_s3.get_object, "InvalidRequest", 400, Bucket=ssec_bucket, Key="s3",
                 **key.params())


# ---------------------------------------------------------------- malformed key headers

def malformed_cases():
    good = SsecKey()
    short = b"k" * 16
    long = b"k" * 33
    b64 = lambda raw: base64.b64encode(raw).decode()  # noqa: E731
    md5 = lambda raw: base64.b64encode(hashlib.md5(raw).digest()).decode()  # noqa: E731
    return [
        ("md5-mismatch", {SSEC_ALG: "AES256", SSEC_KEY: good.b64, SSEC_MD5: md5(b"other")},
         "InvalidArgument"),
        ("md5-not-base64", {SSEC_ALG: "AES256", SSEC_KEY: good.b64, SSEC_MD5: "!!notbase64!!"},
         "InvalidArgument"),
        ("bad-algorithm", {SSEC_ALG: "AES128", SSEC_KEY: good.b64, SSEC_MD5: good.md5_b64},
         "InvalidEncryptionAlgorithmError"),
        ("key-16-bytes", {SSEC_ALG: "AES256", SSEC_KEY: b64(short), SSEC_MD5: md5(short)},
         "InvalidArgument"),
        ("key-33-bytes", {SSEC_ALG: "AES256", SSEC_KEY: b64(long), SSEC_MD5: md5(long)},
         "InvalidArgument"),
        ("key-not-base64", {SSEC_ALG: "AES256", SSEC_KEY: "*" * 44, SSEC_MD5: good.md5_b64},
         "InvalidArgument"),
        ("key-without-algorithm", {SSEC_KEY: good.b64, SSEC_MD5: good.md5_b64},
         "InvalidArgument"),
        ("algorithm-without-key", {SSEC_ALG: "AES256"}, "InvalidArgument"),
        ("algorithm-and-md5-without-key", {SSEC_ALG: "AES256", SSEC_MD5: good.md5_b64},
         "InvalidArgument"),
        ("with-sse-s3", dict(good.headers(), **{SSE: "AES256"}), "InvalidArgument"),
        ("with-sse-kms", dict(good.headers(), **{SSE: "aws:kms"}), "InvalidArgument"),
    ]


MALFORMED = malformed_cases()


@pytest.mark.parametrize("name,headers,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_put(ssec_server, ssec_s3, ssec_bucket, name, headers, code):
    r = raw_request(ssec_server, "PUT", f"/{ssec_bucket}/m", headers=headers, body=b"secret")
    assert (r.status, r.code) == (400, code), r
    assert absent(ssec_s3, ssec_bucket, "m")


@pytest.mark.parametrize("name,headers,code", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_create_multipart(ssec_server, ssec_s3, ssec_bucket, name, headers, code):
    r = raw_request(ssec_server, "POST", f"/{ssec_bucket}/m", query="uploads=", headers=headers)
    assert (r.status, r.code) == (400, code), r
    assert ssec_s3.list_multipart_uploads(Bucket=ssec_bucket).get("Uploads", []) == []


@pytest.mark.parametrize("name,headers,code",
                         [m for m in MALFORMED if not m[0].startswith("with-")],
                         ids=[m[0] for m in MALFORMED if not m[0].startswith("with-")])
def test_malformed_get(ssec_server, ssec_bucket, stored, name, headers, code):
    r = raw_request(ssec_server, "GET", f"/{ssec_bucket}/c", headers=headers)
    assert (r.status, r.code) == (400, code), r


# ---------------------------------------------------------------- multipart errors

def test_upload_part_without_or_with_other_key(ssec_s3, ssec_bucket, key):
    s3, b = ssec_s3, ssec_bucket
    upload_id = s3.create_multipart_upload(Bucket=b, Key="mp", **key.params())["UploadId"]
    expect_error(s3.upload_part, "InvalidRequest", 400, Bucket=b, Key="mp", UploadId=upload_id,
                 PartNumber=1, Body=b"no key")
    expect_error(s3.upload_part, "InvalidRequest", 400, Bucket=b, Key="mp", UploadId=upload_id,
                 PartNumber=1, Body=b"other key", **new_ssec_key().params())
    assert s3.list_parts(Bucket=b, Key="mp", UploadId=upload_id).get("Parts", []) == []
    # The right key still works afterwards.
    r = s3.upload_part(Bucket=b, Key="mp", UploadId=upload_id, PartNumber=1, Body=b"ok",
                       **key.params())
    assert_ssec(r, key)
    s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=upload_id, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": r["ETag"]}]})
    assert s3.get_object(Bucket=b, Key="mp", **key.params())["Body"].read() == b"ok"


# ---------------------------------------------------------------- plain HTTP

def test_refused_over_plain_http_without_setting(s3, bucket, key):
    """AWS refuses SSE-C over HTTP; cubby too unless --allow-sse-c-over-http."""
    expect_error(s3.put_object, "InvalidRequest", 400, Bucket=bucket, Key="k", Body=b"secret",
                 **key.params())
    assert absent(s3, bucket, "k")
    expect_error(s3.create_multipart_upload, "InvalidRequest", 400, Bucket=bucket, Key="k",
                 **key.params())
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    s3.put_object(Bucket=bucket, Key="plain", Body=b"plain")
    expect_error(s3.get_object, "InvalidRequest", 400, Bucket=bucket, Key="plain",
                 **key.params())
    expect_error(s3.copy_object, "InvalidRequest", 400, Bucket=bucket, Key="copy",
                 CopySource={"Bucket": bucket, "Key": "plain"}, **key.params())
    assert absent(s3, bucket, "copy")


def test_allowed_over_http_with_env(start_server, key):
    srv = start_server(env_extra={"CUBBY_ALLOW_SSE_C_OVER_HTTP": "1"})
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    assert_ssec(s3.put_object(Bucket=b, Key="k", Body=b"x", **key.params()), key)


# ---------------------------------------------------------------- copies from SSE-C

def test_copy_from_ssec_source(ssec_s3, ssec_bucket, key, stored):
    s3, b = ssec_s3, ssec_bucket
    src = {"Bucket": b, "Key": "c"}
    expect_error(s3.copy_object, "InvalidRequest", 400, Bucket=b, Key="d", CopySource=src)
    expect_error(s3.copy_object, "AccessDenied", 403, Bucket=b, Key="d", CopySource=src,
                 **new_ssec_key().copy_params())
    # The source's key given as the target's key is not the source's key.
    expect_error(s3.copy_object, "InvalidRequest", 400, Bucket=b, Key="d", CopySource=src,
                 **key.params())
    assert absent(s3, b, "d")
    r = s3.copy_object(Bucket=b, Key="d", CopySource=src, **key.copy_params())
    assert_no_sse_headers(r)  # the target is plain: no headers asked for it
    g = s3.get_object(Bucket=b, Key="d")
    assert g["Body"].read() == stored
    assert_no_sse_headers(g)


def test_copy_source_key_malformed(ssec_server, ssec_bucket, key, stored):
    h = key.copy_headers()
    h[COPY_SSEC_MD5] = new_ssec_key().md5_b64
    r = raw_request(ssec_server, "PUT", f"/{ssec_bucket}/d",
                    headers=dict(h, **{"x-amz-copy-source": f"/{ssec_bucket}/c"}))
    assert (r.status, r.code) == (400, "InvalidArgument"), r
    h = key.copy_headers()
    h[COPY_SSEC_ALG] = "AES128"
    r = raw_request(ssec_server, "PUT", f"/{ssec_bucket}/d",
                    headers=dict(h, **{"x-amz-copy-source": f"/{ssec_bucket}/c"}))
    assert (r.status, r.code) == (400, "InvalidEncryptionAlgorithmError"), r
    h = key.copy_headers()
    del h[COPY_SSEC_KEY]
    r = raw_request(ssec_server, "PUT", f"/{ssec_bucket}/d",
                    headers=dict(h, **{"x-amz-copy-source": f"/{ssec_bucket}/c"}))
    assert (r.status, r.code) == (400, "InvalidArgument"), r


def test_copy_source_key_on_plain_source(ssec_s3, ssec_bucket, key):
    ssec_s3.put_object(Bucket=ssec_bucket, Key="plain", Body=b"plain")
    expect_error(ssec_s3.copy_object, "InvalidRequest", 400, Bucket=ssec_bucket, Key="d",
                 CopySource={"Bucket": ssec_bucket, "Key": "plain"}, **key.copy_params())


def test_upload_part_copy_from_ssec_source(ssec_s3, ssec_bucket, key, stored):
    s3, b = ssec_s3, ssec_bucket
    upload_id = s3.create_multipart_upload(Bucket=b, Key="mp")["UploadId"]
    src = {"Bucket": b, "Key": "c"}
    expect_error(s3.upload_part_copy, "InvalidRequest", 400, Bucket=b, Key="mp",
                 UploadId=upload_id, PartNumber=1, CopySource=src)
    expect_error(s3.upload_part_copy, "AccessDenied", 403, Bucket=b, Key="mp",
                 UploadId=upload_id, PartNumber=1, CopySource=src,
                 **new_ssec_key().copy_params())
    r = s3.upload_part_copy(Bucket=b, Key="mp", UploadId=upload_id, PartNumber=1,
                            CopySource=src, CopySourceRange="bytes=65530-65540",
                            **key.copy_params())
    s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=upload_id, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": r["CopyPartResult"]["ETag"]}]})
    assert s3.get_object(Bucket=b, Key="mp")["Body"].read() == stored[65530:65541]


def test_key_not_echoed_or_stored_in_metadata(ssec_s3, ssec_bucket, key, stored):
    h = ssec_s3.head_object(Bucket=ssec_bucket, Key="c", **key.params())
    text = repr(headers_of(h)) + repr(h.get("Metadata"))
    assert key.b64 not in text
    assert SSEC_KEY not in headers_of(h)


def test_versions_keep_their_own_encryption(ssec_s3, ssec_bucket, key):
    s3, b = ssec_s3, ssec_bucket
    s3.put_bucket_versioning(Bucket=b, VersioningConfiguration={"Status": "Enabled"})
    v_c = s3.put_object(Bucket=b, Key="v", Body=b"customer", **key.params())["VersionId"]
    v_s3 = s3.put_object(Bucket=b, Key="v", Body=b"sse-s3",
                         ServerSideEncryption="AES256")["VersionId"]
    v_plain = s3.put_object(Bucket=b, Key="v", Body=b"plain")["VersionId"]
    g = s3.get_object(Bucket=b, Key="v", VersionId=v_c, **key.params())
    assert_ssec(g, key)
    assert g["Body"].read() == b"customer"
    expect_error(s3.get_object, "InvalidRequest", 400, Bucket=b, Key="v", VersionId=v_c)
    g = s3.get_object(Bucket=b, Key="v", VersionId=v_s3)
    assert_sse_s3(g)
    assert g["Body"].read() == b"sse-s3"
    g = s3.get_object(Bucket=b, Key="v", VersionId=v_plain)
    assert_no_sse_headers(g)
    assert g["Body"].read() == b"plain"
    # Copying an old SSE-C version needs its key.
    r = s3.copy_object(Bucket=b, Key="w", CopySource={"Bucket": b, "Key": "v", "VersionId": v_c},
                       **key.copy_params())
    assert s3.get_object(Bucket=b, Key="w")["Body"].read() == b"customer"
    assert_no_sse_headers(r)


def test_ssec_wins_over_default_encryption(ssec_s3, ssec_bucket, key, start_server):
    """A request's SSE-C key wins over the bucket's default rule and the server's default: the
    object is SSE-C only (no x-amz-server-side-encryption beside the customer headers)."""
    ssec_s3.put_bucket_encryption(Bucket=ssec_bucket, ServerSideEncryptionConfiguration={
        "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]})
    r = ssec_s3.put_object(Bucket=ssec_bucket, Key="k", Body=b"x", **key.params())
    assert_ssec(r, key)
    assert_ssec(ssec_s3.head_object(Bucket=ssec_bucket, Key="k", **key.params()), key)
    expect_head_status(ssec_s3, 400, Bucket=ssec_bucket, Key="k")
    c = ssec_s3.create_multipart_upload(Bucket=ssec_bucket, Key="mp", **key.params())
    assert_ssec(c, key)

    srv = start_server(args=["--allow-sse-c-over-http", "--default-encryption", "AES256"])
    s3 = make_client(srv)
    b = new_bucket_name()
    s3.create_bucket(Bucket=b)
    assert_ssec(s3.put_object(Bucket=b, Key="k", Body=b"x", **key.params()), key)
    assert s3.get_object(Bucket=b, Key="k", **key.params())["Body"].read() == b"x"
