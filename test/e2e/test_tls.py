"""TLS on the S3 listener (--tls-cert/--tls-key), with a throwaway self-signed certificate."""

import os
import pathlib
import shutil
import signal
import socket
import ssl
import subprocess
import time
import warnings

import pytest

import cubby_e2e
from appliance import (Endpoint, Process, http_get, metric, scrape, start_ephemeral,
                       tls_client)
from cubby_e2e import make_client, new_bucket_name


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    cert, key = d / "cert.pem", d / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    return str(cert), str(key)


@pytest.fixture
def tls_server(cubby_bin, tmp_path, home, cert):
    p = Process(cubby_bin, ["--data-dir", str(tmp_path / "data"), "--s3-address", "127.0.0.1:0",
                            "--tls-cert", cert[0], "--tls-key", cert[1]],
                env={"CUBBY_ROOT_ACCESS_KEY": cubby_e2e.ROOT_ACCESS_KEY,
                     "CUBBY_ROOT_SECRET_KEY": cubby_e2e.ROOT_SECRET_KEY}, home=home)
    m = p.wait_for(r"s3_endpoint=(https://127\.0\.0\.1:[0-9]+)")
    p.wait_for(r"msg=ready")
    yield p, Endpoint(m.group(1), cubby_e2e.ROOT_ACCESS_KEY, cubby_e2e.ROOT_SECRET_KEY)
    assert p.stop() == 0, p.output()


def test_boto3_over_tls_with_the_certificate(tls_server, cert):
    _, ep = tls_server
    s3 = tls_client(ep, cert[0])
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    body = os.urandom(3 << 20)
    s3.put_object(Bucket=bucket, Key="k", Body=body)
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == body
    ctx = ssl.create_default_context(cafile=cert[0])
    assert http_get(ep.endpoint + "/_cubby/ready", context=ctx)[0] == 200
    m = scrape(ep.endpoint, context=ctx)
    assert metric(m, "cubby_http_requests_total", operation="PutObject", status="200") == 1


def test_tls_rejects_unverified_clients_and_old_protocols(tls_server, cert):
    _, ep = tls_server
    s3 = make_client(ep)  # the system CAs do not know the self-signed certificate
    with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
        s3.list_buckets()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cert[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ctx.minimum_version = ssl.TLSVersion.TLSv1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    try:
        ctx.set_ciphers("ALL:@SECLEVEL=0")
    except ssl.SSLError:
        pass
    with socket.create_connection((ep.host, ep.port), timeout=10) as raw:
        with pytest.raises(ssl.SSLError):
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1"):
                pass


def test_plain_http_to_tls_port_is_closed_not_answered(tls_server):
    p, ep = tls_server
    with socket.create_connection((ep.host, ep.port), timeout=10) as s:
        s.sendall(b"GET /_cubby/live HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        try:
            while True:
                piece = s.recv(4096)
                if not piece:
                    break
                data += piece
        except ConnectionResetError:
            pass  # a close with our unread request in its buffer is a reset
    assert not data.startswith(b"HTTP/1.1 200")
    # The server still serves TLS clients afterwards.
    ctx = ssl.create_default_context(cafile=None)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    assert http_get(ep.endpoint + "/_cubby/live", context=ctx)[0] == 200


def test_healthcheck_over_https(tls_server, cubby_bin, home, cert):
    _, ep = tls_server
    r = subprocess.run([cubby_bin, "--healthcheck", ep.endpoint + "/_cubby/ready"],
                       env=cubby_e2e.base_env(home), capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr
    # A bare path follows the configuration: with TLS set, the probe speaks https.
    r = subprocess.run([cubby_bin, "--healthcheck", "/_cubby/ready"],
                       env={**cubby_e2e.base_env(home), "CUBBY_TLS_CERT": cert[0],
                            "CUBBY_TLS_KEY": cert[1], "CUBBY_S3_ADDRESS": f"0.0.0.0:{ep.port}"},
                       capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr


def test_ephemeral_with_tls_prints_https(cubby_bin, tmp_path, home, cert):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    p, ready = start_ephemeral(cubby_bin, tmpdir, home=home,
                               args=["--tls-cert", cert[0], "--tls-key", cert[1]])
    try:
        assert ready["s3_endpoint"].startswith("https://127.0.0.1:")
        ep = Endpoint(ready["s3_endpoint"], ready["access_key_id"], ready["secret_access_key"])
        assert tls_client(ep, cert[0]).list_buckets()["Buckets"] == []
    finally:
        assert p.stop() == 0


@pytest.mark.parametrize("which", ["missing-cert", "missing-key", "cert-is-a-folder", "mismatch",
                                   "not-pem", "key-not-pem"])
def test_bad_tls_files_exit_1_with_one_line(cubby_bin, tmp_path, home, cert, which):
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=x", "-keyout", str(other / "key.pem"),
                    "-out", str(other / "cert.pem")], check=True, capture_output=True, timeout=60)
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    # Each message names the file and says what is wrong with it in words (not an OpenSSL
    # error number).
    c, k, said = {
        "missing-cert": (str(tmp_path / "none.pem"), cert[1],
                         f"TLS certificate {tmp_path}/none.pem: No such file or directory"),
        "missing-key": (cert[0], str(tmp_path / "none.pem"),
                        f"TLS key {tmp_path}/none.pem: No such file or directory"),
        "cert-is-a-folder": (str(other), cert[1], f"TLS certificate {other}: Is a directory"),
        "mismatch": (cert[0], str(other / "key.pem"),
                     f"TLS key {other}/key.pem does not belong to the certificate {cert[0]}"),
        "not-pem": (str(junk), cert[1], f"TLS certificate {junk}: no PEM certificate in it"),
        "key-not-pem": (cert[0], str(junk), f"TLS key {junk}: no unencrypted PEM private key in it"),
    }[which]
    r = subprocess.run([cubby_bin, "--data-dir", str(tmp_path / "d"), "--s3-address",
                        "127.0.0.1:0", "--tls-cert", c, "--tls-key", k],
                       env=cubby_e2e.base_env(home), capture_output=True, timeout=30)
    assert r.returncode == 1
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubby: TLS "), err
    assert said in err[0], err
    assert "error 2147" not in err[0], err
    assert "PRIVATE KEY" not in r.stderr.decode()


def _closed_within(host, port, timeout):
    """Seconds until the server closes a connection on which we send nothing (None: not closed)."""
    import time
    with socket.create_connection((host, port), timeout=timeout) as s:
        start = time.monotonic()
        try:
            data = s.recv(4096)
        except socket.timeout:
            return None
        except ConnectionResetError:
            data = b""
        assert data == b"", data
        return time.monotonic() - start


def test_silent_client_is_cut_after_header_timeout_and_limit_closes(cubby_bin, tmp_path, home,
                                                                    cert):
    p = Process(cubby_bin, ["--data-dir", str(tmp_path / "data"), "--s3-address", "127.0.0.1:0",
                            "--tls-cert", cert[0], "--tls-key", cert[1],
                            "--header-timeout", "1s", "--max-connections", "1"],
                env={"CUBBY_ROOT_ACCESS_KEY": cubby_e2e.ROOT_ACCESS_KEY,
                     "CUBBY_ROOT_SECRET_KEY": cubby_e2e.ROOT_SECRET_KEY}, home=home)
    try:
        m = p.wait_for(r"s3_endpoint=https://127\.0\.0\.1:([0-9]+)")
        p.wait_for(r"msg=ready")
        port = int(m.group(1))
        # No ClientHello at all: the handshake is bounded by the header timeout.
        elapsed = _closed_within("127.0.0.1", port, 8)
        assert elapsed is not None and 0.8 <= elapsed < 4, elapsed
        # Over --max-connections a TLS client is closed at once (no 503 without a handshake).
        ctx = ssl.create_default_context(cafile=cert[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as held:
                held.sendall(b"GET /_cubby/live HTTP/1.1\r\nHost: x\r\n\r\n")
                assert held.recv(4096).startswith(b"HTTP/1.1 200")
                elapsed = _closed_within("127.0.0.1", port, 5)
                assert elapsed is not None and elapsed < 2, elapsed
    finally:
        assert p.stop() == 0, p.output()


# ---- TLS 1.2 offers only AEAD suites (Mozilla's "intermediate" profile).

def _make_pair(directory, cn, key_type="rsa", key=None):
    """A self-signed certificate for 127.0.0.1 with a fresh random serial, written as
    directory/tls.crt and directory/tls.key; with `key`, signed with that existing key file."""
    directory.mkdir(parents=True, exist_ok=True)
    crt, out_key = directory / "tls.crt", directory / "tls.key"
    args = ["openssl", "req", "-x509", "-nodes", "-days", "2", "-subj", f"/CN={cn}",
            "-addext", "subjectAltName=IP:127.0.0.1", "-out", str(crt)]
    if key is not None:
        args += ["-key", str(key)]
        out_key.write_bytes(pathlib.Path(key).read_bytes())
    elif key_type == "ec":
        args += ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-keyout", str(out_key)]
    else:
        args += ["-newkey", "rsa:2048", "-keyout", str(out_key)]
    subprocess.run(args, check=True, capture_output=True, timeout=60)
    return str(crt), str(out_key)


def _start_tls(cubby_bin, tmp_path, home, cert_file, key_file, extra=()):
    p = Process(cubby_bin, ["--data-dir", str(tmp_path / "data"), "--s3-address", "127.0.0.1:0",
                            "--tls-cert", cert_file, "--tls-key", key_file] + list(extra),
                env={"CUBBY_ROOT_ACCESS_KEY": cubby_e2e.ROOT_ACCESS_KEY,
                     "CUBBY_ROOT_SECRET_KEY": cubby_e2e.ROOT_SECRET_KEY}, home=home)
    m = p.wait_for(r"s3_endpoint=(https://127\.0\.0\.1:[0-9]+)")
    p.wait_for(r"msg=ready")
    return p, Endpoint(m.group(1), cubby_e2e.ROOT_ACCESS_KEY, cubby_e2e.ROOT_SECRET_KEY)


def _insecure_context(max_version=None):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if max_version is not None:
        ctx.maximum_version = max_version
    return ctx


def _handshake(ep, ctx):
    """(TLS version, cipher name) the server agreed to; raises ssl.SSLError if it refused."""
    with socket.create_connection((ep.host, ep.port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            return s.version(), s.cipher()[0]


@pytest.mark.parametrize("key_type", ["rsa", "ec"])
def test_tls12_offers_only_aead_suites(cubby_bin, tmp_path, home, key_type):
    crt, key = _make_pair(tmp_path / "pair", "127.0.0.1", key_type)
    p, ep = _start_tls(cubby_bin, tmp_path, home, crt, key)
    try:
        auth = "ECDSA" if key_type == "ec" else "RSA"
        # CBC suites (LUCKY13-prone) and static-RSA key exchange: refused, each on its own.
        for cbc in [f"ECDHE-{auth}-AES128-SHA256", f"ECDHE-{auth}-AES256-SHA384",
                    f"ECDHE-{auth}-AES128-SHA", f"ECDHE-{auth}-AES256-SHA",
                    "AES128-GCM-SHA256", "AES128-SHA256"]:
            ctx = _insecure_context(ssl.TLSVersion.TLSv1_2)
            ctx.set_ciphers(cbc)
            with pytest.raises(ssl.SSLError):
                _handshake(ep, ctx)
        # Mozilla intermediate's AEAD suites with forward secrecy: accepted.
        for aead in [f"ECDHE-{auth}-AES128-GCM-SHA256", f"ECDHE-{auth}-AES256-GCM-SHA384",
                     f"ECDHE-{auth}-CHACHA20-POLY1305"]:
            ctx = _insecure_context(ssl.TLSVersion.TLSv1_2)
            ctx.set_ciphers(aead)
            assert _handshake(ep, ctx) == ("TLSv1.2", aead)
        # TLS 1.3 as before.
        assert _handshake(ep, _insecure_context())[0] == "TLSv1.3"
    finally:
        assert p.stop() == 0, p.output()


# ---- Certificate reload: a renewed pair is served to new connections, open ones keep theirs.

def _der(cert_file):
    return ssl.PEM_cert_to_DER_cert(pathlib.Path(cert_file).read_text())


def _served_der(ep):
    with socket.create_connection((ep.host, ep.port), timeout=10) as raw:
        with _insecure_context().wrap_socket(raw, server_hostname="127.0.0.1") as s:
            return s.getpeercert(binary_form=True)


def _until(condition, what, timeout=20.0):
    """Polls `condition` until it is true, failing after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"not {what} within {timeout}s"
        time.sleep(0.05)


class _Mounted:
    """A Kubernetes secret volume: tls.crt and tls.key are symlinks through ..data to a
    timestamped folder; an update writes a new folder and renames a new ..data over the old."""

    def __init__(self, root):
        self.root = root
        self.root.mkdir()
        self.version = 0
        self.cert = str(root / "tls.crt")
        self.key = str(root / "tls.key")

    def publish(self, make):
        """Publishes the pair `make(folder)` writes; returns the new folder."""
        self.version += 1
        folder = self.root / f"..v{self.version}"
        make(folder)
        tmp = self.root / "..data_tmp"
        os.symlink(folder.name, tmp)
        os.replace(tmp, self.root / "..data")
        for name in ("tls.crt", "tls.key"):
            if not (self.root / name).is_symlink():
                os.symlink(f"..data/{name}", self.root / name)
        return folder


class _KeepAlive:
    """One TLS connection that stays open across requests."""

    def __init__(self, ep):
        raw = socket.create_connection((ep.host, ep.port), timeout=10)
        self.sock = _insecure_context().wrap_socket(raw, server_hostname="127.0.0.1")
        self.reader = self.sock.makefile("rb")

    def live(self):
        self.sock.sendall(b"GET /_cubby/live HTTP/1.1\r\nHost: x\r\n\r\n")
        status = self.reader.readline()
        length = 0
        while True:
            line = self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        self.reader.read(length)
        return int(status.split()[1])

    def close(self):
        self.reader.close()
        self.sock.close()


def test_renewed_certificate_is_served_and_open_connections_keep_working(cubby_bin, tmp_path,
                                                                         home):
    mount = _Mounted(tmp_path / "secret")
    first = mount.publish(lambda d: _make_pair(d, "first"))
    p, ep = _start_tls(cubby_bin, tmp_path, home, mount.cert, mount.key)
    try:
        assert _served_der(ep) == _der(first / "tls.crt")
        held = _KeepAlive(ep)
        assert held.live() == 200
        second = mount.publish(lambda d: _make_pair(d, "second"))
        _until(lambda: _served_der(ep) == _der(second / "tls.crt"), "the renewed cert served")
        p.wait_for(r'level=info msg="tls certificate reloaded".*CN=second')
        # The connection made before the renewal goes on with its own session.
        assert held.live() == 200
        assert held.sock.getpeercert(binary_form=True) == _der(first / "tls.crt")
        held.close()
        # A renewal written in place (no symlink swap) is picked up too.
        third = tmp_path / "third"
        _make_pair(third, "third")
        shutil.copyfile(third / "tls.key", second / "tls.key")
        shutil.copyfile(third / "tls.crt", second / "tls.crt")
        _until(lambda: _served_der(ep) == _der(third / "tls.crt"), "the rewritten cert served")
    finally:
        assert p.stop() == 0, p.output()


@pytest.mark.parametrize("broken", ["key-mismatch", "not-pem", "key-missing"])
def test_broken_renewal_keeps_the_old_pair_and_warns(cubby_bin, tmp_path, home, broken):
    mount = _Mounted(tmp_path / "secret")
    first = mount.publish(lambda d: _make_pair(d, "first"))
    p, ep = _start_tls(cubby_bin, tmp_path, home, mount.cert, mount.key)
    try:
        def make_broken(folder):
            _make_pair(folder, "broken")
            if broken == "key-mismatch":
                _make_pair(tmp_path / "other", "other")
                shutil.copyfile(tmp_path / "other" / "tls.key", folder / "tls.key")
            elif broken == "not-pem":
                (folder / "tls.crt").write_text("not a certificate\n")
            else:
                (folder / "tls.key").unlink()
        mount.publish(make_broken)
        p.wait_for(r'level=warn msg="tls certificate reload failed"')
        assert _served_der(ep) == _der(first / "tls.crt")
        assert "PRIVATE KEY" not in p.output()
        # The next good pair is taken.
        good = mount.publish(lambda d: _make_pair(d, "good"))
        _until(lambda: _served_der(ep) == _der(good / "tls.crt"), "the good pair served")
    finally:
        assert p.stop() == 0, p.output()


def test_sighup_reloads_the_certificate(cubby_bin, tmp_path, home):
    crt, key = _make_pair(tmp_path / "pair", "first")
    p, ep = _start_tls(cubby_bin, tmp_path, home, crt, key)
    try:
        held = _KeepAlive(ep)
        assert held.live() == 200
        p.proc.send_signal(signal.SIGHUP)
        # Reloaded even though nothing changed; the process keeps serving.
        p.wait_for(r'msg="tls certificate reloaded".*trigger=SIGHUP')
        assert held.live() == 200
        assert _served_der(ep) == _der(crt)
        # A broken pair on SIGHUP: warned, the old one kept.
        pathlib.Path(crt).write_text("not a certificate\n")
        p.proc.send_signal(signal.SIGHUP)
        p.wait_for(r'level=warn msg="tls certificate reload failed".*trigger=SIGHUP')
        assert p.proc.poll() is None
        held.close()
    finally:
        assert p.stop() == 0, p.output()


# ---- Bug 7: a client that closes without close_notify is a client leaving, not a bad request.

def _connection_count(ep):
    return metric(scrape(ep.endpoint, context=_insecure_context()), "cubby_http_open_connections")


@pytest.mark.parametrize("how", ["close", "half-close"])
def test_close_without_close_notify_is_not_a_bad_request(tls_server, how):
    p, ep = tls_server
    held = _KeepAlive(ep)
    assert held.live() == 200
    if how == "close":
        # What Python's ssl (so boto3) and pgbackrest do: close the socket, no unwrap().
        held.close()
        # The scrape's own connection is the one left once the server has seen the close.
        _until(lambda: _connection_count(ep) == 1, "the closed connection gone")
    else:
        # The same FIN, but our reading side stays open to see what the server sends back.
        with socket.socket(fileno=os.dup(held.sock.fileno())) as dup:
            dup.shutdown(socket.SHUT_WR)
        assert held.reader.read() == b"", "nothing (no 400) is written to the closing client"
        held.close()
    m = scrape(ep.endpoint, context=_insecure_context())
    assert metric(m, "cubby_http_requests_total", operation="BadRequest", status="400") == 0
    assert not [l for l in p.stdout_lines + p.stderr_lines if "bad request" in l], p.output()
