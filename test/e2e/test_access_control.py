"""Access control (issue 13) against the real binary with boto3 and three users made through
the IAM API: cross-user access is denied, then allowed by each mechanism (ACL grant by id, by
e-mail and by group, bucket policy, user policy); an explicit Deny beats an Allow; canned ACLs seen by an
anonymous, an authenticated and a third user; ACL XML round trips; ownership controls and
public access block; BucketAlreadyExists; expected bucket owner; policy conditions; and
MalformedPolicy."""

import json
import subprocess
import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import cubby_e2e
from cubby_e2e import client_env, make_client, new_bucket_name

USER_SECRETS = cubby_e2e.USER_SECRETS
ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTHENTICATED = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"


def iam_client(server):
    session = boto3.session.Session(aws_access_key_id=server.access_key,
                                    aws_secret_access_key=server.secret_key,
                                    region_name="us-east-1")
    cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("iam", endpoint_url=server.endpoint, config=cfg)


def error_of(excinfo):
    err = excinfo.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]


def denied(call):
    with pytest.raises(ClientError) as e:
        call()
    assert error_of(e) == ("AccessDenied", 403)


class User:
    def __init__(self, server, iam, name):
        self.name = name
        iam.create_user(UserName=name)
        key = iam.create_access_key(UserName=name)["AccessKey"]
        USER_SECRETS.add(key["SecretAccessKey"])
        self.access_key, self.secret_key = key["AccessKeyId"], key["SecretAccessKey"]
        self.s3 = make_client(server, self.access_key, self.secret_key)
        self.id = self.s3.list_buckets()["Owner"]["ID"]
        self.arn = iam.get_user(UserName=name)["User"]["Arn"]


@pytest.fixture
def world(server):
    iam = iam_client(server)
    suffix = uuid.uuid4().hex[:8]
    alice, bob, carol = (User(server, iam, f"{n}-{suffix}") for n in ("alice", "bob", "carol"))
    bucket = new_bucket_name()
    alice.s3.create_bucket(Bucket=bucket)
    alice.s3.put_object(Bucket=bucket, Key="doc", Body=b"alice's")
    return {"iam": iam, "alice": alice, "bob": bob, "carol": carol, "bucket": bucket,
            "anon": make_client(server, anonymous=True)}


def policy(*statements):
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def test_cross_user_denied_then_allowed_by_each_mechanism(world):
    alice, bob, carol, bucket = world["alice"], world["bob"], world["carol"], world["bucket"]
    denied(lambda: bob.s3.get_object(Bucket=bucket, Key="doc"))
    denied(lambda: bob.s3.list_objects_v2(Bucket=bucket))
    denied(lambda: bob.s3.get_bucket_acl(Bucket=bucket))
    denied(lambda: bob.s3.get_bucket_policy(Bucket=bucket))
    # Another user's missing key is AccessDenied too (nothing leaks).
    denied(lambda: bob.s3.get_object(Bucket=bucket, Key="missing"))

    # Object ACL grant by id.
    alice.s3.put_object_acl(Bucket=bucket, Key="doc", GrantRead=f'id="{bob.id}"')
    assert bob.s3.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"
    denied(lambda: carol.s3.get_object(Bucket=bucket, Key="doc"))
    # Bucket ACL grant by id: bob may list, and write.
    alice.s3.put_bucket_acl(Bucket=bucket, GrantRead=f"id={bob.id}",
                            GrantWrite=f"id={bob.id}", GrantFullControl=f"id={alice.id}")
    assert [o["Key"] for o in bob.s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["doc"]
    bob.s3.put_object(Bucket=bucket, Key="bobs", Body=b"b")
    # The writer owns its object: alice (the bucket owner) cannot read it without a grant.
    denied(lambda: alice.s3.get_object(Bucket=bucket, Key="bobs"))
    acl = bob.s3.get_object_acl(Bucket=bucket, Key="bobs")
    assert acl["Owner"]["ID"] == bob.id
    denied(lambda: carol.s3.list_objects_v2(Bucket=bucket))
    # Grant by group: AuthenticatedUsers READ lets carol list.
    alice.s3.put_bucket_acl(Bucket=bucket, GrantRead=f'uri="{AUTHENTICATED}"',
                            GrantFullControl=f"id={alice.id}")
    carol.s3.list_objects_v2(Bucket=bucket)
    denied(lambda: world["anon"].list_objects_v2(Bucket=bucket))
    # Grant by e-mail: no user has that address.
    with pytest.raises(ClientError) as e:
        alice.s3.put_bucket_acl(Bucket=bucket, GrantRead='emailAddress="nobody@example.com"')
    assert error_of(e) == ("UnresolvableGrantByEmailAddress", 400)
    alice.s3.put_bucket_acl(Bucket=bucket, ACL="private")
    denied(lambda: carol.s3.list_objects_v2(Bucket=bucket))

    # Bucket policy by the user's ARN.
    alice.s3.put_bucket_policy(Bucket=bucket, Policy=policy({
        "Effect": "Allow", "Principal": {"AWS": carol.arn}, "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*"}))
    assert carol.s3.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"
    denied(lambda: carol.s3.put_object(Bucket=bucket, Key="x", Body=b"x"))
    alice.s3.delete_bucket_policy(Bucket=bucket)
    denied(lambda: carol.s3.get_object(Bucket=bucket, Key="doc"))

    # User policy: carol's own policy allows reading alice's bucket.
    world["iam"].put_user_policy(UserName=carol.name, PolicyName="read", PolicyDocument=policy({
        "Effect": "Allow", "Action": ["s3:GetObject", "s3:ListBucket"],
        "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]}))
    assert carol.s3.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"
    carol.s3.list_objects_v2(Bucket=bucket)

    # An explicit Deny in the bucket policy beats carol's Allow, and the owner's own rights.
    alice.s3.put_bucket_policy(Bucket=bucket, Policy=policy({
        "Effect": "Deny", "Principal": "*", "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/doc"}))
    denied(lambda: carol.s3.get_object(Bucket=bucket, Key="doc"))
    denied(lambda: alice.s3.get_object(Bucket=bucket, Key="doc"))
    carol.s3.list_objects_v2(Bucket=bucket)


def test_grant_by_email(world, server, cubby_bin, home):
    """A user made with an e-mail address (`cubby user create --email`, IAM's CreateUser with
    cubby's EmailAddress) is granted by it, in a header and in ACL XML; the grant is stored and
    answered as the user's canonical id, as S3 does."""
    alice, bucket = world["alice"], world["bucket"]
    suffix = uuid.uuid4().hex[:8]
    name, address = f"dave-{suffix}", f"Dave.{suffix}@example.com"
    key, secret = f"DAVE{suffix.upper()}00000001", f"dave-secret-{suffix}"
    USER_SECRETS.add(secret)
    made = subprocess.run(
        [cubby_bin, "user", "create", "--endpoint", server.endpoint, "--name", name,
         "--access-key", key, "--secret-key", secret, "--email", address],
        env=client_env(server, home), capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    dave = make_client(server, key, secret)
    dave_id = dave.list_buckets()["Owner"]["ID"]
    denied(lambda: dave.get_object(Bucket=bucket, Key="doc"))

    # A header grant; the address matches without regard to case.
    alice.s3.put_object_acl(Bucket=bucket, Key="doc",
                            GrantRead=f'emailAddress="{address.lower()}"',
                            GrantFullControl=f'id="{alice.id}"')
    assert dave.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"
    grants = alice.s3.get_object_acl(Bucket=bucket, Key="doc")["Grants"]
    assert {"Type": "CanonicalUser", "ID": dave_id, "DisplayName": name} in [
        g["Grantee"] for g in grants if g["Permission"] == "READ"]
    denied(lambda: dave.list_objects_v2(Bucket=bucket))

    # An AmazonCustomerByEmail grantee in ACL XML.
    alice.s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy={
        "Grants": [
            {"Grantee": {"Type": "CanonicalUser", "ID": alice.id}, "Permission": "FULL_CONTROL"},
            {"Grantee": {"Type": "AmazonCustomerByEmail", "EmailAddress": address},
             "Permission": "READ"}],
        "Owner": {"ID": alice.id}})
    assert [o["Key"] for o in dave.list_objects_v2(Bucket=bucket)["Contents"]] == ["doc"]
    assert (dave_id, "READ") in [(g["Grantee"].get("ID"), g["Permission"])
                                 for g in alice.s3.get_bucket_acl(Bucket=bucket)["Grants"]]
    denied(lambda: world["carol"].s3.list_objects_v2(Bucket=bucket))

    # The address is the user's alone.
    taken = subprocess.run(
        [cubby_bin, "user", "create", "--endpoint", server.endpoint, "--name", f"x-{suffix}",
         "--email", address.upper()],
        env=client_env(server, home), capture_output=True, text=True, timeout=60)
    assert taken.returncode == 1 and "EntityAlreadyExists" in taken.stderr, taken.stderr


def test_multipart_initiator(world):
    """The user who starts an upload is its Initiator: it and the bucket owner may list its
    parts and abort it; another user with the same bucket WRITE grant may not."""
    alice, bob, carol, bucket = world["alice"], world["bob"], world["carol"], world["bucket"]
    alice.s3.put_bucket_acl(Bucket=bucket, GrantFullControl=f"id={alice.id}",
                            GrantWrite=f"id={bob.id},id={carol.id}")
    upload = bob.s3.create_multipart_upload(Bucket=bucket, Key="big")["UploadId"]
    bob.s3.upload_part(Bucket=bucket, Key="big", UploadId=upload, PartNumber=1, Body=b"p1")
    parts = bob.s3.list_parts(Bucket=bucket, Key="big", UploadId=upload)
    assert parts["Initiator"]["ID"] == bob.id and parts["Owner"]["ID"] == bob.id
    assert parts["Initiator"]["DisplayName"] == bob.name
    assert [p["PartNumber"] for p in parts["Parts"]] == [1]
    denied(lambda: carol.s3.list_parts(Bucket=bucket, Key="big", UploadId=upload))
    denied(lambda: carol.s3.abort_multipart_upload(Bucket=bucket, Key="big", UploadId=upload))
    uploads = alice.s3.list_multipart_uploads(Bucket=bucket)["Uploads"]
    assert [(u["UploadId"], u["Initiator"]["ID"], u["Owner"]["ID"]) for u in uploads] == [
        (upload, bob.id, bob.id)]
    assert alice.s3.list_parts(Bucket=bucket, Key="big", UploadId=upload)["Parts"]
    alice.s3.abort_multipart_upload(Bucket=bucket, Key="big", UploadId=upload)
    # bob aborts his own.
    second = bob.s3.create_multipart_upload(Bucket=bucket, Key="big")["UploadId"]
    bob.s3.abort_multipart_upload(Bucket=bucket, Key="big", UploadId=second)
    assert "Uploads" not in alice.s3.list_multipart_uploads(Bucket=bucket)


def test_canned_acls(world):
    alice, bob, anon = world["alice"], world["bob"], world["anon"]
    bucket = world["bucket"]
    cases = [
        # canned ACL, (anonymous, authenticated other user) may read the object
        ("private", False, False),
        ("public-read", True, True),
        ("public-read-write", True, True),
        ("authenticated-read", False, True),
        ("bucket-owner-read", False, False),
        ("bucket-owner-full-control", False, False),
    ]
    for canned, anon_reads, other_reads in cases:
        alice.s3.put_object(Bucket=bucket, Key=canned, Body=b"x", ACL=canned)
        for client, expected in ((anon, anon_reads), (bob.s3, other_reads)):
            if expected:
                assert client.get_object(Bucket=bucket, Key=canned)["Body"].read() == b"x"
            else:
                denied(lambda: client.get_object(Bucket=bucket, Key=canned))
    # Bucket canned ACLs: public-read-write lets anyone write and list, never read an object
    # without an ACL of its own; authenticated-read lists.
    alice.s3.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    anon.put_object(Bucket=bucket, Key="anon", Body=b"a")
    bob.s3.put_object(Bucket=bucket, Key="bobs", Body=b"b")
    assert {o["Key"] for o in anon.list_objects_v2(Bucket=bucket)["Contents"]} >= {"anon", "bobs"}
    for key in ("anon", "bobs", "private"):
        denied(lambda: anon.get_object(Bucket=bucket, Key=key))
    denied(lambda: world["carol"].s3.get_object(Bucket=bucket, Key="bobs"))
    denied(lambda: alice.s3.get_object(Bucket=bucket, Key="bobs"))  # bob's, private to bob
    grants = bob.s3.get_object_acl(Bucket=bucket, Key="bobs")["Grants"]
    assert [(g["Grantee"].get("ID"), g["Permission"]) for g in grants] == [(bob.id, "FULL_CONTROL")]
    alice.s3.put_bucket_acl(Bucket=bucket, ACL="authenticated-read")
    bob.s3.list_objects_v2(Bucket=bucket)
    denied(lambda: anon.list_objects_v2(Bucket=bucket))
    denied(lambda: anon.put_object(Bucket=bucket, Key="anon2", Body=b"a"))


def test_canned_and_header_grants_list_groups_first(world):
    """GetBucketAcl/GetObjectAcl list a canned ACL's or grant headers' group grants before the
    users' (as Ceph RGW does; clients and suites index them: Grants[2] of public-read-write is
    the owner's FULL_CONTROL). An AccessControlPolicy body keeps its own order
    (test_acl_xml_round_trip)."""
    alice, bob, bucket = world["alice"], world["bob"], world["bucket"]

    def listed(acl):
        return [(g["Grantee"].get("URI") or g["Grantee"].get("ID"), g["Permission"])
                for g in acl["Grants"]]

    alice.s3.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    got = alice.s3.get_bucket_acl(Bucket=bucket)
    assert listed(got) == [(ALL_USERS, "READ"), (ALL_USERS, "WRITE"), (alice.id, "FULL_CONTROL")]
    assert got["Grants"][2]["Grantee"]["ID"] == got["Owner"]["ID"]
    alice.s3.put_object(Bucket=bucket, Key="canned", Body=b"x", ACL="public-read")
    assert listed(alice.s3.get_object_acl(Bucket=bucket, Key="canned")) == \
        [(ALL_USERS, "READ"), (alice.id, "FULL_CONTROL")]
    alice.s3.put_object_acl(Bucket=bucket, Key="canned", GrantFullControl=f"id={alice.id}",
                            GrantRead=f'id={bob.id}, uri="{ALL_USERS}"')
    assert listed(alice.s3.get_object_acl(Bucket=bucket, Key="canned")) == \
        [(ALL_USERS, "READ"), (bob.id, "READ"), (alice.id, "FULL_CONTROL")]
    alice.s3.put_bucket_acl(Bucket=bucket, ACL="private")


def test_acl_xml_round_trip(world):
    alice, bob, bucket = world["alice"], world["bob"], world["bucket"]
    grants = [
        {"Grantee": {"Type": "CanonicalUser", "ID": alice.id}, "Permission": "FULL_CONTROL"},
        {"Grantee": {"Type": "CanonicalUser", "ID": bob.id}, "Permission": "READ_ACP"},
        {"Grantee": {"Type": "Group", "URI": ALL_USERS}, "Permission": "READ"},
    ]
    alice.s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy={
        "Grants": grants, "Owner": {"ID": alice.id}})
    got = alice.s3.get_bucket_acl(Bucket=bucket)
    assert got["Owner"]["ID"] == alice.id
    assert got["Owner"]["DisplayName"] == alice.name
    assert [(g["Grantee"].get("ID") or g["Grantee"].get("URI"), g["Permission"])
            for g in got["Grants"]] == [(alice.id, "FULL_CONTROL"), (bob.id, "READ_ACP"),
                                        (ALL_USERS, "READ")]
    assert bob.s3.get_bucket_acl(Bucket=bucket)["Owner"]["ID"] == alice.id  # READ_ACP
    alice.s3.put_object_acl(Bucket=bucket, Key="doc", AccessControlPolicy={
        "Grants": grants[:2], "Owner": {"ID": alice.id}})
    got = alice.s3.get_object_acl(Bucket=bucket, Key="doc")
    assert [g["Permission"] for g in got["Grants"]] == ["FULL_CONTROL", "READ_ACP"]
    # An ACL cannot give the bucket away, and bad XML is MalformedACLError.
    with pytest.raises(ClientError) as e:
        alice.s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy={
            "Grants": grants, "Owner": {"ID": bob.id}})
    assert error_of(e) == ("AccessDenied", 403)
    with pytest.raises(ClientError) as e:
        alice.s3.put_bucket_acl(Bucket=bucket, ACL="private", GrantRead=f"id={bob.id}")
    assert error_of(e)[0] == "InvalidRequest"


def test_ownership_controls_and_public_access_block(world):
    alice, bob, anon, bucket = world["alice"], world["bob"], world["anon"], world["bucket"]
    got = alice.s3.get_bucket_ownership_controls(Bucket=bucket)
    assert got["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "ObjectWriter"}]
    alice.s3.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={
        "Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]})
    with pytest.raises(ClientError) as e:
        alice.s3.put_object(Bucket=bucket, Key="p", Body=b"x", ACL="public-read")
    assert error_of(e) == ("AccessControlListNotSupported", 400)
    alice.s3.put_object(Bucket=bucket, Key="p", Body=b"x", ACL="bucket-owner-full-control")
    alice.s3.delete_bucket_ownership_controls(Bucket=bucket)
    # A bucket ACL granting others refuses BucketOwnerEnforced.
    alice.s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    with pytest.raises(ClientError) as e:
        alice.s3.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={
            "Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]})
    assert error_of(e) == ("InvalidBucketAclWithObjectOwnership", 400)
    alice.s3.put_bucket_acl(Bucket=bucket, ACL="private")

    with pytest.raises(ClientError) as e:
        alice.s3.get_public_access_block(Bucket=bucket)
    assert error_of(e) == ("NoSuchPublicAccessBlockConfiguration", 404)
    alice.s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "BlockPublicAcls": True, "IgnorePublicAcls": False, "BlockPublicPolicy": True,
        "RestrictPublicBuckets": False})
    got = alice.s3.get_public_access_block(Bucket=bucket)["PublicAccessBlockConfiguration"]
    assert got == {"BlockPublicAcls": True, "IgnorePublicAcls": False,
                   "BlockPublicPolicy": True, "RestrictPublicBuckets": False}
    denied(lambda: alice.s3.put_object(Bucket=bucket, Key="q", Body=b"x", ACL="public-read"))
    denied(lambda: alice.s3.put_bucket_policy(Bucket=bucket, Policy=policy({
        "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*"})))
    # IgnorePublicAcls: an object made public earlier stops being readable.
    alice.s3.delete_public_access_block(Bucket=bucket)
    alice.s3.put_object_acl(Bucket=bucket, Key="doc", ACL="public-read")
    assert anon.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"
    alice.s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "IgnorePublicAcls": True})
    denied(lambda: anon.get_object(Bucket=bucket, Key="doc"))
    denied(lambda: bob.s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "IgnorePublicAcls": False}))


def test_bucket_exists_and_expected_owner(world):
    alice, bob, bucket = world["alice"], world["bob"], world["bucket"]
    with pytest.raises(ClientError) as e:
        bob.s3.create_bucket(Bucket=bucket)
    assert error_of(e) == ("BucketAlreadyExists", 409)
    alice.s3.head_bucket(Bucket=bucket, ExpectedBucketOwner=alice.id)
    with pytest.raises(ClientError) as e:
        alice.s3.get_object(Bucket=bucket, Key="doc", ExpectedBucketOwner=bob.id)
    assert error_of(e) == ("AccessDenied", 403)
    mine = new_bucket_name()
    bob.s3.create_bucket(Bucket=mine)
    alice.s3.put_bucket_acl(Bucket=bucket, GrantRead=f"id={bob.id}",
                            GrantFullControl=f"id={alice.id}")
    alice.s3.put_object_acl(Bucket=bucket, Key="doc", GrantRead=f"id={bob.id}")
    with pytest.raises(ClientError) as e:
        bob.s3.copy_object(Bucket=mine, Key="c", CopySource={"Bucket": bucket, "Key": "doc"},
                           ExpectedSourceBucketOwner=bob.id)
    assert error_of(e) == ("AccessDenied", 403)
    bob.s3.copy_object(Bucket=mine, Key="c", CopySource={"Bucket": bucket, "Key": "doc"},
                       ExpectedSourceBucketOwner=alice.id)


def test_policy_conditions(world):
    alice, bob, bucket = world["alice"], world["bob"], world["bucket"]
    alice.s3.put_object(Bucket=bucket, Key="home/bob/f", Body=b"f")

    def set_policy(*statements):
        alice.s3.put_bucket_policy(Bucket=bucket, Policy=policy(*statements))

    # Source IP: the test client is 127.0.0.1.
    for cidr, allowed in (("127.0.0.0/8", True), ("10.0.0.0/8", False)):
        set_policy({"Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:GetObject",
                    "Resource": f"arn:aws:s3:::{bucket}/*",
                    "Condition": {"IpAddress": {"aws:SourceIp": cidr}}})
        if allowed:
            bob.s3.get_object(Bucket=bucket, Key="doc")
        else:
            denied(lambda: bob.s3.get_object(Bucket=bucket, Key="doc"))
    # Prefix: bob may list his home folder only.
    set_policy({"Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:ListBucket",
                "Resource": f"arn:aws:s3:::{bucket}",
                "Condition": {"StringLike": {"s3:prefix": "home/${aws:username}/*"}}})
    denied(lambda: bob.s3.list_objects_v2(Bucket=bucket, Prefix="home/bob/"))  # name differs
    set_policy({"Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:ListBucket",
                "Resource": f"arn:aws:s3:::{bucket}",
                "Condition": {"StringLike": {"s3:prefix": "home/*"}}})
    assert bob.s3.list_objects_v2(Bucket=bucket, Prefix="home/")["KeyCount"] == 1
    denied(lambda: bob.s3.list_objects_v2(Bucket=bucket, Prefix="etc/"))
    denied(lambda: bob.s3.list_objects_v2(Bucket=bucket))
    # Secure transport: this server is plain HTTP, so a Deny on insecure requests applies to all.
    set_policy({"Effect": "Allow", "Principal": {"AWS": bob.arn}, "Action": "s3:GetObject",
                "Resource": f"arn:aws:s3:::{bucket}/*"},
               {"Effect": "Deny", "Principal": "*", "Action": "s3:*",
                "Resource": [f"arn:aws:s3:::{bucket}/*"],
                "Condition": {"Bool": {"aws:SecureTransport": "false"}}})
    denied(lambda: bob.s3.get_object(Bucket=bucket, Key="doc"))
    denied(lambda: alice.s3.get_object(Bucket=bucket, Key="doc"))
    assert json.loads(alice.s3.get_bucket_policy(Bucket=bucket)["Policy"])["Statement"][1][
        "Effect"] == "Deny"
    status = alice.s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]
    assert status["IsPublic"] is False


@pytest.mark.parametrize("document,message", [
    ("not json", "Policies must be valid JSON and the first byte must be '{'"),
    ('{"Version":"2012-10-17"}', "Missing required field Statement"),
    ('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",'
     '"Action":"s3:GetObject","Resource":"arn:aws:s3:::other-bucket/*"}]}',
     "Policy has invalid resource"),
    ('{"Version":"2012-10-17","Statement":[{"Effect":"Allow",'
     '"Action":"s3:GetObject","Resource":"arn:aws:s3:::BUCKET/*"}]}',
     "Missing required field Principal"),
])
def test_malformed_policy(world, document, message):
    alice, bucket = world["alice"], world["bucket"]
    with pytest.raises(ClientError) as e:
        alice.s3.put_bucket_policy(Bucket=bucket, Policy=document.replace("BUCKET", bucket))
    assert error_of(e) == ("MalformedPolicy", 400)
    assert e.value.response["Error"]["Message"] == message
    with pytest.raises(ClientError) as e:
        alice.s3.get_bucket_policy(Bucket=bucket)
    assert error_of(e) == ("NoSuchBucketPolicy", 404)


def test_public_policy_status_and_anonymous(world):
    alice, anon, bucket = world["alice"], world["anon"], world["bucket"]
    denied(lambda: anon.get_object(Bucket=bucket, Key="doc"))
    alice.s3.put_bucket_policy(Bucket=bucket, Policy=policy({
        "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
        "Resource": f"arn:aws:s3:::{bucket}/*"}))
    assert alice.s3.get_bucket_policy_status(Bucket=bucket)["PolicyStatus"]["IsPublic"] is True
    assert anon.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"
    denied(lambda: anon.put_object(Bucket=bucket, Key="x", Body=b"x"))
    alice.s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "RestrictPublicBuckets": True})
    denied(lambda: anon.get_object(Bucket=bucket, Key="doc"))
    assert alice.s3.get_object(Bucket=bucket, Key="doc")["Body"].read() == b"alice's"


def test_user_policy_for_iam_calls(world, server):
    iam, bob = world["iam"], world["bob"]
    iam.put_user_policy(UserName=bob.name, PolicyName="iam", PolicyDocument=policy({
        "Effect": "Allow", "Action": "iam:ListUsers", "Resource": "*"}))
    key = iam.create_access_key(UserName=bob.name)["AccessKey"]
    USER_SECRETS.add(key["SecretAccessKey"])
    session = boto3.session.Session(aws_access_key_id=key["AccessKeyId"],
                                    aws_secret_access_key=key["SecretAccessKey"],
                                    region_name="us-east-1")
    bob_iam = session.client("iam", endpoint_url=server.endpoint,
                             config=Config(retries={"total_max_attempts": 1}))
    assert bob.name in [u["UserName"] for u in bob_iam.list_users()["Users"]]
    with pytest.raises(ClientError) as e:
        bob_iam.create_user(UserName=f"x-{uuid.uuid4().hex[:6]}")
    assert error_of(e) == ("AccessDenied", 403)


def test_ownership_request_errors(world, server):
    alice, bucket = world["alice"], world["bucket"]
    bad = cubby_e2e.raw_request(server, "PUT", "/" + new_bucket_name(),
                                headers={"x-amz-object-ownership": "Owner"})
    assert (bad.status, bad.code) == (400, "InvalidArgument")
    for query, body, code in (
            ("ownershipControls", b"<OwnershipControls><Rule/></OwnershipControls>", "MalformedXML"),
            ("publicAccessBlock", b"<Nope/>", "MalformedXML")):
        resp = cubby_e2e.raw_request(server, "PUT", "/" + bucket, query=query, body=body)
        assert (resp.status, resp.code) == (400, code), resp
    name = new_bucket_name()
    alice.s3.create_bucket(Bucket=name, ObjectOwnership="BucketOwnerEnforced")
    got = alice.s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"]
    assert got == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    with pytest.raises(ClientError) as e:
        alice.s3.create_bucket(Bucket=new_bucket_name(), ObjectOwnership="BucketOwnerEnforced",
                               ACL="public-read")
    assert error_of(e) == ("InvalidBucketAclWithObjectOwnership", 400)


def test_default_object_ownership_setting(start_server):
    srv = start_server(env_extra={"CUBBY_DEFAULT_OBJECT_OWNERSHIP": "BucketOwnerEnforced"})
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    got = s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"]
    assert got == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=name, Key="k", Body=b"x", ACL="public-read")
    assert error_of(e) == ("AccessControlListNotSupported", 400)
