"""Runs last (file name order): greps the output of every cubby this pytest session started
(cubby_e2e appends it to a file in the build folder) for secrets. The only line allowed to hold
a secret is an ephemeral instance's JSON ready line on its stdout."""

import base64
import json
import os
import re

import boto3
import pytest

import cubby_e2e
import sse_e2e
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


# ---------------------------------------------------------------- key material (issue 16)

def _exercise_encryption(server, key, other):
    """SSE-C, SSE-S3 and SSE-KMS requests, good and failing, whose keys must not leak."""
    s3 = make_client(server)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="c", Body=b"v", **key.params())
    s3.get_object(Bucket=bucket, Key="c", **key.params())["Body"].read()
    s3.head_object(Bucket=bucket, Key="c", **key.params())
    for call, kw in ((s3.get_object, other.params()), (s3.head_object, other.params()),
                     (s3.get_object, {})):
        with pytest.raises(s3.exceptions.ClientError):
            call(Bucket=bucket, Key="c", **kw)
    bad_md5 = dict(key.headers(), **{sse_e2e.SSEC_MD5: other.md5_b64})
    assert cubby_e2e.raw_request(server, "GET", f"/{bucket}/c", headers=bad_md5).status == 400
    s3.copy_object(Bucket=bucket, Key="d", CopySource={"Bucket": bucket, "Key": "c"},
                   **other.params(), **key.copy_params())
    with pytest.raises(s3.exceptions.ClientError):
        s3.copy_object(Bucket=bucket, Key="e", CopySource={"Bucket": bucket, "Key": "c"},
                       **other.copy_params())
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key="mp", **key.params())["UploadId"]
    s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=1, Body=b"p",
                   **key.params())
    with pytest.raises(s3.exceptions.ClientError):
        s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=2, Body=b"p",
                       **other.params())
    s3.put_object(Bucket=bucket, Key="s", Body=b"v", ServerSideEncryption="AES256")
    s3.get_object(Bucket=bucket, Key="s")["Body"].read()
    kms = sse_e2e.make_kms(server)
    kms_key = kms.create_key()["KeyMetadata"]["KeyId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"v", ServerSideEncryption="aws:kms",
                  SSEKMSKeyId=kms_key)
    s3.get_object(Bucket=bucket, Key="k")["Body"].read()
    kms.disable_key(KeyId=kms_key)
    with pytest.raises(s3.exceptions.ClientError):
        s3.get_object(Bucket=bucket, Key="k")
    metrics = cubby_e2e.raw_request(server, "GET", "/_cubby/metrics", sign=False)
    assert metrics.status == 200
    return metrics.body.decode("utf-8", "replace")


def _key_forms(secrets_raw, texts):
    """Every printable form of the keys: base64 and hex of raw keys; texts as given and, when
    they are base64, the hex of what they decode to."""
    forms = set()
    for raw in secrets_raw:
        forms.add(base64.b64encode(raw).decode())
        forms.add(raw.hex())
        forms.add(raw.hex().upper())
    for text in texts:
        forms.add(text)
        try:
            forms.add(base64.b64decode(text, validate=True).hex())
        except ValueError:
            pass
    return forms


def test_no_key_material_in_server_output_or_metrics(start_server, cubby_bin, tmp_path):
    master_file = tmp_path / "master.key"
    master_text = base64.b64encode(os.urandom(32)).decode()
    master_file.write_text(master_text + "\n")
    os.chmod(master_file, 0o600)
    sse_e2e.MASTER_KEYS.add(master_text)
    srv = start_server(args=("--log-level", "debug", "--allow-sse-c-over-http",
                             "--master-key-file", str(master_file)))
    key, other = sse_e2e.new_ssec_key(), sse_e2e.new_ssec_key()
    metrics = [_exercise_encryption(srv, key, other)]
    # A generated master key (DATA_DIR/master.key), logs in JSON.
    json_srv = start_server(args=("--log-format", "json", "--log-level", "debug",
                                  "--allow-sse-c-over-http"))
    assert sse_e2e.remember_master_key(json_srv.data_dir), "no generated master.key"
    metrics.append(_exercise_encryption(json_srv, sse_e2e.new_ssec_key(),
                                        sse_e2e.new_ssec_key()))
    assert srv.stop() == 0 and json_srv.stop() == 0

    forms = _key_forms(sse_e2e.SSE_C_KEYS, sse_e2e.MASTER_KEYS)
    assert master_text in forms and key.b64 in forms
    for text in metrics:
        leaked = [f for f in forms if f in text]
        assert not leaked, "key material in /_cubby/metrics"
    path = cubby_e2e.server_log_path(cubby_bin)
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    leaks = [line for line in lines if any(f in line for f in forms)]
    # The line itself is not printed: it holds a key.
    assert not leaks, f"{len(leaks)} lines of {path} hold an SSE-C or master key"
