"""--ephemeral: a throwaway instance in a temp folder, with a generated in-memory root key, one
JSON ready line on stdout, and nothing left behind after exit."""

import json
import os
import re
import signal
import subprocess
import threading
import time

import pytest

import cubby_e2e
from appliance import Endpoint, Process, http_get, start_ephemeral
from cubby_e2e import make_client, new_bucket_name


def _temp_dirs(tmpdir):
    return sorted(p for p in os.listdir(tmpdir) if p.startswith("cubby-ephemeral-"))


def test_ephemeral_ready_line_serves_and_cleans_up(cubby_bin, tmp_path, home):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    p, ready = start_ephemeral(cubby_bin, tmpdir, home=home)
    try:
        assert list(ready) == ["ready", "s3_endpoint", "access_key_id", "secret_access_key",
                               "cosi_endpoint"]
        assert ready["ready"] is True and ready["cosi_endpoint"] is None
        assert re.fullmatch(r"http://127\.0\.0\.1:[0-9]+", ready["s3_endpoint"])
        assert ready["access_key_id"] and len(ready["secret_access_key"]) >= 20
        dirs = _temp_dirs(tmpdir)
        assert len(dirs) == 1
        data = tmpdir / dirs[0]
        assert not (data / "root-credentials").exists()
        assert oct(data.stat().st_mode & 0o777) == "0o700"

        ep = Endpoint(ready["s3_endpoint"], ready["access_key_id"], ready["secret_access_key"])
        s3 = make_client(ep)
        bucket = new_bucket_name()
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="k", Body=b"hello")
        assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"hello"
        assert http_get(ep.endpoint + "/_cubby/ready")[0] == 200
    finally:
        code = p.stop()
    assert code == 0, p.output()
    # stdout held exactly the ready line, all the logs went to stderr, and the secret only
    # ever appeared on that line.
    assert len(p.stdout_lines) == 1, p.output()
    assert any("msg=request" in l for l in p.stderr_lines)
    assert ready["secret_access_key"] not in "\n".join(p.stderr_lines)
    assert _temp_dirs(tmpdir) == []


def test_ephemeral_from_environment_with_cosi(cubby_bin, tmp_path, home):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    sock = tmp_path / "cosi.sock"
    p = Process(cubby_bin, [], env={"CUBBY_EPHEMERAL": "1", "TMPDIR": str(tmpdir),
                                    "COSI_ENDPOINT": f"unix://{sock}"}, home=home)
    try:
        p.wait_for(r"^\{")
        ready = json.loads(p.stdout_lines[0])
        assert ready["cosi_endpoint"] == f"unix://{sock}"
        assert sock.exists()
    finally:
        code = p.stop()
    assert code == 0
    assert not sock.exists()
    assert _temp_dirs(tmpdir) == []


def test_ephemeral_keys_differ_per_instance(cubby_bin, tmp_path, home):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    a, ra = start_ephemeral(cubby_bin, tmpdir, home=home)
    b, rb = start_ephemeral(cubby_bin, tmpdir, home=home)
    try:
        assert ra["s3_endpoint"] != rb["s3_endpoint"]
        assert ra["access_key_id"] != rb["access_key_id"]
        assert ra["secret_access_key"] != rb["secret_access_key"]
        # a's key does not work on b.
        s3 = make_client(Endpoint(rb["s3_endpoint"], ra["access_key_id"],
                                  ra["secret_access_key"]))
        with pytest.raises(s3.exceptions.ClientError):
            s3.list_buckets()
    finally:
        assert a.stop() == 0 and b.stop() == 0
    assert _temp_dirs(tmpdir) == []


def test_ephemeral_honours_an_explicit_address_and_ignores_data_dir(cubby_bin, tmp_path, home):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    unused = tmp_path / "not-used"
    p, ready = start_ephemeral(cubby_bin, tmpdir, home=home,
                               args=["--s3-address", "127.0.0.1:0", "--data-dir", str(unused)])
    try:
        assert ready["s3_endpoint"].startswith("http://127.0.0.1:")
    finally:
        assert p.stop() == 0
    assert not unused.exists()


def test_invalid_ephemeral_value_exits_2(cubby_bin, home):
    r = subprocess.run([cubby_bin], env=dict(cubby_e2e.base_env(home), CUBBY_EPHEMERAL="maybe"),
                       capture_output=True, timeout=30)
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr.startswith(b"cubby: CUBBY_EPHEMERAL: expected 1/true/yes or 0/false/no")


def test_second_signal_exits_at_once_and_still_cleans_up(cubby_bin, tmp_path, home):
    """First SIGTERM: a stalled upload holds the shutdown for the grace period (60 s here);
    a second SIGTERM ends the process at once with 128+15, and the temp folder is gone."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    p, ready = start_ephemeral(cubby_bin, tmpdir, home=home, args=["--shutdown-grace", "60s"])
    ep = Endpoint(ready["s3_endpoint"], ready["access_key_id"], ready["secret_access_key"])
    s3 = make_client(ep)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    # A signed PUT that announces 10 MiB and sends 1 KiB, then stalls. "Expect: 100-continue"
    # tells us when the server is inside the handler reading the body.
    import socket
    from botocore.awsrequest import AWSRequest
    host = f"{ep.host}:{ep.port}"
    req = AWSRequest(method="PUT", url=f"http://{host}/{bucket}/stalled",
                     headers={"Host": host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
                              "Content-Length": str(10 << 20), "Expect": "100-continue"})
    cubby_e2e.sign_request(req, ep.access_key, ep.secret_key, payload_hash="UNSIGNED-PAYLOAD")
    conn = socket.create_connection((ep.host, ep.port), timeout=30)
    head = f"PUT /{bucket}/stalled HTTP/1.1\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in req.headers.items()) + "\r\n"
    conn.sendall(head.encode())
    try:
        assert conn.recv(4096).startswith(b"HTTP/1.1 100 Continue")
        conn.sendall(b"x" * 1024)
        p.proc.send_signal(signal.SIGTERM)
        p.wait_for("shutting down", "stderr")
        start = time.monotonic()
        with pytest.raises(subprocess.TimeoutExpired):
            p.proc.wait(1.0)  # the grace period holds the first signal
        p.proc.send_signal(signal.SIGTERM)
        code = p.proc.wait(10)
        assert time.monotonic() - start < 10
    finally:
        conn.close()
        p.kill()
    assert code == 128 + signal.SIGTERM
    assert _temp_dirs(tmpdir) == []
