"""A real browser for the e2e tests: headless Chromium (Debian's `chromium` and `chromium-driver`)
driven by `python3-selenium`, and a small static site on 127.0.0.1 whose port makes it another
origin than cubby's. Shared by the browser tests (CORS today, POST Object form uploads next).

A test module uses the fixtures by importing them:
    from browser import browser, static_site  # noqa: F401 (pytest fixtures)
and then `static_site.pages["/x.html"] = b"..."`, `browser.get(static_site.url("/x.html"))`,
`run_async_js(browser, "...; done(result)")`.

Without Chromium the tests skip, except in CI (the CI variable set), where they fail: CI installs
the packages (scripts/setup.sh --test) and must run them.
"""

import http.server
import os
import shutil
import threading

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def _missing():
    """What is missing for a browser test, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "python3-selenium"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return package
    return None


def require_browser():
    missing = _missing()
    if missing is None:
        return
    message = f"the browser tests need Debian's {missing} (scripts/setup.sh --test)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


class StaticSite:
    """Serves `pages` (path -> bytes, as text/html) on 127.0.0.1 at an ephemeral port."""

    def __init__(self):
        self.pages = {"/": b"<!doctype html><title>cubby e2e</title><p>e2e</p>"}
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                body = site.pages.get(self.path.split("?")[0])
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

            def log_message(self, *args):
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path="/"):
        return self.origin + path

    def close(self):
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def static_site():
    site = StaticSite()
    yield site
    site.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium per test module (starting one costs about a second)."""
    require_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tmp_path_factory.mktemp("chromium-profile")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def run_async_js(driver, body, *args):
    """Runs `body` as an async function in the current page with `args` as `args` and `done` as
    the callback that ends it; returns what `done` was given. An exception thrown by `body` comes
    back as {"error": "<name>: <message>"}."""
    script = ("const done = arguments[arguments.length - 1];"
              "const args = Array.prototype.slice.call(arguments, 0, -1);"
              "(async () => {" + body + "})().catch(e => done({error: e.name + ': ' + e.message}));")
    return driver.execute_async_script(script, *args)
