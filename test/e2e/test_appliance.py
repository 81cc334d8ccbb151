"""Running cubby like an appliance: health endpoints, graceful shutdown with an upload in flight,
connection limits and timeouts, JSON logs and the logged configuration."""

import json
import os
import re
import signal
import socket
import sys
import threading
import time

import pytest

import cubby_e2e
from appliance import Endpoint, Process, http_get, wait_ready_line
from cubby_e2e import ROOT_SECRET_KEY, make_client, new_bucket_name


@pytest.mark.parametrize("path,status,body", [
    ("/_cubby/live", 200, b"live\n"),
    ("/_cubby/ready", 200, b"ready\n"),
    ("/_cubby/ready?verbose=1", 200, b"ready\n"),
    ("/_cubby/nothing", 404, b"not found\n"),
])
def test_health_endpoints_answer_without_auth(server, path, status, body):
    wait_ready_line(server)
    got_status, got_body, headers = http_get(server.endpoint + path)
    assert (got_status, got_body) == (status, body)
    assert headers.get("Cache-Control") == "no-store"


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE"])
def test_health_endpoints_refuse_other_methods(server, method):
    r = cubby_e2e.raw_request(server, method, "/_cubby/ready", sign=False)
    assert r.status == 405
    assert r.header("Allow") == "GET, HEAD"


def test_head_on_health_endpoint(server):
    r = cubby_e2e.raw_request(server, "HEAD", "/_cubby/live", sign=False)
    assert r.status == 200 and r.body == b""


def test_s3_requests_still_need_auth_next_to_health(server):
    r = cubby_e2e.raw_request(server, "GET", "/", sign=False)
    assert r.status == 403


def test_sigterm_lets_large_upload_finish(start_server, tmp_path):
    """A 200 MiB PUT in flight when SIGTERM arrives completes with 200, the process exits 0,
    the object reads back after a restart, and the COSI socket is gone afterwards."""
    sock = tmp_path / "cosi.sock"
    data_dir = tmp_path / "data-shutdown"
    data_dir.mkdir()
    srv = wait_ready_line(start_server(data_dir=data_dir,
                                       env_extra={"COSI_ENDPOINT": f"unix://{sock}"}))
    assert sock.exists()
    s3 = make_client(srv)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    size = 200 << 20
    body = _PatternFile(size)
    result = {}

    def upload():
        try:
            resp = s3.put_object(Bucket=bucket, Key="big", Body=body, ContentLength=size)
            result["status"] = resp["ResponseMetadata"]["HTTPStatusCode"]
        except Exception as e:  # noqa: BLE001 - reported below
            result["error"] = repr(e)

    t = threading.Thread(target=upload)
    t.start()
    assert body.sending.wait(120), "upload did not start"
    srv.proc.send_signal(signal.SIGTERM)
    t.join(180)
    assert not t.is_alive()
    assert result.get("status") == 200, (result, srv.output())
    assert body.sent_after_signal_started, "the signal did not land mid-upload"
    # The process ends by itself (a second SIGTERM from stop() would mean "exit now").
    srv.proc.wait(60)
    code = srv.stop()
    assert code == 0, srv.output()
    assert not sock.exists()
    assert "shutting down" in srv.all_output()

    again = start_server(data_dir=data_dir)
    c = make_client(again)
    head = c.head_object(Bucket=bucket, Key="big")
    assert head["ContentLength"] == size
    tail = c.get_object(Bucket=bucket, Key="big", Range=f"bytes={size - 1000}-")["Body"].read()
    assert tail == _PatternFile(size).pattern(size - 1000, 1000)


class _PatternFile:
    """A seekable, paced, deterministic body of `size` bytes that never touches the disk.

    botocore reads it to hash it (MD5, SHA-256) and then to send it; the send pass is the one
    read by http.client's HTTPConnection.send. That pass is paced (about 50 MiB/s) so a signal
    surely lands mid-body; `sending` is set once 16 MiB of it are out.
    """

    _BLOCK = bytes(i % 251 for i in range(251 * 4096))

    def __init__(self, size):
        self._size = size
        self._pos = 0
        self._since_sleep = 0
        self.sending = threading.Event()
        self.sent_after_signal_started = False

    def pattern(self, pos, n):
        out = bytearray()
        while n > 0:
            off = pos % 251
            piece = self._BLOCK[off:off + min(n, len(self._BLOCK) - off)]
            out += piece
            pos += len(piece)
            n -= len(piece)
        return bytes(out)

    def read(self, n=-1):
        if n is None or n < 0:
            n = self._size - self._pos
        n = min(n, self._size - self._pos)
        data = self.pattern(self._pos, n)
        self._pos += n
        if sys._getframe(1).f_code.co_name == "send":
            self._since_sleep += n
            if self._since_sleep >= 1 << 20:
                self._since_sleep = 0
                time.sleep(0.02)
            if self._pos > 16 << 20:
                if self.sending.is_set() and self._pos < self._size - (16 << 20):
                    self.sent_after_signal_started = True
                self.sending.set()
        return data

    def seek(self, pos, whence=0):
        if whence == 0:
            self._pos = pos
        elif whence == 1:
            self._pos += pos
        else:
            self._pos = self._size + pos
        return self._pos

    def tell(self):
        return self._pos


def _read_all(sock, timeout):
    sock.settimeout(timeout)
    data = b""
    while True:
        try:
            piece = sock.recv(4096)
        except socket.timeout:
            return data, False
        if not piece:
            return data, True
        data += piece


def test_connection_over_the_limit_gets_503_promptly(start_server):
    srv = start_server(args=("--max-connections", "2"))
    held = [socket.create_connection((srv.host, srv.port), timeout=5) for _ in range(2)]
    try:
        # Both held connections are served: each answers a request and stays open.
        for s in held:
            s.sendall(b"GET /_cubby/live HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
        extra = socket.create_connection((srv.host, srv.port), timeout=5)
        start = time.monotonic()
        data, closed = _read_all(extra, 5)
        assert data.startswith(b"HTTP/1.1 503"), data
        assert closed and time.monotonic() - start < 3
        extra.close()
    finally:
        for s in held:
            s.close()
    # Slots come back once the held connections close.
    deadline = time.monotonic() + 10
    while True:
        status, _, _ = http_get(srv.endpoint + "/_cubby/live")
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert status == 200


def test_half_a_header_is_cut_after_header_timeout(start_server):
    srv = start_server(args=("--header-timeout", "1s"))
    s = socket.create_connection((srv.host, srv.port), timeout=10)
    s.sendall(b"GET /_cubby/live HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    start = time.monotonic()
    data, closed = _read_all(s, 8)
    elapsed = time.monotonic() - start
    s.close()
    assert closed and data == b"", data
    assert 0.8 <= elapsed < 4, elapsed


def test_idle_keepalive_connection_is_closed_after_idle_timeout(start_server):
    srv = start_server(args=("--idle-timeout", "1s"))
    s = socket.create_connection((srv.host, srv.port), timeout=10)
    s.sendall(b"GET /_cubby/live HTTP/1.1\r\nHost: x\r\n\r\n")
    first = s.recv(4096)
    assert first.startswith(b"HTTP/1.1 200")
    start = time.monotonic()
    data, closed = _read_all(s, 8)
    s.close()
    assert closed and data == b""
    assert 0.8 <= time.monotonic() - start < 4


def test_header_over_max_header_bytes_is_refused(start_server):
    srv = start_server(args=("--max-header-bytes", "8192"))
    r = cubby_e2e.raw_request(srv, "GET", "/_cubby/live", sign=False,
                              headers={"X-Big": "a" * 9000})
    assert r.status == 400
    r = cubby_e2e.raw_request(srv, "GET", "/_cubby/live", sign=False,
                              headers={"X-Big": "a" * 6000})
    assert r.status == 200


@pytest.mark.parametrize("args,message", [
    (("--max-connections", "0"), "--max-connections: must be between 1 and 1000000"),
    (("--idle-timeout", "0s"), "--idle-timeout: must be greater than 0"),
    (("--header-timeout", "soon"), "--header-timeout: invalid duration 'soon'"),
    (("--shutdown-grace", "-1"), "--shutdown-grace: invalid duration '-1'"),
    (("--max-header-bytes", "100"), "--max-header-bytes: must be between 8192 and 16777216"),
    (("--log-format", "xml"), "--log-format: invalid log format 'xml'"),
    (("--tls-cert", "/nonexistent.pem"), "set both --tls-cert and --tls-key"),
])
def test_bad_appliance_flags_exit_2(cubby_bin, tmp_path, home, args, message):
    import subprocess
    r = subprocess.run([cubby_bin, "--data-dir", str(tmp_path / "d")] + list(args),
                       env=cubby_e2e.base_env(home), capture_output=True, timeout=30)
    assert r.returncode == 2
    assert r.stdout == b""
    assert r.stderr.decode().startswith("cubby: " + message), r.stderr


def test_json_logs_and_redacted_configuration(cubby_bin, tmp_path, home):
    srv = Process(cubby_bin, ["--data-dir", str(tmp_path / "d"), "--s3-address", "127.0.0.1:0",
                              "--log-format", "json"],
                  env={"CUBBY_ROOT_ACCESS_KEY": cubby_e2e.ROOT_ACCESS_KEY,
                       "CUBBY_ROOT_SECRET_KEY": ROOT_SECRET_KEY}, home=home)
    m = srv.wait_for(r'"s3_endpoint":"(http://127\.0\.0\.1:[0-9]+)"')
    srv.wait_for(r'"msg":"ready"')
    s3 = make_client(Endpoint(m.group(1), cubby_e2e.ROOT_ACCESS_KEY, ROOT_SECRET_KEY))
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"12345")
    with pytest.raises(s3.exceptions.NoSuchKey):
        s3.get_object(Bucket=bucket, Key="missing")
    code = srv.stop()
    assert code == 0
    records = [json.loads(line) for line in srv.stdout_lines]
    assert all({"time", "level", "msg"} <= set(r) for r in records)
    starting = [r for r in records if r["msg"] == "starting"]
    assert len(starting) == 1
    cfg = starting[0]
    assert cfg["log_format"] == "json" and cfg["root_key"] == "configured"
    for name in ("max_connections", "idle_timeout_ms", "header_timeout_ms", "max_header_bytes",
                 "shutdown_grace_ms", "s3_address", "data_dir", "region"):
        assert name in cfg, name
    assert cfg["shutdown_grace_ms"] == "30000" and cfg["max_connections"] == "1024"
    puts = [r for r in records if r["msg"] == "request" and r.get("operation") == "PutObject"]
    assert len(puts) == 1
    put = puts[0]
    assert put["status"] == "200" and put["bucket"] == bucket and put["key"] == "k"
    assert put["bytes_in"] == "5" and put["access_key"] == cubby_e2e.ROOT_ACCESS_KEY
    assert re.fullmatch(r"[0-9A-F]+", put["request_id"]) and put["remote"].startswith("127.0.0.1:")
    assert float(put["duration_ms"]) >= 0
    assert put["error"] == "" and put["error_detail"] == ""
    missing = [r for r in records if r["msg"] == "request" and r.get("key") == "missing"]
    assert len(missing) == 1 and missing[0]["status"] == "404"
    assert missing[0]["error"] == "NoSuchKey" and missing[0]["operation"] == "GetObject"
    assert ROOT_SECRET_KEY not in srv.output()


def test_healthcheck_subcommand(server, cubby_bin, home):
    import subprocess
    env = cubby_e2e.base_env(home)
    ok = subprocess.run([cubby_bin, "--healthcheck", server.endpoint + "/_cubby/ready"],
                        env=env, capture_output=True, timeout=30)
    assert ok.returncode == 0, ok.stderr
    missing = subprocess.run([cubby_bin, "--healthcheck", server.endpoint + "/_cubby/nope"],
                             env=env, capture_output=True, timeout=30)
    assert missing.returncode == 1 and b"HTTP 404" in missing.stderr
    # A closed port: nothing listens there once this socket is closed.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    down = subprocess.run([cubby_bin, "--healthcheck", f"http://127.0.0.1:{port}/_cubby/ready"],
                          env=env, capture_output=True, timeout=30)
    assert down.returncode == 1 and down.stderr.startswith(b"cubby: healthcheck ")
    bad = subprocess.run([cubby_bin, "--healthcheck", "ftp://x"], env=env, capture_output=True,
                         timeout=30)
    assert bad.returncode == 2
    # A bare path probes the S3 listener the configuration names (as the image's HEALTHCHECK
    # does, so it follows CUBBY_S3_ADDRESS); the closed port shows the address is really used.
    own = subprocess.run([cubby_bin, "--healthcheck", "/_cubby/ready"],
                         env={**env, "CUBBY_S3_ADDRESS": f"0.0.0.0:{server.port}"},
                         capture_output=True, timeout=30)
    assert own.returncode == 0, own.stderr
    elsewhere = subprocess.run([cubby_bin, "--healthcheck", "/_cubby/ready"],
                               env={**env, "CUBBY_S3_ADDRESS": f"127.0.0.1:{port}"},
                               capture_output=True, timeout=30)
    assert elsewhere.returncode == 1
    assert f"http://127.0.0.1:{port}/_cubby/ready".encode() in elsewhere.stderr
