"""Concurrent clients, torn requests, and shutdown with connections open."""

import hashlib
import os
import signal
import socket
import threading
import time

from botocore.awsrequest import AWSRequest

from cubby_e2e import make_client, raw_request, sign_request


def test_reads_during_overwrites_see_whole_versions(server, s3, bucket):
    versions = [os.urandom(3 * (1 << 20) + i) for i in range(3)]
    etags = {'"' + hashlib.md5(v).hexdigest() + '"': v for v in versions}
    s3.put_object(Bucket=bucket, Key="hot", Body=versions[0])
    stop = threading.Event()
    problems = []
    reads = [0]

    def writer():
        s3w = make_client(server)
        i = 0
        while not stop.is_set():
            i += 1
            s3w.put_object(Bucket=bucket, Key="hot", Body=versions[i % len(versions)])

    def reader():
        s3r = make_client(server)
        while not stop.is_set():
            got = s3r.get_object(Bucket=bucket, Key="hot")
            data = got["Body"].read()
            reads[0] += 1
            if got["ETag"] not in etags:
                problems.append(f"unknown ETag {got['ETag']}")
            elif etags[got["ETag"]] != data:
                problems.append(f"body does not match its ETag {got['ETag']} ({len(data)} bytes)")

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader)
                                                   for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(3)  # workload duration
    stop.set()
    for t in threads:
        t.join(120)
    assert reads[0] > 0
    assert not problems, problems[:5]


def test_many_parallel_clients(server, s3, bucket):
    errors = []

    def work(n):
        c = make_client(server)
        try:
            for i in range(20):
                key = f"t{n}/k{i}"
                body = f"{n}:{i}".encode() * (i + 1)
                c.put_object(Bucket=bucket, Key=key, Body=body)
                if c.get_object(Bucket=bucket, Key=key)["Body"].read() != body:
                    errors.append(key)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors[:5]
    keys = [o["Key"] for p in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket)
            for o in p.get("Contents", [])]
    assert len(keys) == 12 * 20
    assert keys == sorted(keys, key=lambda k: k.encode())


def _signed_put_head(server, bucket, key, body, content_length):
    host = f"{server.host}:{server.port}"
    req = AWSRequest(method="PUT", url=f"http://{host}/{bucket}/{key}", data=body,
                     headers={"Host": host})
    sign_request(req, server.access_key, server.secret_key, payload_hash="UNSIGNED-PAYLOAD")
    lines = [f"PUT /{bucket}/{key} HTTP/1.1"]
    lines += [f"{k}: {v}" for k, v in req.headers.items()]
    lines.append(f"Content-Length: {content_length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def test_truncated_body_stores_nothing(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="keep", Body=b"old value")
    for key in ("new", "keep"):
        sock = socket.create_connection((server.host, server.port), timeout=10)
        sock.sendall(_signed_put_head(server, bucket, key, b"", 100000) + b"x" * 5000)
        sock.shutdown(socket.SHUT_WR)  # the client goes away mid-body
        try:
            sock.recv(65536)  # whatever the server says (or a reset), it must not store
        except OSError:
            pass
        sock.close()
    # The server is still healthy, the new key does not exist, the old one is unchanged.
    resp = raw_request(server, "HEAD", f"/{bucket}/new")
    assert resp.status == 404
    assert s3.get_object(Bucket=bucket, Key="keep")["Body"].read() == b"old value"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["keep"]


def test_sigterm_with_idle_and_half_sent_connections(start_server):
    # The stalled body holds the shutdown for the whole grace period (default 30 s): keep it short.
    srv = start_server(args=("--shutdown-grace", "10s"))
    s3 = make_client(srv)
    s3.create_bucket(Bucket="idle")
    s3.put_object(Bucket="idle", Key="done", Body=b"acknowledged")
    idle = socket.create_connection((srv.host, srv.port), timeout=10)
    half = socket.create_connection((srv.host, srv.port), timeout=10)
    half.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # headers never finished
    body_pending = socket.create_connection((srv.host, srv.port), timeout=10)
    body_pending.sendall(_signed_put_head(srv, "idle", "partial", b"", 1 << 20) + b"y" * 1000)
    start = time.monotonic()
    srv.proc.send_signal(signal.SIGTERM)
    try:
        code = srv.proc.wait(timeout=30)
    finally:
        for s in (idle, half, body_pending):
            s.close()
    assert code == 0, srv.output()
    assert time.monotonic() - start < 30
    srv.stop()  # reaps the output threads

    srv2 = start_server(data_dir=srv.data_dir)
    s3 = make_client(srv2)
    assert s3.get_object(Bucket="idle", Key="done")["Body"].read() == b"acknowledged"
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="idle")["Contents"]] == ["done"]
