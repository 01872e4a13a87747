"""Typed results of the decision, run-context and session-context entry points.

The privacy entry points' results are in :mod:`app.policy.privacy_results`; the
decision's type is the domain's (:mod:`app.domain.decisions`).

Every answer OPA gives is checked here before anything uses it, down to the enums:
a decision whose reason is not on the closed list, a class whose role or trust is not
one of the contract's values, a readable position that was not sent, or a missing
entry for something that was sent raises :class:`~app.opa_client.OpaMalformed`. The
request then fails closed (503); it never continues with a guessed or weaker answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from agent_sdk.contracts import INTENT_REASONS
from agent_sdk.policy_reasons import POLICY_REASONS
from app.domain.decisions import OWN, ActingFor, ActingForMode, Decision
from app.opa_client import OpaMalformed
from app.policy.inputs import (
    ActingForInput,
    AuthorRef,
    CandidateThread,
    SessionContextInput,
)

__all__ = [
    "INTENT_REASONS",
    "REASONS",
    "REVISION_PATTERN",
    "AuthorClass",
    "IntentOutcome",
    "IntentVerdict",
    "ReachableSurface",
    "Role",
    "RunContextVerdict",
    "SessionContextVerdict",
    "Trust",
    "is_str_list",
    "parse_decision",
    "parse_revision",
    "parse_run_context",
    "parse_session_context",
    "parse_trigger_holders",
]

# The closed list of reason codes (policies/authz/results/results.rego), as on the wire;
# tests pin the Rego list, the contract's and this one equal.
REASONS = POLICY_REASONS

# The sides an acting-for decision names in ``failed`` (policies/authz/messages).
_SIDES = ("agent", "requester")


class Role(StrEnum):
    """``RunContextMessage.role``: who the author is relative to the run."""

    USER = "user"
    ASSISTANT = "assistant"
    OTHER = "other"


class Trust(StrEnum):
    """``RunContextMessage.trust``: whether the content may instruct the agent."""

    TRIGGER = "trigger"
    AUTHORIZED = "authorized"
    SELF = "self"
    UNVERIFIED = "unverified"
    SYSTEM = "system"


# What a bundle revision may look like: it goes into audit rows, log lines, a metric
# label and answers, so it is bounded and plain (``make bundle`` writes a git commit id,
# plus ``-dirty``).
REVISION_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@+/-]{0,127}\Z")


def parse_revision(provenance: Any) -> str | None:
    """The revision of the policy bundle that answered, from OPA's ``provenance``.

    ``None`` when OPA names no bundle revision (no provenance, no bundle, or a bundle
    built without one). The sidecar serves one bundle (``deploy/opa/config.yaml``);
    the legacy single-bundle form (a top-level ``revision``) is read too.

    Raises:
        OpaMalformed: provenance of the wrong shape, several bundles, or a revision that
            is not a short plain token (:data:`REVISION_PATTERN`).
    """
    if provenance is None:
        return None
    if not isinstance(provenance, dict):
        raise OpaMalformed("provenance is not an object")
    bundles = provenance.get("bundles") or {}
    if not isinstance(bundles, dict) or len(bundles) > 1:
        raise OpaMalformed("provenance does not name one policy bundle")
    if bundles:
        (bundle,) = bundles.values()
        if not isinstance(bundle, dict):
            raise OpaMalformed("provenance bundle is not an object")
        revision = bundle.get("revision")
    else:
        revision = provenance.get("revision")
    if revision is None or revision == "":
        return None
    if not isinstance(revision, str) or not REVISION_PATTERN.match(revision):
        raise OpaMalformed("provenance names an unreadable bundle revision")
    return revision


def parse_decision(
    result: Any, sent: ActingForInput | None = None, *, revision: str | None = None
) -> Decision:
    """Read a decision object; anything malformed fails closed.

    ``sent`` is the ``acting_for`` of the request (absent: ``None``). The answer may
    carry ``acting_for`` only when the request did, and then names the run that was
    sent. ``revision`` is the bundle revision that answered (:func:`parse_revision`).

    Raises:
        OpaMalformed: not ``{"allow": bool, "reason": <known>, "status": int}`` (plus
            an ``acting_for`` that fits the request), or an allow whose status is not
            200, or a deny whose status is not 403 or 404.
    """
    if not isinstance(result, dict):
        raise OpaMalformed("decision is not an object")
    allow, reason, status = result.get("allow"), result.get("reason"), result.get("status")
    if not isinstance(allow, bool) or not isinstance(status, int) or isinstance(status, bool):
        raise OpaMalformed("decision has the wrong shape")
    if reason not in REASONS:
        raise OpaMalformed("decision has an unknown reason")
    if (allow and status != 200) or (not allow and status not in (403, 404)):
        raise OpaMalformed("decision status does not fit allow")
    acting_for = None
    if "acting_for" in result:
        acting_for = _acting_for(result["acting_for"], sent, allow=allow, reason=str(reason))
    return Decision(
        allow=allow,
        reason=str(reason),
        status=status,
        revision=revision,
        acting_for=acting_for,
    )


def _acting_for(value: Any, sent: ActingForInput | None, *, allow: bool, reason: str) -> ActingFor:
    """The ``acting_for`` of a decision, checked against the request and the decision."""
    if sent is None:
        raise OpaMalformed("decision names a mode the request did not ask about")
    if not isinstance(value, dict):
        raise OpaMalformed("decision acting_for is not an object")
    mode = value.get("mode")
    if mode == ActingForMode.OWN and set(value) == {"mode"}:
        if reason == "acting_for_exceeded":
            raise OpaMalformed("acting_for_exceeded outside mode run")
        return OWN
    if mode != ActingForMode.RUN or not {"mode", "run_id"} <= set(value) <= {
        "mode",
        "run_id",
        "failed",
    }:
        raise OpaMalformed("decision acting_for has the wrong shape")
    if value["run_id"] != sent["run"]["id"]:
        raise OpaMalformed("decision acting_for names another run")
    failed = value.get("failed", [])
    if (
        not is_str_list(failed)
        or len(set(failed)) != len(failed)
        or not set(failed) <= set(_SIDES)
        or (allow and failed)
        or (reason == "acting_for_exceeded" and failed != ["requester"])
    ):
        raise OpaMalformed("decision acting_for names sides that do not fit the decision")
    if reason == "run_required":
        raise OpaMalformed("run_required in mode run")
    return ActingFor(ActingForMode.RUN, run_id=str(value["run_id"]), failed=tuple(failed))


@dataclass(frozen=True, slots=True)
class AuthorClass:
    """Role and trust of every message of one (author, origin) pair."""

    role: Role
    trust: Trust


@dataclass(frozen=True, slots=True)
class RunContextVerdict:
    """OPA's answer to ``data.runcontext.evaluate``, checked against what was sent.

    Attributes:
        readable: ``(thread_id, seq)`` of every candidate the actor may read.
        trigger_holders: The authors holding trigger on the run's channel, ascending.
        classes: Role and trust per ``(author_id, origin)`` pair, one per pair sent.
    """

    readable: frozenset[tuple[str, int]]
    trigger_holders: tuple[str, ...]
    classes: Mapping[tuple[str, str], AuthorClass]

    def is_readable(self, thread_id: str, seq: int) -> bool:
        """Whether the candidate at this position may be read."""
        return (thread_id, seq) in self.readable

    def class_of(self, author_id: str, origin: str) -> AuthorClass:
        """The class of a message by this author with this origin (sent, so present)."""
        return self.classes[(author_id, origin)]


def is_str_list(value: Any) -> bool:
    """Whether ``value`` is a JSON array of strings."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _readable(result: Any, threads: list[CandidateThread]) -> frozenset[tuple[str, int]]:
    if not isinstance(result, list) or len(result) != len(threads):
        raise OpaMalformed("run context readable parts do not match the threads sent")
    readable: set[tuple[str, int]] = set()
    for part, thread in zip(result, threads, strict=True):
        if not isinstance(part, dict) or part.get("thread_id") != thread["id"]:
            raise OpaMalformed("run context readable part names another thread")
        seqs = part.get("seqs")
        sent = set(thread["seqs"])
        if not isinstance(seqs, list) or not all(
            isinstance(seq, int) and not isinstance(seq, bool) and seq in sent for seq in seqs
        ):
            raise OpaMalformed("run context readable seqs were not sent")
        readable.update((thread["id"], seq) for seq in seqs)
    return frozenset(readable)


def _classes(result: Any, authors: list[AuthorRef]) -> dict[tuple[str, str], AuthorClass]:
    if not isinstance(result, list) or len(result) != len(authors):
        raise OpaMalformed("run context classes do not match the authors sent")
    classes: dict[tuple[str, str], AuthorClass] = {}
    for entry, author in zip(result, authors, strict=True):
        if not isinstance(entry, dict):
            raise OpaMalformed("run context class is not an object")
        if entry.get("author_id") != author["id"] or entry.get("origin") != author["origin"]:
            raise OpaMalformed("run context class names another author")
        role, trust = entry.get("role"), entry.get("trust")
        try:
            if not isinstance(role, str) or not isinstance(trust, str):
                raise ValueError(role, trust)
            classes[(author["id"], author["origin"])] = AuthorClass(
                role=Role(role), trust=Trust(trust)
            )
        except ValueError as exc:
            raise OpaMalformed("run context class has an unknown role or trust") from exc
    return classes


def parse_run_context(
    result: Any, threads: list[CandidateThread], authors: list[AuthorRef]
) -> RunContextVerdict:
    """Read the run-context batch, checked against the threads and authors sent.

    Raises:
        OpaMalformed: a part is missing or of the wrong type, a readable position or a
            class names something that was not sent, or a role or trust is not one of
            the contract's values.
    """
    if not isinstance(result, dict):
        raise OpaMalformed("run context evaluation is not an object")
    holders = result.get("trigger_holders")
    if not isinstance(holders, list) or not is_str_list(holders):
        raise OpaMalformed("run context trigger holders have the wrong shape")
    return RunContextVerdict(
        readable=_readable(result.get("readable"), threads),
        trigger_holders=tuple(holders),
        classes=_classes(result.get("classes"), authors),
    )


def parse_trigger_holders(result: Any, candidates: list[str]) -> tuple[str, ...]:
    """Read the trigger holders: candidates only, ascending, without duplicates.

    Raises:
        OpaMalformed: not a list of strings, or an id that was not a candidate, or not
            strictly ascending.
    """
    if not is_str_list(result):
        raise OpaMalformed("trigger holders have the wrong shape")
    sent = set(candidates)
    if any(holder not in sent for holder in result) or result != sorted(set(result)):
        raise OpaMalformed("trigger holders are not an ascending subset of the candidates")
    return tuple(result)


class IntentOutcome(StrEnum):
    """The decision on one proposed tool intent."""

    ACCEPTED = "accepted"
    DENIED = "denied"


@dataclass(frozen=True, slots=True)
class IntentVerdict:
    """The policy's decision on one intent.

    Attributes:
        outcome: Accepted or denied.
        reason: From :data:`INTENT_REASONS` when denied; ``None`` when accepted.
    """

    outcome: IntentOutcome
    reason: str | None


@dataclass(frozen=True, slots=True)
class ReachableSurface:
    """A surface the caller can reach, with the registry's permission for it."""

    surface_key: str
    required_permission: str | None


@dataclass(frozen=True, slots=True)
class SessionContextVerdict:
    """OPA's answer to ``data.sessioncontext.resolve``, checked against what was sent.

    Attributes:
        decision: May the caller resolve at all (``session_context.resolve``).
        permissions: The caller's real permissions, ascending (empty on a denial).
        reachable: The reachable surfaces in the order they were sent.
        intents: One verdict per intent sent, in order (empty on a denial).
    """

    decision: Decision
    permissions: tuple[str, ...]
    reachable: tuple[ReachableSurface, ...]
    intents: tuple[IntentVerdict, ...]


def _reachable(
    result: Any, sent: list[str], permissions: tuple[str, ...]
) -> tuple[ReachableSurface, ...]:
    if not isinstance(result, list):
        raise OpaMalformed("session context reachable surfaces are not a list")
    position = {key: index for index, key in enumerate(sent)}
    reachable: list[ReachableSurface] = []
    last = -1
    for entry in result:
        if not isinstance(entry, dict) or set(entry) - {"surface_key", "required_permission"}:
            raise OpaMalformed("session context reachable surface has the wrong shape")
        key, permission = entry.get("surface_key"), entry.get("required_permission")
        if not isinstance(key, str) or key not in position or position[key] <= last:
            raise OpaMalformed("session context reachable surfaces are not an ordered subset")
        if permission is not None and permission not in permissions:
            raise OpaMalformed("session context reachable surface needs a permission not held")
        last = position[key]
        reachable.append(ReachableSurface(surface_key=key, required_permission=permission))
    return tuple(reachable)


def _intent(entry: Any) -> IntentVerdict:
    if not isinstance(entry, dict):
        raise OpaMalformed("session context intent decision is not an object")
    outcome, reason = entry.get("decision"), entry.get("reason")
    if outcome == IntentOutcome.ACCEPTED and set(entry) == {"decision"}:
        return IntentVerdict(outcome=IntentOutcome.ACCEPTED, reason=None)
    if (
        outcome == IntentOutcome.DENIED
        and set(entry) == {"decision", "reason"}
        and reason in INTENT_REASONS
    ):
        return IntentVerdict(outcome=IntentOutcome.DENIED, reason=str(reason))
    raise OpaMalformed("session context intent decision is malformed")


def parse_session_context(result: Any, request: SessionContextInput) -> SessionContextVerdict:
    """Read a session-context resolution, checked against the request sent.

    A denied caller's answer holds the decision only. An allowed one holds the
    permissions (ascending, unique, a subset of the caller's permissions in the facts
    sent), the reachable surfaces (an ordered subset of the surfaces sent, each needing
    no permission or one the caller holds) and exactly one decision per intent sent.

    Raises:
        OpaMalformed: anything else, including a denial that carries a resolution.
    """
    if not isinstance(result, dict):
        raise OpaMalformed("session context resolution is not an object")
    decision = parse_decision(result.get("decision"))
    if not decision.allow:
        if set(result) != {"decision"}:
            raise OpaMalformed("a denied session context resolution carries a resolution")
        return SessionContextVerdict(decision=decision, permissions=(), reachable=(), intents=())
    if set(result) != {"decision", "permissions", "reachable", "intents"}:
        raise OpaMalformed("session context resolution has the wrong shape")
    permissions = result["permissions"]
    actor = request["facts"]["principals"].get(request["actor"])
    held = set(actor["permissions"]) if actor is not None else set()
    if (
        not is_str_list(permissions)
        or permissions != sorted(set(permissions))
        or not set(permissions) <= held
    ):
        raise OpaMalformed("session context permissions are not the caller's, ascending")
    intents = result["intents"]
    if not isinstance(intents, list) or len(intents) != len(request["intents"]):
        raise OpaMalformed("session context intent decisions do not match the intents sent")
    granted = tuple(permissions)
    return SessionContextVerdict(
        decision=decision,
        permissions=granted,
        reachable=_reachable(result["reachable"], request["surfaces"], granted),
        intents=tuple(_intent(entry) for entry in intents),
    )
