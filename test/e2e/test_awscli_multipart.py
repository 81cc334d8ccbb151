"""The aws cli at its default transfer settings (multipart above 8 MiB, 8 MiB parts, 10 threads):
a 1 GiB `aws s3 cp` up and down with bounded server memory, and `aws s3 sync` of a tree."""

import os
import re
import shutil
import subprocess
import time

import pytest

import filetree
from cubby_e2e import aws_cli_binary, client_env, make_client, new_bucket_name

GIB = 1 << 30
RSS_LIMIT_KIB = 256 * 1024


@pytest.fixture
def aws(server, tmp_path, home):
    # A clean config: no multipart_threshold / multipart_chunksize override, so the cli's own
    # defaults apply.
    config = tmp_path / "aws-config-defaults"
    config.write_text("[default]\nregion = us-east-1\noutput = json\ncli_pager =\n"
                      "s3 =\n    addressing_style = path\n")
    env = client_env(server, home, extra={"AWS_CONFIG_FILE": str(config),
                                          "AWS_MAX_ATTEMPTS": "1"})
    binary = aws_cli_binary()

    def run(*args, timeout=600, check=True):
        cmd = [binary, "--endpoint-url", server.endpoint, "--no-cli-pager"] + list(args)
        start = time.monotonic()
        result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                                stdin=subprocess.DEVNULL, cwd=tmp_path)
        print(f"{' '.join(args[:2])}: {time.monotonic() - start:.1f}s")
        if check:
            assert result.returncode == 0, (cmd, result.returncode, result.stdout, result.stderr,
                                            server.output()[-6000:])
        return result

    return run


def test_1gib_cp_up_and_down(aws, server, tmp_path):
    s3 = make_client(server)
    bucket = new_bucket_name("big")
    s3.create_bucket(Bucket=bucket)
    src = tmp_path / "big.bin"
    want = filetree.write_big_file(src, GIB, seed=42)
    try:
        aws("s3", "cp", "--no-progress", "big.bin", f"s3://{bucket}/big.bin")
        peak_up = server.peak_rss_kib()
        print(f"server peak RSS after the upload: {peak_up} KiB")
        src.unlink()

        head = s3.head_object(Bucket=bucket, Key="big.bin")
        assert head["ContentLength"] == GIB
        assert head["ETag"].endswith('-128"'), head["ETag"]  # 8 MiB parts
        assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []

        aws("s3", "cp", "--no-progress", f"s3://{bucket}/big.bin", "back.bin")
        back = tmp_path / "back.bin"
        assert back.stat().st_size == GIB
        assert filetree.sha256_file(back) == want
        back.unlink()

        assert peak_up < RSS_LIMIT_KIB, f"peak RSS {peak_up} KiB during the upload"
        peak = server.peak_rss_kib()
        print(f"server peak RSS after the download: {peak} KiB")
        assert peak < RSS_LIMIT_KIB, f"peak RSS {peak} KiB during the download"
    finally:
        for p in (src, tmp_path / "back.bin"):
            if p.exists():
                p.unlink()
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


_LS_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +(\d+) (.+)$")


def _ls_recursive(aws, bucket):
    out = aws("s3", "ls", "--recursive", f"s3://{bucket}/").stdout
    got = {}
    for line in out.splitlines():
        m = _LS_LINE.match(line)
        assert m, f"unexpected `aws s3 ls` line {line!r}"
        got[m.group(2)] = int(m.group(1))
    return got


def test_sync_tree(aws, server, tmp_path):
    s3 = make_client(server)
    bucket = new_bucket_name("sync")
    s3.create_bucket(Bucket=bucket)
    tree = tmp_path / "tree"
    filetree.make_tree(tree, small=50)

    aws("s3", "sync", "--no-progress", "tree", f"s3://{bucket}/tree/")
    want = filetree.tree_digests(tree)
    assert len(want) == 52
    assert filetree.bucket_digests(s3, bucket, "tree/") == want

    # Change some (content and size; one same size with a newer mtime), add some, remove some.
    # The same-size file gets an mtime 1 ms after its upload, as the listing (millisecond
    # precision, what sync compares) reports it: newer than that upload (so sync sends it) and
    # older than the next one (so a third sync has nothing to do). A whole second after it was
    # a race: the second upload can come within that second on a fast machine.
    listed = s3.list_objects_v2(Bucket=bucket, Prefix="tree/d/f004.txt")["Contents"]
    uploaded = listed[0]["LastModified"].timestamp()
    filetree.write_file(tree, "a/f001.txt", b"changed and longer " * 300)
    filetree.write_file(tree, "a/b/f002.txt", b"")
    old = (tree / "d/f004.txt").read_bytes()
    filetree.write_file(tree, "d/f004.txt", bytes(b ^ 0xFF for b in old))
    os.utime(tree / "d/f004.txt", (uploaded + 0.001, uploaded + 0.001))
    filetree.write_big_file(tree / "big/big0.bin", 10 * filetree.MIB + 3, seed=9)
    for rel in ("f000.txt", "a/b/c/f003.txt", "x/y/z/w/f006.txt", "big/big1.bin"):
        (tree / rel).unlink()
    filetree.write_file(tree, "new/dir/n1.txt", b"new one")
    filetree.write_file(tree, "new/n2.txt", os.urandom(3000))
    filetree.write_big_file(tree / "new/big2.bin", 9 * filetree.MIB, seed=10)

    out = aws("s3", "sync", "--no-progress", "--delete", "tree", f"s3://{bucket}/tree/").stdout
    assert len([l for l in out.splitlines() if l.startswith("delete: ")]) == 4, out
    want = filetree.tree_digests(tree)
    assert filetree.bucket_digests(s3, bucket, "tree/") == want

    # Nothing left to do the second time.
    out = aws("s3", "sync", "--no-progress", "--delete", "tree", f"s3://{bucket}/tree/").stdout
    assert out.strip() == ""

    assert _ls_recursive(aws, bucket) == {"tree/" + k: size for k, (size, _) in want.items()}

    # And back down into an empty folder.
    aws("s3", "sync", "--no-progress", f"s3://{bucket}/tree/", "down")
    assert filetree.tree_digests(tmp_path / "down") == want

    slow = [l for l in server.all_output().splitlines()
             if (m := re.search(r"duration_ms=([0-9.]+)", l)) and float(m.group(1)) > 5000]
    print("requests slower than 5 s:", *slow, sep="\n")

    out = aws("s3", "rm", "--recursive", f"s3://{bucket}/").stdout
    assert len([l for l in out.splitlines() if l.startswith("delete: ")]) == len(want)
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 0
    # An empty listing prints nothing (the cli exits 1 when nothing matched).
    assert aws("s3", "ls", "--recursive", f"s3://{bucket}/", check=False).stdout.strip() == ""
