"""Acknowledged changes: the ``--expect FILE`` gate.

An expect file lists the change groups a reviewed policy change is meant to produce,
one per line as ``<entrypoint> <action> <kind>`` (the group ids the report prints);
``#`` starts a comment. The gate passes when exactly those groups changed: a group
that changed but is not listed fails it, and so does a listed group that did not
change (the change does not do what its author said).

Example (``docs/policy-guide.md``, "Reviewing a policy change")::

    # Archived channels no longer cap levels at read (issue 123).
    authz/decision message.post deny_to_allow
    authz/decision message.post reason_changed
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from app.policy.gateway import ENTRYPOINTS
from policydiff.compare import KINDS

__all__ = ["ExpectError", "Verdict", "check", "read_expect"]


class ExpectError(ValueError):
    """The expect file cannot be read or has a malformed line."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The gate's answer.

    Attributes:
        unexpected: groups that changed but are not listed.
        missing: listed groups that did not change.
    """

    unexpected: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """Exactly the listed groups changed."""
        return not self.unexpected and not self.missing


def read_expect(path: str | Path) -> set[str]:
    """The group ids listed in an expect file.

    Raises:
        ExpectError: unreadable, or a line that is not ``entrypoint action kind`` with a
            known entry point and kind.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExpectError(f"{path}: {exc.strerror or type(exc).__name__}") from exc
    groups = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tokens = line.split()
        if len(tokens) != 3:
            raise ExpectError(f"{path}:{number}: expected '<entrypoint> <action> <kind>'")
        entrypoint, _action, kind = tokens
        if entrypoint not in ENTRYPOINTS:
            raise ExpectError(f"{path}:{number}: unknown entrypoint {entrypoint!r}")
        if kind not in KINDS:
            raise ExpectError(f"{path}:{number}: unknown kind {kind!r}")
        groups.add(" ".join(tokens))
    return groups


def check(expected: Iterable[str], changed: Iterable[str]) -> Verdict:
    """Compare the listed groups with the groups that changed."""
    wanted, found = set(expected), set(changed)
    return Verdict(unexpected=tuple(sorted(found - wanted)), missing=tuple(sorted(wanted - found)))
