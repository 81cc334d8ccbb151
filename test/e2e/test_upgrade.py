"""Upgrades never strand data (issue 12): today's cubby opens the data folder of every earlier
format (test/fixtures/format<N>, written by the release of that format) with everything intact,
migrates it to the current format, survives a SIGKILL at any point of that migration, and
refuses a folder of a newer format with exit code 3, leaving it untouched.

Each fixture's manifest.json lists what the folder holds; the checks read it back through boto3
(root, anonymous and the COSI keys) and the COSI driver's gRPC service. From format 2 on a
manifest also lists IAM users and what they may do (keys "users", "user_buckets",
"user_objects", "user_in_progress", "access"; test/fixtures/make_fixture.py fill_users): the
checks read those back through boto3's IAM and S3 clients with each user's own keys. From format 3
on it also lists what a format-3 folder holds (FORMAT3_CHECKS; make_fixture.py fill_format3):
object versions and delete markers, object lock, tags, lifecycle and CORS rules, default
encryption, objects under SSE-S3, SSE-KMS and SSE-C, the built-in KMS's keys and aliases, and
bucket quotas, read back through boto3's S3 and KMS clients and the signed /_cubby/quota API."""

import base64
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tarfile
import time
import urllib.parse
import uuid

import boto3
import grpc
import pytest
from botocore.exceptions import ClientError

import cubby_e2e
import sse_e2e
from cubby_e2e import Server, make_client, raw_request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "cosi"))
from test_cosi_e2e import Cosi, wait_for_socket  # noqa: E402
# What the checks compare, converted as the recorder converted it when it wrote the manifest.
sys.path.insert(0, os.path.join(REPO, "test", "fixtures"))
from make_fixture import answer_or_error, grants_of, jsonable, root_client  # noqa: E402

# One per format up to today's (test/fixtures/README.md); the fixture of the current format opens
# without a migration.
FIXTURES = ["format0", "format1", "format2", "format3"]
CURRENT_FORMAT = "3"    # storage/format.h kFormatVersion
EXIT_FORMAT_TOO_NEW = 3
# The format-3 fixture holds an SSE-C object, which S3 (and cubby) read over HTTPS only.
SERVER_ARGS = ["--allow-sse-c-over-http"]
# The encryption headers of a GET that make_fixture.py records.
ENCRYPTION_HEADERS = ("ServerSideEncryption", "SSEKMSKeyId", "BucketKeyEnabled",
                      "SSECustomerAlgorithm", "SSECustomerKeyMD5")


def load_fixture(name, tmp_path):
    """Unpacks test/fixtures/<name> into tmp_path; returns (data dir, manifest)."""
    folder = os.path.join(REPO, "test", "fixtures", name)
    dest = tmp_path / name
    with tarfile.open(os.path.join(folder, "data.tar.gz")) as tar:
        tar.extractall(dest)
    with open(os.path.join(folder, "manifest.json")) as f:
        return dest / "data", json.load(f)


def format_of(tool, data_dir):
    out = subprocess.run([tool, "get", str(data_dir / "db")], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def snapshot(folder):
    """Every file under `folder` with the SHA-256 of its bytes, and every directory."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            out[os.path.relpath(os.path.join(root, d), folder)] = "dir"
        for f in files:
            path = os.path.join(root, f)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, folder)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def error_code(excinfo):
    return excinfo.value.response["Error"]["Code"]


def check_objects(s3, manifest):
    by_bucket = {}
    for obj in manifest["objects"] + [manifest["multipart"]]:
        by_bucket.setdefault(obj["bucket"], set()).add(obj["key"])
        got = s3.get_object(Bucket=obj["bucket"], Key=obj["key"])
        body = got["Body"].read()
        assert len(body) == obj["size"], obj["key"]
        assert hashlib.md5(body).hexdigest() == obj["md5"], obj["key"]
        assert got["ETag"] == obj["etag"], obj["key"]
        put = obj.get("put", {})
        assert got.get("Metadata", {}) == put.get("Metadata", {}), obj["key"]
        for field in ("ContentType", "CacheControl", "ContentDisposition"):
            if field in put:
                assert got[field] == put[field], (obj["key"], field)
    listed = {b["Name"] for b in s3.list_buckets()["Buckets"]}
    assert {b["name"] for b in manifest["buckets"]} <= listed
    for bucket, keys in by_bucket.items():
        pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        assert {o["Key"] for page in pages for o in page.get("Contents", [])} == keys, bucket


def check_upload_in_progress(s3, manifest):
    up = manifest["in_progress"]
    uploads = s3.list_multipart_uploads(Bucket=up["bucket"]).get("Uploads", [])
    assert [(u["Key"], u["UploadId"]) for u in uploads] == [(up["key"], up["upload_id"])]
    parts = s3.list_parts(Bucket=up["bucket"], Key=up["key"], UploadId=up["upload_id"])["Parts"]
    assert [(p["PartNumber"], p["ETag"], p["Size"]) for p in parts] == \
        [(p["PartNumber"], p["ETag"], p["size"]) for p in up["parts"]]


def check_anonymous_modes(srv, s3, manifest):
    """Each bucket's anonymous mode still holds: reads and writes allowed exactly as it says."""
    anon = make_client(srv, anonymous=True)
    some_key = {o["bucket"]: o["key"] for o in manifest["objects"]}
    for bucket in manifest["buckets"]:
        mode, name = bucket["anonymousAccessMode"], bucket["name"]
        if mode in ("ReadOnly", "ReadWrite"):
            anon.get_object(Bucket=name, Key=some_key[name])["Body"].read()
        else:
            with pytest.raises(ClientError) as e:
                anon.get_object(Bucket=name, Key=some_key[name])
            assert error_code(e) == "AccessDenied", name
        probe = f"anonymous-probe-{uuid.uuid4()}"
        if mode in ("WriteOnly", "ReadWrite"):
            anon.put_object(Bucket=name, Key=probe, Body=b"anon")
            s3.delete_object(Bucket=name, Key=probe)
        else:
            with pytest.raises(ClientError) as e:
                anon.put_object(Bucket=name, Key=probe, Body=b"anon")
            assert error_code(e) == "AccessDenied", name


def check_cosi_keys(srv, manifest):
    """The keys COSI issued still work, on their bucket only, with their access mode."""
    other = "fx-s3"
    for grant in manifest["grants"]:
        s3 = make_client(srv, access_key=grant["access_key"], secret_key=grant["secret_key"])
        bucket, mode = grant["bucket"], grant["accessMode"]
        probe = f"grant-probe-{uuid.uuid4()}"
        if mode in ("ReadWrite", "WriteOnly"):
            s3.put_object(Bucket=bucket, Key=probe, Body=b"grant")
            make_client(srv).delete_object(Bucket=bucket, Key=probe)
        else:
            with pytest.raises(ClientError) as e:
                s3.put_object(Bucket=bucket, Key=probe, Body=b"grant")
            assert error_code(e) == "AccessDenied"
        if mode in ("ReadWrite", "ReadOnly"):
            s3.list_objects_v2(Bucket=bucket)
        else:
            with pytest.raises(ClientError) as e:
                s3.list_objects_v2(Bucket=bucket)
            assert error_code(e) == "AccessDenied"
        with pytest.raises(ClientError) as e:
            s3.list_objects_v2(Bucket=other)
        assert error_code(e) == "AccessDenied"
        # Format 2: the key belongs to a user named after its grant, and lists its bucket only.
        listed = s3.list_buckets()
        assert listed["Owner"]["DisplayName"] == grant["name"]
        assert [b["Name"] for b in listed["Buckets"]] == [bucket]


def check_users(srv, manifest):
    """Format 2: the root key belongs to the user root, which owns every bucket of the folder,
    and each COSI key to a user named after its grant, as the IAM API shows them."""
    listed = make_client(srv).list_buckets()
    assert listed["Owner"]["DisplayName"] == "root"
    assert len(listed["Owner"]["ID"]) == 64
    assert {b["name"] for b in manifest["buckets"]} <= {b["Name"] for b in listed["Buckets"]}
    iam = boto3.session.Session(aws_access_key_id=srv.access_key,
                                aws_secret_access_key=srv.secret_key,
                                region_name="us-east-1").client("iam", endpoint_url=srv.endpoint)
    users = {u["UserName"]: u for u in iam.list_users()["Users"]}
    assert users["root"]["UserId"] == listed["Owner"]["ID"]
    assert [k["AccessKeyId"] for k in iam.list_access_keys()["AccessKeyMetadata"]] == \
        [manifest["root"]["access_key"]]
    for grant in manifest["grants"]:
        keys = iam.list_access_keys(UserName=grant["name"])["AccessKeyMetadata"]
        assert [(k["AccessKeyId"], k["Status"]) for k in keys] == [(grant["access_key"], "Active")]


def user_client(srv, manifest, who):
    """boto3 S3 for "anonymous", "<role>" (the user's first key) or "<role>#<key index>"."""
    if who == "anonymous":
        return make_client(srv, anonymous=True)
    role, _, index = who.partition("#")
    key = manifest["users"][role]["keys"][int(index or 0)]
    return make_client(srv, access_key=key["access_key"], secret_key=key["secret_key"])


def check_iam_users(srv, manifest):
    """Format 2: each user reads back through IAM as written (id, ARN, path, tags, keys and
    their status, inline policies); each Active key signs requests as its user, each Inactive
    one is refused; a user's e-mail address still resolves an ACL grant to the user."""
    # test_zz_secrets.py scans every server's output for these too.
    cubby_e2e.USER_SECRETS.update(k["secret_key"] for user in manifest["users"].values()
                                  for k in user["keys"])
    iam = root_client(srv, "iam")
    pages = iam.get_paginator("list_users").paginate()
    listed = {u["UserName"]: u for page in pages for u in page["Users"]}
    root = make_client(srv)
    for role, user in manifest["users"].items():
        name = user["name"]
        assert (listed[name]["UserId"], listed[name]["Arn"], listed[name]["Path"]) == \
            (user["user_id"], user["arn"], user["path"]), role
        got = iam.get_user(UserName=name)["User"]
        assert (got["UserId"], got["Arn"], got["Path"]) == \
            (user["user_id"], user["arn"], user["path"]), role
        assert got.get("Tags", []) == user["tags"], role
        assert iam.list_user_tags(UserName=name)["Tags"] == user["tags"], role
        keys = iam.list_access_keys(UserName=name)["AccessKeyMetadata"]
        assert sorted((k["AccessKeyId"], k["Status"]) for k in keys) == \
            sorted((k["access_key"], k["status"]) for k in user["keys"]), role
        assert iam.list_user_policies(UserName=name)["PolicyNames"] == sorted(user["policies"])
        for policy_name, document in user["policies"].items():
            got = iam.get_user_policy(UserName=name, PolicyName=policy_name)
            assert got["PolicyDocument"] == document, (role, policy_name)
        for index, key in enumerate(user["keys"]):
            s3 = user_client(srv, manifest, f"{role}#{index}")
            if key["status"] == "Active":
                assert s3.list_buckets()["Owner"] == {"ID": user["canonical_id"],
                                                      "DisplayName": name}, (role, index)
            else:
                with pytest.raises(ClientError) as e:
                    s3.list_buckets()
                assert (error_code(e), e.value.response["ResponseMetadata"]["HTTPStatusCode"]) \
                    == ("InvalidAccessKeyId", 403), (role, index)
        if user["email"]:
            # Addresses match without regard to case; the grant is stored as the user's id.
            probe = f"email-probe-{uuid.uuid4()}"
            root.put_object(Bucket="fx-s3", Key=probe, Body=b"for " + name.encode(),
                            GrantRead=f'emailAddress="{user["email"].lower()}"')
            try:
                grants = grants_of(root.get_object_acl(Bucket="fx-s3", Key=probe))["grants"]
                assert grants == [[user["canonical_id"], "READ"]], grants
                got = user_client(srv, manifest, role).get_object(Bucket="fx-s3", Key=probe)
                assert got["Body"].read() == b"for " + name.encode()
            finally:
                root.delete_object(Bucket="fx-s3", Key=probe)


def check_user_buckets(srv, manifest):
    """Format 2: users' buckets keep their owner, ACL, bucket policy, ownership controls and
    public access block, and their objects their bytes and ACLs."""
    root = make_client(srv)
    for bucket in manifest["user_buckets"]:
        name, owner = bucket["name"], manifest["users"][bucket["owner"]]
        owned = user_client(srv, manifest, bucket["owner"]).list_buckets()["Buckets"]
        assert name in [b["Name"] for b in owned], name
        assert grants_of(root.get_bucket_acl(Bucket=name)) == bucket["acl"], name
        assert bucket["acl"]["owner_id"] == owner["canonical_id"]
        rules = root.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"]
        assert rules == [{"ObjectOwnership": bucket["ownership"]}], name
        if bucket["policy"] is None:
            with pytest.raises(ClientError) as e:
                root.get_bucket_policy(Bucket=name)
            assert error_code(e) == "NoSuchBucketPolicy", name
        else:
            assert json.loads(root.get_bucket_policy(Bucket=name)["Policy"]) == bucket["policy"]
        if bucket["public_access_block"] is None:
            with pytest.raises(ClientError) as e:
                root.get_public_access_block(Bucket=name)
            assert error_code(e) == "NoSuchPublicAccessBlockConfiguration", name
        else:
            got = root.get_public_access_block(Bucket=name)["PublicAccessBlockConfiguration"]
            assert got == bucket["public_access_block"], name
    by_bucket = {}
    for obj in manifest["user_objects"]:
        by_bucket.setdefault(obj["bucket"], set()).add(obj["key"])
        got = root.get_object(Bucket=obj["bucket"], Key=obj["key"])
        body = got["Body"].read()
        assert (len(body), hashlib.md5(body).hexdigest(), got["ETag"]) == \
            (obj["size"], obj["md5"], obj["etag"]), obj["key"]
        acl = root.get_object_acl(Bucket=obj["bucket"], Key=obj["key"])
        assert grants_of(acl) == obj["acl"], obj["key"]
    for bucket, keys in by_bucket.items():
        listed = root.list_objects_v2(Bucket=bucket).get("Contents", [])
        assert {o["Key"] for o in listed} == keys, bucket


def user_access(srv, manifest, who, op, bucket, key):
    """One entry of the manifest's "access" as `who`: "ok" or the error code. The operations
    are make_fixture.py access()'s; a probe a successful put writes is deleted again."""
    s3 = user_client(srv, manifest, who)
    probe = f"probe-{uuid.uuid4()}"
    try:
        if op == "get":
            s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        elif op == "list":
            s3.list_objects_v2(Bucket=bucket)
        elif op == "put":
            s3.put_object(Bucket=bucket, Key=probe, Body=b"probe")
            make_client(srv).delete_object(Bucket=bucket, Key=probe)
        elif op == "get_bucket_acl":
            s3.get_bucket_acl(Bucket=bucket)
        elif op == "put_public_acl":
            s3.put_object_acl(Bucket=bucket, Key=key, ACL="public-read")
        elif op == "put_public_policy":
            s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({
                "Version": "2012-10-17", "Statement": [{
                    "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                    "Resource": f"arn:aws:s3:::{bucket}/*"}]}))
        elif op == "list_parts":
            s3.list_parts(Bucket=bucket, Key=key,
                          UploadId=manifest["user_in_progress"]["upload_id"])
        else:
            raise AssertionError(f"unknown operation {op!r} in the manifest")
    except ClientError as e:
        return e.response["Error"]["Code"]
    return "ok"


def check_user_access(srv, manifest):
    """Format 2: user policies, bucket policies, bucket and object ACLs, ownership controls and
    public access blocks still allow and deny exactly what they did when the fixture was made."""
    got = [user_access(srv, manifest, a["who"], a["op"], a["bucket"], a["key"])
           for a in manifest["access"]]
    expected = [a["expected"] for a in manifest["access"]]
    assert got == expected, [(a, g) for a, g in zip(manifest["access"], got)
                             if a["expected"] != g]


def check_user_upload(srv, manifest):
    """Format 2: the upload a user left in progress names that user as its Initiator."""
    up = manifest["user_in_progress"]
    initiator = manifest["users"][up["initiator"]]
    expected = {"ID": initiator["canonical_id"], "DisplayName": initiator["name"]}
    owner = next(b["owner"] for b in manifest["user_buckets"] if b["name"] == up["bucket"])
    uploads = user_client(srv, manifest, owner).list_multipart_uploads(
        Bucket=up["bucket"]).get("Uploads", [])
    assert [(u["Key"], u["UploadId"], u["Initiator"], u["Owner"]["ID"]) for u in uploads] == \
        [(up["key"], up["upload_id"], expected, initiator["canonical_id"])]
    parts = user_client(srv, manifest, up["initiator"]).list_parts(
        Bucket=up["bucket"], Key=up["key"], UploadId=up["upload_id"])
    assert parts["Initiator"] == expected
    assert [(p["PartNumber"], p["ETag"], p["Size"]) for p in parts["Parts"]] == \
        [(p["PartNumber"], p["ETag"], p["size"]) for p in up["parts"]]


def error_of(call):
    """Runs call(), which must fail: [error code, HTTP status], as the manifest records it."""
    with pytest.raises(ClientError) as e:
        call()
    return [error_code(e), e.value.response["ResponseMetadata"]["HTTPStatusCode"]]


def read_back(s3, entry, **where):
    """GETs an object the manifest lists (extra GET arguments in `where`): its bytes match the
    recorded size, MD5 and ETag; returns the answer."""
    got = s3.get_object(Bucket=entry["bucket"], Key=entry["key"], **where)
    body = got["Body"].read()
    assert (len(body), hashlib.md5(body).hexdigest(), got["ETag"]) == \
        (entry["size"], entry["md5"], entry["etag"]), (entry["key"], where)
    return got


def check_versions(srv, manifest):
    """Format 3: each key's versions list newest first with their sizes and ETags, only the
    last written is the latest, and each reads back by its id (a delete marker's id answers
    405); a key whose latest is a delete marker answers NoSuchKey; the buckets keep their
    versioning state and list exactly their current objects."""
    s3 = make_client(srv)
    for bucket, status in manifest["versioning"].items():
        assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == status, bucket
    current = {}
    for entry in manifest["versions"]:
        bucket, key, history = entry["bucket"], entry["key"], entry["versions"]
        listed = s3.list_object_versions(Bucket=bucket, Prefix=key)
        versions = [v for v in listed.get("Versions", []) if v["Key"] == key]
        markers = [m for m in listed.get("DeleteMarkers", []) if m["Key"] == key]
        newest_first = history[::-1]
        assert [(v["VersionId"], v["Size"], v["ETag"]) for v in versions] == \
            [(h["version_id"], h["size"], h["etag"]) for h in newest_first
             if not h["delete_marker"]], key
        assert [m["VersionId"] for m in markers] == \
            [h["version_id"] for h in newest_first if h["delete_marker"]], key
        assert [x["VersionId"] for x in versions + markers if x["IsLatest"]] == \
            [history[-1]["version_id"]], key
        for version in history:
            if version["delete_marker"]:
                assert error_of(lambda: s3.get_object(
                    Bucket=bucket, Key=key, VersionId=version["version_id"])) == \
                    ["MethodNotAllowed", 405], key
            else:
                got = read_back(s3, dict(version, bucket=bucket, key=key),
                                VersionId=version["version_id"])
                assert got["VersionId"] == version["version_id"], key
        if history[-1]["delete_marker"]:
            with pytest.raises(ClientError) as e:
                s3.get_object(Bucket=bucket, Key=key)
            assert error_code(e) == "NoSuchKey", key
            assert e.value.response["ResponseMetadata"]["HTTPHeaders"].get(
                "x-amz-delete-marker") == "true", key
        else:
            got = read_back(s3, dict(history[-1], bucket=bucket, key=key))
            assert got["VersionId"] == history[-1]["version_id"], key
            current.setdefault(bucket, set()).add(key)
    for bucket, keys in current.items():
        listed = s3.list_objects_v2(Bucket=bucket).get("Contents", [])
        assert {o["Key"] for o in listed} == keys, bucket


def check_object_lock(srv, manifest):
    """Format 3: the lock configuration, each version's retention (mode and date) and legal
    hold read back as written, and a locked version cannot be deleted (no bypass asked)."""
    s3 = make_client(srv)
    lock = manifest["object_lock"]
    bucket = lock["bucket"]
    assert s3.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"] == \
        lock["configuration"]
    for entry in lock["objects"]:
        where = {"Bucket": bucket, "Key": entry["key"], "VersionId": entry["version_id"]}
        read_back(s3, dict(entry, bucket=bucket), VersionId=entry["version_id"])
        assert answer_or_error(lambda: s3.get_object_retention(**where), "Retention") == \
            entry["retention"], entry["key"]
        assert answer_or_error(lambda: s3.get_object_legal_hold(**where), "LegalHold") == \
            entry["legal_hold"], entry["key"]
        if entry["locked"]:
            assert error_of(lambda: s3.delete_object(**where)) == entry["delete_refused"]
            s3.head_object(**where)  # still there


def tag_pairs(tag_set):
    """A TagSet as sorted (key, value) pairs: S3 gives tags no order."""
    return sorted((t["Key"], t["Value"]) for t in tag_set)


def check_tags(srv, manifest):
    """Format 3: object tags (each version's own) and bucket tags read back as written."""
    s3 = make_client(srv)
    for entry in manifest["object_tags"]:
        where = {"Bucket": entry["bucket"], "Key": entry["key"]}
        if entry["version_id"]:
            where["VersionId"] = entry["version_id"]
        got = s3.get_object_tagging(**where)
        assert tag_pairs(got["TagSet"]) == tag_pairs(entry["tags"]), where
    for bucket, tags in manifest["bucket_tags"].items():
        got = s3.get_bucket_tagging(Bucket=bucket)["TagSet"]
        assert tag_pairs(got) == tag_pairs(tags), bucket


def check_bucket_configurations(srv, manifest):
    """Format 3: lifecycle rules and CORS rules read back as written, and the lifecycle
    worker of the upgraded cubby expired nothing the rules do not select."""
    s3 = make_client(srv)
    for bucket, rules in manifest["lifecycle"].items():
        got = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
        assert jsonable(got) == rules, bucket
    for bucket, rules in manifest["cors"].items():
        assert s3.get_bucket_cors(Bucket=bucket)["CORSRules"] == rules, bucket
    for entry in manifest["configured_objects"]:
        body = s3.get_object(Bucket=entry["bucket"], Key=entry["key"])["Body"].read()
        assert (len(body), hashlib.md5(body).hexdigest()) == (entry["size"], entry["md5"])


def check_kms(srv, manifest):
    """Format 3: the built-in KMS lists the same keys, each with its ARN, description, state,
    manager and creation date, and the same aliases."""
    kms = root_client(srv, "kms")
    keys = manifest["kms"]["keys"]
    listed = {k["KeyId"] for p in kms.get_paginator("list_keys").paginate() for k in p["Keys"]}
    assert listed == {k["KeyId"] for k in keys.values()}
    for role, key in keys.items():
        meta = kms.describe_key(KeyId=key["KeyId"])["KeyMetadata"]
        assert jsonable({f: meta.get(f) for f in key}) == key, role
    aliases = sorted([[a["AliasName"], a["AliasArn"], a.get("TargetKeyId")]
                      for p in kms.get_paginator("list_aliases").paginate()
                      for a in p["Aliases"]])
    assert aliases == manifest["kms"]["aliases"]


def sse_c_read(entry):
    """GET arguments for an SSE-C object, with the key the manifest keeps (registered for
    the leak scan: no server output may hold it)."""
    key = sse_e2e.SsecKey(base64.b64decode(entry["sse_c_key"]))
    return key.params()


def check_encryption(srv, manifest):
    """Format 3: default encryption rules read back; each encrypted object reads back with its
    bytes, ETag and encryption headers (SSE-KMS: its key's ARN; SSE-C: with its key, and
    without it the error S3 answers); one under a disabled KMS key is refused as before."""
    s3 = make_client(srv)
    for bucket, config in manifest["bucket_encryption"].items():
        got = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]
        assert got == config, bucket
    keys = manifest["kms"]["keys"]
    by_bucket = {}
    for entry in manifest["encrypted_objects"]:
        by_bucket.setdefault(entry["bucket"], set()).add(entry["key"])
        if entry["kms_key"]:
            assert entry["headers"]["SSEKMSKeyId"] == keys[entry["kms_key"]]["Arn"]
        if "key_disabled" in entry:
            assert error_of(lambda: s3.get_object(Bucket=entry["bucket"], Key=entry["key"])) \
                == entry["key_disabled"], entry["key"]
            continue
        read = sse_c_read(entry) if entry["mode"] == "SSE-C" else {}
        got = read_back(s3, entry, **read)
        assert {h: got[h] for h in ENCRYPTION_HEADERS if h in got} == entry["headers"], \
            entry["key"]
        if "without_key" in entry:
            assert error_of(lambda: s3.get_object(Bucket=entry["bucket"], Key=entry["key"])) \
                == entry["without_key"], entry["key"]
    for bucket, keys_in_bucket in by_bucket.items():
        listed = s3.list_objects_v2(Bucket=bucket).get("Contents", [])
        assert {o["Key"] for o in listed} == keys_in_bucket, bucket


def enable_disabled_keys(srv, manifest):
    """Format 3: a disabled KMS key enabled again opens the objects written under it (its
    key material survived). Changes the folder: run after the checks."""
    kms = root_client(srv, "kms")
    s3 = make_client(srv)
    for role, key in manifest["kms"]["keys"].items():
        if key["KeyState"] == "Disabled":
            kms.enable_key(KeyId=key["KeyId"])
            for entry in manifest["encrypted_objects"]:
                if entry["kms_key"] == role:
                    read_back(s3, entry)


def quota_call(srv, method, bucket=None):
    query = "" if bucket is None else "bucket=" + urllib.parse.quote(bucket, safe="")
    r = raw_request(srv, method, "/_cubby/quota", query=query)
    assert r.status == 200, r
    return json.loads(r.body)


def check_quotas(srv, manifest):
    """Format 3: each bucket's quota and usage read back through the admin API, and the full
    bucket still refuses one more object, storing nothing."""
    listed = quota_call(srv, "GET")["buckets"]
    for quota in manifest["quotas"]:
        assert quota_call(srv, "GET", quota["bucket"]) == quota
        assert quota in listed, quota["bucket"]
    refusal = manifest["quota_refusal"]
    s3 = make_client(srv)
    assert error_of(lambda: s3.put_object(Bucket=refusal["bucket"], Key=refusal["key"],
                                          Body=b"refused")) == refusal["error"]
    with pytest.raises(ClientError) as e:
        s3.head_object(Bucket=refusal["bucket"], Key=refusal["key"])
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


# Format 3 on: a manifest key and the check of what it lists (each runs when the key is there).
FORMAT3_CHECKS = [
    ("versions", check_versions),
    ("object_lock", check_object_lock),
    ("object_tags", check_tags),
    ("lifecycle", check_bucket_configurations),
    ("kms", check_kms),
    ("encrypted_objects", check_encryption),
    ("quotas", check_quotas),
]


def check_intact(srv, manifest):
    check_users(srv, manifest)
    s3 = make_client(srv)
    check_objects(s3, manifest)
    check_upload_in_progress(s3, manifest)
    check_anonymous_modes(srv, s3, manifest)
    check_cosi_keys(srv, manifest)
    if "users" in manifest:  # fixtures of format 2 on
        check_iam_users(srv, manifest)
        check_user_buckets(srv, manifest)
        check_user_access(srv, manifest)
        check_user_upload(srv, manifest)
    for key, check in FORMAT3_CHECKS:
        if key in manifest:
            check(srv, manifest)


def check_cosi_records(cosi, manifest):
    """The driver still knows every bucket's parameters and every grant (the sidecar retries
    calls: a retry must get the same answer, and the same key, as before the upgrade)."""
    for bucket in manifest["buckets"]:
        params = {"anonymousAccessMode": bucket["anonymousAccessMode"],
                  "forceDelete": bucket["forceDelete"]}
        assert cosi.create(bucket["name"], **params).bucket_id == bucket["name"]
        changed = dict(params, forceDelete="true" if params["forceDelete"] == "false" else "false")
        with pytest.raises(grpc.RpcError) as e:
            cosi.create(bucket["name"], **changed)
        assert e.value.code() == grpc.StatusCode.ALREADY_EXISTS, bucket["name"]
    for grant in manifest["grants"]:
        again = cosi.grant(grant["bucket"], grant["name"], accessMode=grant["accessMode"])
        secrets = again.credentials["s3"].secrets
        assert (secrets["accessKeyID"], secrets["accessSecretKey"]) == \
            (grant["access_key"], grant["secret_key"])


def migration_lines(srv):
    return [line for line in srv.all_output().splitlines()
            if 'msg="migrating data folder"' in line or 'msg="data folder migrated"' in line]


@pytest.mark.parametrize("fixture", FIXTURES)
def test_fixture_opens_intact_and_is_migrated_once(fixture, cubby_bin, format_tool, tmp_path,
                                                   home):
    data_dir, manifest = load_fixture(fixture, tmp_path)
    assert format_of(format_tool, data_dir) == fixture.removeprefix("format")
    sock = tmp_path / "cosi.sock"
    env = {"COSI_ENDPOINT": f"unix://{sock}"}
    sse_e2e.remember_master_key(data_dir)  # for the leak scan, when the fixture has one
    srv = Server(cubby_bin, data_dir, home, args=SERVER_ARGS, env_extra=env).wait_ready()
    try:
        lines = migration_lines(srv)
        steps = int(CURRENT_FORMAT) - int(fixture.removeprefix("format"))
        assert len(lines) == 2 * steps, lines
        if steps > 0:  # the current format's fixture has nothing to migrate
            assert 'msg="migrating data folder"' in lines[0] and 'msg="data folder migrated"' \
                in lines[-1] and f"to_format={CURRENT_FORMAT}" in lines[-1], lines
        check_intact(srv, manifest)
        wait_for_socket(str(sock))
        cosi = Cosi(str(sock))
        check_cosi_records(cosi, manifest)
        cosi.close()
        # The upload left in progress can still be completed.
        up = manifest["in_progress"]
        done = make_client(srv).complete_multipart_upload(
            Bucket=up["bucket"], Key=up["key"], UploadId=up["upload_id"],
            MultipartUpload={"Parts": [{"PartNumber": p["PartNumber"], "ETag": p["ETag"]}
                                       for p in up["parts"]]})
        body = make_client(srv).get_object(Bucket=up["bucket"], Key=up["key"])["Body"].read()
        assert hashlib.md5(body).hexdigest() == up["md5"]
        manifest["objects"].append(dict(up, etag=done["ETag"]))
        if "user_in_progress" in manifest:
            # A user's upload is completed by that user, its initiator.
            up = manifest["user_in_progress"]
            s3 = user_client(srv, manifest, up["initiator"])
            s3.complete_multipart_upload(
                Bucket=up["bucket"], Key=up["key"], UploadId=up["upload_id"],
                MultipartUpload={"Parts": [{"PartNumber": p["PartNumber"], "ETag": p["ETag"]}
                                           for p in up["parts"]]})
            body = s3.get_object(Bucket=up["bucket"], Key=up["key"])["Body"].read()
            assert hashlib.md5(body).hexdigest() == up["md5"]
            acl = make_client(srv).get_object_acl(Bucket=up["bucket"], Key=up["key"])
            assert acl["Owner"]["ID"] == manifest["users"][up["initiator"]]["canonical_id"]
        if "kms" in manifest:
            enable_disabled_keys(srv, manifest)
    finally:
        assert srv.stop() == 0, srv.output()
    assert format_of(format_tool, data_dir) == CURRENT_FORMAT
    again = Server(cubby_bin, data_dir, home).wait_ready()
    try:
        assert migration_lines(again) == []  # nothing left to migrate
        check_objects(make_client(again), manifest)
        if "users" in manifest:
            check_iam_users(again, manifest)
    finally:
        assert again.stop() == 0, again.output()


def wait_stopped(pid, timeout=20.0):
    """Waits until the process is stopped (SIGSTOP): state T in /proc/<pid>/stat."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state == "T":
            return
        time.sleep(0.01)
    raise AssertionError(f"cubby pid {pid} never stopped at the migration")


# The process stops at the first step (0 → 1): before its batch the folder is still at 0, after
# it at 1, and the next start runs the steps left.
@pytest.mark.parametrize("point,format_after_kill", [("before", "0"), ("after", "1")])
def test_sigkill_during_migration_leaves_old_or_new_format(point, format_after_kill, cubby_bin,
                                                          format_tool, tmp_path, home):
    data_dir, manifest = load_fixture("format0", tmp_path)
    srv = Server(cubby_bin, data_dir, home, env_extra={"CUBBY_TEST_STOP_AT_MIGRATION": point})
    wait_stopped(srv.pid)
    srv.kill()
    assert srv.proc.returncode == -signal.SIGKILL
    assert format_of(format_tool, data_dir) == format_after_kill
    again = Server(cubby_bin, data_dir, home).wait_ready()
    try:
        steps_left = int(CURRENT_FORMAT) - int(format_after_kill)
        assert len(migration_lines(again)) == 2 * steps_left
        check_intact(again, manifest)
    finally:
        assert again.stop() == 0, again.output()
    assert format_of(format_tool, data_dir) == CURRENT_FORMAT


def test_sigkill_at_random_times_during_startup(cubby_bin, format_tool, tmp_path, home):
    """Kills at random moments of start-up, each on a fresh copy of the fixture: every copy
    opens afterwards, intact, at the current format."""
    rng = random.Random(12)
    for round_number in range(4):
        data_dir, manifest = load_fixture("format0", tmp_path / f"round{round_number}")
        srv = Server(cubby_bin, data_dir, home)
        time.sleep(rng.uniform(0.0, 0.4))  # the moment of the kill, not a wait for anything
        srv.kill()
        # Each step is atomic: the folder is at some format between the fixture's and today's.
        assert format_of(format_tool, data_dir) in [str(v) for v in range(int(CURRENT_FORMAT) + 1)]
        again = Server(cubby_bin, data_dir, home).wait_ready()
        try:
            check_objects(make_client(again), manifest)
        finally:
            assert again.stop() == 0, again.output()
        assert format_of(format_tool, data_dir) == CURRENT_FORMAT


def test_newer_format_is_refused_untouched(cubby_bin, format_tool, tmp_path, home):
    data_dir, _ = load_fixture("format0", tmp_path)
    newer = str(int(CURRENT_FORMAT) + 1)
    planted = subprocess.run([format_tool, "set", str(data_dir / "db"), newer],
                             capture_output=True, text=True, timeout=30)
    assert planted.returncode == 0, planted.stderr
    before = snapshot(data_dir)
    srv = Server(cubby_bin, data_dir, home)
    try:
        code = srv.proc.wait(30)
    finally:
        srv.kill()  # joins the output pumps; kills a cubby that did not refuse
    assert code == EXIT_FORMAT_TOO_NEW, srv.output()
    assert (f"data folder format {newer} is newer than this cubby supports ({CURRENT_FORMAT}); "
            "use a newer release") in srv.all_output()
    assert snapshot(data_dir) == before
