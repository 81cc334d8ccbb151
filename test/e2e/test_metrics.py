"""GET /_cubby/metrics: Prometheus text format 0.0.4; counters move with requests."""

import pytest

import cubby_e2e
from appliance import metric, scrape
from cubby_e2e import make_client, new_bucket_name


def test_metrics_count_requests_bytes_and_durations(server):
    s3 = make_client(server)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    before = scrape(server.endpoint)

    body = b"x" * 12345
    for i in range(3):
        s3.put_object(Bucket=bucket, Key=f"k{i}", Body=body)
    got = s3.get_object(Bucket=bucket, Key="k0")["Body"].read()
    assert got == body
    with pytest.raises(s3.exceptions.NoSuchKey):
        s3.get_object(Bucket=bucket, Key="missing")

    after = scrape(server.endpoint)
    delta = lambda name, **labels: metric(after, name, **labels) - metric(before, name, **labels)
    assert delta("cubby_http_requests_total", operation="PutObject", status="200") == 3
    assert delta("cubby_http_requests_total", operation="GetObject", status="200") == 1
    assert delta("cubby_http_requests_total", operation="GetObject", status="404") == 1
    # The first scrape itself was counted once it was answered.
    assert delta("cubby_http_requests_total", operation="CubbyMetrics", status="200") == 1
    assert delta("cubby_http_request_duration_seconds_count", operation="PutObject") == 3
    assert delta("cubby_http_request_duration_seconds_bucket", operation="PutObject",
                 le="+Inf") == 3
    assert delta("cubby_http_request_duration_seconds_sum", operation="PutObject") > 0
    # Buckets are cumulative: non-decreasing, ending at the count.
    les = sorted((float(dict(k[1])["le"]), v) for k, v in after.items()
                 if k[0] == "cubby_http_request_duration_seconds_bucket"
                 and dict(k[1])["operation"] == "PutObject")
    values = [v for _, v in les]
    assert values == sorted(values) and les[-1][0] == float("inf")
    assert delta("cubby_http_bytes_received_total") >= 3 * len(body)
    assert delta("cubby_http_bytes_sent_total") >= len(body)
    # This scrape's own connection is open while it is answered.
    assert metric(after, "cubby_http_open_connections") >= 1
    assert metric(after, "cubby_ready") == 1
    assert metric(after, "cubby_rocksdb_write_stopped") == 0
    assert ("cubby_rocksdb_pending_compaction_bytes", frozenset()) in after


def test_metrics_bucket_gauges(server):
    s3 = make_client(server)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="a", Body=b"1234")
    s3.put_object(Bucket=bucket, Key="b", Body=b"123456")
    m = scrape(server.endpoint)
    assert metric(m, "cubby_bucket_objects", bucket=bucket) == 2
    assert metric(m, "cubby_bucket_bytes", bucket=bucket) == 10
    s3.delete_object(Bucket=bucket, Key="a")
    m = scrape(server.endpoint)
    assert metric(m, "cubby_bucket_objects", bucket=bucket) == 1
    assert metric(m, "cubby_bucket_bytes", bucket=bucket) == 6


def test_metrics_need_no_auth_and_hold_no_secret_or_key(server):
    s3 = make_client(server)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="secret-looking-key-name", Body=b"x")
    r = cubby_e2e.raw_request(server, "GET", "/_cubby/metrics", sign=False)
    assert r.status == 200
    text = r.body.decode()
    assert cubby_e2e.ROOT_SECRET_KEY not in text
    assert cubby_e2e.ROOT_ACCESS_KEY not in text
    assert "secret-looking-key-name" not in text


def test_unknown_operations_and_bad_requests_are_bounded_labels(server):
    # A malformed request line is answered 400 and counted as BadRequest.
    import socket
    s = socket.create_connection((server.host, server.port), timeout=5)
    s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
    assert s.recv(4096).startswith(b"HTTP/1.1 400")
    s.close()
    m = scrape(server.endpoint)
    assert metric(m, "cubby_http_requests_total", operation="BadRequest", status="400") >= 1
    # An unroutable request's method or path never becomes a label.
    r = cubby_e2e.raw_request(server, "BREW", "/coffee-pot", sign=False)
    assert r.status >= 400
    m = scrape(server.endpoint)
    labels = {v for k in m for _, v in k[1]}
    assert not any("BREW" in v or "coffee" in v for v in labels)


def test_metrics_address_serves_only_cubby_endpoints(start_server):
    from appliance import wait_ready_line
    import re
    srv = wait_ready_line(start_server(args=("--metrics-address", "127.0.0.1:0")))
    m = None
    for line in srv.stdout_lines:
        m = m or re.search(r"metrics_endpoint=(http://127\.0\.0\.1:[0-9]+)", line)
    assert m, srv.output()
    metrics_url = m.group(1)
    assert metrics_url != server_url(srv)
    s3 = make_client(srv)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    samples = scrape(metrics_url)
    assert metric(samples, "cubby_http_requests_total", operation="CreateBucket",
                  status="200") == 1
    from appliance import http_get
    assert http_get(metrics_url + "/_cubby/ready")[0] == 200
    # No S3 on the metrics port, signed or not.
    status, _, _ = http_get(metrics_url + "/" + bucket)
    assert status == 404


def server_url(srv):
    return srv.endpoint
