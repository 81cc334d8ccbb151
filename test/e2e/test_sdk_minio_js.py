"""minio-js 8 (test/e2e/js_minio, exact versions in its package-lock.json): bucket and object
tagging. minio-js sends PutBucketTagging with Content-MD5 and accepts only 200 for it.

`npm ci` runs at test time into a temporary folder; the test is skipped when node or npm are
missing or `npm ci` fails (no registry), as it needs the package."""

import json
import os
import shutil
import subprocess

import pytest

import cubby_e2e
from cubby_e2e import base_env, new_bucket_name

JS_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js_minio")
FILES = ("package.json", "package-lock.json", "minio_tagging.mjs")

_NODE = shutil.which("node", path=os.environ.get("PATH", "") + ":/usr/local/bin:/usr/bin")
_NPM = shutil.which("npm", path=os.environ.get("PATH", "") + ":/usr/local/bin:/usr/bin")
pytestmark = pytest.mark.skipif(
    not (_NODE and _NPM),
    reason="node and npm are not installed (scripts/setup.sh --test installs them)")


@pytest.fixture(scope="module")
def js_dir(tmp_path_factory):
    work = str(tmp_path_factory.mktemp("js_minio"))
    for name in FILES:
        shutil.copyfile(os.path.join(JS_SRC, name), os.path.join(work, name))
    # The runner's own environment: npm needs its network settings and CA files.
    env = dict(cubby_e2e.ORIGINAL_ENV or os.environ)
    env.setdefault("npm_config_cache", os.path.join(work, ".npm-cache"))
    result = subprocess.run(
        [_NPM, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=work, env=env,
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        pytest.skip(f"npm ci failed (no registry?)\n{result.stdout}\n{result.stderr}")
    return work


def test_minio_js_bucket_and_object_tagging(server, js_dir, home):
    env = base_env(home)
    env.update({
        "S3_ENDPOINT": server.endpoint,
        "AWS_REGION": server.region,
        "AWS_ACCESS_KEY_ID": server.access_key,
        "AWS_SECRET_ACCESS_KEY": server.secret_key,
        "BUCKET": new_bucket_name("mjs"),
    })
    result = subprocess.run([_NODE, "minio_tagging.mjs"], cwd=js_dir, env=env,
                            capture_output=True, text=True, timeout=300,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, (result.stdout, result.stderr)
    r = json.loads(result.stdout.strip().splitlines()[-1])
    failed = {k: v for k, v in r.items() if not v["ok"] and k != "getBucketTaggingAfterRemove"}
    assert not failed, failed
    assert sorted((t["Key"], t["Value"]) for t in r["getBucketTagging"]["value"]) == \
        [("env", "dev"), ("team", "web")]
    assert [(t["Key"], t["Value"]) for t in r["getObjectTagging"]["value"]] == [("k", "v")]
    # No tag set left: GetBucketTagging is NoSuchTagSet, as S3 answers.
    assert "NoSuchTagSet" in r["getBucketTaggingAfterRemove"]["error"]
