"""Runs last (file name order): greps the output of every cubby this pytest session started
(cubby_e2e appends it to a file in the build folder) for secrets. The only line allowed to hold
a secret is an ephemeral instance's JSON ready line on its stdout."""

import json
import os
import re

import boto3
import pytest

import cubby_e2e
from appliance import Endpoint, start_ephemeral
from cubby_e2e import make_client, new_bucket_name

# Every user secret the session's tests handed out (test_iam.py adds to it too).
USER_SECRETS = cubby_e2e.USER_SECRETS

FORBIDDEN = [
    re.compile(r"Signature=[0-9a-fA-F]{8}"),  # header or presigned URL signature
    re.compile(r"X-Amz-Signature", re.I),
    re.compile(r"AWS4-HMAC-SHA256\s+Credential=", re.I),
    re.compile(r"Authorization\s*[:=]\s*\S", re.I),
    re.compile(r"X-Amz-Credential=", re.I),
]


def _exercise(server, tmp_path):
    """Requests whose secrets must not leak: signed, presigned, and failing signatures."""
    s3 = make_client(server)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    url = cubby_e2e.presign_url(server, "GET", f"/{bucket}/k")
    assert cubby_e2e.get_url(server, url).status == 200
    bad = make_client(server, secret_key="wrong" + cubby_e2e.ROOT_SECRET_KEY[5:])
    with pytest.raises(bad.exceptions.ClientError):
        bad.list_buckets()
    r = cubby_e2e.raw_request(server, "GET", "/", sign=False,
                              headers={"Authorization": "AWS4-HMAC-SHA256 Credential=x/y, "
                                                        "SignedHeaders=host, Signature=" + "ab" * 32})
    assert r.status in (400, 403)
    # Users' secrets (issue 13): made by the IAM API, used, refused once Inactive.
    iam = boto3.session.Session(aws_access_key_id=server.access_key,
                                aws_secret_access_key=server.secret_key,
                                region_name="us-east-1").client("iam", endpoint_url=server.endpoint)
    name = "secrets-" + bucket
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    USER_SECRETS.add(key["SecretAccessKey"])
    user = make_client(server, key["AccessKeyId"], key["SecretAccessKey"])
    user.list_buckets()
    iam.update_access_key(UserName=name, AccessKeyId=key["AccessKeyId"], Status="Inactive")
    with pytest.raises(user.exceptions.ClientError):
        user.list_buckets()


def test_no_secret_in_any_server_output(start_server, cubby_bin, tmp_path, home):
    # This test's own servers guarantee the log is not empty even when run alone.
    srv = start_server(args=("--log-level", "debug"))
    _exercise(srv, tmp_path)
    json_srv = start_server(args=("--log-format", "json", "--log-level", "debug"))
    _exercise(json_srv, tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    p, ready = start_ephemeral(cubby_bin, tmpdir, home=home, args=["--log-level", "debug"])
    try:
        ep = Endpoint(ready["s3_endpoint"], ready["access_key_id"], ready["secret_access_key"])
        make_client(ep).list_buckets()
    finally:
        assert p.stop() == 0
    assert srv.stop() == 0 and json_srv.stop() == 0

    path = cubby_e2e.server_log_path(cubby_bin)
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    assert len(lines) > 20, path
    secrets = {cubby_e2e.ROOT_SECRET_KEY} | USER_SECRETS
    allowed = set()
    for i, line in enumerate(lines):
        body = line.split("] ", 1)[1] if "] " in line else line
        if " stdout] {\"ready\":true" in line:
            secrets.add(json.loads(body)["secret_access_key"])
            allowed.add(i)
    assert ready["secret_access_key"] in secrets
    leaks = []
    for i, line in enumerate(lines):
        if i in allowed:
            continue
        if any(s in line for s in secrets) or any(p.search(line) for p in FORBIDDEN):
            leaks.append(line)
    assert not leaks, f"secrets in server output ({path}):\n" + "\n".join(leaks[:20])
