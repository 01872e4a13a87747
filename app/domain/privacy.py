"""Pure shaping of the privacy guard: ceilings, identifiers, retention, ETags.

No permission logic lives here. Which parts of a payload a ceiling keeps, and whether
an answer is kept, is decided in Rego (``policies/privacy``); this module only applies
the parts the policy named to a payload, and checks the shape of identifiers so that
an endpoint URL, a path or free text can never be stored as a provider id.

Patterns are matched with :func:`re.fullmatch`: a JSON Schema ``pattern`` ending in
``$`` also accepts one trailing newline under Python's ``re.search``, which the
request validators use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

__all__ = [
    "ATTEMPT_ID_PATTERN",
    "ATTEMPT_KINDS",
    "CEILING_KINDS",
    "CEILING_LEVELS",
    "MAX_ATTEMPTS",
    "PROVIDER_ID_PATTERN",
    "RETENTION_MARKER",
    "STEP_PARTS",
    "TASK_KEY_PATTERN",
    "Ceiling",
    "Ceilings",
    "etag",
    "is_attempt_id",
    "is_provider_id",
    "is_task_key",
    "parse_if_match",
    "retain",
]

# A provider id names a provider, never where it lives: no "/", ":" or whitespace, so
# neither a URL nor a host:port fits, and it is short.
PROVIDER_ID_PATTERN: Final = r"[a-z0-9][a-z0-9._-]{0,63}"
TASK_KEY_PATTERN: Final = r"[a-z0-9][a-z0-9._-]{0,63}"
# Client-chosen, so UUIDs and ULIDs in either case fit.
ATTEMPT_ID_PATTERN: Final = r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"

ATTEMPT_KINDS: Final = ("chat", "tool")
# Attempts one run records at most (the contract's maxItems of attempted_provider_ids):
# what a privacy read answers and a reconciliation rereads stays bounded.
MAX_ATTEMPTS: Final = 1000
CEILING_KINDS: Final = ("audit_content", "background_answer")
# The level names of the scale in policies/privacy/scale/scale.rego, listed strictest
# first for readers. Only used to validate input and answers: the order, the global
# default and what each level keeps are decided in Rego (a test pins the names).
CEILING_LEVELS: Final = ("none", "metadata", "full")
# The top-level parts of a run-step payload a retention level can keep.
STEP_PARTS: Final = ("kind", "metadata", "content")
# Added to every stored step payload: the audit-content level it was last filtered at.
RETENTION_MARKER: Final = "retention"


@dataclass(frozen=True, slots=True)
class Ceiling:
    """A run's ceiling of one kind: a level name and whether a policy set it explicitly.

    The one shape of a ceiling from the run row to the answer: the repository reads it,
    the policy gateway sends it and reads it back, the handler writes it out. ``level``
    is a name only (what it keeps is the policies'). A stored level is carried as read,
    even one that is not on the scale: the policy answers "unreadable" for it and
    :class:`~app.usecases.run_privacy.ReadRunPrivacy` refuses it.
    """

    level: str
    explicit: bool


# A run's ceilings by kind (CEILING_KINDS order); a kind without a stored level is absent.
Ceilings: TypeAlias = Mapping[str, Ceiling]

_PROVIDER_ID = re.compile(PROVIDER_ID_PATTERN)
_TASK_KEY = re.compile(TASK_KEY_PATTERN)
_ATTEMPT_ID = re.compile(ATTEMPT_ID_PATTERN)
_ETAG = re.compile(r'"([0-9]{1,18})"')


def is_provider_id(value: str) -> bool:
    """Whether ``value`` is a well-formed provider id (not a URL, path or free text)."""
    return _PROVIDER_ID.fullmatch(value) is not None


def is_task_key(value: str) -> bool:
    """Whether ``value`` is a well-formed task key."""
    return _TASK_KEY.fullmatch(value) is not None


def is_attempt_id(value: str) -> bool:
    """Whether ``value`` is a well-formed attempt id."""
    return _ATTEMPT_ID.fullmatch(value) is not None


def retain(payload: Mapping[str, Any], parts: Iterable[str], level: str) -> dict[str, Any]:
    """The payload with only the top-level ``parts`` the policy keeps, marked with ``level``.

    Idempotent and composable: retaining ``a`` then ``b`` keeps the parts in both, so
    refiltering an already filtered payload at a stricter level equals filtering the
    original at that level. Nothing is ever added except the retention marker.
    """
    kept = frozenset(parts)
    filtered = {key: value for key, value in payload.items() if key in kept}
    filtered[RETENTION_MARKER] = level
    return filtered


def etag(version: int) -> str:
    """The strong ETag of an envelope version (``"7"``)."""
    return f'"{version}"'


def parse_if_match(value: str) -> int | None:
    """The envelope version named by an ``If-Match`` header, or ``None`` if malformed.

    Only one strong entity tag of digits is accepted; ``*``, weak tags and lists are
    not, because a rotation must name the exact version it read.
    """
    match = _ETAG.fullmatch(value.strip())
    return None if match is None else int(match.group(1))
