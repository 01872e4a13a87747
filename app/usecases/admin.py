"""Admin facts API: change the world while the service runs (instance owners only).

Every operation is decided in Rego as its ``admin.*`` action on the instance; the
use case then checks references (unknown ids: 404 for the path, 422 for the body),
writes and commits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from app.domain.privacy import is_task_key
from app.errors import Conflict, NotFound, ValidationFailed
from app.policy import resources
from app.usecases.authorization import Authorizer
from repositories.admin import AdminRepository
from repositories.principals import Actor
from repositories.unit_of_work import UnitFactory, UnitOfWork

__all__ = ["RunAdmin"]

T = TypeVar("T")


class RunAdmin:
    """Run one admin write: authorize ``admin.*`` on the instance, write, commit.

    Args:
        writer: opens a unit of work (one transaction, rolled back unless committed).
        authorizer: decides the action and audits denials.
    """

    def __init__(self, *, writer: UnitFactory, authorizer: Authorizer) -> None:
        self._writer = writer
        self._authorizer = authorizer

    def __call__(
        self, actor: Actor, action: str, work: Callable[[UnitOfWork, AdminRepository], T]
    ) -> T:
        """Authorize ``action`` on the instance, run ``work`` in one transaction, commit.

        Raises:
            Forbidden: the actor is not an active instance owner (reason from the policy).
            NotFound, ValidationFailed, Conflict: raised by ``work``.
        """
        with self._writer() as uow:
            facts = uow.facts.bundle([actor.id], [])
            self._authorizer.require(actor, action, resources.instance(), facts)
            result = work(uow, uow.admin)
            uow.commit()
        return result


def require(value: T | None) -> T:
    """``value``, or 404 when the path names an unknown entity."""
    if value is None:
        raise NotFound()
    return value


def reference(repo: AdminRepository, kind: str, entity_id: str | None, field: str) -> Any:
    """Check that a body reference exists; 422 naming the field otherwise."""
    if entity_id is None:
        return None
    found = repo.lookup(kind, entity_id)
    if found is None:
        raise ValidationFailed(
            "A referenced entity does not exist.",
            [{"path": f"body/{field}", "message": f"unknown {kind}"}],
        )
    return found


def grant_view(row: dict[str, Any]) -> dict[str, Any]:
    """The ``Grant`` schema."""
    subject = (
        {"kind": "principal", "id": row["subject_principal_id"]}
        if row["subject_principal_id"]
        else {"kind": "group", "id": row["subject_group_id"]}
    )
    target = (
        {"kind": "channel", "id": row["target_channel_id"]}
        if row["target_channel_id"]
        else {"kind": "space", "id": row["target_space_id"]}
    )
    return {
        "id": row["id"],
        "subject": subject,
        "target": target,
        "level": row["level"],
        "expires_at": row["expires_at"],
        "created_at": row["created_at"],
    }


def create_grant(repo: AdminRepository, body: dict[str, Any]) -> dict[str, Any]:
    """Insert a grant after checking subject and target."""
    reference(repo, body["subject"]["kind"], body["subject"]["id"], "subject/id")
    reference(repo, body["target"]["kind"], body["target"]["id"], "target/id")
    row = repo.create_grant(
        subject=body["subject"],
        target=body["target"],
        level=body["level"],
        expires_at=body.get("expires_at"),
    )
    if row is None:
        raise Conflict("An identical grant exists.")
    return grant_view(row)


def update_principal(
    repo: AdminRepository, principal_id: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Change a principal's status and, for an agent, ``acting_for``.

    ``acting_for`` belongs to agents: ``required`` for a person or an app is refused
    (422) rather than stored; the ``Principal`` view shows it for agents only.
    """
    kind = require(repo.lookup("principal", principal_id))
    acting_for = body.get("acting_for")
    if acting_for == "required" and kind != "agent":
        raise ValidationFailed(
            "Only an agent can be required to act for someone.",
            [{"path": "body/acting_for", "message": "not an agent"}],
        )
    row = require(
        repo.update_principal(principal_id, status=body.get("status"), acting_for=acting_for)
    )
    if row["kind"] != "agent":
        row.pop("acting_for")
    return row


def move_thread(repo: AdminRepository, thread_id: str, channel_id: str) -> dict[str, Any]:
    """Move a thread to another channel (main threads cannot move)."""
    kind = require(repo.lookup("thread", thread_id))
    target_kind = reference(repo, "channel", channel_id, "channel_id")
    if kind == "main":
        raise Conflict("A main thread cannot move.")
    if target_kind == "dm":
        raise Conflict("A thread cannot move into a DM channel.")
    return require(repo.move_thread(thread_id, channel_id))


def create_run(repo: AdminRepository, body: dict[str, Any]) -> dict[str, Any]:
    """Insert a run after checking every reference."""
    reference(repo, "thread", body["thread_id"], "thread_id")
    if reference(repo, "principal", body["agent_id"], "agent_id") != "agent":
        raise ValidationFailed(
            "agent_id must name an agent.", [{"path": "body/agent_id", "message": "not an agent"}]
        )
    session_thread = reference(repo, "session", body.get("session_id"), "session_id")
    if session_thread is not None and session_thread != body["thread_id"]:
        raise ValidationFailed(
            "The session belongs to another thread.",
            [{"path": "body/session_id", "message": "other thread"}],
        )
    if body.get("trigger_kind", "message") == "message" and not body.get("triggering_message_id"):
        raise ValidationFailed(
            "A message run needs its triggering message.",
            [{"path": "body/triggering_message_id", "message": "required"}],
        )
    reference(repo, "message", body.get("triggering_message_id"), "triggering_message_id")
    reference(repo, "principal", body.get("triggered_by"), "triggered_by")
    return repo.create_run(
        thread_id=body["thread_id"],
        agent_id=body["agent_id"],
        session_id=body.get("session_id"),
        trigger_kind=body.get("trigger_kind", "message"),
        message_id=body.get("triggering_message_id"),
        triggered_by=body.get("triggered_by"),
        state=body.get("state", "queued"),
        task_key=_task_key(body.get("task_key")),
    )


def _task_key(task_key: str | None) -> str | None:
    """A run's task key, checked in full (the schema's pattern admits a trailing newline)."""
    if task_key is not None and not is_task_key(task_key):
        raise ValidationFailed(
            "task_key is not a task key.", [{"path": "body/task_key", "message": "not a task key"}]
        )
    return task_key


def create_followup(repo: AdminRepository, body: dict[str, Any]) -> dict[str, Any]:
    """Insert a follow-up after checking its run and message."""
    reference(repo, "run", body["run_id"], "run_id")
    reference(repo, "message", body["message_id"], "message_id")
    row = repo.create_followup(body["run_id"], body["message_id"], body.get("state", "pending"))
    if row is None:
        raise Conflict("The run already has this follow-up.")
    return row


def set_session(repo: AdminRepository, thread_id: str, body: dict[str, Any]) -> dict[str, Any]:
    """Reset (new, not started) or bind (new, already started) the thread's session."""
    require(repo.lookup("thread", thread_id))
    agent_id = body.get("agent_id")
    if agent_id is None:
        agent_id = repo.thread_operator(thread_id)
        if agent_id is None:
            raise Conflict("The thread has no operator to hold the session.")
    elif reference(repo, "principal", agent_id, "agent_id") != "agent":
        raise ValidationFailed(
            "The session needs an agent.", [{"path": "body/agent_id", "message": "not an agent"}]
        )
    return repo.replace_session(thread_id, agent_id, started=body["mode"] == "bind")


def update_channel(
    repo: AdminRepository, channel_id: str, body: dict[str, Any], backfill_max: int
) -> dict[str, Any]:
    """Change a channel's switches; the operator must be an agent.

    ``backfill_max`` is ``channel.history_backfill_limit_max``: a larger limit could
    never take effect, so it is refused rather than stored.
    """
    if body.get("history_backfill_limit", 0) > backfill_max:
        raise ValidationFailed(
            "history_backfill_limit is above the configured maximum.",
            [
                {
                    "path": "body/history_backfill_limit",
                    "message": "above channel.history_backfill_limit_max",
                }
            ],
        )
    operator = body.get("operator_agent_id")
    if (
        operator is not None
        and reference(repo, "principal", operator, "operator_agent_id") != "agent"
    ):
        raise ValidationFailed(
            "The operator must be an agent.",
            [{"path": "body/operator_agent_id", "message": "not an agent"}],
        )
    return require(repo.update_channel(channel_id, body))


def delete_message(uow: UnitOfWork, message_id: str) -> None:
    """Tombstone a message: content emptied, deleted_at set."""
    if not uow.messages.tombstone(message_id):
        raise NotFound()
