#!/usr/bin/python3
"""Measures `cubby --ephemeral` start-up: the time from exec to the JSON ready line on stdout.

Usage: test/server/bench_ephemeral_start.py BUILD/cubby [RUNS]   (default 20 runs)

Prints each run's milliseconds and the median, min and max. Each instance is stopped with
SIGTERM after its ready line and must exit 0 and leave no temp folder behind. A benchmark, not a
test: it asserts nothing about the figure.
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def one_start(binary, tmpdir):
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": tmpdir, "HOME": tmpdir}
    start = time.perf_counter()
    p = subprocess.Popen([binary, "--ephemeral"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    line = p.stdout.readline()
    elapsed = (time.perf_counter() - start) * 1000
    ready = json.loads(line)
    assert ready["ready"] is True, line
    p.send_signal(signal.SIGTERM)
    rest = p.stdout.read()
    code = p.wait(30)
    if code != 0 or rest:
        raise SystemExit(f"instance exited {code} with extra stdout {rest!r}")
    left = [d for d in os.listdir(tmpdir) if d.startswith("cubby-ephemeral-")]
    if left:
        raise SystemExit(f"temp folders left behind: {left}")
    return elapsed


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    binary = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as tmpdir:
        times = []
        for i in range(runs):
            ms = one_start(binary, tmpdir)
            times.append(ms)
            print(f"run {i + 1:2d}: {ms:7.1f} ms")
    print(f"median {statistics.median(times):.1f} ms, min {min(times):.1f} ms, "
          f"max {max(times):.1f} ms over {runs} starts")


if __name__ == "__main__":
    main()
