"""Helpers for the appliance tests (health, metrics, ephemeral mode, TLS, shutdown, limits).

Process     runs `cubby` with explicit args/env, pumps stdout and stderr into lists, and can
            wait for a line matching a pattern on either stream.
metrics     parses the Prometheus text exposition into {(name, frozenset(labels)): value}.
"""

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request

import cubby_e2e


class Process:
    def __init__(self, binary, args=(), env=None, home=None):
        full_env = cubby_e2e.base_env(home or os.environ.get("HOME", "/tmp"))
        full_env.update(env or {})
        self.binary = binary
        self.cmd = [binary] + list(args)
        self.proc = subprocess.Popen(self.cmd, env=full_env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.pid = self.proc.pid
        self.stdout_lines = []
        self.stderr_lines = []
        self._cond = threading.Condition()
        self._threads = [threading.Thread(target=self._pump, args=(s, sink, name), daemon=True)
                         for s, sink, name in ((self.proc.stdout, self.stdout_lines, "stdout"),
                                               (self.proc.stderr, self.stderr_lines, "stderr"))]
        for t in self._threads:
            t.start()

    def _pump(self, stream, sink, name):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._cond:
                sink.append(line)
                self._cond.notify_all()
            cubby_e2e.append_server_log(self.binary, self.pid, name, line)
        stream.close()
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, pattern, stream="stdout", timeout=20.0):
        """The first match of `pattern` in a line of `stream`; fails if the process exits."""
        regex = re.compile(pattern)
        sink = self.stdout_lines if stream == "stdout" else self.stderr_lines
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in sink:
                    m = regex.search(line)
                    if m:
                        return m
                if self.proc.poll() is not None and not any(t.is_alive() for t in self._threads):
                    raise AssertionError(f"cubby exited ({self.proc.returncode}) before "
                                         f"{pattern!r}\n{self.output()}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {pattern!r} within {timeout}s\n{self.output()}")
                self._cond.wait(min(left, 0.1))

    def output(self):
        return ("--- stdout ---\n" + "\n".join(self.stdout_lines) +
                "\n--- stderr ---\n" + "\n".join(self.stderr_lines))

    def stop(self, sig=signal.SIGTERM, timeout=30.0):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise
        for t in self._threads:
            t.join(5)
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def start_ephemeral(binary, tmpdir, args=(), env=None, home=None, timeout=20.0):
    """Starts `cubby --ephemeral` with TMPDIR=tmpdir; returns (process, ready dict)."""
    e = {"TMPDIR": str(tmpdir)}
    e.update(env or {})
    p = Process(binary, ["--ephemeral"] + list(args), env=e, home=home)
    p.wait_for(r"^\{", "stdout", timeout)
    return p, json.loads(p.stdout_lines[0])


class Endpoint:
    """What make_client needs of a server."""

    def __init__(self, endpoint, access_key, secret_key, region=cubby_e2e.REGION):
        self.endpoint = endpoint
        self.access_key = access_key
        self.secret_key = secret_key
        self.region = region
        m = re.match(r"https?://([0-9.]+):([0-9]+)$", endpoint)
        self.host, self.port = m.group(1), int(m.group(2))


def wait_ready_line(server, timeout=20.0):
    """Waits for a cubby_e2e.Server's `msg=ready` line: printed after /_cubby/ready turns 200 and
    after the COSI socket listens (the s3_endpoint line comes before both)."""
    deadline = time.monotonic() + timeout
    while not any("msg=ready" in l for l in list(server.stdout_lines)):
        assert server.proc.poll() is None, server.output()
        assert time.monotonic() < deadline, server.output()
        time.sleep(0.01)
    return server


def tls_client(endpoint, cafile):
    """A boto3 client for an https Endpoint that trusts `cafile`."""
    import boto3
    import botocore
    from botocore.config import Config
    session = boto3.session.Session(aws_access_key_id=endpoint.access_key,
                                    aws_secret_access_key=endpoint.secret_key,
                                    region_name=endpoint.region)
    cfg = Config(signature_version="s3v4", s3={"addressing_style": "path"},
                 retries={"total_max_attempts": 1, "mode": "standard"})
    return session.client("s3", endpoint_url=endpoint.endpoint, config=cfg, verify=cafile)


def http_get(url, timeout=10, context=None):
    """(status, body bytes, headers) of a plain GET, 4xx/5xx included."""
    req = urllib.request.Request(url, method="GET")
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
            return r.status, r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)')


def parse_metrics(text):
    """{(name, frozenset of (label, value)): float}; checks every line's syntax on the way, and
    that every sample's family was announced with # HELP and # TYPE before it."""
    samples = {}
    typed = {}
    helped = set()
    for line in text.splitlines():
        if not line:
            continue
        if line.startswith("# HELP "):
            helped.add(line.split(" ")[2])
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram"), line
            typed[name] = kind
            continue
        assert not line.startswith("#"), line
        m = _SAMPLE.match(line)
        assert m, f"bad sample line {line!r}"
        name, labels, value = m.groups()
        family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in typed else name
        assert family in typed and family in helped, f"{name} without HELP/TYPE"
        pairs = []
        if labels:
            pos = 0
            while pos < len(labels):
                lm = _LABEL.match(labels, pos)
                assert lm, f"bad labels in {line!r}"
                value_unescaped = (lm.group(2).replace("\\n", "\n").replace('\\"', '"')
                                   .replace("\\\\", "\\"))
                pairs.append((lm.group(1), value_unescaped))
                pos = lm.end()
        key = (name, frozenset(pairs))
        assert key not in samples, f"duplicate sample {line!r}"
        samples[key] = float(value)
    return samples


def metric(samples, name, **labels):
    """The sample's value, 0 when absent."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape(base_url, context=None):
    status, body, headers = http_get(base_url + "/_cubby/metrics", context=context)
    assert status == 200, body
    assert headers.get("Content-Type").startswith("text/plain; version=0.0.4"), headers
    return parse_metrics(body.decode())

