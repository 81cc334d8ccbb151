"""Bucket operations through boto3 and raw signed requests."""

import datetime

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import make_client, new_bucket_name, raw_request


def error_of(excinfo):
    err = excinfo.value.response["Error"]
    status = excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]
    return err.get("Code"), status


def test_create_list_head_delete(s3):
    names = sorted(new_bucket_name() for _ in range(3))
    before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)
    for name in reversed(names):
        resp = s3.create_bucket(Bucket=name)
        assert resp["ResponseMetadata"]["HTTPStatusCode"] == 200
        assert resp["Location"] == f"/{name}"

    listed = s3.list_buckets()
    assert [b["Name"] for b in listed["Buckets"]] == names  # sorted by name
    assert listed["Owner"]["ID"]
    for b in listed["Buckets"]:
        assert before <= b["CreationDate"] <= before + datetime.timedelta(minutes=3)

    for name in names:
        head = s3.head_bucket(Bucket=name)
        assert head["ResponseMetadata"]["HTTPStatusCode"] == 200

    resp = s3.delete_bucket(Bucket=names[1])
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [names[0], names[2]]
    with pytest.raises(ClientError) as e:
        s3.head_bucket(Bucket=names[1])
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_list_buckets_empty(s3):
    assert s3.list_buckets()["Buckets"] == []


def test_head_missing_bucket_is_404_without_body(server):
    resp = raw_request(server, "HEAD", "/" + new_bucket_name())
    assert resp.status == 404
    assert resp.body == b""
    assert resp.header("x-amz-request-id")


def test_delete_missing_bucket(s3):
    with pytest.raises(ClientError) as e:
        s3.delete_bucket(Bucket=new_bucket_name())
    assert error_of(e) == ("NoSuchBucket", 404)


def test_delete_non_empty_bucket(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    with pytest.raises(ClientError) as e:
        s3.delete_bucket(Bucket=bucket)
    assert error_of(e) == ("BucketNotEmpty", 409)
    s3.head_bucket(Bucket=bucket)  # still there
    s3.delete_object(Bucket=bucket, Key="k")
    s3.delete_bucket(Bucket=bucket)
    assert s3.list_buckets()["Buckets"] == []


def test_recreate_after_delete(s3):
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="old", Body=b"1")
    s3.delete_object(Bucket=name, Key="old")
    s3.delete_bucket(Bucket=name)
    s3.create_bucket(Bucket=name)
    assert s3.list_objects_v2(Bucket=name)["KeyCount"] == 0


def test_create_existing_bucket_outside_us_east_1(start_server):
    # us-east-1 answers 200 for legacy reasons; every other region says BucketAlreadyOwnedByYou.
    # https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html
    srv = start_server(args=["--region", "eu-west-1"], region="eu-west-1")
    s3 = make_client(srv)
    name = new_bucket_name()
    cfg = {"LocationConstraint": "eu-west-1"}
    s3.create_bucket(Bucket=name, CreateBucketConfiguration=cfg)
    with pytest.raises(ClientError) as e:
        s3.create_bucket(Bucket=name, CreateBucketConfiguration=cfg)
    assert error_of(e) == ("BucketAlreadyOwnedByYou", 409)
    assert s3.get_bucket_location(Bucket=name)["LocationConstraint"] == "eu-west-1"


def test_get_bucket_location_us_east_1_is_empty(s3, bucket):
    # us-east-1 buckets report an empty LocationConstraint.
    assert s3.get_bucket_location(Bucket=bucket).get("LocationConstraint") in (None, "")


def test_get_bucket_location_missing_bucket(s3):
    with pytest.raises(ClientError) as e:
        s3.get_bucket_location(Bucket=new_bucket_name())
    assert error_of(e) == ("NoSuchBucket", 404)


def test_get_bucket_versioning_never_enabled(s3, bucket):
    resp = s3.get_bucket_versioning(Bucket=bucket)
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert "Status" not in resp
    assert "MFADelete" not in resp


@pytest.mark.parametrize("name", [
    "abc",
    "a" * 63,
    "0bucket",
    "my.bucket.name",
    "a-b-c",
    "1-2.3",
])
def test_valid_bucket_names(server, name):
    resp = raw_request(server, "PUT", "/" + name)
    assert resp.status == 200, resp
    assert raw_request(server, "HEAD", "/" + name).status == 200


# https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
@pytest.mark.parametrize("name", [
    "ab",                 # too short
    "a" * 64,             # too long
    "UpperCase",          # upper case
    "under_score",        # underscore
    "-startdash",         # must begin with a letter or digit
    "enddash-",           # must end with a letter or digit
    ".startdot",
    "enddot.",
    "two..dots",          # adjacent periods
    "192.168.1.1",        # formatted as an IP address
    "xn--punycode",       # reserved prefix
    "sthree-bucket",      # reserved prefix
    "bucket-s3alias",     # reserved suffix
    "bucket--ol-s3",      # reserved suffix
    "spa%20ce",           # space (percent-encoded on the wire)
])
def test_invalid_bucket_names(server, name):
    resp = raw_request(server, "PUT", "/" + name)
    assert resp.status == 400, resp
    assert resp.code == "InvalidBucketName"
    assert raw_request(server, "GET", "/").body.count(b"<Bucket>") == 0


def test_bucket_acl_default_private(s3, bucket):
    acl = s3.get_bucket_acl(Bucket=bucket)
    owner_id = acl["Owner"]["ID"]
    assert owner_id
    grants = acl["Grants"]
    assert len(grants) == 1
    assert grants[0]["Permission"] == "FULL_CONTROL"
    assert grants[0]["Grantee"]["Type"] == "CanonicalUser"
    assert grants[0]["Grantee"]["ID"] == owner_id


ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"


def _all_users_permissions(acl):
    return sorted(g["Permission"] for g in acl["Grants"]
                  if g["Grantee"].get("URI") == ALL_USERS)


@pytest.mark.parametrize("canned,expected", [
    ("public-read", ["READ"]),
    ("public-read-write", ["READ", "WRITE"]),
    ("private", []),
])
def test_put_bucket_acl_canned(s3, bucket, canned, expected):
    s3.put_bucket_acl(Bucket=bucket, ACL=canned)
    acl = s3.get_bucket_acl(Bucket=bucket)
    assert _all_users_permissions(acl) == expected
    owner_grants = [g for g in acl["Grants"] if g["Grantee"].get("ID") == acl["Owner"]["ID"]]
    assert [g["Permission"] for g in owner_grants] == ["FULL_CONTROL"]


def test_create_bucket_with_canned_acl(s3):
    name = new_bucket_name()
    s3.create_bucket(Bucket=name, ACL="public-read")
    assert _all_users_permissions(s3.get_bucket_acl(Bucket=name)) == ["READ"]


def test_bucket_acl_back_to_private(s3, bucket):
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    s3.put_bucket_acl(Bucket=bucket, ACL="private")
    assert _all_users_permissions(s3.get_bucket_acl(Bucket=bucket)) == []


def test_get_bucket_acl_missing_bucket(s3):
    with pytest.raises(ClientError) as e:
        s3.get_bucket_acl(Bucket=new_bucket_name())
    assert error_of(e) == ("NoSuchBucket", 404)


def test_bucket_ops_survive_restart(start_server, tmp_path):
    data = tmp_path / "persist"
    data.mkdir()
    srv = start_server(data_dir=data)
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    s3.put_bucket_acl(Bucket=name, ACL="public-read")
    s3.put_object(Bucket=name, Key="k", Body=b"persisted")
    assert srv.stop() == 0

    srv2 = start_server(data_dir=data)
    s3 = make_client(srv2)
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [name]
    assert s3.get_object(Bucket=name, Key="k")["Body"].read() == b"persisted"
    assert _all_users_permissions(s3.get_bucket_acl(Bucket=name)) == ["READ"]


def test_create_bucket_malformed_xml(server):
    name = new_bucket_name()
    resp = raw_request(server, "PUT", "/" + name, body=b"<CreateBucketConfiguration><Loc")
    assert resp.status == 400, resp
    assert resp.code == "MalformedXML"
    assert raw_request(server, "HEAD", "/" + name).status == 404


def test_unknown_canned_acl(server, s3, bucket):
    resp = raw_request(server, "PUT", f"/{bucket}", query="acl", headers={"x-amz-acl": "bogus"})
    assert resp.status == 400, resp
    assert resp.code == "InvalidArgument"
    assert _all_users_permissions(s3.get_bucket_acl(Bucket=bucket)) == []


def test_put_bucket_acl_with_policy_document(s3, bucket):
    acl = s3.get_bucket_acl(Bucket=bucket)
    owner = acl["Owner"]
    s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy={
        "Owner": owner,
        "Grants": [
            {"Grantee": {"Type": "CanonicalUser", "ID": owner["ID"]}, "Permission": "FULL_CONTROL"},
            {"Grantee": {"Type": "Group", "URI": ALL_USERS}, "Permission": "READ"},
        ]})
    assert _all_users_permissions(s3.get_bucket_acl(Bucket=bucket)) == ["READ"]


def test_head_bucket_reports_region(server, bucket):
    # HeadBucket answers with the bucket's region (SDKs rely on it to pick the signing region).
    resp = raw_request(server, "HEAD", f"/{bucket}")
    assert resp.status == 200
    assert resp.header("x-amz-bucket-region") == "us-east-1"
