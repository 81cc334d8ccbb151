"""The error document, request ids, and unsupported operations."""

import pytest

from cubby_e2e import new_bucket_name, raw_request


def _assert_error_doc(resp, code, status, resource=None):
    assert resp.status == status, resp
    assert resp.header("Content-Type").startswith("application/xml"), resp.header("Content-Type")
    err = resp.error()
    for field in ("Code", "Message", "Resource", "RequestId"):
        assert field in err, f"{field} missing from {resp.body!r}"
    assert err["Code"] == code
    assert err["Message"]
    request_id = resp.header("x-amz-request-id")
    assert request_id
    assert err["RequestId"] == request_id
    if resource is not None:
        assert err["Resource"] == resource
    return err


def test_no_such_bucket_document(server):
    name = new_bucket_name()
    resp = raw_request(server, "GET", f"/{name}", query="list-type=2")
    err = _assert_error_doc(resp, "NoSuchBucket", 404, resource=f"/{name}")
    assert err.get("BucketName", name) == name


def test_no_such_key_document(server, bucket):
    resp = raw_request(server, "GET", f"/{bucket}/missing/key.txt")
    _assert_error_doc(resp, "NoSuchKey", 404, resource=f"/{bucket}/missing/key.txt")


def test_bucket_not_empty_document(server, bucket):
    raw_request(server, "PUT", f"/{bucket}/k", body=b"x")
    resp = raw_request(server, "DELETE", f"/{bucket}")
    _assert_error_doc(resp, "BucketNotEmpty", 409, resource=f"/{bucket}")


def test_access_denied_document(server, bucket):
    resp = raw_request(server, "GET", f"/{bucket}/k", sign=False)
    _assert_error_doc(resp, "AccessDenied", 403)


def test_signature_error_document(server):
    resp = raw_request(server, "GET", "/", secret_key="wrong")
    _assert_error_doc(resp, "SignatureDoesNotMatch", 403)


def test_xml_declaration_and_escaping(server, bucket):
    resp = raw_request(server, "GET", f"/{bucket}/a%26b%3Cc%3E")
    assert resp.body.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    err = _assert_error_doc(resp, "NoSuchKey", 404)
    # AWS does not document whether Resource is the decoded or the on-the-wire path; either way
    # the document must parse (so '&' and '<' arrive escaped).
    assert err["Resource"] in (f"/{bucket}/a&b<c>", f"/{bucket}/a%26b%3Cc%3E")
    if "Key" in err:
        assert err["Key"] == "a&b<c>"


def test_request_id_on_every_response(server, bucket):
    responses = [
        raw_request(server, "GET", "/"),
        raw_request(server, "PUT", f"/{bucket}/k", body=b"abc"),
        raw_request(server, "GET", f"/{bucket}/k"),
        raw_request(server, "HEAD", f"/{bucket}/k"),
        raw_request(server, "GET", f"/{bucket}/k", headers={"Range": "bytes=0-0"}),
        raw_request(server, "GET", f"/{bucket}/k", headers={"If-None-Match": "*"}),
        raw_request(server, "GET", f"/{bucket}", query="list-type=2"),
        raw_request(server, "HEAD", f"/{bucket}/none"),
        raw_request(server, "GET", f"/{bucket}/none"),
        raw_request(server, "DELETE", f"/{bucket}/k"),
        raw_request(server, "GET", "/", sign=False),
        raw_request(server, "GET", "/", secret_key="bad"),
        raw_request(server, "PUT", "/Bad_Name"),
    ]
    assert [r.status for r in responses] == [200, 200, 200, 200, 206, 304, 200, 404, 404, 204,
                                             403, 403, 400]
    ids = [r.header("x-amz-request-id") for r in responses]
    assert all(ids), ids
    assert len(set(ids)) == len(ids), "request ids must be unique"


@pytest.mark.parametrize("query,not_found_code", [
    ("policy", "NoSuchBucketPolicy"),
    ("cors", "NoSuchCORSConfiguration"),
    ("lifecycle", "NoSuchLifecycleConfiguration"),
    ("website", "NoSuchWebsiteConfiguration"),
    ("replication", "ReplicationConfigurationNotFoundError"),
])
def test_unsupported_bucket_subresource_get(server, bucket, query, not_found_code):
    # Either answer is S3-correct for a store without these features: the feature's own
    # "not configured" error, or 501 NotImplemented. Never a listing, never a 200.
    resp = raw_request(server, "GET", f"/{bucket}", query=query)
    assert resp.status in (404, 501), resp
    expected = not_found_code if resp.status == 404 else "NotImplemented"
    _assert_error_doc(resp, expected, resp.status)


def test_bucket_policy_without_statements_is_malformed(server, bucket):
    # Bucket policies exist since issue 13: an empty Statement list is AWS's MalformedPolicy.
    resp = raw_request(server, "PUT", f"/{bucket}", query="policy",
                       body=b'{"Version":"2012-10-17","Statement":[]}')
    _assert_error_doc(resp, "MalformedPolicy", 400)


@pytest.mark.parametrize("method,query,body", [
    ("PUT", "website", b"<WebsiteConfiguration><IndexDocument><Suffix>i.html</Suffix>"
                       b"</IndexDocument></WebsiteConfiguration>"),
])
def test_unsupported_bucket_subresource_put(server, bucket, method, query, body):
    resp = raw_request(server, method, f"/{bucket}", query=query, body=body)
    _assert_error_doc(resp, "NotImplemented", 501)


@pytest.mark.parametrize("path", ["/", "/{bucket}", "/{bucket}/key"])
def test_unknown_method(server, bucket, path):
    resp = raw_request(server, "PATCH", path.format(bucket=bucket), body=b"x")
    assert resp.status in (405, 501), resp
    code = "MethodNotAllowed" if resp.status == 405 else "NotImplemented"
    _assert_error_doc(resp, code, resp.status)


def test_errors_leave_server_healthy(server, bucket):
    for _ in range(3):
        raw_request(server, "GET", f"/{bucket}/missing")
        raw_request(server, "PATCH", "/")
    assert raw_request(server, "GET", "/").status == 200


def test_date_header_on_responses(server, bucket):
    # RFC 9110 §6.6.1: an origin server with a clock sends Date; SDKs use it to correct skew.
    import email.utils
    for resp in (raw_request(server, "GET", "/"),
                 raw_request(server, "GET", f"/{bucket}/missing"),
                 raw_request(server, "GET", "/", secret_key="bad")):
        date = resp.header("Date")
        assert date, resp
        assert email.utils.parsedate_to_datetime(date).tzinfo is not None
