"""GetObjectAttributes, storage classes and the multipart checksum paths with Debian's boto3.

Debian's botocore (1.29) knows get_object_attributes but not x-amz-checksum-type, CRC64NVME nor
ChecksumType in responses: those headers are added by a before-sign hook (with_headers) and the
responses checked raw where boto3 would drop them."""

import base64
import hashlib
import os
import struct
import zlib

import botocore.exceptions
import pytest

from cubby_e2e import make_client, raw_request

MIB = 1 << 20
ALL = ["ETag", "Checksum", "ObjectParts", "StorageClass", "ObjectSize"]


def err(excinfo):
    r = excinfo.value.response
    return r["Error"]["Code"], r["ResponseMetadata"]["HTTPStatusCode"]


def with_headers(server, operation, headers):
    """A fresh client that adds `headers` to every `operation` request before signing."""
    client = make_client(server)

    def add(request, **_):
        for k, v in headers.items():
            request.headers[k] = v

    client.meta.events.register(f"before-sign.s3.{operation}", add)
    return client


def crc32_b64(data):
    return base64.b64encode(struct.pack(">I", zlib.crc32(data))).decode()


@pytest.fixture(scope="module")
def parts():
    return [os.urandom(5 * MIB), os.urandom(5 * MIB), os.urandom(MIB + 3)]


def upload(s3, bucket, key, parts, algorithm="CRC32", complete_client=None, **create):
    if algorithm:
        create["ChecksumAlgorithm"] = algorithm
    upload_id = s3.create_multipart_upload(Bucket=bucket, Key=key, **create)["UploadId"]
    done = []
    for i, data in enumerate(parts, start=1):
        kw = {"ChecksumAlgorithm": algorithm} if algorithm else {}
        r = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=i, Body=data,
                           **kw)
        entry = {"PartNumber": i, "ETag": r["ETag"]}
        if algorithm:
            entry["Checksum" + algorithm] = r["Checksum" + algorithm]
        done.append(entry)
    return upload_id, done


def test_attributes_of_a_simple_object(s3, bucket):
    data = b"hello attributes"
    put = s3.put_object(Bucket=bucket, Key="a", Body=data, ChecksumAlgorithm="SHA256",
                        StorageClass="STANDARD_IA")
    r = s3.get_object_attributes(Bucket=bucket, Key="a", ObjectAttributes=ALL)
    assert r["ETag"] == hashlib.md5(data).hexdigest() == put["ETag"].strip('"')
    assert r["Checksum"] == {"ChecksumSHA256": base64.b64encode(hashlib.sha256(data).digest())
                             .decode()}
    assert "ObjectParts" not in r  # not multipart
    assert r["StorageClass"] == "STANDARD_IA"
    assert r["ObjectSize"] == len(data)
    assert r["LastModified"] == s3.head_object(Bucket=bucket, Key="a")["LastModified"]
    # Only what was asked; no Checksum element for an object without one.
    s3.put_object(Bucket=bucket, Key="plain", Body=b"x")
    r = s3.get_object_attributes(Bucket=bucket, Key="plain",
                                 ObjectAttributes=["Checksum", "StorageClass"])
    assert "Checksum" not in r and "ETag" not in r and "ObjectSize" not in r
    assert r["StorageClass"] == "STANDARD"


def test_attributes_errors(server, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    path = f"/{bucket}/k"
    # Missing and unknown attribute names.
    r = raw_request(server, "GET", path, "attributes")
    assert r.status == 400 and b"<Code>InvalidArgument</Code>" in r.body
    r = raw_request(server, "GET", path, "attributes", headers={"x-amz-object-attributes": "Nope"})
    assert r.status == 400 and b"Invalid attribute name" in r.body
    r = raw_request(server, "GET", path, "attributes",
                    headers={"x-amz-object-attributes": "ETag", "x-amz-max-parts": "x"})
    assert r.status == 400 and b"<Code>InvalidArgument</Code>" in r.body
    r = raw_request(server, "GET", path, "attributes",
                    headers={"x-amz-object-attributes": "ETag", "x-amz-part-number-marker": "-1"})
    assert r.status == 400 and b"<Code>InvalidArgument</Code>" in r.body
    # Missing key, conditional headers.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object_attributes(Bucket=bucket, Key="missing", ObjectAttributes=["ETag"])
    assert err(e) == ("NoSuchKey", 404)
    r = raw_request(server, "GET", path, "attributes",
                    headers={"x-amz-object-attributes": "ETag", "If-Match": '"nope"'})
    assert r.status == 412
    etag = s3.head_object(Bucket=bucket, Key="k")["ETag"]
    r = raw_request(server, "GET", path, "attributes",
                    headers={"x-amz-object-attributes": "ETag", "If-None-Match": etag})
    assert r.status == 304
    r = raw_request(server, "GET", path, "attributes",
                    headers={"x-amz-object-attributes": "ETag,ObjectSize"})
    assert r.status == 200
    assert b"<ETag>" + etag.strip('"').encode() + b"</ETag>" in r.body
    assert b"<ObjectSize>1</ObjectSize>" in r.body and b"GetObjectAttributesResponse" in r.body


def test_attributes_versions_and_delete_markers(s3, bucket):
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    v1 = s3.put_object(Bucket=bucket, Key="v", Body=b"one", StorageClass="GLACIER_IR")["VersionId"]
    s3.put_object(Bucket=bucket, Key="v", Body=b"three!")
    r = s3.get_object_attributes(Bucket=bucket, Key="v", VersionId=v1,
                                 ObjectAttributes=["ObjectSize", "StorageClass"])
    assert r["ObjectSize"] == 3 and r["StorageClass"] == "GLACIER_IR" and r["VersionId"] == v1
    r = s3.get_object_attributes(Bucket=bucket, Key="v", ObjectAttributes=["ObjectSize"])
    assert r["ObjectSize"] == 6
    marker = s3.delete_object(Bucket=bucket, Key="v")["VersionId"]
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object_attributes(Bucket=bucket, Key="v", ObjectAttributes=["ObjectSize"])
    assert err(e) == ("NoSuchKey", 404)
    assert e.value.response["ResponseMetadata"]["HTTPHeaders"]["x-amz-delete-marker"] == "true"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.get_object_attributes(Bucket=bucket, Key="v", VersionId=marker,
                                 ObjectAttributes=["ObjectSize"])
    assert err(e) == ("MethodNotAllowed", 405)
    # List versions reports each version's class.
    versions = s3.list_object_versions(Bucket=bucket)["Versions"]
    assert sorted(v["StorageClass"] for v in versions) == ["GLACIER_IR", "STANDARD"]


def test_storage_classes_reported_back(s3, bucket):
    for cls in ["STANDARD", "STANDARD_IA", "GLACIER_IR", "REDUCED_REDUNDANCY", "ONEZONE_IA"]:
        s3.put_object(Bucket=bucket, Key=cls, Body=b"x", StorageClass=cls)
        head = s3.head_object(Bucket=bucket, Key=cls)
        # AWS leaves the header out for STANDARD.
        assert head.get("StorageClass") == (None if cls == "STANDARD" else cls)
        assert s3.get_object(Bucket=bucket, Key=cls).get("StorageClass") == head.get(
            "StorageClass")
    listed = {o["Key"]: o["StorageClass"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert listed == {c: c for c in listed}
    listed = {o["Key"]: o["StorageClass"] for o in s3.list_objects(Bucket=bucket)["Contents"]}
    assert listed == {c: c for c in listed}
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.put_object(Bucket=bucket, Key="bad", Body=b"x", StorageClass="FAST")
    assert err(e) == ("InvalidStorageClass", 400)
    # Copy: the header's class, else STANDARD (not the source's); onto itself to change it.
    s3.copy_object(Bucket=bucket, Key="copy", CopySource=f"{bucket}/STANDARD_IA")
    assert "StorageClass" not in s3.head_object(Bucket=bucket, Key="copy")
    s3.copy_object(Bucket=bucket, Key="copy", CopySource=f"{bucket}/copy",
                   StorageClass="ONEZONE_IA")
    assert s3.head_object(Bucket=bucket, Key="copy")["StorageClass"] == "ONEZONE_IA"
    s3.copy_object(Bucket=bucket, Key="copy2", CopySource=f"{bucket}/copy",
                   MetadataDirective="REPLACE", StorageClass="GLACIER_IR")
    assert s3.head_object(Bucket=bucket, Key="copy2")["StorageClass"] == "GLACIER_IR"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="copy3", CopySource=f"{bucket}/copy",
                       StorageClass="FAST")
    assert err(e) == ("InvalidStorageClass", 400)


def test_multipart_storage_class_and_parts(s3, bucket, parts):
    key = "mp"
    upload_id, done = upload(s3, bucket, key, parts, StorageClass="STANDARD_IA")
    assert s3.list_multipart_uploads(Bucket=bucket)["Uploads"][0]["StorageClass"] == "STANDARD_IA"
    assert s3.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)["StorageClass"] == \
        "STANDARD_IA"
    s3.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id,
                                 MultipartUpload={"Parts": done})
    crcs = [crc32_b64(p) for p in parts]
    composite = base64.b64encode(struct.pack(">I", zlib.crc32(
        b"".join(base64.b64decode(c) for c in crcs)))).decode() + "-3"
    r = s3.get_object_attributes(Bucket=bucket, Key=key, ObjectAttributes=ALL)
    assert r["StorageClass"] == "STANDARD_IA"
    assert r["ObjectSize"] == sum(len(p) for p in parts)
    assert r["Checksum"] == {"ChecksumCRC32": composite}
    op = r["ObjectParts"]
    assert op["TotalPartsCount"] == 3 and op["IsTruncated"] is False
    assert [(p["PartNumber"], p["Size"], p["ChecksumCRC32"]) for p in op["Parts"]] == \
        [(i + 1, len(p), crcs[i]) for i, p in enumerate(parts)]
    # Pagination.
    page = s3.get_object_attributes(Bucket=bucket, Key=key, ObjectAttributes=["ObjectParts"],
                                    MaxParts=2)["ObjectParts"]
    assert page["IsTruncated"] is True and page["MaxParts"] == 2
    assert page["NextPartNumberMarker"] == 2 and [p["PartNumber"] for p in page["Parts"]] == [1, 2]
    page = s3.get_object_attributes(Bucket=bucket, Key=key, ObjectAttributes=["ObjectParts"],
                                    MaxParts=2, PartNumberMarker=2)["ObjectParts"]
    assert page["IsTruncated"] is False and page["PartNumberMarker"] == 2
    assert [p["PartNumber"] for p in page["Parts"]] == [3]
    # GET/HEAD partNumber with checksum mode: that part's checksum.
    for n in (1, 3):
        head = s3.head_object(Bucket=bucket, Key=key, PartNumber=n, ChecksumMode="ENABLED")
        assert head["ChecksumCRC32"] == crcs[n - 1] and head["PartsCount"] == 3
        got = s3.get_object(Bucket=bucket, Key=key, PartNumber=n, ChecksumMode="ENABLED")
        assert got["ChecksumCRC32"] == crcs[n - 1]
        assert got["Body"].read() == parts[n - 1]
    assert s3.head_object(Bucket=bucket, Key=key, ChecksumMode="ENABLED")["ChecksumCRC32"] == \
        composite
    assert s3.head_object(Bucket=bucket, Key=key)["StorageClass"] == "STANDARD_IA"


def test_complete_verifies_the_object_checksum(server, s3, bucket, parts):
    crcs = [crc32_b64(p) for p in parts]
    composite_b64 = base64.b64encode(struct.pack(">I", zlib.crc32(
        b"".join(base64.b64decode(c) for c in crcs)))).decode()
    for sent in (composite_b64 + "-3", composite_b64):
        upload_id, done = upload(s3, bucket, "c", parts)
        client = with_headers(server, "CompleteMultipartUpload", {"x-amz-checksum-crc32": sent})
        r = client.complete_multipart_upload(Bucket=bucket, Key="c", UploadId=upload_id,
                                             MultipartUpload={"Parts": done})
        assert r["ChecksumCRC32"] == composite_b64 + "-3"
    # Wrong value: BadDigest, and the upload stays.
    upload_id, done = upload(s3, bucket, "c", parts)
    bad = crc32_b64(b"other")
    for headers, code in [({"x-amz-checksum-crc32": bad}, ("BadDigest", 400)),
                          ({"x-amz-checksum-crc32": "notbase64!"}, ("InvalidRequest", 400)),
                          ({"x-amz-checksum-sha256": base64.b64encode(b"\0" * 32).decode()},
                           ("InvalidRequest", 400)),
                          ({"x-amz-checksum-crc32": bad, "x-amz-checksum-crc32c": bad},
                           ("InvalidRequest", 400)),
                          ({"x-amz-checksum-type": "FULL_OBJECT"}, ("InvalidRequest", 400))]:
        client = with_headers(server, "CompleteMultipartUpload", headers)
        with pytest.raises(botocore.exceptions.ClientError) as e:
            client.complete_multipart_upload(Bucket=bucket, Key="c", UploadId=upload_id,
                                             MultipartUpload={"Parts": done})
        assert err(e) == code, headers
    s3.abort_multipart_upload(Bucket=bucket, Key="c", UploadId=upload_id)


def test_full_object_checksum(server, s3, bucket, parts):
    create = with_headers(server, "CreateMultipartUpload", {"x-amz-checksum-type": "FULL_OBJECT"})
    upload_id = create.create_multipart_upload(Bucket=bucket, Key="f",
                                               ChecksumAlgorithm="CRC32")["UploadId"]
    done = []
    for i, data in enumerate(parts, start=1):
        r = s3.upload_part(Bucket=bucket, Key="f", UploadId=upload_id, PartNumber=i, Body=data,
                           ChecksumAlgorithm="CRC32")
        done.append({"PartNumber": i, "ETag": r["ETag"], "ChecksumCRC32": r["ChecksumCRC32"]})
    whole = crc32_b64(b"".join(parts))
    client = with_headers(server, "CompleteMultipartUpload",
                          {"x-amz-checksum-crc32": whole, "x-amz-checksum-type": "FULL_OBJECT"})
    r = client.complete_multipart_upload(Bucket=bucket, Key="f", UploadId=upload_id,
                                         MultipartUpload={"Parts": done})
    assert r["ChecksumCRC32"] == whole
    raw = raw_request(server, "GET", f"/{bucket}/f", "attributes",
                      headers={"x-amz-object-attributes": "Checksum,ObjectParts"})
    assert raw.status == 200
    assert f"<ChecksumCRC32>{whole}</ChecksumCRC32>".encode() in raw.body
    assert b"<ChecksumType>FULL_OBJECT</ChecksumType>" in raw.body
    assert f"<ChecksumCRC32>{crc32_b64(parts[1])}</ChecksumCRC32>".encode() in raw.body
    # FULL_OBJECT with SHA256 is refused at create.
    with pytest.raises(botocore.exceptions.ClientError) as e:
        create.create_multipart_upload(Bucket=bucket, Key="f2", ChecksumAlgorithm="SHA256")
    assert err(e) == ("InvalidRequest", 400)


def test_copy_with_checksum_algorithm(s3, bucket):
    data = b"copy me" * 1000
    s3.put_object(Bucket=bucket, Key="src", Body=data)
    r = s3.copy_object(Bucket=bucket, Key="dst", CopySource=f"{bucket}/src",
                       ChecksumAlgorithm="CRC32")
    assert r["CopyObjectResult"]["ChecksumCRC32"] == crc32_b64(data)
    head = s3.head_object(Bucket=bucket, Key="dst", ChecksumMode="ENABLED")
    assert head["ChecksumCRC32"] == crc32_b64(data)
    # Onto itself, only a new checksum: allowed, and computed.
    s3.copy_object(Bucket=bucket, Key="src", CopySource=f"{bucket}/src",
                   ChecksumAlgorithm="SHA256")
    head = s3.head_object(Bucket=bucket, Key="src", ChecksumMode="ENABLED")
    assert head["ChecksumSHA256"] == base64.b64encode(hashlib.sha256(data).digest()).decode()
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.copy_object(Bucket=bucket, Key="dst", CopySource=f"{bucket}/src",
                       ChecksumAlgorithm="MD5")
    assert err(e) == ("InvalidRequest", 400)
