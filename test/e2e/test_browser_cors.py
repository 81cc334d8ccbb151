"""CORS in a real browser (issue 15): a page served from another origin (browser.py's static site)
uses `fetch` to PUT an object through a presigned URL and GET it back, reading the exposed ETag;
the object is then checked with boto3. Without a CORS rule the browser refuses (TypeError)."""

import hashlib

from browser import browser, run_async_js, static_site  # noqa: F401 (pytest fixtures)
from cubby_e2e import presign_url

# PUT a body with fetch (a preflighted request: PUT with a Content-Type), then GET it back.
PUT_THEN_GET = """
const [putUrl, getUrl, body] = args;
const put = await fetch(putUrl, {method: 'PUT', body: body,
                                 headers: {'Content-Type': 'text/plain'}});
const putEtag = put.headers.get('ETag');
const got = await fetch(getUrl);
done({putStatus: put.status, putEtag: putEtag, getStatus: got.status,
      getEtag: got.headers.get('ETag'), text: await got.text()});
"""

GET_ONLY = """
const got = await fetch(args[0]);
done({getStatus: got.status, text: await got.text()});
"""


def test_fetch_put_and_get_through_presigned_urls(server, s3, bucket, browser, static_site):
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [{
        "AllowedOrigins": [static_site.origin],
        "AllowedMethods": ["GET", "PUT"],
        "AllowedHeaders": ["*"],
        "ExposeHeaders": ["ETag"],
        "MaxAgeSeconds": 60,
    }]})
    browser.get(static_site.url("/"))
    body = "hello from the browser"
    result = run_async_js(browser, PUT_THEN_GET,
                          presign_url(server, "PUT", f"/{bucket}/from-browser.txt"),
                          presign_url(server, "GET", f"/{bucket}/from-browser.txt"), body)
    etag = '"' + hashlib.md5(body.encode()).hexdigest() + '"'
    assert result == {"putStatus": 200, "putEtag": etag, "getStatus": 200, "getEtag": etag,
                      "text": body}, result
    obj = s3.get_object(Bucket=bucket, Key="from-browser.txt")
    assert obj["Body"].read() == body.encode()
    assert obj["ETag"] == etag


def test_fetch_without_a_rule_is_refused(server, s3, bucket, browser, static_site):
    s3.put_object(Bucket=bucket, Key="k", Body=b"secret")
    browser.get(static_site.url("/"))
    url = presign_url(server, "GET", f"/{bucket}/k")
    result = run_async_js(browser, GET_ONLY, url)
    assert result.get("error", "").startswith("TypeError"), result
    # A rule for another origin refuses it too; one for the page's origin lets it through.
    rule = {"AllowedOrigins": ["http://elsewhere.test"], "AllowedMethods": ["GET"]}
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [rule]})
    result = run_async_js(browser, GET_ONLY, url)
    assert result.get("error", "").startswith("TypeError"), result
    rule["AllowedOrigins"] = [static_site.origin]
    s3.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [rule]})
    assert run_async_js(browser, GET_ONLY, url) == {"getStatus": 200, "text": "secret"}
