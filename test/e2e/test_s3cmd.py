"""s3cmd (Debian's) against cubby through an explicit .s3cfg: put, get, sync, del, with its
default 15 MiB multipart chunks (a 20 MiB file goes up in two parts); one run with SigV2."""

import shutil
import subprocess

import botocore.exceptions
import pytest

import filetree
from cubby_e2e import base_env, make_client, new_bucket_name

S3CMD = shutil.which("s3cmd", path="/usr/bin:/usr/local/bin")
pytestmark = pytest.mark.skipif(
    S3CMD is None, reason="s3cmd is not installed (scripts/setup.sh --test installs it)")


def _config(server, path, signature_v2):
    host = f"{server.host}:{server.port}"
    path.write_text(
        "[default]\n"
        f"access_key = {server.access_key}\n"
        f"secret_key = {server.secret_key}\n"
        f"host_base = {host}\n"
        f"host_bucket = {host}\n"
        f"bucket_location = {server.region}\n"
        "use_https = False\n"
        f"signature_v2 = {signature_v2}\n"
        "multipart_chunk_size_mb = 15\n"
        "progress_meter = False\n")


@pytest.fixture
def s3cmd(server, tmp_path, home):
    configs = {}
    for v2 in (False, True):
        configs[v2] = tmp_path / (".s3cfg-v2" if v2 else ".s3cfg")
        _config(server, configs[v2], v2)
    env = base_env(home)

    def run(*args, v2=False):
        cmd = [S3CMD, "-c", str(configs[v2])] + list(args)
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr)
        return result

    return run


def test_s3cmd_put_get_sync_del(s3cmd, server, tmp_path):
    s3 = make_client(server)
    bucket = new_bucket_name("s3cmd")
    s3cmd("mb", f"s3://{bucket}")
    assert s3.head_bucket(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 200

    big = tmp_path / "big.bin"
    want_big = filetree.write_big_file(big, 20 * filetree.MIB + 11, seed=3)
    s3cmd("put", str(big), f"s3://{bucket}/one/big.bin")
    assert s3.head_object(Bucket=bucket, Key="one/big.bin")["ETag"].endswith('-2"')
    small = tmp_path / "small.txt"
    small.write_bytes(b"s3cmd small file\n" * 10)
    s3cmd("put", str(small), f"s3://{bucket}/one/small.txt")

    s3cmd("get", f"s3://{bucket}/one/big.bin", str(tmp_path / "big.back"))
    assert filetree.sha256_file(tmp_path / "big.back") == want_big
    s3cmd("get", f"s3://{bucket}/one/small.txt", str(tmp_path / "small.back"))
    assert (tmp_path / "small.back").read_bytes() == small.read_bytes()

    tree = tmp_path / "tree"
    filetree.make_tree(tree, small=10, big_sizes=(9 * filetree.MIB,))
    s3cmd("sync", str(tree) + "/", f"s3://{bucket}/tree/")
    assert filetree.bucket_digests(s3, bucket, "tree/") == filetree.tree_digests(tree)
    (tree / "f000.txt").unlink()
    filetree.write_file(tree, "a/f001.txt", b"changed by the test")
    s3cmd("sync", "--delete-removed", str(tree) + "/", f"s3://{bucket}/tree/")
    assert filetree.bucket_digests(s3, bucket, "tree/") == filetree.tree_digests(tree)
    s3cmd("sync", f"s3://{bucket}/tree/", str(tmp_path / "down") + "/")
    assert filetree.tree_digests(tmp_path / "down") == filetree.tree_digests(tree)

    s3cmd("del", f"s3://{bucket}/one/small.txt")
    s3cmd("del", "--recursive", "--force", f"s3://{bucket}/tree/")
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]
    assert keys == ["one/big.bin"]


def test_s3cmd_signature_v2(s3cmd, server, tmp_path):
    s3 = make_client(server)
    bucket = new_bucket_name("s3cmdv2")
    s3.create_bucket(Bucket=bucket)
    f = tmp_path / "v2.txt"
    f.write_bytes(b"signed with AWS signature version 2\n")
    s3cmd("put", str(f), f"s3://{bucket}/v2.txt", v2=True)
    assert s3.get_object(Bucket=bucket, Key="v2.txt")["Body"].read() == f.read_bytes()
    s3cmd("get", f"s3://{bucket}/v2.txt", str(tmp_path / "v2.back"), v2=True)
    assert (tmp_path / "v2.back").read_bytes() == f.read_bytes()
    out = s3cmd("ls", f"s3://{bucket}/", v2=True).stdout
    assert f"s3://{bucket}/v2.txt" in out


def test_s3cmd_without_configuration(server, tmp_path, home):
    """s3cmd -c /dev/null, keys and host on the command line: its default bucket_location is
    the legacy "US", which it signs for; cubby's AuthorizationHeaderMalformed names the region
    it expects (<Region>, as AWS's does), and s3cmd signs again for that one."""
    host = f"{server.host}:{server.port}"
    env = base_env(home)

    def run(*args):
        cmd = [S3CMD, "-c", "/dev/null", f"--access_key={server.access_key}",
               f"--secret_key={server.secret_key}", f"--host={host}", f"--host-bucket={host}",
               "--no-ssl", "--no-progress"] + list(args)
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr)
        return result

    s3 = make_client(server)
    bucket = new_bucket_name("s3cmdbare")
    run("mb", f"s3://{bucket}")
    assert s3.head_bucket(Bucket=bucket)["ResponseMetadata"]["HTTPStatusCode"] == 200
    small = tmp_path / "small.txt"
    small.write_bytes(b"no configuration file\n" * 7)
    run("put", str(small), f"s3://{bucket}/small.txt")
    run("get", f"s3://{bucket}/small.txt", str(tmp_path / "small.back"))
    assert (tmp_path / "small.back").read_bytes() == small.read_bytes()
    tree = tmp_path / "tree"
    filetree.make_tree(tree, small=5, big_sizes=())
    run("sync", str(tree) + "/", f"s3://{bucket}/tree/")
    assert filetree.bucket_digests(s3, bucket, "tree/") == filetree.tree_digests(tree)
    run("del", f"s3://{bucket}/small.txt")
    run("del", "--recursive", "--force", f"s3://{bucket}/tree/")
    assert s3.list_objects_v2(Bucket=bucket).get("KeyCount") == 0


def test_wrong_region_names_the_expected_one(server):
    """The error document of a request signed for another region carries <Region>."""
    s3 = make_client(server, region="US")
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.list_buckets()
    err = e.value.response["Error"]
    assert err["Code"] == "AuthorizationHeaderMalformed"
    assert err["Region"] == server.region


def test_s3cmd_bucket_inspection(s3cmd):
    # What s3cmd reads and sets when a user inspects a bucket (issue 15): info (location,
    # payer, policy, CORS, lifecycle), ws-info, accesslog, and payer (sets BucketOwner).
    bucket = new_bucket_name("s3cmd")
    s3cmd("mb", f"s3://{bucket}")
    info = s3cmd("info", f"s3://{bucket}").stdout
    assert "Payer:     BucketOwner" in info, info
    # 404 NoSuchWebsiteConfiguration: s3cmd says so and succeeds.
    assert "Unable to receive website configuration" in s3cmd("ws-info", f"s3://{bucket}").stdout
    assert "Access logging for" in s3cmd("accesslog", f"s3://{bucket}").stdout
    s3cmd("payer", f"s3://{bucket}")
    s3cmd("rb", f"s3://{bucket}")
