"""Local files for the client tests (aws s3 sync, rclone, s3cmd): random trees, streamed big files,
digests, and the bucket's contents as seen through boto3."""

import hashlib
import os
import random

MIB = 1 << 20


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(MIB), b""):
            h.update(chunk)
    return h.hexdigest()


def write_big_file(path, size, seed=0):
    """Writes `size` bytes in 1 MiB pieces (one random base with each piece's number stamped in,
    so no two pieces are equal) without holding the file in memory; returns its sha256."""
    rng = random.Random(seed)
    base = bytearray(rng.randbytes(MIB))
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        written, i = 0, 0
        while written < size:
            base[0:8] = i.to_bytes(8, "little")
            base[MIB // 2:MIB // 2 + 8] = (i * 7919 + seed).to_bytes(8, "little")
            piece = base[:min(MIB, size - written)]
            f.write(piece)
            digest.update(piece)
            written += len(piece)
            i += 1
    return digest.hexdigest()


def write_file(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def make_tree(root, small=50, big_sizes=(9 * MIB, 12 * MIB + 5), seed=1):
    """`small` small files spread over nested folders plus a few big ones; returns rel paths."""
    rng = random.Random(seed)
    dirs = ["", "a", "a/b", "a/b/c", "d", "d/e f", "x/y/z/w"]
    rels = []
    for i in range(small):
        rel = os.path.join(dirs[i % len(dirs)], f"f{i:03d}.txt")
        write_file(root, rel, rng.randbytes(rng.randrange(0, 20000)))
        rels.append(rel)
    for i, size in enumerate(big_sizes):
        rel = os.path.join("big", f"big{i}.bin")
        os.makedirs(os.path.join(root, "big"), exist_ok=True)
        write_big_file(os.path.join(root, rel), size, seed=seed * 100 + i)
        rels.append(rel)
    return rels


def tree_digests(root):
    """{relative path with '/': (size, sha256)} of every file under root."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            out[rel] = (os.path.getsize(path), sha256_file(path))
    return out


def bucket_digests(s3, bucket, prefix=""):
    """{key without prefix: (size, sha256)} of every object under prefix, bodies streamed."""
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        for obj in page.get("Contents", []):
            body = s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"]
            h, n = hashlib.sha256(), 0
            for chunk in iter(lambda: body.read(MIB), b""):
                h.update(chunk)
                n += len(chunk)
            assert n == obj["Size"], obj["Key"]
            out[obj["Key"][len(prefix):]] = (n, h.hexdigest())
    return out
