"""Scans the output of every cubby this pytest process started (cubby_e2e appends it to one file
per process in the build folder) for secrets. The only line allowed to hold a secret is an
ephemeral instance's JSON ready line on its stdout.

test_zz_secrets.py calls these after provoking leaks on purpose; conftest.py calls them again
when the session ends, so that each pytest-xdist worker checks every server it started."""

import base64
import json
import os
import re

import cubby_e2e
import sse_e2e

FORBIDDEN = [
    re.compile(r"Signature=[0-9a-fA-F]{8}"),  # header or presigned URL signature
    re.compile(r"X-Amz-Signature", re.I),
    re.compile(r"AWS4-HMAC-SHA256\s+Credential=", re.I),
    re.compile(r"Authorization\s*[:=]\s*\S", re.I),
    re.compile(r"X-Amz-Credential=", re.I),
]


def server_output(binary):
    """This process's server output lines ([] when it started no server)."""
    path = cubby_e2e.server_log_path(binary)
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def secret_leaks(lines):
    """The lines that hold a root or user secret, a signature or an Authorization header, and the
    secrets of the ephemeral instances' ready lines (which are allowed to hold their own)."""
    secrets = {cubby_e2e.ROOT_SECRET_KEY} | cubby_e2e.USER_SECRETS
    allowed = set()
    for i, line in enumerate(lines):
        body = line.split("] ", 1)[1] if "] " in line else line
        if " stdout] {\"ready\":true" in line:
            secrets.add(json.loads(body)["secret_access_key"])
            allowed.add(i)
    leaks = [line for i, line in enumerate(lines) if i not in allowed and
             (any(s in line for s in secrets) or any(p.search(line) for p in FORBIDDEN))]
    return leaks, secrets


def key_forms(secrets_raw=None, texts=None):
    """Every printable form of the keys (default: every SSE-C and master key this process used):
    base64 and hex of raw keys; texts as given and, when they are base64, the hex of what they
    decode to."""
    secrets_raw = sse_e2e.SSE_C_KEYS if secrets_raw is None else secrets_raw
    texts = sse_e2e.MASTER_KEYS if texts is None else texts
    forms = set()
    for raw in secrets_raw:
        forms.add(base64.b64encode(raw).decode())
        forms.add(raw.hex())
        forms.add(raw.hex().upper())
    for text in texts:
        forms.add(text)
        try:
            forms.add(base64.b64decode(text, validate=True).hex())
        except ValueError:
            pass
    return forms


def key_material_leaks(lines, forms=None):
    forms = key_forms() if forms is None else forms
    return [line for line in lines if any(f in line for f in forms)]


def check(binary):
    """Raises AssertionError when this process's server output holds a secret or key material."""
    lines = server_output(binary)
    leaks, _ = secret_leaks(lines)
    assert not leaks, (f"secrets in server output ({cubby_e2e.server_log_path(binary)}):\n" +
                       "\n".join(leaks[:20]))
    # The lines themselves are not printed: they hold a key.
    keyed = key_material_leaks(lines)
    assert not keyed, f"{len(keyed)} server output lines hold an SSE-C or master key"
