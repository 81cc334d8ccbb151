"""Provokes the requests whose secrets must not leak and greps the server output for them
(leak_scan.py; conftest.py checks every server's output again when the session ends)."""

import base64
import os

import boto3
import pytest

import cubby_e2e
import leak_scan
import sse_e2e
from appliance import Endpoint, start_ephemeral
from cubby_e2e import make_client, new_bucket_name

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
    cubby_e2e.USER_SECRETS.add(key["SecretAccessKey"])
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

    lines = leak_scan.server_output(cubby_bin)
    assert len(lines) > 20
    leaks, secrets = leak_scan.secret_leaks(lines)
    assert ready["secret_access_key"] in secrets
    assert not leaks, "secrets in server output:\n" + "\n".join(leaks[:20])


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

    forms = leak_scan.key_forms()
    assert master_text in forms and key.b64 in forms
    for text in metrics:
        leaked = [f for f in forms if f in text]
        assert not leaked, "key material in /_cubby/metrics"
    leaks = leak_scan.key_material_leaks(leak_scan.server_output(cubby_bin), forms)
    # The line itself is not printed: it holds a key.
    assert not leaks, f"{len(leaks)} server output lines hold an SSE-C or master key"
