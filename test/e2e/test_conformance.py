"""Conformance details that real software trips on (issue 15), each provoked with boto3 or a
raw request: what AWS answers is what cubby must answer."""

import base64
import email.utils
import hashlib
import hmac
import http.client
import re
import urllib.parse

import botocore.exceptions
from botocore.awsrequest import AWSRequest
import pytest

from cubby_e2e import raw_request, send, sign_request

MIB = 1024 * 1024


def test_list_v1_url_encoding_leaves_prefix_as_text(s3, bucket):
    s3.put_object(Bucket=bucket, Key="line\nbreak/a", Body=b"x")
    # boto3 asks for encoding-type=url by default and decodes keys, not v1's top-level Prefix.
    v1 = s3.list_objects(Bucket=bucket, Prefix="line\nbreak/")
    assert v1["Prefix"] == "line\nbreak/"
    assert [o["Key"] for o in v1["Contents"]] == ["line\nbreak/a"]
    v2 = s3.list_objects_v2(Bucket=bucket, Prefix="line\nbreak/")
    assert v2["Prefix"] == "line\nbreak/"
    assert [o["Key"] for o in v2["Contents"]] == ["line\nbreak/a"]


def test_complete_with_repeated_part_number_takes_last_upload(s3, bucket):
    up = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    first = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up, PartNumber=1,
                           Body=b"a" * (5 * MIB))["ETag"]
    second = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up, PartNumber=1,
                            Body=b"b" * (5 * MIB))["ETag"]
    last = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up, PartNumber=2,
                          Body=b"tail")["ETag"]
    down = [{"PartNumber": 2, "ETag": last}, {"PartNumber": 1, "ETag": second}]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=up,
                                     MultipartUpload={"Parts": down})
    assert e.value.response["Error"]["Code"] == "InvalidPartOrder"
    parts = [{"PartNumber": 1, "ETag": first}, {"PartNumber": 1, "ETag": second},
             {"PartNumber": 2, "ETag": last}]
    done = s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=up,
                                        MultipartUpload={"Parts": parts})
    assert done["ETag"].endswith('-2"')
    body = s3.get_object(Bucket=bucket, Key="mp")["Body"].read()
    assert body == b"b" * (5 * MIB) + b"tail"


def test_empty_continuation_token_is_absent(server, s3, bucket):
    for k in ("a", "b", "c"):
        s3.put_object(Bucket=bucket, Key=k, Body=b"x")
    r = raw_request(server, "GET", f"/{bucket}", "list-type=2&continuation-token=&start-after=a")
    assert r.status == 200, r.body
    assert re.findall(rb"<Key>([^<]*)</Key>", r.body) == [b"b", b"c"]


@pytest.mark.parametrize("sent,stored", [
    ("aws-chunked, deflate, gzip", "deflate, gzip"),
    ("deflate, gzip", "deflate, gzip"),
    ("gzip", "gzip"),
])
def test_content_encoding_drops_only_aws_chunked(server, s3, bucket, sent, stored):
    r = raw_request(server, "PUT", f"/{bucket}/enc", headers={"Content-Encoding": sent},
                    body=b"data")
    assert r.status == 200, r.body
    assert s3.head_object(Bucket=bucket, Key="enc")["ContentEncoding"] == stored


def test_put_without_content_length_is_411(server, bucket):
    """Neither Content-Length nor chunked framing: 411 MissingContentLength, as AWS."""
    target = f"/{bucket}/nolength"
    host = f"{server.host}:{server.port}"
    req = AWSRequest(method="PUT", url=f"http://{host}{target}", data=b"",
                     headers={"Host": host})
    sign_request(req, server.access_key, server.secret_key, region=server.region,
                 payload_hash="UNSIGNED-PAYLOAD")
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.putrequest("PUT", target, skip_host=True, skip_accept_encoding=True)
        for k, v in req.headers.items():
            if k.lower() != "content-length":
                conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    assert resp.status == 411, body
    assert b"<Code>MissingContentLength</Code>" in body


def test_part_number_beyond_the_parts(s3, bucket):
    s3.put_object(Bucket=bucket, Key="single", Body=b"one part")
    assert s3.get_object(Bucket=bucket, Key="single", PartNumber=1)["Body"].read() == b"one part"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object(Bucket=bucket, Key="single", PartNumber=2)
    assert e.value.response["Error"]["Code"] == "InvalidPartNumber"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 416
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.head_object(Bucket=bucket, Key="single", PartNumber=2)
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 416


def _v2_request(server, method, target, resource):
    """A request signed as minio-go's V2 signer signs it: the resource without '='."""
    date = email.utils.formatdate(usegmt=True)
    sts = f"{method}\n\n\n{date}\n{resource}"
    sig = base64.b64encode(hmac.new(server.secret_key.encode(), sts.encode(),
                                    hashlib.sha1).digest()).decode()
    headers = {"Host": f"{server.host}:{server.port}", "Date": date,
               "Authorization": f"AWS {server.access_key}:{sig}"}
    return send(server, method, target, headers)


def test_sigv2_empty_subresource_value(server, s3, bucket):
    r = _v2_request(server, "POST", f"/{bucket}/v2obj?uploads=", f"/{bucket}/v2obj?uploads")
    assert r.status == 200, r.body
    assert b"<UploadId>" in r.body
    r = _v2_request(server, "GET", f"/{bucket}?location=", f"/{bucket}?location")
    assert r.status == 200, r.body
    r = _v2_request(server, "GET", f"/{bucket}?uploads=", f"/{bucket}?uploads")
    assert r.status == 200, r.body
    assert b"v2obj" in r.body


def test_storage_class_accepted_or_refused(s3, bucket):
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_object(Bucket=bucket, Key="sc", Body=b"x", StorageClass="INVALID_STORAGE_CLASS")
    assert e.value.response["Error"]["Code"] == "InvalidStorageClass"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    for sc in ("STANDARD", "STANDARD_IA", "GLACIER_IR", "DEEP_ARCHIVE"):
        s3.put_object(Bucket=bucket, Key="sc", Body=b"x", StorageClass=sc)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.create_multipart_upload(Bucket=bucket, Key="mp", StorageClass="NOPE")
    assert e.value.response["Error"]["Code"] == "InvalidStorageClass"


def test_list_buckets_pagination(server, s3):
    # Debian's botocore predates ListBuckets' parameters: raw signed requests.
    names = sorted(f"lbp-{i}-{server.port}" for i in range(5))
    for n in names:
        s3.create_bucket(Bucket=n)
    seen, token = [], None
    for _ in range(10):
        query = "max-buckets=2&prefix=lbp-"
        if token:
            query += "&continuation-token=" + urllib.parse.quote(token, safe="")
        r = raw_request(server, "GET", "/", query)
        assert r.status == 200, r.body
        assert b"<Prefix>lbp-</Prefix>" in r.body
        page = re.findall(rb"<Name>([^<]*)</Name>", r.body)
        assert len(page) <= 2
        assert r.body.count(b"<BucketRegion>" + server.region.encode() + b"</BucketRegion>") \
            == len(page)
        seen += [n.decode() for n in page]
        m = re.search(rb"<ContinuationToken>([^<]*)</ContinuationToken>", r.body)
        token = m.group(1).decode() if m else None
        if not token:
            break
    assert seen == names
    everything = s3.list_buckets()
    assert [b["Name"] for b in everything["Buckets"] if b["Name"].startswith("lbp-")] == names
    r = raw_request(server, "GET", "/", "max-buckets=0")
    assert r.status == 400 and b"<Code>InvalidArgument</Code>" in r.body, r.body
    head = s3.head_bucket(Bucket=names[0])
    assert head["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == server.region
