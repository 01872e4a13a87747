"""Every error the SDK raises, under one root, each with a one-line bounded message.

Tree::

    SdkError
    ├── ApiProblem            a Problem JSON answer of the service (HTTP status >= 400)
    │   ├── Unauthenticated   401
    │   ├── InvalidRequest    400
    │   ├── NotFound          404 (unknown and invisible look the same)
    │   ├── Forbidden         403 (``reason`` from the policy)
    │   ├── Conflict          409
    │   ├── ValidationFailed  422
    │   ├── RateLimited       429 (``retry_after`` seconds)
    │   ├── ServiceUnavailable 503 (the service failed closed)
    │   └── InternalError     500
    ├── TransportFailure      no answer (connection refused, timeout)
    ├── CommsToolError        a comms tool call failed (bad parameter, in-band error)
    │   └── ToolParameterError   a parameter breaks the tool's rules (nothing was sent)
    └── NoAuthorizedRequest   the run's triggering message does not carry trust trigger

Messages are single lines of at most :data:`MESSAGE_MAX` characters: they may reach a
model as a tool error, and a multi-line or unbounded text from elsewhere could carry
instructions or forge structure there.
"""

from __future__ import annotations

from typing import Any, Final

# The reasons a ``Forbidden`` may carry: the wire contract's closed list, in a module
# that imports nothing (agent_sdk.contracts would load pydantic).
from agent_sdk.policy_reasons import POLICY_REASONS

__all__ = [
    "MESSAGE_MAX",
    "POLICY_REASONS",
    "ApiProblem",
    "CommsToolError",
    "Conflict",
    "Forbidden",
    "InternalError",
    "InvalidRequest",
    "NoAuthorizedRequest",
    "NotFound",
    "RateLimited",
    "SdkError",
    "ServiceUnavailable",
    "ToolParameterError",
    "TransportFailure",
    "Unauthenticated",
    "ValidationFailed",
    "one_line",
    "problem_error",
]

MESSAGE_MAX: Final = 200


def one_line(text: str, limit: int = MESSAGE_MAX) -> str:
    """``text`` with every run of whitespace (newlines too) collapsed, cut to ``limit``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class SdkError(Exception):
    """Root of every SDK error; ``str()`` is one bounded line."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


class ApiProblem(SdkError):
    """A Problem JSON answer: status, closed code, policy reason, correlation id.

    Attributes:
        status: the HTTP status of the answer (``http_status`` is an alias kept for
            callers of earlier versions).
        code: the closed Problem code (``forbidden``, ``not_found``, ...).
        reason: the policy's reason code on 403, else ``None``.
        correlation_id: the answer's correlation id, to quote in a report.
        problem: the whole Problem body.
    """

    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        self.status = status
        self.code = str(problem.get("code", "internal_error"))
        self.reason: str | None = problem.get("reason")
        self.correlation_id: str | None = problem.get("correlation_id")
        self.problem = problem
        detail = problem.get("detail") or problem.get("title") or "error"
        suffix = f" ({self.reason})" if self.reason else ""
        super().__init__(f"{status} {self.code}{suffix}: {detail}")

    @property
    def http_status(self) -> int:
        """The HTTP status of the answer: the same as :attr:`status` (an older name)."""
        return self.status


class Unauthenticated(ApiProblem):
    """401: the token is missing, unknown, revoked, or of the wrong kind."""


class InvalidRequest(ApiProblem):
    """400: the request could not be parsed."""


class NotFound(ApiProblem):
    """404: unknown or invisible (the service answers both the same)."""


class Forbidden(ApiProblem):
    """403: visible but not allowed; ``reason`` names the policy's reason."""


class Conflict(ApiProblem):
    """409: the request collides with the current state."""


class ValidationFailed(ApiProblem):
    """422: the request breaks the schema or a rule."""


class RateLimited(ApiProblem):
    """429: too many requests; wait ``retry_after`` seconds."""

    def __init__(self, status: int, problem: dict[str, Any], retry_after: int | None) -> None:
        super().__init__(status, problem)
        self.retry_after = retry_after


class ServiceUnavailable(ApiProblem):
    """503: PostgreSQL or OPA could not answer; the service failed closed."""


class InternalError(ApiProblem):
    """500 or any other unexpected status."""


class TransportFailure(SdkError):
    """No HTTP answer at all (connection refused, reset, timed out)."""


class CommsToolError(SdkError):
    """A comms tool call failed; the message is the tool error the model sees."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class ToolParameterError(CommsToolError):
    """A tool parameter breaks the tool's rules; nothing was sent."""


class NoAuthorizedRequest(SdkError):
    """The run's triggering message is not ``trigger``: there is no request to act on.

    Decision D9: a person who no longer holds trigger is ``unverified``; the adapter
    ends the run without acting on the message.
    """


_BY_STATUS: dict[int, type[ApiProblem]] = {
    400: InvalidRequest,
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: ValidationFailed,
    503: ServiceUnavailable,
}


def problem_error(status: int, body: Any, retry_after: str | None = None) -> ApiProblem:
    """The exception for a Problem answer (any non-object body counts as empty)."""
    problem = body if isinstance(body, dict) else {}
    if status == 429:
        seconds = int(retry_after) if retry_after and retry_after.isdigit() else None
        return RateLimited(status, problem, seconds)
    return _BY_STATUS.get(status, InternalError)(status, problem)
