"""One Authorizer for every front door: a user's inline policies grant (and deny) IAM, KMS and
cubby's admin actions (cubby:*) as they grant S3 ones, with the same condition keys. Driven
with boto3 (IAM, KMS) and signed raw requests (the /_cubby/ endpoints)."""

import json
import urllib.parse
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from cubby_e2e import make_client, new_bucket_name, raw_request
from test_access_control import User, error_of, iam_client, policy
from test_kms_api import kms_client


@pytest.fixture
def iam(server):
    return iam_client(server)


def new_user(server, iam, statements):
    user = User(server, iam, f"door-{uuid.uuid4().hex[:8]}")
    if statements:
        iam.put_user_policy(UserName=user.name, PolicyName="p", PolicyDocument=policy(*statements))
    return user


def kms_code(call):
    with pytest.raises(ClientError) as e:
        call()
    return error_of(e)


def test_kms_actions_follow_user_policies(server, iam):
    root_kms = kms_client(server)
    mine = root_kms.create_key()["KeyMetadata"]
    other = root_kms.create_key()["KeyMetadata"]
    root_kms.create_alias(AliasName="alias/door-mine", TargetKeyId=mine["KeyId"])
    user = new_user(server, iam, [
        {"Effect": "Allow", "Action": ["kms:ListKeys", "kms:CreateKey"], "Resource": "*"},
        {"Effect": "Allow", "Action": ["kms:DescribeKey", "kms:DisableKey"],
         "Resource": mine["Arn"]},
        {"Effect": "Deny", "Action": "kms:CreateKey", "Resource": "*"},
    ])
    kms = kms_client(server, user.access_key, user.secret_key)

    assert mine["KeyId"] in [k["KeyId"] for k in kms.list_keys()["Keys"]]
    for name in (mine["KeyId"], mine["Arn"]):
        assert kms.describe_key(KeyId=name)["KeyMetadata"]["KeyId"] == mine["KeyId"]
    kms.disable_key(KeyId=mine["KeyId"])
    assert root_kms.describe_key(KeyId=mine["KeyId"])["KeyMetadata"]["Enabled"] is False
    # Another key, an action not granted, an alias (its ARN is not the key's), an explicit Deny.
    assert kms_code(lambda: kms.describe_key(KeyId=other["KeyId"])) == (
        "AccessDeniedException", 400)
    assert kms_code(lambda: kms.enable_key(KeyId=mine["KeyId"])) == ("AccessDeniedException", 400)
    assert kms_code(lambda: kms.describe_key(KeyId="alias/door-mine")) == (
        "AccessDeniedException", 400)
    assert kms_code(lambda: kms.create_key()) == ("AccessDeniedException", 400)
    assert kms_code(lambda: kms.list_aliases()) == ("AccessDeniedException", 400)
    # A user without policies may call nothing.
    bare = new_user(server, iam, [])
    assert kms_code(lambda: kms_client(server, bare.access_key, bare.secret_key).list_keys()) == (
        "AccessDeniedException", 400)


def test_iam_actions_read_condition_keys(server, iam):
    local = new_user(server, iam, [{"Effect": "Allow", "Action": "iam:GetUser", "Resource": "*",
                                    "Condition": {"IpAddress": {"aws:SourceIp": "127.0.0.1/32"}}}])
    remote = new_user(server, iam, [{"Effect": "Allow", "Action": "iam:GetUser", "Resource": "*",
                                     "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}])
    own = new_user(server, iam, [{"Effect": "Allow", "Action": "iam:GetUser",
                                  "Resource": "*",
                                  "Condition": {"StringEquals": {"aws:username": "someone"}}}])

    def get_user(user):
        return iam_client_for(server, user).get_user(UserName=user.name)["User"]["UserName"]

    assert get_user(local) == local.name
    for user in (remote, own):
        with pytest.raises(ClientError) as e:
            get_user(user)
        assert error_of(e) == ("AccessDenied", 403)


def iam_client_for(server, user):
    session = boto3.session.Session(aws_access_key_id=user.access_key,
                                    aws_secret_access_key=user.secret_key,
                                    region_name="us-east-1")
    return session.client("iam", endpoint_url=server.endpoint,
                          config=Config(retries={"total_max_attempts": 1}))


def admin(server, user, method, path, bucket=None, body=b"", extra=""):
    query = "&".join(q for q in ("" if bucket is None else
                                 "bucket=" + urllib.parse.quote(bucket, safe=""), extra) if q)
    return raw_request(server, method, path, query=query, body=body,
                       access_key=user.access_key, secret_key=user.secret_key)


def refused(r):
    """An admin endpoint's 403 AccessDenied (JSON; /_cubby/backup answers S3's XML)."""
    code = r.code if r.body.startswith(b"<") else json.loads(r.body)["code"]
    return r.status == 403 and code == "AccessDenied"


def test_admin_endpoints_follow_user_policies(server, iam):
    s3 = make_client(server)
    mine, other = new_bucket_name(), new_bucket_name()
    s3.create_bucket(Bucket=mine)
    s3.create_bucket(Bucket=other)
    user = new_user(server, iam, [
        {"Effect": "Allow", "Action": ["cubby:GetBucketQuota", "cubby:PutBucketQuota"],
         "Resource": f"arn:aws:s3:::{mine}"},
        {"Effect": "Allow", "Action": "cubby:GetAclAudit", "Resource": "*"},
        {"Effect": "Deny", "Action": "cubby:PutBucketQuota", "Resource": "*",
         "Condition": {"Bool": {"aws:SecureTransport": "false"}}},
    ])
    r = admin(server, user, "GET", "/_cubby/quota", mine)
    assert r.status == 200 and json.loads(r.body)["bucket"] == mine, r
    # PUT is allowed on the bucket but denied over plain HTTP; another bucket, every bucket, a
    # DELETE and the backup endpoint are not granted.
    r = admin(server, user, "PUT", "/_cubby/quota", mine, body=b'{"bytes": 10}')
    assert refused(r), r
    for method, bucket in (("GET", other), ("GET", None), ("DELETE", mine)):
        r = admin(server, user, method, "/_cubby/quota", bucket)
        assert refused(r), (method, bucket, r)
    r = admin(server, user, "GET", "/_cubby/backup")
    assert refused(r), r
    # The audit: GET allowed (any bucket), the reset is another action.
    r = admin(server, user, "GET", "/_cubby/acl-audit", mine)
    assert r.status == 200 and json.loads(r.body)["buckets"][0]["bucket"] == mine, r
    r = admin(server, user, "POST", "/_cubby/acl-audit", mine, extra="reset")
    assert refused(r), r


def test_policies_name_only_known_kms_and_cubby_actions(server, iam):
    user = new_user(server, iam, [])
    for action in ("kms:*", "kms:Describe*", "cubby:*", "cubby:GetBucketQuota"):
        iam.put_user_policy(UserName=user.name, PolicyName="ok", PolicyDocument=policy(
            {"Effect": "Allow", "Action": action, "Resource": "*"}))
    for action in ("kms:NoSuchAction", "cubby:NoSuchAction"):
        with pytest.raises(ClientError) as e:
            iam.put_user_policy(UserName=user.name, PolicyName="bad", PolicyDocument=policy(
                {"Effect": "Allow", "Action": action, "Resource": "*"}))
        assert error_of(e) == ("MalformedPolicyDocument", 400)
