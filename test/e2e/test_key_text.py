"""Object keys as text: keys that are not UTF-8 are refused as AWS refuses them, and keys with
characters XML 1.0 cannot carry stay usable, with every response well-formed.

AWS answers 400 InvalidURI for a key that is not UTF-8; it accepts control characters, writes
them into a listing as character references (`&#x1;`, which strict XML 1.0 parsers reject) and
asks clients to use encoding-type=url for them (boto3 always does).
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html
"""

import base64
import hashlib
import re
import urllib.parse
import xml.etree.ElementTree as ET

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import S3_NS, raw_request

NS = {"s3": S3_NS.strip("{}")}

# Not UTF-8: bytes that never occur, an overlong '/', a UTF-16 surrogate, a value past U+10FFFF.
INVALID_KEYS = ["%FF%FE", "%C0%AF", "a/%ED%A0%80", "%F4%90%80%80", "ok%C3"]

# Control characters AWS accepts in keys; \x01 and \x1f are not XML 1.0 characters at all, \r
# is one but a parser turns it into \n unless it is written as a reference.
CONTROL_KEYS = ["a\x01b", "c\x1fd", "e\x7ff", "g\rh", "i\tj", "k\nl", "m\r\nn", "caf\u00e9"]


def _wire(key):
    return "/" + urllib.parse.quote(key, safe="/~")


def _delete_body(keys_xml):
    """A DeleteObjects body of the keys, each given as the bytes (or str) to put in <Key>."""
    objects = b"".join(b"<Object><Key>" + (k.encode() if isinstance(k, str) else k) +
                       b"</Key></Object>" for k in keys_xml)
    body = b"<Delete>" + objects + b"</Delete>"
    return body, {"Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()}


@pytest.mark.parametrize("key", INVALID_KEYS)
def test_key_that_is_not_utf8_is_invalid_uri(server, s3, bucket, key):
    path = f"/{bucket}/{key}"
    for method, query in (("PUT", ""), ("POST", "uploads"), ("GET", ""), ("HEAD", "")):
        resp = raw_request(server, method, path, query=query, body=b"x" if method == "PUT" else b"")
        assert resp.status == 400, (method, resp)
        if method != "HEAD":
            assert resp.code == "InvalidURI", resp
            assert resp.error()["Message"] == "Couldn't parse the specified URI."
    s3.put_object(Bucket=bucket, Key="src", Body=b"x")
    resp = raw_request(server, "PUT", path, headers={"x-amz-copy-source": f"/{bucket}/src"})
    assert resp.status == 400 and resp.code == "InvalidURI", resp
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["src"]


def test_delete_of_a_key_that_is_not_utf8_answers_204(server, bucket):
    # Kept open so an object stored under such a key by an older cubby can still be removed.
    resp = raw_request(server, "DELETE", f"/{bucket}/%FF%FE")
    assert resp.status == 204, resp


def _create_uploads(server, bucket, keys):
    # Raw: CreateMultipartUpload's answer echoes the key and has no encoding-type, so for \x01
    # it holds `&#x1;`, which boto3's parser refuses (as it refuses AWS's answer).
    for key in keys:
        assert raw_request(server, "POST", f"/{bucket}{_wire(key)}", query="uploads").status == 200


def test_control_character_keys_round_trip_through_boto3(server, s3, bucket):
    for key in CONTROL_KEYS:
        s3.put_object(Bucket=bucket, Key=key, Body=key.encode())
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == key.encode()
    # boto3 asks for encoding-type=url and decodes the keys itself.
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == sorted(CONTROL_KEYS)
    assert [o["Key"] for o in s3.list_objects(Bucket=bucket)["Contents"]] == sorted(CONTROL_KEYS)
    _create_uploads(server, bucket, CONTROL_KEYS)
    # botocore decodes only ListObjects' keys itself; it never asks ListMultipartUploads for url.
    uploads = s3.list_multipart_uploads(Bucket=bucket, EncodingType="url")["Uploads"]
    assert [urllib.parse.unquote(u["Key"]) for u in uploads] == sorted(CONTROL_KEYS)


@pytest.mark.parametrize("query,entry", [
    ("encoding-type=url", "s3:Contents/s3:Key"),
    ("list-type=2&encoding-type=url", "s3:Contents/s3:Key"),
    ("uploads&encoding-type=url", "s3:Upload/s3:Key"),
])
def test_url_encoded_listings_parse_with_exact_keys(server, s3, bucket, query, entry):
    for key in CONTROL_KEYS:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    _create_uploads(server, bucket, CONTROL_KEYS)
    resp = raw_request(server, "GET", f"/{bucket}", query=query)
    assert resp.status == 200, resp
    root = ET.fromstring(resp.body)
    assert root.find("s3:EncodingType", NS).text == "url"
    keys = [urllib.parse.unquote(e.text) for e in root.findall(entry, NS)]
    assert keys == sorted(CONTROL_KEYS)


def test_default_listing_carries_no_raw_control_bytes(server, s3, bucket):
    for key in CONTROL_KEYS:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    for query in ("", "list-type=2", "uploads"):
        body = raw_request(server, "GET", f"/{bucket}", query=query).body
        assert not re.search(rb"[\x00-\x08\x0b\x0c\x0d\x0e-\x1f]", body), body
    body = raw_request(server, "GET", f"/{bucket}").body
    # AWS's character references for the characters XML 1.0 cannot carry.
    assert b"<Key>a&#x1;b</Key>" in body and b"<Key>c&#x1F;d</Key>" in body, body


def test_default_listing_of_xml_characters_parses_with_exact_keys(server, s3, bucket):
    keys = ["e\x7ff", "g\rh", "i\tj", "k\nl", "m\r\nn", "caf\u00e9", "<&>\"'"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    for query in ("", "list-type=2"):
        root = ET.fromstring(raw_request(server, "GET", f"/{bucket}", query=query).body)
        assert [e.text for e in root.findall("s3:Contents/s3:Key", NS)] == sorted(keys)


def test_delete_objects_echo_parses_with_exact_keys(server, s3, bucket):
    keys = ["g\rh", "m\r\nn", "e\x7ff", "i\tj"]
    for key in keys:
        s3.put_object(Bucket=bucket, Key=key, Body=b"")
    # A carriage return survives XML only as a reference, as AWS's guide asks clients to send it.
    body, headers = _delete_body(k.replace("\r", "&#13;") for k in keys)
    resp = raw_request(server, "POST", f"/{bucket}", query="delete", body=body, headers=headers)
    assert resp.status == 200, resp
    deleted = [e.text for e in ET.fromstring(resp.body).findall("s3:Deleted/s3:Key", NS)]
    assert deleted == keys
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    # boto3 parses the same echo.
    s3.put_object(Bucket=bucket, Key="i\tj", Body=b"")
    out = s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "i\tj"}, {"Key": "e\x7ff"}]})
    assert [d["Key"] for d in out["Deleted"]] == ["i\tj", "e\x7ff"]


@pytest.mark.parametrize("key_xml", [
    b"a&#x1;b",       # a reference to a character XML 1.0 forbids (AWS: MalformedXML)
    b"a\x01b",        # the character itself
    b"\xff\xfe",      # not UTF-8
    b"\xc0\xaf",      # an overlong '/'
    b"\xed\xa0\x80",  # a UTF-16 surrogate
    b"\xef\xbf\xbe",  # U+FFFE: UTF-8, but not an XML character
])
def test_delete_objects_refuses_keys_xml_cannot_carry(server, s3, bucket, key_xml):
    body, headers = _delete_body([key_xml])
    resp = raw_request(server, "POST", f"/{bucket}", query="delete", body=body, headers=headers)
    assert resp.status == 400 and resp.code == "MalformedXML", resp


def test_boto3_delete_objects_of_a_control_character_key_is_malformed_xml(s3, bucket):
    # botocore writes \x01 raw into the body, which is not XML; AWS answers MalformedXML too, and
    # the key is deleted one by one instead.
    s3.put_object(Bucket=bucket, Key="a\x01b", Body=b"")
    with pytest.raises(ClientError) as e:
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "a\x01b"}]})
    assert e.value.response["Error"]["Code"] == "MalformedXML"
    s3.delete_object(Bucket=bucket, Key="a\x01b")
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)


@pytest.mark.parametrize("query", [
    "prefix=%FF&delimiter=%C0%AF&marker=%ED%A0%80",
    "list-type=2&prefix=%FF&delimiter=%C0%AF&start-after=%ED%A0%80",
    "uploads&prefix=%FF&delimiter=%C0%AF&key-marker=%ED%A0%80",
])
def test_listing_parameters_that_are_not_utf8_stay_well_formed(server, bucket, query):
    # They match no key; echoed, they are U+FFFD by default and exact with encoding-type=url.
    root = ET.fromstring(raw_request(server, "GET", f"/{bucket}", query=query).body)
    assert root.find("s3:Prefix", NS).text == "\ufffd"
    root = ET.fromstring(raw_request(server, "GET", f"/{bucket}",
                                     query=query + "&encoding-type=url").body)
    if query.startswith(("list-type=2", "uploads")):
        assert urllib.parse.unquote_to_bytes(root.find("s3:Prefix", NS).text) == b"\xff"
    else:  # ListObjects v1 leaves its top-level Prefix as XML text (test_conformance)
        assert root.find("s3:Prefix", NS).text == "\ufffd"
    assert urllib.parse.unquote_to_bytes(root.find("s3:Delimiter", NS).text) == b"\xc0\xaf"
