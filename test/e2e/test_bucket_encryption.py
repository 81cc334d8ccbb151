"""Bucket default encryption (issue 16): Put/Get/DeleteBucketEncryption with boto3, each refusal
(raw requests for what boto3 will not send), the IAM actions they ask, and the server's
--default-encryption setting changing what GetBucketEncryption answers. Whether objects end up
encrypted is test_sse*.py's."""

import base64
import hashlib
import json
import subprocess
import uuid

import boto3
import botocore.exceptions
import pytest
from botocore.config import Config

import cubby_e2e
from cubby_e2e import base_env, make_client, new_bucket_name, raw_request

NOT_FOUND = ("ServerSideEncryptionConfigurationNotFoundError",
             "The server side encryption configuration was not found")
AES256_RULE = {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"},
               "BucketKeyEnabled": False}
NS = "http://s3.amazonaws.com/doc/2006-03-01/"


def error_of(excinfo):
    err = excinfo.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]


def put_rules(s3, bucket, rules):
    return s3.put_bucket_encryption(Bucket=bucket,
                                    ServerSideEncryptionConfiguration={"Rules": rules})


def put_raw(server, bucket, body, md5=True):
    headers = {}
    if md5:
        headers["Content-MD5"] = base64.b64encode(hashlib.md5(body).digest()).decode()
    return raw_request(server, "PUT", f"/{bucket}", query="encryption", body=body, headers=headers)


def kms_client(server):
    session = boto3.session.Session(aws_access_key_id=server.access_key,
                                    aws_secret_access_key=server.secret_key,
                                    region_name="us-east-1")
    cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("kms", endpoint_url=server.endpoint, config=cfg)


def kms_or_none(server):
    """The server's KMS API (issue 16's built-in key store) when it serves one, else None."""
    kms = kms_client(server)
    try:
        kms.list_keys()
    except botocore.exceptions.ClientError:
        return None
    return kms


def a_kms_key_id(server):
    """A key id an aws:kms rule may name: a real key when the server has a KMS (PutBucketEncryption
    then checks it), else any id (stored as given)."""
    kms = kms_or_none(server)
    if kms is None:
        return "arn:aws:kms:us-east-1:000000000000:key/11111111-2222-3333-4444-555555555555"
    return kms.create_key(Description="bucket default")["KeyMetadata"]["Arn"]


def test_get_without_configuration_is_404(s3, bucket):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_encryption(Bucket=bucket)
    assert error_of(e) == (NOT_FOUND[0], 404)
    assert e.value.response["Error"]["Message"] == NOT_FOUND[1]


@pytest.mark.parametrize("rule", [
    AES256_RULE,
    {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}, "BucketKeyEnabled": True},
    {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"}, "BucketKeyEnabled": False},
    {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "KEY"},
     "BucketKeyEnabled": True},
], ids=["AES256", "AES256-bucket-key", "aws:kms", "aws:kms-key-id-bucket-key"])
def test_put_get_delete_round_trip(server, s3, bucket, rule):
    rule = json.loads(json.dumps(rule))
    by_default = rule["ApplyServerSideEncryptionByDefault"]
    if by_default.get("KMSMasterKeyID") == "KEY":
        by_default["KMSMasterKeyID"] = a_kms_key_id(server)
    assert put_rules(s3, bucket, [rule])["ResponseMetadata"]["HTTPStatusCode"] == 200
    got = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]
    assert got == {"Rules": [rule]}

    resp = s3.delete_bucket_encryption(Bucket=bucket)
    assert resp["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_encryption(Bucket=bucket)
    assert error_of(e) == (NOT_FOUND[0], 404)
    s3.delete_bucket_encryption(Bucket=bucket)  # none left: still 204


def test_a_new_rule_replaces_the_old(s3, bucket):
    put_rules(s3, bucket, [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"},
                            "BucketKeyEnabled": True}])
    put_rules(s3, bucket, [AES256_RULE])
    got = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]
    assert got == {"Rules": [AES256_RULE]}


def test_configuration_survives_a_restart(start_server, tmp_path):
    data = tmp_path / "kept"
    data.mkdir()
    srv = start_server(data_dir=data)
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    rule = {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"},
            "BucketKeyEnabled": True}
    put_rules(s3, name, [rule])
    assert srv.stop() == 0
    srv = start_server(data_dir=data)
    got = make_client(srv).get_bucket_encryption(Bucket=name)
    assert got["ServerSideEncryptionConfiguration"] == {"Rules": [rule]}


@pytest.mark.parametrize("rules,code,status,message", [
    ([{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES128"}}], "MalformedXML", 400,
     None),
    ([{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aes256"}}], "MalformedXML", 400,
     None),
    ([AES256_RULE, AES256_RULE], "MalformedXML", 400, None),
    ([], "MalformedXML", 400, None),
    ([{"BucketKeyEnabled": True}], "MalformedXML", 400, None),
    ([{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256",
                                              "KMSMasterKeyID": "alias/app"}}],
     "InvalidArgument", 400,
     "a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or "
     "aws:kms:dsse"),
    ([{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms:dsse"}}],
     "NotImplemented", 501, None),
], ids=["unknown-algorithm", "algorithm-case", "two-rules", "no-rule", "no-default",
        "key-id-with-AES256", "dual-layer"])
def test_put_refusals(s3, bucket, rules, code, status, message):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        put_rules(s3, bucket, rules)
    assert error_of(e) == (code, status)
    if message is not None:
        assert e.value.response["Error"]["Message"] == message
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_encryption(Bucket=bucket)
    assert error_of(e)[0] == NOT_FOUND[0], "a refused PUT stored a rule"


def test_raw_body_refusals(server, bucket):
    good = (f'<ServerSideEncryptionConfiguration xmlns="{NS}"><Rule>'
            "<ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm>"
            "</ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>"
            ).encode()
    r = put_raw(server, bucket, good, md5=False)
    assert (r.status, r.code) == (400, "InvalidRequest")
    assert r.error()["Message"] == "Missing required header for this request: Content-Md5"
    r = put_raw(server, bucket, b"<ServerSideEncryptionConfiguration><Rule>")
    assert (r.status, r.code) == (400, "MalformedXML")
    r = put_raw(server, bucket, good.replace(b"</Rule>", b"<BucketKeyEnabled>maybe"
                                                         b"</BucketKeyEnabled></Rule>"))
    assert (r.status, r.code) == (400, "MalformedXML")
    r = put_raw(server, bucket, good)
    assert r.status == 200, r


def test_missing_bucket(s3):
    name = new_bucket_name()
    for call, kwargs in [
            ("get_bucket_encryption", {}),
            ("delete_bucket_encryption", {}),
            ("put_bucket_encryption",
             {"ServerSideEncryptionConfiguration": {"Rules": [AES256_RULE]}})]:
        with pytest.raises(botocore.exceptions.ClientError) as e:
            getattr(s3, call)(Bucket=name, **kwargs)
        assert error_of(e) == ("NoSuchBucket", 404), call


def test_unknown_kms_key_refused(server, s3, bucket):
    if kms_or_none(server) is None:
        pytest.skip("this server has no KMS API (issue 16's kms part)")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        put_rules(s3, bucket, [{"ApplyServerSideEncryptionByDefault": {
            "SSEAlgorithm": "aws:kms",
            "KMSMasterKeyID": "arn:aws:kms:us-east-1:000000000000:key/"
                              "00000000-0000-0000-0000-000000000000"}}])
    assert error_of(e) == ("KMS.NotFoundException", 400)


def test_iam_actions(server, s3, bucket):
    """Get asks s3:GetEncryptionConfiguration; Put and Delete both s3:PutEncryptionConfiguration
    (as AWS has it)."""
    iam = boto3.session.Session(
        aws_access_key_id=server.access_key, aws_secret_access_key=server.secret_key,
        region_name="us-east-1").client(
            "iam", endpoint_url=server.endpoint,
            config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))
    name = f"enc-{uuid.uuid4().hex[:8]}"
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    cubby_e2e.USER_SECRETS.add(key["SecretAccessKey"])
    user = make_client(server, key["AccessKeyId"], key["SecretAccessKey"])
    config = {"Rules": [AES256_RULE]}

    def denied(call, **kwargs):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            getattr(user, call)(Bucket=bucket, **kwargs)
        assert error_of(e) == ("AccessDenied", 403), call

    denied("get_bucket_encryption")
    denied("put_bucket_encryption", ServerSideEncryptionConfiguration=config)
    denied("delete_bucket_encryption")

    def allow(action):
        iam.put_user_policy(UserName=name, PolicyName="enc", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": action,
                           "Resource": f"arn:aws:s3:::{bucket}"}]}))

    allow("s3:GetEncryptionConfiguration")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        user.get_bucket_encryption(Bucket=bucket)
    assert error_of(e) == (NOT_FOUND[0], 404)  # allowed: the bucket has none
    denied("put_bucket_encryption", ServerSideEncryptionConfiguration=config)
    denied("delete_bucket_encryption")

    allow("s3:PutEncryptionConfiguration")
    user.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration=config)
    assert user.delete_bucket_encryption(Bucket=bucket)["ResponseMetadata"][
        "HTTPStatusCode"] == 204
    denied("get_bucket_encryption")


@pytest.mark.parametrize("how", ["flag", "env"])
def test_server_default_changes_get(start_server, how):
    if how == "flag":
        srv = start_server(args=["--default-encryption", "AES256"])
    else:
        srv = start_server(env_extra={"CUBBY_DEFAULT_ENCRYPTION": "AES256"})
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    got = s3.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]
    assert got == {"Rules": [AES256_RULE]}
    # The bucket's own rule wins; deleting it falls back to the server's.
    kms_rule = {"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms"},
                "BucketKeyEnabled": True}
    put_rules(s3, name, [kms_rule])
    assert s3.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"] == {
        "Rules": [kms_rule]}
    s3.delete_bucket_encryption(Bucket=name)
    got = s3.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]
    assert got == {"Rules": [AES256_RULE]}


def test_server_default_none_is_404(start_server):
    srv = start_server(args=["--default-encryption", "none"])
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_bucket_encryption(Bucket=name)
    assert error_of(e) == (NOT_FOUND[0], 404)


@pytest.mark.parametrize("args,env", [
    (["--default-encryption", "aws:kms"], {}),
    (["--default-encryption", "aes256"], {}),
    ([], {"CUBBY_DEFAULT_ENCRYPTION": "yes"}),
    (["--allow-sse-c-over-http=maybe"], {}),
    ([], {"CUBBY_ALLOW_SSE_C_OVER_HTTP": "on"}),
])
def test_bad_settings_exit_2(cubby_bin, tmp_path, home, args, env):
    data = tmp_path / "data"
    data.mkdir()
    run_env = base_env(home)
    run_env.update({"CUBBY_ROOT_ACCESS_KEY": "AKIACONFIGTEST000001",
                    "CUBBY_ROOT_SECRET_KEY": "config-test-secret-0000000000000000000001"})
    run_env.update(env)
    result = subprocess.run([cubby_bin, "--data-dir", str(data)] + args, env=run_env,
                            stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cubby: "), lines


def test_allow_sse_c_over_http_starts(start_server):
    srv = start_server(args=["--allow-sse-c-over-http"])
    make_client(srv).list_buckets()
    srv = start_server(env_extra={"CUBBY_ALLOW_SSE_C_OVER_HTTP": "1"})
    make_client(srv).list_buckets()
