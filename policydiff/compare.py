"""What changed between the base and the head answer to one record, by kind.

:func:`changes` names each change with its action and kind (``deny_to_allow``,
``reason_changed``, ...) and whether it widens; the kinds are listed in
docs/policy-guide.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from app.policy.gateway import (
    DECISION,
    PRIVACY_ATTEMPT,
    PRIVACY_WRITE,
    RUN_CONTEXT,
    SESSION_CONTEXT,
    TRIGGER_HOLDERS,
)

__all__ = ["KINDS", "Change", "changes"]

KINDS = (
    "deny_to_allow",
    "allow_to_deny",
    "reason_changed",
    "status_changed",
    "trust_or_role_changed",
    "trigger_holders_changed",
    "permissions_changed",
    "ceilings_changed",
    "acting_for_changed",
    "became_undefined",
    "became_defined",
    "became_error",
    "other_changed",
)

# How much a trust marker lets content instruct the agent (higher: more).
_TRUST_RANK = {"unverified": 0, "system": 1, "self": 1, "authorized": 2, "trigger": 3}
_ROLE_RANK = {"other": 0, "assistant": 1, "user": 1}
_CEILING_RANK = {"none": 0, "metadata": 1, "full": 2}


@dataclass(frozen=True, slots=True)
class Change:
    """One named difference between the base and the head answer.

    Attributes:
        action: the input's action, or the part of a batch answer (``message.read``,
            ``trigger_holders``, ``classes``, ``intent query_matters``, ...).
        kind: one of :data:`KINDS`.
        widening: the head answer gives more than the base answer.
        transition: what changed, e.g. ``not_found (404) -> allowed (200)``.
    """

    action: str
    kind: str
    widening: bool
    transition: str


def _brief(decision: Any) -> str:
    if isinstance(decision, dict) and "reason" in decision:
        return f"{decision.get('reason')} ({decision.get('status')})"
    return _short(decision)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _decision_changes(action: str, base: Any, head: Any) -> Iterator[Change]:
    """Changes between two decision objects ``{allow, reason, status}``."""
    if base == head:
        return
    transition = f"{_brief(base)} -> {_brief(head)}"
    if not isinstance(base, dict) or not isinstance(head, dict):
        yield Change(action, "other_changed", False, transition)
        return
    base_allow, head_allow = base.get("allow") is True, head.get("allow") is True
    revealed = base.get("status") == 404 and head.get("status") == 403
    if not base_allow and head_allow:
        yield Change(action, "deny_to_allow", True, transition)
    elif base_allow and not head_allow:
        yield Change(action, "allow_to_deny", False, transition)
    elif base.get("reason") != head.get("reason"):
        yield Change(action, "reason_changed", revealed, transition)
    elif base.get("status") != head.get("status"):
        yield Change(action, "status_changed", revealed, transition)
    elif base.get("acting_for") != head.get("acting_for"):
        yield _acting_for_change(
            action, _brief(head), base.get("acting_for"), head.get("acting_for")
        )
    else:
        yield Change(action, "other_changed", False, transition)


def _mode(acting_for: Any) -> str:
    """The mode an ``acting_for`` names: ``run``, ``own``, ``none`` (absent) or ``?``."""
    if acting_for is None:
        return "none"
    if isinstance(acting_for, dict) and isinstance(acting_for.get("mode"), str):
        return str(acting_for["mode"])
    return "?"


def _sides(acting_for: Any) -> str:
    failed = acting_for.get("failed") if isinstance(acting_for, dict) else None
    if not isinstance(failed, list):
        return "-"
    return " and ".join(map(str, failed)) or "none"


def _acting_for_change(action: str, decision: str, base: Any, head: Any) -> Change:
    """An ``acting_for`` change of a decision whose allow, reason and status are equal.

    Widening only when the mode leaves ``run``: see the module's rule.
    """
    old, new = _mode(base), _mode(head)
    if old != new:
        what = f"mode {old} -> {new}"
    elif not isinstance(base, dict) or not isinstance(head, dict):
        what = "acting_for malformed"
    elif base.get("run_id") != head.get("run_id"):
        what = "another run_id"
    else:
        what = f"failed {_sides(base)} -> {_sides(head)}"
    widening = old == "run" and new != "run"
    return Change(action, "acting_for_changed", widening, f"{decision}, {what}")


def _set_changes(action: str, kind: str, base: Any, head: Any, label: str) -> Iterator[Change]:
    """Gained members are widening, lost ones are not (one change per direction)."""
    before = set(base) if isinstance(base, list) else set()
    after = set(head) if isinstance(head, list) else set()
    if after - before:
        yield Change(action, kind, True, f"{label} gained")
    if before - after:
        yield Change(action, kind, False, f"{label} lost")


def _readable_changes(base: Any, head: Any) -> Iterator[Change]:
    def positions(parts: Any) -> set[tuple[Any, Any]]:
        if not isinstance(parts, list):
            return set()
        return {
            (part.get("thread_id"), seq)
            for part in parts
            if isinstance(part, dict)
            for seq in part.get("seqs", [])
        }

    before, after = positions(base), positions(head)
    if after - before:
        yield Change("message.read", "deny_to_allow", True, "candidate positions became readable")
    if before - after:
        yield Change("message.read", "allow_to_deny", False, "readable positions were dropped")


def _class_changes(base: Any, head: Any) -> Iterator[Change]:
    if not isinstance(base, list) or not isinstance(head, list) or len(base) != len(head):
        if base != head:
            yield Change("classes", "other_changed", False, "classes do not line up")
        return
    for old, new in zip(base, head, strict=True):
        if old == new or not isinstance(old, dict) or not isinstance(new, dict):
            continue
        old_trust, new_trust = old.get("trust"), new.get("trust")
        old_role, new_role = old.get("role"), new.get("role")
        widening = _TRUST_RANK.get(str(new_trust), 9) > _TRUST_RANK.get(str(old_trust), 9) or (
            _ROLE_RANK.get(str(new_role), 9) > _ROLE_RANK.get(str(old_role), 9)
        )
        yield Change(
            "classes",
            "trust_or_role_changed",
            widening,
            f"origin {old.get('origin')}: {old_role}/{old_trust} -> {new_role}/{new_trust}",
        )


def _run_context(base: Any, head: Any) -> Iterator[Change]:
    if not isinstance(base, dict) or not isinstance(head, dict):
        yield Change("run_context", "other_changed", False, "answer shape changed")
        return
    yield from _readable_changes(base.get("readable"), head.get("readable"))
    yield from _set_changes(
        "trigger_holders",
        "trigger_holders_changed",
        base.get("trigger_holders"),
        head.get("trigger_holders"),
        "holders",
    )
    yield from _class_changes(base.get("classes"), head.get("classes"))


def _intent_changes(input: Any, base: Any, head: Any) -> Iterator[Change]:
    sent = input.get("intents", []) if isinstance(input, dict) else []
    if not isinstance(base, list) or not isinstance(head, list) or len(base) != len(head):
        if base != head:
            yield Change("intents", "other_changed", False, "intent decisions do not line up")
        return
    for index, (old, new) in enumerate(zip(base, head, strict=True)):
        if old == new or not isinstance(old, dict) or not isinstance(new, dict):
            continue
        name = (
            sent[index].get("name") if index < len(sent) and isinstance(sent[index], dict) else "?"
        )
        action = f"intent {name}"
        transition = (
            f"{old.get('decision')} {old.get('reason', '')}".strip()
            + " -> "
            + f"{new.get('decision')} {new.get('reason', '')}".strip()
        )
        if old.get("decision") == "denied" and new.get("decision") == "accepted":
            yield Change(action, "deny_to_allow", True, transition)
        elif old.get("decision") == "accepted" and new.get("decision") == "denied":
            yield Change(action, "allow_to_deny", False, transition)
        else:
            yield Change(action, "reason_changed", False, transition)


def _reachable_keys(value: Any) -> list[Any]:
    if not isinstance(value, list):
        return []
    return [entry.get("surface_key") for entry in value if isinstance(entry, dict)]


def _session_context(input: Any, base: Any, head: Any) -> Iterator[Change]:
    if not isinstance(base, dict) or not isinstance(head, dict):
        yield Change("session_context", "other_changed", False, "answer shape changed")
        return
    action = input.get("action", "session_context.resolve") if isinstance(input, dict) else ""
    yield from _decision_changes(str(action), base.get("decision"), head.get("decision"))
    if not (base.get("decision") or {}).get("allow") or not (head.get("decision") or {}).get(
        "allow"
    ):
        return
    yield from _set_changes(
        "permissions",
        "permissions_changed",
        base.get("permissions"),
        head.get("permissions"),
        "permissions",
    )
    before = set(_reachable_keys(base.get("reachable")))
    after = set(_reachable_keys(head.get("reachable")))
    if after - before:
        yield Change("surface.reach", "deny_to_allow", True, "surfaces became reachable")
    if before - after:
        yield Change("surface.reach", "allow_to_deny", False, "surfaces became unreachable")
    if after == before and base.get("reachable") != head.get("reachable"):
        yield Change("surface.reach", "other_changed", False, "required permission shown changed")
    yield from _intent_changes(input, base.get("intents"), head.get("intents"))


def _outcome_name(answer: Any) -> str:
    return str(answer.get("outcome")) if isinstance(answer, dict) else "?"


def _looser(base: Any, head: Any) -> bool:
    """Whether the head ceilings keep more than the base ceilings."""
    old_ceilings, new_ceilings = base.get("ceilings") or {}, head.get("ceilings") or {}
    for kind, new in new_ceilings.items():
        old = old_ceilings.get(kind) or {}
        if _CEILING_RANK.get(str(new.get("level")), 9) > _CEILING_RANK.get(
            str(old.get("level")), -1
        ):
            return True
    old_keep, new_keep = base.get("retention") or {}, head.get("retention") or {}
    if set(new_keep.get("step_parts") or []) - set(old_keep.get("step_parts") or []):
        return True
    return bool(new_keep.get("answer") is True and old_keep.get("answer") is not True)


def _privacy(action: str, base: Any, head: Any) -> Iterator[Change]:
    if not isinstance(base, dict) or not isinstance(head, dict):
        yield Change(action, "other_changed", False, "answer shape changed")
        return
    old, new = _outcome_name(base), _outcome_name(head)
    transition = f"{old} -> {new}"
    if old != "go" and new == "go":
        yield Change(action, "deny_to_allow", True, transition)
    elif old == "go" and new != "go":
        yield Change(action, "allow_to_deny", False, transition)
    elif old != new:
        yield Change(action, "reason_changed", False, transition)
    elif old == "refused":
        yield from _decision_changes(action, base.get("decision"), head.get("decision"))
    elif old == "go":
        if base.get("ceilings") != head.get("ceilings") or base.get("retention") != head.get(
            "retention"
        ):
            yield Change(
                action, "ceilings_changed", _looser(base, head), _ceiling_transition(base, head)
            )
        elif base.get("changed") != head.get("changed"):
            yield Change(action, "other_changed", False, "changed flag differs")


def _ceiling_transition(base: Any, head: Any) -> str:
    parts = []
    for kind in sorted(set(base.get("ceilings") or {}) | set(head.get("ceilings") or {})):
        old = (base.get("ceilings") or {}).get(kind) or {}
        new = (head.get("ceilings") or {}).get(kind) or {}
        if old != new:
            parts.append(f"{kind} {_ceiling(old)} -> {_ceiling(new)}")
    if not parts:
        parts.append("retention changed")
    return "; ".join(parts)


def _ceiling(value: Any) -> str:
    return f"{value.get('level')}{' explicit' if value.get('explicit') else ''}"


def _answer_changes(entrypoint: str, input: Any, base: Any, head: Any) -> Iterator[Change]:
    action = input.get("action") if isinstance(input, dict) else None
    if entrypoint == DECISION:
        yield from _decision_changes(str(action), base, head)
    elif entrypoint == RUN_CONTEXT:
        yield from _run_context(base, head)
    elif entrypoint == TRIGGER_HOLDERS:
        yield from _set_changes("trigger_holders", "trigger_holders_changed", base, head, "holders")
    elif entrypoint == SESSION_CONTEXT:
        yield from _session_context(input, base, head)
    elif entrypoint in (PRIVACY_ATTEMPT, PRIVACY_WRITE):
        yield from _privacy(entrypoint.replace("/", "."), base, head)


def _default_action(entrypoint: str, input: Any) -> str:
    if isinstance(input, dict) and isinstance(input.get("action"), str):
        return str(input["action"])
    return entrypoint.replace("/", ".")


def changes(
    entrypoint: str, input: Any, base: dict[str, Any], head: dict[str, Any]
) -> list[Change]:
    """Every change between the base and the head outcome of one record.

    An empty list means the answers are equal. Anything that differs but fits no
    named kind is ``other_changed``, so a difference is never lost.
    """
    if base == head:
        return []
    action = _default_action(entrypoint, input)
    if "error" in head:
        return [Change(action, "became_error", False, f"-> error {head['error']}")]
    if "error" in base:
        return [Change(action, "became_defined", False, f"error {base['error']} -> answer")]
    if "result" not in head:
        return [Change(action, "became_undefined", False, "answer -> undefined (503)")]
    if "result" not in base:
        widening = isinstance(head["result"], dict) and head["result"].get("allow") is True
        return [Change(action, "became_defined", widening, "undefined -> answer")]
    found = list(_answer_changes(entrypoint, input, base["result"], head["result"]))
    if not found:
        found = [Change(action, "other_changed", False, "the answers differ")]
    return found
