"""ListObjects V1 and V2: prefix, delimiter, pagination, encoding, owner, key order.

boto3 always asks for encoding-type=url and decodes the answer itself, so the raw tests below
also check the undecoded wire format.
"""

import urllib.parse

import pytest
from botocore.exceptions import ClientError

from cubby_e2e import S3_NS, make_client, new_bucket_name, quoted_md5, raw_request

TREE = [
    "a.txt",
    "dir/",
    "dir/one",
    "dir/sub/deep",
    "dir/sub/deeper/x",
    "dir/two",
    "dir2/z",
    "e/f/g",
    "zeta",
]


@pytest.fixture
def tree(s3, bucket):
    for k in TREE:
        s3.put_object(Bucket=bucket, Key=k, Body=k.encode())
    return bucket


def _keys(resp):
    return [o["Key"] for o in resp.get("Contents", [])]


def _prefixes(resp):
    return [p["Prefix"] for p in resp.get("CommonPrefixes", [])]


def test_v2_all(s3, tree):
    resp = s3.list_objects_v2(Bucket=tree)
    assert _keys(resp) == TREE
    assert resp["KeyCount"] == len(TREE)
    assert resp["IsTruncated"] is False
    assert resp["Name"] == tree
    assert resp["MaxKeys"] == 1000
    for o in resp["Contents"]:
        assert o["Size"] == len(o["Key"])
        assert o["ETag"] == quoted_md5(o["Key"].encode())
        assert o["StorageClass"] == "STANDARD"
        assert o["LastModified"].tzinfo is not None
        assert "Owner" not in o  # V2 returns the owner only with fetch-owner=true


def test_v2_fetch_owner(s3, tree):
    owner_id = s3.list_buckets()["Owner"]["ID"]
    resp = s3.list_objects_v2(Bucket=tree, FetchOwner=True)
    assert [o["Owner"]["ID"] for o in resp["Contents"]] == [owner_id] * len(TREE)


@pytest.mark.parametrize("prefix,delimiter,keys,prefixes", [
    ("", "/", ["a.txt", "zeta"], ["dir/", "dir2/", "e/"]),
    ("dir/", "/", ["dir/", "dir/one", "dir/two"], ["dir/sub/"]),
    ("dir/sub/", "/", ["dir/sub/deep"], ["dir/sub/deeper/"]),
    ("dir", "/", [], ["dir/", "dir2/"]),
    ("dir/", "", ["dir/", "dir/one", "dir/sub/deep", "dir/sub/deeper/x", "dir/two"], []),
    ("dir/s", "/", [], ["dir/sub/"]),
    ("nothing", "/", [], []),
    ("", "sub", ["a.txt", "dir/", "dir/one", "dir/two", "dir2/z", "e/f/g", "zeta"], ["dir/sub"]),
    ("", "e", ["a.txt", "dir/", "dir/two", "dir2/z"], ["dir/one", "dir/sub/de", "e", "ze"]),
])
def test_v2_prefix_delimiter(s3, tree, prefix, delimiter, keys, prefixes):
    kw = {"Prefix": prefix}
    if delimiter:
        kw["Delimiter"] = delimiter
    resp = s3.list_objects_v2(Bucket=tree, **kw)
    assert _keys(resp) == keys
    assert _prefixes(resp) == prefixes
    assert resp["KeyCount"] == len(keys) + len(prefixes)
    assert resp["Prefix"] == prefix
    if delimiter:
        assert resp["Delimiter"] == delimiter


def test_v1_prefix_delimiter(s3, tree):
    resp = s3.list_objects(Bucket=tree, Delimiter="/", Prefix="dir/")
    assert _keys(resp) == ["dir/", "dir/one", "dir/two"]
    assert _prefixes(resp) == ["dir/sub/"]
    assert resp["IsTruncated"] is False
    assert resp["Prefix"] == "dir/"
    assert resp["Delimiter"] == "/"
    assert resp["Name"] == tree


def _v2_pages(s3, bucket, **kw):
    pages = []
    token = None
    while True:
        args = dict(kw)
        if token:
            args["ContinuationToken"] = token
        resp = s3.list_objects_v2(Bucket=bucket, **args)
        pages.append(resp)
        if not resp["IsTruncated"]:
            assert "NextContinuationToken" not in resp
            return pages
        token = resp["NextContinuationToken"]
        assert token
        assert len(pages) < 100, "pagination does not end"


@pytest.mark.parametrize("max_keys", [1, 2, 3, 4, 8, 9, 10])
def test_v2_pagination(s3, tree, max_keys):
    pages = _v2_pages(s3, tree, MaxKeys=max_keys)
    assert [k for p in pages for k in _keys(p)] == TREE
    for p in pages[:-1]:
        assert p["KeyCount"] == max_keys
        assert p["IsTruncated"] is True
        assert p["MaxKeys"] == max_keys
    assert 1 <= pages[-1]["KeyCount"] <= max_keys
    if len(pages) > 1:
        assert pages[1]["ContinuationToken"] == pages[0]["NextContinuationToken"]


@pytest.mark.parametrize("max_keys", [1, 2, 3])
def test_v2_pagination_with_delimiter(s3, tree, max_keys):
    # Keys and CommonPrefixes together count toward max-keys; a prefix is never repeated.
    pages = _v2_pages(s3, tree, MaxKeys=max_keys, Delimiter="/")
    keys = [k for p in pages for k in _keys(p)]
    prefixes = [c for p in pages for c in _prefixes(p)]
    assert keys == ["a.txt", "zeta"]
    assert prefixes == ["dir/", "dir2/", "e/"]
    for p in pages[:-1]:
        assert len(_keys(p)) + len(_prefixes(p)) == max_keys
        assert p["KeyCount"] == max_keys


def test_v2_start_after(s3, tree):
    resp = s3.list_objects_v2(Bucket=tree, StartAfter="dir/sub/deep")
    assert _keys(resp) == TREE[4:]
    assert resp["StartAfter"] == "dir/sub/deep"
    resp = s3.list_objects_v2(Bucket=tree, StartAfter="dir/sub")  # not itself a key
    assert _keys(resp) == TREE[3:]
    resp = s3.list_objects_v2(Bucket=tree, StartAfter="zzz")
    assert _keys(resp) == []
    assert resp["KeyCount"] == 0


def test_v2_start_after_with_delimiter(s3, tree):
    resp = s3.list_objects_v2(Bucket=tree, StartAfter="dir2/z", Delimiter="/")
    assert _keys(resp) == ["zeta"]
    assert _prefixes(resp) == ["e/"]
    resp = s3.list_objects_v2(Bucket=tree, StartAfter="a.txt", Delimiter="/", MaxKeys=2)
    assert _keys(resp) == []
    assert _prefixes(resp) == ["dir/", "dir2/"]
    assert resp["IsTruncated"] is True


def test_v1_marker_pagination(s3, tree):
    seen = []
    marker = ""
    for _ in range(20):
        resp = s3.list_objects(Bucket=tree, MaxKeys=4, Marker=marker)
        assert resp.get("Marker", "") == marker
        keys = _keys(resp)
        seen += keys
        if not resp["IsTruncated"]:
            break
        assert len(keys) == 4
        marker = resp.get("NextMarker", keys[-1])
    assert seen == TREE


def test_v1_next_marker_with_delimiter(s3, tree):
    resp = s3.list_objects(Bucket=tree, MaxKeys=2, Delimiter="/")
    assert resp["IsTruncated"] is True
    assert _keys(resp) == ["a.txt"]
    assert _prefixes(resp) == ["dir/"]
    # With a delimiter, NextMarker is returned when truncated.
    assert resp["NextMarker"] == "dir/"
    resp = s3.list_objects(Bucket=tree, MaxKeys=2, Delimiter="/", Marker=resp["NextMarker"])
    assert _prefixes(resp) == ["dir2/", "e/"]
    assert resp["IsTruncated"] is True
    resp = s3.list_objects(Bucket=tree, MaxKeys=2, Delimiter="/", Marker=resp["NextMarker"])
    assert _keys(resp) == ["zeta"]
    assert resp["IsTruncated"] is False


def test_list_missing_bucket(s3):
    for call in (s3.list_objects, s3.list_objects_v2):
        with pytest.raises(ClientError) as e:
            call(Bucket=new_bucket_name())
        assert e.value.response["Error"]["Code"] == "NoSuchBucket"
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_list_empty_bucket(s3, bucket):
    resp = s3.list_objects_v2(Bucket=bucket)
    assert resp["KeyCount"] == 0
    assert "Contents" not in resp
    assert resp["IsTruncated"] is False


def test_utf8_binary_order(s3, bucket):
    keys = [
        "A", "Z", "a", "a-b", "a/b", "a0", "b", "z", "~",
        "\u00e9",          # c3 a9
        "\u00ff",          # c3 bf
        "\u4e2d",          # e4 b8 ad
        "\uff5a",          # ef bd 9a (sorts before the emoji in UTF-8, after it in UTF-16)
        "\U0001F600",      # f0 9f 98 80
        "\u0100",          # c4 80
    ]
    for k in keys:
        s3.put_object(Bucket=bucket, Key=k, Body=b"")
    expected = sorted(keys, key=lambda k: k.encode("utf-8"))
    assert _keys(s3.list_objects_v2(Bucket=bucket)) == expected
    assert _keys(s3.list_objects(Bucket=bucket)) == expected
    pages = _v2_pages(s3, bucket, MaxKeys=2)
    assert [k for p in pages for k in _keys(p)] == expected
    assert _keys(s3.list_objects_v2(Bucket=bucket, StartAfter="\uff5a")) == ["\U0001F600"]


# ------------------------------------------------------------- raw wire format

def _xml_texts(root, path):
    return [e.text or "" for e in root.findall(path, {"s": S3_NS[1:-1]})]


SPECIAL_KEYS = ["sp ace", "plus+", "pct%", "amp&", "caf\u00e9", "lt<gt>", "q?x", "tab\t"]


@pytest.fixture
def special(s3, bucket):
    for k in SPECIAL_KEYS:
        s3.put_object(Bucket=bucket, Key=k, Body=b"x")
    return bucket


def test_raw_v2_without_encoding(server, special):
    resp = raw_request(server, "GET", f"/{special}", query="list-type=2")
    assert resp.status == 200, resp
    assert resp.header("Content-Type").startswith("application/xml")
    root = resp.xml()
    assert root.tag == f"{S3_NS}ListBucketResult"
    keys = _xml_texts(root, "s:Contents/s:Key")
    # Without encoding-type the keys are only XML-escaped, not URL-encoded.
    assert keys == sorted(SPECIAL_KEYS, key=lambda k: k.encode())


def test_raw_v2_encoding_type_url(server, special):
    resp = raw_request(server, "GET", f"/{special}", query="encoding-type=url&list-type=2")
    assert resp.status == 200, resp
    root = resp.xml()
    assert _xml_texts(root, "s:EncodingType") == ["url"]
    keys = _xml_texts(root, "s:Contents/s:Key")
    assert [urllib.parse.unquote_plus(k) for k in keys] == \
        sorted(SPECIAL_KEYS, key=lambda k: k.encode())
    for k in keys:
        assert " " not in k and "\t" not in k and "&" not in k and "<" not in k
        assert all(ord(c) < 128 for c in k), k


def test_raw_v1_encoding_type_url_prefixes(server, special, s3):
    s3.put_object(Bucket=special, Key="d ir/x", Body=b"")
    resp = raw_request(server, "GET", f"/{special}", query="delimiter=%2F&encoding-type=url")
    assert resp.status == 200, resp
    root = resp.xml()
    prefixes = _xml_texts(root, "s:CommonPrefixes/s:Prefix")
    assert [urllib.parse.unquote_plus(p) for p in prefixes] == ["d ir/"]
    assert " " not in prefixes[0]


def test_raw_v2_key_count_and_fields(server, tree):
    resp = raw_request(server, "GET", f"/{tree}", query="list-type=2&max-keys=3&prefix=dir%2F")
    root = resp.xml()
    assert _xml_texts(root, "s:KeyCount") == ["3"]
    assert _xml_texts(root, "s:MaxKeys") == ["3"]
    assert _xml_texts(root, "s:IsTruncated") == ["true"]
    assert _xml_texts(root, "s:Prefix") == ["dir/"]
    assert len(_xml_texts(root, "s:NextContinuationToken")) == 1


@pytest.mark.parametrize("query", [
    "list-type=2&max-keys=-1",
    "list-type=2&max-keys=abc",
    "max-keys=-5",
])
def test_invalid_max_keys(server, bucket, query):
    resp = raw_request(server, "GET", f"/{bucket}", query=query)
    assert resp.status == 400
    assert resp.code == "InvalidArgument"


def test_empty_continuation_token_is_echoed(server, s3, tree):
    """An empty continuation-token lists from the start and comes back as an empty
    <ContinuationToken/> (as s3-tests' test_bucket_listv2_continuationtoken_empty reads it)."""
    resp = s3.list_objects_v2(Bucket=tree, ContinuationToken="")
    assert resp["ContinuationToken"] == ""
    assert _keys(resp) == TREE and resp["IsTruncated"] is False
    raw = raw_request(server, "GET", f"/{tree}", query="continuation-token=&list-type=2")
    assert b"<ContinuationToken></ContinuationToken>" in raw.body, raw
    assert "ContinuationToken" not in s3.list_objects_v2(Bucket=tree)


def test_invalid_continuation_token(server, tree):
    resp = raw_request(server, "GET", f"/{tree}",
                       query="continuation-token=%21%21not-a-token%21%21&list-type=2")
    assert resp.status == 400
    assert resp.code == "InvalidArgument"


def test_max_keys_capped_at_1000(s3, tree):
    resp = s3.list_objects_v2(Bucket=tree, MaxKeys=5000)
    assert _keys(resp) == TREE
    assert resp["IsTruncated"] is False


def test_more_than_1000_keys(server, s3, bucket):
    import threading
    keys = [f"k{i:05d}" for i in range(1005)]
    errors = []

    def put(chunk):
        c = make_client(server)
        try:
            for k in chunk:
                c.put_object(Bucket=bucket, Key=k, Body=b"")
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=put, args=(keys[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors, errors[:3]
    first = s3.list_objects_v2(Bucket=bucket)
    assert first["KeyCount"] == 1000
    assert first["IsTruncated"] is True
    second = s3.list_objects_v2(Bucket=bucket, ContinuationToken=first["NextContinuationToken"])
    assert _keys(first) + _keys(second) == keys
    assert second["IsTruncated"] is False
    v1 = s3.list_objects(Bucket=bucket)
    assert len(v1["Contents"]) == 1000 and v1["IsTruncated"] is True
