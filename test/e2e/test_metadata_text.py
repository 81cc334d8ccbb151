"""User metadata that is not US-ASCII (issue 15, "Conformance bugs"): S3 decodes RFC 2047
encoded-words before it stores a value and returns a non-ASCII value RFC 2047-encoded
(https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingMetadata.html), so what was stored
comes back exactly, as mail-safe ASCII, instead of as raw bytes a client decodes as ISO-8859-1
(boto3 read "Hello Worldé" back as "Hello WorldÃ©")."""

import email.header

from cubby_e2e import raw_request

TEXT = "Hello Worldé"
ENCODED = "=?UTF-8?B?SGVsbG8gV29ybGTDqQ==?="


def decoded(value):
    """What a mail-aware client shows for a header value."""
    return str(email.header.make_header(email.header.decode_header(value)))


def put_raw(server, bucket, key, value_bytes):
    # Signed over the value as UTF-8 text, sent as exactly these bytes.
    def wire(headers):
        headers["x-amz-meta-m"] = value_bytes
    r = raw_request(server, "PUT", f"/{bucket}/{key}", body=b"x",
                    headers={"x-amz-meta-m": value_bytes.decode("utf-8")}, after_sign=wire)
    assert r.status == 200, r


def raw_meta(server, bucket, key, method="HEAD"):
    r = raw_request(server, method, f"/{bucket}/{key}")
    assert r.status == 200, r
    # http.client keeps header bytes as ISO-8859-1 characters: encode back to see the wire.
    return r.header("x-amz-meta-m").encode("latin-1")


def test_boto3_non_ascii_metadata_round_trips(s3, bucket):
    # The way s3-tests (test_object_set_get_unicode_metadata) sends it: botocore puts the
    # value's UTF-8 bytes on the wire (its Metadata parameter refuses non-ASCII itself).
    def set_meta(**kwargs):
        kwargs["params"]["headers"]["x-amz-meta-meta1"] = TEXT
    s3.meta.events.register("before-call.s3.PutObject", set_meta)
    s3.put_object(Bucket=bucket, Key="k", Body=b"bar")
    s3.meta.events.unregister("before-call.s3.PutObject", set_meta)
    for got in (s3.head_object(Bucket=bucket, Key="k")["Metadata"]["meta1"],
                s3.get_object(Bucket=bucket, Key="k")["Metadata"]["meta1"]):
        assert got == ENCODED  # what S3 answers; never the mojibake "Hello WorldÃ©"
        assert decoded(got) == TEXT
    # A copy keeps the stored text.
    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "k"})
    assert s3.head_object(Bucket=bucket, Key="copy")["Metadata"]["meta1"] == ENCODED


def test_wire_bytes(server, bucket):
    put_raw(server, bucket, "utf8", TEXT.encode("utf-8"))
    assert raw_meta(server, bucket, "utf8") == ENCODED.encode()
    assert raw_meta(server, bucket, "utf8", "GET") == ENCODED.encode()
    # An RFC 2047 value is decoded when stored: Q or B, it comes back as the same text.
    put_raw(server, bucket, "q", b"=?UTF-8?Q?Hello_World=C3=A9?=")
    assert raw_meta(server, bucket, "q") == ENCODED.encode()
    put_raw(server, bucket, "b", ENCODED.encode())
    assert raw_meta(server, bucket, "b") == ENCODED.encode()
    # ASCII is presented as it is.
    put_raw(server, bucket, "ascii", b"plain text, 100% ASCII")
    assert raw_meta(server, bucket, "ascii") == b"plain text, 100% ASCII"
