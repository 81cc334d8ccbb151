"""The Dockerfile, checked without a container engine: its runtime stage installs the Debian
package of every shared library the built binary needs, and it has the appliance settings."""

import os
import re
import subprocess

import pytest

DOCKERFILE = os.path.join(os.path.dirname(__file__), "..", "..", "Dockerfile")
# In debian:bookworm-slim already (and always at least as new as the build stage's).
BASE_IMAGE_PACKAGES = {"libc6", "libstdc++6", "libgcc-s1"}


def _stages(text):
    """[(FROM line, body)] with line continuations joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    lines = [l.strip() for l in joined.splitlines() if l.strip() and not l.strip().startswith("#")]
    stages = []
    for line in lines:
        if line.upper().startswith("FROM "):
            stages.append((line, []))
        else:
            stages[-1][1].append(line)
    return stages


@pytest.fixture(scope="module")
def dockerfile():
    with open(DOCKERFILE) as f:
        return f.read()


def _installed_packages(body):
    pkgs = set()
    for line in body:
        if not line.startswith("RUN "):
            continue
        for cmd in re.split(r"&&|;", line[4:]):
            words = cmd.split()
            if "apt-get" in words and "install" in words:
                after = words[words.index("install") + 1:]
                pkgs |= {w for w in after if not w.startswith("-") and "=" not in w}
    return pkgs


def _package_of(path):
    """The Debian package that ships `path` (tries the usrmerge twin and the real path)."""
    candidates = [path, os.path.realpath(path)]
    for c in list(candidates):
        if c.startswith("/lib/"):
            candidates.append("/usr" + c)
        elif c.startswith("/usr/lib/"):
            candidates.append(c[4:])
    for c in candidates:
        r = subprocess.run(["dpkg", "-S", c], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].strip()
    raise AssertionError(f"no Debian package ships {path}")


def test_runtime_stage_installs_every_linked_library(cubby_bin, dockerfile):
    stages = _stages(dockerfile)
    runtime_from, runtime = stages[-1]
    installed = _installed_packages(runtime)
    ldd = subprocess.run(["ldd", cubby_bin], capture_output=True, text=True, check=True).stdout
    assert "not found" not in ldd, ldd
    needed = set()
    for m in re.finditer(r"=>\s+(/\S+)", ldd):
        needed.add(_package_of(m.group(1)))
    assert {"libssl3", "libgrpc++1.51", "libprotobuf32"} <= needed, needed
    missing = needed - BASE_IMAGE_PACKAGES - installed
    assert not missing, f"runtime stage lacks {sorted(missing)} (ldd of {cubby_bin})"
    # And nothing beyond what the binary links: the runtime stays slim.
    extra = installed - needed
    assert not extra, f"runtime stage installs unneeded {sorted(extra)}"


def test_stages_user_volume_port_health(dockerfile):
    stages = _stages(dockerfile)
    assert len(stages) == 2
    assert re.match(r"FROM debian:bookworm AS build$", stages[0][0], re.I)
    assert stages[1][0] == "FROM debian:bookworm-slim"
    runtime = stages[1][1]
    text = "\n".join(runtime)
    assert re.search(r"^USER (?!0\b|root\b)\S+", text, re.M), "runs as a non-root user"
    assert "VOLUME /data" in runtime
    assert "EXPOSE 9000" in runtime
    # The probe names only the path: cubby resolves it to the configured S3 listener, so the
    # health check follows CUBBY_S3_ADDRESS and TLS (test_appliance, test_tls cover that).
    assert re.search(r'^HEALTHCHECK .*CMD \["/usr/local/bin/cubby", "--healthcheck", '
                     r'"/_cubby/ready"\]', text, re.M)
    assert "COPY --from=build /build/cubby /usr/local/bin/cubby" in runtime
    assert 'ENTRYPOINT ["/usr/local/bin/cubby"]' in runtime
    env = " ".join(l[4:] for l in runtime if l.startswith("ENV "))
    settings = dict(re.findall(r'(\w+)=("[^"]*"|\S*)', env))
    assert settings["CUBBY_DATA_DIR"] == "/data"
    assert settings["CUBBY_S3_ADDRESS"] == "0.0.0.0:9000"
    assert settings["COSI_ENDPOINT"] == '""', "documented but unset (empty counts as unset)"
    # The build stage's package list is the one scripts/setup.sh installs for building.
    with open(os.path.join(os.path.dirname(DOCKERFILE), "scripts", "setup.sh")) as f:
        m = re.search(r"build_pkgs=\(([^)]*)\)", f.read())
    build_pkgs = set(m.group(1).split())
    assert build_pkgs <= _installed_packages(stages[0][1])


def test_every_env_variable_is_one_cubby_reads(cubby_bin, dockerfile):
    usage = subprocess.run([cubby_bin, "--help"], capture_output=True, text=True).stdout
    env = " ".join(l[4:] for l in _stages(dockerfile)[1][1] if l.startswith("ENV "))
    for name in re.findall(r"(\w+)=", env):
        if name == "COSI_ENDPOINT":
            continue
        assert name in usage, f"{name} in the Dockerfile is not a cubby setting"


def test_container_check_matches_the_dockerfile(dockerfile):
    """scripts/container-check.sh builds the bases under the Dockerfile's FROM names (there is no
    registry to pull them from) and checks the uid of its USER."""
    with open(os.path.join(os.path.dirname(DOCKERFILE), "scripts", "container-check.sh")) as f:
        script = f.read()
    made = set(re.findall(r'import - (\S+)', script))
    made |= set(re.findall(r'tag \S+ (\S+)', script))
    bases = {line.split()[1] for line, _ in _stages(dockerfile)}
    assert bases and bases <= made, f"the script makes {sorted(made)}, the Dockerfile uses {bases}"
    user = re.search(r"^USER (\d+):(\d+)$", "\n".join(_stages(dockerfile)[-1][1]), re.M)
    assert user, "USER as numeric uid:gid (the check compares the process's ids)"
    expected = re.search(r"^readonly UID_EXPECTED=(\d+)$", script, re.M).group(1)
    assert user.group(1) == user.group(2) == expected
