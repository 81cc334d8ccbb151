"""The built-in KMS's JSON API (issue 16) on the S3 port through boto3's kms client and the
Debian aws cli (`aws kms ... --endpoint-url`): every operation cubby serves, every error it
answers, keys disabled and enabled again, and authentication failures in KMS's shape.

NOTE: this needs the keys branch (issue 16, part 3) to pass on main: the server builds its
KeyService only when ServiceOptions.keys (the keyring) is set, and until that branch is merged
every KMS call is answered UnsupportedOperationException, so these tests fail. That is expected.
"""

import json
import subprocess

import boto3
import pytest
import requests
from botocore.config import Config
from botocore.exceptions import ClientError

import cubby_e2e
from cubby_e2e import aws_cli_binary, client_env

REGION = "us-east-1"


def kms_client(server, access_key=None, secret_key=None):
    session = boto3.session.Session(
        aws_access_key_id=access_key or server.access_key,
        aws_secret_access_key=secret_key or server.secret_key,
        region_name=REGION)
    cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("kms", endpoint_url=server.endpoint, config=cfg)


@pytest.fixture
def kms(server):
    return kms_client(server)


def error_of(excinfo):
    err = excinfo.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]


def expect_error(code, call, **kwargs):
    with pytest.raises(ClientError) as e:
        call(**kwargs)
    assert error_of(e) == (code, 400), e.value.response
    return e.value.response


def test_create_describe_list_keys(kms):
    made = kms.create_key(Description="first key")["KeyMetadata"]
    assert made["KeyState"] == "Enabled" and made["Enabled"] is True
    assert made["KeyManager"] == "CUSTOMER" and made["Origin"] == "AWS_KMS"
    assert made["KeySpec"] == "SYMMETRIC_DEFAULT"
    assert made["KeyUsage"] == "ENCRYPT_DECRYPT"
    assert made["EncryptionAlgorithms"] == ["SYMMETRIC_DEFAULT"]
    assert made["MultiRegion"] is False
    assert made["Arn"] == f"arn:aws:kms:{REGION}:{made['AWSAccountId']}:key/{made['KeyId']}"
    assert made["CreationDate"].year >= 2024  # boto3 parsed the epoch-seconds number

    for name in (made["KeyId"], made["Arn"]):
        got = kms.describe_key(KeyId=name)["KeyMetadata"]
        assert got["KeyId"] == made["KeyId"] and got["Description"] == "first key"

    ids = {made["KeyId"]} | {kms.create_key()["KeyMetadata"]["KeyId"] for _ in range(2)}
    seen, marker, pages = set(), None, 0
    while True:
        page = kms.list_keys(Limit=2, **({"Marker": marker} if marker else {}))
        pages += 1
        seen |= {k["KeyId"] for k in page["Keys"]}
        if not page["Truncated"]:
            assert "NextMarker" not in page
            break
        marker = page["NextMarker"]
    assert seen == ids and pages == 2
    # The paginator follows NextMarker too.
    assert {k["KeyId"] for p in kms.get_paginator("list_keys").paginate(Limit=1)
            for k in p["Keys"]} == ids


def test_create_key_refusals(kms):
    # botocore validates the enum values it knows, so these are values it accepts but cubby
    # cannot make: refused, never silently dropped.
    for kwargs in ({"KeySpec": "RSA_2048"}, {"KeyUsage": "SIGN_VERIFY", "KeySpec": "RSA_2048"},
                   {"Origin": "EXTERNAL"}, {"MultiRegion": True},
                   {"Policy": json.dumps({"Version": "2012-10-17", "Statement": []})},
                   {"Tags": [{"TagKey": "team", "TagValue": "a"}]}):
        expect_error("UnsupportedOperationException", kms.create_key, **kwargs)
    expect_error("ValidationException", kms.create_key, Description="x" * 8193)
    assert kms.list_keys()["Keys"] == []


def test_aliases(kms):
    key = kms.create_key()["KeyMetadata"]
    other = kms.create_key()["KeyMetadata"]
    kms.create_alias(AliasName="alias/app", TargetKeyId=key["KeyId"])
    kms.create_alias(AliasName="alias/app-2", TargetKeyId=other["Arn"])
    assert kms.describe_key(KeyId="alias/app")["KeyMetadata"]["KeyId"] == key["KeyId"]
    alias_arn = key["Arn"].replace(f"key/{key['KeyId']}", "alias/app")
    assert kms.describe_key(KeyId=alias_arn)["KeyMetadata"]["KeyId"] == key["KeyId"]

    aliases = kms.list_aliases()["Aliases"]
    assert [(a["AliasName"], a["TargetKeyId"]) for a in aliases] == [
        ("alias/app", key["KeyId"]), ("alias/app-2", other["KeyId"])]
    assert aliases[0]["AliasArn"] == alias_arn
    assert [a["AliasName"] for a in kms.list_aliases(KeyId=other["KeyId"])["Aliases"]] == \
        ["alias/app-2"]
    page = kms.list_aliases(Limit=1)
    assert page["Truncated"] is True and page["NextMarker"] == "alias/app"

    expect_error("AlreadyExistsException", kms.create_alias, AliasName="alias/app",
                 TargetKeyId=other["KeyId"])
    expect_error("InvalidAliasNameException", kms.create_alias, AliasName="noprefix",
                 TargetKeyId=key["KeyId"])
    expect_error("NotAuthorizedException", kms.create_alias, AliasName="alias/aws/mine",
                 TargetKeyId=key["KeyId"])
    expect_error("NotFoundException", kms.create_alias, AliasName="alias/x",
                 TargetKeyId="00000000-0000-4000-8000-000000000000")
    expect_error("NotFoundException", kms.describe_key, KeyId="alias/none")
    expect_error("NotFoundException", kms.describe_key, KeyId="not-a-key-id")

    kms.delete_alias(AliasName="alias/app")
    expect_error("NotFoundException", kms.delete_alias, AliasName="alias/app")
    expect_error("NotFoundException", kms.describe_key, KeyId="alias/app")
    assert kms.describe_key(KeyId=key["KeyId"])["KeyMetadata"]["KeyState"] == "Enabled"


def test_aws_managed_key_made_on_first_use(kms):
    got = kms.describe_key(KeyId="alias/aws/s3")["KeyMetadata"]
    assert got["KeyManager"] == "AWS"
    again = kms.describe_key(KeyId="alias/aws/s3")["KeyMetadata"]
    assert again["KeyId"] == got["KeyId"]
    assert any(a["AliasName"] == "alias/aws/s3" and a["TargetKeyId"] == got["KeyId"]
               for a in kms.list_aliases()["Aliases"])
    expect_error("NotAuthorizedException", kms.disable_key, KeyId=got["KeyId"])
    expect_error("NotAuthorizedException", kms.delete_alias, AliasName="alias/aws/s3")


def test_disable_enable_and_deletion(kms):
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    kms.disable_key(KeyId=key_id)
    meta = kms.describe_key(KeyId=key_id)["KeyMetadata"]
    assert meta["KeyState"] == "Disabled" and meta["Enabled"] is False
    kms.enable_key(KeyId=key_id)
    assert kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"] == "Enabled"

    expect_error("ValidationException", kms.schedule_key_deletion, KeyId=key_id,
                 PendingWindowInDays=31)
    expect_error("KMSInvalidStateException", kms.cancel_key_deletion, KeyId=key_id)
    out = kms.schedule_key_deletion(KeyId=key_id, PendingWindowInDays=7)
    assert out["KeyState"] == "PendingDeletion" and out["PendingWindowInDays"] == 7
    assert out["KeyId"].endswith(key_id)
    meta = kms.describe_key(KeyId=key_id)["KeyMetadata"]
    assert meta["KeyState"] == "PendingDeletion" and "DeletionDate" in meta
    expect_error("KMSInvalidStateException", kms.enable_key, KeyId=key_id)
    expect_error("KMSInvalidStateException", kms.schedule_key_deletion, KeyId=key_id)
    expect_error("KMSInvalidStateException", kms.create_alias, AliasName="alias/late",
                 TargetKeyId=key_id)
    assert kms.cancel_key_deletion(KeyId=key_id)["KeyId"].endswith(key_id)
    assert kms.describe_key(KeyId=key_id)["KeyMetadata"]["KeyState"] == "Disabled"
    expect_error("NotFoundException", kms.enable_key,
                 KeyId="00000000-0000-4000-8000-000000000000")


def test_state_survives_restart(start_server, tmp_path):
    data_dir = tmp_path / "kmsdata"
    data_dir.mkdir()
    srv = start_server(data_dir=data_dir)
    kms = kms_client(srv)
    key_id = kms.create_key(Description="kept")["KeyMetadata"]["KeyId"]
    kms.disable_key(KeyId=key_id)
    srv.stop()
    srv = start_server(data_dir=data_dir)
    meta = kms_client(srv).describe_key(KeyId=key_id)["KeyMetadata"]
    assert meta["Description"] == "kept" and meta["KeyState"] == "Disabled"


def raw_kms(server, target, body, headers=None):
    h = {"X-Amz-Target": target, "Content-Type": "application/x-amz-json-1.1"}
    h.update(headers or {})
    return requests.post(server.endpoint + "/", data=body, headers=h, timeout=30,
                         verify=False)


def test_protocol_errors(server, kms):
    # Unsigned: KMS's MissingAuthenticationTokenException, in JSON.
    r = raw_kms(server, "TrentService.ListKeys", "{}")
    assert r.status_code == 400
    assert r.headers["Content-Type"] == "application/x-amz-json-1.1"
    assert r.json()["__type"] == "MissingAuthenticationTokenException"

    # Unknown key, wrong secret.
    bad = kms_client(server, access_key="CBUNKNOWNKEY00000000", secret_key="x" * 40)
    with pytest.raises(ClientError) as e:
        bad.list_keys()
    assert error_of(e) == ("UnrecognizedClientException", 400)
    wrong = kms_client(server, secret_key="y" * 40)
    with pytest.raises(ClientError) as e:
        wrong.list_keys()
    assert error_of(e) == ("InvalidSignatureException", 400)

    # Signed, but malformed JSON, an unknown operation, a body over 64 KiB: sign them with
    # botocore's own signer so only the body or target is at fault.
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    creds = boto3.session.Session(aws_access_key_id=server.access_key,
                                  aws_secret_access_key=server.secret_key).get_credentials()

    def signed(target, body):
        req = AWSRequest(method="POST", url=server.endpoint + "/", data=body,
                         headers={"X-Amz-Target": target,
                                  "Content-Type": "application/x-amz-json-1.1"})
        SigV4Auth(creds, "kms", REGION).add_auth(req)
        return requests.post(server.endpoint + "/", data=body, headers=dict(req.headers),
                             timeout=30, verify=False)

    r = signed("TrentService.ListKeys", "{not json")
    assert (r.status_code, r.json()["__type"]) == (400, "SerializationException")
    r = signed("TrentService.Encrypt", "{}")
    assert (r.status_code, r.json()["__type"]) == (400, "UnknownOperationException")
    r = signed("TrentService.CreateKey", "{" + " " * (64 << 10) + "}")
    assert (r.status_code, r.json()["__type"]) == (400, "ValidationException")
    r = signed("TrentService.ListKeys", "{}")
    assert r.status_code == 200 and r.json()["Truncated"] is False

    # A user key without the administrator's rights.
    iam = boto3.session.Session(aws_access_key_id=server.access_key,
                                aws_secret_access_key=server.secret_key,
                                region_name="us-east-1").client(
        "iam", endpoint_url=server.endpoint,
        config=Config(retries={"total_max_attempts": 1, "mode": "standard"}))
    iam.create_user(UserName="kms-user")
    key = iam.create_access_key(UserName="kms-user")["AccessKey"]
    cubby_e2e.USER_SECRETS.add(key["SecretAccessKey"])
    user = kms_client(server, key["AccessKeyId"], key["SecretAccessKey"])
    with pytest.raises(ClientError) as e:
        user.list_keys()
    assert error_of(e) == ("AccessDeniedException", 400)


def test_aws_cli_round_trip(server, tmp_path, home):
    env = client_env(server, home, extra={"AWS_MAX_ATTEMPTS": "1",
                                          "AWS_RETRY_MODE": "standard",
                                          "AWS_DEFAULT_REGION": REGION})

    def aws(*args):
        cmd = [aws_cli_binary(), "--endpoint-url", server.endpoint, "--no-cli-pager",
               "--output", "json", "kms"] + list(args)
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr)
        return json.loads(result.stdout) if result.stdout.strip() else None

    key_id = aws("create-key", "--description", "from the cli")["KeyMetadata"]["KeyId"]
    assert aws("create-alias", "--alias-name", "alias/cli", "--target-key-id", key_id) is None
    assert aws("describe-key", "--key-id", "alias/cli")["KeyMetadata"]["KeyId"] == key_id
    assert key_id in [k["KeyId"] for k in aws("list-keys")["Keys"]]
    assert "alias/cli" in [a["AliasName"] for a in aws("list-aliases")["Aliases"]]
    aws("disable-key", "--key-id", key_id)
    aws("enable-key", "--key-id", key_id)
    aws("delete-alias", "--alias-name", "alias/cli")
