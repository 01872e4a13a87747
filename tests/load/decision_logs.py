"""What OPA writes to its log per request of the service (``docs/reliability.md``).

``python -m tests.load.decision_logs`` starts a throwaway PostgreSQL and the real OPA
as ``make run`` starts it (``deploy/opa/config.yaml``: decision logs to the console,
the default log level, so each HTTP call also writes a request and a response line),
loads the demo world, serves the app with ``python -m app serve`` and sends each kind
of request ``--requests`` times, measuring how many bytes OPA's log grew per request:
the agent's context read of the demo run (two OPA round trips), a person's message
list and post (one each) and a session-context resolution with the demo turn. It
prints one line per kind and the daily volume at 100 requests a second.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from tests.support.served import local_sources, serve_demo_world

__all__ = ["main"]

_TURN = {
    "context": {
        "version": 1,
        "providers": {
            "surface": {
                "current_surface_key": "matters.list",
                "available_surfaces": [{"surface_key": "home"}, {"surface_key": "matters.list"}],
            },
            "permissions": {"granted": ["settings:write"]},
        },
    },
    "intents": [
        {"name": "navigate_to", "plane": "client", "params": {"surface_key": "home"}},
        {"name": "query_matters", "plane": "server", "params": {"query": "overdue"}},
    ],
}


def _settled_size(path: Path) -> int:
    """The log's size once OPA stopped writing (its console output is asynchronous)."""
    size = -1
    while True:
        time.sleep(0.3)
        now = path.stat().st_size
        if now == size:
            return now
        size = now


def main(argv: list[str] | None = None) -> int:
    """Measure and print the bytes per request of each kind."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.load.decision_logs", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--requests", type=int, default=200, help="requests per kind")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        cluster, opa = stack.enter_context(local_sources())
        app, ids = stack.enter_context(serve_demo_world(cluster, opa.url, "volume"))
        session = stack.enter_context(requests.Session())
        session.trust_env = False
        base = app.base_url
        general = f"{base}/api/v1/channels/{ids['support/general']}/messages"
        counter = iter(range(10**9))

        def send(method: str, url: str, token: str, body: Any = None) -> Callable[[], None]:
            def call() -> None:
                payload = body
                if method == "POST" and url == general:
                    payload = {"content_md": f"Status update {next(counter)}."}
                response = session.request(
                    method,
                    url,
                    headers={"Authorization": f"Bearer {token}"},
                    json=payload,
                    timeout=30,
                )
                response.raise_for_status()

            return call

        kinds = {
            "context read (2 round trips)": send(
                "GET", f"{base}/api/v1/runs/{ids['r1']}/context", "tok-lotse"
            ),
            "message list (1 round trip)": send("GET", general, "tok-sam"),
            "message post (1 round trip)": send("POST", general, "tok-sam"),
            "session-context resolution (1 round trip)": send(
                "POST", f"{base}/api/v1/agents/session-context/resolve", "tok-alex", _TURN
            ),
        }
        log = Path(opa.log_path)
        results = {}
        for name, call in kinds.items():
            call()  # warm: the first call of a kind may log more (compilation)
            before = _settled_size(log)
            for _ in range(args.requests):
                call()
            results[name] = (_settled_size(log) - before) / args.requests
    for name, per_request in results.items():
        daily = per_request * 100 * 86_400 / 1e9
        print(f"{name}: {per_request:,.0f} bytes per request, {daily:.1f} GB a day at 100/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
