"""Bucket-policy condition keys filled from the request, against the real binary with boto3:
s3:x-amz-server-side-encryption (SSE-S3 and SSE-KMS with the built-in KMS), the
aws-kms-key-id, s3:RequestObjectTag, s3:ExistingObjectTag, s3:x-amz-copy-source and
s3:x-amz-metadata-directive, s3:x-amz-grant-read, and a key cubby does not fill or know refused
at PutBucketPolicy (MalformedPolicy naming it) and at IAM PutUserPolicy
(MalformedPolicyDocument naming it)."""

import json

import pytest
from botocore.exceptions import ClientError

from sse_e2e import make_kms
from test_access_control import User, error_of, iam_client, policy
from cubby_e2e import make_client, new_bucket_name


def denied(call):
    with pytest.raises(ClientError) as e:
        call()
    assert error_of(e) == ("AccessDenied", 403)


@pytest.fixture
def pair(server):
    """alice owns a bucket with one object; bob is another user with no rights on it."""
    iam = iam_client(server)
    import uuid
    suffix = uuid.uuid4().hex[:8]
    alice, bob = (User(server, iam, f"{n}-{suffix}") for n in ("alice", "bob"))
    bucket = new_bucket_name()
    alice.s3.create_bucket(Bucket=bucket)
    return {"iam": iam, "alice": alice, "bob": bob, "bucket": bucket}


def put_policy(owner, bucket, *statements):
    owner.s3.put_bucket_policy(Bucket=bucket, Policy=policy(*statements))


def test_deny_unencrypted_uploads(server, pair):
    alice, bucket = pair["alice"], pair["bucket"]
    put_policy(alice, bucket, {
        "Effect": "Deny", "Principal": "*", "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
        "Condition": {"StringNotEquals": {"s3:x-amz-server-side-encryption": "AES256"}}})
    # A plain PUT has no such header: StringNotEquals on an absent key holds, so it is denied.
    denied(lambda: alice.s3.put_object(Bucket=bucket, Key="plain", Body=b"x"))
    r = alice.s3.put_object(Bucket=bucket, Key="sse", Body=b"x", ServerSideEncryption="AES256")
    assert r["ServerSideEncryption"] == "AES256"
    denied(lambda: alice.s3.put_object(Bucket=bucket, Key="kms", Body=b"x",
                                       ServerSideEncryption="aws:kms"))
    # Multipart creation and copies carry the header too.
    denied(lambda: alice.s3.create_multipart_upload(Bucket=bucket, Key="mp"))
    up = alice.s3.create_multipart_upload(Bucket=bucket, Key="mp", ServerSideEncryption="AES256")
    alice.s3.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=up["UploadId"])
    denied(lambda: alice.s3.copy_object(Bucket=bucket, Key="c", CopySource=f"{bucket}/sse"))
    alice.s3.copy_object(Bucket=bucket, Key="c", CopySource=f"{bucket}/sse",
                         ServerSideEncryption="AES256")


def test_allow_only_kms_with_the_named_key(server, pair):
    alice, bob, bucket = pair["alice"], pair["bob"], pair["bucket"]
    kms = make_kms(server)
    key = kms.create_key(Description="policy conditions")["KeyMetadata"]
    other = kms.create_key(Description="policy conditions, other")["KeyMetadata"]
    put_policy(alice, bucket, {
        "Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
        "Condition": {"StringEquals": {"s3:x-amz-server-side-encryption": "aws:kms",
                                       "s3:x-amz-server-side-encryption-aws-kms-key-id":
                                           key["Arn"]}}})
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="plain", Body=b"x"))
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="s3", Body=b"x",
                                     ServerSideEncryption="AES256"))
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="other", Body=b"x",
                                     ServerSideEncryption="aws:kms", SSEKMSKeyId=other["Arn"]))
    r = bob.s3.put_object(Bucket=bucket, Key="kms", Body=b"x", ServerSideEncryption="aws:kms",
                          SSEKMSKeyId=key["Arn"])
    assert r["ServerSideEncryption"] == "aws:kms"


def test_request_object_tag_allows_another_user(server, pair):
    alice, bob, bucket = pair["alice"], pair["bob"], pair["bucket"]
    put_policy(alice, bucket, {
        "Effect": "Allow", "Principal": {"AWS": bob.arn},
        "Action": ["s3:PutObject", "s3:PutObjectTagging"],
        "Resource": f"arn:aws:s3:::{bucket}/*",
        "Condition": {"StringEquals": {"s3:RequestObjectTag/Project": "Blue"},
                      "ForAllValues:StringEquals": {"s3:RequestObjectTagKeys": ["Project"]}}})
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="untagged", Body=b"x"))
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="red", Body=b"x", Tagging="Project=Red"))
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="extra", Body=b"x",
                                     Tagging="Project=Blue&Cost=1"))
    bob.s3.put_object(Bucket=bucket, Key="blue", Body=b"x", Tagging="Project=Blue")
    tags = alice.s3.get_object_tagging(Bucket=bucket, Key="blue")["TagSet"]
    assert tags == [{"Key": "Project", "Value": "Blue"}]
    # PutObjectTagging: the tags in the body count.
    bob.s3.put_object_tagging(Bucket=bucket, Key="blue",
                              Tagging={"TagSet": [{"Key": "Project", "Value": "Blue"}]})
    denied(lambda: bob.s3.put_object_tagging(
        Bucket=bucket, Key="blue", Tagging={"TagSet": [{"Key": "Project", "Value": "Red"}]}))
    # A body that does not parse is answered only to a caller allowed without its tags.
    with pytest.raises(ClientError) as e:
        alice.s3.put_object_tagging(Bucket=bucket, Key="blue", Tagging={"TagSet": [
            {"Key": "k", "Value": "v"}, {"Key": "k", "Value": "w"}]})
    assert error_of(e)[1] == 400


def test_existing_object_tag_gates_get_object(server, pair):
    alice, bob, bucket = pair["alice"], pair["bob"], pair["bucket"]
    alice.s3.put_object(Bucket=bucket, Key="public", Body=b"p", Tagging="Access=Public")
    alice.s3.put_object(Bucket=bucket, Key="private", Body=b"q", Tagging="Access=Private")
    alice.s3.put_object(Bucket=bucket, Key="untagged", Body=b"r")
    put_policy(alice, bucket, {
        "Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
        "Condition": {"StringEquals": {"s3:ExistingObjectTag/Access": "Public"}}})
    assert bob.s3.get_object(Bucket=bucket, Key="public")["Body"].read() == b"p"
    denied(lambda: bob.s3.get_object(Bucket=bucket, Key="private"))
    denied(lambda: bob.s3.get_object(Bucket=bucket, Key="untagged"))
    # Retagging counts from the next request.
    alice.s3.put_object_tagging(Bucket=bucket, Key="private",
                                Tagging={"TagSet": [{"Key": "Access", "Value": "Public"}]})
    assert bob.s3.get_object(Bucket=bucket, Key="private")["Body"].read() == b"q"


def test_copy_source_and_metadata_directive(server, pair):
    alice, bob, bucket = pair["alice"], pair["bob"], pair["bucket"]
    alice.s3.put_object(Bucket=bucket, Key="public/a b", Body=b"a")
    alice.s3.put_object(Bucket=bucket, Key="secret/b", Body=b"b")
    put_policy(alice, bucket, {
        "Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*"}, {
        "Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{bucket}/copies/*",
        "Condition": {"StringLike": {"s3:x-amz-copy-source": f"{bucket}/public/*"},
                      "StringEquals": {"s3:x-amz-metadata-directive": "REPLACE"}}})
    # boto3 percent-encodes the source ("public/a%20b"): the key compares decoded.
    bob.s3.copy_object(Bucket=bucket, Key="copies/1", CopySource=f"{bucket}/public/a b",
                       MetadataDirective="REPLACE", Metadata={"m": "1"})
    denied(lambda: bob.s3.copy_object(Bucket=bucket, Key="copies/2",
                                      CopySource=f"{bucket}/public/a b"))  # no directive
    denied(lambda: bob.s3.copy_object(Bucket=bucket, Key="copies/3",
                                      CopySource=f"{bucket}/secret/b",
                                      MetadataDirective="REPLACE"))
    # A plain PUT has no copy source: StringLike on an absent key does not hold.
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="copies/4", Body=b"x"))


def test_grant_read_header(server, pair):
    alice, bob, bucket = pair["alice"], pair["bob"], pair["bucket"]
    grant = f"id={alice.id}"
    put_policy(alice, bucket, {
        "Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:PutObject",
        "Resource": f"arn:aws:s3:::{bucket}/*",
        "Condition": {"StringEquals": {"s3:x-amz-grant-read": grant}}})
    denied(lambda: bob.s3.put_object(Bucket=bucket, Key="nogrant", Body=b"x"))
    bob.s3.put_object(Bucket=bucket, Key="granted", Body=b"x", GrantRead=grant)
    assert alice.s3.get_object(Bucket=bucket, Key="granted")["Body"].read() == b"x"


@pytest.mark.parametrize("key,message", [
    ("aws:SourceVpce", "Policy has a condition key cubby does not support: aws:SourceVpce"),
    ("s3:DataAccessPointArn",
     "Policy has a condition key cubby does not support: s3:DataAccessPointArn"),
    ("s3:NoSuchConditionKey", "Policy has an invalid condition key: s3:NoSuchConditionKey"),
    ("aws:MadeUpKey", "Policy has an invalid condition key: aws:MadeUpKey"),
])
def test_refused_keys_are_named(server, pair, key, message):
    alice, bucket = pair["alice"], pair["bucket"]
    statement = {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject",
                 "Resource": f"arn:aws:s3:::{bucket}/*",
                 "Condition": {"StringEquals": {key: "x"}}}
    with pytest.raises(ClientError) as e:
        put_policy(alice, bucket, statement)
    assert error_of(e) == ("MalformedPolicy", 400)
    assert e.value.response["Error"]["Message"] == message
    with pytest.raises(ClientError) as e:
        alice.s3.get_bucket_policy(Bucket=bucket)
    assert error_of(e) == ("NoSuchBucketPolicy", 404)
    # IAM PutUserPolicy refuses it alike.
    user_statement = dict(statement)
    del user_statement["Principal"]
    with pytest.raises(ClientError) as e:
        pair["iam"].put_user_policy(UserName=alice.name, PolicyName="p",
                                    PolicyDocument=policy(user_statement))
    assert error_of(e) == ("MalformedPolicyDocument", 400)
    assert e.value.response["Error"]["Message"] == message
