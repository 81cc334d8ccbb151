"""A 256 MiB object through one PUT and one GET, streamed: byte-identical, bounded server memory."""

import hashlib
import os
import shutil

from cubby_e2e import make_client

SIZE = 256 * (1 << 20)
RSS_LIMIT_KIB = 128 * 1024
CHUNK = 1 << 20


def _write_file(path):
    """256 distinct 1 MiB chunks (a random base with the chunk number stamped in)."""
    base = bytearray(os.urandom(CHUNK))
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        for i in range(SIZE // CHUNK):
            base[0:8] = i.to_bytes(8, "little")
            base[CHUNK // 2:CHUNK // 2 + 8] = (i * 7919).to_bytes(8, "little")
            f.write(base)
            digest.update(base)
    return digest.hexdigest()


def test_256mib_put_get(server, tmp_path):
    s3 = make_client(server, read_timeout=600)
    bucket = "large"
    s3.create_bucket(Bucket=bucket)
    path = tmp_path / "big.bin"
    want_sha = _write_file(path)
    assert os.path.getsize(path) == SIZE

    # put_object with a file object: one PUT with Content-Length, never multipart.
    with open(path, "rb") as f:
        put = s3.put_object(Bucket=bucket, Key="big.bin", Body=f)
    md5 = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(CHUNK), b""):
            md5.update(chunk)
    assert put["ETag"] == f'"{md5.hexdigest()}"'

    head = s3.head_object(Bucket=bucket, Key="big.bin")
    assert head["ContentLength"] == SIZE

    got = s3.get_object(Bucket=bucket, Key="big.bin")
    assert got["ContentLength"] == SIZE
    digest = hashlib.sha256()
    n = 0
    body = got["Body"]
    for chunk in iter(lambda: body.read(CHUNK), b""):
        digest.update(chunk)
        n += len(chunk)
    assert n == SIZE
    assert digest.hexdigest() == want_sha

    # A range deep inside the object comes back from the right place.
    off = 200 * CHUNK + 12345
    part = s3.get_object(Bucket=bucket, Key="big.bin", Range=f"bytes={off}-{off + 99}")
    with open(path, "rb") as f:
        f.seek(off)
        assert part["Body"].read() == f.read(100)

    peak = server.peak_rss_kib()
    print(f"server peak RSS {peak} KiB")
    assert peak < RSS_LIMIT_KIB, f"server peak RSS {peak} KiB >= {RSS_LIMIT_KIB} KiB"

    # Don't leave half a GiB in the build folder's pytest temp dir.
    assert server.stop() == 0
    path.unlink()
    shutil.rmtree(server.data_dir)
