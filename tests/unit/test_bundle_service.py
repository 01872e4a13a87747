"""scripts/bundle_service.py: what OPA's bundle plugin needs from a bundle service.

The real script in a child process: the bundle with a content ETag, 304 when the
sidecar already holds it, a new ETag when the file is replaced, 404 for anything else.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.support.bundles import BUNDLE_RESOURCE as ROUTE
from tests.support.bundles import BundleService
from tests.support.services import REPO_ROOT


@pytest.fixture
def served() -> Iterator[tuple[str, Path]]:
    """The service (``tests/support/bundles.BundleService``) serving one file at :data:`ROUTE`."""
    with BundleService() as service:
        service.file.write_bytes(b"first bundle")
        yield service.url, service.file


def test_the_bundle_is_served_with_an_etag_and_304_when_unchanged(
    served: tuple[str, Path],
) -> None:
    url, _bundle = served

    first = requests.get(f"{url}/{ROUTE}", timeout=5)
    again = requests.get(
        f"{url}/{ROUTE}", headers={"If-None-Match": first.headers["ETag"]}, timeout=5
    )

    assert first.status_code == 200
    assert first.content == b"first bundle"
    assert first.headers["Content-Type"] == "application/gzip"
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["ETag"] == first.headers["ETag"]


def test_a_replaced_file_gets_a_new_etag(served: tuple[str, Path]) -> None:
    url, bundle = served
    before = requests.get(f"{url}/{ROUTE}", timeout=5).headers["ETag"]

    staging = bundle.with_name("staging")
    staging.write_bytes(b"second bundle")
    staging.replace(bundle)
    after = requests.get(f"{url}/{ROUTE}", headers={"If-None-Match": before}, timeout=5)

    assert after.status_code == 200
    assert after.content == b"second bundle"
    assert after.headers["ETag"] != before


def test_other_paths_a_missing_file_and_other_methods_are_refused(
    served: tuple[str, Path],
) -> None:
    url, bundle = served

    assert requests.get(f"{url}/bundles/other.tar.gz", timeout=5).status_code == 404
    assert requests.get(f"{url}/{ROUTE}/../../etc/passwd", timeout=5).status_code == 404
    refused = requests.post(f"{url}/{ROUTE}", data=b"x", timeout=5)
    assert refused.status_code == 405
    assert refused.headers["Allow"] == "GET, HEAD"
    assert requests.head(f"{url}/{ROUTE}", timeout=5).status_code == 200
    bundle.unlink()
    assert requests.get(f"{url}/{ROUTE}", timeout=5).status_code == 404


def test_a_route_without_a_file_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "bundle_service.py"), "--port", "0", ROUTE],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )

    assert result.returncode != 0
    assert "expected ROUTE=FILE" in result.stderr
