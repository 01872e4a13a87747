"""A small typed HTTP client for the run privacy endpoints of the service.

Every method sends one request with the agent's bearer token and returns the parsed
answer, or raises :class:`ServiceRefused` for any answer other than the expected
success (including transport errors): the caller must treat that as "no". Responses
are never cached or replayed here; the service marks them ``Cache-Control: no-store``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests

__all__ = ["Ceiling", "Ceilings", "PrivacyState", "RunsClient", "ServiceRefused", "StepStored"]


class ServiceRefused(Exception):
    """The service refused or could not be reached; nothing may proceed on it.

    Attributes:
        status: The HTTP status, or 0 when no answer arrived.
        code: The Problem ``code`` (``not_found``, ``forbidden``, ...), or ``""``.
        reason: The Problem ``reason`` on 403 (for example ``unknown_provider``), or ``""``.
    """

    def __init__(self, status: int, code: str = "", reason: str = "") -> None:
        super().__init__(f"refused: {status} {code} {reason}".strip())
        self.status = status
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Ceiling:
    """A run ceiling: a level of the scale and whether a policy set it explicitly."""

    level: str
    explicit: bool


@dataclass(frozen=True, slots=True)
class Ceilings:
    """The two ceilings of a run."""

    audit_content: Ceiling
    background_answer: Ceiling


@dataclass(frozen=True, slots=True)
class StepStored:
    """A stored step: its ``seq`` and the parts the ceiling kept."""

    seq: int
    kept: tuple[str, ...]
    ceilings: Ceilings


@dataclass(frozen=True, slots=True)
class PrivacyState:
    """``getRunPrivacy``: ceilings (``None`` before reconciliation), attempts, ETag."""

    ceilings: Ceilings | None
    attempted_provider_ids: tuple[str, ...]
    etag: str


def _ceilings(value: Any) -> Ceilings:
    return Ceilings(
        audit_content=Ceiling(**value["audit_content"]),
        background_answer=Ceiling(**value["background_answer"]),
    )


class RunsClient:
    """The run privacy endpoints, authenticated as one agent.

    Args:
        base_url: The service, e.g. ``https://authz.example.com``.
        token: The agent's bearer token.
        timeout: Seconds per request.
        session: A ``requests.Session`` to reuse (tests, connection pooling).
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 10.0,
        session: requests.Session | None = None,
    ) -> None:
        self._base = base_url.rstrip("/") + "/api/v1/runs/"
        self._headers = {"Authorization": f"Bearer {token}"}
        self._timeout = timeout
        self._session = session or requests.Session()

    def _call(
        self,
        method: str,
        run_id: str,
        path: str,
        expected: int,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> requests.Response:
        try:
            response = self._session.request(
                method,
                f"{self._base}{run_id}/{path}",
                json=body,
                headers={**self._headers, **(headers or {})},
                timeout=self._timeout,
            )
        except requests.RequestException:
            raise ServiceRefused(0) from None
        if response.status_code != expected:
            problem: dict[str, Any] = {}
            if "json" in response.headers.get("content-type", ""):
                try:
                    problem = response.json()
                except ValueError:
                    problem = {}
            raise ServiceRefused(
                response.status_code, str(problem.get("code", "")), str(problem.get("reason", ""))
            )
        return response

    def record_attempt(
        self, run_id: str, *, attempt_id: str, provider_id: str, kind: str
    ) -> Ceilings:
        """Record a provider attempt; returns the run's committed ceilings ("go").

        Raises:
            ServiceRefused: any refusal (unknown provider, unreadable policy, lock
                timeout, not the run's agent, ...) or no answer.
        """
        body = {"attempt_id": attempt_id, "provider_id": provider_id, "kind": kind}
        answer = self._call("POST", run_id, "provider-attempts", 200, body).json()
        if answer.get("outcome") != "go":
            raise ServiceRefused(200, "unexpected_outcome")
        return _ceilings(answer["ceilings"])

    def append_step(
        self,
        run_id: str,
        *,
        kind: str,
        metadata: dict[str, Any] | None = None,
        content: str | None = None,
    ) -> StepStored:
        """Store the audit copy of a step; the service keeps only what the ceiling allows."""
        body: dict[str, Any] = {"kind": kind}
        if metadata is not None:
            body["metadata"] = metadata
        if content is not None:
            body["content"] = content
        answer = self._call("POST", run_id, "steps", 201, body).json()
        return StepStored(
            seq=int(answer["seq"]),
            kept=tuple(answer["kept"]),
            ceilings=_ceilings(answer["ceilings"]),
        )

    def put_answer(self, run_id: str, answer_md: str) -> bool:
        """Store the background answer; ``False`` when the ceiling prohibits it."""
        answer = self._call("PUT", run_id, "answer", 200, {"answer_md": answer_md}).json()
        return bool(answer["stored"])

    def privacy(self, run_id: str) -> PrivacyState:
        """The run's ceilings, attempted provider ids and envelope ETag."""
        response = self._call("GET", run_id, "privacy", 200)
        answer = response.json()
        ceilings = answer.get("ceilings")
        return PrivacyState(
            ceilings=None if ceilings is None else _ceilings(ceilings),
            attempted_provider_ids=tuple(answer["attempted_provider_ids"]),
            etag=response.headers["ETag"],
        )

    def rotate_envelope(self, run_id: str, *, etag: str, sealed_envelope: str) -> str:
        """Replace the sealed envelope if ``etag`` is current; returns the new ETag.

        Raises:
            ServiceRefused: 409 when a scrub or state change moved the version on.
        """
        response = self._call(
            "POST",
            run_id,
            "envelope:rotate",
            200,
            {"sealed_envelope": sealed_envelope},
            {"If-Match": etag},
        )
        return response.headers["ETag"]
