"""What both REST clients share: the pooled client, the retry rule and Problem mapping.

:class:`ClientBase` keeps one pooled ``httpx.Client`` (keep-alive connections), applies
a timeout to every request and maps Problem JSON answers to
:class:`~agent_sdk.errors.ApiProblem` subclasses (a body the contract does not allow is
a :class:`~agent_sdk.errors.TransportFailure`). Which calls are retried is said in
:mod:`agent_sdk.rest`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any, Self, TypeVar

import httpx

from agent_sdk.client import AuthenticatedClient
from agent_sdk.client.types import Response
from agent_sdk.errors import SdkError, ServiceUnavailable, TransportFailure, problem_error

__all__ = ["ClientBase", "as_uuid"]

T = TypeVar("T")

# What the generated parsers raise on a body the contract does not allow (not JSON, a
# missing field, a value outside an enum, a wrong shape).
_UNPARSEABLE = (KeyError, TypeError, ValueError, AttributeError)


def as_uuid(value: str, name: str) -> uuid.UUID:
    """``value`` as a UUID; an SDK error (nothing is sent) when it is not one."""
    try:
        return uuid.UUID(value)
    except (TypeError, ValueError, AttributeError) as exc:
        raise SdkError(f"{name} is not a UUID") from exc


class ClientBase:
    """One token's pooled client: each call sent under the retry rule, answered or raised.

    Subclasses build each operation from the generated client (``self._client``) and
    say whether the API makes it idempotent; only those calls are retried after a 503,
    a timeout or a reset connection.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 0.2,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        """``transport`` replaces the pooled HTTP transport (tests pass a mock)."""
        self._retries = retries
        self._backoff = backoff
        self._client = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=token,
            timeout=httpx.Timeout(timeout),
            # retries=N on the transport repeats only failed connection attempts, before
            # anything was sent: safe for every method.
            httpx_args={"transport": transport or httpx.HTTPTransport(retries=retries)},
            raise_on_unexpected_status=False,
        )

    def close(self) -> None:
        """Close the pooled connections."""
        self._client.get_httpx_client().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _send(self, send: Callable[[], Response[Any]], *, idempotent: bool) -> Response[Any]:
        """A 2xx response; Problem answers raise, retried only when ``idempotent``."""
        attempt = 0
        while True:
            try:
                response = send()
            except (httpx.TimeoutException, httpx.NetworkError) as exc:
                if not idempotent or attempt >= self._retries:
                    name = type(exc).__name__
                    raise TransportFailure(f"no answer from the service ({name})") from exc
            except _UNPARSEABLE as exc:
                # The generated parser rejected the body (of a success or a Problem).
                raise TransportFailure("the service answered an unexpected body") from exc
            else:
                status = int(response.status_code)
                if 200 <= status < 300:
                    return response
                error = problem_error(
                    status, _json(response.content), response.headers.get("retry-after")
                )
                if not (isinstance(error, ServiceUnavailable) and idempotent):
                    raise error
                if attempt >= self._retries:
                    raise error
            attempt += 1
            time.sleep(self._backoff * 2 ** (attempt - 1))

    def _call(self, send: Callable[[], Response[Any]], expected: type[T], *, idempotent: bool) -> T:
        parsed = self._send(send, idempotent=idempotent).parsed
        if not isinstance(parsed, expected):
            raise TransportFailure("the service answered an unexpected body")
        return parsed


def _json(content: bytes) -> Any:
    try:
        return json.loads(content) if content else None
    except ValueError:
        return None
