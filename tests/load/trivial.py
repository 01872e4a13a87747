"""The physical floor of one OPA round trip from Python: a one-rule policy on its own OPA.

``make bench`` divides each operation's p50 by a bare ``authz/decision`` with the
app's real fact bundle, and also by this: one POST of a tiny input to a second OPA
process that serves a single rule, parsed by the same client. Whatever a request of
the service costs above this, it is not the cost of asking an OPA at all.
"""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import requests

from tests.support.services import REPO_ROOT, free_port

__all__ = ["TRIVIAL_INPUT", "TRIVIAL_PATH", "opa_process", "trivial_opa"]

TRIVIAL_PATH = "trivial/allow"
TRIVIAL_INPUT = {"user": "alex"}
_POLICY = 'package trivial\n\nallow if input.user == "alex"\n'


@contextlib.contextmanager
def opa_process(*paths: str | Path) -> Iterator[str]:
    """An OPA server on a free loopback port serving ``paths`` (decision logs off, test
    files ignored); yields its URL once healthy, stops it on leaving.

    Raises:
        RuntimeError: OPA exited or did not become healthy within 30 s.
    """
    port = free_port()
    process = subprocess.Popen(
        [
            str(REPO_ROOT / ".bin" / "opa"),
            "run",
            "--server",
            "--addr",
            f"127.0.0.1:{port}",
            "--log-level",
            "error",
            "--ignore",
            "*_test.rego",
            *map(str, paths),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    probe = requests.Session()
    probe.trust_env = False
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError("an OPA of the benchmark exited")
            with contextlib.suppress(requests.RequestException):
                if probe.get(f"{url}/health", timeout=0.5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("an OPA of the benchmark did not become healthy")
            time.sleep(0.05)
        yield url
    finally:
        probe.close()
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextlib.contextmanager
def trivial_opa() -> Iterator[str]:
    """A second OPA serving only ``allow if input.user == "alex"``; yields its URL."""
    with tempfile.TemporaryDirectory(prefix="bench-trivial-") as work:
        (Path(work) / "trivial.rego").write_text(_POLICY, encoding="utf-8")
        with opa_process(work) as url:
            yield url
