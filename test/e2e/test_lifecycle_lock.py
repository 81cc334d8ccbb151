"""Lifecycle expiry honours object lock (issue 14: "expired objects honour object lock"), watched
under an accelerated lifecycle day (--lifecycle-day-seconds 2, a pass every 200 ms) in a bucket
created with object lock.

A locked version (a legal hold ON, or a GOVERNANCE retention until far ahead) whose noncurrent
expiry is due stays, while an unlocked version beside it under the same rule is removed; a
current locked version whose expiry is due gets a delete marker on top (S3 expires a current
version of a versioned bucket by adding a marker, which a lock does not forbid) and then stays as
a noncurrent version. Once the hold is lifted (legal hold OFF; the retention shortened with
x-amz-bypass-governance-retention by the root user) the next passes remove it.
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html ("Object Lock ...
  S3 Lifecycle": lifecycle does not delete a locked version)
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-expire-general-considerations.html

The locked versions are made due before the unlocked one, so the pass that removes the unlocked
one has met the locked ones due as well: the removal is the proof that a pass looked at them.
"""

import base64
import datetime
import hashlib
import time

import pytest

from cubby_e2e import make_client, new_bucket_name

DAY_SECONDS = 2
DEADLINE_SECONDS = 30  # many lifecycle days: a pass runs every 200 ms


@pytest.fixture
def lc_server(start_server):
    return start_server(args=["--lifecycle-day-seconds", str(DAY_SECONDS),
                              "--lifecycle-interval", "200ms"])


@pytest.fixture
def lc(lc_server):
    return make_client(lc_server)


@pytest.fixture
def locked_bucket(lc):
    name = new_bucket_name()
    lc.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    return name


def md5(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def put(s3, bucket, key, data, **kwargs):
    return s3.put_object(Bucket=bucket, Key=key, Body=data, ContentMD5=md5(data),
                         **kwargs)["VersionId"]


def in_an_hour():
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)


def entries(s3, bucket):
    """{key: {"v": version ids, "m": delete marker ids}}, each newest first, from
    ListObjectVersions (boto3 splits Version and DeleteMarker entries; each list keeps the
    listing's order)."""
    page = s3.list_object_versions(Bucket=bucket)
    assert not page["IsTruncated"]
    out = {}
    for kind, name in (("v", "Versions"), ("m", "DeleteMarkers")):
        for e in page.get(name, []):
            out.setdefault(e["Key"], {"v": [], "m": []})[kind].append(e["VersionId"])
    return out


def latest_is_marker(s3, bucket, key):
    page = s3.list_object_versions(Bucket=bucket, Prefix=key)
    return any(m["Key"] == key and m["IsLatest"] for m in page.get("DeleteMarkers", []))


def wait_for(what, check):
    """Polls `check` until it returns true; fails after DEADLINE_SECONDS."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


def kept_by_lock_logged(server):
    """The sum of kept_by_object_lock over the logged passes (a pass is logged when it changed
    something)."""
    total = 0
    for line in server.all_output().splitlines():
        if 'msg="lifecycle pass"' in line:
            total += int(line.split("kept_by_object_lock=")[1].split()[0])
    return total


def versions_of(s3, bucket, key):
    return entries(s3, bucket).get(key, {"v": []})["v"]


def lift_locks(s3, bucket, held_vid, gov_vid):
    """Legal hold OFF on `held`; `gov`'s GOVERNANCE retention shortened to a second ahead with
    the bypass (the root user may), so it runs out at once."""
    s3.put_object_legal_hold(Bucket=bucket, Key="held", VersionId=held_vid,
                             LegalHold={"Status": "OFF"})
    soon = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=1)
    s3.put_object_retention(Bucket=bucket, Key="gov", VersionId=gov_vid,
                            BypassGovernanceRetention=True,
                            Retention={"Mode": "GOVERNANCE", "RetainUntilDate": soon})


def test_noncurrent_expiry_keeps_locked_versions(lc_server, lc, locked_bucket):
    b = locked_bucket
    lc.put_bucket_lifecycle_configuration(Bucket=b, LifecycleConfiguration={"Rules": [
        {"ID": "noncurrent", "Filter": {}, "Status": "Enabled",
         "NoncurrentVersionExpiration": {"NoncurrentDays": 1}}]})
    held = put(lc, b, "held", b"held-1", ObjectLockLegalHoldStatus="ON")
    gov = put(lc, b, "gov", b"gov-1", ObjectLockMode="GOVERNANCE",
              ObjectLockRetainUntilDate=in_an_hour())
    free = put(lc, b, "free", b"free-1")
    # The locked versions become noncurrent (and due) first.
    held2 = put(lc, b, "held", b"held-2")
    gov2 = put(lc, b, "gov", b"gov-2")
    time.sleep(0.2)
    free2 = put(lc, b, "free", b"free-2")
    assert versions_of(lc, b, "free") == [free2, free]  # not due yet: a day is 2 s

    wait_for("the unlocked noncurrent version to expire",
             lambda: versions_of(lc, b, "free") == [free2])
    got = entries(lc, b)
    assert got["held"] == {"v": [held2, held], "m": []}, got
    assert got["gov"] == {"v": [gov2, gov], "m": []}, got
    # The pass that removed it met the locked ones due too (its log line comes at its end).
    wait_for("the pass to log what it kept", lambda: kept_by_lock_logged(lc_server) >= 2)
    # More passes keep them too.
    time.sleep(2 * DAY_SECONDS)
    assert entries(lc, b) == got
    assert lc.get_object(Bucket=b, Key="held", VersionId=held)["Body"].read() == b"held-1"
    assert lc.head_object(Bucket=b, Key="gov", VersionId=gov)["ObjectLockMode"] == "GOVERNANCE"

    lift_locks(lc, b, held, gov)
    wait_for("the lifted versions to expire",
             lambda: (versions_of(lc, b, "held"), versions_of(lc, b, "gov")) == ([held2], [gov2]))
    assert entries(lc, b) == {"held": {"v": [held2], "m": []}, "gov": {"v": [gov2], "m": []},
                              "free": {"v": [free2], "m": []}}


def test_current_expiry_marks_locked_versions_and_keeps_them(lc_server, lc, locked_bucket):
    b = locked_bucket
    lc.put_bucket_lifecycle_configuration(Bucket=b, LifecycleConfiguration={"Rules": [
        {"ID": "current", "Filter": {"Prefix": ""}, "Status": "Enabled",
         "Expiration": {"Days": 1}},
        {"ID": "noncurrent", "Filter": {}, "Status": "Enabled",
         "NoncurrentVersionExpiration": {"NoncurrentDays": 1}}]})
    held = put(lc, b, "held", b"held", ObjectLockLegalHoldStatus="ON")
    gov = put(lc, b, "gov", b"gov", ObjectLockMode="GOVERNANCE",
              ObjectLockRetainUntilDate=in_an_hour())
    time.sleep(0.2)
    free = put(lc, b, "free", b"free")
    assert versions_of(lc, b, "free") == [free]  # not due yet: a day is 2 s

    # Day 1: each current version gets a delete marker, locked or not; day 2: the unlocked one,
    # now noncurrent, is removed.
    wait_for("the unlocked version to expire", lambda: versions_of(lc, b, "free") == [])
    got = entries(lc, b)
    for key, vid in (("held", held), ("gov", gov)):
        assert got[key]["v"] == [vid], got
        assert len(got[key]["m"]) == 1 and latest_is_marker(lc, b, key), got
    # The pass that removed it met the locked ones due too (its log line comes at its end).
    wait_for("the pass to log what it kept", lambda: kept_by_lock_logged(lc_server) >= 2)
    time.sleep(2 * DAY_SECONDS)
    # (free's lone marker may go meanwhile: an expired object delete marker, see below.)
    later = entries(lc, b)
    assert {k: later[k] for k in ("held", "gov")} == {k: got[k] for k in ("held", "gov")}
    head = lc.head_object(Bucket=b, Key="held", VersionId=held)
    assert head["ObjectLockLegalHoldStatus"] == "ON"

    lift_locks(lc, b, held, gov)
    wait_for("the lifted versions to expire",
             lambda: (versions_of(lc, b, "held"), versions_of(lc, b, "gov")) == ([], []))
    # Then each key is an expired object delete marker, which a rule that expires current
    # versions removes too (ManagingDelMarkers.html#LifecycleDelMarker): the bucket empties.
    wait_for("the expired object delete markers to go", lambda: entries(lc, b) == {})
