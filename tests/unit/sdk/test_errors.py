"""The SDK's Problem exceptions carry the answer's status on every instance (issue 19)."""

from __future__ import annotations

import pytest

from agent_sdk.errors import (
    ApiProblem,
    Conflict,
    Forbidden,
    InternalError,
    NotFound,
    RateLimited,
    ServiceUnavailable,
    ValidationFailed,
    problem_error,
)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (403, Forbidden),
        (404, NotFound),
        (409, Conflict),
        (422, ValidationFailed),
        (429, RateLimited),
        (503, ServiceUnavailable),
        (500, InternalError),
        (502, InternalError),
    ],
)
def test_status_is_the_answers_status_on_every_instance(status: int, kind: type) -> None:
    error = problem_error(status, {"code": "x", "correlation_id": "c-1"}, "3")

    assert isinstance(error, kind)
    assert error.status == status
    # The earlier name stays an alias of the same value.
    assert error.http_status == status


def test_two_instances_do_not_share_a_status() -> None:
    first, second = ApiProblem(418, {}), ApiProblem(451, {})

    assert (first.status, second.status) == (418, 451)
    assert "status" not in vars(ApiProblem)
