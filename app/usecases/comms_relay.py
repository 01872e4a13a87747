"""The runner relay: one agent comms call executed as the bound agent account.

:class:`RelayCommsCall` decides ``runner.comms.relay`` on the runner's own binding,
then runs the call through the messages use cases (:class:`~app.usecases.messages.ListMessages`,
:class:`~app.usecases.messages.PostMessage`) with the agent account as actor, so
authorization, auditing, idempotency and ordering are a person's; their refusals come
back in band with the acting-for mode. Walk-through in ``docs/architecture.md``
(``relayCommsCall``); design in ADR 0011 and ADR 0020.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.domain.comms import ListCall, PostCall, call_error, parse_call
from app.domain.decisions import OWN, ActingFor
from app.errors import ApiError, InternalError, NotFound
from app.opa_client import OpaMalformed
from app.policy.inputs import ActingForInput
from app.usecases.base import Reads
from app.usecases.messages import ListMessages, PostMessage
from app.usecases.runners import acting_for_input, binding_resource, runner_facts
from repositories.principals import Account, RunnerIdentity
from repositories.runners import Binding

__all__ = ["RelayCommsCall", "RelayedOperation"]

log = logging.getLogger("app.relay")

Throttle = Callable[[str, str], None]


@dataclass(frozen=True, slots=True)
class RelayedOperation:
    """The action and rate-limit class a person's call of the same kind is decided as."""

    action: str
    rate_class: str


@dataclass(frozen=True, kw_only=True, eq=False)
class RelayCommsCall(Reads):
    """``runner.comms.relay`` and the relayed call.

    The reader serves the binding lookup and the runner's facts.

    Attributes:
        list_messages: the messages API's listing use case.
        post_message: the messages API's posting use case.
        throttle: the rate limiter's check (raises ``RateLimited``).
        listing: action and rate class of ``listChannelMessages``.
        posting: action and rate class of ``postChannelMessage``.
    """

    list_messages: ListMessages
    post_message: PostMessage
    throttle: Throttle
    listing: RelayedOperation
    posting: RelayedOperation

    def __call__(
        self, runner: RunnerIdentity, action: str, session_id: str, call: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Resolve the session's agent account and run the call as that account.

        Returns ``{"call_id", "post_message": {...}, "acting_for"}``, ``{"call_id",
        "list_messages": {...}, "acting_for"}`` or ``{"call_id", "error": {...},
        "acting_for"}``.

        Raises:
            NotFound: unknown, stopped, stale or another runner's session, or an agent
                that is not active (decided in Rego).
            Forbidden: the caller is not an enrolled runner.
            InternalError: the binding resolves to no account.
            OpaUnavailable: the policy engine cannot answer, or allows a session with a
                bound run without naming the mode (malformed).
        """
        kind = "post_message" if "post_message" in call else "list_messages"
        with self.reader() as uow:
            binding = uow.runners.by_session(runner.id, session_id)
            account = _account(binding, session_id)
            facts = runner_facts(uow, runner, [] if binding is None else [binding.agent_id])
        acting_for = None if binding is None else acting_for_input(binding.run)
        decision = self.authorizer.require(
            runner, action, binding_resource(binding), facts, acting_for=acting_for
        )
        if binding is None or account is None:  # allowed only for a resolvable binding
            raise InternalError()
        mode = _mode(decision.acting_for, acting_for)
        call_id = str(call["call_id"])
        try:
            result = self._run(account, parse_call(call), acting_for)
        except ApiError as error:
            if error.status >= 500:
                raise
            self._log(session_id, kind, mode, error.code)
            return {"call_id": call_id, "error": call_error(error), "acting_for": mode.view()}
        self._log(session_id, kind, mode, "ok")
        return {"call_id": call_id, kind: result, "acting_for": mode.view()}

    @staticmethod
    def _log(session_id: str, kind: str, mode: ActingFor, outcome: str) -> None:
        fields: dict[str, Any] = {
            "session_id": session_id,
            "call": kind,
            "acting_for": mode.mode.value,
            "outcome": outcome,
        }
        if mode.run_id is not None:
            fields["run_id"] = mode.run_id
        log.info("comms relay", extra=fields)

    def _run(
        self, account: Account, call: PostCall | ListCall, acting_for: ActingForInput | None
    ) -> dict[str, Any]:
        agent = account.actor
        channel_id = call.channel_id if call.channel_id is not None else account.home_channel_id
        if channel_id is None:
            # An agent without a home channel: the same answer as an unknown channel.
            raise NotFound()
        if isinstance(call, PostCall):
            self.throttle(self.posting.rate_class, agent.id)
            body: dict[str, Any] = {
                "content_md": call.content_md,
                "client_request_id": call.client_request_id,
            }
            if call.parent_message_id is not None:
                body["parent_message_id"] = call.parent_message_id
            posted = self.post_message(
                agent, self.posting.action, channel_id, body, acting_for=acting_for
            )
            return {"message": posted.message, "replayed": not posted.created}
        self.throttle(self.listing.rate_class, agent.id)
        return self.list_messages(
            agent,
            self.listing.action,
            channel_id,
            limit=call.limit,
            before_message_id=call.before_message_id,
            parent_message_id=None,
            acting_for=acting_for,
        )


def _mode(decided: ActingFor | None, sent: ActingForInput | None) -> ActingFor:
    """The mode the relay decision named; ``own`` when no run is bound to the session.

    A session with a bound run is always answered with the policy's mode: an allow
    that names none is a malformed answer, never a silent ``own``.
    """
    if sent is None:
        return OWN
    if decided is None:
        raise OpaMalformed("the relay decision names no mode for a session with a bound run")
    return decided


def _account(binding: Binding | None, session_id: str) -> Account | None:
    """The binding's account; a binding without one fails closed (500), never falls back."""
    if binding is None:
        return None
    if not binding.agent_id or binding.account is None:
        log.error("binding without account", extra={"session_id": session_id})
        raise InternalError()
    return binding.account
