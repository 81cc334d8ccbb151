"""Object lock (issue 14) through boto3: a bucket created with object lock (versioning Enabled
for good), its configuration, default retention on new versions, retention and legal-hold
headers on writes (and S3's Content-MD5 requirement), GOVERNANCE retention that yields only
to a bypass by a caller allowed s3:BypassGovernanceRetention, COMPLIANCE that never yields,
legal holds, and every lock call refused on a bucket without object lock.
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html"""

import base64
import datetime
import hashlib
import json
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import cubby_e2e
from cubby_e2e import make_client, new_bucket_name

MISSING = "Bucket is missing Object Lock Configuration"
FAR = datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc)
FARTHER = datetime.datetime(2100, 6, 1, tzinfo=datetime.timezone.utc)


def error_of(excinfo):
    r = excinfo.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


def refused(call, code, status, message=None):
    with pytest.raises(ClientError) as e:
        call()
    assert error_of(e) == (code, status)
    if message is not None:
        assert e.value.response["Error"]["Message"] == message
    return e


def md5(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def put(s3, bucket, key, data=b"data", **kwargs):
    """PutObject with Content-MD5 (what S3 asks of a write that is locked); its version id."""
    return s3.put_object(Bucket=bucket, Key=key, Body=data, ContentMD5=md5(data),
                         **kwargs)["VersionId"]


def without_integrity(s3, operation, call):
    """call() with no Content-MD5 or checksum header on `operation` (botocore adds them)."""
    def strip(request, **_):
        for name in list(request.headers.keys()):
            lower = name.lower()
            if lower in ("content-md5", "x-amz-sdk-checksum-algorithm") or \
                    lower.startswith("x-amz-checksum-"):
                del request.headers[name]
    s3.meta.events.register_first(f"before-sign.s3.{operation}", strip)
    try:
        return call()
    finally:
        s3.meta.events.unregister(f"before-sign.s3.{operation}", strip)


def put_without_integrity(s3, **kwargs):
    return without_integrity(s3, "PutObject", lambda: s3.put_object(**kwargs))


@pytest.fixture
def locked(s3):
    name = new_bucket_name()
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    return name


def test_lock_bucket_is_versioned_for_good(s3, locked):
    assert s3.get_bucket_versioning(Bucket=locked)["Status"] == "Enabled"
    config = s3.get_object_lock_configuration(Bucket=locked)["ObjectLockConfiguration"]
    assert config == {"ObjectLockEnabled": "Enabled"}
    refused(lambda: s3.put_bucket_versioning(
        Bucket=locked, VersioningConfiguration={"Status": "Suspended"}),
        "InvalidBucketState", 409)
    assert s3.get_bucket_versioning(Bucket=locked)["Status"] == "Enabled"
    # Writes make versions.
    v1, v2 = put(s3, locked, "k", b"one"), put(s3, locked, "k", b"two")
    assert len(v1) == 32 and v1 != v2


def test_configuration_round_trip_and_errors(s3, locked, bucket):
    rule = {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 2}}
    s3.put_object_lock_configuration(Bucket=locked, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": rule})
    got = s3.get_object_lock_configuration(Bucket=locked)["ObjectLockConfiguration"]
    assert got == {"ObjectLockEnabled": "Enabled", "Rule": rule}
    refused(lambda: s3.put_object_lock_configuration(Bucket=locked, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled",
        "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 0}}}),
        "InvalidArgument", 400)
    refused(lambda: s3.put_object_lock_configuration(Bucket=locked, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled",
        "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1, "Years": 1}}}),
        "MalformedXML", 400)
    # Removing the rule keeps the lock.
    s3.put_object_lock_configuration(Bucket=locked,
                                     ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"})
    assert "Rule" not in s3.get_object_lock_configuration(
        Bucket=locked)["ObjectLockConfiguration"]
    # A bucket without object lock: none to read, and none to put until versioning is Enabled.
    refused(lambda: s3.get_object_lock_configuration(Bucket=bucket),
            "ObjectLockConfigurationNotFoundError", 404)
    refused(lambda: s3.put_object_lock_configuration(
        Bucket=bucket, ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"}),
        "InvalidBucketState", 409)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    s3.put_object_lock_configuration(Bucket=bucket,
                                     ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"})
    assert s3.get_object_lock_configuration(
        Bucket=bucket)["ObjectLockConfiguration"]["ObjectLockEnabled"] == "Enabled"


def test_default_retention_applies_to_new_versions(s3, locked):
    s3.put_object_lock_configuration(Bucket=locked, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled",
        "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}}})
    before = datetime.datetime.now(datetime.timezone.utc)
    vid = put(s3, locked, "k")
    head = s3.head_object(Bucket=locked, Key="k")
    assert head["ObjectLockMode"] == "GOVERNANCE"
    until = head["ObjectLockRetainUntilDate"]
    assert before + datetime.timedelta(days=1) - datetime.timedelta(seconds=5) <= until
    assert until <= before + datetime.timedelta(days=1, seconds=60)
    retention = s3.get_object_retention(Bucket=locked, Key="k", VersionId=vid)["Retention"]
    assert retention == {"Mode": "GOVERNANCE", "RetainUntilDate": until}
    # The default locks it: the version cannot be deleted, a plain delete makes a marker.
    refused(lambda: s3.delete_object(Bucket=locked, Key="k", VersionId=vid), "AccessDenied", 403)
    marker = s3.delete_object(Bucket=locked, Key="k")
    assert marker["DeleteMarker"] is True
    assert s3.head_object(Bucket=locked, Key="k", VersionId=vid)["ObjectLockMode"] == "GOVERNANCE"
    # A PUT without Content-MD5 or a checksum is refused while the default applies.
    refused(lambda: put_without_integrity(s3, Bucket=locked, Key="nomd5", Body=b"x"),
            "InvalidRequest", 400)
    # Once the default is removed, such a PUT is a plain unlocked version.
    s3.put_object_lock_configuration(Bucket=locked,
                                     ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"})
    put_without_integrity(s3, Bucket=locked, Key="nomd5", Body=b"x")
    assert "ObjectLockMode" not in s3.head_object(Bucket=locked, Key="nomd5")


def test_retention_headers_on_put(s3, locked, bucket):
    vid = put(s3, locked, "k", ObjectLockMode="COMPLIANCE", ObjectLockRetainUntilDate=FAR,
              ObjectLockLegalHoldStatus="OFF")
    got = s3.get_object(Bucket=locked, Key="k", VersionId=vid)
    assert got["Body"].read() == b"data"
    assert got["ObjectLockMode"] == "COMPLIANCE"
    assert got["ObjectLockRetainUntilDate"] == FAR
    assert got["ObjectLockLegalHoldStatus"] == "OFF"
    # Content-MD5, or a checksum, is required with lock parameters.
    e = refused(lambda: put_without_integrity(s3, Bucket=locked, Key="nomd5", Body=b"x",
                                              ObjectLockLegalHoldStatus="ON"),
                "InvalidRequest", 400)
    assert "Content-MD5" in e.value.response["Error"]["Message"]
    s3.put_object(Bucket=locked, Key="crc", Body=b"x", ChecksumAlgorithm="CRC32",
                  ObjectLockLegalHoldStatus="ON")
    assert s3.get_object_legal_hold(Bucket=locked, Key="crc")["LegalHold"] == {"Status": "ON"}
    # Malformed headers.
    past = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
    refused(lambda: put(s3, locked, "bad", ObjectLockMode="GOVERNANCE",
                        ObjectLockRetainUntilDate=past),
            "InvalidArgument", 400, "The retain until date must be in the future!")
    refused(lambda: put(s3, locked, "bad", ObjectLockMode="GOVERNANCE"),
            "InvalidArgument", 400, "x-amz-object-lock-retain-until-date and "
            "x-amz-object-lock-mode must both be supplied")
    refused(lambda: put(s3, locked, "bad", ObjectLockMode="WORM", ObjectLockRetainUntilDate=FAR),
            "InvalidArgument", 400, "Unknown wormMode directive.")
    # Copies and multipart uploads take them too.
    s3.copy_object(Bucket=locked, Key="copy", CopySource={"Bucket": locked, "Key": "k"},
                   ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=FAR)
    assert s3.head_object(Bucket=locked, Key="copy")["ObjectLockMode"] == "GOVERNANCE"
    upload = s3.create_multipart_upload(Bucket=locked, Key="mp", ObjectLockLegalHoldStatus="ON")
    part = s3.upload_part(Bucket=locked, Key="mp", UploadId=upload["UploadId"], PartNumber=1,
                          Body=b"part")
    s3.complete_multipart_upload(Bucket=locked, Key="mp", UploadId=upload["UploadId"],
                                 MultipartUpload={"Parts": [{"PartNumber": 1,
                                                             "ETag": part["ETag"]}]})
    assert s3.head_object(Bucket=locked, Key="mp")["ObjectLockLegalHoldStatus"] == "ON"
    # A bucket without object lock refuses them.
    refused(lambda: put(s3, bucket, "k", ObjectLockMode="GOVERNANCE",
                        ObjectLockRetainUntilDate=FAR), "InvalidRequest", 400, MISSING)
    refused(lambda: s3.create_multipart_upload(Bucket=bucket, Key="mp",
                                               ObjectLockLegalHoldStatus="ON"),
            "InvalidRequest", 400, MISSING)


def test_compliance_never_yields(s3, locked):
    vid = put(s3, locked, "k", ObjectLockMode="COMPLIANCE", ObjectLockRetainUntilDate=FAR)
    refused(lambda: s3.delete_object(Bucket=locked, Key="k", VersionId=vid,
                                     BypassGovernanceRetention=True), "AccessDenied", 403)
    refused(lambda: s3.put_object_retention(
        Bucket=locked, Key="k", VersionId=vid, BypassGovernanceRetention=True,
        Retention={"Mode": "COMPLIANCE", "RetainUntilDate": FAR - datetime.timedelta(days=1)}),
        "AccessDenied", 403)
    refused(lambda: s3.put_object_retention(
        Bucket=locked, Key="k", VersionId=vid, BypassGovernanceRetention=True,
        Retention={"Mode": "GOVERNANCE", "RetainUntilDate": FAR}), "AccessDenied", 403)
    # Extending is allowed.
    s3.put_object_retention(Bucket=locked, Key="k", VersionId=vid,
                            Retention={"Mode": "COMPLIANCE", "RetainUntilDate": FARTHER})
    assert s3.get_object_retention(Bucket=locked, Key="k")["Retention"]["RetainUntilDate"] == \
        FARTHER
    body = {"Objects": [{"Key": "k", "VersionId": vid}]}
    result = s3.delete_objects(Bucket=locked, Delete=body, BypassGovernanceRetention=True)
    assert [e["Code"] for e in result["Errors"]] == ["AccessDenied"]
    assert s3.head_object(Bucket=locked, Key="k", VersionId=vid)["ObjectLockMode"] == "COMPLIANCE"


def test_legal_hold_blocks_delete_until_off(s3, locked):
    vid = put(s3, locked, "k")
    refused(lambda: s3.get_object_legal_hold(Bucket=locked, Key="k"),
            "NoSuchObjectLockConfiguration", 404)
    refused(lambda: s3.get_object_retention(Bucket=locked, Key="k"),
            "NoSuchObjectLockConfiguration", 404)
    # The lock Puts need Content-MD5 or a checksum.
    refused(lambda: without_integrity(s3, "PutObjectLegalHold", lambda: s3.put_object_legal_hold(
        Bucket=locked, Key="k", LegalHold={"Status": "ON"})), "InvalidRequest", 400,
        "Missing required header for this request: Content-Md5")
    s3.put_object_legal_hold(Bucket=locked, Key="k", VersionId=vid, LegalHold={"Status": "ON"})
    assert s3.get_object_legal_hold(Bucket=locked, Key="k")["LegalHold"] == {"Status": "ON"}
    refused(lambda: s3.delete_object(Bucket=locked, Key="k", VersionId=vid,
                                     BypassGovernanceRetention=True), "AccessDenied", 403)
    s3.put_object_legal_hold(Bucket=locked, Key="k", LegalHold={"Status": "OFF"})
    assert s3.head_object(Bucket=locked, Key="k")["ObjectLockLegalHoldStatus"] == "OFF"
    s3.delete_object(Bucket=locked, Key="k", VersionId=vid)
    refused(lambda: s3.head_object(Bucket=locked, Key="k", VersionId=vid), "404", 404)


def test_lock_calls_on_a_delete_marker(s3, locked):
    """Only DELETE works on a delete marker (DeleteMarker.html): the lock calls that name one by
    id answer 405 MethodNotAllowed, as GET does; when it is the latest, 404 NoSuchKey. Both say
    it is a marker. The marker itself goes with a plain DELETE by id."""
    put(s3, locked, "k")
    marker = s3.delete_object(Bucket=locked, Key="k")["VersionId"]
    retention = {"Mode": "GOVERNANCE", "RetainUntilDate": FAR}
    for by_id, (code, status) in ((True, ("MethodNotAllowed", 405)), (False, ("NoSuchKey", 404))):
        named = {"VersionId": marker} if by_id else {}
        calls = [
            lambda: s3.get_object_retention(Bucket=locked, Key="k", **named),
            lambda: s3.put_object_retention(Bucket=locked, Key="k", Retention=retention, **named),
            lambda: s3.get_object_legal_hold(Bucket=locked, Key="k", **named),
            lambda: s3.put_object_legal_hold(Bucket=locked, Key="k", LegalHold={"Status": "ON"},
                                             **named),
            lambda: s3.get_object_acl(Bucket=locked, Key="k", **named),
        ]
        for call in calls:
            e = refused(call, code, status)
            headers = e.value.response["ResponseMetadata"]["HTTPHeaders"]
            assert headers.get("x-amz-delete-marker") == "true"
    s3.delete_object(Bucket=locked, Key="k", VersionId=marker)
    assert s3.get_object(Bucket=locked, Key="k")["Body"].read() == b"data"  # undeleted


def test_lock_calls_on_bucket_without_lock(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    calls = [
        lambda: s3.get_object_retention(Bucket=bucket, Key="k"),
        lambda: s3.put_object_retention(Bucket=bucket, Key="k", Retention={
            "Mode": "GOVERNANCE", "RetainUntilDate": FAR}),
        lambda: s3.get_object_legal_hold(Bucket=bucket, Key="k"),
        lambda: s3.put_object_legal_hold(Bucket=bucket, Key="k", LegalHold={"Status": "ON"}),
    ]
    for call in calls:
        refused(call, "InvalidRequest", 400, MISSING)


# ---- The bypass needs s3:BypassGovernanceRetention (users made through the IAM API).

def iam_client(server):
    session = boto3.session.Session(aws_access_key_id=server.access_key,
                                    aws_secret_access_key=server.secret_key,
                                    region_name="us-east-1")
    cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("iam", endpoint_url=server.endpoint, config=cfg)


def new_user(server, iam, name):
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    cubby_e2e.USER_SECRETS.add(key["SecretAccessKey"])
    return make_client(server, key["AccessKeyId"], key["SecretAccessKey"]), \
        iam.get_user(UserName=name)["User"]["Arn"]


def test_governance_bypass_needs_permission(server):
    iam = iam_client(server)
    suffix = uuid.uuid4().hex[:8]
    alice, _ = new_user(server, iam, f"alice-{suffix}")
    bob, bob_arn = new_user(server, iam, f"bob-{suffix}")
    bucket = new_bucket_name()
    alice.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
    vid = put(alice, bucket, "k", ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=FAR)

    def allow(*actions):
        alice.put_bucket_policy(Bucket=bucket, Policy=json.dumps({
            "Version": "2012-10-17", "Statement": [{
                "Effect": "Allow", "Principal": {"AWS": bob_arn}, "Action": list(actions),
                "Resource": f"arn:aws:s3:::{bucket}/*"}]}))

    # Bob may delete versions and set retention, but not bypass: the header does not help.
    allow("s3:DeleteObjectVersion", "s3:PutObjectRetention", "s3:GetObjectRetention")
    refused(lambda: bob.delete_object(Bucket=bucket, Key="k", VersionId=vid,
                                      BypassGovernanceRetention=True), "AccessDenied", 403)
    shorter = {"Mode": "GOVERNANCE", "RetainUntilDate": FAR - datetime.timedelta(days=1)}
    refused(lambda: bob.put_object_retention(Bucket=bucket, Key="k", VersionId=vid,
                                             Retention=shorter, BypassGovernanceRetention=True),
            "AccessDenied", 403)
    # Extending needs no bypass.
    bob.put_object_retention(Bucket=bucket, Key="k", VersionId=vid,
                             Retention={"Mode": "GOVERNANCE", "RetainUntilDate": FARTHER})
    assert bob.get_object_retention(Bucket=bucket, Key="k", VersionId=vid)["Retention"][
        "RetainUntilDate"] == FARTHER
    # The owner, without the header, is refused as well.
    refused(lambda: alice.delete_object(Bucket=bucket, Key="k", VersionId=vid),
            "AccessDenied", 403)
    # Granted the bypass, bob shortens it and deletes the version with the header.
    allow("s3:DeleteObjectVersion", "s3:PutObjectRetention", "s3:BypassGovernanceRetention")
    bob.put_object_retention(Bucket=bucket, Key="k", VersionId=vid, Retention=shorter,
                             BypassGovernanceRetention=True)
    refused(lambda: bob.delete_object(Bucket=bucket, Key="k", VersionId=vid),
            "AccessDenied", 403)
    bob.delete_object(Bucket=bucket, Key="k", VersionId=vid, BypassGovernanceRetention=True)
    refused(lambda: alice.head_object(Bucket=bucket, Key="k", VersionId=vid), "404", 404)
    # Setting a bucket's lock configuration is the owner's.
    refused(lambda: bob.put_object_lock_configuration(
        Bucket=bucket, ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"}),
        "AccessDenied", 403)
