"""POST Object in a real browser (issue 15): headless Chromium loads a page (browser.py's static
site) holding an HTML form built from boto3's generate_presigned_post, with a file input; the
file is chosen (send_keys of a temporary file's path) and the form submitted, as a user would.
The object is then read back with boto3. With success_action_redirect pointing at the static
site, the browser ends on that page with bucket, key and etag in its query."""

import hashlib
import html
import urllib.parse

from browser import browser, static_site  # noqa: F401 (pytest fixtures)


def form_page(action, fields):
    inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                     for k, v in fields.items())
    return (f'<!doctype html><title>upload</title>'
            f'<form id="f" action="{html.escape(action)}" method="post" '
            f'enctype="multipart/form-data">{inputs}'
            f'<input type="file" id="file" name="file"><input type="submit" id="go"></form>'
            ).encode()


def wait(browser, condition):
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(browser, 20).until(condition)


def upload(browser, static_site, page, path, content, tmp_path):
    from selenium.webdriver.common.by import By
    static_site.pages[page] = path
    file = tmp_path / "photo.txt"
    file.write_bytes(content)
    browser.get(static_site.url(page))
    browser.find_element(By.ID, "file").send_keys(str(file))
    browser.find_element(By.ID, "go").click()


def test_form_upload_with_redirect(server, s3, bucket, browser, static_site, tmp_path):
    done = static_site.url("/done.html")
    static_site.pages["/done.html"] = b"<!doctype html><title>done</title><p>uploaded</p>"
    post = s3.generate_presigned_post(
        bucket, "uploads/${filename}",
        Fields={"success_action_redirect": done, "Content-Type": "text/plain"},
        Conditions=[["starts-with", "$key", "uploads/"], {"success_action_redirect": done},
                    ["starts-with", "$Content-Type", "text/"],
                    ["content-length-range", 1, 1 << 20]],
        ExpiresIn=300)
    content = b"chosen in the browser\n" * 100
    upload(browser, static_site, "/form.html", form_page(post["url"], post["fields"]), content,
           tmp_path)
    wait(browser, lambda d: d.current_url.startswith(done))
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(browser.current_url).query)
    etag = '"' + hashlib.md5(content).hexdigest() + '"'
    assert query == {"bucket": [bucket], "key": ["uploads/photo.txt"], "etag": [etag]}
    obj = s3.get_object(Bucket=bucket, Key="uploads/photo.txt")
    assert obj["Body"].read() == content
    assert obj["ETag"] == etag
    assert obj["ContentType"] == "text/plain"


def test_form_upload_default_204(server, s3, bucket, browser, static_site, tmp_path):
    post = s3.generate_presigned_post(bucket, "plain.bin", ExpiresIn=300)
    content = bytes(range(256)) * 40
    upload(browser, static_site, "/form204.html", form_page(post["url"], post["fields"]), content,
           tmp_path)
    # A 204 leaves the page where it is; wait for the object instead.
    wait(browser, lambda d: s3.list_objects_v2(Bucket=bucket).get("KeyCount", 0) == 1)
    assert s3.get_object(Bucket=bucket, Key="plain.bin")["Body"].read() == content
