"""Objects are private unless they say otherwise, and /_cubby/acl-audit finds what a public
bucket's grants reached: in a public-read bucket an object written without an ACL is private
(the anonymous caller, another user and the bucket owner are refused; GetObjectAcl shows the
writer's FULL_CONTROL alone); the audit lists it as `implicit` and an object whose own ACL copies
the bucket's AllUsers READ as `copied`; a reset makes the copied one private and leaves the
rest alone; the endpoint is the root key's, and its errors are JSON."""

import json
import urllib.parse
import uuid

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import make_client, new_bucket_name, raw_request
from test_access_control import User, iam_client

ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"


def audit_call(server, method, query="", **kw):
    return raw_request(server, method, "/_cubby/acl-audit", query=query, **kw)


def report_of(server, method, bucket, reset=False):
    query = "bucket=" + urllib.parse.quote(bucket, safe="") + ("&reset" if reset else "")
    r = audit_call(server, method, query)
    assert r.status == 200, r
    assert r.header("Content-Type") == "application/json"
    (only,) = json.loads(r.body)["buckets"]
    return only


def status_of(call):
    try:
        call()
        return 200
    except ClientError as e:
        return e.response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture
def user(server):
    u = User(server, iam_client(server), "audit-" + uuid.uuid4().hex[:8])
    return u.access_key, u.secret_key


def test_public_bucket_objects_private_then_audit_and_reset(server, s3, user):
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket, ACL="public-read")
    s3.put_object(Bucket=bucket, Key="implicit", Body=b"no acl")
    s3.put_object(Bucket=bucket, Key="copied", Body=b"public", ACL="public-read")
    anon = make_client(server, anonymous=True)
    other = make_client(server, *user)

    # The object without an ACL is private: only its writer reads it; the bucket lists.
    assert status_of(lambda: anon.get_object(Bucket=bucket, Key="implicit")) == 403
    assert status_of(lambda: other.get_object(Bucket=bucket, Key="implicit")) == 403
    assert status_of(lambda: s3.get_object(Bucket=bucket, Key="implicit")) == 200
    grants = s3.get_object_acl(Bucket=bucket, Key="implicit")["Grants"]
    assert [(g["Grantee"]["Type"], g["Permission"]) for g in grants] == \
        [("CanonicalUser", "FULL_CONTROL")]
    assert {o["Key"] for o in anon.list_objects_v2(Bucket=bucket)["Contents"]} == \
        {"implicit", "copied"}
    assert status_of(lambda: anon.get_object(Bucket=bucket, Key="copied")) == 200

    report = report_of(server, "GET", bucket)
    assert report["public_bucket"] is True
    assert report["versions"] == 2
    assert report["copied"] == [{"key": "copied", "version_id": "null"}]
    assert report["implicit_count"] == 1
    assert report["implicit"] == [{"key": "implicit", "version_id": "null"}]
    assert report["reset"] == 0
    assert status_of(lambda: anon.get_object(Bucket=bucket, Key="copied")) == 200  # a GET resets nothing

    after = report_of(server, "POST", bucket, reset=True)
    assert after["reset"] == 1
    assert status_of(lambda: anon.get_object(Bucket=bucket, Key="copied")) == 403
    grants = s3.get_object_acl(Bucket=bucket, Key="copied")["Grants"]
    assert all(g["Grantee"].get("URI") != ALL_USERS for g in grants)
    assert s3.get_object(Bucket=bucket, Key="copied")["Body"].read() == b"public"  # data kept

    again = report_of(server, "POST", bucket, reset=True)
    assert again["copied"] == [] and again["reset"] == 0
    assert again["implicit_count"] == 2

    # Without a bucket: every bucket, this one among them.
    r = audit_call(server, "GET")
    assert r.status == 200
    assert bucket in [b["bucket"] for b in json.loads(r.body)["buckets"]]


def test_audit_endpoint_errors(server, bucket, user):
    def error(r):
        return r.status, json.loads(r.body)["code"]

    assert error(audit_call(server, "GET", "bucket=no-such-" + uuid.uuid4().hex[:8])) == \
        (404, "NoSuchBucket")
    assert error(audit_call(server, "POST", "bucket=" + bucket)) == (400, "InvalidArgument")
    assert error(audit_call(server, "GET", "bucket=" + bucket + "&reset")) == \
        (400, "InvalidArgument")
    put = audit_call(server, "PUT", "bucket=" + bucket)
    assert error(put) == (405, "MethodNotAllowed") and put.header("Allow") == "GET, POST"
    assert error(audit_call(server, "GET", access_key=user[0], secret_key=user[1])) == \
        (403, "AccessDenied")
    assert error(audit_call(server, "POST", "reset", access_key=user[0], secret_key=user[1])) == \
        (403, "AccessDenied")
    assert error(audit_call(server, "GET", sign=False)) == (403, "AccessDenied")
