"""Fixtures: the real `cubby` binary (CUBBY_BIN) on 127.0.0.1 port 0, and clients for it."""

import json
import os
import signal
import tempfile

import pytest

import cubby_e2e
import leak_scan
from cubby_e2e import Server, make_client, new_bucket_name

# The environment as the test runner got it: a pytest-xdist worker inherits the sanitized one
# and finds the original in E2E_ORIGINAL_ENV. Kept for package managers that need the network
# (npm ci in test_sdk_js.py); the clients under test only ever see the sanitized one.
_INHERITED_ENV = os.environ.pop("E2E_ORIGINAL_ENV", None)
cubby_e2e.ORIGINAL_ENV = json.loads(_INHERITED_ENV) if _INHERITED_ENV else dict(os.environ)
# Read here: sanitize_process_env drops every CUBBY_* variable from this process.
_CUBBY_BIN = cubby_e2e.ORIGINAL_ENV.get("CUBBY_BIN")
# test/storage/cubby-format-tool (test_upgrade.py); by default beside CUBBY_BIN in its build.
_FORMAT_TOOL = cubby_e2e.ORIGINAL_ENV.get("CUBBY_FORMAT_TOOL") or os.path.join(
    os.path.dirname(_CUBBY_BIN or ""), "test", "storage", "cubby-format-tool")
_HOME = tempfile.mkdtemp(prefix="cubby-e2e-home-")
cubby_e2e.sanitize_process_env(_HOME)
os.environ["E2E_ORIGINAL_ENV"] = json.dumps(cubby_e2e.ORIGINAL_ENV)  # for the xdist workers


@pytest.fixture(scope="session")
def cubby_bin():
    binary = _CUBBY_BIN
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail(f"set CUBBY_BIN to the built cubby executable (got {binary!r})")
    return binary


@pytest.fixture(scope="session", autouse=True)
def no_secret_in_server_output():
    """When the session ends (in each pytest-xdist worker: its own servers), the output of every
    cubby it started holds no secret; a leak fails the run as an error at teardown."""
    yield
    if _CUBBY_BIN:
        leak_scan.check(_CUBBY_BIN)


@pytest.fixture(scope="session")
def format_tool():
    if not os.access(_FORMAT_TOOL, os.X_OK):
        pytest.fail(f"set CUBBY_FORMAT_TOOL to the built cubby-format-tool (got {_FORMAT_TOOL!r})")
    return _FORMAT_TOOL


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def start_server(cubby_bin, tmp_path, home):
    """Factory: start_server(args=(), env_extra=None, root_keys=True, data_dir=None, ready=True).

    Every server still running at teardown is stopped with SIGTERM and must exit 0.
    """
    started = []

    def start(args=(), env_extra=None, root_keys=True, data_dir=None, ready=True, **kw):
        if data_dir is None:
            data_dir = tmp_path / f"data{len(started)}"
            data_dir.mkdir()
        srv = Server(cubby_bin, data_dir, home, args=args, env_extra=env_extra,
                     root_keys=root_keys, **kw)
        started.append(srv)
        if ready:
            srv.wait_ready()
        return srv

    yield start

    failures = []
    for srv in started:
        if srv.stopped:
            continue
        code = srv.stop(signal.SIGTERM)
        if code != 0:
            failures.append(f"cubby pid {srv.pid} exited with {code} after SIGTERM\n{srv.output()}")
    if failures:
        pytest.fail("\n".join(failures))


@pytest.fixture
def server(start_server):
    return start_server()


@pytest.fixture
def s3(server):
    return make_client(server)


@pytest.fixture
def anon(server):
    return make_client(server, anonymous=True)


@pytest.fixture
def bucket(s3):
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    return name
