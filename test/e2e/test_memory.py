"""Idle memory (issue 5: idle RSS < 64 MiB): after a burst of 32 concurrent clients the idle
server's RSS is back under the limit and close to where it started, well below the burst's peak.

Caches (RocksDB block cache, memtables) and heap kept by glibc's per-thread arenas are what
could hold it up; once a 2 s tick passes without a finished request the server flushes its
fuller memtables, drops unused cache blocks and trims the heap, and it keeps one malloc arena
per core (malloc_trim cannot return the free top of any arena but the main one). This burst
left 29 MiB above the start-up RSS with glibc's default 16 arenas on 2 cores, and 3 MiB with
2; the check allows 16 MiB, so the absolute limit alone is not what it rests on.
"""

import concurrent.futures
import os
import time

from cubby_e2e import make_client

IDLE_LIMIT_KIB = 64 * 1024
IDLE_GROWTH_LIMIT_KIB = 16 * 1024  # idle RSS after the burst over RSS before it
BODY = os.urandom(256 << 10)  # above the inline limit: one chunk per object


def _rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc status")


def test_idle_rss_returns_below_limit_after_a_burst(server, bucket):
    small = os.urandom(4 << 10)
    start = _rss_kib(server.pid)

    def worker(n):
        s3 = make_client(server, max_pool_connections=2)
        for i in range(150):
            s3.put_object(Bucket=bucket, Key=f"w{n}/{i % 10}", Body=small)
            assert s3.get_object(Bucket=bucket, Key=f"w{n}/{i % 10}")["Body"].read() == small
        s3.put_object(Bucket=bucket, Key=f"w{n}/mid", Body=BODY)
        assert s3.get_object(Bucket=bucket, Key=f"w{n}/mid")["Body"].read() == BODY
        if n < 2:
            big = os.urandom(48 << 20)
            s3.put_object(Bucket=bucket, Key=f"w{n}/big", Body=big)
            assert s3.get_object(Bucket=bucket, Key=f"w{n}/big")["Body"].read() == big

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        list(pool.map(worker, range(32)))
    peak = server.peak_rss_kib()

    # The release runs once a 2 s tick passes without a finished request; give it a few ticks.
    limit = min(IDLE_LIMIT_KIB, start + IDLE_GROWTH_LIMIT_KIB)
    deadline = time.monotonic() + 15
    rss = _rss_kib(server.pid)
    while rss >= limit and time.monotonic() < deadline:
        time.sleep(0.5)
        rss = _rss_kib(server.pid)
    assert rss < IDLE_LIMIT_KIB, f"idle RSS {rss} KiB after a burst that peaked at {peak} KiB"
    assert rss < start + IDLE_GROWTH_LIMIT_KIB, (
        f"idle RSS {rss} KiB after the burst, {start} KiB before it (peak {peak} KiB)")
    # The burst must really have grown the footprint (from ~20 MiB to 40-60 MiB), or the checks
    # above prove nothing.
    assert peak > start + 16 * 1024, f"the burst took RSS from {start} KiB to only {peak} KiB"
