"""A thin, pooled HTTP transport for the OPA sidecar's data API.

Only :mod:`app.policy` uses it: the policy gateway owns the paths and answer shapes,
this module only moves JSON. It encodes with orjson and sends over urllib3's pool of
keep-alive connections, the one code path whether tracing is on or off (the
OpenTelemetry urllib3 instrumentation makes the spans when it is on; ADR 0021).

Error tree::

    OpaError                 every failure to get a usable answer
    └── OpaUnavailable       unreachable (refused, reset, closed without an answer)
        ├── OpaTimeout       no answer within ``opa.timeout_seconds`` (connecting,
        │                    reading, or waiting for a pooled connection)
        ├── OpaHttpError     an HTTP status other than 200
        ├── OpaUndefined     the document is undefined (e.g. policies not loaded)
        └── OpaMalformed     not JSON, or a defined answer of the wrong shape (the
                             gateway's parsers raise the latter)

The subclasses only name the kind of failure for the metrics
(``agent_authz_opa_round_trip_failures_total``); every caller still catches
:class:`OpaUnavailable`.

Every caller treats :class:`OpaUnavailable` as "fail closed"; the HTTP edge turns it
into 503 (``app/main.py``), and nothing else converts it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson
import urllib3
from urllib3.exceptions import EmptyPoolError, NewConnectionError
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.exceptions import TimeoutError as Urllib3Timeout

__all__ = [
    "Evaluation",
    "OpaClient",
    "OpaError",
    "OpaHttpError",
    "OpaMalformed",
    "OpaTimeout",
    "OpaUnavailable",
    "OpaUndefined",
    "Pool",
    "default_pool",
]

_HEADERS = {"Content-Type": "application/json"}
# OPA adds the revisions of the bundles that answered to a response with this query.
_PROVENANCE = "?provenance=true"
# The header OPA's decision logs copy into request_context (deploy/opa/config.yaml).
CORRELATION_HEADER = "X-Correlation-Id"


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One defined answer of :meth:`OpaClient.evaluate`.

    Attributes:
        result: the ``result`` document.
        provenance: OPA's ``provenance`` member as sent (``None`` when absent): the
            server's version and the revision of every bundle that was active for this
            evaluation. Only :mod:`app.policy` reads its shape.
    """

    result: Any
    provenance: Any


class OpaError(Exception):
    """OPA could not give a usable answer."""


class OpaUnavailable(OpaError):
    """OPA unreachable, slow, erroring or answering undefined: fail closed."""


class OpaTimeout(OpaUnavailable):
    """No answer within the timeout (connect, read, or a pooled connection): fail closed."""


class OpaHttpError(OpaUnavailable):
    """OPA answered with an HTTP status other than 200: fail closed.

    Attributes:
        status: the HTTP status OPA answered with (None when not given).
    """

    def __init__(self, *args: object, status: int | None = None) -> None:
        super().__init__(*args)
        self.status = status


class OpaUndefined(OpaUnavailable):
    """The queried document is undefined: a deny, and for readiness "not loaded"."""


class OpaMalformed(OpaUnavailable):
    """A body that is not JSON, or an answer not of the contract's shape: fail closed."""


class Pool(Protocol):
    """What the client needs of a pool: :class:`urllib3.HTTPConnectionPool`, or a fake
    in tests."""

    def urlopen(
        self,
        method: str,
        url: str,
        *,
        body: bytes,
        headers: dict[str, str],
        timeout: Any,
        retries: Any,
        pool_timeout: Any,
    ) -> Any:
        """Send one request; see :meth:`urllib3.HTTPConnectionPool.urlopen`."""

    def close(self) -> None:
        """Close every pooled connection."""


def default_pool(base_url: str, *, size: int, timeout: float) -> urllib3.HTTPConnectionPool:
    """The pool a client uses unless one is injected: urllib3's, for ``http`` and ``https``.

    It holds at most ``size`` connections and blocks there (a burst waits for a pooled
    connection instead of opening throw-away ones), never retries (a POST is never sent
    twice behind our back), and replaces an idle connection the server closed before
    reusing it (an OPA restart fails no request).
    """
    return urllib3.connection_from_url(
        base_url,
        maxsize=size,
        block=True,
        retries=False,
        timeout=urllib3.Timeout(connect=timeout, read=timeout),
    )


class OpaClient:
    """Evaluate documents under ``/v1/data`` over a keep-alive connection pool.

    Args:
        base_url: OPA's address, e.g. ``http://127.0.0.1:8181``.
        timeout: seconds for one call (connect and read); a slower answer raises
            :class:`OpaUnavailable`.
        pool_size: keep-alive connections held open (threads beyond it wait for one).
        pool: an injected pool (tests); by default :func:`default_pool`.

    Example::

        opa = OpaClient("http://127.0.0.1:8181", timeout=0.5)
        # The policy gateway (app/policy) names the real paths; this is a placeholder.
        answer = opa.query("example/allow", {"user": "alex"})
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        pool_size: int = 16,
        pool: Pool | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._prefix = urlsplit(self.base_url).path + "/v1/data/"
        self._timeout = urllib3.Timeout(connect=timeout, read=timeout)
        self._pool: Pool = pool or default_pool(self.base_url, size=pool_size, timeout=timeout)
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def calls(self) -> int:
        """Round trips made so far (the cost tests and the benchmark read it)."""
        return self._calls

    def query(self, path: str, input: Any) -> Any:
        """Evaluate ``data.<path>`` (slashes separate segments) with ``input``.

        ``input`` is anything orjson encodes (dicts, lists, dataclasses,
        ``orjson.Fragment`` for JSON that is already encoded).

        Returns:
            The ``result`` document.

        Raises:
            OpaUnavailable: transport failure (:class:`OpaTimeout` for a timeout),
                non-200 status (:class:`OpaHttpError`) or a body that is not JSON
                (:class:`OpaMalformed`).
            OpaUndefined: an undefined result (no ``result`` key): an undefined
                decision is a deny, and the caller must not guess a default.
        """
        return self._post(path, "", input, _HEADERS)["result"]

    def evaluate(self, path: str, input: Any, *, correlation_id: str = "") -> Evaluation:
        """Like :meth:`query`, and name the policy revision that answered.

        Asks OPA for its provenance (``?provenance=true``): the revision of every
        active bundle, read in the same storage transaction as the evaluation, so it is
        the revision that decided. ``correlation_id`` (when given) travels as
        ``X-Correlation-Id``; the sidecar's decision log copies it into each entry's
        ``request_context``, beside the bundle revision.

        Raises:
            OpaUnavailable, OpaUndefined: as :meth:`query`.
        """
        headers = (
            _HEADERS if not correlation_id else {**_HEADERS, CORRELATION_HEADER: correlation_id}
        )
        body = self._post(path, _PROVENANCE, input, headers)
        return Evaluation(result=body["result"], provenance=body.get("provenance"))

    def _post(self, path: str, query: str, input: Any, headers: dict[str, str]) -> dict[str, Any]:
        with self._lock:
            self._calls += 1
        try:
            response = self._pool.urlopen(
                "POST",
                self._prefix + path + query,
                body=orjson.dumps({"input": input}),
                headers=headers,
                timeout=self._timeout,
                retries=False,
                pool_timeout=self.timeout,
            )
        except (Urllib3Error, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            # urllib3 derives NewConnectionError (refused) from its connect timeout.
            timed_out = isinstance(
                exc, Urllib3Timeout | EmptyPoolError | TimeoutError
            ) and not isinstance(exc, NewConnectionError)
            error = OpaTimeout if timed_out else OpaUnavailable
            raise error(f"OPA unreachable for data/{path}: {type(reason).__name__}") from exc
        if response.status != 200:
            raise OpaHttpError(
                f"OPA answered {response.status} for data/{path}", status=response.status
            )
        try:
            body = orjson.loads(response.data)
        except orjson.JSONDecodeError as exc:
            raise OpaMalformed(f"OPA answered non-JSON for data/{path}") from exc
        if not isinstance(body, dict) or "result" not in body:
            raise OpaUndefined(f"undefined result for data/{path}")
        return body

    def close(self) -> None:
        """Close pooled connections."""
        self._pool.close()
