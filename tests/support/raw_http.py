"""Raw HTTP/1.1 over a socket, for requests that are malformed or oversized on purpose.

``requests`` cannot send a 100 MB Content-Length without the body, bytes that are not
valid in a header, or a 1 MB request line, and it cannot stop sending when the server
has already answered. :func:`exchange` writes the bytes it is given (optionally
followed by body chunks until the server answers) and parses one response.
"""

from __future__ import annotations

import json
import select
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["RawResponse", "exchange"]


@dataclass
class RawResponse:
    """Status, lower-cased headers and body of one response."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


def _read_response(sock: socket.socket) -> RawResponse:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return RawResponse(status=status, headers=headers, body=rest[:length])


def exchange(
    base_url: str, head: bytes, body_chunks: Iterable[bytes] = (), timeout: float = 10.0
) -> RawResponse:
    """Send ``head`` (request line and headers, ending in a blank line), then each body
    chunk while the server keeps reading, and return the server's response.

    Sending stops as soon as the server has answered, closed the connection or stopped
    reading (a send that blocks for ``timeout``); then the answer is read.
    """
    address = urlsplit(base_url)
    with socket.create_connection((address.hostname, address.port), timeout=timeout) as sock:
        sock.sendall(head)
        for chunk in body_chunks:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break  # the server has answered (or closed): stop sending
            try:
                sock.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                break
        return _read_response(sock)
