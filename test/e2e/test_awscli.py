"""The aws cli (Debian's awscli) against cubby with --endpoint-url.

The cli switches to multipart uploads above its multipart_threshold (8 MiB by default), and
multipart is not implemented yet, so the config file written here raises the threshold; one test
checks that a file above 8 MiB goes up as a single PUT with that setting.
"""

import hashlib
import json
import os
import subprocess

import pytest

from cubby_e2e import aws_cli_binary, client_env, make_client, new_bucket_name


@pytest.fixture
def aws(server, tmp_path, home):
    config = tmp_path / "aws-config"
    config.write_text(
        "[default]\n"
        "region = us-east-1\n"
        "output = json\n"
        "cli_pager =\n"
        "s3 =\n"
        "    addressing_style = path\n"
        "    multipart_threshold = 10GB\n"
        "    multipart_chunksize = 5GB\n")
    env = client_env(server, home, extra={"AWS_CONFIG_FILE": str(config),
                                          "AWS_MAX_ATTEMPTS": "1",
                                          "AWS_RETRY_MODE": "standard"})
    binary = aws_cli_binary()

    # The cli prints local paths relative to its working directory: run it in tmp_path and
    # name local files relative to that.
    def run(*args, check=True):
        cmd = [binary, "--endpoint-url", server.endpoint, "--no-cli-pager"] + list(args)
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        if check:
            assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr)
        return result

    return run


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def test_s3_high_level_commands(aws, server, tmp_path):
    bucket = new_bucket_name()
    out = aws("s3", "mb", f"s3://{bucket}")
    assert out.stdout.strip() == f"make_bucket: {bucket}"

    out = aws("s3", "ls")
    assert bucket in out.stdout.split()

    src = tmp_path / "upload.bin"
    src.write_bytes(os.urandom(3 * (1 << 20) + 5))
    out = aws("s3", "cp", "--no-progress", "upload.bin", f"s3://{bucket}/dir/upload.bin")
    assert out.stdout.strip() == f"upload: ./upload.bin to s3://{bucket}/dir/upload.bin"

    out = aws("s3", "ls", f"s3://{bucket}/")
    assert "PRE dir/" in out.stdout
    out = aws("s3", "ls", f"s3://{bucket}/dir/")
    fields = out.stdout.split()
    assert fields[-1] == "upload.bin"
    assert fields[-2] == str(src.stat().st_size)

    dst = tmp_path / "download.bin"
    out = aws("s3", "cp", "--no-progress", f"s3://{bucket}/dir/upload.bin", "download.bin")
    assert out.stdout.strip() == f"download: s3://{bucket}/dir/upload.bin to ./download.bin"
    assert _sha256(dst) == _sha256(src)

    # rb refuses a non-empty bucket.
    out = aws("s3", "rb", f"s3://{bucket}", check=False)
    assert out.returncode != 0
    assert "BucketNotEmpty" in out.stderr

    out = aws("s3", "rm", f"s3://{bucket}/dir/upload.bin")
    assert f"delete: s3://{bucket}/dir/upload.bin" in out.stdout
    assert aws("s3", "ls", f"s3://{bucket}/").stdout.strip() == ""
    out = aws("s3", "rb", f"s3://{bucket}")
    assert out.stdout.strip() == f"remove_bucket: {bucket}"
    assert bucket not in aws("s3", "ls").stdout


def test_s3_recursive_and_sync(aws, tmp_path):
    bucket = new_bucket_name()
    aws("s3", "mb", f"s3://{bucket}")
    src = tmp_path / "tree"
    files = {"a.txt": b"alpha", "sub/b.txt": b"beta", "sub/deeper/c.bin": os.urandom(4096),
             "with space.txt": b"space"}
    for rel, data in files.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    aws("s3", "sync", str(src), f"s3://{bucket}/t")
    out = aws("s3", "ls", "--recursive", f"s3://{bucket}/")
    assert sorted(line.split(None, 3)[3] for line in out.stdout.splitlines()) == \
        sorted(f"t/{k}" for k in files)
    # A second sync has nothing to do.
    assert aws("s3", "sync", str(src), f"s3://{bucket}/t").stdout.strip() == ""

    dst = tmp_path / "back"
    aws("s3", "cp", "--recursive", f"s3://{bucket}/t", str(dst))
    for rel, data in files.items():
        assert (dst / rel).read_bytes() == data
    aws("s3", "rm", "--recursive", f"s3://{bucket}/t")
    aws("s3", "rb", f"s3://{bucket}")


def test_s3api_commands(aws, server, tmp_path):
    bucket = new_bucket_name()
    aws("s3api", "create-bucket", "--bucket", bucket)
    body = tmp_path / "body.txt"
    body.write_bytes(b"hello from the aws cli\n")
    out = json.loads(aws("s3api", "put-object", "--bucket", bucket, "--key", "greeting.txt",
                         "--body", str(body), "--content-type", "text/plain",
                         "--metadata", "origin=cli").stdout)
    md5 = hashlib.md5(body.read_bytes()).hexdigest()
    assert out["ETag"] == f'"{md5}"'

    head = json.loads(aws("s3api", "head-object", "--bucket", bucket, "--key",
                          "greeting.txt").stdout)
    assert head["ContentLength"] == len(body.read_bytes())
    assert head["ETag"] == f'"{md5}"'
    assert head["ContentType"] == "text/plain"
    assert head["Metadata"] == {"origin": "cli"}

    outfile = tmp_path / "got.txt"
    got = json.loads(aws("s3api", "get-object", "--bucket", bucket, "--key", "greeting.txt",
                         "--range", "bytes=0-4", str(outfile)).stdout)
    assert got["ContentRange"] == f"bytes 0-4/{len(body.read_bytes())}"
    assert outfile.read_bytes() == b"hello"

    for i in range(3):
        aws("s3api", "put-object", "--bucket", bucket, "--key", f"list/{i}", "--body", str(body))
    listing = json.loads(aws("s3api", "list-objects-v2", "--bucket", bucket, "--prefix",
                             "list/", "--no-paginate").stdout)
    assert [o["Key"] for o in listing["Contents"]] == ["list/0", "list/1", "list/2"]
    assert listing["KeyCount"] == 3
    # The cli paginates itself: --page-size 1 makes it follow continuation tokens.
    listing = json.loads(aws("s3api", "list-objects-v2", "--bucket", bucket, "--page-size", "1")
                         .stdout)
    assert [o["Key"] for o in listing["Contents"]] == \
        ["greeting.txt", "list/0", "list/1", "list/2"]
    listing = json.loads(aws("s3api", "list-objects", "--bucket", bucket, "--page-size", "1",
                             "--delimiter", "/").stdout)
    assert [o["Key"] for o in listing["Contents"]] == ["greeting.txt"]
    assert [p["Prefix"] for p in listing["CommonPrefixes"]] == ["list/"]

    acl = json.loads(aws("s3api", "get-bucket-acl", "--bucket", bucket).stdout)
    assert acl["Grants"][0]["Permission"] == "FULL_CONTROL"


def test_cli_error_exit_codes(aws, tmp_path):
    missing = new_bucket_name()
    out = aws("s3api", "get-object", "--bucket", missing, "--key", "k",
              str(tmp_path / "never"), check=False)
    # aws cli v2: 254 when the service returned an error (v1 used 255).
    assert out.returncode in (254, 255), (out.returncode, out.stderr)
    assert "NoSuchBucket" in out.stderr
    assert not (tmp_path / "never").exists()

    bucket = new_bucket_name()
    aws("s3", "mb", f"s3://{bucket}")
    out = aws("s3api", "head-object", "--bucket", bucket, "--key", "nope", check=False)
    assert out.returncode in (254, 255)
    assert "404" in out.stderr

    out = aws("s3", "mb", "s3://Invalid_Bucket_Name", check=False)
    assert out.returncode != 0
    assert "InvalidBucketName" in out.stderr


def test_cli_wrong_credentials(server, tmp_path, home):
    env = client_env(server, home, secret_key="definitely-not-the-secret",
                     extra={"AWS_MAX_ATTEMPTS": "1"})
    out = subprocess.run([aws_cli_binary(), "--endpoint-url", server.endpoint, "s3", "ls"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "SignatureDoesNotMatch" in out.stderr


def test_cli_single_put_above_8mib(aws, server, tmp_path):
    # 10 MiB: above the cli's default 8 MiB threshold, below ours.
    bucket = new_bucket_name()
    aws("s3", "mb", f"s3://{bucket}")
    src = tmp_path / "ten.bin"
    src.write_bytes(os.urandom(10 * (1 << 20)))
    aws("s3", "cp", str(src), f"s3://{bucket}/ten.bin")
    head = make_client(server).head_object(Bucket=bucket, Key="ten.bin")
    assert head["ContentLength"] == 10 * (1 << 20)
    # A single PUT has a plain MD5 ETag (multipart ETags end in -N).
    assert head["ETag"] == '"' + hashlib.md5(src.read_bytes()).hexdigest() + '"'
    dst = tmp_path / "ten.out"
    aws("s3", "cp", f"s3://{bucket}/ten.bin", str(dst))
    assert _sha256(dst) == _sha256(src)
