"""Admin facts API: change the world while the service runs (instance owners only).

Every operation is decided in Rego as its ``admin.*`` action on the instance; the
use case then checks references (unknown ids: 404 for the path, 422 for the body),
writes and commits, all in one transaction. :class:`AdminWrites` has one method per
operation; the privacy policies' two are shaped in :mod:`app.usecases.privacy_admin`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from app.domain.identity import Actor
from app.domain.privacy import is_task_key
from app.errors import Conflict, NotFound, ValidationFailed
from app.policy import resources
from app.usecases import privacy_admin
from app.usecases.base import Writes
from repositories.admin import AdminRepository
from repositories.unit_of_work import UnitOfWork

__all__ = ["AdminWrites", "Body"]

T = TypeVar("T")
# A request body as validated against the contract; an answer in the contract's shape.
Body = dict[str, Any]


@dataclass(frozen=True, kw_only=True, eq=False)
class AdminWrites(Writes):
    """The admin facts API's writes: authorize ``admin.*`` on the instance, write, commit.

    Every method takes the actor and the operation's action (``x-action``) first, and
    raises ``Forbidden`` (reason from the policy) unless the actor is an active
    instance owner.

    Attributes:
        backfill_max: ``channel.history_backfill_limit_max``; a channel limit above it
            could never take effect, so it is refused rather than stored.
    """

    backfill_max: int

    @contextmanager
    def _authorized(self, actor: Actor, action: str) -> Iterator[UnitOfWork]:
        """A unit of work in which ``action`` on the instance is allowed; committed when
        the block ends without an exception, rolled back otherwise."""
        with self.writer() as uow:
            facts = uow.facts.bundle([actor.id], [])
            self.authorizer.require(actor, action, resources.instance(), facts)
            yield uow
            uow.commit()

    def create_grant(self, actor: Actor, action: str, body: Body) -> Body:
        """Insert a grant after checking subject and target.

        Raises:
            ValidationFailed: the subject or the target does not exist.
            Conflict: an identical grant exists.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
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

    def delete_grant(self, actor: Actor, action: str, grant_id: str) -> None:
        """Delete a grant; ``NotFound`` when there is no such grant."""
        with self._authorized(actor, action) as uow:
            if not uow.admin.delete_grant(grant_id):
                raise NotFound()

    def update_principal(self, actor: Actor, action: str, principal_id: str, body: Body) -> Body:
        """Change a principal's status and, for an agent, ``acting_for``.

        ``acting_for`` belongs to agents: ``required`` for a person or an app is refused
        (422) rather than stored; the ``Principal`` view shows it for agents only.

        Raises:
            NotFound: no such principal.
            ValidationFailed: ``acting_for: required`` for a principal that is no agent.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
            kind = require(repo.lookup("principal", principal_id))
            acting_for = body.get("acting_for")
            if acting_for == "required" and kind != "agent":
                raise ValidationFailed(
                    "Only an agent can be required to act for someone.",
                    [{"path": "body/acting_for", "message": "not an agent"}],
                )
            row = require(
                repo.update_principal(
                    principal_id, status=body.get("status"), acting_for=acting_for
                )
            )
            if row["kind"] != "agent":
                row.pop("acting_for")
            return row

    def update_space(self, actor: Actor, action: str, space_id: str, body: Body) -> Body:
        """Archive or restore a space.

        Raises:
            NotFound: no such space.
        """
        with self._authorized(actor, action) as uow:
            return require(uow.admin.update_space(space_id, body["archived"]))

    def update_channel(self, actor: Actor, action: str, channel_id: str, body: Body) -> Body:
        """Change a channel's switches; the operator must be an agent.

        Raises:
            NotFound: no such channel.
            ValidationFailed: the backfill limit is above ``backfill_max``, or the
                operator is unknown or no agent.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
            if body.get("history_backfill_limit", 0) > self.backfill_max:
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

    def move_thread(self, actor: Actor, action: str, thread_id: str, body: Body) -> Body:
        """Move a thread to another channel (main threads cannot move).

        Raises:
            NotFound: no such thread.
            ValidationFailed: the target channel does not exist.
            Conflict: a main thread, or a DM channel as the target.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
            channel_id = body["channel_id"]
            kind = require(repo.lookup("thread", thread_id))
            target_kind = reference(repo, "channel", channel_id, "channel_id")
            if kind == "main":
                raise Conflict("A main thread cannot move.")
            if target_kind == "dm":
                raise Conflict("A thread cannot move into a DM channel.")
            return require(repo.move_thread(thread_id, channel_id))

    def create_run(self, actor: Actor, action: str, body: Body) -> Body:
        """Insert a run after checking every reference.

        Raises:
            ValidationFailed: a reference is unknown or of the wrong kind, a message run
                names no triggering message, or the task key is malformed.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
            _check_run_references(repo, body)
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

    def update_run(self, actor: Actor, action: str, run_id: str, body: Body) -> Body:
        """Change a run's state (a run that starts running starts its session).

        Raises:
            NotFound: no such run.
        """
        with self._authorized(actor, action) as uow:
            return require(uow.admin.update_run(run_id, body["state"]))

    def create_followup(self, actor: Actor, action: str, body: Body) -> Body:
        """Insert a follow-up after checking its run and message.

        Raises:
            ValidationFailed: the run or the message does not exist.
            Conflict: the run already has this follow-up.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
            reference(repo, "run", body["run_id"], "run_id")
            reference(repo, "message", body["message_id"], "message_id")
            row = repo.create_followup(
                body["run_id"], body["message_id"], body.get("state", "pending")
            )
            if row is None:
                raise Conflict("The run already has this follow-up.")
            return row

    def update_followup(self, actor: Actor, action: str, followup_id: str, body: Body) -> Body:
        """Change a follow-up's state.

        Raises:
            NotFound: no such follow-up.
        """
        with self._authorized(actor, action) as uow:
            return require(uow.admin.update_followup(followup_id, body["state"]))

    def set_session(self, actor: Actor, action: str, thread_id: str, body: Body) -> Body:
        """Reset (new, not started) or bind (new, already started) the thread's session.

        Raises:
            NotFound: no such thread.
            Conflict: no agent named and the thread has no operator.
            ValidationFailed: the named agent is unknown or no agent.
        """
        with self._authorized(actor, action) as uow:
            repo = uow.admin
            require(repo.lookup("thread", thread_id))
            agent_id = body.get("agent_id")
            if agent_id is None:
                agent_id = repo.thread_operator(thread_id)
                if agent_id is None:
                    raise Conflict("The thread has no operator to hold the session.")
            elif reference(repo, "principal", agent_id, "agent_id") != "agent":
                raise ValidationFailed(
                    "The session needs an agent.",
                    [{"path": "body/agent_id", "message": "not an agent"}],
                )
            return repo.replace_session(thread_id, agent_id, started=body["mode"] == "bind")

    def delete_message(self, actor: Actor, action: str, message_id: str) -> None:
        """Tombstone a message (content emptied, ``deleted_at`` set); ``NotFound`` when unknown."""
        with self._authorized(actor, action) as uow:
            if not uow.messages.tombstone(message_id):
                raise NotFound()

    def set_provider_policy(self, actor: Actor, action: str, provider_id: str, body: Body) -> Body:
        """Insert or replace a provider's privacy policy; the provider becomes known.

        Raises:
            ValidationFailed: ``provider_id`` is not a provider id (for example a URL).
        """
        with self._authorized(actor, action) as uow:
            return privacy_admin.set_provider_policy(uow.privacy_policies, provider_id, body)

    def set_task_policy(self, actor: Actor, action: str, task_key: str, body: Body) -> Body:
        """Insert or replace a task's explicit privacy ceilings.

        Raises:
            ValidationFailed: ``task_key`` is not a task key.
        """
        with self._authorized(actor, action) as uow:
            return privacy_admin.set_task_policy(uow.privacy_policies, task_key, body)


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


def grant_view(row: Body) -> Body:
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


def _check_run_references(repo: AdminRepository, body: Body) -> None:
    """The references of a new run: thread, agent, session (of that thread), triggering
    message (required for a message run) and requester; 422 naming the field otherwise."""
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


def _task_key(task_key: str | None) -> str | None:
    """A run's task key, checked in full (the schema's pattern admits a trailing newline)."""
    if task_key is not None and not is_task_key(task_key):
        raise ValidationFailed(
            "task_key is not a task key.", [{"path": "body/task_key", "message": "not a task key"}]
        )
    return task_key
