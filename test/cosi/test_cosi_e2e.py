"""End to end: the real `cubby` binary with COSI_ENDPOINT set, driven the way the COSI sidecar
drives it (gRPC over the UNIX socket), and a workload using the returned credentials with boto3.

Python stubs for cosi.proto are generated at test time with protoc and the grpc_python_plugin
(both from protobuf-compiler / protobuf-compiler-grpc, the build packages). The harness that runs
the binary is test/e2e/cubby_e2e.py.
"""

import importlib
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
import uuid

import grpc
import pytest
from botocore.exceptions import ClientError

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "e2e"))
import cubby_e2e  # noqa: E402
from cubby_e2e import Server, make_client  # noqa: E402

_CUBBY_BIN = os.environ.get("CUBBY_BIN")
_HOME = tempfile.mkdtemp(prefix="cubby-cosi-e2e-home-")
cubby_e2e.sanitize_process_env(_HOME)


def _generate_stubs():
    out = tempfile.mkdtemp(prefix="cosi-stubs-")
    subprocess.run(
        ["protoc", f"--proto_path={REPO}/proto", "--proto_path=/usr/include",
         f"--python_out={out}", f"--grpc_python_out={out}",
         "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
         f"{REPO}/proto/cosi.proto"],
        check=True)
    sys.path.insert(0, out)
    return importlib.import_module("cosi_pb2"), importlib.import_module("cosi_pb2_grpc")


pb, pb_grpc = _generate_stubs()


@pytest.fixture(scope="session")
def cubby_bin():
    if not _CUBBY_BIN or not os.access(_CUBBY_BIN, os.X_OK):
        pytest.fail(f"set CUBBY_BIN to the built cubby executable (got {_CUBBY_BIN!r})")
    return _CUBBY_BIN


class Cosi:
    """A sidecar-like gRPC client on the driver's socket."""

    def __init__(self, socket_path):
        # The sidecar dials unix:// with :authority "localhost".
        self.channel = grpc.insecure_channel(
            f"unix://{socket_path}", options=[("grpc.default_authority", "localhost")])
        self.identity = pb_grpc.IdentityStub(self.channel)
        self.provisioner = pb_grpc.ProvisionerStub(self.channel)

    def close(self):
        self.channel.close()

    def info(self):
        return self.identity.DriverGetInfo(pb.DriverGetInfoRequest(), timeout=10)

    def create(self, name, **params):
        return self.provisioner.DriverCreateBucket(
            pb.DriverCreateBucketRequest(name=name, parameters=params), timeout=10)

    def delete(self, bucket_id, **context):
        return self.provisioner.DriverDeleteBucket(
            pb.DriverDeleteBucketRequest(bucket_id=bucket_id, delete_context=context), timeout=10)

    def grant(self, bucket_id, name, auth=None, **params):
        return self.provisioner.DriverGrantBucketAccess(
            pb.DriverGrantBucketAccessRequest(
                bucket_id=bucket_id, name=name,
                authentication_type=pb.Key if auth is None else auth, parameters=params),
            timeout=10)

    def revoke(self, bucket_id, account_id):
        return self.provisioner.DriverRevokeBucketAccess(
            pb.DriverRevokeBucketAccessRequest(bucket_id=bucket_id, account_id=account_id),
            timeout=10)


def wait_for_socket(path, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return
        time.sleep(0.02)
    raise AssertionError(f"no COSI socket at {path}")


@pytest.fixture
def cosi_env(tmp_path):
    sock_dir = tmp_path / "cosi"
    sock_dir.mkdir()
    return {"dir": str(sock_dir), "path": str(sock_dir / "cosi.sock")}


@pytest.fixture
def start(cubby_bin, tmp_path, cosi_env):
    """start(data_dir=None, env_extra=None) → (server, Cosi). Stopped with SIGTERM at teardown."""
    started = []
    home = tmp_path / "home"
    home.mkdir()

    def _start(data_dir=None, env_extra=None, ready=True):
        if data_dir is None:
            data_dir = tmp_path / f"data{len(started)}"
            data_dir.mkdir(exist_ok=True)
        env = {"COSI_ENDPOINT": f"unix://{cosi_env['path']}"}
        env.update(env_extra or {})
        srv = Server(cubby_bin, data_dir, home, env_extra=env)
        started.append(srv)
        if not ready:
            return srv, None
        srv.wait_ready()
        wait_for_socket(cosi_env["path"])
        client = Cosi(cosi_env["path"])
        srv.cosi_client = client
        # The socket may still be a stale one being replaced: wait until the driver answers.
        client.identity.DriverGetInfo(pb.DriverGetInfoRequest(), timeout=15,
                                      wait_for_ready=True)
        return srv, client

    yield _start

    for srv in started:
        client = getattr(srv, "cosi_client", None)
        if client:
            client.close()
        if not srv.stopped:
            code = srv.stop(signal.SIGTERM)
            assert code == 0, srv.output()


def s3_for(creds):
    """A boto3 client built only from what the sidecar would put in the workload's Secret."""
    s = creds["s3"].secrets
    srv = type("Creds", (), {"access_key": s["accessKeyID"], "secret_key": s["accessSecretKey"],
                             "region": s["region"], "endpoint": s["endpoint"]})()
    return make_client(srv)


def error_code(excinfo):
    return excinfo.value.response["Error"]["Code"]


def new_names():
    uid = uuid.uuid4()
    return f"bucket-{uid}", f"ba-{uuid.uuid4()}"


def test_sidecar_flow_with_boto3(start, cosi_env):
    srv, cosi = start()
    assert cosi.info().name == "cubby.objectstorage.k8s.io"
    st = os.lstat(cosi_env["path"])
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o660
    assert os.listdir(cosi_env["dir"]) == ["cosi.sock"]

    bucket, access = new_names()
    created = cosi.create(bucket, anonymousAccessMode="Private", forceDelete="false")
    assert created.bucket_id == bucket
    assert created.bucket_info.s3.region == srv.region
    assert created.bucket_info.s3.signature_version == pb.S3V4

    granted = cosi.grant(created.bucket_id, access, accessMode="ReadWrite")
    secrets = granted.credentials["s3"].secrets
    assert set(secrets.keys()) == {"accessKeyID", "accessSecretKey", "endpoint", "region"}
    assert granted.account_id == secrets["accessKeyID"]
    assert secrets["endpoint"] == srv.endpoint  # default: the S3 listen address
    # The secret never reaches the log.
    assert secrets["accessSecretKey"] not in srv.all_output()

    # Retried grant (the sidecar retries every error): the same keys.
    again = cosi.grant(created.bucket_id, access, accessMode="ReadWrite")
    assert again.account_id == granted.account_id
    assert again.credentials["s3"].secrets["accessSecretKey"] == secrets["accessSecretKey"]

    s3 = s3_for(granted.credentials)
    s3.put_object(Bucket=bucket, Key="hello.txt", Body=b"hi from a pod")
    assert s3.get_object(Bucket=bucket, Key="hello.txt")["Body"].read() == b"hi from a pod"
    listed = s3.list_objects_v2(Bucket=bucket)
    assert [o["Key"] for o in listed["Contents"]] == ["hello.txt"]

    # Usable only on that bucket.
    other, _ = new_names()
    cosi.create(other)
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=other, Key="x", Body=b"x")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    with pytest.raises(ClientError) as e:
        s3.list_objects_v2(Bucket=other)
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403

    # Non-empty bucket without forceDelete: refused, nothing touched.
    with pytest.raises(grpc.RpcError) as rpc:
        cosi.delete(bucket)
    assert rpc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert s3.get_object(Bucket=bucket, Key="hello.txt")["Body"].read() == b"hi from a pod"

    # Revoke: refused on the very next request.
    cosi.revoke(bucket, granted.account_id)
    with pytest.raises(ClientError) as e:
        s3.get_object(Bucket=bucket, Key="hello.txt")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert error_code(e) == "InvalidAccessKeyId"
    cosi.revoke(bucket, granted.account_id)  # retried revoke: OK
    cosi.revoke(bucket, "")                  # grant that never completed: OK

    # Force delete through delete_context; later revokes are fine.
    cosi.delete(bucket, forceDelete="true")
    cosi.delete(bucket)
    root = make_client(srv)
    names = [b["Name"] for b in root.list_buckets()["Buckets"]]
    assert bucket not in names and other in names


def test_read_only_grant_and_errors(start):
    srv, cosi = start()
    bucket, access = new_names()
    cosi.create(bucket)
    make_client(srv).put_object(Bucket=bucket, Key="seed", Body=b"seed")
    ro = cosi.grant(bucket, access, accessMode="ReadOnly")
    s3 = s3_for(ro.credentials)
    assert s3.get_object(Bucket=bucket, Key="seed")["Body"].read() == b"seed"
    with pytest.raises(ClientError) as e:
        s3.put_object(Bucket=bucket, Key="nope", Body=b"x")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403

    for call, code in [
        (lambda: cosi.create(bucket, forceDelete="true"), grpc.StatusCode.ALREADY_EXISTS),
        (lambda: cosi.create("Not_A_Bucket"), grpc.StatusCode.INVALID_ARGUMENT),
        (lambda: cosi.create(bucket, color="blue"), grpc.StatusCode.INVALID_ARGUMENT),
        (lambda: cosi.grant("bucket-missing", access), grpc.StatusCode.NOT_FOUND),
        (lambda: cosi.grant(bucket, "ba-iam", auth=pb.IAM), grpc.StatusCode.INVALID_ARGUMENT),
        (lambda: cosi.grant(bucket, access, accessMode="ReadWrite"),
         grpc.StatusCode.FAILED_PRECONDITION),
    ]:
        with pytest.raises(grpc.RpcError) as rpc:
            call()
        assert rpc.value.code() == code, rpc.value.details()


def test_restart_keeps_buckets_and_grants(start, tmp_path, cosi_env):
    data = tmp_path / "data-restart"
    data.mkdir()
    srv, cosi = start(data_dir=data)
    bucket, access = new_names()
    cosi.create(bucket, forceDelete="true")
    granted = cosi.grant(bucket, access)
    s3_for(granted.credentials).put_object(Bucket=bucket, Key="k", Body=b"v")
    cosi.close()
    srv.cosi_client = None
    assert srv.stop(signal.SIGTERM) == 0
    assert not os.path.exists(cosi_env["path"])  # removed on shutdown
    assert os.listdir(cosi_env["dir"]) == []

    srv2, cosi2 = start(data_dir=data)
    # The sidecar, having lost its state, retries everything: same answers.
    assert cosi2.create(bucket, forceDelete="true").bucket_id == bucket
    again = cosi2.grant(bucket, access)
    assert again.account_id == granted.account_id
    assert again.credentials["s3"].secrets["accessSecretKey"] == \
        granted.credentials["s3"].secrets["accessSecretKey"]
    s3 = s3_for(again.credentials)
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    # forceDelete from the create parameters: deleted with its object, keys stop working.
    cosi2.delete(bucket)
    with pytest.raises(ClientError) as e:
        s3.list_objects_v2(Bucket=bucket)
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    cosi2.revoke(bucket, again.account_id)  # after the bucket is gone: OK


def test_stale_socket_is_replaced(start, cosi_env):
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(cosi_env["path"])
    s.close()  # a socket file nobody listens on, as after a crash
    srv, cosi = start()
    assert cosi.info().name == "cubby.objectstorage.k8s.io"


@pytest.mark.parametrize("endpoint", [
    "tcp://127.0.0.1:7777",
    "unix:///tmp/cosi-not-sock.socket",
    "unix://relative/cosi.sock",
])
def test_bad_endpoint_fails_fast(start, endpoint):
    srv, _ = start(env_extra={"COSI_ENDPOINT": endpoint}, ready=False)
    code = srv.proc.wait(timeout=20)
    srv.stop()
    assert code != 0
    assert "COSI_ENDPOINT" in srv.all_output()


def test_bad_driver_name_fails_fast(start):
    srv, _ = start(env_extra={"CUBBY_COSI_DRIVER_NAME": "bad_name!"}, ready=False)
    code = srv.proc.wait(timeout=20)
    srv.stop()
    assert code != 0
    assert "CUBBY_COSI_DRIVER_NAME" in srv.all_output()


def test_public_endpoint_and_driver_name_from_env(start):
    srv, cosi = start(env_extra={"CUBBY_PUBLIC_ENDPOINT": "http://cubby.storage.svc:9000",
                                 "CUBBY_COSI_DRIVER_NAME": "example.com-cubby"})
    assert cosi.info().name == "example.com-cubby"
    bucket, access = new_names()
    cosi.create(bucket)
    secrets = cosi.grant(bucket, access).credentials["s3"].secrets
    assert secrets["endpoint"] == "http://cubby.storage.svc:9000"
