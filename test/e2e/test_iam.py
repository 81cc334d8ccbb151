"""Users and access keys (issue 13) against the real binary: the IAM query API on the S3 port
through the Debian aws cli (`aws iam ... --endpoint-url`) and boto3's iam client; keys that are
made Inactive or deleted are refused on the very next request; users own their buckets; the
users file (CUBBY_USERS_FILE) applied at every start; the `cubby user create` subcommand."""

import json
import subprocess

import boto3
import botocore.auth
import pytest
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError, NoRegionError

import cubby_e2e
from cubby_e2e import aws_cli_binary, client_env, make_client, new_bucket_name

# Secrets handed out here, for test_zz_secrets.py's scan of every server's output.
USER_SECRETS = cubby_e2e.USER_SECRETS


def iam_client(server, access_key=None, secret_key=None):
    session = boto3.session.Session(
        aws_access_key_id=access_key or server.access_key,
        aws_secret_access_key=secret_key or server.secret_key,
        region_name="us-east-1")
    cfg = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("iam", endpoint_url=server.endpoint, config=cfg)


def error_of(excinfo):
    err = excinfo.value.response
    return err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]


def new_user(iam, name):
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    USER_SECRETS.add(key["SecretAccessKey"])
    return key["AccessKeyId"], key["SecretAccessKey"]


@pytest.fixture
def aws(server, tmp_path, home):
    env = client_env(server, home, extra={"AWS_MAX_ATTEMPTS": "1",
                                          "AWS_RETRY_MODE": "standard",
                                          "AWS_DEFAULT_REGION": "us-east-1"})

    def run(*args, check=True):
        cmd = [aws_cli_binary(), "--endpoint-url", server.endpoint, "--no-cli-pager",
               "--output", "json"] + list(args)
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        if check:
            assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr)
        return result

    return run


def test_aws_cli_user_lifecycle(server, aws):
    user = aws("iam", "create-user", "--user-name", "cli-user")
    assert json.loads(user.stdout)["User"]["UserName"] == "cli-user"
    assert json.loads(user.stdout)["User"]["Arn"].endswith(":user/cli-user")
    key = json.loads(aws("iam", "create-access-key", "--user-name", "cli-user").stdout)["AccessKey"]
    USER_SECRETS.add(key["SecretAccessKey"])
    assert key["Status"] == "Active"
    policy = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*",' \
             '"Resource":"*"}]}'
    aws("iam", "put-user-policy", "--user-name", "cli-user", "--policy-name", "all",
        "--policy-document", policy)
    got = json.loads(aws("iam", "get-user-policy", "--user-name", "cli-user", "--policy-name",
                         "all").stdout)
    assert got["PolicyDocument"]["Statement"][0]["Action"] == "s3:*"  # the cli decodes it
    names = [u["UserName"] for u in json.loads(aws("iam", "list-users").stdout)["Users"]]
    assert "cli-user" in names and "root" in names

    s3 = make_client(server, access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    s3.list_buckets()
    aws("iam", "update-access-key", "--user-name", "cli-user", "--access-key-id",
        key["AccessKeyId"], "--status", "Inactive")
    with pytest.raises(ClientError) as e:
        s3.list_buckets()  # the very next request
    assert error_of(e) == ("InvalidAccessKeyId", 403)
    listed = json.loads(aws("iam", "list-access-keys", "--user-name", "cli-user").stdout)
    assert listed["AccessKeyMetadata"][0]["Status"] == "Inactive"

    refused = aws("iam", "delete-user", "--user-name", "cli-user", check=False)
    assert refused.returncode != 0 and "DeleteConflict" in refused.stderr
    aws("iam", "delete-access-key", "--user-name", "cli-user", "--access-key-id",
        key["AccessKeyId"])
    aws("iam", "delete-user-policy", "--user-name", "cli-user", "--policy-name", "all")
    aws("iam", "delete-user", "--user-name", "cli-user")
    gone = aws("iam", "get-user", "--user-name", "cli-user", check=False)
    assert gone.returncode != 0 and "NoSuchEntity" in gone.stderr


def test_boto3_deleted_key_refused_on_next_request(server):
    iam = iam_client(server)
    key_id, secret = new_user(iam, "boto-user")
    s3 = make_client(server, access_key=key_id, secret_key=secret)
    s3.list_buckets()
    iam.delete_access_key(UserName="boto-user", AccessKeyId=key_id)
    with pytest.raises(ClientError) as e:
        s3.list_buckets()
    assert error_of(e) == ("InvalidAccessKeyId", 403)
    # IAM's own answers for a bad caller: the user's key is gone.
    with pytest.raises(ClientError) as e:
        iam_client(server, key_id, secret).list_users()
    assert error_of(e) == ("InvalidClientTokenId", 403)


def test_boto3_iam_errors_and_tags(server):
    iam = iam_client(server)
    iam.create_user(UserName="tagged", Tags=[{"Key": "team", "Value": "storage"}])
    assert iam.list_user_tags(UserName="tagged")["Tags"] == [{"Key": "team", "Value": "storage"}]
    iam.tag_user(UserName="tagged", Tags=[{"Key": "env", "Value": "test"}])
    iam.untag_user(UserName="tagged", TagKeys=["team"])
    assert iam.list_user_tags(UserName="tagged")["Tags"] == [{"Key": "env", "Value": "test"}]
    assert iam.get_user()["User"]["UserName"] == "root"  # no UserName: the caller
    with pytest.raises(ClientError) as e:
        iam.create_user(UserName="TAGGED")
    assert error_of(e) == ("EntityAlreadyExists", 409)
    with pytest.raises(ClientError) as e:
        iam.get_user(UserName="nobody")
    assert error_of(e) == ("NoSuchEntity", 404)
    for _ in range(2):
        USER_SECRETS.add(iam.create_access_key(UserName="tagged")["AccessKey"]["SecretAccessKey"])
    with pytest.raises(ClientError) as e:
        iam.create_access_key(UserName="tagged")
    assert error_of(e) == ("LimitExceeded", 409)
    with pytest.raises(ClientError) as e:
        iam.put_user_policy(UserName="tagged", PolicyName="p", PolicyDocument="not a policy")
    assert error_of(e) == ("MalformedPolicyDocument", 400)
    for i in range(3):
        iam.create_user(UserName=f"page-{i}")
    pages = iam.get_paginator("list_users").paginate(PaginationConfig={"PageSize": 2})
    names = [u["UserName"] for page in pages for u in page["Users"]]
    assert {"page-0", "page-1", "page-2", "root", "tagged"} <= set(names)
    assert len(names) == len(set(names))
    # Only root may call IAM (for now).
    key_id, secret = new_user(iam, "plain")
    with pytest.raises(ClientError) as e:
        iam_client(server, key_id, secret).list_users()
    assert error_of(e) == ("AccessDenied", 403)


def test_iam_is_global_whatever_the_servers_region(start_server):
    """IAM is a global service: a server in eu-west-1 takes IAM requests signed for us-east-1
    (boto3 and the aws cli sign IAM so whatever the endpoint) and with an empty region (botocore's
    signer when it has none), but not for another region."""
    server = start_server(args=["--region", "eu-west-1"])
    iam = iam_client(server)  # region us-east-1
    iam.create_user(UserName="globe")
    policy = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*",' \
             '"Resource":"*"}]}'
    iam.put_user_policy(UserName="globe", PolicyName="all", PolicyDocument=policy)
    assert iam.get_user_policy(UserName="globe", PolicyName="all")["PolicyName"] == "all"

    def signed_for(region):
        body = b"Action=ListUsers&Version=2010-05-08"
        host = f"{server.host}:{server.port}"
        req = AWSRequest(method="POST", url=f"http://{host}/", data=body, headers={
            "Host": host, "Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
        botocore.auth.SigV4Auth(Credentials(server.access_key, server.secret_key), "iam",
                                region).add_auth(req)
        return cubby_e2e.send(server, "POST", "/", dict(req.headers.items()), body)

    for region in ("", "us-east-1", "eu-west-1"):
        r = signed_for(region)
        assert r.status == 200 and b"<UserName>globe</UserName>" in r.body, (region, r)
    r = signed_for("us-west-2")
    assert r.status == 400 and b"<Code>IncompleteSignature</Code>" in r.body, r

    # A client with no region at all, where this botocore allows one for IAM.
    session = boto3.session.Session(aws_access_key_id=server.access_key,
                                    aws_secret_access_key=server.secret_key, region_name=None)
    try:
        no_region = session.client("iam", endpoint_url=server.endpoint, region_name=None)
        users = no_region.list_users()["Users"]
    except NoRegionError:
        return
    assert "globe" in [u["UserName"] for u in users]


def test_users_own_their_buckets(server):
    iam = iam_client(server)
    a = make_client(server, *new_user(iam, "owner-a"))
    b = make_client(server, *new_user(iam, "owner-b"))
    bucket = new_bucket_name()
    a.create_bucket(Bucket=bucket)
    a.put_object(Bucket=bucket, Key="k", Body=b"mine")
    for call in (lambda: b.get_object(Bucket=bucket, Key="k"),
                 lambda: b.put_object(Bucket=bucket, Key="x", Body=b"x"),
                 lambda: b.list_objects_v2(Bucket=bucket),
                 lambda: b.delete_bucket(Bucket=bucket)):
        with pytest.raises(ClientError) as e:
            call()
        assert error_of(e) == ("AccessDenied", 403)
    with pytest.raises(ClientError) as e:
        b.create_bucket(Bucket=bucket)
    assert error_of(e) == ("BucketAlreadyExists", 409)
    listed_a = a.list_buckets()
    assert [x["Name"] for x in listed_a["Buckets"]] == [bucket]
    assert listed_a["Owner"]["DisplayName"] == "owner-a"
    assert b.list_buckets()["Buckets"] == []
    root = make_client(server)
    assert bucket not in [x["Name"] for x in root.list_buckets()["Buckets"]]  # root's own only
    assert root.get_object(Bucket=bucket, Key="k")["Body"].read() == b"mine"  # but may do all
    owner = listed_a["Owner"]["ID"]
    a.head_bucket(Bucket=bucket, ExpectedBucketOwner=owner)
    with pytest.raises(ClientError) as e:
        a.get_object(Bucket=bucket, Key="k", ExpectedBucketOwner="0" * 64)
    assert error_of(e) == ("AccessDenied", 403)


USERS_FILE = """# fixtures
fixture-a FIXTUREAKEY00000001 fixture-a-secret
fixture-b FIXTUREBKEY00000001 fixture-b-secret
"""


def test_users_file_applied_at_every_start(start_server, tmp_path):
    USER_SECRETS.update({"fixture-a-secret", "fixture-b-secret"})
    path = tmp_path / "users.txt"
    path.write_text(USERS_FILE)
    data = tmp_path / "users-data"
    data.mkdir()
    for start in range(2):
        srv = start_server(env_extra={"CUBBY_USERS_FILE": str(path)}, data_dir=data)
        s3 = make_client(srv, "FIXTUREAKEY00000001", "fixture-a-secret")
        if start == 0:
            s3.create_bucket(Bucket="fixture-bucket")
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["fixture-bucket"]
        users = [u["UserName"] for u in iam_client(srv).list_users()["Users"]]
        assert sorted(users) == ["fixture-a", "fixture-b", "root"]
        assert "users file applied" in srv.output()
        assert srv.stop() == 0
    # A key id that belongs to another user stops the start, exit 2, naming no secret.
    path.write_text(USERS_FILE + "fixture-c FIXTUREAKEY00000001 other-secret\n")
    srv = start_server(env_extra={"CUBBY_USERS_FILE": str(path)}, data_dir=data, ready=False)
    code = srv.proc.wait(60)
    srv.kill()
    assert code == 2, srv.output()
    assert "belongs to another user" in srv.all_output()
    assert "other-secret" not in srv.all_output()


def test_user_create_subcommand(server, cubby_bin, home):
    env = client_env(server, home)
    given = subprocess.run(
        [cubby_bin, "user", "create", "--endpoint", server.endpoint, "--name", "cmd-user",
         "--access-key", "CMDUSERKEY00000001", "--secret-key", "cmd-user-secret"],
        env=env, capture_output=True, text=True, timeout=60)
    USER_SECRETS.add("cmd-user-secret")
    assert given.returncode == 0, given.stderr
    assert "aws_access_key_id = CMDUSERKEY00000001" in given.stdout
    assert "cmd-user-secret" not in given.stdout  # the caller knows it
    make_client(server, "CMDUSERKEY00000001", "cmd-user-secret").list_buckets()
    made = subprocess.run(
        [cubby_bin, "user", "create", "--endpoint", server.endpoint, "--name", "cmd-user2"],
        env=env, capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    lines = dict(line.split(" = ") for line in made.stdout.splitlines() if " = " in line)
    USER_SECRETS.add(lines["aws_secret_access_key"])
    make_client(server, lines["aws_access_key_id"], lines["aws_secret_access_key"]).list_buckets()
    again = subprocess.run(
        [cubby_bin, "user", "create", "--endpoint", server.endpoint, "--name", "cmd-user"],
        env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "EntityAlreadyExists" in again.stderr
    usage = subprocess.run([cubby_bin, "user", "create", "--name", "x"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2
