"""Harness for cubby's end-to-end tests: runs the real binary and talks to it with real clients.

Server        starts `cubby` on 127.0.0.1 port 0 with a fresh data dir, captures stdout/stderr in
              threads, waits for the `s3_endpoint=` line, stops it with SIGTERM.
make_client   a boto3 S3 client (SigV4, path style, no retries) for a server.
raw_request   one HTTP request over http.client, optionally SigV4-signed by botocore, with full
              control of host, headers, body, signing time and payload hash (for error paths).
"""

import contextlib
import datetime
import hashlib
import http.client
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import types
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
from unittest import mock

import boto3
import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

ROOT_ACCESS_KEY = "AKIAE2ETESTROOT00001"
ROOT_SECRET_KEY = "e2e/SecretKey+ForCubbyRootUser0000000001"
REGION = "us-east-1"
# Secrets of the users tests make (test_iam.py): test_zz_secrets.py scans the servers' output
# for them too.
USER_SECRETS = set()
START_TIMEOUT = 20.0
STOP_TIMEOUT = 30.0
S3_NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
# The test runner's environment before sanitize_process_env (conftest fills it in).
ORIGINAL_ENV = {}

# Variables that would make a client talk to something else, trust other CAs, read a user's
# config or go through a proxy. Removed from the test process and from every child.
_CLIENT_ENV_BLOCKLIST = (
    "AWS_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE",
    "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION", "AWS_DEFAULT_REGION",
    "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_PAGER", "AWS_CLI_AUTO_PROMPT",
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
    "NO_PROXY", "no_proxy",
)


def sanitize_process_env(home):
    """Makes the test process itself (boto3 runs in it) independent of the user's setup."""
    for name in list(os.environ):
        if name in _CLIENT_ENV_BLOCKLIST or name.startswith("CUBBY_") or name.startswith("COSI_"):
            del os.environ[name]
    os.environ["HOME"] = str(home)
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    os.environ["AWS_CONFIG_FILE"] = os.path.join(str(home), "no-such-aws-config")
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.path.join(str(home), "no-such-aws-credentials")
    os.environ["NO_PROXY"] = "*"


def base_env(home):
    """A minimal explicit environment for child processes."""
    env = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "NO_PROXY": "*",
    }
    return env


def client_env(server, home, access_key=None, secret_key=None, extra=None):
    env = base_env(home)
    env.update({
        "AWS_ACCESS_KEY_ID": access_key or server.access_key,
        "AWS_SECRET_ACCESS_KEY": secret_key or server.secret_key,
        "AWS_DEFAULT_REGION": server.region,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_PAGER": "",
        "AWS_CONFIG_FILE": os.path.join(str(home), "no-such-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": os.path.join(str(home), "no-such-aws-credentials"),
    })
    if extra:
        env.update(extra)
    return env


class StartupError(Exception):
    pass


_server_log_lock = threading.Lock()


def server_log_path(binary):
    """Where every server of this pytest session also writes its output: the build folder (next
    to the binary), one file per session. test_zz_secrets.py greps it for secrets."""
    return os.path.join(os.path.dirname(os.path.abspath(binary)),
                        f"e2e-server-output-{os.getpid()}.log")


def append_server_log(binary, pid, stream_name, line):
    with _server_log_lock:
        with open(server_log_path(binary), "a", encoding="utf-8") as f:
            f.write(f"[cubby {pid} {stream_name}] {line}\n")


class Server:
    """One running `cubby` process."""

    def __init__(self, binary, data_dir, home, args=(), env_extra=None, root_keys=True,
                 region=REGION, pass_data_dir_flag=True):
        self.binary = binary
        self.data_dir = str(data_dir)
        self.region = region
        self.access_key = ROOT_ACCESS_KEY if root_keys else None
        self.secret_key = ROOT_SECRET_KEY if root_keys else None
        self.stdout_lines = []
        self.stderr_lines = []
        self.endpoint = None
        self.host = None
        self.port = None
        self._lock = threading.Lock()
        self._endpoint_seen = threading.Event()
        self._stopped = False
        cmd = [binary]
        if pass_data_dir_flag:
            cmd += ["--data-dir", self.data_dir]
        if not any(a == "--s3-address" or a.startswith("--s3-address=") for a in args):
            cmd += ["--s3-address", "127.0.0.1:0"]
        if not any(a == "--region" or a.startswith("--region=") for a in args):
            cmd += ["--region", region]
        cmd += list(args)
        env = base_env(home)
        if root_keys:
            env["CUBBY_ROOT_ACCESS_KEY"] = ROOT_ACCESS_KEY
            env["CUBBY_ROOT_SECRET_KEY"] = ROOT_SECRET_KEY
        if env_extra:
            env.update(env_extra)
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pid = self.proc.pid
        self._threads = [
            threading.Thread(target=self._pump, args=(self.proc.stdout, self.stdout_lines, True),
                             daemon=True),
            threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_lines, False),
                             daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _pump(self, stream, sink, look_for_endpoint):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._lock:
                sink.append(line)
            append_server_log(self.binary, self.pid,
                              "stdout" if look_for_endpoint else "stderr", line)
            if look_for_endpoint and not self._endpoint_seen.is_set():
                # logfmt (s3_endpoint=...) or --log-format json ("s3_endpoint":"...").
                m = re.search(r"s3_endpoint(?:=|\":\")(http://([0-9.]+):([0-9]+))", line)
                if m:
                    self.endpoint, self.host, self.port = m.group(1), m.group(2), int(m.group(3))
                    self._endpoint_seen.set()
        stream.close()

    def wait_ready(self, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._endpoint_seen.wait(0.05):
                return self
            if self.proc.poll() is not None:
                self._join_pumps()
                raise StartupError(
                    f"cubby exited with {self.proc.returncode} before printing s3_endpoint=\n"
                    f"cmd: {self.cmd}\n{self.output()}")
        self.kill()
        raise StartupError(f"cubby printed no s3_endpoint= line within {timeout}s\n{self.output()}")

    def _join_pumps(self, timeout=5):
        for t in self._threads:
            t.join(timeout)

    def output(self):
        with self._lock:
            return ("--- stdout ---\n" + "\n".join(self.stdout_lines) +
                    "\n--- stderr ---\n" + "\n".join(self.stderr_lines))

    def all_output(self):
        with self._lock:
            return "\n".join(self.stdout_lines + self.stderr_lines)

    def stop(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT):
        """Sends `sig` and returns the exit code (None if it had to be killed)."""
        if self._stopped:
            return self.proc.returncode
        self._stopped = True
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                self._join_pumps()
                return None
        self._join_pumps()
        return self.proc.returncode

    def kill(self):
        self._stopped = True
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._join_pumps()

    @property
    def stopped(self):
        return self._stopped

    def peak_rss_kib(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        raise AssertionError("no VmHWM in /proc status")




@contextlib.contextmanager
def running_server(cubby_bin, base):
    """A cubby of a module's own (its tests share it), with data/ and home/ in `base`; stopped
    with SIGTERM at the end, which must exit 0."""
    (base / "data").mkdir()
    (base / "home").mkdir()
    server = Server(cubby_bin, base / "data", base / "home")
    server.wait_ready()
    try:
        yield server
    finally:
        code = server.stop(signal.SIGTERM)
        assert code == 0, f"cubby exited with {code}\n{server.output()}"

def make_client(server, access_key=None, secret_key=None, anonymous=False, region=None,
                addressing_style="path", endpoint=None, **config):
    session = boto3.session.Session(
        aws_access_key_id=access_key or server.access_key,
        aws_secret_access_key=secret_key or server.secret_key,
        region_name=region or server.region)
    settings = {"connect_timeout": 10, "read_timeout": 120}
    settings.update(config)
    cfg = Config(signature_version=botocore.UNSIGNED if anonymous else "s3v4",
                 s3={"addressing_style": addressing_style},
                 retries={"total_max_attempts": 1, "mode": "standard"}, **settings)
    return session.client("s3", endpoint_url=endpoint or server.endpoint, config=cfg)


# ---------------------------------------------------------------- raw requests

class Response:
    def __init__(self, status, reason, headers, body):
        self.status = status
        self.reason = reason
        self.headers = headers  # http.client.HTTPMessage: case-insensitive .get()
        self.body = body

    def header(self, name):
        return self.headers.get(name)

    def xml(self):
        return ET.fromstring(self.body)

    def error(self):
        """The S3 error document as a dict of its direct children (Code, Message, ...)."""
        root = ET.fromstring(self.body)
        assert root.tag == "Error", f"not an error document: {self.body!r}"
        return {child.tag: (child.text or "") for child in root}

    @property
    def code(self):
        return self.error()["Code"]

    def __repr__(self):
        return f"<Response {self.status} {self.body[:300]!r}>"


class _ShiftedDatetimeModule(types.SimpleNamespace):
    pass


@contextlib.contextmanager
def signing_clock_shift(delta):
    """While active, botocore's SigV4 signers believe the time is now + delta."""

    class ShiftedDatetime(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return datetime.datetime.utcnow() + delta

        @classmethod
        def now(cls, tz=None):
            return datetime.datetime.now(tz) + delta

    fake = _ShiftedDatetimeModule(datetime=ShiftedDatetime, timedelta=datetime.timedelta,
                                  timezone=datetime.timezone)
    with mock.patch.object(botocore.auth, "datetime", fake):
        yield


class _FixedPayloadS3SigV4Auth(botocore.auth.S3SigV4Auth):
    """Signs with a caller-chosen x-amz-content-sha256 value instead of the real body hash."""

    def __init__(self, credentials, service, region, payload_hash):
        super().__init__(credentials, service, region)
        self._payload_hash = payload_hash

    def payload(self, request):
        return self._payload_hash


def sign_request(req, access_key, secret_key, region=REGION, clock_shift=None, payload_hash=None):
    creds = Credentials(access_key, secret_key)
    if payload_hash is not None:
        signer = _FixedPayloadS3SigV4Auth(creds, "s3", region, payload_hash)
    else:
        signer = botocore.auth.S3SigV4Auth(creds, "s3", region)
    if clock_shift is not None:
        with signing_clock_shift(clock_shift):
            signer.add_auth(req)
    else:
        signer.add_auth(req)


def raw_request(server, method, path, query="", headers=None, body=b"", sign=True,
                access_key=None, secret_key=None, region=None, clock_shift=None,
                payload_hash=None, host=None, after_sign=None, timeout=60):
    """Sends one request. `path` and `query` must already be percent-encoded as on the wire.

    host: the Host header (default 127.0.0.1:port); the TCP connection always goes to the server.
    after_sign: callable(dict headers) that may alter the signed headers before sending.
    """
    target = path + (("?" + query) if query else "")
    host_header = host or f"{server.host}:{server.port}"
    hdrs = {"Host": host_header}
    hdrs.update(headers or {})
    if isinstance(body, str):
        body = body.encode()
    if sign:
        req = AWSRequest(method=method, url=f"http://{host_header}{target}", data=body,
                         headers=hdrs)
        sign_request(req, access_key or server.access_key, secret_key or server.secret_key,
                     region=region or server.region, clock_shift=clock_shift,
                     payload_hash=payload_hash)
        hdrs = dict(req.headers.items())
    if after_sign:
        after_sign(hdrs)
    return send(server, method, target, hdrs, body, timeout=timeout)


def send(server, method, target, headers, body=b"", timeout=60):
    conn = http.client.HTTPConnection(server.host, server.port, timeout=timeout)
    try:
        conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
        has_length = any(k.lower() == "content-length" for k in headers)
        for k, v in headers.items():
            conn.putheader(k, v)
        if not has_length and (body or method in ("PUT", "POST")):
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body if body else None)
        resp = conn.getresponse()
        data = resp.read()
        return Response(resp.status, resp.reason, resp.headers, data)
    finally:
        conn.close()


def presign_url(server, method, path, query_params=None, expires=3600, access_key=None,
                secret_key=None, clock_shift=None, host=None):
    """A SigV4 query-signed URL made by botocore's S3SigV4QueryAuth."""
    host_header = host or f"{server.host}:{server.port}"
    url = f"http://{host_header}{path}"
    if query_params:
        url += "?" + urllib.parse.urlencode(query_params, quote_via=urllib.parse.quote)
    req = AWSRequest(method=method, url=url, headers={"Host": host_header})
    creds = Credentials(access_key or server.access_key, secret_key or server.secret_key)
    signer = botocore.auth.S3SigV4QueryAuth(creds, "s3", server.region, expires=expires)
    if clock_shift is not None:
        with signing_clock_shift(clock_shift):
            signer.add_auth(req)
    else:
        signer.add_auth(req)
    return req.url


def get_url(server, url, method="GET", body=b"", headers=None):
    parts = urllib.parse.urlsplit(url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    hdrs = {"Host": parts.netloc}
    hdrs.update(headers or {})
    return send(server, method, target, hdrs, body)


# ---------------------------------------------------------------- misc helpers

def new_bucket_name(prefix="b"):
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


def md5_hex(data):
    return hashlib.md5(data).hexdigest()


def quoted_md5(data):
    return '"' + md5_hex(data) + '"'


def aws_cli_binary():
    """Debian's awscli lives in /usr/bin; PATH may have another one first (pyenv)."""
    if os.path.exists("/usr/bin/aws"):
        return "/usr/bin/aws"
    found = shutil.which("aws")
    if not found:
        raise AssertionError("aws cli not installed (scripts/setup.sh --test installs awscli)")
    return found
