"""Bucket quotas (issue 17): /_cubby/quota sets and shows them (root only), and every write path
(PUT, POST Object, CopyObject, UploadPart, UploadPartCopy, CompleteMultipartUpload) is refused
with 403 QuotaExceeded once it would pass one, storing nothing. Quotas survive a restart, show
in the metrics, and concurrent writers overshoot by at most the writes in flight.
"""

import http.client
import json
import threading
import urllib.parse
import uuid

import boto3
import pytest
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.exceptions import ClientError

import cubby_e2e
from appliance import metric, scrape
from cubby_e2e import make_client, new_bucket_name, raw_request, send, sign_request
from test_post_object import post

MIB = 1024 * 1024


def quota_call(server, method, bucket=None, body=b"", **kw):
    query = "" if bucket is None else "bucket=" + urllib.parse.quote(bucket, safe="")
    return raw_request(server, method, "/_cubby/quota", query=query, body=body, **kw)


def set_quota(server, bucket, bytes=None, objects=None):
    r = quota_call(server, "PUT", bucket, json.dumps({"bytes": bytes, "objects": objects}))
    assert r.status == 200, r
    return json.loads(r.body)


def usage(server, bucket):
    r = quota_call(server, "GET", bucket)
    assert r.status == 200, r
    return json.loads(r.body)["usage"]


def refused(call, message):
    with pytest.raises(ClientError) as e:
        call()
    err = e.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert err["Error"]["Code"] == "QuotaExceeded"
    assert err["Error"]["Message"] == message


def keys(s3, bucket):
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []))


def test_admin_api_shapes(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="a", Body=b"12345")
    r = quota_call(server, "GET", bucket)
    assert r.status == 200 and r.header("Content-Type") == "application/json"
    assert json.loads(r.body) == {"bucket": bucket, "quota": {"bytes": None, "objects": None},
                                  "usage": {"bytes": 5, "objects": 1}}
    assert set_quota(server, bucket, bytes=MIB) == {
        "bucket": bucket, "quota": {"bytes": MIB, "objects": None},
        "usage": {"bytes": 5, "objects": 1}}
    listed = json.loads(quota_call(server, "GET").body)["buckets"]
    assert {"bucket": bucket, "quota": {"bytes": MIB, "objects": None},
            "usage": {"bytes": 5, "objects": 1}} in listed
    assert quota_call(server, "DELETE", bucket).status == 204
    assert json.loads(quota_call(server, "GET", bucket).body)["quota"] == {
        "bytes": None, "objects": None}


def test_admin_api_errors(server, bucket):
    def error(r):
        return r.status, json.loads(r.body)["code"]

    assert error(quota_call(server, "GET", "no-such-bucket-" + uuid.uuid4().hex[:8])) == \
        (404, "NoSuchBucket")
    assert error(quota_call(server, "PUT", bucket, b'{"bytes": 1,}')) == (400, "InvalidArgument")
    assert error(quota_call(server, "PUT", bucket, b'{"bytes": -1}')) == (400, "InvalidArgument")
    assert error(quota_call(server, "PUT", bucket, b'{"objects": 2.5}')) == \
        (400, "InvalidArgument")
    bad = quota_call(server, "PUT", bucket, b'{"bytes": "lots"}')
    assert "whole number" in json.loads(bad.body)["message"]
    assert error(quota_call(server, "PUT", None, b"{}")) == (400, "InvalidArgument")
    assert error(quota_call(server, "GET", bucket, sign=False)) == (403, "AccessDenied")
    # A user's key (not root) is refused, also for reading.
    iam = boto3.session.Session(
        aws_access_key_id=server.access_key, aws_secret_access_key=server.secret_key,
        region_name="us-east-1").client(
            "iam", endpoint_url=server.endpoint,
            config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))
    name = "quota-" + uuid.uuid4().hex[:8]
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    cubby_e2e.USER_SECRETS.add(key["SecretAccessKey"])
    for method, body in (("GET", b""), ("PUT", b'{"bytes": 1}'), ("DELETE", b"")):
        r = quota_call(server, method, bucket, body, access_key=key["AccessKeyId"],
                       secret_key=key["SecretAccessKey"])
        assert error(r) == (403, "AccessDenied"), method
    assert json.loads(quota_call(server, "GET", bucket).body)["quota"] == {
        "bytes": None, "objects": None}


def test_put_object_refused_with_document_and_nothing_stored(server, s3, bucket):
    set_quota(server, bucket, bytes=1000)
    s3.put_object(Bucket=bucket, Key="a", Body=b"x" * 600)
    refused(lambda: s3.put_object(Bucket=bucket, Key="b", Body=b"y" * 401),
            "The bucket's quota of 1000 bytes would be exceeded.")
    # The raw answer: 403 and an S3 error document.
    r = raw_request(server, "PUT", f"/{bucket}/c", body=b"z" * 500)
    assert r.status == 403
    assert r.error()["Code"] == "QuotaExceeded"
    assert r.error()["Message"] == "The bucket's quota of 1000 bytes would be exceeded."
    assert keys(s3, bucket) == ["a"]
    assert usage(server, bucket) == {"bytes": 600, "objects": 1}
    # An overwrite counts its whole new size.
    refused(lambda: s3.put_object(Bucket=bucket, Key="a", Body=b"x" * 401),
            "The bucket's quota of 1000 bytes would be exceeded.")
    s3.put_object(Bucket=bucket, Key="b", Body=b"y" * 400)
    assert usage(server, bucket) == {"bytes": 1000, "objects": 2}


def test_put_refused_before_the_body_is_sent(server, bucket):
    """A declared size over the quota is answered from the head alone: the client never sends
    the 64 MiB it announced."""
    set_quota(server, bucket, bytes=MIB)
    host = f"{server.host}:{server.port}"
    req = AWSRequest(method="PUT", url=f"http://{host}/{bucket}/huge",
                     headers={"Host": host, "Content-Length": str(64 * MIB)})
    sign_request(req, server.access_key, server.secret_key, payload_hash="UNSIGNED-PAYLOAD")
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.putrequest("PUT", f"/{bucket}/huge", skip_host=True, skip_accept_encoding=True)
        for k, v in req.headers.items():
            conn.putheader(k, v)
        conn.endheaders()  # no body
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status == 403, body
    assert b"<Code>QuotaExceeded</Code>" in body


def test_objects_quota(server, s3, bucket):
    set_quota(server, bucket, objects=2)
    s3.put_object(Bucket=bucket, Key="a", Body=b"1")
    s3.put_object(Bucket=bucket, Key="b", Body=b"2")
    refused(lambda: s3.put_object(Bucket=bucket, Key="c", Body=b"3"),
            "The bucket's quota of 2 objects would be exceeded.")
    s3.put_object(Bucket=bucket, Key="a", Body=b"overwrite adds no object")
    assert keys(s3, bucket) == ["a", "b"]
    s3.delete_object(Bucket=bucket, Key="b")
    s3.put_object(Bucket=bucket, Key="c", Body=b"3")
    assert usage(server, bucket)["objects"] == 2


def test_post_object_refused(server, s3, bucket):
    set_quota(server, bucket, bytes=10)
    p = s3.generate_presigned_post(bucket, "form.bin", ExpiresIn=600)
    r = post(server, bucket, list(p["fields"].items()), b"x" * 11)
    assert r.status == 403, r
    assert r.error()["Code"] == "QuotaExceeded"
    assert r.error()["Message"] == "The bucket's quota of 10 bytes would be exceeded."
    assert keys(s3, bucket) == []
    p = s3.generate_presigned_post(bucket, "form.bin", ExpiresIn=600)
    assert post(server, bucket, list(p["fields"].items()), b"x" * 10).status == 204
    assert usage(server, bucket) == {"bytes": 10, "objects": 1}


def test_copy_object_refused(server, s3, bucket):
    source = new_bucket_name()
    s3.create_bucket(Bucket=source)
    s3.put_object(Bucket=source, Key="src", Body=b"s" * 2000)
    set_quota(server, bucket, bytes=1500)
    refused(lambda: s3.copy_object(Bucket=bucket, Key="copy",
                                   CopySource={"Bucket": source, "Key": "src"}),
            "The bucket's quota of 1500 bytes would be exceeded.")
    assert keys(s3, bucket) == []
    set_quota(server, bucket, bytes=2000)
    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": source, "Key": "src"})
    assert usage(server, bucket) == {"bytes": 2000, "objects": 1}


def test_upload_part_and_part_copy_refused(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"s" * (3 * MIB))
    set_quota(server, bucket, bytes=5 * MIB)
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    refused(lambda: s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1,
                                   Body=b"p" * (2 * MIB + 1)),
            "The bucket's quota of 5242880 bytes would be exceeded.")
    refused(lambda: s3.upload_part_copy(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1,
                                        CopySource={"Bucket": bucket, "Key": "src"}),
            "The bucket's quota of 5242880 bytes would be exceeded.")
    assert s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload).get("Parts", []) == []
    s3.upload_part_copy(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=1,
                        CopySource={"Bucket": bucket, "Key": "src"},
                        CopySourceRange=f"bytes=0-{2 * MIB - 1}")
    s3.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload)


def test_complete_crossing_the_quota_is_refused_and_the_upload_stays(server, s3, bucket):
    set_quota(server, bucket, bytes=8 * MIB)
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    parts = []
    for n, fill in ((1, b"a"), (2, b"b")):
        etag = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload, PartNumber=n,
                              Body=fill * (5 * MIB))["ETag"]
        parts.append({"PartNumber": n, "ETag": etag})
    refused(lambda: s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload,
                                                 MultipartUpload={"Parts": parts}),
            "The bucket's quota of 8388608 bytes would be exceeded.")
    assert keys(s3, bucket) == []
    assert len(s3.list_parts(Bucket=bucket, Key="mp", UploadId=upload)["Parts"]) == 2
    set_quota(server, bucket, bytes=10 * MIB)
    s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload,
                                 MultipartUpload={"Parts": parts})
    assert usage(server, bucket) == {"bytes": 10 * MIB, "objects": 1}


def test_quota_survives_a_restart_and_shows_in_metrics(start_server):
    srv = start_server()
    s3 = make_client(srv)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    set_quota(srv, bucket, bytes=100, objects=3)
    m = scrape(srv.endpoint)
    assert metric(m, "cubby_bucket_quota_bytes", bucket=bucket) == 100
    assert metric(m, "cubby_bucket_quota_objects", bucket=bucket) == 3
    data_dir = srv.data_dir
    assert srv.stop() == 0

    srv = start_server(data_dir=data_dir)
    s3 = make_client(srv)
    assert json.loads(quota_call(srv, "GET", bucket).body)["quota"] == {
        "bytes": 100, "objects": 3}
    refused(lambda: s3.put_object(Bucket=bucket, Key="k", Body=b"x" * 101),
            "The bucket's quota of 100 bytes would be exceeded.")
    m = scrape(srv.endpoint)
    assert metric(m, "cubby_bucket_quota_bytes", bucket=bucket) == 100
    assert metric(m, "cubby_bucket_bytes", bucket=bucket) == 0
    # Removed: no sample any more.
    quota_call(srv, "DELETE", bucket)
    m = scrape(srv.endpoint)
    assert ("cubby_bucket_quota_bytes", frozenset({("bucket", bucket)})) not in m


def test_concurrent_writers_overshoot_by_at_most_the_writes_in_flight(server, bucket):
    threads, size, quota = 8, 64 * 1024, 1 * MIB
    set_quota(server, bucket, bytes=quota)
    errors = []

    def writer(i):
        s3 = make_client(server)
        try:
            for n in range(8):
                try:
                    s3.put_object(Bucket=bucket, Key=f"w{i}/{n}", Body=b"d" * size)
                except ClientError as e:
                    if e.response["Error"]["Code"] != "QuotaExceeded":
                        raise
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    workers = [threading.Thread(target=writer, args=(i,)) for i in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert errors == []
    used = usage(server, bucket)
    assert used["bytes"] <= quota + (threads - 1) * size, used
    assert used["bytes"] >= quota - size + 1 or used["objects"] == threads * 8, used
    s3 = make_client(server)
    listed = s3.list_objects_v2(Bucket=bucket).get("Contents", [])
    assert sum(o["Size"] for o in listed) == used["bytes"]
