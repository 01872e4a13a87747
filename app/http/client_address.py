"""The client address of a request, for limits per address (failed authentication).

The address is the TCP peer (``scope["client"]``; the HTTP server's own proxy-header
rewriting is off, see :func:`app.http.protocol.server_options`, so this module alone
decides). Only when the peer is one of the trusted proxies
(``rate_limit.trusted_proxies``) is ``X-Forwarded-For`` read. Each proxy appends the
address it received the request from, so the entries are read from the right, trusted
proxies are skipped, and the first entry that is not a trusted proxy is the client.
Everything to its left was written by the client itself and is never believed; an
entry that is not an IP address ends the walk at the last trusted hop.

The module imports nothing of the app, so the configuration schema can check
``rate_limit.trusted_proxies`` with :func:`parse_networks` when it is loaded.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from starlette.types import Scope

__all__ = ["ClientAddresses", "Network", "parse_networks"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# A forwarded chain longer than this is not walked further (the header size limit
# already bounds it; this bounds the work per request).
_MAX_HOPS = 32
# The key of a request without a TCP peer (a Unix socket): all such requests share it.
UNKNOWN = "unknown"


def parse_networks(text: str) -> tuple[Network, ...]:
    """Comma-separated IP addresses or CIDR networks (``10.0.0.0/8, 192.0.2.7``).

    Raises:
        ValueError: an entry is neither an address nor a network.
    """
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    )


def _address(text: str) -> Address | None:
    """An IP address from a forwarded entry (``[v6]:port`` and ``v4:port`` allowed)."""
    text = text.strip()
    if text.startswith("["):
        text = text[1 : text.find("]")] if "]" in text else ""
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _forwarded(scope: Scope) -> Iterator[str]:
    """The X-Forwarded-For entries, right-most first, over every such header."""
    entries: list[str] = []
    for name, value in scope.get("headers", []):
        if name == b"x-forwarded-for":
            entries.extend(value.decode("latin-1").split(","))
    return reversed(entries[-_MAX_HOPS:])


class ClientAddresses:
    """Resolves the client address of a request (see module doc).

    Args:
        trusted: the networks of the trusted proxies; empty: the peer is the client.
    """

    def __init__(self, trusted: tuple[Network, ...] = ()) -> None:
        self._trusted = trusted

    @classmethod
    def from_setting(cls, text: str) -> ClientAddresses:
        """From ``rate_limit.trusted_proxies`` (checked when the settings were loaded)."""
        return cls(parse_networks(text))

    def _is_trusted(self, address: Address) -> bool:
        return any(address in network for network in self._trusted)

    def of(self, scope: Scope) -> str:
        """The client address of the request in ``scope``, as text."""
        peer = scope.get("client")
        if not peer:
            return UNKNOWN
        host = _address(str(peer[0]))
        if host is None:
            return str(peer[0])
        if not self._trusted or not self._is_trusted(host):
            return str(host)
        for entry in _forwarded(scope):
            hop = _address(entry)
            if hop is None:
                break
            if not self._is_trusted(hop):
                return str(hop)
            host = hop
        return str(host)
