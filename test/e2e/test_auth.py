"""SigV4 header and query authentication, anonymous access and canned ACLs."""

import datetime
import urllib.parse

import pytest
from botocore.exceptions import ClientError

from botocore.awsrequest import AWSRequest

from cubby_e2e import (ROOT_ACCESS_KEY, get_url, make_client, new_bucket_name, presign_url,
                       raw_request, send, sign_request)


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    status = excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]
    return err.get("Code"), status


def test_root_credentials_work(s3):
    assert s3.list_buckets()["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_wrong_secret(server):
    bad = make_client(server, secret_key="wrong" + server.secret_key[5:])
    with pytest.raises(ClientError) as e:
        bad.list_buckets()
    assert error_of(e) == ("SignatureDoesNotMatch", 403)


def test_unknown_access_key(server):
    bad = make_client(server, access_key="AKIAUNKNOWNKEY000000")
    with pytest.raises(ClientError) as e:
        bad.list_buckets()
    assert error_of(e) == ("InvalidAccessKeyId", 403)


def test_wrong_secret_on_object_put_stores_nothing(server, s3, bucket):
    resp = raw_request(server, "PUT", f"/{bucket}/k", body=b"x", secret_key="nope")
    assert resp.status == 403
    assert resp.code == "SignatureDoesNotMatch"
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0


def test_header_changed_after_signing(server, bucket):
    def tamper(h):
        h["x-amz-meta-a"] = "2"
    resp = raw_request(server, "PUT", f"/{bucket}/k", body=b"x", headers={"x-amz-meta-a": "1"},
                       after_sign=tamper)
    assert resp.status == 403
    assert resp.code == "SignatureDoesNotMatch"


def test_path_changed_after_signing(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="other", Body=b"secret")
    # Signed for /bucket/k, sent to /bucket/other.
    host = f"{server.host}:{server.port}"
    req = AWSRequest(method="GET", url=f"http://{host}/{bucket}/k", headers={"Host": host})
    sign_request(req, server.access_key, server.secret_key)
    resp = send(server, "GET", f"/{bucket}/other", dict(req.headers.items()))
    assert resp.status == 403
    assert resp.code == "SignatureDoesNotMatch"
    assert b"secret" not in resp.body


@pytest.mark.parametrize("shift_minutes", [-20, 20, -60 * 24])
def test_request_time_too_skewed(server, shift_minutes):
    resp = raw_request(server, "GET", "/", clock_shift=datetime.timedelta(minutes=shift_minutes))
    assert resp.status == 403
    assert resp.code == "RequestTimeTooSkewed"


@pytest.mark.parametrize("shift_minutes", [-10, 10])
def test_small_skew_accepted(server, shift_minutes):
    resp = raw_request(server, "GET", "/", clock_shift=datetime.timedelta(minutes=shift_minutes))
    assert resp.status == 200, resp


def test_wrong_region_in_scope(server):
    resp = raw_request(server, "GET", "/", region="us-west-2")
    assert resp.status == 400
    assert resp.code == "AuthorizationHeaderMalformed"


def _with_authorization(value):
    def tamper(h):
        h["Authorization"] = value(h)
    return tamper


def _date(h):
    return h["X-Amz-Date"][:8]


@pytest.mark.parametrize("name,auth", [
    ("no credential", lambda h: "AWS4-HMAC-SHA256 SignedHeaders=host;x-amz-date, Signature=" + "0" * 64),
    ("credential without scope", lambda h: f"AWS4-HMAC-SHA256 Credential={ROOT_ACCESS_KEY}, "
                                           "SignedHeaders=host;x-amz-date, Signature=" + "0" * 64),
    ("scope too short", lambda h: f"AWS4-HMAC-SHA256 Credential={ROOT_ACCESS_KEY}/{_date(h)}/us-east-1/s3, "
                                  "SignedHeaders=host;x-amz-date, Signature=" + "0" * 64),
    ("wrong terminator", lambda h: f"AWS4-HMAC-SHA256 Credential={ROOT_ACCESS_KEY}/{_date(h)}/us-east-1/s3/"
                                   "aws5_request, SignedHeaders=host;x-amz-date, Signature=" + "0" * 64),
    ("wrong service", lambda h: f"AWS4-HMAC-SHA256 Credential={ROOT_ACCESS_KEY}/{_date(h)}/us-east-1/ec2/"
                                "aws4_request, SignedHeaders=host;x-amz-date, Signature=" + "0" * 64),
    ("missing signed headers", lambda h: f"AWS4-HMAC-SHA256 Credential={ROOT_ACCESS_KEY}/{_date(h)}/"
                                         "us-east-1/s3/aws4_request, Signature=" + "0" * 64),
    ("garbage", lambda h: "AWS4-HMAC-SHA256 garbage"),
])
def test_malformed_authorization_header(server, name, auth):
    resp = raw_request(server, "GET", "/", after_sign=_with_authorization(auth))
    assert resp.status == 400, resp
    assert resp.code == "AuthorizationHeaderMalformed"


def test_signature_missing_from_header(server):
    # No Signature= component: malformed (AWS also accepts InvalidArgument wording here, but the
    # status is always 400).
    resp = raw_request(server, "GET", "/", after_sign=_with_authorization(
        lambda h: f"AWS4-HMAC-SHA256 Credential={ROOT_ACCESS_KEY}/{_date(h)}/us-east-1/s3/"
                  "aws4_request, SignedHeaders=host;x-amz-date"))
    assert resp.status == 400, resp
    assert resp.code in ("AuthorizationHeaderMalformed", "InvalidArgument")


def test_missing_x_amz_date(server):
    def drop_date(h):
        del h["X-Amz-Date"]
    resp = raw_request(server, "GET", "/", after_sign=drop_date)
    assert resp.status == 403, resp
    assert resp.code in ("AccessDenied", "SignatureDoesNotMatch")


# -------------------------------------------------------------------- anonymous

def test_anonymous_denied_on_private(server, s3, anon, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"private")
    for call in (lambda: anon.list_buckets(),
                 lambda: anon.list_objects_v2(Bucket=bucket),
                 lambda: anon.get_object(Bucket=bucket, Key="k"),
                 lambda: anon.put_object(Bucket=bucket, Key="k2", Body=b"x"),
                 lambda: anon.delete_object(Bucket=bucket, Key="k"),
                 lambda: anon.get_bucket_acl(Bucket=bucket),
                 lambda: anon.create_bucket(Bucket=new_bucket_name())):
        with pytest.raises(ClientError) as e:
            call()
        assert error_of(e) == ("AccessDenied", 403)
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"private"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["k"]


def test_anonymous_head_private_is_403(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    resp = raw_request(server, "HEAD", f"/{bucket}/k", sign=False)
    assert resp.status == 403
    assert resp.body == b""


def test_anonymous_on_public_read_bucket(server, s3, anon, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"public", ACL="public-read")
    s3.put_object(Bucket=bucket, Key="private", Body=b"mine")
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    assert [o["Key"] for o in anon.list_objects_v2(Bucket=bucket)["Contents"]] == ["k", "private"]
    # The bucket's READ lists; each object's own ACL decides who reads it, as in S3.
    with pytest.raises(ClientError) as e:
        anon.get_object(Bucket=bucket, Key="private")
    assert error_of(e) == ("AccessDenied", 403)
    assert anon.get_object(Bucket=bucket, Key="k")["Body"].read() == b"public"
    assert anon.head_object(Bucket=bucket, Key="k")["ContentLength"] == 6
    raw = raw_request(server, "GET", f"/{bucket}/k", sign=False)
    assert raw.status == 200 and raw.body == b"public"
    # READ does not include WRITE.
    with pytest.raises(ClientError) as e:
        anon.put_object(Bucket=bucket, Key="k2", Body=b"x")
    assert error_of(e) == ("AccessDenied", 403)
    with pytest.raises(ClientError) as e:
        anon.delete_object(Bucket=bucket, Key="k")
    assert error_of(e) == ("AccessDenied", 403)
    # Nor ACL changes.
    with pytest.raises(ClientError) as e:
        anon.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    assert error_of(e) == ("AccessDenied", 403)
    # And listing all buckets stays private.
    with pytest.raises(ClientError) as e:
        anon.list_buckets()
    assert error_of(e) == ("AccessDenied", 403)
    # Revoking works.
    s3.put_object_acl(Bucket=bucket, Key="k", ACL="private")
    with pytest.raises(ClientError) as e:
        anon.get_object(Bucket=bucket, Key="k")
    assert error_of(e) == ("AccessDenied", 403)
    s3.put_bucket_acl(Bucket=bucket, ACL="private")
    with pytest.raises(ClientError) as e:
        anon.list_objects_v2(Bucket=bucket)
    assert error_of(e) == ("AccessDenied", 403)


def test_anonymous_on_public_read_write_bucket(server, s3, anon, bucket):
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    anon.put_object(Bucket=bucket, Key="anon", Body=b"by anyone")
    assert s3.get_object(Bucket=bucket, Key="anon")["Body"].read() == b"by anyone"
    # The new object is private (its owner is the bucket's owner): the bucket's grants never
    # reach its objects.
    with pytest.raises(ClientError) as e:
        anon.get_object(Bucket=bucket, Key="anon")
    assert error_of(e) == ("AccessDenied", 403)
    # Bucket WRITE: "create, overwrite, and delete any object in the bucket"
    # (https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#permissions).
    anon.delete_object(Bucket=bucket, Key="anon")
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0
    with pytest.raises(ClientError) as e:
        anon.delete_bucket(Bucket=bucket)
    assert error_of(e) == ("AccessDenied", 403)


def test_public_bucket_still_checks_signatures(server, s3, bucket):
    # A signed request with a bad signature is rejected even where anonymous access is allowed.
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    resp = raw_request(server, "GET", f"/{bucket}", secret_key="bad")
    assert resp.status == 403
    assert resp.code == "SignatureDoesNotMatch"


# -------------------------------------------------------------------- presigned

def test_presigned_get_and_put_with_boto3(server, s3, bucket):
    put_url = s3.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": "p k"},
                                        ExpiresIn=300)
    assert "X-Amz-Signature=" in put_url and "X-Amz-Algorithm=AWS4-HMAC-SHA256" in put_url
    resp = get_url(server, put_url, method="PUT", body=b"presigned body")
    assert resp.status == 200, resp
    get = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "p k"},
                                    ExpiresIn=300)
    resp = get_url(server, get)
    assert resp.status == 200, resp
    assert resp.body == b"presigned body"
    assert resp.header("ETag") == s3.head_object(Bucket=bucket, Key="p k")["ETag"]


def test_presigned_head_and_list(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="x", Body=b"12345")
    url = presign_url(server, "HEAD", f"/{bucket}/x")
    resp = get_url(server, url, method="HEAD")
    assert resp.status == 200 and resp.header("Content-Length") == "5"
    url = presign_url(server, "GET", f"/{bucket}", {"list-type": "2"})
    resp = get_url(server, url)
    assert resp.status == 200
    assert b"<Key>x</Key>" in resp.body


def test_presigned_expired(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")
    # Signed two hours ago, valid for one hour.
    url = presign_url(server, "GET", f"/{bucket}/x", expires=3600,
                      clock_shift=datetime.timedelta(hours=-2))
    resp = get_url(server, url)
    assert resp.status == 403
    assert resp.code == "AccessDenied"
    # The same validity window still open: signed 30 minutes ago for one hour.
    url = presign_url(server, "GET", f"/{bucket}/x", expires=3600,
                      clock_shift=datetime.timedelta(minutes=-30))
    assert get_url(server, url).status == 200


@pytest.mark.parametrize("expires,status,code,message", [
    # Out of range: 403, as S3 refuses such a URL (s3-tests' x_amz_expires_out_* cases).
    (604801, 403, "AuthorizationQueryParametersError",
     "X-Amz-Expires must be less than a week (in seconds); that is, the given X-Amz-Expires "
     "must be less than 604800 seconds"),
    (-7, 403, "AuthorizationQueryParametersError", "X-Amz-Expires must be non-negative"),
    ("soon", 400, "AuthorizationQueryParametersError", "X-Amz-Expires should be a number"),
    # Well formed, but a URL of zero seconds has expired when it is made.
    (0, 403, "AccessDenied", "Request has expired"),
])
def test_presigned_expires_out_of_range(server, s3, bucket, expires, status, code, message):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")
    # botocore signs whatever it is given, as s3-tests' generate_presigned_url(ExpiresIn=...).
    url = presign_url(server, "GET", f"/{bucket}/x", expires=expires)
    resp = get_url(server, url)
    assert (resp.status, resp.code, resp.error()["Message"]) == (status, code, message), resp
    assert get_url(server, presign_url(server, "GET", f"/{bucket}/x", expires=604800)).status \
        == 200


def _replace_param(url, name, fn):
    parts = urllib.parse.urlsplit(url)
    params = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    params = [(k, fn(v) if k == name else v) for k, v in params]
    query = urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
    return urllib.parse.urlunsplit(parts._replace(query=query))


@pytest.mark.parametrize("param,change", [
    ("X-Amz-Signature", lambda v: ("0" if v[0] != "0" else "1") + v[1:]),
    ("X-Amz-Expires", lambda v: str(int(v) + 1)),
    ("X-Amz-Date", lambda v: v[:-3] + ("00Z" if v[-3:] != "00Z" else "01Z")),
])
def test_presigned_tampered(server, s3, bucket, param, change):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")
    url = presign_url(server, "GET", f"/{bucket}/x", expires=600)
    assert get_url(server, url).status == 200
    resp = get_url(server, _replace_param(url, param, change))
    assert resp.status == 403, resp
    assert resp.code == "SignatureDoesNotMatch"


def test_presigned_other_key(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")
    s3.put_object(Bucket=bucket, Key="y", Body=b"y")
    url = presign_url(server, "GET", f"/{bucket}/x")
    resp = get_url(server, url.replace(f"/{bucket}/x?", f"/{bucket}/y?"))
    assert resp.status == 403
    assert resp.code == "SignatureDoesNotMatch"


def test_presigned_unknown_key(server, bucket):
    url = presign_url(server, "GET", f"/{bucket}/x", access_key="AKIANOTAKEY000000000")
    resp = get_url(server, url)
    assert resp.status == 403
    assert resp.code == "InvalidAccessKeyId"


def test_presigned_wrong_method(server, s3, bucket):
    url = presign_url(server, "GET", f"/{bucket}/x")
    resp = get_url(server, url, method="PUT", body=b"overwrite")
    assert resp.status == 403
    assert resp.code == "SignatureDoesNotMatch"
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="x")


def test_header_auth_requires_content_sha256(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")

    def drop(h):
        del h["X-Amz-Content-SHA256"]
    resp = raw_request(server, "GET", f"/{bucket}/x", after_sign=drop)
    assert resp.status == 400, resp
    assert resp.code == "InvalidRequest"


def test_header_and_query_auth_together(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")
    query = urllib.parse.urlsplit(presign_url(server, "GET", f"/{bucket}/x")).query
    resp = raw_request(server, "GET", f"/{bucket}/x", query=query)  # also header-signed
    assert resp.status == 400, resp
    assert resp.code == "InvalidArgument"


def test_presigned_not_yet_valid(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="x", Body=b"x")
    url = presign_url(server, "GET", f"/{bucket}/x", clock_shift=datetime.timedelta(hours=1))
    resp = get_url(server, url)
    assert resp.status == 403
    assert resp.code == "AccessDenied"
