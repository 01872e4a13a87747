#!/usr/bin/env python3
"""A small OPA bundle service: serves bundle files over HTTP with ETags.

OPA's bundle plugin polls ``GET <service url>/<resource>`` and sends the ETag of the
bundle it holds as ``If-None-Match``; an unchanged file answers ``304 Not Modified``, so
the sidecar keeps its bundle without downloading or activating it again. Replacing the
file (for example ``make bundle`` writing a new revision, or ``os.replace`` in a test)
changes its ETag, and every sidecar activates the new bundle at its next poll.

Used by ``POLICY_BUNDLE=path make run`` (the production path on a laptop), by
``docker-compose.yml`` and by the tests. Production serves bundles from any HTTP server
or object store the sidecars can reach (``docs/operations.md``, releasing a policy);
this one has no TLS and no authentication and binds to loopback by default.

Standard library only, so it runs in a bare ``python`` image::

    python3 scripts/bundle_service.py --port 8182 \\
        bundles/agent-authz.tar.gz=.data/bundles/agent-authz.tar.gz

Each ``ROUTE=FILE`` serves ``FILE`` at ``/ROUTE``; any other path answers 404, a method
other than GET and HEAD 405. The file is read (and hashed) per request, so there is no
cache to go stale; a missing file answers 404, which OPA reports as a failed download
and retries. The first line on standard output is ``listening on http://HOST:PORT``
(with the real port when ``--port 0`` asked for a free one).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# A bundle larger than this is refused (OPA's own default limit is 1 GiB; ours are KB).
MAX_BUNDLE_BYTES = 64 * 1024 * 1024


def _routes(specs: list[str]) -> dict[str, Path]:
    routes: dict[str, Path] = {}
    for spec in specs:
        route, separator, file = spec.partition("=")
        route = route.strip("/")
        if not separator or not route or not file:
            raise SystemExit(f"bundle_service: expected ROUTE=FILE, got {spec!r}")
        routes["/" + route] = Path(file).resolve()
    return routes


def make_handler(routes: Mapping[str, Path], *, quiet: bool) -> type[BaseHTTPRequestHandler]:
    """A request handler serving ``routes`` (URL path to file)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "agent-authz-bundle-service"
        sys_version = ""

        def _answer(self, status: int, body: bytes = b"", headers: Mapping[str, str] = {}) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)

        def _serve(self) -> None:
            path = self.path.split("?", 1)[0]
            file = routes.get(path)
            if file is None:
                self._answer(404)
                return
            try:
                if file.stat().st_size > MAX_BUNDLE_BYTES:
                    self._answer(500)
                    return
                data = file.read_bytes()
            except OSError:
                self._answer(404)
                return
            etag = f'"sha256-{hashlib.sha256(data).hexdigest()}"'
            if etag in (self.headers.get("If-None-Match") or ""):
                self._answer(304, headers={"ETag": etag})
                return
            self._answer(200, data, {"Content-Type": "application/gzip", "ETag": etag})

        def do_GET(self) -> None:
            self._serve()

        def do_HEAD(self) -> None:
            self._serve()

        def _refuse(self) -> None:
            self._answer(405, headers={"Allow": "GET, HEAD"})

        def do_POST(self) -> None:
            self._refuse()

        def do_PUT(self) -> None:
            self._refuse()

        def do_DELETE(self) -> None:
            self._refuse()

        def log_message(self, format: str, *args: object) -> None:
            if not quiet:
                sys.stderr.write(f"bundle_service: {format % args}\n")

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8182, help="port (0: a free one)")
    parser.add_argument("--quiet", action="store_true", help="no line per request")
    parser.add_argument("routes", nargs="+", metavar="ROUTE=FILE")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(
        (args.host, args.port), make_handler(_routes(args.routes), quiet=args.quiet)
    )
    server.daemon_threads = True
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
