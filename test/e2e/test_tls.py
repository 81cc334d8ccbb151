"""TLS on the S3 listener (--tls-cert/--tls-key), with a throwaway self-signed certificate."""

import os
import socket
import ssl
import subprocess
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


def test_healthcheck_over_https(tls_server, cubby_bin, home):
    _, ep = tls_server
    r = subprocess.run([cubby_bin, "--healthcheck", ep.endpoint + "/_cubby/ready"],
                       env=cubby_e2e.base_env(home), capture_output=True, timeout=30)
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


@pytest.mark.parametrize("which", ["missing-cert", "missing-key", "mismatch", "not-pem"])
def test_bad_tls_files_exit_1_with_one_line(cubby_bin, tmp_path, home, cert, which):
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=x", "-keyout", str(other / "key.pem"),
                    "-out", str(other / "cert.pem")], check=True, capture_output=True, timeout=60)
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    c, k = {
        "missing-cert": (str(tmp_path / "none.pem"), cert[1]),
        "missing-key": (cert[0], str(tmp_path / "none.pem")),
        "mismatch": (cert[0], str(other / "key.pem")),
        "not-pem": (str(junk), cert[1]),
    }[which]
    r = subprocess.run([cubby_bin, "--data-dir", str(tmp_path / "d"), "--s3-address",
                        "127.0.0.1:0", "--tls-cert", c, "--tls-key", k],
                       env=cubby_e2e.base_env(home), capture_output=True, timeout=30)
    assert r.returncode == 1
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cubby: TLS "), err
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
