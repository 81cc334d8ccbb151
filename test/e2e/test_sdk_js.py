"""The current @aws-sdk/client-s3 and @aws-sdk/lib-storage (test/e2e/js, exact versions in its
package-lock.json) at their default settings: CRC32 flexible checksums, aws-chunked stream bodies
with checksum trailers, GetObject with ChecksumMode ENABLED, a 100 MiB multipart Upload,
CopyObject, ListObjectsV2 pagination and DeleteObjects. js/sdk_e2e.mjs prints JSON; this file
asserts on it.

`npm ci` runs at test time into E2E_JS_WORKDIR (set by test/e2e/CMakeLists.txt to a folder in the
build tree) and is skipped when that folder already holds the same lock file.
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

import pytest

import cubby_e2e
from cubby_e2e import base_env, new_bucket_name

JS_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js")
FILES = ("package.json", "package-lock.json", "sdk_e2e.mjs")

_NODE = shutil.which("node", path=os.environ.get("PATH", "") + ":/usr/local/bin:/usr/bin")
_NPM = shutil.which("npm", path=os.environ.get("PATH", "") + ":/usr/local/bin:/usr/bin")
pytestmark = pytest.mark.skipif(
    not (_NODE and _NPM),
    reason="node and npm are not installed (scripts/setup.sh --test installs them)")


def _node_major():
    out = subprocess.run([_NODE, "-p", "process.versions.node"], capture_output=True, text=True,
                         check=True).stdout
    return int(out.split(".")[0])


@pytest.fixture(scope="module")
def js_dir(tmp_path_factory):
    assert _node_major() >= 20, "@aws-sdk/client-s3 needs node >= 20 (scripts/setup.sh --test)"
    work = cubby_e2e.ORIGINAL_ENV.get("E2E_JS_WORKDIR") or str(tmp_path_factory.mktemp("js"))
    os.makedirs(work, exist_ok=True)
    for name in FILES:
        shutil.copyfile(os.path.join(JS_SRC, name), os.path.join(work, name))
    with open(os.path.join(JS_SRC, "package-lock.json"), "rb") as f:
        lock_sha = hashlib.sha256(f.read()).hexdigest()
    stamp = os.path.join(work, "node_modules", ".cubby-lock-sha256")
    if not (os.path.exists(stamp) and open(stamp).read() == lock_sha):
        # The runner's own environment: npm needs its network settings and CA files.
        env = dict(cubby_e2e.ORIGINAL_ENV or os.environ)
        env.setdefault("npm_config_cache", os.path.join(work, ".npm-cache"))
        result = subprocess.run(
            [_NPM, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=work, env=env,
            capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, f"npm ci failed\n{result.stdout}\n{result.stderr}"
        with open(stamp, "w") as f:
            f.write(lock_sha)
    return work


def test_sdk_js_defaults(server, js_dir, home):
    bucket = new_bucket_name("js")
    env = base_env(home)
    env.update({
        "S3_ENDPOINT": server.endpoint,
        "AWS_REGION": server.region,
        "AWS_ACCESS_KEY_ID": server.access_key,
        "AWS_SECRET_ACCESS_KEY": server.secret_key,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": os.path.join(str(home), "no-such-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": os.path.join(str(home), "no-such-aws-credentials"),
        "BUCKET": bucket,
        "UPLOAD_MIB": "100",
    })
    result = subprocess.run([_NODE, "sdk_e2e.mjs"], cwd=js_dir, env=env, capture_output=True,
                            text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, (result.stdout, result.stderr)
    r = json.loads(result.stdout.strip().splitlines()[-1])
    failed = {k: v for k, v in r.items() if isinstance(v, dict) and not v.get("ok")}
    assert not failed, json.dumps(failed, indent=1)

    # PutObject with a Buffer: a CRC32 checksum goes along (defaults to WHEN_SUPPORTED) and the
    # server answers with the same value.
    put = r["putBuffer"]
    assert put["request"]["checksumHeaders"] == ["x-amz-checksum-crc32"], put["request"]
    assert put["checksumCRC32"] == put["wantCRC32"]
    # A stream body goes aws-chunked with the CRC32 in a trailer.
    put = r["putStream"]
    assert put["request"]["trailer"] == "x-amz-checksum-crc32", put["request"]
    assert "aws-chunked" in (put["request"]["contentEncoding"] or ""), put["request"]
    assert put["checksumCRC32"] == put["wantCRC32"]

    for name in ("getBuffer", "getStream"):
        got = r[name]
        assert got["sha256"] == got["wantSha256"], name
        assert got["checksumCRC32"] == got["wantCRC32"], name
    assert r["getBuffer"]["contentType"] == "text/plain"
    assert r["getBuffer"]["metadata"] == {"origin": "sdk-js"}

    up = r["upload"]
    assert up["parts"] == 20  # 100 MiB in lib-storage's default 5 MiB parts
    assert up["length"] == up["wantLength"] == up["headLength"] == 100 << 20
    assert up["sha256"] == up["wantSha256"]
    assert up["headETag"].endswith('-20"'), up["headETag"]
    assert up["etag"].strip('"') == up["headETag"].strip('"')
    # lib-storage buffers each part, so a part carries its CRC32 as a header.
    assert up["firstPart"]["checksumHeaders"] == ["x-amz-checksum-crc32"], up["firstPart"]

    cp = r["copy"]
    assert cp["sha256"] == cp["wantSha256"]
    assert cp["metadata"] == {"origin": "sdk-js"}  # COPY keeps the source's metadata
    assert cp["contentType"] == "text/plain"

    pages = r["listPages"]["pages"]
    assert [len(p["keys"]) for p in pages] == [10, 10, 5]
    assert [p["isTruncated"] for p in pages] == [True, True, False]
    assert [p["keyCount"] for p in pages] == [10, 10, 5]
    keys = [k for p in pages for k in p["keys"]]
    assert keys == [f"list/k{i:02d}" for i in range(25)]

    dele = r["deleteObjects"]
    # DeleteObjects reports a key that never existed as deleted too, as AWS does.
    assert dele["deleted"] == sorted([f"list/k{i:02d}" for i in range(25)] + ["list/never-existed"])
    assert dele["errors"] == []
    assert dele["remaining"] == 0
