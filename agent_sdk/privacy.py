"""Guarded dispatch: every provider attempt is recorded with the service before the call.

:class:`GuardedDispatcher` is the one helper adapters call providers through: it
records the attempt (:meth:`~agent_sdk.rest.PrincipalClient.record_attempt`), which
tightens the run's ceilings under the run-row lock, and only then calls the chat or
tool adapter; a refusal or no answer raises :class:`AttemptRefused`. Calls of a run
bypass the response cache, and a dispatcher without a recorder refuses them
(:class:`GuardMissing`). Rules: decisions.md S4-1, S4-5; ADR 0013.

Example::

    dispatcher = build_dispatcher("https://authz.example.com", token)
    reply = dispatcher.chat(openai_chat, request, provider_id="openai-eu", run_id=run_id)
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable
from typing import Any, Protocol, Required, TypeAlias, TypedDict, TypeVar, Unpack

# What an attempt calls (chat or tool): the spec's enum, re-exported from the client.
from agent_sdk.client.models import AttemptKind
from agent_sdk.rest import PrincipalClient

__all__ = [
    "AttemptCall",
    "AttemptKind",
    "AttemptRecorder",
    "AttemptRefused",
    "GuardMissing",
    "GuardedDispatcher",
    "MemoryResponseCache",
    "NoProviderLeft",
    "ResponseCache",
    "build_dispatcher",
]

Request = TypeVar("Request")
Response = TypeVar("Response")
# A chat or tool adapter: called with the provider id and the request.
Adapter: TypeAlias = Callable[[str, Request], Response]


class AttemptCall(TypedDict, total=False):
    """The keywords :meth:`GuardedDispatcher.chat` and ``tool`` take: those of
    :meth:`GuardedDispatcher.dispatch` but ``kind`` (one list, so the three cannot
    drift apart)."""

    provider_id: Required[str]
    run_id: str | None
    attempt_id: str | None
    idempotency_key: str | None


class AttemptRecorder(Protocol):
    """Records an attempt with the service (``PrincipalClient.record_attempt``)."""

    def record_attempt(
        self, run_id: str, *, attempt_id: str, provider_id: str, kind: str
    ) -> object:
        """Return on "go"; raise on any refusal or when no answer arrives."""


class ResponseCache(Protocol):
    """An idempotency cache of provider responses (for calls without a run only)."""

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, response)`` on a hit, ``(False, None)`` otherwise."""

    def put(self, key: str, response: Any) -> None:
        """Remember ``response`` under ``key``."""


class MemoryResponseCache:
    """A process-local :class:`ResponseCache` (thread-safe, unbounded: for tests and tools)."""

    def __init__(self) -> None:
        self._items: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[bool, Any]:
        """``(True, response)`` on a hit, ``(False, None)`` otherwise."""
        with self._lock:
            if key in self._items:
                return True, self._items[key]
            return False, None

    def put(self, key: str, response: Any) -> None:
        """Remember ``response`` under ``key``."""
        with self._lock:
            self._items[key] = response


class AttemptRefused(Exception):
    """The service did not answer "go" for this attempt: the provider was not called.

    The cause (for example :class:`agent_sdk.errors.Forbidden` with reason
    ``unknown_provider``, or :class:`agent_sdk.errors.TransportFailure` when no answer
    arrived) is chained as ``__cause__``.
    """

    def __init__(self, provider_id: str, kind: str) -> None:
        super().__init__(f"attempt refused: {kind} call to {provider_id}")
        self.provider_id = provider_id
        self.kind = kind


class GuardMissing(AttemptRefused):
    """A run-carrying call on a dispatcher without a recorder: refused, never called."""


class NoProviderLeft(Exception):
    """Every provider of a fallback chain failed (the last failure is the cause)."""


def _new_attempt_id() -> str:
    return uuid.uuid4().hex


class GuardedDispatcher:
    """Calls chat and tool adapters; run-carrying calls pass the privacy guard first.

    Args:
        recorder: records attempts with the service; ``None`` refuses every call that
            carries a run (calls without a run still work).
        cache: an idempotency cache for calls without a run; run calls bypass it.
        new_attempt_id: makes an attempt id when the caller gives none.
    """

    def __init__(
        self,
        recorder: AttemptRecorder | None = None,
        *,
        cache: ResponseCache | None = None,
        new_attempt_id: Callable[[], str] = _new_attempt_id,
    ) -> None:
        self.recorder = recorder
        self._cache = cache
        self._new_attempt_id = new_attempt_id

    def dispatch(
        self,
        adapter: Adapter[Request, Response],
        request: Request,
        *,
        kind: AttemptKind,
        provider_id: str,
        run_id: str | None = None,
        attempt_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> Response:
        """Call ``adapter(provider_id, request)``; for a run, record the attempt first.

        A retry of the same attempt should pass the same ``attempt_id``: the service
        runs the guard again and does not append the provider twice.

        Raises:
            GuardMissing: ``run_id`` is given but the dispatcher has no recorder.
            AttemptRefused: the service refused the attempt or did not answer.
            Exception: whatever the adapter raises (the attempt stays recorded).
        """
        if run_id is None:
            return self._uncached_or_replayed(adapter, request, provider_id, idempotency_key)
        if self.recorder is None:
            raise GuardMissing(provider_id, kind.value)
        try:
            self.recorder.record_attempt(
                run_id,
                attempt_id=attempt_id or self._new_attempt_id(),
                provider_id=provider_id,
                kind=kind.value,
            )
        except Exception as exc:
            raise AttemptRefused(provider_id, kind.value) from exc
        # Run calls are never served from, nor stored in, the response cache.
        return adapter(provider_id, request)

    def _uncached_or_replayed(
        self,
        adapter: Adapter[Request, Response],
        request: Request,
        provider_id: str,
        idempotency_key: str | None,
    ) -> Response:
        if self._cache is None or idempotency_key is None:
            return adapter(provider_id, request)
        hit, cached = self._cache.get(idempotency_key)
        if hit:
            replayed: Response = cached
            return replayed
        response = adapter(provider_id, request)
        self._cache.put(idempotency_key, response)
        return response

    def chat(
        self, adapter: Adapter[Request, Response], request: Request, **call: Unpack[AttemptCall]
    ) -> Response:
        """:meth:`dispatch` of a chat attempt."""
        return self.dispatch(adapter, request, kind=AttemptKind.CHAT, **call)

    def tool(
        self, adapter: Adapter[Request, Response], request: Request, **call: Unpack[AttemptCall]
    ) -> Response:
        """:meth:`dispatch` of a tool attempt."""
        return self.dispatch(adapter, request, kind=AttemptKind.TOOL, **call)

    def with_fallback(
        self,
        adapter: Adapter[Request, Response],
        request: Request,
        *,
        kind: AttemptKind,
        providers: Iterable[str],
        run_id: str | None = None,
    ) -> Response:
        """Try ``providers`` in order until one answers; each attempt is guarded.

        ``providers`` is consumed lazily, so routing that changes after the list was
        made (criteria selection) still records the provider actually called. A
        provider that fails is followed by the next one, each with its own recorded
        attempt; a refusal by the service stops the chain.

        Raises:
            AttemptRefused: the service refused an attempt (no provider was called
                for it).
            NoProviderLeft: every provider failed, or there was none.
        """
        last: Exception | None = None
        for provider_id in providers:
            try:
                return self.dispatch(
                    adapter, request, kind=kind, provider_id=provider_id, run_id=run_id
                )
            except AttemptRefused:
                raise
            except Exception as exc:
                last = exc
        raise NoProviderLeft("every provider failed") from last


def build_dispatcher(
    base_url: str, token: str, *, cache: ResponseCache | None = None
) -> GuardedDispatcher:
    """The production dispatcher: the privacy guard is always wired.

    Adapters get their dispatcher here, so no code path reaches a provider without the
    recorder; a dispatcher without one can only serve calls that carry no run. The
    recorder is a :class:`~agent_sdk.rest.PrincipalClient` with the agent's ``token``
    (pooled connections, a timeout per request, an attempt retried with its own
    ``attempt_id`` only).
    """
    return GuardedDispatcher(PrincipalClient(base_url, token), cache=cache)
