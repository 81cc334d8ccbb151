"""Lifecycle rules (issue 14): Put/Get/DeleteBucketLifecycleConfiguration with boto3, and the
worker observed expiring objects, versions, delete markers and uploads under an accelerated
lifecycle day (--lifecycle-day-seconds 2, a pass every 200 ms)."""

import base64
import hashlib
import time

import botocore.exceptions
import pytest

from cubby_e2e import make_client, new_bucket_name, raw_request

DAY_SECONDS = 2
DEADLINE_SECONDS = 30  # many lifecycle days: a pass runs every 200 ms


@pytest.fixture
def lc_server(start_server):
    return start_server(args=["--lifecycle-day-seconds", str(DAY_SECONDS),
                              "--lifecycle-interval", "200ms"])


@pytest.fixture
def lc(lc_server):
    return make_client(lc_server)


@pytest.fixture
def lc_bucket(lc):
    name = new_bucket_name()
    lc.create_bucket(Bucket=name)
    return name


def error_of(excinfo):
    err = excinfo.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]


def wait_for(what, check):
    """Polls `check` until it returns true; fails after DEADLINE_SECONDS."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def exists(s3, bucket, key):
    try:
        s3.head_object(Bucket=bucket, Key=key)
        return True
    except botocore.exceptions.ClientError as e:
        if e.response["ResponseMetadata"]["HTTPStatusCode"] == 404:
            return False
        raise


def versioning_supported(s3, bucket):
    """PutBucketVersioning arrives with the versioning front end; until then it is
    NotImplemented and the versioned cases skip."""
    try:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
        return True
    except botocore.exceptions.ClientError as e:
        if e.response["Error"]["Code"] in ("NotImplemented", "MethodNotAllowed"):
            return False
        raise


def expire_rule(rule_id, days=1, prefix=""):
    return {"ID": rule_id, "Filter": {"Prefix": prefix}, "Status": "Enabled",
            "Expiration": {"Days": days}}


def test_round_trip(lc, lc_bucket):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        lc.get_bucket_lifecycle_configuration(Bucket=lc_bucket)
    assert error_of(e) == ("NoSuchLifecycleConfiguration", 404)

    rules = [
        {"ID": "logs", "Filter": {"Prefix": "logs/"}, "Status": "Enabled",
         "Expiration": {"Days": 30}},
        {"ID": "big", "Filter": {"And": {"Prefix": "data/", "ObjectSizeGreaterThan": 1024}},
         "Status": "Disabled", "NoncurrentVersionExpiration": {"NoncurrentDays": 3,
                                                               "NewerNoncurrentVersions": 2}},
        {"ID": "uploads", "Filter": {}, "Status": "Enabled",
         "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 7}},
    ]
    lc.put_bucket_lifecycle_configuration(Bucket=lc_bucket,
                                          LifecycleConfiguration={"Rules": rules})
    got = lc.get_bucket_lifecycle_configuration(Bucket=lc_bucket)["Rules"]
    assert [r["ID"] for r in got] == ["logs", "big", "uploads"]
    assert got[0]["Filter"] == {"Prefix": "logs/"}
    assert got[0]["Expiration"] == {"Days": 30}
    assert got[1]["Status"] == "Disabled"
    assert got[1]["Filter"]["And"] == {"Prefix": "data/", "ObjectSizeGreaterThan": 1024}
    assert got[1]["NoncurrentVersionExpiration"] == {"NoncurrentDays": 3,
                                                     "NewerNoncurrentVersions": 2}
    assert got[2]["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 7}

    lc.delete_bucket_lifecycle(Bucket=lc_bucket)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        lc.get_bucket_lifecycle_configuration(Bucket=lc_bucket)
    assert error_of(e) == ("NoSuchLifecycleConfiguration", 404)


def test_errors(lc_server, lc, lc_bucket):
    # Transitions: one storage class, so they are refused, saying why.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        lc.put_bucket_lifecycle_configuration(
            Bucket=lc_bucket, LifecycleConfiguration={"Rules": [
                {"ID": "t", "Filter": {}, "Status": "Enabled",
                 "Transitions": [{"Days": 30, "StorageClass": "GLACIER"}]}]})
    assert error_of(e) == ("NotImplemented", 501)
    assert "transition" in e.value.response["Error"]["Message"].lower()

    body = b"<LifecycleConfiguration><Rule><ID>x</ID>"
    md5 = base64.b64encode(hashlib.md5(body).digest()).decode()
    resp = raw_request(lc_server, "PUT", f"/{lc_bucket}", query="lifecycle", body=body,
                       headers={"Content-MD5": md5})
    assert resp.status == 400, resp.body
    assert b"<Code>MalformedXML</Code>" in resp.body

    # The body's integrity check is required, as S3 requires it.
    good = (b"<LifecycleConfiguration><Rule><ID>x</ID><Filter/><Status>Enabled</Status>"
            b"<Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>")
    resp = raw_request(lc_server, "PUT", f"/{lc_bucket}", query="lifecycle", body=good)
    assert resp.status == 400, resp.body
    assert b"<Code>InvalidRequest</Code>" in resp.body
    assert b"Content-Md5" in resp.body

    with pytest.raises(botocore.exceptions.ClientError) as e:
        lc.get_bucket_lifecycle_configuration(Bucket=new_bucket_name())
    assert error_of(e) == ("NoSuchBucket", 404)


def test_expiration_header(lc, lc_bucket):
    lc.put_bucket_lifecycle_configuration(
        Bucket=lc_bucket, LifecycleConfiguration={"Rules": [expire_rule("r1", 1000, "tmp/")]})
    put = lc.put_object(Bucket=lc_bucket, Key="tmp/a", Body=b"x")
    assert 'rule-id="r1"' in put["Expiration"]
    assert put["Expiration"].startswith('expiry-date="')
    head = lc.head_object(Bucket=lc_bucket, Key="tmp/a")
    assert head["Expiration"] == put["Expiration"]
    got = lc.get_object(Bucket=lc_bucket, Key="tmp/a")
    assert got["Expiration"] == put["Expiration"]
    other = lc.put_object(Bucket=lc_bucket, Key="keep/a", Body=b"x")
    assert "Expiration" not in other
    assert "Expiration" not in lc.head_object(Bucket=lc_bucket, Key="keep/a")


def test_current_versions_expire_in_an_unversioned_bucket(lc_server, lc, lc_bucket):
    lc.put_bucket_lifecycle_configuration(
        Bucket=lc_bucket, LifecycleConfiguration={"Rules": [expire_rule("tmp", 1, "tmp/")]})
    lc.put_object(Bucket=lc_bucket, Key="tmp/a", Body=b"a")
    lc.put_object(Bucket=lc_bucket, Key="tmp/b", Body=b"b")
    lc.put_object(Bucket=lc_bucket, Key="keep/c", Body=b"c")
    wait_for("tmp/ to expire", lambda: not exists(lc, lc_bucket, "tmp/a")
             and not exists(lc, lc_bucket, "tmp/b"))
    assert exists(lc, lc_bucket, "keep/c")
    listed = lc.list_objects_v2(Bucket=lc_bucket).get("Contents", [])
    assert [o["Key"] for o in listed] == ["keep/c"]
    # One log line per pass that changed something, with its counts (and no key names).
    def pass_lines():
        return [l for l in lc_server.all_output().splitlines() if 'msg="lifecycle pass"' in l]

    def logged_expiries():
        return sum(int(l.split("expired_current=")[1].split()[0]) for l in pass_lines())

    wait_for("the passes' log lines", lambda: logged_expiries() == 2)
    assert all("tmp/" not in l and "errors=0" in l for l in pass_lines()), pass_lines()


def test_incomplete_upload_is_aborted(lc, lc_bucket):
    lc.put_bucket_lifecycle_configuration(
        Bucket=lc_bucket, LifecycleConfiguration={"Rules": [
            {"ID": "mpu", "Filter": {"Prefix": "big/"}, "Status": "Enabled",
             "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]})
    due = lc.create_multipart_upload(Bucket=lc_bucket, Key="big/file")
    assert due["AbortRuleId"] == "mpu"
    assert "AbortDate" in due
    lc.upload_part(Bucket=lc_bucket, Key="big/file", UploadId=due["UploadId"], PartNumber=1,
                   Body=b"part")
    kept = lc.create_multipart_upload(Bucket=lc_bucket, Key="other/file")
    assert "AbortRuleId" not in kept

    def uploads():
        return {u["Key"] for u in lc.list_multipart_uploads(Bucket=lc_bucket).get("Uploads", [])}

    wait_for("the upload to be aborted", lambda: uploads() == {"other/file"})
    with pytest.raises(botocore.exceptions.ClientError) as e:
        lc.list_parts(Bucket=lc_bucket, Key="big/file", UploadId=due["UploadId"])
    assert error_of(e) == ("NoSuchUpload", 404)
    lc.abort_multipart_upload(Bucket=lc_bucket, Key="other/file", UploadId=kept["UploadId"])


def test_noncurrent_versions_and_delete_markers_expire(lc, lc_bucket):
    if not versioning_supported(lc, lc_bucket):
        pytest.skip("PutBucketVersioning is not implemented in this build")
    lc.put_bucket_lifecycle_configuration(
        Bucket=lc_bucket, LifecycleConfiguration={"Rules": [
            {"ID": "noncurrent", "Filter": {}, "Status": "Enabled",
             "NoncurrentVersionExpiration": {"NoncurrentDays": 1}},
            {"ID": "markers", "Filter": {}, "Status": "Enabled",
             "Expiration": {"ExpiredObjectDeleteMarker": True}}]})
    lc.put_object(Bucket=lc_bucket, Key="k", Body=b"1")
    lc.put_object(Bucket=lc_bucket, Key="k", Body=b"2")
    lc.delete_object(Bucket=lc_bucket, Key="k")  # a delete marker on top

    def versions():
        page = lc.list_object_versions(Bucket=lc_bucket)
        return page.get("Versions", []), page.get("DeleteMarkers", [])

    # Both versions become noncurrent and expire; then the marker is alone and goes too.
    wait_for("every version and marker to expire", lambda: versions() == ([], []))


def test_current_version_gets_a_delete_marker_in_a_versioned_bucket(lc, lc_bucket):
    if not versioning_supported(lc, lc_bucket):
        pytest.skip("PutBucketVersioning is not implemented in this build")
    lc.put_bucket_lifecycle_configuration(
        Bucket=lc_bucket, LifecycleConfiguration={"Rules": [expire_rule("current", 1)]})
    put = lc.put_object(Bucket=lc_bucket, Key="k", Body=b"1")
    wait_for("a delete marker", lambda: not exists(lc, lc_bucket, "k"))
    page = lc.list_object_versions(Bucket=lc_bucket)
    assert [v["VersionId"] for v in page.get("Versions", [])] == [put["VersionId"]]
    assert len(page.get("DeleteMarkers", [])) >= 1
