"""Messages API use cases: list a channel's (or thread's) messages, post a message.

Both are decided in Rego from the effective level (``message.list``,
``message.post``); the use case gathers the facts, asks once, then reads or writes.
The runner relay calls the same objects with the agent account as actor and, when the
session has a bound run, its ``acting_for`` (issue 21): the fact bundle then covers the
run's requester as well, and the same one decision is taken for both principals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.representation import message_view
from app.errors import Conflict, InternalError, NotFound, ValidationFailed
from app.policy import resources
from app.policy.inputs import ActingForInput
from app.usecases.authorization import Authorizer
from app.usecases.base import Reads, Writes
from repositories.messages import MessageRepository, ThreadRow
from repositories.principals import Actor
from repositories.unit_of_work import UnitOfWork

__all__ = ["ListMessages", "PostMessage", "PostResult"]


# Origins of the messages a principal writes through the API, by principal kind.
# This is a labelling of the author's kind, not a permission: Rego never reads it
# from the client, and the classification of trust happens in policies/runcontext.
_ORIGIN_BY_KIND = {"user": "human", "agent": "agent", "app": "app"}


@dataclass(frozen=True, slots=True)
class PostResult:
    """The stored message and whether this call created it (201) or replayed it (200)."""

    message: dict[str, Any]
    created: bool


def _authorize_channel(
    authorizer: Authorizer,
    uow: UnitOfWork,
    actor: Actor,
    action: str,
    channel_id: str,
    acting_for: ActingForInput | None,
) -> None:
    principals = [actor.id]
    if acting_for is not None and "requester" in acting_for:
        principals.append(acting_for["requester"])
    facts = uow.facts.bundle(principals, [channel_id])
    authorizer.require(actor, action, resources.channel(channel_id), facts, acting_for=acting_for)


def _main_thread(messages: MessageRepository, channel_id: str) -> ThreadRow:
    thread = messages.main_thread(channel_id)
    if thread is None:
        raise NotFound()
    return thread


def _listed_thread(
    messages: MessageRepository, channel_id: str, parent_message_id: str | None
) -> ThreadRow | None:
    """The thread to list: main, or the one under the parent message in this channel.

    ``None`` when the parent is a main-thread message of this channel without a thread
    yet. Raises NotFound when the parent lies elsewhere or is unknown.
    """
    if parent_message_id is None:
        return _main_thread(messages, channel_id)
    thread = messages.thread_by_parent(parent_message_id)
    if thread is not None:
        if thread.channel_id != channel_id:
            raise NotFound()
        return thread
    position = messages.seq_of(parent_message_id)
    if position is None or position[0] != _main_thread(messages, channel_id).id:
        raise NotFound()
    return None


def _target_thread(
    messages: MessageRepository, channel_id: str, parent_message_id: str | None
) -> ThreadRow:
    """The thread a post goes into, created under a main-thread parent when absent."""
    if parent_message_id is None:
        return _main_thread(messages, channel_id)
    thread = _listed_thread(messages, channel_id, parent_message_id)
    return thread or messages.ensure_thread(channel_id, parent_message_id)


class ListMessages(Reads):
    """List a channel's messages (``message.list``)."""

    def __call__(
        self,
        actor: Actor,
        action: str,
        channel_id: str,
        *,
        limit: int,
        before_message_id: str | None,
        parent_message_id: str | None,
        acting_for: ActingForInput | None = None,
    ) -> dict[str, Any]:
        """A page of a channel's main thread, or of the thread under ``parent_message_id``.

        Oldest first: the newest ``limit`` messages before ``before_message_id``.
        ``acting_for``: the bound run of a relayed call (decided for its requester too).

        Raises:
            NotFound: the channel or thread is unknown or invisible to the actor, or
                ``before_message_id`` does not lie in the listed thread.
            Forbidden: the policy's reason (``run_required``, ``acting_for_exceeded``).
        """
        with self.reader() as uow:
            _authorize_channel(self.authorizer, uow, actor, action, channel_id, acting_for)
            messages = uow.messages
            thread = _listed_thread(messages, channel_id, parent_message_id)
            if thread is None:
                # A main-thread message nobody has replied to yet: its thread is empty.
                return {"items": [], "has_more": False}
            before_seq = None
            if before_message_id is not None:
                position = messages.seq_of(before_message_id)
                if position is None or position[0] != thread.id:
                    raise NotFound()
                before_seq = position[1]
            page = messages.page(thread, before_seq, limit)
        return {"items": [message_view(m) for m in page.items], "has_more": page.has_older}


class PostMessage(Writes):
    """Post a message (``message.post``), idempotent per (author, client_request_id)."""

    def __call__(
        self,
        actor: Actor,
        action: str,
        channel_id: str,
        body: dict[str, Any],
        *,
        acting_for: ActingForInput | None = None,
    ) -> PostResult:
        """Post to the channel's main thread or into the thread under ``parent_message_id``.

        Idempotent on (author, ``client_request_id``): a repeat returns the message that
        was stored first, read back from the database. ``acting_for``: the bound run
        of a relayed call (decided for its requester too).

        Raises:
            NotFound: channel invisible, the parent message is neither a main-thread
                message of this channel nor the parent of a thread now in it, or
                ``reply_to_message_id`` names no message of this channel.
            Forbidden: visible but the actor lacks write, or the requester of a bound
                run does (reason from the policy).
            Conflict: ``client_request_id`` was used for another channel or thread.
            ValidationFailed: ``reply_to_message_id`` is not in the target thread.
        """
        client_request_id = body.get("client_request_id")
        with self.writer() as uow:
            _authorize_channel(self.authorizer, uow, actor, action, channel_id, acting_for)
            messages = uow.messages
            if client_request_id is not None:
                existing = messages.by_request_id(actor.id, client_request_id)
                if existing is not None:
                    return _replay(messages, existing, channel_id, body)
            parent_message_id = body.get("parent_message_id")
            if parent_message_id is None:
                # The common case in one statement: find and lock the main thread.
                thread = messages.lock_main_thread(channel_id) or _main_thread(messages, channel_id)
            else:
                thread = _target_thread(messages, channel_id, parent_message_id)
                messages.lock_thread(thread.id)
            reply_to = body.get("reply_to_message_id")
            if reply_to is not None:
                target = messages.by_ids([reply_to]).get(reply_to)
                # Only a message of this channel (which the caller was just allowed into)
                # may be told apart from an unknown one; anything else is the same 404.
                if target is None or target.channel_id != channel_id:
                    raise NotFound()
                if target.thread_id != thread.id:
                    raise ValidationFailed(
                        "reply_to_message_id does not lie in the target thread.",
                        [{"path": "body/reply_to_message_id", "message": "not in this thread"}],
                    )
            stored = messages.insert(
                thread_id=thread.id,
                author_id=actor.id,
                origin=_ORIGIN_BY_KIND[actor.kind],
                content_md=body["content_md"],
                reply_to_message_id=reply_to,
                client_request_id=client_request_id,
            )
            if stored is None:
                # A concurrent post with the same client_request_id won the race.
                existing = messages.by_request_id(actor.id, str(client_request_id))
                if existing is None:
                    raise InternalError()
                return _replay(messages, existing, channel_id, body)
            uow.commit()
        return PostResult(message_view(stored), True)


def _replay(
    messages: MessageRepository, message_id: str, channel_id: str, body: dict[str, Any]
) -> PostResult:
    """The first stored message of a repeated post, or 409 when it went elsewhere.

    A key reused for another channel or thread is a client bug, not a retry: answering
    with the old message would tell the client its new post was stored.
    """
    stored = messages.by_ids([message_id])[message_id]
    if stored.channel_id != channel_id or stored.parent_message_id != body.get("parent_message_id"):
        raise Conflict("client_request_id was used for another channel or thread.")
    return PostResult(message_view(stored), False)
