"""Virtual-hosted-style addressing (`--domain`): <bucket>.<domain> in the Host header."""

import pytest

from cubby_e2e import S3_NS, make_client, new_bucket_name, raw_request

DOMAIN = "s3.local"


@pytest.fixture
def vserver(start_server):
    return start_server(args=["--domain", DOMAIN])


def _vhost(srv, bucket=None):
    name = f"{bucket}.{DOMAIN}" if bucket else DOMAIN
    return f"{name}:{srv.port}"


def test_virtual_host_bucket_and_object(vserver):
    bucket = new_bucket_name()
    host = _vhost(vserver, bucket)
    resp = raw_request(vserver, "PUT", "/", host=host)
    assert resp.status == 200, resp
    resp = raw_request(vserver, "PUT", "/dir/key.txt", host=host, body=b"virtual",
                       headers={"Content-Type": "text/plain"})
    assert resp.status == 200, resp
    resp = raw_request(vserver, "GET", "/dir/key.txt", host=host)
    assert resp.status == 200
    assert resp.body == b"virtual"
    assert resp.header("Content-Type") == "text/plain"

    # The same bucket and object by path style on the bare endpoint.
    s3 = make_client(vserver)
    assert s3.get_object(Bucket=bucket, Key="dir/key.txt")["Body"].read() == b"virtual"

    resp = raw_request(vserver, "GET", "/", query="list-type=2", host=host)
    assert resp.status == 200
    root = resp.xml()
    assert root.find(f"{S3_NS}Name").text == bucket
    assert [k.text for k in root.iter(f"{S3_NS}Key")] == ["dir/key.txt"]

    assert raw_request(vserver, "HEAD", "/", host=host).status == 200
    assert raw_request(vserver, "DELETE", "/dir/key.txt", host=host).status == 204
    assert raw_request(vserver, "DELETE", "/", host=host).status == 204
    assert s3.list_buckets()["Buckets"] == []


def test_virtual_host_bare_domain_lists_buckets(vserver):
    s3 = make_client(vserver)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    resp = raw_request(vserver, "GET", "/", host=_vhost(vserver))
    assert resp.status == 200, resp
    assert resp.xml().tag == f"{S3_NS}ListAllMyBucketsResult"
    assert [n.text for n in resp.xml().iter(f"{S3_NS}Name")] == [name]


def test_virtual_host_dotted_bucket(vserver):
    bucket = "my.dotted." + new_bucket_name()
    host = _vhost(vserver, bucket)
    assert raw_request(vserver, "PUT", "/", host=host).status == 200
    assert raw_request(vserver, "PUT", "/k", host=host, body=b"dots").status == 200
    s3 = make_client(vserver)
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"dots"


def test_virtual_host_missing_bucket(vserver):
    bucket = new_bucket_name()
    resp = raw_request(vserver, "GET", "/k", host=_vhost(vserver, bucket))
    assert resp.status == 404
    assert resp.code == "NoSuchBucket"


def test_virtual_host_key_that_looks_like_bucket(vserver):
    # With a bucket in the Host, the whole path is the key, even its first segment.
    bucket = new_bucket_name()
    host = _vhost(vserver, bucket)
    raw_request(vserver, "PUT", "/", host=host)
    assert raw_request(vserver, "PUT", f"/{bucket}/x", host=host, body=b"nested").status == 200
    s3 = make_client(vserver)
    assert s3.get_object(Bucket=bucket, Key=f"{bucket}/x")["Body"].read() == b"nested"


def test_virtual_host_presigned(vserver):
    from cubby_e2e import get_url, presign_url
    bucket = new_bucket_name()
    host = _vhost(vserver, bucket)
    raw_request(vserver, "PUT", "/", host=host)
    raw_request(vserver, "PUT", "/p", host=host, body=b"pre")
    url = presign_url(vserver, "GET", "/p", host=host)
    resp = get_url(vserver, url)
    assert resp.status == 200, resp
    assert resp.body == b"pre"


def test_without_domain_host_is_not_a_bucket(server):
    # Without --domain, a Host of bucket.s3.local is just a host name: path style applies.
    s3 = make_client(server)
    bucket = new_bucket_name()
    s3.create_bucket(Bucket=bucket)
    resp = raw_request(server, "GET", f"/{bucket}", query="list-type=2",
                       host=f"{bucket}.{DOMAIN}:{server.port}")
    assert resp.status == 200, resp
    assert resp.xml().find(f"{S3_NS}Name").text == bucket
