"""Object versioning through boto3 and the aws cli: Put/GetBucketVersioning, version ids on
writes, reads and deletes by version id, delete markers and undelete, the null version across
Enabled -> Suspended, ListObjectVersions with its markers, DeleteObjects with version ids,
CopyObject from a version, and a versioned bucket that refuses DeleteBucket until it is empty.
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html"""

import json
import os
import subprocess

import botocore.exceptions
import pytest

from cubby_e2e import make_client


def err(excinfo):
    r = excinfo.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


def enable(s3, bucket, status="Enabled"):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": status})


def all_versions(s3, bucket, **kwargs):
    """(versions, delete markers) of every page."""
    versions, markers = [], []
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, **kwargs):
        versions += page.get("Versions", [])
        markers += page.get("DeleteMarkers", [])
    return versions, markers


def test_versioning_state_round_trip(s3, bucket):
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket)
    enable(s3, bucket)
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    enable(s3, bucket, "Suspended")
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Suspended"
    enable(s3, bucket)
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"


def test_versioning_errors(s3, anon, bucket):
    # A bucket never goes back to unversioned; MFA delete cannot be enabled without a device.
    for body in [b"<VersioningConfiguration><Status>Off</Status></VersioningConfiguration>",
                 b"<VersioningConfiguration><Bogus/></VersioningConfiguration>", b"<nope"]:
        with pytest.raises(botocore.exceptions.ClientError) as e:
            _raw_put_versioning(s3, bucket, body)
        assert err(e) == ("MalformedXML", 400), body
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={
            "Status": "Enabled", "MFADelete": "Enabled"})
    assert err(e)[0] == "AccessDenied"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        enable(s3, "no-such-bucket-v1")
    assert err(e) == ("NoSuchBucket", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        enable(anon, bucket)
    assert err(e) == ("AccessDenied", 403)
    assert "Status" not in s3.get_bucket_versioning(Bucket=bucket)  # nothing changed


def _raw_put_versioning(s3, bucket, body):
    """PutBucketVersioning with a body boto3 would not build."""
    def replace_body(request, **_):
        request.data = body
        request.headers["Content-Length"] = str(len(body))
        for name in ("Content-MD5", "x-amz-checksum-crc32", "x-amz-sdk-checksum-algorithm"):
            if name in request.headers:
                del request.headers[name]
    s3.meta.events.register_first("before-sign.s3.PutBucketVersioning", replace_body)
    try:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    finally:
        s3.meta.events.unregister("before-sign.s3.PutBucketVersioning", replace_body)


def test_writes_make_versions_and_reads_name_them(s3, bucket):
    enable(s3, bucket)
    ids = [s3.put_object(Bucket=bucket, Key="k", Body=f"v{i}".encode())["VersionId"]
           for i in range(3)]
    assert len(set(ids)) == 3 and all(ids) and "null" not in ids
    got = s3.get_object(Bucket=bucket, Key="k")
    assert (got["Body"].read(), got["VersionId"]) == (b"v2", ids[2])
    for i, vid in enumerate(ids):
        got = s3.get_object(Bucket=bucket, Key="k", VersionId=vid)
        assert (got["Body"].read(), got["VersionId"]) == (f"v{i}".encode(), vid)
        assert s3.head_object(Bucket=bucket, Key="k", VersionId=vid)["ContentLength"] == 2
    versions, markers = all_versions(s3, bucket)
    assert [(v["Key"], v["VersionId"], v["IsLatest"]) for v in versions] == \
        [("k", ids[2], True), ("k", ids[1], False), ("k", ids[0], False)]
    assert markers == []
    # ListObjects shows only the current version.
    listed = s3.list_objects_v2(Bucket=bucket)["Contents"]
    assert [(o["Key"], o["Size"]) for o in listed] == [("k", 2)]


def unknown_id(vid):
    """A well-formed version id that names no version: vid with its last digit changed."""
    return vid[:-1] + ("1" if vid[-1] == "0" else "0")


def test_version_id_errors(s3, bucket):
    enable(s3, bucket)
    vid = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key="k", VersionId="not-a-version")
    assert err(e) == ("InvalidArgument", 400)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key="k", VersionId=unknown_id(vid))
    assert err(e) == ("NoSuchVersion", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key="other", VersionId=vid)
    assert err(e) == ("NoSuchVersion", 404)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.head_object(Bucket=bucket, Key="k", VersionId=unknown_id(vid))
    assert err(e)[1] == 404
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.delete_object(Bucket=bucket, Key="k", VersionId="not-a-version")
    assert err(e) == ("InvalidArgument", 400)


def test_delete_marker_and_undelete(s3, bucket):
    enable(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"one")["VersionId"]
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    assert deleted["DeleteMarker"] is True
    marker = deleted["VersionId"]
    assert marker and marker != v1
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key="k")
    assert err(e) == ("NoSuchKey", 404)
    headers = e.value.response["ResponseMetadata"]["HTTPHeaders"]
    assert headers["x-amz-delete-marker"] == "true"
    assert headers["x-amz-version-id"] == marker
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.head_object(Bucket=bucket, Key="k")
    assert e.value.response["ResponseMetadata"]["HTTPHeaders"]["x-amz-delete-marker"] == "true"
    # A delete marker named by version id: 405.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key="k", VersionId=marker)
    assert err(e) == ("MethodNotAllowed", 405)
    assert s3.list_objects_v2(Bucket=bucket).get("Contents", []) == []
    versions, markers = all_versions(s3, bucket)
    assert [(m["VersionId"], m["IsLatest"]) for m in markers] == [(marker, True)]
    assert [(v["VersionId"], v["IsLatest"]) for v in versions] == [(v1, False)]
    # The old version still reads by id; removing the marker brings it back.
    assert s3.get_object(Bucket=bucket, Key="k", VersionId=v1)["Body"].read() == b"one"
    gone = s3.delete_object(Bucket=bucket, Key="k", VersionId=marker)
    assert gone["DeleteMarker"] is True and gone["VersionId"] == marker
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"one"
    # Deleting the current version by id for good: the key is gone with no marker.
    s3.delete_object(Bucket=bucket, Key="k", VersionId=v1)
    assert all_versions(s3, bucket) == ([], [])


def test_null_version_across_suspend(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"before")  # written unversioned: null version
    enable(s3, bucket)
    assert s3.head_object(Bucket=bucket, Key="k")["VersionId"] == "null"
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"enabled")["VersionId"]
    enable(s3, bucket, "Suspended")
    put = s3.put_object(Bucket=bucket, Key="k", Body=b"suspended-1")
    assert put.get("VersionId", "null") == "null"
    # A second suspended write replaces the null version; v1 stays.
    s3.put_object(Bucket=bucket, Key="k", Body=b"suspended-2")
    versions, _ = all_versions(s3, bucket)
    assert [(v["VersionId"], v["IsLatest"]) for v in versions] == [("null", True), (v1, False)]
    assert s3.get_object(Bucket=bucket, Key="k", VersionId="null")["Body"].read() == \
        b"suspended-2"
    assert s3.get_object(Bucket=bucket, Key="k", VersionId=v1)["Body"].read() == b"enabled"
    # A suspended delete makes a null delete marker, which replaces the null version.
    deleted = s3.delete_object(Bucket=bucket, Key="k")
    assert deleted["DeleteMarker"] is True and deleted.get("VersionId", "null") == "null"
    versions, markers = all_versions(s3, bucket)
    assert [v["VersionId"] for v in versions] == [v1]
    assert [(m["VersionId"], m["IsLatest"]) for m in markers] == [("null", True)]


def test_list_object_versions_pages_with_markers(s3, bucket):
    enable(s3, bucket)
    expected = []
    for key in ["a", "b/1", "b/2", "c"]:
        ids = [s3.put_object(Bucket=bucket, Key=key, Body=b"x" * n)["VersionId"]
               for n in range(3)]
        expected += [(key, vid) for vid in reversed(ids)]
    s3.delete_object(Bucket=bucket, Key="c")
    # Two entries a page, every page followed by its markers.
    seen, kwargs, pages = [], {}, 0
    while True:
        page = s3.list_object_versions(Bucket=bucket, MaxKeys=2, **kwargs)
        pages += 1
        entries = [(e["Key"], e["VersionId"], "marker" if "ETag" not in e else "version")
                   for e in page.get("Versions", []) + page.get("DeleteMarkers", [])]
        assert len(entries) <= 2
        seen += entries
        if not page["IsTruncated"]:
            break
        kwargs = {"KeyMarker": page["NextKeyMarker"],
                  "VersionIdMarker": page["NextVersionIdMarker"]}
    assert pages == 7
    assert sorted(seen) == sorted([(k, v, "version") for k, v in expected] +
                                  [(e[0], e[1], "marker") for e in seen if e[2] == "marker"])
    assert len([e for e in seen if e[2] == "marker"]) == 1
    # Prefix and delimiter.
    page = s3.list_object_versions(Bucket=bucket, Delimiter="/")
    assert [p["Prefix"] for p in page["CommonPrefixes"]] == ["b/"]
    assert {v["Key"] for v in page["Versions"]} == {"a", "c"}
    page = s3.list_object_versions(Bucket=bucket, Prefix="b/")
    assert [v["Key"] for v in page["Versions"]] == ["b/1"] * 3 + ["b/2"] * 3
    # A version-id marker needs a key marker.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.list_object_versions(Bucket=bucket, VersionIdMarker=expected[0][1])
    assert err(e) == ("InvalidArgument", 400)


def test_delete_objects_with_version_ids(s3, bucket):
    enable(s3, bucket)
    a1 = s3.put_object(Bucket=bucket, Key="a", Body=b"1")["VersionId"]
    a2 = s3.put_object(Bucket=bucket, Key="a", Body=b"2")["VersionId"]
    s3.put_object(Bucket=bucket, Key="b", Body=b"1")
    r = s3.delete_objects(Bucket=bucket, Delete={"Objects": [
        {"Key": "a", "VersionId": a1}, {"Key": "b"}, {"Key": "a", "VersionId": unknown_id(a2)},
        {"Key": "a", "VersionId": "bad"}]})
    deleted = {(d["Key"], d.get("VersionId")): d for d in r["Deleted"]}
    assert set(deleted) == {("a", a1), ("b", None), ("a", unknown_id(a2))}
    assert deleted[("b", None)]["DeleteMarker"] is True
    assert deleted[("b", None)]["DeleteMarkerVersionId"]
    assert [(e["Key"], e["Code"]) for e in r["Errors"]] == [("a", "InvalidArgument")]
    versions, markers = all_versions(s3, bucket)
    assert [(v["Key"], v["VersionId"]) for v in versions] == [("a", a2), ("b", versions[1]["VersionId"])]
    assert [m["Key"] for m in markers] == ["b"]


def test_copy_from_a_version_restores_it(s3, bucket):
    enable(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"old")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"new")
    r = s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k",
                                                           "VersionId": v1})
    assert r["CopySourceVersionId"] == v1
    assert r["VersionId"] not in (v1, None)
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"old"
    assert len(all_versions(s3, bucket)[0]) == 3
    # REPLACE onto itself in a versioned bucket is a new version too.
    r2 = s3.copy_object(Bucket=bucket, Key="k", CopySource={"Bucket": bucket, "Key": "k"},
                        MetadataDirective="REPLACE", Metadata={"m": "1"})
    assert r2["VersionId"] != r["VersionId"]
    assert len(all_versions(s3, bucket)[0]) == 4
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "k",
                                                           "VersionId": marker})
    assert err(e) == ("InvalidRequest", 400)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="x", CopySource={"Bucket": bucket, "Key": "k"})
    assert err(e) == ("NoSuchKey", 404)


def test_multipart_complete_returns_a_version(s3, bucket):
    enable(s3, bucket)
    up = s3.create_multipart_upload(Bucket=bucket, Key="mp")
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up["UploadId"], PartNumber=1,
                          Body=b"p" * 100)
    done = s3.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=up["UploadId"],
        MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    assert done["VersionId"] == s3.head_object(Bucket=bucket, Key="mp")["VersionId"]


def test_object_acl_of_a_version(s3, anon, bucket):
    enable(s3, bucket)
    v1 = s3.put_object(Bucket=bucket, Key="k", Body=b"old")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"new")
    s3.put_object_acl(Bucket=bucket, Key="k", VersionId=v1, ACL="public-read")
    grants = s3.get_object_acl(Bucket=bucket, Key="k", VersionId=v1)["Grants"]
    assert any(g["Grantee"].get("URI", "").endswith("AllUsers") for g in grants)
    current = s3.get_object_acl(Bucket=bucket, Key="k")["Grants"]
    assert not any(g["Grantee"].get("URI", "").endswith("AllUsers") for g in current)
    assert anon.get_object(Bucket=bucket, Key="k", VersionId=v1)["Body"].read() == b"old"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        anon.get_object(Bucket=bucket, Key="k")
    assert err(e) == ("AccessDenied", 403)


def test_delete_bucket_needs_every_version_gone(s3, bucket):
    enable(s3, bucket)
    vid = s3.put_object(Bucket=bucket, Key="k", Body=b"x")["VersionId"]
    marker = s3.delete_object(Bucket=bucket, Key="k")["VersionId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.delete_bucket(Bucket=bucket)
    assert err(e) == ("BucketNotEmpty", 409)
    s3.delete_object(Bucket=bucket, Key="k", VersionId=vid)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.delete_bucket(Bucket=bucket)  # the marker is left
    assert err(e) == ("BucketNotEmpty", 409)
    s3.delete_object(Bucket=bucket, Key="k", VersionId=marker)
    s3.delete_bucket(Bucket=bucket)


def test_aws_cli_empties_a_versioned_bucket(server, s3, bucket, tmp_path):
    """The aws cli's list-object-versions, delete-objects with version ids and delete-bucket."""
    enable(s3, bucket)
    for i in range(3):
        s3.put_object(Bucket=bucket, Key=f"k{i % 2}", Body=b"x")
    s3.delete_object(Bucket=bucket, Key="k0")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=server.access_key,
               AWS_SECRET_ACCESS_KEY=server.secret_key, AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=str(tmp_path / "none"), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"))
    env.pop("AWS_CA_BUNDLE", None)
    env.pop("AWS_PROFILE", None)

    def aws(*args):
        out = subprocess.run(["aws", "--endpoint-url", server.endpoint, "s3api", *args],
                             env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout) if out.stdout.strip() else {}

    listed = aws("list-object-versions", "--bucket", bucket)
    objects = [{"Key": v["Key"], "VersionId": v["VersionId"]}
               for v in listed.get("Versions", []) + listed.get("DeleteMarkers", [])]
    assert len(objects) == 4
    out = subprocess.run(["aws", "--endpoint-url", server.endpoint, "s3api", "delete-bucket",
                          "--bucket", bucket], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "BucketNotEmpty" in out.stderr
    result = aws("delete-objects", "--bucket", bucket, "--delete",
                 json.dumps({"Objects": objects}))
    assert len(result["Deleted"]) == 4 and "Errors" not in result
    assert aws("list-object-versions", "--bucket", bucket).get("Versions") is None
    aws("delete-bucket", "--bucket", bucket)
    assert bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_versions_survive_a_restart(start_server, tmp_path):
    srv = start_server()
    s3 = make_client(srv)
    s3.create_bucket(Bucket="vr-bucket")
    enable(s3, "vr-bucket")
    ids = [s3.put_object(Bucket="vr-bucket", Key="k", Body=f"{i}".encode())["VersionId"]
           for i in range(3)]
    marker = s3.delete_object(Bucket="vr-bucket", Key="k")["VersionId"]
    assert srv.stop() == 0
    srv2 = start_server(data_dir=srv.data_dir)
    s3 = make_client(srv2)
    assert s3.get_bucket_versioning(Bucket="vr-bucket")["Status"] == "Enabled"
    versions, markers = all_versions(s3, "vr-bucket")
    assert [v["VersionId"] for v in versions] == list(reversed(ids))
    assert [m["VersionId"] for m in markers] == [marker]
