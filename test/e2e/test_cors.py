"""CORS (issue 15): Put/Get/DeleteBucketCors with boto3, each refusal, preflight OPTIONS with raw
`requests`, and the headers of actual requests with an Origin (signed, presigned, anonymous).
The real browser is test_browser_cors.py."""

import base64
import hashlib

import botocore.exceptions
import pytest
import requests

from cubby_e2e import presign_url, raw_request

ORIGIN = "http://app.example.test:8080"
VARY = "Origin, Access-Control-Request-Headers, Access-Control-Request-Method"
SITE_RULE = {
    "ID": "site",
    "AllowedOrigins": [ORIGIN, "https://*.example.test"],
    "AllowedMethods": ["GET", "PUT", "HEAD"],
    "AllowedHeaders": ["*"],
    "ExposeHeaders": ["ETag", "x-amz-request-id"],
    "MaxAgeSeconds": 600,
}
PUBLIC_RULE = {"AllowedOrigins": ["*"], "AllowedMethods": ["GET"]}


def error_code(exc_info):
    return exc_info.value.response["Error"]["Code"], exc_info.value.response["Error"]["Message"]


def put_cors_raw(server, bucket, body, md5=True):
    headers = {}
    if md5:
        headers["Content-MD5"] = base64.b64encode(hashlib.md5(body).digest()).decode()
    return raw_request(server, "PUT", f"/{bucket}", query="cors", body=body, headers=headers)


def test_put_get_delete(s3, bucket):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_cors(Bucket=bucket)
    assert error_code(e) == ("NoSuchCORSConfiguration", "The CORS configuration does not exist")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404

    s3.put_bucket_cors(Bucket=bucket,
                       CORSConfiguration={"CORSRules": [SITE_RULE, PUBLIC_RULE]})
    rules = s3.get_bucket_cors(Bucket=bucket)["CORSRules"]
    assert rules == [SITE_RULE, PUBLIC_RULE]

    # A new configuration replaces the old as a whole.
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [PUBLIC_RULE]})
    assert s3.get_bucket_cors(Bucket=bucket)["CORSRules"] == [PUBLIC_RULE]

    resp = s3.delete_bucket_cors(Bucket=bucket)
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_cors(Bucket=bucket)
    assert error_code(e)[0] == "NoSuchCORSConfiguration"
    s3.delete_bucket_cors(Bucket=bucket)  # none left: still fine


def test_configuration_survives_restart(start_server, tmp_path):
    from cubby_e2e import make_client, new_bucket_name
    data = tmp_path / "kept"
    data.mkdir()
    srv = start_server(data_dir=data)
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    s3.put_bucket_cors(Bucket=name, CORSConfiguration={"CORSRules": [SITE_RULE]})
    assert srv.stop() == 0
    srv2 = start_server(data_dir=data)
    assert make_client(srv2).get_bucket_cors(Bucket=name)["CORSRules"] == [SITE_RULE]


@pytest.mark.parametrize("rule,code,message", [
    ({"AllowedOrigins": ["*"], "AllowedMethods": ["PATCH"]}, "InvalidRequest",
     "Found unsupported HTTP method in CORS config. Unsupported method is PATCH"),
    ({"AllowedOrigins": ["http://*.*.test"], "AllowedMethods": ["GET"]}, "InvalidRequest",
     'AllowedOrigin "http://*.*.test" can not have more than one wildcard.'),
    ({"AllowedOrigins": ["*"], "AllowedMethods": ["GET"], "AllowedHeaders": ["x-*-*"]},
     "InvalidRequest", 'AllowedHeader "x-*-*" can not have more than one wildcard.'),
    ({"AllowedOrigins": ["*"], "AllowedMethods": ["GET"], "ExposeHeaders": ["x-amz-*"]},
     "InvalidRequest",
     'ExposeHeader "x-amz-*" contains wildcard. We currently do not support wildcard for '
     'ExposeHeader.'),
    ({"AllowedOrigins": ["*"], "AllowedMethods": ["GET"], "ID": "x" * 256}, "MalformedXML", None),
])
def test_put_refusals(s3, bucket, rule, code, message):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [rule]})
    got_code, got_message = error_code(e)
    assert got_code == code
    if message is not None:
        assert got_message == message
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_put_refusals_raw(server, s3, bucket):
    one = (b"<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin>"
           b"<AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>")
    resp = put_cors_raw(server, bucket, b"<CORSConfiguration></CORSConfiguration>")
    assert (resp.status, resp.code) == (400, "MalformedXML")
    resp = put_cors_raw(server, bucket, one.replace(b"<AllowedMethod>GET</AllowedMethod>", b""))
    assert (resp.status, resp.code) == (400, "MalformedXML")
    many = (b"<CORSConfiguration>" + b"<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>"
            b"GET</AllowedMethod></CORSRule>" * 101 + b"</CORSConfiguration>")
    resp = put_cors_raw(server, bucket, many)
    assert (resp.status, resp.code) == (400, "MalformedXML")
    resp = put_cors_raw(server, bucket, one, md5=False)
    assert (resp.status, resp.code) == (400, "InvalidRequest")
    assert b"Missing required header for this request: Content-Md5" in resp.body
    # Only the owner: anonymous callers are refused, and nothing was stored.
    resp = raw_request(server, "PUT", f"/{bucket}", query="cors", body=one, sign=False,
                       headers={"Content-MD5": base64.b64encode(hashlib.md5(one).digest()).decode()})
    assert (resp.status, resp.code) == (403, "AccessDenied")
    resp = raw_request(server, "GET", f"/{bucket}", query="cors", sign=False)
    assert (resp.status, resp.code) == (403, "AccessDenied")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_cors(Bucket=bucket)
    assert error_code(e)[0] == "NoSuchCORSConfiguration"


def preflight(server, path, origin=ORIGIN, method="PUT", headers=None):
    hdrs = {}
    if origin is not None:
        hdrs["Origin"] = origin
    if method is not None:
        hdrs["Access-Control-Request-Method"] = method
    if headers is not None:
        hdrs["Access-Control-Request-Headers"] = headers
    return requests.options(f"{server.endpoint}{path}", headers=hdrs, timeout=30)


def test_preflight(server, s3, bucket):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [SITE_RULE, PUBLIC_RULE]})
    r = preflight(server, f"/{bucket}/some/key", headers="Content-Type, X-Amz-Date")
    assert r.status_code == 200, r.text
    assert r.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert r.headers["Access-Control-Allow-Methods"] == "GET, PUT, HEAD"
    assert r.headers["Access-Control-Allow-Headers"] == "content-type, x-amz-date"
    assert r.headers["Access-Control-Expose-Headers"] == "ETag, x-amz-request-id"
    assert r.headers["Access-Control-Max-Age"] == "600"
    assert r.headers["Access-Control-Allow-Credentials"] == "true"
    assert r.headers["Vary"] == VARY
    assert r.content == b""

    # The wildcard origin pattern, and the public rule's "*" for another origin.
    r = preflight(server, f"/{bucket}", origin="https://a.b.example.test", method="HEAD")
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "https://a.b.example.test"
    r = preflight(server, f"/{bucket}/k", origin="https://elsewhere.test", method="GET")
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in r.headers


@pytest.mark.parametrize("case,path,kw,status,code,message", [
    ("no matching rule", "/{b}/k", {"method": "DELETE"}, 403, "AccessForbidden",
     "CORSResponse: This CORS request is not allowed."),
    ("origin case differs", "/{b}", {"origin": ORIGIN.upper(), "method": "PUT"}, 403,
     "AccessForbidden", "CORSResponse: This CORS request is not allowed."),
    ("no configuration", "/{plain}/k", {}, 403, "AccessForbidden",
     "CORSResponse: CORS is not enabled for this bucket."),
    ("missing bucket", "/no-such-bucket-cors/k", {}, 403, "AccessForbidden",
     "CORSResponse: Bucket not found"),
    ("no Origin", "/{b}/k", {"origin": None}, 400, "BadRequest",
     "Insufficient information. Origin request header needed."),
    ("no method", "/{b}/k", {"method": None}, 400, "BadRequest",
     "Invalid Access-Control-Request-Method: null"),
    ("bad method", "/{b}/k", {"method": "PATCH"}, 400, "BadRequest",
     "Invalid Access-Control-Request-Method: PATCH"),
])
def test_preflight_refusals(server, s3, bucket, case, path, kw, status, code, message):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [SITE_RULE]})
    plain = bucket + "-plain"
    s3.create_bucket(Bucket=plain)
    r = preflight(server, path.format(b=bucket, plain=plain), **kw)
    assert r.status_code == status, r.text
    assert f"<Code>{code}</Code>" in r.text
    assert message in r.text
    assert "Access-Control-Allow-Origin" not in r.headers


def cors_headers(headers):
    return {k: v for k, v in headers.items() if k.lower().startswith("access-control-")
            or k.lower() == "vary"}


def test_actual_requests_get_headers(server, s3, anon, bucket):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [SITE_RULE]})
    s3.put_object(Bucket=bucket, Key="k", Body=b"data")
    expected = {
        "Access-Control-Allow-Origin": ORIGIN,
        "Access-Control-Allow-Methods": "GET, PUT, HEAD",
        "Access-Control-Expose-Headers": "ETag, x-amz-request-id",
        "Access-Control-Max-Age": "600",
        "Access-Control-Allow-Credentials": "true",
        "Vary": VARY,
    }
    # Signed GET and PUT.
    resp = raw_request(server, "GET", f"/{bucket}/k", headers={"Origin": ORIGIN})
    assert resp.status == 200
    assert cors_headers(resp.headers) == expected
    resp = raw_request(server, "PUT", f"/{bucket}/k2", headers={"Origin": ORIGIN}, body=b"x")
    assert resp.status == 200
    assert cors_headers(resp.headers) == expected
    # Presigned GET and PUT.
    url = presign_url(server, "GET", f"/{bucket}/k")
    r = requests.get(url, headers={"Origin": ORIGIN}, timeout=30)
    assert r.status_code == 200 and r.content == b"data"
    assert cors_headers(r.headers) == expected
    url = presign_url(server, "PUT", f"/{bucket}/k3")
    r = requests.put(url, data=b"presigned", headers={"Origin": ORIGIN}, timeout=30)
    assert r.status_code == 200, r.text
    assert cors_headers(r.headers) == expected
    assert s3.get_object(Bucket=bucket, Key="k3")["Body"].read() == b"presigned"
    # Anonymous: refused (a private bucket), and the refusal carries the headers, as S3's does.
    r = requests.get(f"{server.endpoint}/{bucket}/k", headers={"Origin": ORIGIN}, timeout=30)
    assert r.status_code == 403
    assert cors_headers(r.headers) == expected
    # Anonymous on a public-read bucket: allowed, with the headers.
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    s3.put_object_acl(Bucket=bucket, Key="k", ACL="public-read")
    r = requests.get(f"{server.endpoint}/{bucket}/k", headers={"Origin": ORIGIN}, timeout=30)
    assert r.status_code == 200 and r.content == b"data"
    assert cors_headers(r.headers) == expected
    # Not for a method the rule lacks, another origin, or a request without Origin.
    resp = raw_request(server, "DELETE", f"/{bucket}/k2", headers={"Origin": ORIGIN})
    assert resp.status == 204
    assert cors_headers(resp.headers) == {}
    resp = raw_request(server, "GET", f"/{bucket}/k", headers={"Origin": "https://other.test"})
    assert cors_headers(resp.headers) == {}
    resp = raw_request(server, "GET", f"/{bucket}/k")
    assert cors_headers(resp.headers) == {}
    # Deleting the configuration counts from the next request on.
    s3.delete_bucket_cors(Bucket=bucket)
    resp = raw_request(server, "GET", f"/{bucket}/k", headers={"Origin": ORIGIN})
    assert resp.status == 200
    assert cors_headers(resp.headers) == {}
