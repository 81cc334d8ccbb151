"""URLs presigned by Debian's boto3 at its default settings: boto3.client('s3') with no
signature_version presigns with SigV2 query auth (AWSAccessKeyId, Expires, Signature)."""

import time
import urllib.parse
from unittest import mock

import boto3
import pytest

from cubby_e2e import get_url, make_client


@pytest.fixture
def default_client(server):
    return boto3.client("s3", endpoint_url=server.endpoint, region_name=server.region,
                        aws_access_key_id=server.access_key,
                        aws_secret_access_key=server.secret_key)


def _params(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


def test_default_presign_is_sigv2(default_client, bucket):
    url = default_client.generate_presigned_url("get_object", Params={"Bucket": bucket,
                                                                      "Key": "k"})
    assert {"AWSAccessKeyId", "Expires", "Signature"} <= set(_params(url)), url


def test_presigned_v2_get_and_put(server, s3, default_client, bucket):
    key = "dir/presigned v2+file.txt"
    put_url = default_client.generate_presigned_url("put_object",
                                                    Params={"Bucket": bucket, "Key": key})
    assert "Signature" in _params(put_url)
    r = get_url(server, put_url, method="PUT", body=b"uploaded through a v2 URL")
    assert r.status == 200, r
    assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"uploaded through a v2 URL"

    get = default_client.generate_presigned_url("get_object", Params={"Bucket": bucket,
                                                                      "Key": key})
    r = get_url(server, get)
    assert r.status == 200, r
    assert r.body == b"uploaded through a v2 URL"


def _replace(url, name, value):
    parts = urllib.parse.urlsplit(url)
    q = dict(urllib.parse.parse_qsl(parts.query))
    q[name] = value
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(q)))


def test_presigned_v2_tampered_and_expired(server, s3, default_client, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"secret")
    url = default_client.generate_presigned_url("get_object", Params={"Bucket": bucket,
                                                                      "Key": "k"})
    sig = _params(url)["Signature"]
    bad = _replace(url, "Signature", ("A" if sig[0] != "A" else "B") + sig[1:])
    r = get_url(server, bad)
    assert (r.status, r.code) == (403, "SignatureDoesNotMatch"), r
    # Another key with the same signature.
    r = get_url(server, url.replace("/k?", "/other?"))
    assert (r.status, r.code) == (403, "SignatureDoesNotMatch"), r
    # Signed as GET, sent as PUT.
    r = get_url(server, url, method="PUT", body=b"x")
    assert (r.status, r.code) == (403, "SignatureDoesNotMatch"), r
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"secret"

    # Signed two hours ago for one hour.
    real_time = time.time
    with mock.patch("time.time", lambda: real_time() - 7200):
        expired = default_client.generate_presigned_url(
            "get_object", Params={"Bucket": bucket, "Key": "k"}, ExpiresIn=3600)
    assert int(_params(expired)["Expires"]) < real_time() - 3000
    r = get_url(server, expired)
    assert (r.status, r.code) == (403, "AccessDenied"), r


def test_presigned_v2_unknown_key(server, bucket):
    other = boto3.client("s3", endpoint_url=server.endpoint, region_name=server.region,
                         aws_access_key_id="AKIANOSUCHKEY0000000",
                         aws_secret_access_key="x" * 40)
    url = other.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"})
    r = get_url(server, url)
    assert (r.status, r.code) == (403, "InvalidAccessKeyId"), r
