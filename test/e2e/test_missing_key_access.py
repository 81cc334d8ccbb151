"""GET and HEAD of a missing key or version answer 404 only to a caller who may list (issue 27,
hole 2).

S3 (API_GetObject.html and API_HeadObject.html, "Permissions"): "If the object you request
doesn't exist, the error that Amazon S3 returns depends on whether you also have the
s3:ListBucket permission. If you have the s3:ListBucket permission on the bucket, Amazon S3
returns an HTTP status code 404 Not Found error. If you don't have the s3:ListBucket
permission, Amazon S3 returns an HTTP status code 403 Access Denied error." The reader here is
allowed s3:GetObject and s3:GetObjectVersion by (a) its user policy, (b) a bucket policy naming
it, (c) a bucket policy for "*" (an anonymous reader); ListBucket is then not allowed, allowed,
or allowed with an s3:prefix condition that matches the probed keys or does not. The bucket
owner always hears 404, and a present object and version read 200 for everyone.
"""

import uuid

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import make_client, new_bucket_name, running_server
from test_access_control import User, iam_client, policy

VIA = ("user_policy", "bucket_policy", "anonymous")
LISTING = ("none", "list", "prefix_match", "prefix_nomatch")


@pytest.fixture(scope="module")
def world(cubby_bin, tmp_path_factory):
    with running_server(cubby_bin, tmp_path_factory.mktemp("missingkey")) as server:
        iam = iam_client(server)
        suffix = uuid.uuid4().hex[:8]
        yield {"server": server, "iam": iam,
               "owner": User(server, iam, f"owner-{suffix}"),
               "reader": User(server, iam, f"reader-{suffix}"),
               "anon": make_client(server, anonymous=True)}


def outcome(call):
    """(HTTP status, S3 error code or None)."""
    try:
        call()
        return 200, None
    except ClientError as e:
        code = e.response["Error"]["Code"]
        status = e.response["ResponseMetadata"]["HTTPStatusCode"]
        return status, None if code == str(status) else code  # HEAD has no error body


@pytest.fixture
def stocked(world):
    """A private, versioned bucket of the owner's with data/present (two versions, the older one
    deleted: a missing version of a present key) and data/gone (its only version deleted: a
    missing key with a well-formed version id)."""
    s3 = world["owner"].s3
    bucket = new_bucket_name("mk")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    old = s3.put_object(Bucket=bucket, Key="data/present", Body=b"old")["VersionId"]
    current = s3.put_object(Bucket=bucket, Key="data/present", Body=b"here")["VersionId"]
    s3.delete_object(Bucket=bucket, Key="data/present", VersionId=old)
    gone = s3.put_object(Bucket=bucket, Key="data/gone", Body=b"gone")["VersionId"]
    s3.delete_object(Bucket=bucket, Key="data/gone", VersionId=gone)
    return {"bucket": bucket, "current": current, "missing_version": old,
            "gone_version": gone}


def statements(bucket, listing, principal):
    """Allow GetObject(Version) on the bucket's objects, and ListBucket as `listing` says."""
    def with_principal(st):
        return dict(st, Principal=principal) if principal is not None else st

    out = [with_principal({"Effect": "Allow", "Action": ["s3:GetObject", "s3:GetObjectVersion"],
                           "Resource": f"arn:aws:s3:::{bucket}/*"})]
    list_stmt = {"Effect": "Allow", "Action": "s3:ListBucket",
                 "Resource": f"arn:aws:s3:::{bucket}"}
    if listing == "list":
        out.append(with_principal(list_stmt))
    elif listing in ("prefix_match", "prefix_nomatch"):
        pattern = "data/*" if listing == "prefix_match" else "other/*"
        out.append(with_principal(dict(list_stmt, Condition={
            "StringLike": {"s3:prefix": pattern}})))
    return out


def probes(client, bucket, stocked):
    """name -> (call, present?)"""
    return {
        "GET present": (lambda: client.get_object(Bucket=bucket, Key="data/present")
                        ["Body"].read(), True),
        "HEAD present": (lambda: client.head_object(Bucket=bucket, Key="data/present"), True),
        "GET present version": (lambda: client.get_object(
            Bucket=bucket, Key="data/present", VersionId=stocked["current"])["Body"].read(),
            True),
        "HEAD present version": (lambda: client.head_object(
            Bucket=bucket, Key="data/present", VersionId=stocked["current"]), True),
        "GET missing key": (lambda: client.get_object(Bucket=bucket, Key="data/missing"), False),
        "HEAD missing key": (lambda: client.head_object(Bucket=bucket, Key="data/missing"),
                             False),
        "GET missing version": (lambda: client.get_object(
            Bucket=bucket, Key="data/present", VersionId=stocked["missing_version"]), False),
        "HEAD missing version": (lambda: client.head_object(
            Bucket=bucket, Key="data/present", VersionId=stocked["missing_version"]), False),
        "GET missing key by version": (lambda: client.get_object(
            Bucket=bucket, Key="data/gone", VersionId=stocked["gone_version"]), False),
        "HEAD missing key by version": (lambda: client.head_object(
            Bucket=bucket, Key="data/gone", VersionId=stocked["gone_version"]), False),
    }


def expected(name, present, may_list):
    """S3's answer: 200; 404 with NoSuchKey / NoSuchVersion (HEAD: no body) to a caller who may
    list; 403 AccessDenied (HEAD: no body) to one who may not."""
    if present:
        return 200, None
    head = name.startswith("HEAD")
    if not may_list:
        return 403, None if head else "AccessDenied"
    return 404, None if head else ("NoSuchVersion" if "version" in name else "NoSuchKey")


@pytest.mark.parametrize("listing", LISTING)
@pytest.mark.parametrize("via", VIA)
def test_missing_key_needs_list_permission(world, stocked, via, listing):
    bucket = stocked["bucket"]
    reader = world["reader"]
    if via == "user_policy":
        world["iam"].put_user_policy(UserName=reader.name, PolicyName=f"read-{bucket}",
                                     PolicyDocument=policy(*statements(bucket, listing, None)))
        client = reader.s3
    elif via == "bucket_policy":
        world["owner"].s3.put_bucket_policy(Bucket=bucket, Policy=policy(
            *statements(bucket, listing, {"AWS": reader.arn})))
        client = reader.s3
    else:
        world["owner"].s3.put_bucket_policy(Bucket=bucket, Policy=policy(
            *statements(bucket, listing, "*")))
        client = world["anon"]
    may_list = listing in ("list", "prefix_match")
    wrong = []
    try:
        for who, c, lister in (("reader", client, may_list), ("bucket owner", world["owner"].s3,
                                                              True)):
            for name, (call, present) in probes(c, bucket, stocked).items():
                got = outcome(call)
                want = expected(name, present, lister)
                if got != want:
                    wrong.append(f"{via}/{listing}: {name} as {who}: S3 {want}, cubby {got}")
    finally:
        if via == "user_policy":
            world["iam"].delete_user_policy(UserName=reader.name, PolicyName=f"read-{bucket}")
    assert not wrong, "\n".join(wrong)
