"""Configuration: flags and CUBBY_* variables, start-up output, credentials, shutdown."""

import configparser
import os
import pathlib
import signal
import stat
import subprocess
import tempfile

import pytest

from cubby_e2e import base_env, make_client, new_bucket_name

EXIT_CONFIG = 2


def _run(cubby_bin, args, home, env_extra=None, timeout=20):
    env = base_env(home)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([cubby_bin] + args, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=timeout)


def _one_line(stderr):
    lines = stderr.decode("utf-8", "replace").splitlines()
    assert len(lines) == 1, f"expected exactly one line on stderr, got {lines!r}"
    assert lines[0].strip()
    return lines[0]


@pytest.mark.parametrize("name,args", [
    ("unknown flag", ["--no-such-flag"]),
    ("unknown flag with value", ["--bogus=1"]),
    ("missing value", ["--s3-address"]),
    ("address without port", ["--s3-address", "127.0.0.1"]),
    ("port out of range", ["--s3-address", "127.0.0.1:99999"]),
    ("port not a number", ["--s3-address", "127.0.0.1:http"]),
    ("empty region", ["--region", ""]),
    ("positional argument", ["serve"]),
    ("unknown default object ownership", ["--default-object-ownership", "Owner"]),
])
def test_bad_flags_exit_2(cubby_bin, tmp_path, home, name, args):
    data = tmp_path / "data"
    data.mkdir()
    result = _run(cubby_bin, ["--data-dir", str(data)] + args, home,
                  {"CUBBY_ROOT_ACCESS_KEY": "AKIACONFIGTEST000001",
                   "CUBBY_ROOT_SECRET_KEY": "config-test-secret-0000000000000000000001"})
    assert result.returncode == EXIT_CONFIG, (result.returncode, result.stdout, result.stderr)
    _one_line(result.stderr)
    assert b"s3_endpoint=" not in result.stdout


def test_bad_env_value_exits_2(cubby_bin, tmp_path, home):
    data = tmp_path / "data"
    data.mkdir()
    result = _run(cubby_bin, [], home, {"CUBBY_DATA_DIR": str(data),
                                        "CUBBY_S3_ADDRESS": "not-an-address"})
    assert result.returncode == EXIT_CONFIG, (result.returncode, result.stdout, result.stderr)
    _one_line(result.stderr)


def test_data_dir_from_env(start_server, tmp_path):
    data = tmp_path / "envdata"
    data.mkdir()
    srv = start_server(data_dir=data, pass_data_dir_flag=False,
                       env_extra={"CUBBY_DATA_DIR": str(data)})
    s3 = make_client(srv)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    assert srv.stop() == 0
    assert any(data.iterdir()), "nothing written to CUBBY_DATA_DIR"
    srv2 = start_server(data_dir=data)
    assert [b["Name"] for b in make_client(srv2).list_buckets()["Buckets"]] == [name]


def test_flag_beats_env(start_server, tmp_path):
    flag_dir = tmp_path / "flag"
    env_dir = tmp_path / "env"
    flag_dir.mkdir()
    env_dir.mkdir()
    srv = start_server(data_dir=flag_dir, env_extra={"CUBBY_DATA_DIR": str(env_dir)})
    make_client(srv).create_bucket(Bucket=new_bucket_name())
    assert srv.stop() == 0
    assert any(flag_dir.iterdir())
    assert not any(env_dir.iterdir())


def test_cosi_variables_are_not_cubby_config(start_server):
    # The COSI sidecar's variables may be present in the pod; cubby reads COSI_ENDPOINT (the
    # spec's) and must not treat any other COSI_ name as its own (unknown) setting.
    # A short folder: a UNIX socket path must fit in 108 bytes, the build tree may not.
    sock_dir = tempfile.mkdtemp(prefix="cubby-cosi-", dir="/tmp")
    sock = pathlib.Path(sock_dir) / "cosi.sock"
    srv = start_server(env_extra={"COSI_ENDPOINT": f"unix://{sock}",
                                  "COSI_SOMETHING_UNKNOWN": "x"})
    assert make_client(srv).list_buckets()["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert sock.is_socket()
    assert srv.stop() == 0
    assert not sock.exists()
    os.rmdir(sock_dir)


def test_startup_line_and_sigint(start_server):
    srv = start_server()
    assert srv.endpoint == f"http://127.0.0.1:{srv.port}"
    assert srv.port > 0
    # The fixed root key id may be shown; its secret never.
    assert srv.secret_key not in srv.all_output()
    make_client(srv).list_buckets()
    assert srv.stop(signal.SIGINT) == 0
    assert srv.secret_key not in srv.all_output()


def test_port_in_use_fails_cleanly(start_server, tmp_path, cubby_bin, home):
    first = start_server()
    data = tmp_path / "second"
    data.mkdir()
    result = _run(cubby_bin, ["--data-dir", str(data), "--s3-address",
                              f"127.0.0.1:{first.port}"], home,
                  {"CUBBY_ROOT_ACCESS_KEY": "AKIACONFIGTEST000001",
                   "CUBBY_ROOT_SECRET_KEY": "config-test-secret-0000000000000000000001"})
    assert result.returncode != 0
    assert result.stderr.strip()
    assert b"s3_endpoint=" not in result.stdout


def test_data_dir_locked_by_running_server(start_server, tmp_path, cubby_bin, home):
    srv = start_server()
    result = _run(cubby_bin, ["--data-dir", srv.data_dir, "--s3-address", "127.0.0.1:0"], home,
                  {"CUBBY_ROOT_ACCESS_KEY": "AKIACONFIGTEST000001",
                   "CUBBY_ROOT_SECRET_KEY": "config-test-secret-0000000000000000000001"})
    assert result.returncode == 1
    # One line a person can act on, not RocksDB's "While lock file: ...: Resource temporarily
    # unavailable".
    line = _one_line(result.stderr)
    assert line.startswith(f"cubby: cannot open the store in {srv.data_dir}/db: "), line
    assert "another cubby process" in line, line
    assert "Resource temporarily unavailable" not in line, line
    assert make_client(srv).list_buckets()["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_generated_root_credentials(start_server, tmp_path):
    data = tmp_path / "gen"
    data.mkdir()
    srv = start_server(data_dir=data, root_keys=False)
    cred_path = data / "root-credentials"
    assert cred_path.exists(), srv.output()
    mode = stat.S_IMODE(os.stat(cred_path).st_mode)
    assert mode == 0o600, oct(mode)

    parser = configparser.ConfigParser()
    parser.read(cred_path)
    assert parser.sections() == ["default"]
    access_key = parser["default"]["aws_access_key_id"].strip()
    secret_key = parser["default"]["aws_secret_access_key"].strip()
    assert len(access_key) >= 16 and len(secret_key) >= 30

    out = srv.all_output()
    assert access_key in "\n".join(srv.stdout_lines)
    assert str(cred_path) in "\n".join(srv.stdout_lines)
    assert secret_key not in out

    s3 = make_client(srv, access_key=access_key, secret_key=secret_key)
    name = new_bucket_name()
    s3.create_bucket(Bucket=name)
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [name]

    # The file is an ordinary AWS shared-credentials file: botocore reads it as such.
    import boto3
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = str(cred_path)
    try:
        session = boto3.session.Session(region_name="us-east-1")
        creds = session.get_credentials()
        assert creds.access_key == access_key
        assert creds.secret_key == secret_key
    finally:
        os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.path.join(os.environ["HOME"],
                                                                 "no-such-aws-credentials")

    assert srv.stop() == 0
    assert secret_key not in srv.all_output()

    # A restart keeps using the same credentials (objects stay reachable with them).
    srv2 = start_server(data_dir=data, root_keys=False)
    assert secret_key not in srv2.all_output()
    s3 = make_client(srv2, access_key=access_key, secret_key=secret_key)
    assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == [name]
