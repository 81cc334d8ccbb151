"""rclone (Debian's) against cubby: copy, check, sync, and copy back, byte-identical.

The remote comes from RCLONE_CONFIG_CUBBY_* variables plus an empty config file in the test's
temp dir. --s3-upload-cutoff 10M makes the 12 MiB file go up as a multipart upload.
"""

import shutil
import subprocess

import pytest

import filetree
from cubby_e2e import base_env, make_client, new_bucket_name

RCLONE = shutil.which("rclone", path="/usr/bin:/usr/local/bin")
pytestmark = pytest.mark.skipif(
    RCLONE is None, reason="rclone is not installed (scripts/setup.sh --test installs it)")


@pytest.fixture
def rclone(server, tmp_path, home):
    config = tmp_path / "rclone.conf"
    config.write_text("")
    env = base_env(home)  # no AWS_CA_BUNDLE and friends: rclone refuses them on plain HTTP
    env.update({
        "RCLONE_CONFIG": str(config),
        "RCLONE_CONFIG_CUBBY_TYPE": "s3",
        "RCLONE_CONFIG_CUBBY_PROVIDER": "Other",
        "RCLONE_CONFIG_CUBBY_ENDPOINT": server.endpoint,
        "RCLONE_CONFIG_CUBBY_ACCESS_KEY_ID": server.access_key,
        "RCLONE_CONFIG_CUBBY_SECRET_ACCESS_KEY": server.secret_key,
        "RCLONE_CONFIG_CUBBY_REGION": server.region,
        "RCLONE_CONFIG_CUBBY_FORCE_PATH_STYLE": "true",
    })

    def run(*args):
        cmd = [RCLONE, "--retries", "1", "--low-level-retries", "1",
               "--s3-upload-cutoff", "10M", "--s3-chunk-size", "5M"] + list(args)
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr)
        return result

    return run


def test_rclone_copy_check_sync(rclone, server, tmp_path):
    s3 = make_client(server)
    bucket = new_bucket_name("rclone")
    s3.create_bucket(Bucket=bucket)
    src = tmp_path / "src"
    filetree.make_tree(src, small=12, big_sizes=(12 * filetree.MIB + 1,))
    remote = f"cubby:{bucket}/data"

    rclone("copy", str(src), remote)
    want = filetree.tree_digests(src)
    assert filetree.bucket_digests(s3, bucket, "data/") == want
    # The big file went up in parts (its ETag is a multipart ETag).
    assert s3.head_object(Bucket=bucket, Key="data/big/big0.bin")["ETag"].endswith('-3"')
    rclone("check", str(src), remote)
    rclone("check", "--download", str(src), remote)

    (src / "f000.txt").unlink()
    filetree.write_file(src, "a/f001.txt", b"rclone changed this file")
    filetree.write_file(src, "added/new.txt", b"added")
    rclone("sync", str(src), remote)
    want = filetree.tree_digests(src)
    assert filetree.bucket_digests(s3, bucket, "data/") == want
    rclone("check", "--download", str(src), remote)

    rclone("copy", remote, str(tmp_path / "back"))
    assert filetree.tree_digests(tmp_path / "back") == want
