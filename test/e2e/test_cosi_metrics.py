"""COSI calls move cosi_rpc_total{method,code}, and a secret COSI issues never reaches the log."""

import importlib
import os
import subprocess
import sys
import tempfile
import uuid

import grpc
import pytest

from appliance import metric, scrape, wait_ready_line

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="module")
def stubs():
    out = tempfile.mkdtemp(prefix="cosi-metrics-stubs-")
    subprocess.run(["protoc", f"--proto_path={REPO}/proto", "--proto_path=/usr/include",
                    f"--python_out={out}", f"--grpc_python_out={out}",
                    "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
                    f"{REPO}/proto/cosi.proto"], check=True, capture_output=True, timeout=60)
    sys.path.insert(0, out)
    try:
        return importlib.import_module("cosi_pb2"), importlib.import_module("cosi_pb2_grpc")
    finally:
        sys.path.remove(out)


def test_cosi_calls_are_counted_and_issued_secrets_stay_out_of_logs(start_server, tmp_path,
                                                                    stubs):
    pb, pb_grpc = stubs
    sock = tmp_path / "cosi.sock"
    srv = wait_ready_line(start_server(env_extra={"COSI_ENDPOINT": f"unix://{sock}"}))
    channel = grpc.insecure_channel(f"unix://{sock}",
                                    options=[("grpc.default_authority", "localhost")])
    provisioner = pb_grpc.ProvisionerStub(channel)
    try:
        bucket = f"bucket-{uuid.uuid4()}"
        created = provisioner.DriverCreateBucket(pb.DriverCreateBucketRequest(name=bucket),
                                                 timeout=10)
        granted = provisioner.DriverGrantBucketAccess(
            pb.DriverGrantBucketAccessRequest(bucket_id=created.bucket_id,
                                              name=f"ba-{uuid.uuid4()}",
                                              authentication_type=pb.Key), timeout=10)
        secret = granted.credentials["s3"].secrets["accessSecretKey"]
        assert len(secret) >= 20
        with pytest.raises(grpc.RpcError) as err:
            provisioner.DriverGrantBucketAccess(
                pb.DriverGrantBucketAccessRequest(bucket_id="no-such-bucket-here",
                                                  name=f"ba-{uuid.uuid4()}",
                                                  authentication_type=pb.Key), timeout=10)
        failed_code = err.value.code().name
    finally:
        channel.close()

    m = scrape(srv.endpoint)
    assert metric(m, "cosi_rpc_total", method="DriverCreateBucket", code="OK") == 1
    assert metric(m, "cosi_rpc_total", method="DriverGrantBucketAccess", code="OK") == 1
    assert metric(m, "cosi_rpc_total", method="DriverGrantBucketAccess", code=failed_code) == 1
    assert failed_code != "OK"
    assert srv.stop() == 0
    assert secret not in srv.all_output()
    assert any("msg=cosi" in l and "DriverGrantBucketAccess" in l for l in srv.stdout_lines)
