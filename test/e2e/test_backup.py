"""Online backup and restore: `cubby backup` and POST /_cubby/backup.

A backup taken while writers PUT (small and large), overwrite and delete restores every object
acknowledged before the backup began, byte-identical, and nothing half-written; the admin API
refuses anonymous and non-root callers and bad targets; the subcommand's exit codes.
"""

import hashlib
import importlib
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import pytest

from appliance import wait_ready_line
from cubby_e2e import (ROOT_ACCESS_KEY, ROOT_SECRET_KEY, base_env, make_client, md5_hex,
                       new_bucket_name, raw_request)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LARGE = 1536 * 1024  # over the 1 MiB chunk: stored as a data file beside RocksDB
WRITERS = 3
KEYS_PER_WRITER = 6


def body_for(seed, size):
    return random.Random(seed).randbytes(size)


def run_backup(cubby_bin, server, target, env_extra=None, args=(), timeout=120):
    env = base_env(server.data_dir + "-home")
    os.makedirs(env["HOME"], exist_ok=True)
    env.update({"AWS_ACCESS_KEY_ID": ROOT_ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": ROOT_SECRET_KEY})
    env.update(env_extra or {})
    cmd = [cubby_bin, "backup", "--endpoint", server.endpoint, "--to", str(target), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


class Writer(threading.Thread):
    """PUTs (small and large), overwrites and deletes on keys of its own, so each key's
    operations are sequential; records each acknowledged operation as (start, end, md5 or None).
    """

    def __init__(self, server, bucket, index, stop):
        super().__init__(daemon=True)
        self.s3 = make_client(server)
        self.bucket = bucket
        self.keys = [f"w{index}/k{i}" for i in range(KEYS_PER_WRITER)]
        self.history = {k: [] for k in self.keys}
        self.rng = random.Random(index)
        self.stop = stop
        self.error = None

    def run(self):
        try:
            n = 0
            while not self.stop.is_set():
                n += 1
                key = self.rng.choice(self.keys)
                start = time.monotonic()
                if self.rng.random() < 0.2:
                    self.s3.delete_object(Bucket=self.bucket, Key=key)
                    state = None
                else:
                    size = LARGE + self.rng.randrange(4096) if self.rng.random() < 0.3 \
                        else self.rng.randrange(1, 20000)
                    data = body_for(f"{key}/{n}", size)
                    resp = self.s3.put_object(Bucket=self.bucket, Key=key, Body=data)
                    state = md5_hex(data)
                    assert resp["ETag"].strip('"') == state
                self.history[key].append((start, time.monotonic(), state))
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.error = e


def allowed_states(history, backup_start, backup_end):
    """What a backup may hold for one key: the state after its last operation acknowledged
    before the backup began, or after any later one that started before the backup ended."""
    allowed = set()
    last_acked = None
    for i, (_, end, _) in enumerate(history):
        if end < backup_start:
            last_acked = i
    allowed.add(history[last_acked][2] if last_acked is not None else None)
    first_later = 0 if last_acked is None else last_acked + 1
    for start, _, state in history[first_later:]:
        if start < backup_end:
            allowed.add(state)
    return allowed


def test_backup_during_writes_restores_every_acked_object(start_server, cubby_bin, tmp_path):
    srv = start_server()
    s3 = make_client(srv)
    bucket = new_bucket_name("bk")
    s3.create_bucket(Bucket=bucket)
    # Before any writer: a multipart object and a large one, acknowledged long before.
    parts = [body_for("mp1", 5 * 1024 * 1024), body_for("mp2", 1000)]
    up = s3.create_multipart_upload(Bucket=bucket, Key="multi")
    etags = [s3.upload_part(Bucket=bucket, Key="multi", UploadId=up["UploadId"], PartNumber=i + 1,
                            Body=p)["ETag"] for i, p in enumerate(parts)]
    s3.complete_multipart_upload(
        Bucket=bucket, Key="multi", UploadId=up["UploadId"],
        MultipartUpload={"Parts": [{"ETag": e, "PartNumber": i + 1} for i, e in enumerate(etags)]})
    fixed = {"multi": md5_hex(b"".join(parts)), "large": md5_hex(body_for("large", 3 * LARGE))}
    s3.put_object(Bucket=bucket, Key="large", Body=body_for("large", 3 * LARGE))

    stop = threading.Event()
    writers = [Writer(srv, bucket, i, stop) for i in range(WRITERS)]
    for w in writers:
        w.start()
    time.sleep(1.5)
    target = tmp_path / "backup"
    backup_start = time.monotonic()
    done = run_backup(cubby_bin, srv, target)
    backup_end = time.monotonic()
    time.sleep(0.5)
    stop.set()
    for w in writers:
        w.join(timeout=60)
        assert w.error is None, repr(w.error)
    assert done.returncode == 0, done.stderr
    assert "backup complete" in done.stdout
    assert any(srv_line for srv_line in srv.stdout_lines if "msg=\"backup finished\"" in srv_line)
    overlapping = sum(1 for w in writers for h in w.history.values() for (s, e, _) in h
                      if s < backup_end and e > backup_start)
    assert overlapping > 0, "no write ran during the backup"

    # The backup leaves master.key out (issue 16): the original key opens it.
    restored = start_server(data_dir=target,
                            args=["--master-key-file", srv.data_dir + "/master.key"])
    r3 = make_client(restored)
    listed = {o["Key"]: o["ETag"].strip('"') for page in
              r3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
              for o in page.get("Contents", [])}
    # Nothing half-written: every listed object reads whole, with the bytes its ETag names.
    for key, etag in listed.items():
        data = r3.get_object(Bucket=bucket, Key=key)["Body"].read()
        if key != "multi":
            assert md5_hex(data) == etag, key
        listed[key] = md5_hex(data)
    for key, want in fixed.items():
        assert listed.get(key) == want, key
    for w in writers:
        for key, history in w.history.items():
            allowed = allowed_states(history, backup_start, backup_end)
            assert listed.get(key) in allowed, (key, listed.get(key), allowed)
    unknown = set(listed) - set(fixed) - {k for w in writers for k in w.keys}
    assert not unknown


@pytest.fixture(scope="module")
def cosi_stubs():
    out = tempfile.mkdtemp(prefix="backup-cosi-stubs-")
    subprocess.run(["protoc", f"--proto_path={REPO}/proto", "--proto_path=/usr/include",
                    f"--python_out={out}", f"--grpc_python_out={out}",
                    "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
                    f"{REPO}/proto/cosi.proto"], check=True, capture_output=True, timeout=60)
    sys.path.insert(0, out)
    try:
        return importlib.import_module("cosi_pb2"), importlib.import_module("cosi_pb2_grpc")
    finally:
        sys.path.remove(out)


def bucket_key(sock, stubs):
    """A non-root key (a COSI grant on a new bucket): (access key id, secret)."""
    import grpc
    pb, pb_grpc = stubs
    channel = grpc.insecure_channel(f"unix://{sock}",
                                    options=[("grpc.default_authority", "localhost")])
    try:
        provisioner = pb_grpc.ProvisionerStub(channel)
        created = provisioner.DriverCreateBucket(
            pb.DriverCreateBucketRequest(name=f"bucket-{uuid.uuid4()}"), timeout=10)
        granted = provisioner.DriverGrantBucketAccess(
            pb.DriverGrantBucketAccessRequest(bucket_id=created.bucket_id,
                                              name=f"ba-{uuid.uuid4()}",
                                              authentication_type=pb.Key), timeout=10)
        secrets = granted.credentials["s3"].secrets
        return secrets["accessKeyID"], secrets["accessSecretKey"]
    finally:
        channel.close()


def post_backup(srv, target, **kw):
    query = "target=" + urllib.parse.quote(str(target), safe="")
    return raw_request(srv, "POST", "/_cubby/backup", query=query, **kw)


def test_admin_api_refuses_callers_and_targets(start_server, tmp_path, cosi_stubs):
    sock = tmp_path / "cosi.sock"
    srv = wait_ready_line(start_server(env_extra={"COSI_ENDPOINT": f"unix://{sock}"}))
    target = tmp_path / "never"
    key_id, secret = bucket_key(sock, cosi_stubs)

    assert post_backup(srv, target, sign=False).code == "AccessDenied"
    assert post_backup(srv, target, sign=False).status == 403
    refused = post_backup(srv, target, access_key=key_id, secret_key=secret)
    assert (refused.status, refused.code) == (403, "AccessDenied")
    forged = post_backup(srv, target, secret_key="x" * 40)
    assert (forged.status, forged.code) == (403, "SignatureDoesNotMatch")
    state = raw_request(srv, "GET", "/_cubby/backup", sign=False)
    assert (state.status, state.code) == (403, "AccessDenied")
    assert not target.exists()

    full = tmp_path / "full"
    full.mkdir()
    (full / "keep").write_text("precious")
    bad_targets = ["relative/backup", str(full), srv.data_dir + "/inside",
                   str(tmp_path / "no" / "parent"), ""]
    for bad in bad_targets:
        resp = post_backup(srv, bad)
        assert (resp.status, resp.code) == (400, "InvalidArgument"), (bad, resp)
    assert (full / "keep").read_text() == "precious"
    assert raw_request(srv, "PUT", "/_cubby/backup").status == 405

    idle = raw_request(srv, "GET", "/_cubby/backup")
    assert idle.status == 200 and idle.xml().findtext("State") == "none"
    started = post_backup(srv, target)
    assert started.status == 202, started
    job = started.xml().findtext("Id")
    deadline = time.monotonic() + 60
    while True:
        state = raw_request(srv, "GET", "/_cubby/backup").xml()
        if state.findtext("State") != "running":
            break
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert (state.findtext("Id"), state.findtext("State")) == (job, "succeeded")
    assert (target / "db").is_dir()


def test_backup_subcommand(start_server, cubby_bin, tmp_path):
    srv = start_server(root_keys=False)  # a generated root key, in <data>/root-credentials
    s3 = make_client(srv, *read_credentials(srv.data_dir + "/root-credentials"))
    bucket = new_bucket_name("bk")
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"kept")
    creds = ["--credentials-file", srv.data_dir + "/root-credentials"]

    target = tmp_path / "backup"
    ok = run_backup(cubby_bin, srv, target, env_extra={"AWS_ACCESS_KEY_ID": ""}, args=creds)
    assert ok.returncode == 0, ok.stderr
    assert (target / "root-credentials").read_text() == \
        open(srv.data_dir + "/root-credentials").read()

    again = run_backup(cubby_bin, srv, target, args=creds)
    assert again.returncode == 1
    assert "InvalidArgument" in again.stderr and "not an empty folder" in again.stderr
    wrong = run_backup(cubby_bin, srv, tmp_path / "b2")  # env keys are not this server's root
    assert wrong.returncode == 1 and "InvalidAccessKeyId" in wrong.stderr, wrong.stderr
    none = run_backup(cubby_bin, srv, tmp_path / "b3",
                      env_extra={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""})
    assert none.returncode == 2 and "no credentials" in none.stderr
    relative = run_backup(cubby_bin, srv, "rel/dir", args=creds)
    assert relative.returncode == 2 and "absolute" in relative.stderr
    gone = subprocess.run([cubby_bin, "backup", "--endpoint", "http://127.0.0.1:1", "--to",
                           str(tmp_path / "b4"), *creds], capture_output=True, text=True,
                          timeout=60)
    assert gone.returncode == 1 and "Connection refused" in gone.stderr, gone.stderr
    assert not (tmp_path / "b2").exists() and not (tmp_path / "b4").exists()

    # The keyring travels with the backup, the master key never does (issue 16): the restored
    # folder starts with the original key given as a file.
    assert (target / "keyring").exists() and not (target / "master.key").exists()
    srv.stop()
    restored = start_server(root_keys=False, data_dir=target,
                            args=["--master-key-file", srv.data_dir + "/master.key"])
    r3 = make_client(restored, *read_credentials(str(target / "root-credentials")))
    assert r3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"kept"


def read_credentials(path):
    values = dict(line.split(" = ", 1) for line in open(path).read().splitlines() if " = " in line)
    return values["aws_access_key_id"], values["aws_secret_access_key"]
