"""``python -m app policy diff --base-bundle FILE``: diff what is deployed (issue 24).

The base is a signed bundle as ``make bundle`` builds it; the diff must report exactly
what it reports for the folder the bundle was built from.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from policydiff.corpus import Record, write_corpus
from tests.integration.policydiff.conftest import run_policy, select
from tests.integration.policydiff.test_edits import DROP_ARCHIVE_CAP
from tests.support.bundles import build_bundle, signing_key

pytestmark = pytest.mark.integration

REVISION = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"


@pytest.fixture
def corpus(tmp_path: Path, generated: list[Record]) -> Path:
    """A small corpus that the archive-cap edit changes."""
    path = tmp_path / "corpus.jsonl"
    records = select(generated, "message.post", "trigger holders", status="active", actor="owner")
    records += select(generated, "trigger holders", status="active", candidate="owner")
    write_corpus(path, records)
    return path


def _groups(*base: str, corpus: Path) -> tuple[int, list[str], str]:
    result = run_policy("diff", *base, "--corpus", str(corpus), "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return result.returncode, [group["id"] for group in report["groups"]], result.stdout


def test_a_bundle_of_the_working_tree_changes_nothing_and_names_its_revision(
    tmp_path: Path, corpus: Path
) -> None:
    bundle = build_bundle(
        tmp_path / "deployed.tar.gz", revision=REVISION, key=signing_key(tmp_path, "k")
    )

    result = run_policy("diff", "--base-bundle", str(bundle), "--corpus", str(corpus))

    assert result.returncode == 0, result.stderr
    assert "No decision changed." in result.stdout
    assert f"revision {REVISION}" in result.stdout


def test_a_bundle_base_reports_what_its_source_folder_reports(
    tmp_path: Path, corpus: Path, edited: Callable[..., Path]
) -> None:
    deployed = edited(DROP_ARCHIVE_CAP)
    bundle = build_bundle(
        tmp_path / "deployed.tar.gz",
        revision=REVISION,
        key=signing_key(tmp_path, "k"),
        policies=deployed,
    )

    from_bundle = _groups("--base-bundle", str(bundle), corpus=corpus)
    from_folder = _groups("--base-dir", str(deployed), corpus=corpus)

    assert from_bundle[0] == from_folder[0] == 1
    assert from_bundle[1] == from_folder[1]
    assert from_bundle[1]


def test_a_file_that_is_not_a_bundle_exits_2(tmp_path: Path, corpus: Path) -> None:
    not_a_bundle = tmp_path / "bundle.tar.gz"
    not_a_bundle.write_text("not a tarball")

    result = run_policy("diff", "--base-bundle", str(not_a_bundle), "--corpus", str(corpus))

    assert result.returncode == 2
    assert "not a readable bundle" in result.stderr
