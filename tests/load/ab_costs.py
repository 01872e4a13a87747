"""OPA round trips and SQL statements per request of the A/B operations, in one checkout.

``tests/load/ab.py`` runs this file with each checkout's own Python, in that checkout
(``python -c`` with ``runpy``, so the checkout's ``app`` and ``tests`` are imported,
not this one's). It therefore imports only what every checkout since issue 22 has:
``app.config.load_settings``, ``app.main.create_app`` and ``tests.load.operations``.

Besides the OPA calls and SQL statements, it counts the Python and C function calls the
server's threads make per request, by package: like the other two, a count of the work
that does not move with the host's load, and it says where extra work went.

Arguments: a JSON file ``{"ids": ..., "run": ..., "names": [...]}`` and a prefix of the
posts' ``client_request_id`` (one per side); prints ``{"costs": {name: [opa calls, sql
statements]}, "calls": {name: {package: calls}}}`` as JSON on stdout.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import sys
import sysconfig
import threading
import time
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

import requests
import uvicorn

from app.config import load_settings
from app.main import create_app
from tests.load import operations

CONTEXT = "getRunContext"
CALL_REQUESTS = 20
_STDLIB = sysconfig.get_paths()["stdlib"] + "/"
_SITE = "/site-packages/"


def _package(filename: str, tree: str) -> str:
    """The top-level package (or stdlib module) a code file belongs to."""
    if _SITE in filename:  # before the tree: a checkout's .venv lies inside it
        return filename.split(_SITE, 1)[1].split("/")[0].removesuffix(".py")
    for prefix in (tree, _STDLIB):
        if filename.startswith(prefix):
            return filename[len(prefix) :].split("/")[0].removesuffix(".py")
    return filename


class CallCounter:
    """A profile function for every thread started after it is set: counts the Python
    calls (by the callee's package) and C calls (by the caller's) while :attr:`on`."""

    def __init__(self) -> None:
        self.on = False
        self.counts: Counter[str] = Counter()
        self.tree = os.getcwd() + "/"

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.on and event in ("call", "c_call"):
            self.counts[_package(frame.f_code.co_filename, self.tree)] += 1


def _count_calls(
    counter: CallCounter, base_url: str, ops: list[operations.Operation]
) -> dict[str, dict[str, float]]:
    calls: dict[str, dict[str, float]] = {}
    with requests.Session() as session:
        session.trust_env = False
        for op in ops:
            call = operations.operation_call(base_url, op)
            call(session)
            counter.counts.clear()
            counter.on = True
            for _ in range(CALL_REQUESTS):
                call(session)
            counter.on = False
            calls[op.name] = {k: v / CALL_REQUESTS for k, v in counter.counts.items()}
    return calls


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
    counter = CallCounter()
    threading.setprofile(counter)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            print("uvicorn did not start", file=sys.stderr)
            return 1
        time.sleep(0.01)
    ops = [found[name] for name in spec["names"]]
    try:
        costs = operations.count_costs(app, f"http://127.0.0.1:{port}", ops)
        calls = _count_calls(counter, f"http://127.0.0.1:{port}", ops)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        app.services.close()
    print(json.dumps({"costs": costs, "calls": calls}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
