"""``make bundle`` (scripts/build-bundle.sh): the commit as revision, signed, verified.

The script's bundle is what a release publishes; a sidecar with the deploy
configuration activates it and reports its revision, and the compose file's OPA
healthcheck (OPA's own ``http.send``, the image has no shell) tells the two states apart.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
import yaml

from tests.support.bundles import OPA, BundleService, SigningKey, sidecars, signing_key, wait_until
from tests.support.services import REPO_ROOT

pytestmark = pytest.mark.integration


def _make_bundle(out: Path, key: SigningKey, verify_with: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(REPO_ROOT / "scripts" / "build-bundle.sh")],
        env={
            **os.environ,
            "BUNDLE_SIGNING_KEY": str(key.private),
            "BUNDLE_KEY_ID": key.key_id,
            "BUNDLE_VERIFICATION_KEY": str(verify_with),
            "BUNDLE_OUT": str(out),
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _healthcheck(url: str) -> int:
    """The exit status of docker-compose.yml's OPA healthcheck run against ``url``."""
    compose = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    test = compose["services"]["opa"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "/opa"]
    arguments = [argument.replace("http://127.0.0.1:8181", url) for argument in test[2:]]
    return subprocess.run(
        [str(OPA), *arguments], capture_output=True, timeout=60, check=False
    ).returncode


def test_make_bundle_signs_the_commit_and_a_sidecar_activates_it(tmp_path: Path) -> None:
    key = signing_key(tmp_path, "release", key_id="agent-authz-1")
    out = tmp_path / "out" / "agent-authz.tar.gz"
    expected = _git("rev-parse", "HEAD") + ("-dirty" if _git("status", "--porcelain") else "")

    built = _make_bundle(out, key, key.public)

    assert built.returncode == 0, built.stderr
    assert built.stdout.strip().splitlines()[-1] == expected
    with tarfile.open(out, "r:gz") as archive:
        names = {member.name.lstrip("/") for member in archive.getmembers()}
        manifest = json.load(archive.extractfile("/.manifest"))  # type: ignore[arg-type]
        signatures = json.load(archive.extractfile("/.signatures.json"))  # type: ignore[arg-type]
    assert manifest["revision"] == expected
    assert "policies/authz/decision.rego" in names
    assert not [name for name in names if name.endswith("_test.rego")]
    header = signatures["signatures"][0].split(".")[0]
    assert json.loads(base64.urlsafe_b64decode(header + "==")) == {
        "alg": "RS256",
        "kid": "agent-authz-1",
        "typ": "JWT",
    }

    with BundleService() as service, sidecars(service, [key], 1) as (sidecar,):
        assert _healthcheck(sidecar.url) == 1
        service.publish(out)
        wait_until(lambda: sidecar.active_revision() == expected, 10, "activation")
        assert _healthcheck(sidecar.url) == 0


def test_make_bundle_refuses_a_bundle_that_does_not_verify(tmp_path: Path) -> None:
    key = signing_key(tmp_path, "release", key_id="agent-authz-1")
    other = signing_key(tmp_path, "other", key_id="agent-authz-1")
    out = tmp_path / "agent-authz.tar.gz"

    built = _make_bundle(out, key, other.public)

    assert built.returncode != 0
    assert "does not verify" in built.stderr
    assert not out.exists()
    assert list(tmp_path.glob("agent-authz.tar.gz*")) == []
