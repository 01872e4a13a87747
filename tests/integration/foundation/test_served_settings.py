"""The HTTP layer reads its limits from the app serving the request.

The services of an app reach a request through its ASGI scope (``app/http/app_state.py``),
so two apps in one process each answer with their own configuration: the body and
parameter validators and the error handler bound a 422 by the serving app's
``http.max_validation_errors``, and the JSON parser by its ``http.max_json_depth``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.foundation.conftest import messages_path

pytestmark = pytest.mark.integration

# Five members of the wrong type: five violations.
_WRONG_TYPES = {
    "archived": "yes",
    "history_backfill_limit": "ten",
    "operator_agent_id": 5,
    "allow_mentioned_agents": "no",
    "auto_thread": "no",
}
_UNKNOWN_QUERY = {f"unknown_{n}": str(n) for n in range(5)}
_DEEP = {"content_md": "Hello", "extra": [[[[1]]]]}


def _listed(response: Any) -> tuple[int, int]:
    body = response.json()
    return len(body.get("errors", [])), body.get("errors_omitted", 0)


def test_two_apps_in_one_process_each_answer_with_their_own_limits(
    make_service: Any, ids: dict[str, str]
) -> None:
    default = make_service().client("tok-sam")
    limited = make_service(**{"http.max_validation_errors": 2, "http.max_json_depth": 3}).client(
        "tok-sam"
    )
    path = messages_path(ids["support/general"])
    channel = f"/api/v1/admin/channels/{ids['support/general']}"

    for method, target, options in (
        ("PATCH", channel, {"json": _WRONG_TYPES}),
        ("GET", path, {"params": _UNKNOWN_QUERY}),
    ):
        wide = default.request(method, target, **options)
        narrow = limited.request(method, target, **options)
        assert (wide.status_code, narrow.status_code) == (422, 422)
        assert _listed(wide) == (5, 0)
        assert _listed(narrow) == (2, 3)

    assert default.post(path, json=_DEEP).status_code == 422  # the unknown field
    deep = limited.post(path, json=_DEEP)
    assert deep.status_code == 400
    assert deep.json()["code"] == "invalid_request"
