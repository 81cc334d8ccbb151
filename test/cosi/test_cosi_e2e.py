"""End to end: the real `cubby` binary with COSI_ENDPOINT set, driven the way the COSI sidecar
drives it (gRPC over the UNIX socket), and a workload using the returned credentials with boto3.

Python stubs for cosi.proto are generated at test time with protoc and the grpc_python_plugin
(both from protobuf-compiler / protobuf-compiler-grpc, the build packages). The harness that runs
the binary is test/e2e/cubby_e2e.py.
"""

import importlib
import json
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


# ---------------------------------------------------------------- sigs.k8s.io.cosi.v1alpha2
#
# cosi_v1alpha2.proto declares the same option extensions (numbers 1115, 1116) as cosi.proto, so
# its generated Python module cannot live in the default descriptor pool beside cosi_pb2 (the
# same conflict the C++ build resolves in proto/CMakeLists.txt). The v1alpha2 client therefore
# builds its message classes in a private pool from protoc's descriptor set of the unedited
# file, and calls the methods by their gRPC paths: the wire is exactly a v1alpha2 sidecar's.

def _v1alpha2_messages():
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    out = tempfile.mkdtemp(prefix="cosi-v1alpha2-")
    desc = os.path.join(out, "cosi_v1alpha2.desc")
    subprocess.run(
        ["protoc", f"--proto_path={REPO}/proto", "--proto_path=/usr/include",
         "--include_imports", f"--descriptor_set_out={desc}",
         f"{REPO}/proto/cosi_v1alpha2.proto"],
        check=True)
    files = descriptor_pb2.FileDescriptorSet()
    with open(desc, "rb") as f:
        files.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    factory = message_factory.MessageFactory(pool)
    package = "sigs.k8s.io.cosi.v1alpha2"

    class Messages:
        def __getattr__(self, name):
            return factory.GetPrototype(pool.FindMessageTypeByName(f"{package}.{name}"))

    return Messages()


pb2 = _v1alpha2_messages()
V2_S3 = 1                      # ObjectProtocol.Type.S3
V2_AZURE = 2
V2_KEY = 1                     # AuthenticationType.Type.KEY
V2_SERVICE_ACCOUNT = 2
V2_RW, V2_RO, V2_WO = 1, 2, 3  # AccessMode.Mode
V2_PATH, V2_VIRTUAL = 1, 2     # S3AddressingStyle.Style


class Cosi2:
    """A v1alpha2-sidecar-like client: the same socket, the sigs.k8s.io.cosi.v1alpha2 methods."""

    def __init__(self, socket_path):
        self.channel = grpc.insecure_channel(
            f"unix://{socket_path}", options=[("grpc.default_authority", "localhost")])

    def _call(self, service, method, request, response):
        fn = self.channel.unary_unary(
            f"/sigs.k8s.io.cosi.v1alpha2.{service}/{method}",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=getattr(pb2, response).FromString)
        return fn(request, timeout=10)

    def close(self):
        self.channel.close()

    def info(self):
        return self._call("Identity", "DriverGetInfo", pb2.DriverGetInfoRequest(),
                          "DriverGetInfoResponse")

    def create(self, name, protocols=(V2_S3,), **params):
        request = pb2.DriverCreateBucketRequest(name=name, parameters=params)
        for p in protocols:
            request.protocols.add(type=p)
        return self._call("Provisioner", "DriverCreateBucket", request,
                          "DriverCreateBucketResponse")

    def get_existing(self, bucket_id, **params):
        request = pb2.DriverGetExistingBucketRequest(existing_bucket_id=bucket_id,
                                                     parameters=params)
        return self._call("Provisioner", "DriverGetExistingBucket", request,
                          "DriverGetExistingBucketResponse")

    def delete(self, bucket_id, **params):
        request = pb2.DriverDeleteBucketRequest(bucket_id=bucket_id, parameters=params)
        return self._call("Provisioner", "DriverDeleteBucket", request,
                          "DriverDeleteBucketResponse")

    def grant(self, account_name, buckets, auth=V2_KEY):
        request = pb2.DriverGrantBucketAccessRequest(account_name=account_name)
        request.protocol.type = V2_S3
        request.authentication_type.type = auth
        for bucket_id, mode in buckets:
            accessed = request.buckets.add(bucket_id=bucket_id)
            accessed.access_mode.mode = mode
        return self._call("Provisioner", "DriverGrantBucketAccess", request,
                          "DriverGrantBucketAccessResponse")

    def revoke(self, account_id):
        request = pb2.DriverRevokeBucketAccessRequest(account_id=account_id)
        request.protocol.type = V2_S3
        request.authentication_type.type = V2_KEY
        return self._call("Provisioner", "DriverRevokeBucketAccess", request,
                          "DriverRevokeBucketAccessResponse")


def s3_for_v2(srv, granted, bucket_info):
    """A boto3 client from what a v1alpha2 sidecar puts in the workload's Secret."""
    creds = granted.credentials.s3
    return make_client(srv, access_key=creds.access_key_id, secret_key=creds.access_secret_key,
                       region=bucket_info.s3.region, endpoint=bucket_info.s3.endpoint)


def status_of(excinfo):
    return excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]


def test_v1alpha2_multi_bucket_key_does_exactly_what_each_mode_allows(start, cosi_env):
    srv, cosi1 = start()
    cosi2 = Cosi2(cosi_env["path"])
    try:
        # Both generations on the one socket, at the same time.
        assert cosi1.info().name == cosi2.info().name == "cubby.objectstorage.k8s.io"
        assert [p.type for p in cosi2.info().supported_protocols] == [V2_S3]

        rw, ro, wo, other = (f"bc-{uuid.uuid4()}" for _ in range(4))
        for b in (rw, ro, wo):
            assert cosi2.create(b).bucket_id == b
        cosi1.create(other)  # a v1alpha1 bucket the key must not reach
        root = make_client(srv)
        for b in (ro, wo, other):
            root.put_object(Bucket=b, Key="seed", Body=b"seed")

        granted = cosi2.grant(f"ba-{uuid.uuid4()}", [(rw, V2_RW), (ro, V2_RO), (wo, V2_WO)])
        assert [b.bucket_id for b in granted.buckets] == [rw, ro, wo]
        assert granted.account_id == granted.credentials.s3.access_key_id
        assert granted.credentials.s3.access_secret_key not in srv.all_output()
        info = granted.buckets[0].bucket_info
        assert info.s3.endpoint == srv.endpoint and info.s3.region == srv.region
        assert info.s3.addressing_style.style == V2_PATH
        s3 = s3_for_v2(srv, granted, info)

        # READ_WRITE: everything.
        s3.put_object(Bucket=rw, Key="k", Body=b"v")
        assert s3.get_object(Bucket=rw, Key="k")["Body"].read() == b"v"
        assert [o["Key"] for o in s3.list_objects_v2(Bucket=rw)["Contents"]] == ["k"]
        s3.delete_object(Bucket=rw, Key="k")
        # READ_ONLY: reads, no writes.
        assert s3.get_object(Bucket=ro, Key="seed")["Body"].read() == b"seed"
        assert [o["Key"] for o in s3.list_objects_v2(Bucket=ro)["Contents"]] == ["seed"]
        for write in (lambda: s3.put_object(Bucket=ro, Key="x", Body=b"x"),
                      lambda: s3.delete_object(Bucket=ro, Key="seed")):
            with pytest.raises(ClientError) as e:
                write()
            assert status_of(e) == 403
        # WRITE_ONLY: writes, no reads.
        s3.put_object(Bucket=wo, Key="x", Body=b"x")
        for read in (lambda: s3.get_object(Bucket=wo, Key="seed"),
                     lambda: s3.list_objects_v2(Bucket=wo)):
            with pytest.raises(ClientError) as e:
                read()
            assert status_of(e) == 403
        # Any other bucket: nothing.
        for call in (lambda: s3.get_object(Bucket=other, Key="seed"),
                     lambda: s3.put_object(Bucket=other, Key="x", Body=b"x"),
                     lambda: s3.list_objects_v2(Bucket=other)):
            with pytest.raises(ClientError) as e:
                call()
            assert status_of(e) == 403
        assert root.get_object(Bucket=ro, Key="seed")["Body"].read() == b"seed"

        # Revoke: refused on the very next request; again and unknown: OK.
        cosi2.revoke(granted.account_id)
        with pytest.raises(ClientError) as e:
            s3.get_object(Bucket=ro, Key="seed")
        assert status_of(e) == 403 and error_code(e) == "InvalidAccessKeyId"
        cosi2.revoke(granted.account_id)
        cosi2.revoke("CBUNKNOWNKEY0000")
    finally:
        cosi2.close()


def test_v1alpha2_errors_and_long_names(start, cosi_env):
    srv, _ = start()
    cosi2 = Cosi2(cosi_env["path"])
    try:
        long_name = "bc-" + "x" * 250
        created = cosi2.create(long_name)
        bucket = created.bucket_id
        assert len(bucket) <= 63 and bucket.startswith("bc-xxx")
        assert cosi2.create(long_name).bucket_id == bucket
        assert bucket in [b["Name"] for b in make_client(srv).list_buckets()["Buckets"]]
        assert cosi2.get_existing(bucket).protocols.s3.bucket_id == bucket
        access = f"ba-{uuid.uuid4()}"
        cosi2.grant(access, [(bucket, V2_RO)])
        for call, code in [
            (lambda: cosi2.create(long_name, forceDelete="true"), grpc.StatusCode.ALREADY_EXISTS),
            (lambda: cosi2.create("bc-azure", protocols=(V2_AZURE,)),
             grpc.StatusCode.INVALID_ARGUMENT),
            (lambda: cosi2.create("bc-color", color="blue"), grpc.StatusCode.INVALID_ARGUMENT),
            (lambda: cosi2.get_existing("bc-missing-" + str(uuid.uuid4())),
             grpc.StatusCode.NOT_FOUND),
            (lambda: cosi2.grant(access, [(bucket, V2_RW)]), grpc.StatusCode.ALREADY_EXISTS),
            (lambda: cosi2.grant("ba-sa", [(bucket, V2_RW)], auth=V2_SERVICE_ACCOUNT),
             grpc.StatusCode.INVALID_ARGUMENT),
            (lambda: cosi2.grant("ba-nf", [(bucket, V2_RW), ("bc-nope", V2_RW)]),
             grpc.StatusCode.NOT_FOUND),
        ]:
            with pytest.raises(grpc.RpcError) as rpc:
                call()
            assert rpc.value.code() == code, rpc.value.details()
        make_client(srv).put_object(Bucket=bucket, Key="k", Body=b"v")
        with pytest.raises(grpc.RpcError) as rpc:
            cosi2.delete(bucket)
        assert rpc.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        cosi2.delete(bucket, forceDelete="true")
        cosi2.delete(bucket)
    finally:
        cosi2.close()


def test_v1alpha2_virtual_addressing_with_domain(start, cosi_env):
    srv, _ = start(env_extra={"CUBBY_DOMAIN": "s3.cubby.test"})
    cosi2 = Cosi2(cosi_env["path"])
    try:
        assert cosi2.create("bc-vhost").protocols.s3.addressing_style.style == V2_VIRTUAL
        assert cosi2.create("bc.dotted").protocols.s3.addressing_style.style == V2_PATH
    finally:
        cosi2.close()


def test_v1alpha2_restart_keeps_buckets_and_grants(start, tmp_path, cosi_env):
    data = tmp_path / "data-restart-v2"
    data.mkdir()
    srv, cosi1 = start(data_dir=data)
    cosi2 = Cosi2(cosi_env["path"])
    name = "bc-" + "r" * 250
    bucket = cosi2.create(name).bucket_id
    plain = f"bc-{uuid.uuid4()}"
    cosi1.create(plain)
    access = f"ba-{uuid.uuid4()}"
    granted = cosi2.grant(access, [(bucket, V2_RW), (plain, V2_RO)])
    s3_for_v2(srv, granted, granted.buckets[0].bucket_info).put_object(
        Bucket=bucket, Key="k", Body=b"v")
    cosi2.close()
    cosi1.close()
    srv.cosi_client = None
    assert srv.stop(signal.SIGTERM) == 0

    srv2, _ = start(data_dir=data)
    cosi2 = Cosi2(cosi_env["path"])
    try:
        assert cosi2.create(name).bucket_id == bucket
        again = cosi2.grant(access, [(plain, V2_RO), (bucket, V2_RW)])
        assert again.account_id == granted.account_id
        assert again.credentials.s3.access_secret_key == granted.credentials.s3.access_secret_key
        s3 = s3_for_v2(srv2, again, again.buckets[0].bucket_info)
        assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
        with pytest.raises(ClientError) as e:
            s3.put_object(Bucket=plain, Key="x", Body=b"x")
        assert status_of(e) == 403
        cosi2.revoke(again.account_id)
        with pytest.raises(ClientError) as e:
            s3.get_object(Bucket=bucket, Key="k")
        assert status_of(e) == 403
    finally:
        cosi2.close()


# ---------------------------------------------------------------- BucketClass settings (issue 17)

def check_bucket_settings(srv, create, suffix):
    """Creates versioned, locked, expiring and encrypted buckets with `create(name, **params)`
    (one COSI version's DriverCreateBucket, returning the bucket id) and checks each with boto3
    as the root user: what S3's own configuration calls answer, and what a write does."""
    root = make_client(srv)

    versioned = create(f"bc-versioned-{suffix}", versioning="Enabled")
    assert root.get_bucket_versioning(Bucket=versioned)["Status"] == "Enabled"
    v1 = root.put_object(Bucket=versioned, Key="k", Body=b"one")["VersionId"]
    v2 = root.put_object(Bucket=versioned, Key="k", Body=b"two")["VersionId"]
    assert v1 != v2 and v1 != "null"
    versions = root.list_object_versions(Bucket=versioned)["Versions"]
    assert sorted(v["VersionId"] for v in versions) == sorted([v1, v2])

    suspended = create(f"bc-suspended-{suffix}", versioning="Suspended")
    assert root.get_bucket_versioning(Bucket=suspended)["Status"] == "Suspended"
    assert root.put_object(Bucket=suspended, Key="k", Body=b"x")["VersionId"] == "null"

    locked = create(f"bc-locked-{suffix}", objectLockEnabled="true",
                    objectLockMode="GOVERNANCE", objectLockDays="1")
    lock = root.get_object_lock_configuration(Bucket=locked)["ObjectLockConfiguration"]
    assert lock["ObjectLockEnabled"] == "Enabled"
    assert lock["Rule"]["DefaultRetention"] == {"Mode": "GOVERNANCE", "Days": 1}
    assert root.get_bucket_versioning(Bucket=locked)["Status"] == "Enabled"
    root.put_object(Bucket=locked, Key="kept", Body=b"kept")
    head = root.head_object(Bucket=locked, Key="kept")
    assert head["ObjectLockMode"] == "GOVERNANCE"
    assert "ObjectLockRetainUntilDate" in head
    with pytest.raises(ClientError) as e:
        root.delete_object(Bucket=locked, Key="kept", VersionId=head["VersionId"])
    assert error_code(e) == "AccessDenied"

    expiring = create(f"bc-expiring-{suffix}", expireAfterDays="30")
    rules = root.get_bucket_lifecycle_configuration(Bucket=expiring)["Rules"]
    assert len(rules) == 1
    assert rules[0]["ID"] == "cosi-expire-after-days"
    assert rules[0]["Status"] == "Enabled"
    assert rules[0]["Expiration"] == {"Days": 30}
    assert rules[0].get("Filter", {}).get("Prefix", "") == ""

    encrypted = create(f"bc-encrypted-{suffix}", encryption="SSE-S3")
    enc = root.get_bucket_encryption(Bucket=encrypted)["ServerSideEncryptionConfiguration"]
    assert [r["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] for r in enc["Rules"]] == [
        "AES256"]
    put = root.put_object(Bucket=encrypted, Key="secret", Body=b"sealed at rest")
    assert put["ServerSideEncryption"] == "AES256"
    got = root.get_object(Bucket=encrypted, Key="secret")
    assert got["ServerSideEncryption"] == "AES256"
    assert got["Body"].read() == b"sealed at rest"

    # The quota is the admin API's (/_cubby/quota shows it) and S3 writes meet it.
    quota = create(f"bc-quota-{suffix}", quotaBytes="10", quotaObjects="2")
    shown = cubby_e2e.raw_request(srv, "GET", "/_cubby/quota", query=f"bucket={quota}")
    assert shown.status == 200, shown
    assert json.loads(shown.body)["quota"] == {"bytes": 10, "objects": 2}
    root.put_object(Bucket=quota, Key="a", Body=b"12345")
    with pytest.raises(ClientError) as e:
        root.put_object(Bucket=quota, Key="b", Body=b"123456")
    assert error_code(e) == "QuotaExceeded"
    root.put_object(Bucket=quota, Key="b", Body=b"12345")
    with pytest.raises(ClientError) as e:
        root.put_object(Bucket=quota, Key="c", Body=b"")
    assert error_code(e) == "QuotaExceeded"
    assert [o["Key"] for o in root.list_objects_v2(Bucket=quota)["Contents"]] == ["a", "b"]

    # A bucket made without the settings has none of them.
    plain = create(f"bc-plain-{suffix}")
    assert "Status" not in root.get_bucket_versioning(Bucket=plain)
    with pytest.raises(ClientError) as e:
        root.get_bucket_lifecycle_configuration(Bucket=plain)
    assert error_code(e) == "NoSuchLifecycleConfiguration"
    with pytest.raises(ClientError) as e:
        root.get_object_lock_configuration(Bucket=plain)
    assert error_code(e) == "ObjectLockConfigurationNotFoundError"
    return {"versioned": versioned, "locked": locked, "expiring": expiring,
            "encrypted": encrypted, "quota": quota}


def expect_rpc(call, code, part=""):
    with pytest.raises(grpc.RpcError) as rpc:
        call()
    assert rpc.value.code() == code, rpc.value.details()
    assert part in rpc.value.details(), rpc.value.details()


def test_bucket_class_settings_v1alpha1(start):
    srv, cosi = start()
    suffix = uuid.uuid4().hex[:8]
    made = check_bucket_settings(srv, lambda name, **p: cosi.create(name, **p).bucket_id, suffix)
    # Retries with the same parameters answer OK; a changed value is ALREADY_EXISTS.
    assert cosi.create(made["expiring"], expireAfterDays="30").bucket_id == made["expiring"]
    assert cosi.create(made["encrypted"], encryption="AES256").bucket_id == made["encrypted"]
    expect_rpc(lambda: cosi.create(made["expiring"], expireAfterDays="31"),
               grpc.StatusCode.ALREADY_EXISTS, "expireAfterDays=31")
    expect_rpc(lambda: cosi.create(made["locked"], objectLockEnabled="true",
                                   objectLockMode="COMPLIANCE", objectLockDays="1"),
               grpc.StatusCode.ALREADY_EXISTS, "objectLockMode=COMPLIANCE")
    expect_rpc(lambda: cosi.create(made["versioned"], versioning="Suspended"),
               grpc.StatusCode.ALREADY_EXISTS, "versioning=Suspended")
    expect_rpc(lambda: cosi.create(f"bc-bad-{suffix}", objectLockEnabled="true",
                                   versioning="Suspended"),
               grpc.StatusCode.INVALID_ARGUMENT, "versioning")
    expect_rpc(lambda: cosi.create(f"bc-bad-{suffix}", encryption="aws:kms"),
               grpc.StatusCode.INVALID_ARGUMENT, "encryption")
    assert cosi.create(made["quota"], quotaBytes="10", quotaObjects="2").bucket_id == made["quota"]
    expect_rpc(lambda: cosi.create(made["quota"], quotaBytes="11", quotaObjects="2"),
               grpc.StatusCode.ALREADY_EXISTS, "quotaBytes=11")
    expect_rpc(lambda: cosi.create(f"bc-bad-{suffix}", quotaBytes="10Gi"),
               grpc.StatusCode.INVALID_ARGUMENT, "quotaBytes")
    names = [b["Name"] for b in make_client(srv).list_buckets()["Buckets"]]
    assert f"bc-bad-{suffix}" not in names


def test_bucket_class_settings_v1alpha2(start, cosi_env):
    srv, _ = start()
    cosi2 = Cosi2(cosi_env["path"])
    try:
        suffix = uuid.uuid4().hex[:8]
        made = check_bucket_settings(
            srv, lambda name, **p: cosi2.create(name, **p).bucket_id, suffix)
        assert cosi2.create(made["versioned"], versioning="Enabled").bucket_id == made["versioned"]
        expect_rpc(lambda: cosi2.create(made["encrypted"]),
                   grpc.StatusCode.ALREADY_EXISTS, "encryption unset")
        expect_rpc(lambda: cosi2.create(made["expiring"], expireAfterDays="7"),
                   grpc.StatusCode.ALREADY_EXISTS, "expireAfterDays=7")
        # A static bucket: stated settings must agree with it; it is never changed.
        assert cosi2.get_existing(made["expiring"], expireAfterDays="30").bucket_id == \
            made["expiring"]
        assert cosi2.get_existing(made["locked"], objectLockEnabled="true",
                                  objectLockMode="GOVERNANCE", objectLockDays="1").bucket_id
        expect_rpc(lambda: cosi2.get_existing(made["versioned"], versioning="Suspended"),
                   grpc.StatusCode.ALREADY_EXISTS, "versioning is Enabled, not Suspended")
        expect_rpc(lambda: cosi2.get_existing(made["versioned"], encryption="SSE-S3"),
                   grpc.StatusCode.ALREADY_EXISTS, "encryption")
        expect_rpc(lambda: cosi2.get_existing(made["versioned"], objectLockDays="x"),
                   grpc.StatusCode.INVALID_ARGUMENT, "objectLockDays")
        root = make_client(srv)
        assert root.get_bucket_versioning(Bucket=made["versioned"])["Status"] == "Enabled"
    finally:
        cosi2.close()


def _example_bucket_classes():
    """(generation, class name, parameters) of every BucketClass in deploy/."""
    import yaml
    out = []
    for generation, path in [("v1alpha1", "deploy/classes.yaml"),
                             ("v1alpha2", "deploy/v1alpha2/classes.yaml")]:
        with open(os.path.join(REPO, path)) as f:
            for doc in yaml.safe_load_all(f):
                if doc and doc["kind"] == "BucketClass":
                    params = doc.get("parameters") or doc.get("spec", {}).get("parameters") or {}
                    out.append((generation, doc["metadata"]["name"], params))
    return out


def test_deploy_example_bucket_classes_are_accepted(start, cosi_env):
    """Every example BucketClass in deploy/ makes a bucket through its own generation."""
    srv, cosi1 = start()
    cosi2 = Cosi2(cosi_env["path"])
    try:
        classes = _example_bucket_classes()
        assert {name for _, name, _ in classes} >= {
            "cubby", "cubby-versioned", "cubby-worm", "cubby-expiring", "cubby-quota"}
        for generation, name, params in classes:
            assert all(isinstance(v, str) for v in params.values()), (name, params)
            bucket = f"bc-{name}-{generation}"
            if generation == "v1alpha1":
                assert cosi1.create(bucket, **params).bucket_id == bucket
            else:
                assert cosi2.create(bucket, **params).bucket_id == bucket
    finally:
        cosi2.close()
