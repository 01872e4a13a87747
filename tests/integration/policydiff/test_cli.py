"""``python -m app policy diff`` as CI runs it: exit statuses, formats, the expect gate."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from policydiff.corpus import Record, write_corpus
from policydiff.scratch import ScratchError, extract_revision
from tests.integration.policydiff.conftest import POLICIES, run_policy, select
from tests.integration.policydiff.test_edits import DROP_ARCHIVE_CAP
from tests.support.services import REPO_ROOT

pytestmark = pytest.mark.integration

GROUPS = (
    "authz/decision message.post deny_to_allow",
    "runcontext/trigger_holders trigger_holders trigger_holders_changed",
)


@pytest.fixture
def corpus(tmp_path: Path, generated: list[Record]) -> Path:
    """A small corpus that the archive-cap edit changes in two groups."""
    path = tmp_path / "corpus.jsonl"
    records = select(generated, "message.post", "trigger holders", status="active", actor="owner")
    records += select(generated, "trigger holders", status="active", candidate="owner")
    write_corpus(path, records)
    return path


@pytest.fixture
def edit(edited: Callable[..., Path]) -> Path:
    return edited(DROP_ARCHIVE_CAP)


def _expect(tmp_path: Path, *groups: str) -> Path:
    path = tmp_path / "expect.txt"
    path.write_text("# reviewed: the archive cap goes\n" + "".join(g + "\n" for g in groups))
    return path


def test_without_changes_the_exit_status_is_0(corpus: Path) -> None:
    result = run_policy("diff", "--base-dir", str(POLICIES), "--corpus", str(corpus))
    assert result.returncode == 0, result.stderr
    assert "No decision changed." in result.stdout


def test_changes_exit_1_and_json_lists_widening_groups_first(corpus: Path, edit: Path) -> None:
    result = run_policy(
        "diff",
        "--base-dir",
        str(POLICIES),
        "--head-dir",
        str(edit),
        "--corpus",
        str(corpus),
        "--format",
        "json",
    )
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert [group["id"] for group in report["groups"]] == list(GROUPS)
    assert all(group["widening"] for group in report["groups"])
    assert report["groups"][0]["examples"][0]["facts"]


def test_the_expect_gate_passes_on_exactly_the_listed_groups(
    corpus: Path, edit: Path, tmp_path: Path
) -> None:
    result = run_policy(
        "diff",
        "--base-dir",
        str(POLICIES),
        "--head-dir",
        str(edit),
        "--corpus",
        str(corpus),
        "--expect",
        str(_expect(tmp_path, *GROUPS)),
        "--format",
        "markdown",
    )
    assert result.returncode == 0, result.stderr
    assert "## Policy impact diff" in result.stdout
    assert "expect: passed" in result.stdout


def test_the_expect_gate_fails_on_a_group_that_is_not_listed_or_did_not_change(
    corpus: Path, edit: Path, tmp_path: Path
) -> None:
    expect = _expect(tmp_path, GROUPS[0], "authz/decision message.list deny_to_allow")
    result = run_policy(
        "diff",
        "--base-dir",
        str(POLICIES),
        "--head-dir",
        str(edit),
        "--corpus",
        str(corpus),
        "--expect",
        str(expect),
    )
    assert result.returncode == 1, result.stderr
    assert f"changed but not listed: {GROUPS[1]}" in result.stdout
    assert "listed but unchanged:   authz/decision message.list deny_to_allow" in result.stdout


def test_what_cannot_run_exits_2(corpus: Path, tmp_path: Path) -> None:
    bad_expect = tmp_path / "bad.txt"
    bad_expect.write_text("authz/decision message.post\n")
    bad_corpus = tmp_path / "bad.jsonl"
    bad_corpus.write_text("{not json\n")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "x.rego").write_text("package x\n\nallow if {\n")
    for args in (
        ("--base-dir", str(POLICIES), "--corpus", str(corpus), "--expect", str(bad_expect)),
        ("--base-dir", str(POLICIES), "--corpus", str(bad_corpus)),
        ("--base", "no-such-revision-here", "--corpus", str(corpus)),
        ("--base-dir", str(broken), "--corpus", str(corpus)),
    ):
        result = run_policy("diff", *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert result.stderr.startswith("policy diff: ")


def test_a_git_revision_is_extracted_as_committed(tmp_path: Path) -> None:
    extracted = extract_revision("HEAD", tmp_path, repo=REPO_ROOT)

    listed = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "ls-tree", "-r", "--name-only", "HEAD", "policies"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(
        str(p.relative_to(tmp_path)) for p in extracted.rglob("*") if p.is_file()
    ) == sorted(listed)
    for name in listed:
        committed = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "show", f"HEAD:{name}"], capture_output=True, check=True
        ).stdout
        assert (tmp_path / name).read_bytes() == committed
    with pytest.raises(ScratchError):
        extract_revision("no-such-revision-here", tmp_path / "x", repo=REPO_ROOT)


def _make_policy_diff(*variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "policy-diff", *variables],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_make_policy_diff_passes_the_exit_status_through(corpus: Path, tmp_path: Path) -> None:
    committed = extract_revision("HEAD", tmp_path / "head", repo=REPO_ROOT)
    edited = tmp_path / "edited"
    shutil.copytree(committed, edited)
    name, old, new = DROP_ARCHIVE_CAP
    levels = edited / name
    levels.write_text(levels.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")

    same = _make_policy_diff(f"POLICY_DIFF_ARGS=--corpus {corpus} --head-dir {committed}")
    changed = _make_policy_diff(f"POLICY_DIFF_ARGS=--corpus {corpus} --head-dir {edited}")
    failed = _make_policy_diff("BASE=no-such-revision-here", f"POLICY_DIFF_ARGS=--corpus {corpus}")

    assert same.returncode == 0, same.stdout + same.stderr
    assert "No decision changed." in same.stdout
    assert changed.returncode == 1, changed.stdout + changed.stderr
    assert changed.stdout.startswith("Policy impact diff")  # the report alone on stdout
    assert "WIDENING" in changed.stdout
    assert failed.returncode == 2, failed.stdout + failed.stderr
    assert "policy diff: git archive no-such-revision-here" in failed.stderr
