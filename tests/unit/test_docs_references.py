"""Every repository path and relative link cited in docs/ exists.

A path is cited as a whole code span whose first segment is a top-level entry of the
repository (`app/usecases/messages.py`, `policies/authz/reading/`, optionally with
`:line`, `::test` or `.attribute`); a link is a relative Markdown link, checked with
its anchor against the target's headings. A doc that names a moved or deleted file
fails here instead of misleading the next reader.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([*ROOT.glob("docs/*.md"), *ROOT.glob("docs/adr/*.md")])
# The living docs describe the code as it is. ADRs are records of their time (never
# rewritten, adr/README.md) and may name files their decision removed, and the
# benchmark report's profiles name the files of the run they measured: only their
# links are checked.
CITING = sorted(doc for doc in ROOT.glob("docs/*.md") if doc.name != "benchmarks.md")
TOP_LEVEL = {entry.name for entry in ROOT.iterdir() if not entry.name.startswith(".")}

# Paths that the parallel branches of issue 23 create, which the docs already cite;
# once a path exists, this test fails until its entry is removed.
PENDING: frozenset[str] = frozenset()

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_SUFFIX = re.compile(r"(::[\w\[\]-]+|:\d+(-\d+)?|#[\w-]+)$")
_ATTRIBUTE = re.compile(r"^(?P<module>[\w/]+)\.(?P<attr>[A-Za-z_]\w*)$")
_HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.MULTILINE)
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def _cited_paths(text: str) -> list[str]:
    """Code spans that name a repository path (commands and prose are left out)."""
    cited = []
    for match in _CODE_SPAN.finditer(_FENCE.sub("", text)):
        span = match.group(1).strip()
        if " " in span or "/" not in span or "*" in span or "<" in span:
            continue
        if span.split("/", 1)[0] in TOP_LEVEL:
            cited.append(_SUFFIX.sub("", span))
    return cited


def _exists(cited: str) -> bool:
    path = ROOT / cited.rstrip("/")
    if path.exists():
        return True
    attribute = _ATTRIBUTE.match(cited)
    if attribute is None:
        return False
    module = ROOT / f"{attribute['module']}.py"
    return module.is_file() and attribute["attr"] in module.read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as '-'."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    return {_slug(h) for h in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8")))}


@pytest.mark.parametrize("doc", CITING, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_path_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = sorted(
        {cited for cited in _cited_paths(text) if cited not in PENDING and not _exists(cited)}
    )
    assert missing == [], f"{doc.relative_to(ROOT)} cites paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(doc: Path) -> None:
    broken = []
    for target in _LINK.findall(_FENCE.sub("", doc.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (doc.parent / file_part).resolve() if file_part else doc
        if linked.is_relative_to(ROOT) and str(linked.relative_to(ROOT)) in PENDING:
            continue
        if not linked.exists() or (
            anchor and linked.suffix == ".md" and anchor not in _anchors(linked)
        ):
            broken.append(target)
    assert broken == [], f"{doc.relative_to(ROOT)} has broken links: {broken}"


def test_pending_paths_do_not_exist_yet() -> None:
    arrived = sorted(cited for cited in PENDING if (ROOT / cited.rstrip("/")).exists())
    assert arrived == [], f"remove these from PENDING, they exist now: {arrived}"


def test_the_scan_finds_citations() -> None:
    """Guards the scanner itself: the architecture page cites dozens of paths."""
    text = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    assert len(_cited_paths(text)) > 30
    assert _slug("Request walk-through: `message.post`") == "request-walk-through-messagepost"
