"""Signed policy bundles, a bundle service and sidecars that pull them, for the tests.

Everything is the real thing, on loopback:

* :func:`signing_key` makes an RSA key pair with ``scripts/bundle_keys.py`` (generated
  per test run, never committed);
* :func:`build_bundle` runs ``opa build`` exactly as ``scripts/build-bundle.sh`` does,
  with a revision of the test's choosing; :func:`tamper` changes a file of a built
  bundle after it was signed;
* :class:`BundleService` runs ``scripts/bundle_service.py`` (the one ``make run`` and
  compose use); :meth:`BundleService.publish` swaps the served file atomically;
* :class:`BundleSidecar` runs ``.bin/opa`` with the deploy configuration
  (``deploy/opa/config.yaml``: bundle service, polling, mandatory signature
  verification, status) and the trusted public keys, polling every second.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import requests

from tests.support.services import REPO_ROOT, OpaServer, ServiceError

__all__ = [
    "BUNDLE_RESOURCE",
    "KEY_ID",
    "POLL_SECONDS",
    "BundleService",
    "BundleSidecar",
    "SigningKey",
    "build_bundle",
    "policies_copy",
    "sidecars",
    "signing_key",
    "tamper",
    "wait_until",
]

# The bundle's resource under the service URL, as deploy/opa/config.yaml names it.
BUNDLE_RESOURCE = "bundles/agent-authz.tar.gz"
KEY_ID = "agent-authz-test"
# The sidecars' polling interval in the tests (production: 10 to 20 seconds).
POLL_SECONDS = 1
OPA = REPO_ROOT / ".bin" / "opa"


@dataclass(frozen=True)
class SigningKey:
    """A bundle signing key pair and the id bundles signed with it name."""

    private: Path
    public: Path
    key_id: str = KEY_ID


def signing_key(directory: Path, name: str, key_id: str = KEY_ID) -> SigningKey:
    """A new RSA key pair in ``directory`` (``scripts/bundle_keys.py``, 2048 bits for speed)."""
    key = SigningKey(directory / f"{name}.pem", directory / f"{name}.pub.pem", key_id)
    subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "scripts" / "bundle_keys.py"),
            "--private",
            str(key.private),
            "--public",
            str(key.public),
            "--bits",
            "2048",
        ],
        check=True,
        capture_output=True,
    )
    return key


def policies_copy(destination: Path, *edits: tuple[str, str, str]) -> Path:
    """A copy of ``policies/`` with ``(file, old, new)`` text replacements applied.

    Raises:
        AssertionError: an ``old`` text does not occur in its file (the edit would
            silently change nothing).
    """
    shutil.copytree(REPO_ROOT / "policies", destination)
    for relative, old, new in edits:
        path = destination / relative
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{relative}: {old!r} not found"
        path.write_text(text.replace(old, new), encoding="utf-8")
    return destination


def build_bundle(
    output: Path, *, revision: str, key: SigningKey, policies: Path = REPO_ROOT / "policies"
) -> Path:
    """``opa build`` a signed bundle of ``policies`` with this revision (as ``make bundle``)."""
    if not OPA.exists():
        raise ServiceError(f"{OPA} missing: run scripts/build-tools.sh (make tools)")
    if policies.name != "policies":
        raise ValueError(f"{policies}: the folder must be named policies")
    result = subprocess.run(
        [
            str(OPA),
            "build",
            "--bundle",
            "policies",
            "--ignore",
            "*_test.rego",
            "--revision",
            revision,
            "--signing-key",
            str(key.private),
            "--signing-alg",
            "RS256",
            "--verification-key-id",
            key.key_id,
            "--output",
            str(output),
        ],
        # Run beside the folder so that the bundle's file names are policies/...,
        # as make bundle writes them.
        cwd=policies.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise ServiceError(f"opa build failed: {result.stderr.strip()}")
    return output


def tamper(bundle: Path, output: Path, file: str, old: str, new: str) -> Path:
    """A copy of ``bundle`` whose ``file`` (relative to ``policies/``, as for
    :func:`policies_copy`) has ``old`` replaced by ``new`` after signing; the signatures
    stay as they were."""
    member = f"policies/{file}"
    changed = False
    with tarfile.open(bundle, "r:gz") as source, tarfile.open(output, "w:gz") as target:
        for info in source.getmembers():
            extracted = source.extractfile(info) if info.isfile() else None
            data = extracted.read() if extracted is not None else b""
            if info.name.lstrip("/") == member:
                assert old.encode() in data, f"{member}: {old!r} not found"
                data = data.replace(old.encode(), new.encode())
                info.size = len(data)
                changed = True
            target.addfile(info, io.BytesIO(data) if info.isfile() else None)
    assert changed, f"{member} is not in {bundle}"
    return output


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll ``condition`` every 50 ms; returns the seconds it took.

    Raises:
        AssertionError: it did not hold within ``timeout`` seconds.
    """
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)
    return time.monotonic() - started


class BundleService:
    """``scripts/bundle_service.py`` serving one bundle file at :data:`BUNDLE_RESOURCE`.

    Use as a context manager. :meth:`publish` replaces the served file atomically (a
    new revision, a tampered bundle, ...); :meth:`withdraw` removes it (404).
    """

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="bundle-service-"))
        self.file = self.directory / "agent-authz.tar.gz"
        self._process: subprocess.Popen[str] | None = None
        self.url = ""

    def __enter__(self) -> Self:
        self._process = subprocess.Popen(
            [
                sys.executable,
                str(REPO_ROOT / "scripts" / "bundle_service.py"),
                "--port",
                "0",
                "--quiet",
                f"{BUNDLE_RESOURCE}={self.file}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.close()
            raise ServiceError(f"the bundle service did not start: {line}")
        self.url = line.removeprefix("listening on ")
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def publish(self, bundle: Path) -> None:
        """Serve ``bundle`` from now on (copied, then renamed into place)."""
        staging = self.directory / "staging.tar.gz"
        shutil.copyfile(bundle, staging)
        staging.replace(self.file)

    def withdraw(self) -> None:
        """Serve nothing (404) from now on."""
        self.file.unlink(missing_ok=True)

    def close(self) -> None:
        """Stop the service and remove its files (idempotent)."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            self._process.wait(timeout=10)
        if self._process is not None and self._process.stdout is not None:
            self._process.stdout.close()
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass
class BundleSidecar(OpaServer):
    """An OPA sidecar with the deploy configuration, pulling from ``service_url``.

    It trusts the public keys of ``keys`` (``--set-file keys.<id>.key=...``, as the
    deployments pass them from a Secret) and polls every :data:`POLL_SECONDS`.
    """

    service_url: str = ""
    keys: Sequence[SigningKey] = field(default_factory=tuple)

    def command(self) -> list[str]:
        """``opa run`` with ``deploy/opa/config.yaml``, the keys and short polling."""
        command = [
            *self.server_command("config.yaml"),
            "--set",
            f"bundles.agent-authz.polling.min_delay_seconds={POLL_SECONDS}",
            "--set",
            f"bundles.agent-authz.polling.max_delay_seconds={POLL_SECONDS}",
        ]
        for key in self.keys:
            command += ["--set-file", f"keys.{key.key_id}.key={key.public}"]
        return command

    def start(self) -> Self:
        """Start OPA (``/health`` answers; the bundle may not be active yet)."""
        self.env = {**self.env, "BUNDLE_SERVICE_URL": self.service_url}
        return super().start()

    def bundles_ready(self) -> bool:
        """``GET /health?bundles`` is 200: a bundle was activated (the readiness probe)."""
        return requests.get(f"{self.url}/health?bundles", timeout=5).status_code == 200

    def status(self) -> dict[str, Any]:
        """The bundle's entry of ``GET /v1/status`` (OPA's status API); empty before the
        plugin's first report."""
        answer = requests.get(f"{self.url}/v1/status", timeout=5)
        answer.raise_for_status()
        bundle: dict[str, Any] = answer.json()["result"].get("bundles", {}).get("agent-authz", {})
        return bundle

    def active_revision(self) -> str | None:
        """The revision the sidecar enforces now (``None`` before any activation)."""
        revision = self.status().get("active_revision")
        return str(revision) if revision else None

    def failed_loads(self) -> float:
        """The sum of OPA's ``bundle_failed_load_counter`` on ``/metrics``."""
        text = requests.get(f"{self.url}/metrics", timeout=5).text
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("bundle_failed_load_counter{")
        )


@contextlib.contextmanager
def sidecars(
    service: BundleService, keys: Sequence[SigningKey], count: int
) -> Iterator[list[BundleSidecar]]:
    """``count`` started sidecars of ``service`` trusting ``keys``; stopped on leaving."""
    with contextlib.ExitStack() as stack:
        started = []
        for _ in range(count):
            sidecar = BundleSidecar(service_url=service.url, keys=tuple(keys))
            stack.callback(sidecar.log_path.unlink, missing_ok=True)
            stack.callback(sidecar.stop)
            started.append(sidecar.start())
        yield started
