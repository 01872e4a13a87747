"""A thin, pooled client for the OPA sidecar's data API.

Why not opa-python-client: it hides the difference between an undefined document and
a ``false`` one behind raw JSON, retries POSTs only on connection errors, cannot
count round trips for the cost tests and has no per-call timeout. This module is the
whole surface the service needs (see ``docs/adr/0003-thin-opa-client.md``).

Error tree::

    OpaError                 every failure to get a usable answer
    └── OpaUnavailable       unreachable, timed out, HTTP error, bad JSON or undefined
        └── OpaUndefined     the document is undefined (e.g. policies not loaded)

Every caller treats :class:`OpaUnavailable` as "fail closed": the request ends with
503 and never turns into an allow.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import requests
from requests.adapters import HTTPAdapter

__all__ = ["OpaClient", "OpaError", "OpaUnavailable", "OpaUndefined"]


class OpaError(Exception):
    """OPA could not give a usable answer."""


class OpaUnavailable(OpaError):
    """OPA unreachable, slow, erroring or answering undefined: fail closed."""


class OpaUndefined(OpaUnavailable):
    """The queried document is undefined: a deny, and for readiness "not loaded"."""


class OpaClient:
    """Evaluate documents under ``/v1/data`` over a keep-alive connection pool.

    Args:
        base_url: OPA's address, e.g. ``http://127.0.0.1:8181``.
        timeout: seconds for one call (connect and read); a slower answer raises
            :class:`OpaUnavailable`.
        pool_size: keep-alive connections held open.
        session: an injected :class:`requests.Session` (tests, benchmarks).

    Example::

        opa = OpaClient("http://127.0.0.1:8181", timeout=0.5)
        decision = opa.query("authz/decision", {"action": "health.ready"})
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        pool_size: int = 16,
        session: requests.Session | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._session = session or requests.Session()
        # Proxy settings never apply to a loopback sidecar, and reading them costs an
        # environment scan per call.
        self._session.trust_env = False
        adapter = HTTPAdapter(pool_connections=1, pool_maxsize=pool_size, max_retries=0)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def calls(self) -> int:
        """Round trips made so far (the cost tests and the benchmark read it)."""
        return self._calls

    def query(self, path: str, input: dict[str, Any]) -> Any:
        """Evaluate ``data.<path>`` (slashes separate segments) with ``input``.

        Returns:
            The ``result`` document.

        Raises:
            OpaUnavailable: transport failure, timeout, non-200 status, a body that is
                not JSON, or an undefined result (no ``result`` key): an undefined
                decision is a deny, and the caller must not guess a default.
        """
        with self._lock:
            self._calls += 1
        url = f"{self.base_url}/v1/data/{path}"
        try:
            response = self._session.post(
                url,
                data=json.dumps({"input": input}, separators=(",", ":")),
                headers={"Content-Type": "application/json"},
                timeout=self.timeout,
            )
        except requests.RequestException as exc:
            raise OpaUnavailable(f"OPA unreachable for data/{path}: {type(exc).__name__}") from exc
        if response.status_code != 200:
            raise OpaUnavailable(f"OPA answered {response.status_code} for data/{path}")
        try:
            body = response.json()
        except ValueError as exc:
            raise OpaUnavailable(f"OPA answered non-JSON for data/{path}") from exc
        if not isinstance(body, dict) or "result" not in body:
            raise OpaUndefined(f"undefined result for data/{path}")
        return body["result"]

    def close(self) -> None:
        """Close pooled connections."""
        self._session.close()
