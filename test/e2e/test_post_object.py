"""POST Object: browser form uploads (issue 15), signed with SigV4 (boto3's
generate_presigned_post) and SigV2 (computed here), and anonymous into a public-write bucket.
  https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html
  https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
"""

import base64
import datetime
import hashlib
import hmac
import json
import os
import urllib.parse
import uuid

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import S3_NS, make_client, send

BOUNDARY = "----cubbyFormBoundary7MA4YWxkTrZu0gW"


def form_body(fields, content, filename="upload.bin", file_field="file", after=()):
    """multipart/form-data with `fields` (name, value pairs, in order), then the file, then
    `after` (fields AWS ignores)."""
    out = []
    for name, value in fields:
        out.append(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                   .encode() + (value.encode() if isinstance(value, str) else value) + b"\r\n")
    out.append(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{file_field}\"; "
               f"filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
               .encode() + content + b"\r\n")
    for name, value in after:
        out.append(f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                   f"{value}\r\n".encode())
    out.append(f"--{BOUNDARY}--\r\n".encode())
    return b"".join(out)


def post(server, bucket, fields, content=b"hello form", content_type=None, **kw):
    body = form_body(fields, content, **kw)
    headers = {"Host": f"{server.host}:{server.port}",
               "Content-Type": content_type or f"multipart/form-data; boundary={BOUNDARY}"}
    return send(server, "POST", f"/{bucket}", headers, body)


def presigned(s3, bucket, key, fields=None, conditions=None, expires=600):
    p = s3.generate_presigned_post(bucket, key, Fields=fields, Conditions=conditions,
                                   ExpiresIn=expires)
    return list(p["fields"].items())


def v2_fields(server, bucket, key, conditions, expiration=None, extra=()):
    """A SigV2 form: policy and signature = base64 HMAC-SHA1(secret, policy)."""
    expiration = expiration or (datetime.datetime.utcnow() + datetime.timedelta(minutes=10))
    doc = {"expiration": expiration.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
           "conditions": [{"bucket": bucket}, ["starts-with", "$key", ""]] + conditions}
    policy = base64.b64encode(json.dumps(doc).encode()).decode()
    signature = base64.b64encode(hmac.new(server.secret_key.encode(), policy.encode(),
                                          hashlib.sha1).digest()).decode()
    return [("key", key), ("AWSAccessKeyId", server.access_key), ("policy", policy),
            ("signature", signature)] + list(extra)


def error_code(r):
    import xml.etree.ElementTree as ET
    return ET.fromstring(r.body).findtext("Code"), ET.fromstring(r.body).findtext("Message")


def test_sigv4_default_204_and_get(server, s3, bucket):
    fields = presigned(s3, bucket, "a/b c.txt")
    r = post(server, bucket, fields, b"form data")
    assert r.status == 204, r.body
    etag = r.header("ETag")
    assert etag == '"' + hashlib.md5(b"form data").hexdigest() + '"'
    assert r.header("Location").endswith(f"/{bucket}/a/b%20c.txt")
    got = s3.get_object(Bucket=bucket, Key="a/b c.txt")
    assert got["Body"].read() == b"form data"
    assert got["ETag"] == etag


@pytest.mark.parametrize("status", ["200", "201", "204", "299"])
def test_success_action_status(server, s3, bucket, status):
    fields = presigned(s3, bucket, "k", fields={"success_action_status": status},
                       conditions=[{"success_action_status": status}])
    r = post(server, bucket, fields)
    want = {"200": 200, "201": 201, "204": 204, "299": 204}[status]
    assert r.status == want, r.body
    if want == 201:
        import xml.etree.ElementTree as ET
        doc = ET.fromstring(r.body)
        assert doc.tag == "PostResponse"
        assert doc.findtext("Bucket") == bucket
        assert doc.findtext("Key") == "k"
        assert doc.findtext("ETag") == r.header("ETag")
        assert doc.findtext("Location").endswith(f"/{bucket}/k")
    else:
        assert r.body == b""


def test_success_action_redirect(server, s3, bucket):
    url = "http://example.com/done?x=1"
    fields = presigned(s3, bucket, "r.txt", fields={"success_action_redirect": url},
                       conditions=[{"success_action_redirect": url}])
    r = post(server, bucket, fields, b"redirected")
    assert r.status == 303, r.body
    loc = urllib.parse.urlsplit(r.header("Location"))
    assert loc.netloc == "example.com" and loc.path == "/done"
    q = urllib.parse.parse_qs(loc.query)
    assert q["x"] == ["1"] and q["bucket"] == [bucket] and q["key"] == ["r.txt"]
    assert q["etag"] == ['"' + hashlib.md5(b"redirected").hexdigest() + '"']


def test_filename_and_fields_stored(server, s3, bucket):
    fields = presigned(
        s3, bucket, "up/${filename}",
        fields={"Content-Type": "text/plain", "x-amz-meta-color": "blue",
                "Cache-Control": "no-cache", "Content-Disposition": "inline"},
        conditions=[["starts-with", "$Content-Type", "text/"], {"x-amz-meta-color": "blue"},
                    {"Cache-Control": "no-cache"}, {"Content-Disposition": "inline"}])
    r = post(server, bucket, fields, b"named", filename="C:\\docs\\note.txt")
    assert r.status == 204, r.body
    head = s3.head_object(Bucket=bucket, Key="up/note.txt")
    assert head["ContentType"] == "text/plain"
    assert head["Metadata"] == {"color": "blue"}
    assert head["CacheControl"] == "no-cache"
    assert head["ContentDisposition"] == "inline"


def test_key_condition_checks_key_with_filename(server, s3, bucket):
    """The policy's $key conditions see the key with ${filename} replaced, as S3 checks them: a
    condition naming the file holds for that file and fails for another."""
    fields = presigned(s3, bucket, "uploads/${filename}",
                       conditions=[["eq", "$key", "uploads/photo.jpg"]])
    r = post(server, bucket, fields, b"jpeg", filename="photo.jpg")
    assert r.status == 204, r.body
    assert s3.get_object(Bucket=bucket, Key="uploads/photo.jpg")["Body"].read() == b"jpeg"
    r = post(server, bucket, fields, b"png", filename="other.png")
    assert r.status == 403, r.body
    assert error_code(r) == ("AccessDenied", "Invalid according to Policy: Policy Condition "
                             "failed: [\"eq\", \"$key\", \"uploads/photo.jpg\"]")


def test_fields_case_insensitive_and_after_file_ignored(server, s3, bucket):
    fields = [(k.upper() if k == "key" else k, v) for k, v in presigned(s3, bucket, "ci")]
    r = post(server, bucket, fields, b"x", after=[("x-amz-meta-late", "ignored")])
    assert r.status == 204, r.body
    assert s3.head_object(Bucket=bucket, Key="ci")["Metadata"] == {}


def test_acl_and_tagging_fields(server, s3, bucket, anon):
    tagging = ("<Tagging><TagSet><Tag><Key>team</Key><Value>web app</Value></Tag></TagSet>"
               "</Tagging>")
    fields = presigned(s3, bucket, "pub", fields={"acl": "public-read", "tagging": tagging},
                       conditions=[{"acl": "public-read"}, {"tagging": tagging}])
    r = post(server, bucket, fields, b"public")
    assert r.status == 204, r.body
    assert anon.get_object(Bucket=bucket, Key="pub")["Body"].read() == b"public"
    tags = s3.get_object_tagging(Bucket=bucket, Key="pub")["TagSet"]
    assert tags == [{"Key": "team", "Value": "web app"}]


def test_too_many_tags_field(server, s3, bucket):
    """The tagging field counts as the other paths do: 10 tags at most, more is InvalidTag
    "Object tags cannot be greater than 10"."""
    tags = "".join(f"<Tag><Key>k{i}</Key><Value>v</Value></Tag>" for i in range(11))
    tagging = f"<Tagging><TagSet>{tags}</TagSet></Tagging>"
    fields = presigned(s3, bucket, "tagged", fields={"tagging": tagging},
                       conditions=[{"tagging": tagging}])
    r = post(server, bucket, fields, b"x")
    assert r.status == 400, r.body
    assert error_code(r) == ("InvalidTag", "Object tags cannot be greater than 10")


def test_checksum_field(server, s3, bucket):
    import zlib
    data = b"checksummed"
    good = base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()
    fields = presigned(s3, bucket, "c", fields={"x-amz-checksum-crc32": good},
                       conditions=[{"x-amz-checksum-crc32": good}])
    assert post(server, bucket, fields, data).status == 204
    head = s3.head_object(Bucket=bucket, Key="c", ChecksumMode="ENABLED")
    assert head["ChecksumCRC32"] == good
    r = post(server, bucket, fields, b"other bytes")
    assert r.status == 400 and error_code(r)[0] == "BadDigest"


def test_content_length_range(server, s3, bucket):
    fields = presigned(s3, bucket, "len", conditions=[["content-length-range", 3, 5]])
    assert post(server, bucket, fields, b"1234").status == 204
    r = post(server, bucket, fields, b"12")
    assert r.status == 400 and error_code(r)[0] == "EntityTooSmall"
    r = post(server, bucket, fields, b"123456")
    assert r.status == 400 and error_code(r)[0] == "EntityTooLarge"


def test_versioned_bucket_version_header(server, s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    r = post(server, bucket, presigned(s3, bucket, "v"))
    assert r.status == 204
    vid = r.header("x-amz-version-id")
    assert vid and vid != "null"
    assert s3.head_object(Bucket=bucket, Key="v", VersionId=vid)["VersionId"] == vid


def test_sigv2(server, s3, bucket):
    fields = v2_fields(server, bucket, "v2key", [["starts-with", "$Content-Type", ""]],
                       extra=[("Content-Type", "image/png")])
    r = post(server, bucket, fields, b"v2 data")
    assert r.status == 204, r.body
    assert s3.get_object(Bucket=bucket, Key="v2key")["Body"].read() == b"v2 data"
    bad = [(k, "AAAA" + v[4:] if k == "signature" else v) for k, v in fields]
    r = post(server, bucket, bad)
    assert r.status == 403 and error_code(r)[0] == "SignatureDoesNotMatch"


def test_errors(server, s3, bucket):
    good = presigned(s3, bucket, "e")

    def without(name):
        return [(k, v) for k, v in good if k != name]

    def replaced(name, value):
        return [(k, value if k == name else v) for k, v in good]

    past = datetime.datetime.utcnow() - datetime.timedelta(minutes=1)
    expired = v2_fields(server, bucket, "e", [], expiration=past)
    cases = [
        ("no key", without("key"), 400, "InvalidArgument",
         "Bucket POST must contain a field named 'key'.  If it is specified, please check the "
         "order of the fields."),
        ("no policy", without("policy"), 400, "InvalidArgument", None),
        ("bad signature", replaced("x-amz-signature", "0" * 64), 403, "SignatureDoesNotMatch",
         None),
        ("unknown key", replaced("x-amz-credential",
                                 dict(good)["x-amz-credential"].replace(server.access_key,
                                                                        "AKIANOSUCHKEY0000000")),
         403, "InvalidAccessKeyId", None),
        ("extra field", good + [("x-amz-meta-extra", "1")], 403, "AccessDenied",
         "Invalid according to Policy: Extra input fields: x-amz-meta-extra"),
        ("condition failed", replaced("key", "other"), 403, "AccessDenied",
         'Invalid according to Policy: Policy Condition failed: ["eq", "$key", "e"]'),
        ("expired", expired, 403, "AccessDenied", "Invalid according to Policy: Policy expired."),
        ("not base64 policy",
         v2_fields(server, bucket, "e", [])[:2] + [("policy", "!!!"), ("signature", base64.b64encode(
             hmac.new(server.secret_key.encode(), b"!!!", hashlib.sha1).digest()).decode())],
         400, "InvalidPolicyDocument", None),
    ]
    for name, fields, status, code, message in cases:
        r = post(server, bucket, fields)
        assert r.status == status, (name, r.body)
        got_code, got_message = error_code(r)
        assert got_code == code, (name, r.body)
        if message:
            assert got_message == message, name
    # Malformed JSON, signed.
    policy = base64.b64encode(b"{not json").decode()
    sig = base64.b64encode(hmac.new(server.secret_key.encode(), policy.encode(),
                                    hashlib.sha1).digest()).decode()
    r = post(server, bucket, [("key", "e"), ("AWSAccessKeyId", server.access_key),
                              ("policy", policy), ("signature", sig)])
    assert r.status == 400 and error_code(r)[0] == "InvalidPolicyDocument"
    # No file, not multipart, fields too large, SSE, storage class.
    body = f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nk\r\n--{BOUNDARY}--\r\n"
    r = send(server, "POST", f"/{bucket}", {"Host": f"{server.host}:{server.port}",
             "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}, body.encode())
    assert r.status == 400 and error_code(r)[0] == "IncorrectNumberOfFilesInPostRequest"
    r = post(server, bucket, good, content_type="application/x-www-form-urlencoded")
    assert r.status == 412 and error_code(r)[0] == "PreconditionFailed"
    r = post(server, bucket, [("x-ignore-pad", "p" * 21000)] + good)
    assert r.status == 400 and error_code(r)[0] == "MaxPostPreDataLengthExceededError"
    # Encryption fields are a PUT's headers: SSE-S3 is stored sealed, dual-layer is refused.
    sse = presigned(s3, bucket, "e", fields={"x-amz-server-side-encryption": "AES256"},
                    conditions=[{"x-amz-server-side-encryption": "AES256"}])
    r = post(server, bucket, sse)
    assert r.status == 204, r
    assert r.headers.get("x-amz-server-side-encryption") == "AES256", r.headers
    assert s3.head_object(Bucket=bucket, Key="e")["ServerSideEncryption"] == "AES256"
    dsse = presigned(s3, bucket, "e2", fields={"x-amz-server-side-encryption": "aws:kms:dsse"},
                     conditions=[{"x-amz-server-side-encryption": "aws:kms:dsse"}])
    r = post(server, bucket, dsse)
    assert r.status == 501 and error_code(r)[0] == "NotImplemented"
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="e2")
    sc = presigned(s3, bucket, "e", fields={"x-amz-storage-class": "PLATINUM"},
                   conditions=[{"x-amz-storage-class": "PLATINUM"}])
    r = post(server, bucket, sc)
    assert r.status == 400 and error_code(r)[0] == "InvalidStorageClass"
    # Nothing was stored by any of them but the SSE-S3 form, which succeeded.
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])] == ["e"]


def test_anonymous_needs_public_write(server, s3, bucket):
    r = post(server, bucket, [("key", "anon.txt")], b"anon")
    assert r.status == 403 and error_code(r)[0] == "AccessDenied"
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:PutObject",
                       "Resource": f"arn:aws:s3:::{bucket}/*"}]}))
    r = post(server, bucket, [("key", "anon.txt")], b"anon")
    assert r.status == 204, r.body
    assert s3.get_object(Bucket=bucket, Key="anon.txt")["Body"].read() == b"anon"
    r = post(server, "no-such-bucket-" + uuid.uuid4().hex[:8], [("key", "x")])
    assert r.status == 404 and error_code(r)[0] == "NoSuchBucket"


def test_virtual_hosted(start_server):
    srv = start_server(args=["--domain", "s3.local"])
    s3 = make_client(srv)
    bucket = "vh-" + uuid.uuid4().hex[:10]
    s3.create_bucket(Bucket=bucket)
    fields = presigned(s3, bucket, "vh")
    body = form_body(fields, b"virtual")
    r = send(srv, "POST", "/", {"Host": f"{bucket}.s3.local:{srv.port}",
                                "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
             body)
    assert r.status == 204, r.body
    assert r.header("Location") == f"http://{bucket}.s3.local:{srv.port}/vh"
    assert s3.get_object(Bucket=bucket, Key="vh")["Body"].read() == b"virtual"


def test_large_file_streamed(server, s3, bucket):
    data = os.urandom(20 << 20)
    fields = presigned(s3, bucket, "big", conditions=[["content-length-range", 0, 30 << 20]])
    before = server.peak_rss_kib()
    r = post(server, bucket, fields, data)
    assert r.status == 204, r.body
    grown = server.peak_rss_kib() - before
    # Streamed, not buffered: the peak does not grow by the file's 20 MiB.
    assert grown < 12 << 10, f"peak RSS grew by {grown} KiB"
    got = s3.get_object(Bucket=bucket, Key="big")["Body"].read()
    assert hashlib.md5(got).digest() == hashlib.md5(data).digest()
