"""Authentication edge cases of issue 15 ("Conformance bugs"), by hand-built requests, answered
as AWS answers them (Ceph's s3-tests: test_object_create_bad_authorization_empty / _none,
test_object_create_date_and_amz_date, _amz_date_and_no_date, bad_date_*_aws2,
bad_amz_date_*_aws4): an empty or absent Authorization header is an anonymous request whatever
signing headers it carries; Date beside x-amz-date is not what is signed; an x-amz-date changed
after signing is AccessDenied (unreadable, empty or before 1970) or RequestTimeTooSkewed."""

import base64
import email.utils
import hashlib
import hmac

import pytest
from botocore.auth import HmacV1Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from cubby_e2e import raw_request, send


def set_header(name, value):
    def change(headers):
        for k in [k for k in headers if k.lower() == name.lower()]:
            del headers[k]
        if value is not None:
            headers[name] = value
    return change


@pytest.mark.parametrize("authorization", ["", None])
def test_empty_or_absent_authorization_is_anonymous(server, s3, bucket, authorization):
    # Signed, then the Authorization header emptied or removed: x-amz-date and
    # x-amz-content-sha256 stay. A private bucket refuses the anonymous write...
    r = raw_request(server, "PUT", f"/{bucket}/k", body=b"bar",
                    after_sign=set_header("Authorization", authorization))
    assert (r.status, r.code) == (403, "AccessDenied"), r
    # ... which stored nothing; a public-read object lets the anonymous read.
    s3.put_object(Bucket=bucket, Key="k", Body=b"data", ACL="public-read")
    r = raw_request(server, "GET", f"/{bucket}/k", after_sign=set_header("Authorization", authorization))
    assert (r.status, r.body) == (200, b"data"), r


# "now" is the current time as an HTTP date (made in the test: parameters must be the same in
# every pytest-xdist worker).
@pytest.mark.parametrize("date", ["now", "", "Bad Date", "Tue, 07 Jul 1950 21:53:04 GMT"])
def test_date_beside_amz_date(server, s3, bucket, date):
    if date == "now":
        date = email.utils.formatdate(usegmt=True)
    # Signed with both headers (Date too, when a client signs it): x-amz-date is the time.
    r = raw_request(server, "PUT", f"/{bucket}/signed", body=b"bar", headers={"Date": date})
    assert r.status == 200, r
    # Date added after signing is not read either.
    r = raw_request(server, "PUT", f"/{bucket}/added", body=b"bar",
                    after_sign=set_header("Date", date))
    assert r.status == 200, r
    assert s3.get_object(Bucket=bucket, Key="added")["Body"].read() == b"bar"


@pytest.mark.parametrize("amz_date,code", [
    ("", "AccessDenied"),
    ("Bad Date", "AccessDenied"),
    ("19500707T215304Z", "AccessDenied"),
    ("20100707T215304Z", "RequestTimeTooSkewed"),
    ("20300707T215304Z", "RequestTimeTooSkewed"),
])
def test_bad_amz_date_v4(server, bucket, amz_date, code):
    r = raw_request(server, "PUT", f"/{bucket}/k", body=b"bar",
                    after_sign=set_header("X-Amz-Date", amz_date))
    assert (r.status, r.code) == (403, code), r


def v2_request(server, method, path, headers, body=b""):
    """A SigV2 (HmacV1) signed request, as botocore's s3 v2 signer makes it."""
    url = f"http://{server.host}:{server.port}{path}"
    req = AWSRequest(method=method, url=url, data=body,
                     headers={"Host": f"{server.host}:{server.port}", **headers})
    HmacV1Auth(Credentials(server.access_key, server.secret_key)).add_auth(req)
    return dict(req.headers.items())


def test_v2_date_and_amz_date(server, bucket):
    # AWS's SigV2: with x-amz-date, the Date line of the string to sign is empty, whatever Date
    # says (https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html).
    now = email.utils.formatdate(usegmt=True)
    string_to_sign = f"PUT\n\n\n\nx-amz-date:{now}\n/{bucket}/k"
    signature = base64.b64encode(hmac.new(server.secret_key.encode(), string_to_sign.encode(),
                                          hashlib.sha1).digest()).decode()
    for date in (now, "", "Bad Date"):
        hdrs = {"Host": f"{server.host}:{server.port}", "x-amz-date": now, "Date": date,
                "Authorization": f"AWS {server.access_key}:{signature}"}
        r = send(server, "PUT", f"/{bucket}/k", hdrs, b"bar")
        assert r.status == 200, (date, r)


@pytest.mark.parametrize("amz_date,code", [
    ("", "AccessDenied"),
    ("Bad Date", "AccessDenied"),
    ("Tue, 07 Jul 1950 21:53:04 GMT", "AccessDenied"),
    ("Tue, 07 Jul 2010 21:53:04 GMT", "RequestTimeTooSkewed"),
    ("Tue, 07 Jul 2030 21:53:04 GMT", "RequestTimeTooSkewed"),
])
def test_bad_date_v2(server, bucket, amz_date, code):
    # s3-tests' bad_date_*_aws2: the x-amz-date the client signs.
    hdrs = v2_request(server, "PUT", f"/{bucket}/k", {"x-amz-date": amz_date}, b"bar")
    r = send(server, "PUT", f"/{bucket}/k", hdrs, b"bar")
    assert (r.status, r.code) == (403, code), r
