"""A full disk (issue 12, bug 1): cubby on a real 64 MiB tmpfs, driven by boto3.

Writes that cannot fit answer 507 InsufficientStorage at once (no client retry); reads,
listings, DELETE and DeleteObjects keep working; writes come back without a restart once space
is freed, also after another process filled the volume to the last byte under load (then
nothing reaches RocksDB, deletes included, so it never meets ENOSPC on its log); readiness and
metrics say so; after a restart every acknowledged object is intact. Needs root to mount the
tmpfs.
"""

import hashlib
import os
import re
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest
from botocore.exceptions import ClientError

import http.client
import urllib.parse

import cubby_e2e
from cubby_e2e import make_client, new_bucket_name, presign_url

MiB = 1 << 20
FS_BYTES = 64 * MiB
RESERVE = 16 * MiB
TICK_WAIT = 10.0  # the server re-reads its capacity every 2 s


# The volume of the test under load: RocksDB may keep up to max_total_wal_size (64 MiB) of
# write-ahead log before it flushes, so on a 64 MiB volume its own logs could take all the space
# the filler leaves, and freeing the filler would free next to nothing.
LOADED_FS_BYTES = 256 * MiB


@pytest.fixture
def small_fs():
    """A fresh 64 MiB tmpfs, unmounted at teardown even when the test fails."""
    yield from tmpfs(FS_BYTES)


@pytest.fixture
def loaded_fs():
    """A fresh tmpfs of LOADED_FS_BYTES, unmounted at teardown even when the test fails."""
    yield from tmpfs(LOADED_FS_BYTES)


def tmpfs(size):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount_point = tempfile.mkdtemp(prefix="cubby-full-disk-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              mount_point], capture_output=True, text=True)
    if mounted.returncode != 0:  # root in a container without CAP_SYS_ADMIN
        os.rmdir(mount_point)
        pytest.skip(f"cannot mount a tmpfs: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        if subprocess.run(["umount", mount_point]).returncode != 0:
            subprocess.run(["umount", "-l", mount_point])
        os.rmdir(mount_point)


def admin_get(server, name):
    with urllib.request.urlopen(f"{server.endpoint}/_cubby/{name}", timeout=10) as r:
        return r.status, r.read().decode()


def metric(server, name):
    _, text = admin_get(server, "metrics")
    m = re.search(rf"^{name} (\S+)$", text, re.M)
    assert m, f"no {name} in the metrics"
    return float(m.group(1))


def wait_for_metric(server, name, value):
    deadline = time.monotonic() + TICK_WAIT
    while metric(server, name) != value:
        assert time.monotonic() < deadline, f"{name} did not become {value}"
        time.sleep(0.2)


def wait_for_ready_body(server, body):
    deadline = time.monotonic() + TICK_WAIT
    while admin_get(server, "ready") != (200, body):
        assert time.monotonic() < deadline, f"/_cubby/ready never answered 200 {body!r}"
        time.sleep(0.2)


def wait_for_log(server, text):
    deadline = time.monotonic() + TICK_WAIT
    while text not in server.all_output():
        assert time.monotonic() < deadline, f"the log never said {text!r}"
        time.sleep(0.2)


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def write_filler(path, size):
    """Writes up to `size` bytes of filler (fewer when the disk fills first). Unbuffered: a
    buffered file would keep the tail of a short write and raise ENOSPC again on close."""
    block = b"\0" * MiB
    with open(path, "ab", buffering=0) as f:
        try:
            while size > 0:
                size -= f.write(block[:min(size, MiB)])
        except OSError:
            pass


def assert_insufficient_storage(call):
    started = time.monotonic()
    with pytest.raises(ClientError) as e:
        call()
    err = e.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 507
    assert err["Error"]["Code"] == "InsufficientStorage"
    assert "full" in err["Error"]["Message"]
    assert err["ResponseMetadata"].get("RetryAttempts", 0) == 0
    assert time.monotonic() - started < 5


def assert_objects_intact(s3, bucket, acked):
    listed = set()
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        listed.update(o["Key"] for o in page.get("Contents", []))
    assert listed == set(acked)
    for key, digest in acked.items():
        body = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        assert hashlib.sha256(body).hexdigest() == digest, key


def chunked_put(server, bucket, key, size):
    """A presigned PUT whose body of `size` bytes is sent chunked (no length known in advance).
    Returns the status, or None when the server closed before an answer could be read."""
    url = urllib.parse.urlsplit(presign_url(server, "PUT", f"/{bucket}/{key}"))
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.putrequest("PUT", f"{url.path}?{url.query}", skip_accept_encoding=True)
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        piece = os.urandom(MiB)
        try:
            for _ in range(size // MiB):
                conn.send(b"%x\r\n" % len(piece) + piece + b"\r\n")
            conn.send(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered early and closed
        try:
            return conn.getresponse().status
        except (OSError, http.client.HTTPException):
            return None
    finally:
        conn.close()


def data_files(data_dir):
    return sum(len(files) for _, _, files in os.walk(os.path.join(data_dir, "db", "blobs")))


def put(s3, bucket, key, size, acked):
    body = os.urandom(size)
    s3.put_object(Bucket=bucket, Key=key, Body=body)
    acked[key] = hashlib.sha256(body).hexdigest()


def test_full_disk_refuses_writes_keeps_reads_and_deletes(small_fs, start_server):
    data = os.path.join(small_fs, "data")
    filler = os.path.join(small_fs, "filler")
    srv = start_server(args=["--disk-reserve", "16MiB"], data_dir=data)
    s3 = make_client(srv)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    acked = {}

    # Fill with 4 MiB PUTs: each is refused before its body is stored once it cannot fit.
    for i in range(64):
        try:
            put(s3, bucket, f"big/{i:03d}", 4 * MiB, acked)
        except ClientError as e:
            assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 507
            assert e.response["Error"]["Code"] == "InsufficientStorage"
            break
    else:
        pytest.fail("64 MiB of 4 MiB PUTs never filled a 64 MiB filesystem")
    assert len(acked) >= 3
    assert f"big/{len(acked):03d}" not in [o["Key"] for o in
                                           s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert_insufficient_storage(
        lambda: s3.put_object(Bucket=bucket, Key="too-big", Body=os.urandom(4 * MiB)))

    # A body of unknown size stops at the reserve and leaves no file behind.
    assert chunked_put(srv, bucket, "chunked", 24 * MiB) == 507
    assert "chunked" not in [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]]
    assert data_files(data) == len(acked)
    assert free_bytes(small_fs) >= RESERVE

    # Something else takes the rest of the disk down into the reserve: nothing may be written.
    write_filler(filler, free_bytes(small_fs) - RESERVE + MiB)
    assert_insufficient_storage(lambda: s3.put_object(Bucket=bucket, Key="small", Body=b"x" * 1024))
    assert_insufficient_storage(lambda: s3.create_multipart_upload(Bucket=bucket, Key="mpu"))
    assert_insufficient_storage(lambda: s3.copy_object(
        Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "big/000"}))
    wait_for_metric(srv, "cubby_storage_full", 1)
    wait_for_ready_body(srv, "ready (store full: writes refused)\n")
    assert metric(srv, "cubby_storage_free_bytes") < RESERVE
    assert metric(srv, "cubby_storage_reserve_bytes") == RESERVE

    # Reads and listings keep working.
    assert_objects_intact(s3, bucket, acked)
    assert s3.head_object(Bucket=bucket, Key="big/000")["ContentLength"] == 4 * MiB

    # DELETE and DeleteObjects work and give the space back: writes resume, no restart.
    s3.delete_object(Bucket=bucket, Key="big/000")
    del acked["big/000"]
    doomed = ["big/001", "big/002"]
    result = s3.delete_objects(Bucket=bucket,
                               Delete={"Objects": [{"Key": k} for k in doomed]})
    assert sorted(d["Key"] for d in result["Deleted"]) == doomed
    assert not result.get("Errors")
    for key in doomed:
        del acked[key]
    wait_for_metric(srv, "cubby_storage_full", 0)
    wait_for_ready_body(srv, "ready\n")
    put(s3, bucket, "small", 1024, acked)
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mpu")
    s3.abort_multipart_upload(Bucket=bucket, Key="mpu", UploadId=upload["UploadId"])

    wait_for_log(srv, "store has space again")
    log = srv.all_output()
    assert log.count("store full: writes refused") == 1, log
    assert log.count("store has space again") == 1, log
    assert "cannot release idle memory" not in log

    assert srv.stop() == 0
    srv = start_server(args=["--disk-reserve", "16MiB"], data_dir=data)
    assert_objects_intact(make_client(srv), bucket, acked)


def admin_status(server, name):
    try:
        return admin_get(server, name)[0]
    except urllib.error.HTTPError as e:
        return e.code


def fill_disk(path):
    """Takes every free byte of the filesystem (as another process on the volume would), again
    when cubby frees some meanwhile (a flush deletes old write-ahead logs): at most 20 times."""
    for _ in range(20):
        write_filler(path, 1 << 40)
        if free_bytes(os.path.dirname(path)) < MiB:
            return
    assert free_bytes(os.path.dirname(path)) < MiB


class Writers:
    """Threads that PUT 200 KiB objects (RocksDB holds them: its WAL, memtables and blob files)
    and delete some again, each on keys of its own, recording what was acknowledged. Every
    answer must be a success or 507: a 500, a reset connection or a dead server fails the test."""

    def __init__(self, server, bucket, acked, threads=3):
        self.server, self.bucket, self.acked = server, bucket, acked
        self.stop_event = threading.Event()
        self.unexpected = []
        self.refused = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.run, args=(n,)) for n in range(threads)]

    def run(self, n):
        s3 = make_client(self.server)
        i = 0
        while not self.stop_event.is_set():
            key = f"w{n}/{i:05d}"
            i += 1
            body = os.urandom(200 << 10)
            try:
                s3.put_object(Bucket=self.bucket, Key=key, Body=body)
                with self.lock:
                    self.acked[key] = hashlib.sha256(body).hexdigest()
                if i % 3 == 0:
                    s3.delete_object(Bucket=self.bucket, Key=key)
                    with self.lock:
                        del self.acked[key]
            except ClientError as e:
                status = e.response["ResponseMetadata"]["HTTPStatusCode"]
                if status == 507:
                    with self.lock:
                        self.refused += 1
                    time.sleep(0.02)
                else:
                    self.unexpected.append(f"{key}: {status} {e.response['Error']}")
                    return
            except Exception as e:  # noqa: BLE001 - a dead server shows up as any of many
                self.unexpected.append(f"{key}: {e!r}")
                return

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop_event.set()
        for t in self.threads:
            t.join(60)


# Another process fills the volume to the last byte while cubby writes: RocksDB must never be
# left to meet ENOSPC on its write-ahead log (Debian's RocksDB 7.8 can then abort the process
# on a later write). With the reserve at 0 the engine's headroom still applies. Three rounds
# of fill and free on one server; after each, writes come back without a restart (or, in the
# one case RocksDB cannot resume in-process, /_cubby/live asks for the restart); after a
# restart every acknowledged object is intact.
def test_disk_filled_by_another_process_under_load(loaded_fs, start_server):
    data = os.path.join(loaded_fs, "data")
    filler = os.path.join(loaded_fs, "filler")
    srv = start_server(args=["--disk-reserve", "0"], data_dir=data)
    s3 = make_client(srv)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    acked = {}
    put(s3, bucket, "keep", 1 << 10, acked)

    for round_ in range(3):
        with Writers(srv, bucket, acked) as writers:
            time.sleep(0.5)
            fill_disk(filler)
            deadline = time.monotonic() + 10
            while writers.refused < 5 and not writers.unexpected:
                assert time.monotonic() < deadline, "no write was refused on a full disk"
                time.sleep(0.05)
            time.sleep(0.5)  # writers keep hammering the full disk
        assert not writers.unexpected, writers.unexpected
        assert srv.proc.poll() is None, f"cubby died:\n{srv.all_output()[-3000:]}"

        # Full to the last byte: below the headroom even a delete is refused, cleanly.
        assert_insufficient_storage(lambda: s3.put_object(Bucket=bucket, Key="x", Body=b"x"))
        assert_insufficient_storage(lambda: s3.delete_object(Bucket=bucket, Key="keep"))
        wait_for_metric(srv, "cubby_storage_full", 1)
        assert_objects_intact(s3, bucket, acked)  # reads keep working

        os.remove(filler)
        deadline = time.monotonic() + TICK_WAIT
        while metric(srv, "cubby_storage_full") != 0 and admin_status(srv, "live") == 200:
            assert time.monotonic() < deadline, "writes never came back"
            time.sleep(0.2)
        if admin_status(srv, "live") == 503:
            assert "store needs a restart" in srv.all_output()
            assert srv.stop() == 0
            srv = start_server(args=["--disk-reserve", "0"], data_dir=data)
            s3 = make_client(srv)
        put(s3, bucket, f"after-{round_}", 1 << 10, acked)
        s3.delete_object(Bucket=bucket, Key=f"after-{round_}")
        del acked[f"after-{round_}"]

    assert srv.stop() == 0
    srv = start_server(args=["--disk-reserve", "0"], data_dir=data)
    assert_objects_intact(make_client(srv), bucket, acked)
