"""Messages API use cases: list a channel's (or thread's) messages, post a message.

Both are decided in Rego from the effective level (``message.list``,
``message.post``); the use case gathers the facts, asks once, then reads or writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.representation import message_view
from app.errors import NotFound, ValidationFailed
from app.services import Services
from app.usecases.authorization import authorize
from repositories.messages import MessageRepository, ThreadRow
from repositories.principals import Actor
from repositories.unit_of_work import UnitOfWork

__all__ = ["PostResult", "list_messages", "post_message"]

# Origins of the messages a principal writes through the API, by principal kind.
# This is a labelling of the author's kind, not a permission: Rego never reads it
# from the client, and the classification of trust happens in policies/runcontext.
_ORIGIN_BY_KIND = {"user": "human", "agent": "agent", "app": "app"}


@dataclass(frozen=True, slots=True)
class PostResult:
    """The stored message and whether this call created it (201) or replayed it (200)."""

    message: dict[str, Any]
    created: bool


def _authorize_channel(services: Services, uow: UnitOfWork, actor: Actor, action: str,
                       channel_id: str) -> None:
    facts = uow.facts.bundle([actor.id], [channel_id])
    authorize(opa=services.opa, engine=services.engine, actor=actor, action=action,
              resource={"kind": "channel", "id": channel_id}, facts=facts,
              deny_window_seconds=services.settings.integer("audit.deny_aggregate_window"))


def _thread(messages: MessageRepository, channel_id: str,
            parent_message_id: str | None) -> ThreadRow:
    if parent_message_id is None:
        thread = messages.main_thread(channel_id)
    else:
        thread = messages.thread_by_parent(parent_message_id)
    if thread is None or thread.channel_id != channel_id:
        raise NotFound()
    return thread


def list_messages(
    services: Services,
    actor: Actor,
    action: str,
    channel_id: str,
    *,
    limit: int,
    before_message_id: str | None,
    parent_message_id: str | None,
) -> dict[str, Any]:
    """A page of a channel's main thread, or of the thread under ``parent_message_id``.

    Oldest first: the newest ``limit`` messages before ``before_message_id``.

    Raises:
        NotFound: the channel or thread is unknown or invisible to the actor.
        ValidationFailed: ``before_message_id`` does not lie in the listed thread.
    """
    with services.uow() as uow:
        _authorize_channel(services, uow, actor, action, channel_id)
        messages = MessageRepository(uow.conn)
        thread = _thread(messages, channel_id, parent_message_id)
        before_seq = None
        if before_message_id is not None:
            position = messages.seq_of(before_message_id)
            if position is None or position[0] != thread.id:
                raise ValidationFailed(
                    "before_message_id does not lie in this thread.",
                    [{"path": "query/before_message_id", "message": "not in this thread"}],
                )
            before_seq = position[1]
        page = messages.page(thread.id, before_seq, limit)
    return {"items": [message_view(m) for m in page.items], "has_more": page.has_older}


def post_message(
    services: Services,
    actor: Actor,
    action: str,
    channel_id: str,
    body: dict[str, Any],
) -> PostResult:
    """Post to the channel's main thread or into the thread under ``parent_message_id``.

    Idempotent on (author, ``client_request_id``): a repeat returns the message that
    was stored first, read back from the database.

    Raises:
        NotFound: channel invisible, or the parent message is not a main-thread
            message of this channel.
        Forbidden: visible but the actor lacks write (reason from the policy).
        ValidationFailed: ``reply_to_message_id`` is not in the target thread.
    """
    client_request_id = body.get("client_request_id")
    with services.uow() as uow:
        _authorize_channel(services, uow, actor, action, channel_id)
        messages = MessageRepository(uow.conn)
        if client_request_id is not None:
            existing = messages.by_request_id(actor.id, client_request_id)
            if existing is not None:
                return PostResult(message_view(messages.by_ids([existing])[existing]), False)
        parent_id = body.get("parent_message_id")
        if parent_id is None:
            thread = _thread(messages, channel_id, None)
        else:
            main = _thread(messages, channel_id, None)
            position = messages.seq_of(parent_id)
            if position is None or position[0] != main.id:
                raise NotFound()
            thread = messages.ensure_thread(channel_id, parent_id)
            if thread.channel_id != channel_id:
                raise NotFound()
        messages.lock_thread(thread.id)
        reply_to = body.get("reply_to_message_id")
        if reply_to is not None:
            position = messages.seq_of(reply_to)
            if position is None or position[0] != thread.id:
                raise ValidationFailed(
                    "reply_to_message_id does not lie in the target thread.",
                    [{"path": "body/reply_to_message_id", "message": "not in this thread"}],
                )
        message_id = messages.insert(
            thread_id=thread.id, author_id=actor.id, origin=_ORIGIN_BY_KIND[actor.kind],
            content_md=body["content_md"], reply_to_message_id=reply_to,
            client_request_id=client_request_id,
        )
        created = message_id is not None
        if message_id is None:
            # A concurrent post with the same client_request_id won the race.
            message_id = messages.by_request_id(actor.id, str(client_request_id))
            assert message_id is not None
        stored = messages.by_ids([message_id])[message_id]
        uow.commit()
    return PostResult(message_view(stored), created)
