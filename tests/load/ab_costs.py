"""OPA round trips and SQL statements per request of the A/B operations, in one checkout.

``tests/load/ab.py`` runs this file with each checkout's own Python, in that checkout
(``python -c`` with ``runpy``, so the checkout's ``app`` and ``tests`` are imported,
not this one's). It therefore imports only what every checkout since issue 22 has:
``app.config.load_settings``, ``app.main.create_app`` and ``tests.load.operations``.

Arguments: a JSON file ``{"ids": ..., "run": ..., "names": [...]}`` and a prefix of the
posts' ``client_request_id`` (one per side); prints
``{name: [opa calls, sql statements]}`` as JSON on stdout.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from app.config import load_settings
from app.main import create_app
from tests.load import operations

CONTEXT = "getRunContext"


def _own_keys(value: Any, prefix: str) -> Any:
    """``value`` with every ``client_request_id`` prefixed: every side's counting and the
    A/B's own requests count from the same numbers, and a key used twice is a replay."""
    if isinstance(value, dict):
        return {
            k: f"{prefix}-{v}" if k == "client_request_id" else _own_keys(v, prefix)
            for k, v in value.items()
        }
    return value


def _fresh(op: operations.Operation, prefix: str) -> operations.Operation:
    body = op.body
    if body is None or "replayed" in op.name:
        return op
    return dataclasses.replace(op, body=lambda: _own_keys(body(), prefix))


def main(spec_path: str, prefix: str) -> int:
    """Serve the app in a thread, count each named operation's costs, print them."""
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    app = create_app(load_settings())
    found = {op.name: _fresh(op, prefix) for op in operations.operations(spec["ids"], spec["run"])}
    found[CONTEXT] = operations.Operation(
        CONTEXT, "GET", f"/api/v1/runs/{spec['run']}/context", "tok-lotse", 200
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_config=None, access_log=False, lifespan="off"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            print("uvicorn did not start", file=sys.stderr)
            return 1
        time.sleep(0.01)
    try:
        costs = operations.count_costs(
            app, f"http://127.0.0.1:{port}", [found[name] for name in spec["names"]]
        )
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.services.close()
    print(json.dumps(costs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
