"""botocore sends "Expect: 100-continue" with every file-like body, empty ones included.

If the server answers such a request without "100 Continue", botocore (Debian 12's version)
keeps that answer's status line for the pooled connection and misparses the next response on
it, waiting for its read timeout. `aws s3 sync` of a tree with an empty file hit exactly that.
"""
import io

from cubby_e2e import make_client


def test_empty_file_body_then_more_puts_on_the_same_connection(server, bucket):
    # One pooled connection, and a read timeout short enough to fail fast if the bug returns.
    s3 = make_client(server, max_pool_connections=1, read_timeout=5)
    s3.put_object(Bucket=bucket, Key="empty", Body=io.BytesIO(b""))
    for i in range(3):
        body = b"x" * (1000 + i)
        s3.put_object(Bucket=bucket, Key=f"k{i}", Body=io.BytesIO(body))
        assert s3.get_object(Bucket=bucket, Key=f"k{i}")["Body"].read() == body
    assert s3.head_object(Bucket=bucket, Key="empty")["ContentLength"] == 0


def test_rejected_empty_body_then_more_puts_on_the_same_connection(server, bucket):
    s3 = make_client(server, max_pool_connections=1, read_timeout=5)
    # A PUT answered with an error before any body is read (bad Content-MD5 for an empty body).
    try:
        s3.put_object(Bucket=bucket, Key="bad", Body=io.BytesIO(b""), ContentMD5="AAAAAAAAAAAAAAAAAAAAAA==")
        raise AssertionError("expected BadDigest")
    except s3.exceptions.ClientError as e:
        assert e.response["Error"]["Code"] == "BadDigest"
    s3.put_object(Bucket=bucket, Key="after", Body=io.BytesIO(b"after"))
    assert s3.get_object(Bucket=bucket, Key="after")["Body"].read() == b"after"
