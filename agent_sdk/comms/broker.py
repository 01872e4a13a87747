"""The agent-side comms broker: a thin adapter over the runner's transport seam.

The broker holds no token, server address or account: it hands each call to the
:class:`CommsTransport` the runner provides (the container's socket, or a fake in
tests), and the runner relays it with its own token
(:class:`agent_sdk.relay.SessionRelay`). It adds only the broker-scoped idempotency
key of posts, ``<nonce>:<tool_call_id>`` (decisions.md C7).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any, Final, Protocol

__all__ = ["KEY_MAX", "CommsBroker", "CommsTransport"]

KEY_MAX: Final = 128
_KEY_CHARS: Final = re.compile(r"[A-Za-z0-9._:-]+", re.ASCII)


class CommsTransport(Protocol):
    """The seam the runner provides: carry one comms call, return its result (JSON)."""

    def comms(self, call: dict[str, Any]) -> dict[str, Any]:
        """Send ``{"call_id", "post_message" | "list_messages": {...}}``; the relay's answer."""


def _fits(value: str, room: int) -> bool:
    return 0 < len(value) <= room and _KEY_CHARS.fullmatch(value) is not None


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


class CommsBroker:
    """Delegates calls to the transport; mints the per-broker idempotency nonce.

    Args:
        transport: the runner's seam.
        nonce: for tests only; by default a fresh random nonce per broker.
    """

    def __init__(self, transport: CommsTransport, *, nonce: str | None = None) -> None:
        self._transport = transport
        self.nonce = nonce if nonce is not None else uuid.uuid4().hex
        if not _fits(self.nonce, 32):
            raise ValueError("the nonce must be 1 to 32 of A-Za-z0-9._:-")

    def idempotency_key(self, tool_call_id: str) -> str:
        """``<nonce>:<tool_call_id>``; a tool-call id that does not fit the key's pattern
        or length is replaced by its SHA-256 (hex), so every key satisfies the contract."""
        room = KEY_MAX - len(self.nonce) - 1
        part = tool_call_id if _fits(tool_call_id, room) else _digest(tool_call_id)
        return f"{self.nonce}:{part}"

    def call_id(self, tool_call_id: str) -> str:
        """The relay's ``call_id``: the tool-call id, or its hash when it does not fit."""
        return tool_call_id if _fits(tool_call_id, KEY_MAX) else _digest(tool_call_id)

    def call(self, call: dict[str, Any]) -> dict[str, Any]:
        """Hand one call to the transport and return its result unchanged."""
        return self._transport.comms(call)
