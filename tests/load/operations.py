"""The hot operations beside getRunContext, for ``make bench`` (issue 22).

Each :class:`Operation` is one HTTP request a client of the service really sends:
listing messages (a first page and a deep ``before_message_id`` page of the
100,000-message thread), posting (new and replayed), the runner relay's post and list,
the session-context resolution, a provider attempt and a denied read (403 and 404).
:func:`add_to_world` adds what they need to the benchmark world; :func:`operations`
builds them from the loaded world's ids.

Another group of cases plugs in with :func:`register` (a function from the world's
ids to more operations), so a new case is a module of its own, not an edit of
``bench.py``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from app.main import Application

__all__ = [
    "DENIED",
    "Operation",
    "add_to_world",
    "count_costs",
    "operation_call",
    "operations",
    "register",
]

LARGE = 100_000
DESK = "support/desk"
RUNNER_TOKEN = "tok-runner-bench"
SESSION_ID = "sess-bench"
REPLAYED_KEY = "bench-replayed"
# Operations whose answer is a denial: their cost is a target of its own.
DENIED = ("denied read 403", "denied read 404")
# A run records at most 1,000 provider attempts (409 beyond), and the benchmark sends
# about 1,400: they go to the next run after ATTEMPTS_PER_RUN.
ATTEMPT_RUNS = 10
ATTEMPTS_PER_RUN = 900


@dataclass(frozen=True)
class Operation:
    """One request of a hot operation.

    Attributes:
        name: the case's name in the report.
        method: the HTTP method.
        path: the path under the base URL.
        token: the bearer token.
        expect: the status every answer must have.
        body: makes the JSON body of each request (``None``: no body); called once per
            request, so a post can use a fresh ``client_request_id`` each time.
        params: query parameters.
        check: checks the decoded answer (raises ``AssertionError``), when given.
        path_of: makes the path of each request instead of ``path``, when given (the
            provider attempts spread over several runs: a run records at most 1,000).
    """

    name: str
    method: str
    path: str
    token: str
    expect: int
    body: Callable[[], Any] | None = None
    params: dict[str, Any] | None = None
    check: Callable[[Any], None] | None = None
    path_of: Callable[[], str] | None = None


_EXTRA: list[Callable[[dict[str, str]], list[Operation]]] = []


def register(factory: Callable[[dict[str, str]], list[Operation]]) -> None:
    """Add a group of operations (built from the loaded world's ids) to the benchmark."""
    _EXTRA.append(factory)


def add_to_world(world: dict[str, Any]) -> None:
    """What the operations need: a channel the agent lives in (``support/desk``, 60
    messages), a runner with a bound workspace of ``lotse``, an agent ``texter`` with
    no business in ``support``, provider policies and a run of ``lotse`` for provider
    attempts, a key on the 101st message of the 100,000 thread (the deep page's
    anchor) and one post with a known ``client_request_id`` (the replayed post)."""
    for space in world["spaces"]:
        if space["name"] == "support":
            space["channels"].append(
                {
                    "name": "desk",
                    "members": ["lotse"],
                    "messages": [
                        {"author": ("alex", "sam", "lotse")[i % 3], "content": f"desk note {i}"}
                        for i in range(60)
                    ]
                    + [
                        {
                            "author": "alex",
                            "content": "a post that is replayed",
                            "client_request_id": REPLAYED_KEY,
                        }
                    ],
                }
            )
    for agent in world["agents"]:
        if agent["handle"] == "lotse":
            agent["home_channel"] = DESK
    world["agents"].append(
        {"handle": "texter", "display_name": "Texter", "owner": "robin", "token": "tok-texter"}
    )
    world["runners"] = [
        {
            "handle": "runner-bench",
            "token": RUNNER_TOKEN,
            "enrollment_epoch": 1,
            "enrolled_at": "2025-01-01T08:00:00Z",
            "workspaces": [
                {
                    "key": "w-bench",
                    "agent": "lotse",
                    "container_name": "ws-bench",
                    "session_id": SESSION_ID,
                }
            ],
        }
    ]
    world["provider_policies"] = [
        {"provider": "open-full", "audit_content_ceiling": "full"},
        {"provider": "eu-meta", "audit_content_ceiling": "metadata"},
    ]
    for thread in world["threads"]:
        if thread["key"] == f"t{LARGE}" and len(thread["messages"]) > 101:
            thread["messages"][100]["key"] = f"deep{LARGE}"
    for run in range(ATTEMPT_RUNS):
        world["threads"].append(
            {
                "key": f"t-attempts-{run}",
                "channel": DESK,
                "messages": [
                    {"key": f"trigger-attempts-{run}", "author": "alex", "content": "@lotse go"}
                ],
            }
        )
        world["runs"].append(
            {
                "key": f"r-attempts-{run}",
                "thread": f"t-attempts-{run}",
                "agent": "lotse",
                "trigger": f"trigger-attempts-{run}",
                "triggered_by": "alex",
                "state": "running",
            }
        )


def _page_of(size: int) -> Callable[[Any], None]:
    def check(body: Any) -> None:
        assert len(body["items"]) == size, "not a full page"
        assert body["has_more"] is True, "no older messages"

    return check


def operations(ids: dict[str, str], reference_run: str) -> list[Operation]:
    """The hot operations on the loaded benchmark world (``ids`` from the loader).

    ``reference_run`` is the run whose context the denied reads ask for (another
    agent's: 404; a person's token: 403).
    """
    listing = f"/api/v1/channels/{ids['support/general']}/messages"
    desk = ids[DESK]
    thread = {"limit": 50, "parent_message_id": ids[f"p{LARGE}"]}
    counter = itertools.count()

    def new_post() -> dict[str, Any]:
        return {"content_md": "bench post", "client_request_id": f"bench-{next(counter)}"}

    def relayed_post() -> dict[str, Any]:
        call = {
            "call_id": "c1",
            "post_message": {
                "content_md": "relayed",
                "client_request_id": f"relay-{next(counter)}",
            },
        }
        return {"session_id": SESSION_ID, "call": call}

    def relayed_list() -> dict[str, Any]:
        call = {"call_id": "c2", "list_messages": {"limit": 50}}
        return {"session_id": SESSION_ID, "call": call}

    def in_band(kind: str) -> Callable[[Any], None]:
        def check(body: Any) -> None:
            assert kind in body, f"the relay answered {sorted(body)}"

        return check

    resolve = {
        "context": {
            "version": 1,
            "providers": {
                "surface": {
                    "available_surfaces": [{"surface_key": "matters.list", "title": "Matters"}]
                }
            },
        },
        "intents": [
            {"name": "navigate_to", "plane": "client", "params": {"surface_key": "matters.list"}}
        ],
    }
    attempt_paths = [
        f"/api/v1/runs/{ids[f'r-attempts-{run}']}/provider-attempts" for run in range(ATTEMPT_RUNS)
    ]
    attempts = itertools.count()

    def attempt_path() -> str:
        # At most ATTEMPTS_PER_RUN requests per run; the attempt ids are unique anyway.
        return attempt_paths[(next(attempts) // ATTEMPTS_PER_RUN) % ATTEMPT_RUNS]

    def attempt() -> dict[str, Any]:
        return {"attempt_id": f"a{next(counter)}", "provider_id": "open-full", "kind": "chat"}

    context = f"/api/v1/runs/{reference_run}/context"
    found = [
        Operation(
            "list messages, first page",
            "GET",
            listing,
            "tok-alex",
            200,
            params=thread,
            check=_page_of(50),
        ),
        Operation(
            "list messages, deep before_message_id page",
            "GET",
            listing,
            "tok-alex",
            200,
            params={**thread, "before_message_id": ids[f"deep{LARGE}"]},
            check=_page_of(50),
        ),
        Operation(
            "post a message, new",
            "POST",
            f"/api/v1/channels/{desk}/messages",
            "tok-alex",
            201,
            body=new_post,
        ),
        Operation(
            "post a message, replayed",
            "POST",
            f"/api/v1/channels/{desk}/messages",
            "tok-alex",
            200,
            body=lambda: {
                "content_md": "a post that is replayed",
                "client_request_id": REPLAYED_KEY,
            },
        ),
        Operation(
            "relayed post",
            "POST",
            "/api/v1/runner/comms:relay",
            RUNNER_TOKEN,
            200,
            body=relayed_post,
            check=in_band("post_message"),
        ),
        Operation(
            "relayed list",
            "POST",
            "/api/v1/runner/comms:relay",
            RUNNER_TOKEN,
            200,
            body=relayed_list,
            check=in_band("list_messages"),
        ),
        Operation(
            "session-context resolve",
            "POST",
            "/api/v1/agents/session-context/resolve",
            "tok-alex",
            200,
            body=lambda: resolve,
        ),
        Operation(
            "provider attempt",
            "POST",
            attempt_paths[0],
            "tok-lotse",
            200,
            body=attempt,
            path_of=attempt_path,
        ),
        Operation(DENIED[0], "GET", context, "tok-alex", 403),
        Operation(DENIED[1], "GET", context, "tok-texter", 404),
    ]
    for factory in _EXTRA:
        found += factory(ids)
    return found


def operation_call(base_url: str, op: Operation) -> Callable[[requests.Session], None]:
    """One request of ``op``; fails on any other status (or a failed check)."""
    url = f"{base_url}{op.path}"
    headers = {"Authorization": f"Bearer {op.token}"}

    def call(session: requests.Session) -> None:
        response = session.request(
            op.method,
            url if op.path_of is None else f"{base_url}{op.path_of()}",
            headers=headers,
            params=op.params,
            json=op.body() if op.body is not None else None,
            timeout=10.0,
        )
        if response.status_code != op.expect:
            raise AssertionError(
                f"{op.name} answered {response.status_code}, not {op.expect}: {response.text[:300]}"
            )
        if op.check is not None:
            op.check(response.json())

    return call


def count_costs(
    app: Application, base_url: str, ops: list[Operation], repeat: int = 6
) -> dict[str, tuple[float, float]]:
    """OPA round trips and SQL statements per request of each operation (the app's own
    counters around ``repeat`` requests served by ``app`` at ``base_url``, after one
    request that warms its connections and prepared statements)."""
    services = app.services
    costs: dict[str, tuple[float, float]] = {}
    with requests.Session() as session:
        session.trust_env = False
        for op in ops:
            call = operation_call(base_url, op)
            call(session)
            opa_before, sql_before = services.opa.calls, services.sql_statements
            for _ in range(repeat):
                call(session)
            costs[op.name] = (
                (services.opa.calls - opa_before) / repeat,
                (services.sql_statements - sql_before) / repeat,
            )
    return costs
