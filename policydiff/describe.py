"""The facts of an example in the words of the decision tables (``run agent: disabled``).

A reduced example (:mod:`policydiff.minimise`) names the fields whose change alone
makes its change disappear, as input paths (``facts.principals.lotse.status``). A
reviewer reads them faster as the tables say them: *who* (the role the id plays in
this input: the actor, the run's agent, the triggering person, the channel asked
about, another channel of its space, ...) and *what* (``disabled``, ``archived``,
``grant: on the space``, ``grant: expires exactly now``).

:func:`phrase` turns one fact into such a phrase; a path it does not know is shown as
``path = value``, so nothing is hidden.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from app.policy.gateway import DECISION, RUN_CONTEXT
from policydiff.generate import NOW, glossary

__all__ = ["phrase", "roles"]


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


# The ids a decision's resource names, by resource kind: its key and the role it plays.
_RESOURCE_ROLES: dict[str, tuple[tuple[str, str], ...]] = {
    "run": (("agent_id", "run agent"), ("channel_id", "channel")),
    "binding": (("agent_id", "bound agent"), ("runner_id", "binding's runner")),
    "agent": (("id", "agent to provision"), ("owner_id", "agent's owner")),
    "channel": (("id", "channel"),),
}


def roles(entrypoint: str, input: Any) -> dict[str, str]:
    """The role of each id in ``input``: who it is in this question.

    The input's own references win (the run's agent, the triggering person, the
    channel asked about); the generator's glossary names the rest.
    """
    named = dict(glossary())
    if not isinstance(input, dict):
        return named
    found: dict[str, str] = {}

    def put(value: Any, role: str) -> None:
        if isinstance(value, str) and value not in found:
            found[value] = role

    resource: dict[str, Any] = input["resource"] if isinstance(input.get("resource"), dict) else {}
    run: dict[str, Any] = input["run"] if isinstance(input.get("run"), dict) else {}
    if entrypoint == RUN_CONTEXT:
        put(run.get("agent_id"), "run agent")
        put(run.get("triggered_by"), "triggering person")
        put(run.get("channel_id"), "channel")
    kind = resource.get("kind")
    if entrypoint == DECISION and isinstance(kind, str):
        for key, role in _RESOURCE_ROLES.get(kind, ()):
            put(resource.get(key), role)
    put(input.get("channel_id"), "channel")
    acting_for = input.get("acting_for")
    if isinstance(acting_for, dict):
        put(acting_for.get("requester"), "requester")
        bound = acting_for.get("run")
        if isinstance(bound, dict):
            put(bound.get("id"), "bound run")
    actor = input.get("actor")
    if isinstance(actor, str) and actor not in found:
        found[actor] = named.get(actor, "actor")
    return {**named, **found}


def _when(value: Any) -> str:
    """A time said relative to the generated clock."""
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return f"at {_json(value)} (not a time)"
    now = datetime.fromisoformat(NOW.replace("Z", "+00:00")).astimezone(UTC)
    seconds = (moment - now).total_seconds()
    if seconds == 0:
        return "exactly now"
    if abs(seconds) == 1:
        return "one second " + ("after now" if seconds > 0 else "before now")
    return "in the future" if seconds > 0 else "in the past"


def _words(steps: list[str]) -> str:
    return " ".join(step.replace("_", " ") for step in steps)


def _principal(who: str, field: str, rest: list[Any], value: Any) -> str:
    if field == "status" and isinstance(value, str):
        return f"{who}: {value}"
    if field == "kind" and isinstance(value, str):
        return f"{who}: kind {value}"
    if field == "is_owner" and isinstance(value, bool):
        return f"{who}: {'instance owner' if value else 'not instance owner'}"
    if field == "groups" and rest:
        return f"{who}: in group {value}"
    if field == "permissions" and rest:
        return f"{who}: holds {value}"
    if field == "acting_for" and isinstance(value, str):
        return f"{who}: acting for {value}"
    return f"{who}: {field.replace('_', ' ')} {_shown(value)}"


def _shown(value: Any) -> str:
    return "present" if value == "present" else _json(value)


def _grant(index: int, rest: list[Any], value: Any, names: dict[str, str]) -> str:
    who = "grant" if index == 0 else f"grant {index + 1}"
    path = [str(step) for step in rest]
    if not path:
        return f"{who}: exists"
    if path == ["level"]:
        return f"{who}: level {value}"
    if path == ["expires_at"]:
        return f"{who}: expires {_when(value)}" if value != "present" else f"{who}: expires"
    if path == ["subject", "kind"]:
        return f"{who}: to a {value}"
    if path == ["target", "kind"]:
        return f"{who}: on a {value}"
    if path in (["subject", "id"], ["target", "id"]) and isinstance(value, str):
        preposition = "to" if path[0] == "subject" else "on"
        return f"{who}: {preposition} {names.get(value, value)}"
    return f"{who}: {_words(path)} {_shown(value)}"


def _resource(field: str, value: Any, names: dict[str, str], kind: Any) -> str:
    subject = {"run": "run", "binding": "binding", "agent": "agent"}.get(str(kind), "resource")
    if field == "kind":
        return f"resource: kind {value}"
    if field == "state":
        return f"{subject}: {value}"
    if field in ("agent_id", "owner_id", "runner_id", "channel_id", "id") and isinstance(
        value, str
    ):
        what = {
            "agent_id": "of",
            "owner_id": "owned by",
            "runner_id": "held by",
            "channel_id": "in",
            "id": "is",
        }
        return f"{subject}: {what[field]} {names.get(value, value)}"
    if field == "enrollment_epoch":
        return f"{subject}: enrolment epoch {_json(value)}"
    return f"{subject}: {field.replace('_', ' ')} {_shown(value)}"


def _run(fields: list[Any], value: Any, names: dict[str, str], subject: str) -> str:
    """A fact of a bound run (``input.acting_for.run``) or a run to bind (``resource.run``)."""
    if fields == ["state"] and isinstance(value, str):
        return f"{subject}: {value}"
    if fields == ["agent_id"] and isinstance(value, str):
        return f"{subject}: of {names.get(value, value)}"
    return f"{subject}: {_words([str(step) for step in fields]) or 'present'} {_shown(value)}"


def phrase(entrypoint: str, input: Any, path: tuple[str | int, ...], value: Any) -> str:
    """One fact of an example of ``entrypoint`` in the tables' words.

    ``path`` is the fact's place in ``input`` and ``value`` its value there
    (``"present"`` for an element whose presence matters).
    """
    names = roles(entrypoint, input)
    steps = list(path)
    resource = input.get("resource") if isinstance(input, dict) else None
    if len(steps) >= 3 and steps[0] == "facts":
        section, key, rest = steps[1], steps[2], steps[3:]
        if section == "principals":
            who = names.get(str(key), str(key))
            if not rest:
                return f"{who}: in the facts"
            return _principal(who, str(rest[0]), rest[1:], value)
        if section == "channels":
            where = names.get(str(key), str(key))
            if not rest:
                return f"{where}: in the facts"
            field = str(rest[0])
            if field == "archived" and isinstance(value, bool):
                return f"{where}: {'archived' if value else 'not archived'}"
            if field == "kind":
                return f"{where}: {value}"
            if field == "space_id" and isinstance(value, str):
                return f"{where}: in {names.get(value, value)}"
            if field == "members" and len(rest) > 1 and isinstance(value, str):
                return f"{where}: {names.get(value, value)} is a member"
            return f"{where}: {_words([str(s) for s in rest])} {_shown(value)}"
        if section == "spaces":
            where = names.get(str(key), str(key))
            if rest == ["archived"] and isinstance(value, bool):
                return f"{where}: {'archived' if value else 'not archived'}"
            return f"{where}: {_words([str(s) for s in rest]) or 'in the facts'} {_shown(value)}"
        if section == "grants" and isinstance(key, int):
            return _grant(key, rest, value, names)
        if section == "runners":
            who = names.get(str(key), str(key))
            if rest == ["enrolled"] and isinstance(value, bool):
                return f"{who}: {'enrolled' if value else 'not enrolled'}"
            return f"{who}: {_words([str(step) for step in rest]) or 'known'} {_shown(value)}"
    if steps == ["facts", "now"]:
        return f"now: {_json(value)}"
    if len(steps) == 2 and steps[0] == "resource" and isinstance(resource, dict):
        return _resource(str(steps[1]), value, names, resource.get("kind"))
    if steps[:2] == ["resource", "run"]:
        return _run(steps[2:], value, names, "run to bind")
    if steps and steps[0] == "acting_for":
        if steps == ["acting_for"]:
            return f"acting for: {_shown(value)}"
        if steps == ["acting_for", "requester"] and isinstance(value, str):
            return f"bound run: requested by {glossary().get(value, value)}"
        if len(steps) >= 2 and steps[1] == "run":
            return _run(steps[2:], value, names, "bound run")
        return _run([str(step) for step in steps[1:]], value, names, "bound run")
    if steps and steps[0] == "authors" and len(steps) == 3:
        author = input["authors"][steps[1]].get("id") if isinstance(input, dict) else None
        who = names.get(str(author), str(author))
        if steps[2] == "origin":
            return f"author {who}: origin {value}"
        return f"author: {names.get(str(value), str(value))}"
    if steps and steps[0] == "candidates" and isinstance(value, str):
        return f"candidate: {names.get(value, value)}"
    if steps and steps[0] == "run":
        fields = [str(step) for step in steps[1:]]
        if fields in (["agent_id"], ["triggered_by"], ["channel_id"]) and isinstance(value, str):
            what = {"agent_id": "agent", "triggered_by": "triggered by", "channel_id": "in"}
            return f"run: {what[fields[0]]} {names.get(value, value)}"
        if fields == ["parent"]:
            return "run: has a parent message"
        return f"run: {_words(fields)} {_shown(value)}"
    if steps == ["actor"] and isinstance(value, str):
        return f"actor: {names.get(value, value)}"
    if steps and isinstance(steps[0], str):
        # provider, task, intents, threads, surfaces: the section, then the field.
        tail = [str(step) for step in steps[1:] if not isinstance(step, int)]
        return f"{steps[0]}: {_words(tail)} {_shown(value)}".replace(":  ", ": ")
    return f"{'.'.join(str(step) for step in steps)} = {_shown(value)}"
