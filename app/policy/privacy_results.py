"""Typed results of the privacy entry points (``data.privacy.attempt`` and ``write``).

Like every answer (:mod:`app.policy.results`), a privacy answer is checked down to its
enums and against the run facts that were sent; anything else raises
:class:`~app.opa_client.OpaMalformed` and the request fails closed (503).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.domain.decisions import Decision
from app.domain.privacy import CEILING_KINDS, CEILING_LEVELS, Ceiling, Ceilings
from app.opa_client import OpaMalformed
from app.policy.inputs import PrivacyAttemptInput, PrivacyRunFacts, PrivacyWriteInput
from app.policy.results import is_str_list, parse_decision

__all__ = [
    "AttemptRefused",
    "CeilingsGo",
    "PolicyUnreadable",
    "Retention",
    "StepPart",
    "parse_privacy_attempt",
    "parse_privacy_write",
]


class StepPart(StrEnum):
    """A top-level part of a run-step payload that a retention level can keep."""

    KIND = "kind"
    METADATA = "metadata"
    CONTENT = "content"


@dataclass(frozen=True, slots=True)
class Retention:
    """What the ceilings keep: the step-payload parts, and whether the answer stays."""

    step_parts: frozenset[StepPart]
    answer: bool


@dataclass(frozen=True, slots=True)
class CeilingsGo:
    """Go: the run's new ceilings (both kinds), whether they changed, what they keep."""

    ceilings: Ceilings
    changed: bool
    retention: Retention


@dataclass(frozen=True, slots=True)
class PolicyUnreadable:
    """A stored level or policy is not on the scale: refuse (the app answers 503)."""


@dataclass(frozen=True, slots=True)
class AttemptRefused:
    """The attempt is refused with a policy decision (403 ``unknown_provider``)."""

    decision: Decision


def _ceiling(value: Any) -> Ceiling:
    if not isinstance(value, dict) or set(value) != {"level", "explicit"}:
        raise OpaMalformed("privacy ceiling has the wrong shape")
    level, explicit = value["level"], value["explicit"]
    if not isinstance(explicit, bool) or not isinstance(level, str):
        raise OpaMalformed("privacy ceiling has the wrong shape")
    if level not in CEILING_LEVELS:
        raise OpaMalformed("privacy ceiling has an unknown level")
    return Ceiling(level=level, explicit=explicit)


def _retention(value: Any) -> Retention:
    if not isinstance(value, dict) or set(value) != {"step_parts", "answer"}:
        raise OpaMalformed("privacy retention has the wrong shape")
    parts, answer = value["step_parts"], value["answer"]
    if not isinstance(answer, bool) or not is_str_list(parts) or len(set(parts)) != len(parts):
        raise OpaMalformed("privacy retention has the wrong shape")
    try:
        return Retention(step_parts=frozenset(StepPart(part) for part in parts), answer=answer)
    except ValueError as exc:
        raise OpaMalformed("privacy retention names an unknown step part") from exc


def _sent_ceilings(run: PrivacyRunFacts) -> dict[str, dict[str, Any]]:
    return {kind: dict(ceiling) for kind, ceiling in run.get("ceilings", {}).items()}


def _go(result: dict[str, Any], run: PrivacyRunFacts) -> CeilingsGo:
    if set(result) != {"outcome", "ceilings", "changed", "retention"}:
        raise OpaMalformed("privacy go has the wrong shape")
    ceilings, changed = result["ceilings"], result["changed"]
    if not isinstance(ceilings, dict) or set(ceilings) != set(CEILING_KINDS):
        raise OpaMalformed("privacy go does not name both ceilings")
    if not isinstance(changed, bool):
        raise OpaMalformed("privacy go has the wrong shape")
    if not changed and ceilings != _sent_ceilings(run):
        raise OpaMalformed("privacy go is unchanged but differs from the stored ceilings")
    return CeilingsGo(
        ceilings={kind: _ceiling(ceilings[kind]) for kind in CEILING_KINDS},
        changed=changed,
        retention=_retention(result["retention"]),
    )


def parse_privacy_attempt(
    result: Any, sent: PrivacyAttemptInput, revision: str | None = None
) -> CeilingsGo | PolicyUnreadable | AttemptRefused:
    """Read ``data.privacy.attempt``, checked against the run facts sent.

    ``revision`` is the bundle revision that answered; a refusal carries it in its
    decision (the refusal is audited).

    Raises:
        OpaMalformed: an unknown outcome; a refusal that is not a deny decision; a go
            without both ceilings, with an unknown level or step part, with fields of
            the wrong type, or claiming "unchanged" for ceilings other than the stored
            ones.
    """
    if not isinstance(result, dict):
        raise OpaMalformed("privacy attempt is not an object")
    outcome = result.get("outcome")
    if outcome == "unreadable" and set(result) == {"outcome"}:
        return PolicyUnreadable()
    if outcome == "refused" and set(result) == {"outcome", "decision"}:
        decision = parse_decision(result["decision"], revision=revision)
        if decision.allow:
            raise OpaMalformed("privacy refusal allows")
        return AttemptRefused(decision)
    if outcome == "go":
        return _go(result, sent["run"])
    raise OpaMalformed("privacy attempt has an unknown outcome")


def parse_privacy_write(result: Any, sent: PrivacyWriteInput) -> CeilingsGo | PolicyUnreadable:
    """Read ``data.privacy.write``, checked against the run facts sent.

    Raises:
        OpaMalformed: as :func:`parse_privacy_attempt`; a write is never refused.
    """
    if not isinstance(result, dict):
        raise OpaMalformed("privacy write is not an object")
    outcome = result.get("outcome")
    if outcome == "unreadable" and set(result) == {"outcome"}:
        return PolicyUnreadable()
    if outcome == "go":
        return _go(result, sent["run"])
    raise OpaMalformed("privacy write has an unknown outcome")
